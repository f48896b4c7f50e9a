"""RCut (``top_k``): each object predicts its ``k`` highest-scored classes, ``k`` tuned.

A per-object rule, not per-class thresholds: :func:`top_k` returns a
:class:`~optimize.result.ThresholdResult` whose ``apply`` predicts each object's top ``k``
(:func:`predict_top_k`); its ``thresholds`` are NaN and ``cuts`` -1.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fmacro.optimize._frames import names_from_frames
from fmacro.optimize._weighted import weighted_class_sizes
from fmacro.optimize.inputs import (
    check_empty_classes,
    kept_classes,
    label_rows,
    matching_shapes,
    scores_checked,
)
from fmacro.optimize.offsets import row_of_entries
from fmacro.optimize.rules import TopK, check_k, predict_top_k, top_entries
from fmacro.optimize.search.result import ThresholdResult
from fmacro.validation.checks import check_beta, check_zero_division
from fmacro.validation.measures import macro_from_counts
from fmacro.validation.weights import check_sample_weight

__all__ = ["predict_top_k", "top_k"]

# Relative tolerance under which two F values of different k count as a tie.
_TIE_TOLERANCE = 1e-12


@names_from_frames("scores", "labels")
def top_k(
    scores: Any,
    labels: Any,
    *,
    beta: float = 1.0,
    zero_division: float = 0.0,
    empty_classes: str = "exclude",
    k_max: int | None = None,
    sample_weight: Any = None,
) -> ThresholdResult:
    """RCut: predict each object's top ``k`` classes, ``k`` in ``1..k_max`` tuned for F-macro.

    Parameters
    ----------
    scores
        Dense ``(N, n)`` or sparse (retrieved entries only; missing entries are never
        predicted). Ties within an object go to the lower column index.
    labels
        ``(N, n)`` 0/1 indicator, dense or sparse.
    k_max
        Largest ``k`` tried; default ``min(n, max(10, ceil(2 * cardinality)))`` where
        cardinality is the mean number of labels per object (weighted mean with
        ``sample_weight``).
    sample_weight
        One non-negative weight per object, or ``None``: an object counts its weight in
        each class's tp, predicted count and size (float sums), as in
        :func:`evaluate_thresholds`; integer weights give the result of the rows
        repeated that many times. Checked by
        :func:`fmacro.validation.weights.check_sample_weight`.
    Other parameters
        As in :func:`per_class`.

    Returns
    -------
    ThresholdResult
        ``method="top_k"``; ``diagnostics["k"]`` is the chosen ``k`` (ties: the smallest) and
        ``diagnostics["f_by_k"]``, ``["precision_by_k"]``, ``["recall_by_k"]`` the
        curves over ``k = 1..k_max``. RCut is a per-object rule, not per-class
        thresholds: ``thresholds`` are NaN and ``cuts`` are -1; predict new data
        with :func:`predict_top_k` (``result.apply`` does not apply here).

    Notes
    -----
    P and R follow :func:`evaluate_thresholds` (validation's definition). Cost: a
    partial sort of each row (dense) or one sort of the stored entries (sparse),
    then ``O(k_max * (N + n))``.
    """
    b = check_beta(beta)
    zd = check_zero_division(zero_division)
    check_empty_classes(empty_classes, zd)
    n, m = matching_shapes(scores, labels)
    weights = check_sample_weight(sample_weight, n)
    s = scores_checked(scores)
    y = label_rows(labels)
    if weights is None:
        sizes: NDArray[Any] = np.bincount(y.indices, minlength=m).astype(np.int64)
    else:
        sizes = weighted_class_sizes(y, weights, m)
    kept = kept_classes(sizes, empty_classes)
    if k_max is None:
        card = y.nnz / n if weights is None else float(sizes.sum()) / float(weights.sum())
        kk = min(m, max(10, math.ceil(2 * card)))
    else:
        kk = min(check_k(k_max, "k_max"), m)
    _, cols = top_entries(s, kk)
    rows = np.arange(n)
    label_keys = row_of_entries(y.indptr) * m + y.indices
    tp = np.zeros(m, dtype=sizes.dtype)
    npred = np.zeros(m, dtype=sizes.dtype)
    f_by_k = np.empty(kk)
    p_by_k = np.empty(kk)
    r_by_k = np.empty(kk)
    for j in range(kk):
        c = cols[:, j]
        ok = c >= 0
        keys = rows[ok] * m + c[ok]
        pos = np.searchsorted(label_keys, keys)
        pos = np.minimum(pos, max(label_keys.size - 1, 0))
        hit = (label_keys[pos] == keys) if label_keys.size else np.zeros(keys.size, dtype=bool)
        if weights is None:
            tp += np.bincount(c[ok][hit], minlength=m)
            npred += np.bincount(c[ok], minlength=m)
        else:
            w_ok = weights[rows[ok]]
            tp += np.bincount(c[ok][hit], weights=w_ok[hit], minlength=m)
            npred += np.bincount(c[ok], weights=w_ok, minlength=m)
        p_by_k[j], r_by_k[j], f_by_k[j] = macro_from_counts(
            tp[kept], npred[kept] - tp[kept], sizes[kept], b, zd
        )
    f_sel = np.where(np.isnan(f_by_k), -np.inf, f_by_k)
    # Ties go to the smallest k. Equal F values of different k reach here through
    # different float sums, so "equal" means within rounding of the maximum.
    top = float(f_sel.max())
    best = int(np.flatnonzero(f_sel >= top - _TIE_TOLERANCE * max(1.0, abs(top)))[0])
    return ThresholdResult(
        thresholds=np.full(m, math.nan),
        cuts=np.full(kept.size, -1, dtype=np.int64),
        precision=p_by_k[best],
        recall=r_by_k[best],
        f=f_by_k[best],
        upper_bound=math.nan,
        gap=math.nan,
        method="top_k",
        beta=b,
        zero_division=zd,
        rule=TopK(best + 1, m),
        diagnostics={
            "k": best + 1,
            "f_by_k": f_by_k,
            "precision_by_k": p_by_k,
            "recall_by_k": r_by_k,
            "class_index": kept,
        },
    )
