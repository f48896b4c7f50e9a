"""Measures as pure functions of counts.

Every function works element-wise on scalars or numpy arrays of counts, except the macro
averages (:func:`macro_mean`, :func:`macro_from_counts`), which average over the last
axis (the classes).

The 0/0 convention
------------------
A ratio whose denominator is 0 (precision with no predicted positives, recall of a
class that never occurs, ...) takes the value ``zero_division``: 0.0 (the default,
as in scikit-learn and in the lecture notes *Evaluating Classifiers and Tuning
Parameters*, lecture "Evaluation Criteria for Data Classification"), 1.0, or ``nan``.

With ``nan`` a 0/0 value is *undefined* and is left out of macro and weighted averages:
macro precision is the mean over the classes whose precision is defined, macro recall
the mean over those whose recall is defined (each measure separately), and F-macro is
F_beta of the two; an average over no defined class is NaN. This is the one rule for
scoring given predictions or thresholds on given rows: the validations
(:class:`~fmacro.validation.averages.ClassAverages`, hence their tables),
``optimize.evaluate_thresholds`` / ``optimize.f_macro``, ``top_k`` and the held-out
scores of ``tune(prior="cv")`` all compute macro P, R and F with
:func:`macro_from_counts` (or :func:`mean_defined`, the same average). Under 0.0 or 1.0
every value is defined and the rule is the plain mean.

The certified searches and the F they report (``ThresholdResult.f``,
``evaluate_cuts``) optimize another objective on purpose: the plain mean over the kept
classes of each class's point at its cut (``undefined="propagate"`` here), where an
empty cut's precision is NaN under ``nan``, so a NaN makes P and F NaN and such cut
vectors are never chosen. The two definitions differ only on cut vectors in which some
class predicts nothing; a search's answer has none (every kept class has a non-empty cut
with a defined precision, which beats NaN), so its ``f``, ``precision`` and ``recall`` are
what :func:`macro_from_counts` gives for its thresholds on the rows searched.

F_beta weights recall ``beta`` times as much as precision: ``beta > 1`` favours
recall, ``beta < 1`` favours precision.
"""

from __future__ import annotations

import math
from typing import Any, Literal, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fmacro.validation.dispatch import kernel

