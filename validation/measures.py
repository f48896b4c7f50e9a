"""Measures as pure functions of counts.

Every function works element-wise on scalars or numpy arrays of counts.

The 0/0 convention
------------------
A ratio whose denominator is 0 (precision with no predicted positives, recall of a
class that never occurs, ...) takes the value ``zero_division``: 0.0 (the default,
as in scikit-learn and in the lecture notes *Evaluating Classifiers and Tuning
Parameters*, lecture "Evaluation Criteria for Data Classification"), 1.0, or ``nan``.
With ``nan`` the undefined classes are left out of macro averages (:func:`mean_defined`).

F_beta weights recall ``beta`` times as much as precision: ``beta > 1`` favours
recall, ``beta < 1`` favours precision.
"""

from __future__ import annotations

import math
from typing import Any, overload

import numba
import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "accuracy",
    "f_beta_from_counts",
    "f_beta_from_pr",
    "f_beta_kernel",
    "g_measure",
    "mean_defined",
    "precision",
    "recall",
    "safe_divide",
    "specificity",
    "weighted_mean_defined",
]

Number = float | int | np.integer | np.floating
Values = NDArray[np.integer] | NDArray[np.floating] | NDArray[np.bool_]


@overload
def safe_divide(num: Number, den: Number, zero_division: float) -> float: ...
@overload
def safe_divide(num: Values | Number, den: Values, zero_division: float) -> NDArray[np.float64]: ...
@overload
def safe_divide(num: Values, den: Values | Number, zero_division: float) -> NDArray[np.float64]: ...
def safe_divide(num: Any, den: Any, zero_division: float) -> Any:
    """``num / den``, with ``zero_division`` wherever ``den == 0``."""
    num_arr = np.asarray(num, dtype=np.float64)
    den_arr = np.asarray(den, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(den_arr == 0, zero_division, num_arr / np.where(den_arr == 0, 1.0, den_arr))
    if out.ndim == 0:
        return float(out)
    return out


@overload
def precision(tp: Number, fp: Number, zero_division: float = 0.0) -> float: ...
@overload
def precision(tp: Values, fp: Values, zero_division: float = 0.0) -> NDArray[np.float64]: ...
def precision(tp: Any, fp: Any, zero_division: float = 0.0) -> Any:
    """TP / (TP + FP)."""
    return safe_divide(tp, np.add(tp, fp), zero_division)


@overload
def recall(tp: Number, fn: Number, zero_division: float = 0.0) -> float: ...
@overload
def recall(tp: Values, fn: Values, zero_division: float = 0.0) -> NDArray[np.float64]: ...
def recall(tp: Any, fn: Any, zero_division: float = 0.0) -> Any:
    """TP / (TP + FN), also called sensitivity or true-positive rate."""
    return safe_divide(tp, np.add(tp, fn), zero_division)


@overload
def specificity(tn: Number, fp: Number, zero_division: float = 0.0) -> float: ...
@overload
def specificity(tn: Values, fp: Values, zero_division: float = 0.0) -> NDArray[np.float64]: ...
def specificity(tn: Any, fp: Any, zero_division: float = 0.0) -> Any:
    """TN / (TN + FP), the true-negative rate."""
    return safe_divide(tn, np.add(tn, fp), zero_division)


@overload
def accuracy(
    tp: Number, fp: Number, fn: Number, tn: Number, zero_division: float = 0.0
) -> float: ...
@overload
def accuracy(
    tp: Values, fp: Values, fn: Values, tn: Values, zero_division: float = 0.0
) -> NDArray[np.float64]: ...
def accuracy(tp: Any, fp: Any, fn: Any, tn: Any, zero_division: float = 0.0) -> Any:
    """(TP + TN) / (TP + FP + FN + TN)."""
    total = np.add(np.add(tp, fp), np.add(fn, tn))
    return safe_divide(np.add(tp, tn), total, zero_division)


@overload
def f_beta_from_counts(
    tp: Number, fp: Number, fn: Number, beta: float = 1.0, zero_division: float = 0.0
) -> float: ...
@overload
def f_beta_from_counts(
    tp: Values, fp: Values, fn: Values, beta: float = 1.0, zero_division: float = 0.0
) -> NDArray[np.float64]: ...
def f_beta_from_counts(
    tp: Any, fp: Any, fn: Any, beta: float = 1.0, zero_division: float = 0.0
) -> Any:
    """(1+b²)TP / ((1+b²)TP + b²FN + FP); 0/0 (no TP, FP or FN) gives ``zero_division``."""
    b2 = beta * beta
    num = (1.0 + b2) * np.asarray(tp, dtype=np.float64)
    den = num + b2 * np.asarray(fn, dtype=np.float64) + np.asarray(fp, dtype=np.float64)
    return safe_divide(num, den, zero_division)


_SCALARS = (float, int, np.floating, np.integer)


@overload
def f_beta_from_pr(p: Number, r: Number, beta: float = 1.0) -> float: ...
@overload
def f_beta_from_pr(p: Values, r: Values, beta: float = 1.0) -> NDArray[np.float64]: ...
def f_beta_from_pr(p: Any, r: Any, beta: float = 1.0) -> Any:
    """(1+b²)PR / (b²P + R): the weighted harmonic mean of precision and recall.

    P = R = 0 gives 0: both are defined and both are 0. A NaN input propagates.
    """
    b2 = beta * beta
    if isinstance(p, _SCALARS) and isinstance(r, _SCALARS):
        # the same operations in the same order as below, without numpy's per-call
        # overhead (searches call this for one (P, R) pair many times)
        pf, rf = float(p), float(r)
        if math.isnan(pf) or math.isnan(rf):
            return math.nan
        den_s = b2 * pf + rf
        return 0.0 if den_s == 0 else (1.0 + b2) * pf * rf / den_s
    p_arr = np.asarray(p, dtype=np.float64)
    r_arr = np.asarray(r, dtype=np.float64)
    num = (1.0 + b2) * p_arr * r_arr
    den = b2 * p_arr + r_arr
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(den == 0, 0.0, num / np.where(den == 0, 1.0, den))
    out = np.where(np.isnan(p_arr) | np.isnan(r_arr), np.nan, out)
    if out.ndim == 0:
        return float(out)
    return out


@numba.njit(cache=True)
def f_beta_kernel(p: float, r: float, b2: float) -> float:
    """:func:`f_beta_from_pr` for one (P, R) pair inside compiled loops; ``b2 = beta**2``.

    The same definition: (1 + b²) P R / (b² P + R), 0 where P = R = 0, NaN in, NaN out
    (tests check that both forms agree).
    """
    if np.isnan(p) or np.isnan(r):
        return np.nan
    den = b2 * p + r
    if den == 0.0:
        return 0.0
    return (1.0 + b2) * p * r / den


@overload
def g_measure(p: Number, r: Number) -> float: ...
@overload
def g_measure(p: Values, r: Values) -> NDArray[np.float64]: ...
def g_measure(p: Any, r: Any) -> Any:
    """G = sqrt(P R), the geometric mean of precision and recall."""
    out = np.sqrt(np.multiply(np.asarray(p, dtype=np.float64), np.asarray(r, dtype=np.float64)))
    if np.ndim(out) == 0:
        return float(out)
    return out


def mean_defined(values: ArrayLike) -> float:
    """Mean over the defined (non-NaN) entries; NaN if none is defined."""
    arr = np.asarray(values, dtype=np.float64)
    defined = ~np.isnan(arr)
    if not defined.any():
        return math.nan
    return float(arr[defined].mean())


def weighted_mean_defined(values: ArrayLike, weights: ArrayLike) -> float:
    """Weighted mean over defined (non-NaN) entries.

    If the defined entries all have weight 0, their plain mean is returned (as
    scikit-learn does); NaN if no entry is defined.
    """
    arr = np.asarray(values, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    defined = ~np.isnan(arr)
    if not defined.any():
        return math.nan
    total = w[defined].sum()
    if total == 0:
        return float(arr[defined].mean())
    return float((arr[defined] * w[defined]).sum() / total)
