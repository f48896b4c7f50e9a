"""Measures as pure functions of counts.

Every function works element-wise on scalars or numpy arrays of counts.

The 0/0 convention
------------------
A ratio whose denominator is 0 (precision with no predicted positives, recall of a
class that never occurs, ...) takes the value ``zero_division``: 0.0 (the default,
as in the lecture notes and scikit-learn), 1.0, or ``nan``. With ``nan`` the
undefined classes are left out of macro averages (:func:`mean_defined`).

F_beta weights recall ``beta`` times as much as precision: ``beta > 1`` favours
recall, ``beta < 1`` favours precision.
"""

from __future__ import annotations

import math
from typing import TypeVar, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "accuracy",
    "f_beta_from_counts",
    "f_beta_from_pr",
    "g_measure",
    "mean_defined",
    "precision",
    "recall",
    "safe_divide",
    "specificity",
    "weighted_mean_defined",
]

FloatOrArray = TypeVar("FloatOrArray", float, NDArray[np.float64])


@overload
def safe_divide(num: float, den: float, zero_division: float) -> float: ...
@overload
def safe_divide(num: ArrayLike, den: ArrayLike, zero_division: float) -> NDArray[np.float64]: ...
def safe_divide(num, den, zero_division):  # type: ignore[no-untyped-def]
    """``num / den``, with ``zero_division`` wherever ``den == 0``."""
    num_arr = np.asarray(num, dtype=np.float64)
    den_arr = np.asarray(den, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(den_arr == 0, zero_division, num_arr / np.where(den_arr == 0, 1.0, den_arr))
    if out.ndim == 0:
        return float(out)
    return out


def precision(tp, fp, zero_division: float = 0.0):  # type: ignore[no-untyped-def]
    """TP / (TP + FP)."""
    return safe_divide(tp, np.add(tp, fp), zero_division)


def recall(tp, fn, zero_division: float = 0.0):  # type: ignore[no-untyped-def]
    """TP / (TP + FN), also called sensitivity or true-positive rate."""
    return safe_divide(tp, np.add(tp, fn), zero_division)


def specificity(tn, fp, zero_division: float = 0.0):  # type: ignore[no-untyped-def]
    """TN / (TN + FP), the true-negative rate."""
    return safe_divide(tn, np.add(tn, fp), zero_division)


def accuracy(tp, fp, fn, tn, zero_division: float = 0.0):  # type: ignore[no-untyped-def]
    """(TP + TN) / (TP + FP + FN + TN)."""
    total = np.add(np.add(tp, fp), np.add(fn, tn))
    return safe_divide(np.add(tp, tn), total, zero_division)


def f_beta_from_counts(tp, fp, fn, beta: float = 1.0, zero_division: float = 0.0):  # type: ignore[no-untyped-def]
    """(1+b²)TP / ((1+b²)TP + b²FN + FP); 0/0 (no TP, FP or FN) gives ``zero_division``."""
    b2 = beta * beta
    num = (1.0 + b2) * np.asarray(tp, dtype=np.float64)
    den = num + b2 * np.asarray(fn, dtype=np.float64) + np.asarray(fp, dtype=np.float64)
    return safe_divide(num, den, zero_division)


def f_beta_from_pr(p, r, beta: float = 1.0, zero_division: float = 0.0):  # type: ignore[no-untyped-def]
    """(1+b²)PR / (b²P + R): the weighted harmonic mean of precision and recall.

    P = R = 0 gives 0 (not ``zero_division``): both are defined and both are 0.
    A NaN input propagates.
    """
    b2 = beta * beta
    p_arr = np.asarray(p, dtype=np.float64)
    r_arr = np.asarray(r, dtype=np.float64)
    num = (1.0 + b2) * p_arr * r_arr
    den = b2 * p_arr + r_arr
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(den == 0, 0.0, num / np.where(den == 0, 1.0, den))
    out = np.where(np.isnan(p_arr) | np.isnan(r_arr), np.nan, out)
    del zero_division  # kept in the signature for symmetry with the count form
    if out.ndim == 0:
        return float(out)
    return out


def g_measure(p, r):  # type: ignore[no-untyped-def]
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