__all__ = [
    "accuracy",
    "f_beta_from_counts",
    "f_beta_from_pr",
    "f_beta_kernel",
    "g_measure",
    "macro_from_counts",
    "macro_mean",
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


def _count_sum(a: Any, b: Any) -> Any:
    """``np.add(a, b)`` of counts, refusing integer counts whose sum leaves int64.

    numpy would wrap such a sum around to a negative number (or raise ``OverflowError``
    for a Python integer beyond int64); the counts classes never hold such counts, this
    guards direct calls.
    """
    try:
        with np.errstate(over="ignore"):  # a wrap-around is reported below
            out = np.add(a, b)
    except OverflowError:
        raise ValueError(
            "integer counts must fit in int64 (at most 2**63 - 1), got a larger one"
        ) from None
    kind = getattr(out, "dtype", np.dtype(type(out))).kind
    if kind == "i":
        # counts are non-negative: a sum that wrapped is negative (one pass, no temporary)
        wrapped = bool(np.size(out) and np.min(out) < 0) and bool(
            np.any((np.asarray(a) >= 0) & (np.asarray(b) >= 0) & (out < 0))
        )
    elif kind == "u":
        wrapped = bool(np.any(out < np.asarray(a, dtype=out.dtype)))
    else:
        return out
    if wrapped:
        raise ValueError(
            "integer counts must fit in int64 with their sums (at most 2**63 - 1): "
            "a sum of the counts given wraps around"
        )
    return out


@overload
def precision(tp: Number, fp: Number, zero_division: float = 0.0) -> float: ...
@overload
def precision(tp: Values, fp: Values, zero_division: float = 0.0) -> NDArray[np.float64]: ...
def precision(tp: Any, fp: Any, zero_division: float = 0.0) -> Any:
    """TP / (TP + FP)."""
    return safe_divide(tp, _count_sum(tp, fp), zero_division)


@overload
def recall(tp: Number, fn: Number, zero_division: float = 0.0) -> float: ...
@overload
def recall(tp: Values, fn: Values, zero_division: float = 0.0) -> NDArray[np.float64]: ...
def recall(tp: Any, fn: Any, zero_division: float = 0.0) -> Any:
    """TP / (TP + FN), also called sensitivity or true-positive rate."""
    return safe_divide(tp, _count_sum(tp, fn), zero_division)


@overload
def specificity(tn: Number, fp: Number, zero_division: float = 0.0) -> float: ...
@overload
def specificity(tn: Values, fp: Values, zero_division: float = 0.0) -> NDArray[np.float64]: ...
def specificity(tn: Any, fp: Any, zero_division: float = 0.0) -> Any:
    """TN / (TN + FP), the true-negative rate."""
    return safe_divide(tn, _count_sum(tn, fp), zero_division)


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
    total = _count_sum(_count_sum(tp, fp), _count_sum(fn, tn))
    return safe_divide(_count_sum(tp, tn), total, zero_division)


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
    """(1+b²)TP / ((1+b²)TP + b²FN + FP); 0/0 (no TP, FP or FN) gives ``zero_division``.

    Raises ``ValueError`` (naming beta and the counts) where the float64 arithmetic
    would give a wrong number: the denominator overflows while TP > 0 (weighted counts
    near 2**1022 with beta > 1; with integer counts and a beta accepted by
    :func:`validation.checks.check_beta` it cannot), or ``b²FN`` underflows to 0 with
    TP = FP = 0 < FN and ``zero_division`` not 0 (F_beta is 0 there, not
    ``zero_division``).
    """
    b2 = beta * beta
    tp_f = np.asarray(tp, dtype=np.float64)
    fn_f = np.asarray(fn, dtype=np.float64)
    fp_f = np.asarray(fp, dtype=np.float64)
    with np.errstate(over="ignore"):
        num = (1.0 + b2) * tp_f
        den = num + b2 * fn_f + fp_f
    if np.isinf(den).any() or (zero_division != 0.0 and (den == 0).any()):
        _check_f_beta_range(tp_f, fp_f, fn_f, den, beta)
    return safe_divide(num, den, zero_division)


def _check_f_beta_range(
    tp: NDArray[np.float64],
    fp: NDArray[np.float64],
    fn: NDArray[np.float64],
    den: NDArray[np.float64],
    beta: float,
) -> None:
    """Refuse counts whose F_beta denominator overflowed or lost ``b²FN`` to underflow."""
    # where TP = 0 an infinite denominator still gives the right F, 0
    finite = np.isfinite(tp) & np.isfinite(fp) & np.isfinite(fn)
    over = np.isinf(den) & finite & (tp > 0)
    under = (den == 0) & (fn > 0) & finite
    for bad, what, hint in (
        (
            over,
            "overflows float64: (1 + beta**2) * TP + beta**2 * FN + FP is above 1.8e308",
            "use a smaller beta or scale sample_weight down (F does not change when every "
            "weight is multiplied by the same number)",
        ),
        (
            under,
            "underflows: beta**2 * FN rounds to 0 although FN > 0",
            "use a larger beta or scale sample_weight up",
        ),
    ):
        if bad.any():
            at = np.unravel_index(int(np.flatnonzero(bad)[0]), bad.shape)
            tp_k, fp_k, fn_k = (float(np.broadcast_to(x, bad.shape)[at]) for x in (tp, fp, fn))
            raise ValueError(
                f"F_beta with beta={beta:.6g} of the counts TP={tp_k:.6g}, FP={fp_k:.6g}, "
                f"FN={fn_k:.6g} {what}; {hint}"
            )


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


@kernel(cache=True)
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


Undefined = Literal["omit", "propagate"]
Summation = Literal["numpy", "exact"]


def macro_mean(
    values: ArrayLike, *, undefined: Undefined = "omit", summation: Summation = "numpy"
) -> NDArray[np.float64]:
    """Mean over the last axis (the classes) of per-class values, one per leading index.

    Parameters
    ----------
    values
        Per-class values, shape ``(..., n_classes)``; NaN marks an undefined value (0/0
        under ``zero_division=nan``).
    undefined
        ``"omit"`` (the 0/0 rule of this module): the mean over the defined values, NaN
        when none is defined. ``"propagate"``: the plain mean, NaN as soon as one value
        is NaN (the objective of the certified searches; see the module docstring).
    summation
        ``"numpy"``: numpy's sum (as :func:`mean_defined`). ``"exact"``: the correctly
        rounded sum (:func:`math.fsum`), which depends neither on the order of the
        values nor on the array's layout, so equal values give equal means on every path.

    Returns
    -------
    ndarray of float64, shape ``values.shape[:-1]``
        A 0-d array for one vector of classes; NaN where there is no class to average.

    Examples
    --------
    >>> macro_mean([0.5, float("nan"), 1.0]).item()
    0.75
    >>> macro_mean([[0.5, float("nan")], [0.0, 1.0]], undefined="propagate").tolist()
    [nan, 0.5]
    """
    if undefined not in ("omit", "propagate"):
        raise ValueError(f"undefined must be 'omit' or 'propagate', got {undefined!r}")
    if summation not in ("numpy", "exact"):
        raise ValueError(f"summation must be 'numpy' or 'exact', got {summation!r}")
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim == 0:
        raise ValueError("macro_mean needs per-class values (at least one axis), got a scalar")
    rows = arr.reshape(-1, arr.shape[-1])
    out = np.array([_row_mean(row, undefined, summation) for row in rows], dtype=np.float64)
    return out.reshape(arr.shape[:-1])


def _row_mean(row: NDArray[np.float64], undefined: Undefined, summation: Summation) -> float:
    """:func:`macro_mean` of one vector of classes (checked arguments)."""
    if undefined == "omit":
        if summation == "numpy":
            return mean_defined(row)
        row = row[~np.isnan(row)]
    if row.size == 0:
        return math.nan
    if summation == "exact":
        return math.fsum(row.tolist()) / row.size
    return float(np.sum(row) / row.size)


def macro_from_counts(
    tp: ArrayLike,
    fp: ArrayLike,
    positives: ArrayLike,
    beta: float = 1.0,
    zero_division: float = 0.0,
    *,
    undefined: Undefined = "omit",
    summation: Summation = "numpy",
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Macro precision P, macro recall R and F-macro = F_beta(P, R) from per-class counts.

    Each class's precision is TP / (TP + FP) and its recall TP / positives, with
    ``zero_division`` for 0/0; P and R are their :func:`macro_mean` over the classes
    (with ``nan``, by default, over the classes where each is defined), and F is
    :func:`f_beta_from_pr` of the two.

    Parameters
    ----------
    tp, fp, positives
        Per-class counts (integers, or sums of sample weights), shape
        ``(..., n_classes)`` after broadcasting: each leading index (for instance one
        threshold vector of a grid) is averaged on its own. ``positives`` are the
        class's true members (TP + FN).
    beta, zero_division
        F_beta weight and the 0/0 value (0.0, 1.0 or nan), both already checked.
    undefined, summation
        As in :func:`macro_mean`: ``"omit"`` is the 0/0 rule for scoring predictions;
        ``"propagate"`` the plain mean of the certified searches. ``"exact"`` sums with
        :func:`math.fsum`.

    Returns
    -------
    (P, R, F) : ndarrays of float64, shape of the leading axes
        0-d arrays for one vector of classes.

    Examples
    --------
    Three classes; the third predicts nothing (precision 0/0). Under ``nan``,
    P = (1/4 + 2/5) / 2 and R = (1/2 + 2/3 + 0) / 3:

    >>> p, r, f = macro_from_counts([1, 2, 0], [3, 3, 0], [2, 3, 1], zero_division=float("nan"))
    >>> float(p), round(float(r), 4), round(float(f), 4)
    (0.325, 0.3889, 0.3541)
    >>> [round(float(macro_from_counts([1, 2, 0], [3, 3, 0], [2, 3, 1], zero_division=z)[2]), 4)
    ...  for z in (0.0, 1.0)]
    [0.2783, 0.4556]
    """
    tp_arr = np.asarray(tp)
    p_k = np.asarray(precision(tp_arr, np.asarray(fp), zero_division), dtype=np.float64)
    r_k = np.asarray(safe_divide(tp_arr, np.asarray(positives), zero_division), dtype=np.float64)
    p = macro_mean(p_k, undefined=undefined, summation=summation)
    r = macro_mean(r_k, undefined=undefined, summation=summation)
    if p.ndim == 0:
        f = np.asarray(f_beta_from_pr(float(p), float(r), beta), dtype=np.float64)
    else:
        f = np.asarray(f_beta_from_pr(p, r, beta), dtype=np.float64)
    return p, r, f
