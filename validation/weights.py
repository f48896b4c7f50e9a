"""Sample weights: each observation counts its weight instead of 1.

``sample_weight`` follows scikit-learn: one non-negative finite number per observation.
Weighted counts are floats (sums of weights); with no weights they stay integers, and
both add up with ``+`` (the sum of integer and weighted counts is weighted). Every
measure is the same function of the counts, so weighted precision, recall and F agree
with scikit-learn's ``precision_recall_fscore_support(..., sample_weight=w)``.

The unweighted counting kernels are not slowed by this: weights take their own path,
numba loops (``_kernels.weighted``: binary, dense multi-label), a weighted ``bincount``
(multiclass) and sparse matrix-vector products (CSR multi-label).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fmacro.validation import _kernels
from fmacro.validation.checks import WEIGHTED_TOTAL_MAX, describe_total, is_sparse

__all__ = [
    "check_sample_weight",
    "weighted_binary_counts",
    "weighted_confusion",
    "weighted_label_counts",
]


def check_sample_weight(
    sample_weight: Any, n_samples: int, name: str = "sample_weight"
) -> NDArray[np.float64] | None:
    """``sample_weight`` as a float64 vector of ``n_samples`` weights (``None`` stays ``None``).

    The one check of sample weights: every function taking ``sample_weight`` (the
    validations, cross-validation, ``optimize.best_threshold``, ``optimize.class_points``,
    the scikit-learn wrappers) runs it, so they accept and refuse the same weights.

    The weights must sum to at most ``2**1022`` (:data:`~validation.checks.WEIGHTED_TOTAL_MAX`,
    about 4.5e307): every weighted count is then a sum of at most that much, any sum of
    counts stays finite and F_beta's ``(1 + b**2) TP + b**2 FN + FP`` too for beta <= 1.
    Measures do not change when every weight is multiplied by the same number, so larger
    weights can be scaled down.

    Raises
    ------
    TypeError
        For a sparse matrix, booleans, strings or other non-numeric weights.
    ValueError
        For a shape other than ``(n_samples,)``, NaN, infinite or negative weights,
        weights that are all zero, or weights summing to more than 2**1022.
    """
    if sample_weight is None:
        return None
    if is_sparse(sample_weight):
        raise TypeError(f"{name} must be a 1-D array of numbers, got a sparse matrix")
    raw = sample_weight.to_numpy() if hasattr(sample_weight, "to_numpy") else sample_weight
    arr = np.asarray(raw)
    if arr.dtype == np.bool_ or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold numbers, got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got shape {arr.shape}")
    if arr.shape[0] != n_samples:
        raise ValueError(
            f"{name} has {arr.shape[0]} entries, expected {n_samples} (one per sample)"
        )
    weights = np.ascontiguousarray(arr, dtype=np.float64)
    if not weights.size:
        return weights
    # min and max are vectorized passes; a NaN makes both NaN, an infinity shows in one
    smallest, largest = float(weights.min()), float(weights.max())
    if not (math.isfinite(smallest) and math.isfinite(largest)):
        raise ValueError(f"{name} contains NaN or infinite values")
    if smallest < 0:
        raise ValueError(f"{name} must be non-negative, got {smallest}")
    if largest == 0:
        # every count would be 0 and every measure 0/0 (scikit-learn refuses it too)
        raise ValueError(f"{name} is all zero; at least one sample must count")
    with np.errstate(over="ignore"):  # an overflow to inf is refused just below
        total = float(weights.sum())
    if not total <= WEIGHTED_TOTAL_MAX:
        raise ValueError(
            f"{name} sums to {describe_total(weights)}, more than 2**1022 (about 4.5e307), "
            "beyond which the weighted counts and F_beta overflow float64; scale the "
            "weights down (the measures do not change when every weight is multiplied by "
            "the same number)"
        )
    return weights


def weighted_binary_counts(
    expected: NDArray[Any], predicted: NDArray[Any], weights: NDArray[np.float64], positive: Any
) -> tuple[float, float, float, float]:
    """Weighted ``(tp, fp, fn, tn)`` of two label vectors, ``positive`` the positive label.

    Integer (or bool) labels are counted by a parallel kernel; other labels through their
    positive masks. Every count is a sum of non-negative weights, never a difference.
    """
    if expected.dtype.kind in "biu" and predicted.dtype.kind in "biu":
        e, p, pos = expected, predicted, positive
    else:
        e, p, pos = np.asarray(expected == positive), np.asarray(predicted == positive), True
    tn, fp, fn, tp = (float(x) for x in _kernels.weighted_outcome_sums(e, p, weights, pos))
    return tp, fp, fn, tn


def weighted_confusion(
    expected_codes: NDArray[np.integer],
    predicted_codes: NDArray[np.integer],
    n_classes: int,
    weights: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Weighted confusion matrix (rows expected, columns predicted) of class codes in range."""
    flat = expected_codes.astype(np.int64) * n_classes + predicted_codes
    sums = np.bincount(flat, weights=weights, minlength=n_classes * n_classes)
    return np.asarray(sums, dtype=np.float64).reshape(n_classes, n_classes)


def weighted_label_counts(
    expected: Any, predicted: Any, weights: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], float]:
    """Per-label weighted ``(tp, true, predicted)`` sums and the total weight.

    ``expected`` and ``predicted`` are checked 0/1 indicator matrices of one shape, both
    CSR without duplicates or both dense.
    """
    if is_sparse(expected):
        both = expected.multiply(predicted).tocsr()
        return (
            np.asarray(both.T @ weights, dtype=np.float64).reshape(-1),
            np.asarray(expected.T @ weights, dtype=np.float64).reshape(-1),
            np.asarray(predicted.T @ weights, dtype=np.float64).reshape(-1),
            float(weights.sum()),
        )
    tp, true, pred = _kernels.weighted_label_sums(
        np.ascontiguousarray(expected), np.ascontiguousarray(predicted), weights
    )
    return tp, true, pred, float(weights.sum())
