"""What :class:`~fmacro.optimize.sklearn.FMacroThresholdClassifier` maximizes, and how.

``objective="auto"`` resolved per target (:func:`resolve_objective`), the search each
objective runs on the out-of-fold scores (:func:`search_thresholds`: F-macro, macro-F by
per-class optima, F_beta of the positive class, micro-F by one pooled threshold) and the
objective's value of one-vs-rest decisions (:func:`objective_value`). Internal:
:mod:`fmacro.optimize.sklearn` is its only user.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.baselines import micro_macro, per_class
from fmacro.optimize.rules import PerClassThresholds
from fmacro.optimize.search.result import ThresholdResult
from fmacro.optimize.tuning import tune
from fmacro.validation.measures import f_beta_from_counts, macro_from_counts, macro_mean

__all__ = ["objective_value", "resolve_objective", "search_thresholds"]


def resolve_objective(
    objective: str, *, method: str, pos_label: Any, classes: NDArray[Any], multilabel: bool
) -> tuple[str, int | None]:
    """(objective, column of the positive class for "f_beta" else None)."""
    binary = not multilabel and classes.shape[0] == 2
    if objective == "auto":
        objective = "f_beta" if binary else "f_macro"
    target = "a multi-label target" if multilabel else f"a target with {classes.shape[0]} classes"
    if objective == "f_beta" and not binary:
        raise ValueError(
            "objective='f_beta' tunes the positive class of a binary target, but y is "
            f"{target}; use 'f_macro', 'macro_f' or 'micro_f'"
        )
    if objective == "micro_f" and not multilabel:
        raise ValueError(
            f"objective='micro_f' needs a multi-label target, but y is {target} (with "
            "one label per sample, micro-F of the predicted labels is their accuracy); "
            "use 'f_beta' (binary), 'f_macro' or 'macro_f'"
        )
    if objective == "micro_macro" and not multilabel:
        raise ValueError(
            f"objective='micro_macro' needs a multi-label target, but y is {target}; use "
            "'f_beta' (binary), 'f_macro' or 'macro_f'"
        )
    if objective == "macro_f" and method not in ("tune", "per_class"):
        raise ValueError(
            "objective='macro_f' is maximized by each class's own F_beta optimum: "
            f"method must be 'tune' or 'per_class', got {method!r}"
        )
    if objective != "f_beta":
        if pos_label is not None:
            raise ValueError(
                f"pos_label is used with objective='f_beta' only, got pos_label="
                f"{pos_label!r} with objective={objective!r}"
            )
        return objective, None
    if pos_label is None:
        return objective, 1
    hit = np.flatnonzero(classes == pos_label)
    if hit.size != 1:
        raise ValueError(
            f"pos_label must be one of the classes of y {classes.tolist()}, got {pos_label!r}"
        )
    return objective, int(hit[0])


def search_thresholds(
    search: Callable[..., ThresholdResult],
    objective: str,
    pos: int | None,
    scores: NDArray[np.float64],
    labels: NDArray[np.bool_],
    beta: float,
    zd: float,
    weights: NDArray[np.float64] | None,
    *,
    method: str,
    prior: float | str,
    classes: NDArray[Any],
    multilabel: bool,
    constraints: Mapping[str, Any] | None = None,
    mix: float = 0.5,
) -> ThresholdResult:
    """The thresholds ``search`` finds for ``objective`` on out-of-fold ``scores``, under
    the per-class ``constraints`` (``min_precision`` / ``max_predicted_rate`` as the
    searches take them; checked there) when given."""
    limits = dict(constraints or {})
    if limits and (objective == "micro_f" or method == "global_threshold"):
        what = "objective='micro_f'" if objective == "micro_f" else "method='global_threshold'"
        raise ValueError(
            f"min_precision / max_predicted_rate constrain each class's own threshold; "
            f"{what} shares one threshold across the classes"
        )

    def run(
        searcher: Callable[..., ThresholdResult],
        s: NDArray[np.float64],
        y: NDArray[np.bool_],
        w: NDArray[np.float64] | None,
        **options: Any,
    ) -> ThresholdResult:
        if w is None:
            return searcher(s, y, beta=beta, zero_division=zd, **options)
        # weighted samples: every search takes them (on weighted class points), tune's
        # prior="cv" and its rule for classes without tuning positives included
        return searcher(s, y, beta=beta, zero_division=zd, sample_weight=w, **options)

    extra: dict[str, Any] = {}
    if method == "tune":
        # a class without tuning positives: predicted for every sample in multi-label
        # targets (tune's default), never in single-label ones, where -inf would win
        # every argmax of the margins
        extra = {"prior": prior, "unseen": "prior" if multilabel else "never"}
    if objective == "micro_macro":  # one method maximizes it, whatever ``method`` says
        return run(micro_macro, scores, labels, weights, mix=mix, **limits)
    if objective == "f_macro":
        return run(search, scores, labels, weights, **extra, **limits)
    if objective == "macro_f":
        if method == "tune":
            return run(tune, scores, labels, weights, method="per_class", **extra, **limits)
        return run(per_class, scores, labels, weights, **limits)
    if objective == "f_beta":
        assert pos is not None
        if not labels[:, pos].any():
            raise ValueError(
                f"the positive class {classes[pos]!r} has no sample among the "
                "out-of-fold rows used for tuning"
            )
        # F-macro of one class is that class's F_beta: any method cuts its ranking
        own = {k: _own_value(v, pos, scores.shape[1], k) for k, v in limits.items()}
        return run(search, scores[:, [pos]], labels[:, [pos]], weights, **extra, **own)
    # micro_f: one threshold for all labels, the best cut of the pooled ranking
    pooled_weights = None if weights is None else np.repeat(weights, scores.shape[1])
    pooled = run(search, scores.reshape(-1, 1), labels.reshape(-1, 1), pooled_weights, **extra)
    shared = np.full(scores.shape[1], pooled.thresholds[0])
    return attrs.evolve(
        pooled,
        thresholds=shared,
        rule=PerClassThresholds(shared),
        diagnostics={**pooled.diagnostics, "objective": "micro_f", "pooled_rows": labels.size},
    )


def objective_value(
    labels: NDArray[np.bool_],
    decisions: NDArray[np.bool_],
    objective: str,
    pos: int | None,
    beta: float,
    zd: float,
    weights: NDArray[np.float64] | None = None,
    mix: float = 0.5,
) -> float:
    """``objective`` of one-vs-rest ``decisions`` against ``labels`` (both (N, K) bool).

    Averages over classes run over the columns with a positive label (as the searches),
    by the 0/0 rule of :mod:`fmacro.validation.measures` (as the classifier's ``score``:
    under ``zero_division=nan`` undefined classes are left out); with ``weights`` every
    sample counts its weight.
    """
    w = np.ones(labels.shape[0]) if weights is None else weights
    tp = w @ (labels & decisions)
    fp = w @ (~labels & decisions)
    fn = w @ (labels & ~decisions)
    if objective == "f_beta":
        assert pos is not None
        return float(f_beta_from_counts(tp[pos], fp[pos], fn[pos], beta, zd))
    if objective == "micro_f":
        return float(f_beta_from_counts(tp.sum(), fp.sum(), fn.sum(), beta, zd))
    kept = labels.any(axis=0)
    tp, fp, fn = tp[kept], fp[kept], fn[kept]
    if objective == "macro_f":
        return float(macro_mean(f_beta_from_counts(tp, fp, fn, beta, zd)))
    if objective == "micro_macro":  # as micro_macro's search: both over the kept classes
        micro = f_beta_from_counts(tp.sum(), fp.sum(), fn.sum(), beta, zd)
        macro = macro_mean(f_beta_from_counts(tp, fp, fn, beta, zd))
        return float(mix * micro + (1.0 - mix) * macro)
    return float(macro_from_counts(tp, fp, tp + fn, beta, zd)[2])


def _own_value(value: Any, pos: int, n_classes: int, name: str) -> Any:
    """The positive class's entry of a per-class constraint (a number stays as it is)."""
    arr = np.asarray(value)
    if arr.ndim == 1:
        if arr.shape[0] != n_classes:
            raise ValueError(
                f"{name} must be a number or one value per class, shape ({n_classes},), "
                f"got shape {arr.shape}"
            )
        return arr[[pos]]
    return value
