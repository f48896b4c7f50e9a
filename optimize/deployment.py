"""Before thresholds are deployed: classes they predict for most objects although rare.

F of macro-averaged precision and recall can buy macro-recall cheaply on rare classes by
predicting them for (almost) every object: the class's recall becomes 1 while its
precision falls only to its base rate, and averaged over many classes that trade can
raise F-macro. Such thresholds score well on the tuning rows and on held-out rows alike,
yet tag every object with a large part of the vocabulary (on the bundled Corel5k
rankings, ``tune`` predicts 237.8 labels per object against 3.53 true). The objective is
working as defined; the user must know.

The rule (:func:`predict_everything_classes`): a class is flagged when its threshold
predicts more than ``min_predicted_rate`` (default 1/2) of the tuning rows while its base
rate (its positives among those rows) is below ``max_base_rate`` (default 1/4). A class
without tuning positives whose threshold is ``-inf`` (the rule of ``tune`` for such
classes can choose it) predicts every row at base rate 0, so it is flagged too.
:func:`warn_predict_everything` raises a :class:`PredictEverythingWarning` naming them;
``tune`` and ``FMacroThresholdClassifier`` call it. Silence it with
``warnings.simplefilter("ignore", PredictEverythingWarning)``, or keep the thresholds
from predicting everything with per-class constraints.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import numpy as np
from numpy.typing import NDArray

from fmacro.validation.checks import check_fraction

__all__ = [
    "DEFAULT_MAX_BASE_RATE",
    "DEFAULT_MIN_PREDICTED_RATE",
    "PredictEverythingWarning",
    "predict_everything_classes",
    "quiet",
    "warn_predict_everything",
    "warns_predict_everything",
]

P = ParamSpec("P")
R = TypeVar("R")

#: A flagged class predicts more than this share of the tuning rows ...
DEFAULT_MIN_PREDICTED_RATE = 0.5
#: ... while fewer than this share of them are its positives.
DEFAULT_MAX_BASE_RATE = 0.25

# Names listed in a warning before "and N more".
_NAMES_SHOWN = 10


class PredictEverythingWarning(UserWarning):
    """Thresholds predict rare classes for most objects (see :mod:`optimize.deployment`)."""


def predict_everything_classes(
    result: Any,
    *,
    min_predicted_rate: float = DEFAULT_MIN_PREDICTED_RATE,
    max_base_rate: float = DEFAULT_MAX_BASE_RATE,
) -> NDArray[np.int64]:
    """The columns whose thresholds predict most tuning rows although the class is rare.

    Parameters
    ----------
    result : ThresholdResult
        A result that carries its tuning counts (``result.tuning``); without them (for
        example after ``attrs.evolve(result, thresholds=...)``) nothing is known and the
        answer is empty.
    min_predicted_rate, max_base_rate : float in (0, 1)
        A column is flagged when ``predicted / n > min_predicted_rate`` and
        ``support / n < max_base_rate`` on the tuning rows (n rows, or their total
        weight).

    Returns
    -------
    ndarray of int64
        The flagged column numbers, increasing.

    Examples
    --------
    >>> import numpy as np
    >>> from fmacro.optimize import per_class
    >>> labels = np.array([[1, 0], [0, 0], [0, 0], [0, 0], [0, 1]])
    >>> scores = np.array([[0.9, 0.8], [0.1, 0.7], [0.2, 0.9], [0.3, 0.6], [0.4, 0.5]])
    >>> # class 1's only positive has its lowest score: its best cut predicts everything
    >>> predict_everything_classes(per_class(scores, labels))
    array([1])
    """
    min_rate = check_fraction(min_predicted_rate, "min_predicted_rate")
    max_base = check_fraction(max_base_rate, "max_base_rate")
    counts = getattr(result, "tuning", None)
    if counts is None or not counts.n_samples:
        return np.zeros(0, dtype=np.int64)
    n = float(counts.n_samples)
    predicted_rate = counts.predicted / n
    base_rate = counts.support / n
    flagged = (predicted_rate > min_rate) & (base_rate < max_base)
    return np.flatnonzero(flagged).astype(np.int64)


def warn_predict_everything(
    result: Any,
    *,
    min_predicted_rate: float = DEFAULT_MIN_PREDICTED_RATE,
    max_base_rate: float = DEFAULT_MAX_BASE_RATE,
    stacklevel: int = 1,
) -> NDArray[np.int64]:
    """Warn (:class:`PredictEverythingWarning`) when :func:`predict_everything_classes`
    flags a class; return the flagged columns.

    The message names the classes (``result.classes`` when the result has names, else
    column numbers; the first ten and how many more) and gives the labels predicted per
    tuning row against the true mean. ``stacklevel`` 1 attributes the warning to the
    caller of this function, 2 to that caller's caller, and so on.
    """
    flagged = predict_everything_classes(
        result, min_predicted_rate=min_predicted_rate, max_base_rate=max_base_rate
    )
    if flagged.size:
        counts = result.tuning
        names = getattr(result, "classes", None)
        shown = [repr(names[j]) if names is not None else str(j) for j in flagged[:_NAMES_SHOWN]]
        more = f" and {flagged.size - _NAMES_SHOWN} more" if flagged.size > _NAMES_SHOWN else ""
        what = ("classes" if names is not None else "columns")[: None if flagged.size > 1 else -1]
        warnings.warn(
            f"the thresholds predict {flagged.size} rare {what} for more than "
            f"{_percent(min_predicted_rate)} of the tuning rows (base rate below "
            f"{_percent(max_base_rate)}): {', '.join(shown)}{more}; they predict "
            f"{counts.labels_per_object:.4g} labels per object against "
            f"{counts.true_labels_per_object:.4g} true. F-macro rewards this (see "
            "fmacro.optimize.deployment); check that it suits your use",
            PredictEverythingWarning,
            stacklevel=stacklevel + 1,
        )
    return flagged


def _percent(share: float) -> str:
    value = 100.0 * share
    return f"{value:.0f}%" if math.isclose(value, round(value)) else f"{value:.3g}%"


def warns_predict_everything(func: Callable[P, R]) -> Callable[P, R]:
    """Decorate a threshold method: after it returns, :func:`warn_predict_everything` on its
    result, attributed to the method's caller."""

    @functools.wraps(func)
    def checked(*args: P.args, **kwargs: P.kwargs) -> R:
        result = func(*args, **kwargs)
        warn_predict_everything(result, stacklevel=2)
        return result

    return checked


def quiet(func: Callable[P, R]) -> Callable[P, R]:
    """``func`` with :class:`PredictEverythingWarning` silenced: for callers that report the
    flagged classes themselves (the command line's table) or refit many times
    (``held_out_interval``) and warn once."""

    @functools.wraps(func)
    def silenced(*args: P.args, **kwargs: P.kwargs) -> R:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PredictEverythingWarning)
            return func(*args, **kwargs)

    return silenced
