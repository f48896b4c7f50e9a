"""scikit-learn scorers built on fmacro's validations (scikit-learn stays optional).

Use them wherever scikit-learn takes ``scoring=``: ``cross_val_score``,
``cross_validate``, ``GridSearchCV``. Each scorer builds the validation that fits the
labels (multi-label for 2-D indicator targets, multiclass otherwise) and returns one of
its measures; classes are the labels present in ``y_true`` or ``y_pred`` of each fold.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fmacro.validation.checks import is_sparse
from fmacro.validation.multiclass import MultiFValidation
from fmacro.validation.multilabel import MultiLabelFValidation

__all__ = ["f_macro_score", "f_macro_scorer", "measure_score", "measure_scorer"]

_MEASURES = (
    "f_macro",
    "macro_f",
    "micro_f",
    "weighted_f",
    "macro_precision",
    "macro_recall",
    "micro_precision",
    "micro_recall",
    "weighted_precision",
    "weighted_recall",
    "samples_f",
    "accuracy",
    "subset_accuracy",
    "hamming_loss",
)
# Losses: lower is better, so their scorers negate them (scikit-learn's convention).
_LOSSES = frozenset({"hamming_loss"})


def measure_score(
    y_true: Any,
    y_pred: Any,
    *,
    measure: str = "f_macro",
    beta: float = 1.0,
    zero_division: float = 0.0,
    sample_weight: Any = None,
) -> float:
    """One measure of the validation that fits ``y_true`` / ``y_pred``.

    ``sample_weight`` (one weight per sample) weights the counts, as scikit-learn's
    metrics do; the scorers pass it on when scikit-learn routes it to them.

    Examples
    --------
    >>> round(measure_score([0, 0, 1, 2], [0, 1, 1, 2]), 4)
    0.8333
    """
    if measure not in _MEASURES:
        raise ValueError(f"measure must be one of {_MEASURES}, got {measure!r}")
    multilabel = is_sparse(y_true) or np.ndim(y_true) == 2
    v: MultiFValidation | MultiLabelFValidation
    if multilabel:
        v = MultiLabelFValidation.from_predictions(
            y_true, y_pred, beta=beta, zero_division=zero_division, sample_weight=sample_weight
        )
    else:
        v = MultiFValidation.from_predictions(
            y_true, y_pred, beta=beta, zero_division=zero_division, sample_weight=sample_weight
        )
    if not hasattr(v, measure):
        raise ValueError(f"measure {measure!r} is not defined for {type(v).__name__}")
    return float(getattr(v, measure))


def f_macro_score(
    y_true: Any,
    y_pred: Any,
    *,
    beta: float = 1.0,
    zero_division: float = 0.0,
    sample_weight: Any = None,
) -> float:
    """F-macro: F_beta of macro precision and macro recall (optionally sample-weighted)."""
    return measure_score(
        y_true,
        y_pred,
        measure="f_macro",
        beta=beta,
        zero_division=zero_division,
        sample_weight=sample_weight,
    )


def measure_scorer(
    measure: str = "f_macro", *, beta: float = 1.0, zero_division: float = 0.0
) -> Any:
    """A scikit-learn scorer (``make_scorer``) for ``measure``.

    Greater is better for every measure but ``hamming_loss``, whose scorer returns the
    negated loss (as scikit-learn's ``neg_*`` scorers do). ``subset_accuracy`` and
    ``hamming_loss`` are multi-label measures (for single-label targets, ``accuracy``).
    """
    from sklearn.metrics import make_scorer

    if measure not in _MEASURES:
        raise ValueError(f"measure must be one of {_MEASURES}, got {measure!r}")
    return make_scorer(
        measure_score,
        greater_is_better=measure not in _LOSSES,
        measure=measure,
        beta=beta,
        zero_division=zero_division,
    )


def f_macro_scorer(beta: float = 1.0, zero_division: float = 0.0) -> Any:
    """A scikit-learn scorer for F-macro.

    Example: ``cross_val_score(clf, X, y, scoring=f_macro_scorer(beta=2.0))``.
    """
    return measure_scorer("f_macro", beta=beta, zero_division=zero_division)
