"""How :class:`~fmacro.optimize.sklearn.FMacroThresholdClassifier` gets its out-of-fold rows.

The folds of ``cv`` (an integer: scikit-learn's ``check_cv`` folds, seeded by
``random_state``; a splitter; or explicit index pairs), the metadata routing of ``fit``'s
parameters to ``estimator.fit`` and ``cv.split``, and the row subsets of per-sample fit
parameters. Internal: :mod:`fmacro.optimize.sklearn` (which needs scikit-learn) is its
only user.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn import get_config
from sklearn.utils import _safe_indexing
from sklearn.utils.metadata_routing import process_routing

from fmacro.crossval import KFold

__all__ = ["cv_splits", "fold_seed", "int_splitter", "routed_params", "subset_params"]


def cv_splits(
    cv: Any,
    X: Any,
    y: Any,
    split_params: Mapping[str, Any],
    *,
    multilabel: bool,
    random_state: Any,
) -> list[tuple[NDArray[np.intp], NDArray[np.intp]]]:
    """The (train, test) index pairs of ``cv``; ``split_params`` go to its ``split``.

    An integer ``cv`` gives the folds of :func:`int_splitter`.
    """
    pairs: Any
    if isinstance(cv, numbers.Integral) and not isinstance(cv, (bool, np.bool_)):
        if int(cv) < 2:
            raise ValueError(f"cv must be an integer >= 2 folds, got {cv!r}")
        if not multilabel:
            largest = int(np.unique(y, return_counts=True)[1].max())
            if largest < int(cv):
                raise ValueError(
                    f"cv={int(cv)} stratified folds need a class with at least "
                    f"{int(cv)} samples, but the largest class of y has {largest}; "
                    "pass a smaller cv"
                )
        pairs = int_splitter(int(cv), multilabel=multilabel, random_state=random_state).split(X, y)
    elif not isinstance(cv, (str, bytes)) and hasattr(cv, "split"):
        pairs = cv.split(X, y, **split_params)
    elif not isinstance(cv, (str, bytes)) and isinstance(cv, Iterable):
        pairs = cv
    else:
        raise ValueError(
            "cv must be an integer >= 2, a splitter with split(X, y), an iterable "
            f"of (train, test) index pairs, or 'prefit'; got {cv!r}"
        )
    out = [(np.asarray(tr, dtype=np.intp), np.asarray(te, dtype=np.intp)) for tr, te in pairs]
    if not out:
        raise ValueError("cv yielded no (train, test) split")
    return out


def int_splitter(k: int, *, multilabel: bool, random_state: Any) -> Any:
    """The splitter of an integer ``cv``: scikit-learn's ``check_cv`` folds.

    Binary and multiclass targets: scikit-learn's ``StratifiedKFold(k)``; multi-label
    targets: ``KFold(k)`` (fmacro's, whose unshuffled folds are scikit-learn's). In
    sample order unless ``random_state`` is given, which shuffles them seeded.
    """
    seed = fold_seed(random_state)
    if multilabel:
        return KFold(k=k, shuffle=seed is not None, seed=seed)
    from sklearn.model_selection import StratifiedKFold

    return StratifiedKFold(n_splits=k, shuffle=seed is not None, random_state=seed)


def routed_params(owner: Any, params: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(parameters of ``estimator.fit``, parameters of ``cv.split``) of one ``owner.fit``.

    With scikit-learn's metadata routing enabled, :func:`process_routing` routes them
    as ``owner.get_metadata_routing()`` declares (and raises for metadata whose request is
    unset); otherwise every fit parameter, ``sample_weight`` included, goes to
    ``estimator.fit`` and none to the splitter.
    """
    if get_config().get("enable_metadata_routing", False):
        routed = process_routing(owner, "fit", **params)
        # cv="prefit" routes to neither (see get_metadata_routing)
        estimator, splitter = routed.get("estimator"), routed.get("splitter")
        return (
            {} if estimator is None else dict(estimator["fit"]),
            {} if splitter is None else dict(splitter["split"]),
        )
    return dict(params), {}


def fold_seed(random_state: Any) -> int | None:
    """Seed of the shuffled folds of an integer ``cv``; ``None``: folds in sample order.

    An int in ``[0, 2**32 - 1]`` is the seed (as scikit-learn's ``random_state``); a
    ``numpy.random.RandomState`` draws one (new folds at each ``fit``).
    """
    expected = "None, an int in [0, 2**32 - 1] or a numpy.random.RandomState"
    if random_state is None:
        return None
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(np.iinfo(np.int32).max))
    if isinstance(random_state, (bool, np.bool_)) or not isinstance(random_state, numbers.Integral):
        raise TypeError(f"random_state must be {expected}, got {random_state!r}")
    if not 0 <= int(random_state) < 2**32:
        raise ValueError(f"random_state must be {expected}, got {int(random_state)}")
    return int(random_state)


def subset_params(params: Mapping[str, Any], idx: NDArray[np.intp], n: int) -> dict[str, Any]:
    """Fit parameters for a row subset: per-sample arrays are indexed, others kept."""
    out: dict[str, Any] = {}
    for key, value in params.items():
        shape = getattr(value, "shape", None)
        if shape is not None:
            length = shape[0] if len(shape) > 0 else None
        else:
            length = len(value) if isinstance(value, (list, tuple)) else None
        out[key] = _safe_indexing(value, idx) if length == n else value
    return out
