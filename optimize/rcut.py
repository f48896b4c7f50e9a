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

from optimize.evaluation import (
    kept_columns,
    label_rows,
    macro_from_counts,
    scores_checked,
)
from optimize.points import check_empty_classes, matching_shapes, matrix_shape
from optimize.result import ThresholdResult
from validation._checks import check_beta, check_zero_division, is_sparse

__all__ = ["predict_top_k", "top_k"]

# Relative tolerance under which two F values of different k count as a tie.
_TIE_TOLERANCE = 1e-12


def _top_entries(scores: Any, k_max: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(rows, cols) of each object's top-``k_max`` classes, rank-major.

    Returns ``cols`` of shape (N, k_max) with -1 where an object has fewer stored
    entries; ties broken by the lower column index.
    """
    if is_sparse(scores):
        n, _ = scores.shape
        row = np.repeat(np.arange(n), np.diff(scores.indptr))
        order = np.lexsort((scores.indices, -scores.data, row))
        row_o = row[order]
        starts = np.asarray(scores.indptr[:-1])
        rank = np.arange(order.size) - starts[row_o]
        keep = rank < k_max
        cols = np.full((n, k_max), -1, dtype=np.int64)
        cols[row_o[keep], rank[keep]] = np.asarray(scores.indices)[order[keep]]
        return np.arange(n), cols
    n, m = scores.shape
    if k_max < m:
        part = np.argpartition(-scores, k_max - 1, axis=1)[:, :k_max]
        # argpartition may cut through a tie at the k-th value: widen to all columns
        # holding that value, then order by (-score, column).
        kth = np.take_along_axis(scores, part, axis=1).min(axis=1)
        cand_mask = scores >= kth[:, None]
        if int(cand_mask.sum(axis=1).max()) > k_max:
            rows_c, cols_c = np.nonzero(cand_mask)
            vals = scores[rows_c, cols_c]
            order = np.lexsort((cols_c, -vals, rows_c))
            rows_o, cols_o = rows_c[order], cols_c[order]
            starts = np.searchsorted(rows_o, np.arange(n))
            rank = np.arange(rows_o.size) - starts[rows_o]
            keep = rank < k_max
            out = np.full((n, k_max), -1, dtype=np.int64)
            out[rows_o[keep], rank[keep]] = cols_o[keep]
            return np.arange(n), out
        cand = part
    else:
        cand = np.broadcast_to(np.arange(m), (n, m))
    vals = np.take_along_axis(scores, cand, axis=1)
    order = np.lexsort((cand, -vals), axis=1)
    cols = np.take_along_axis(cand, order, axis=1)[:, :k_max].astype(np.int64)
    return np.arange(n), cols


def predict_top_k(scores: Any, k: int) -> NDArray[np.bool_]:
    """RCut predictions: each object's ``k`` highest-scored classes (dense bool).

    Ties at the k-th place go to the lower column index. For sparse scores only
    stored entries can be predicted (an object with fewer than ``k`` gets all of
    them).
    """
    matrix_shape(scores, "scores")
    s = scores_checked(scores)
    kk = _check_k(k, "k")
    n, m = s.shape
    _, cols = _top_entries(s, min(kk, m))
    out = np.zeros((n, m), dtype=bool)
    rows = np.repeat(np.arange(n), cols.shape[1])
    flat = cols.reshape(-1)
    ok = flat >= 0
    out[rows[ok], flat[ok]] = True
    return out


def _check_k(k: object, name: str) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"{name} must be a positive integer, got {type(k).__name__}")
    if int(k) < 1:
        raise ValueError(f"{name} must be a positive integer, got {k!r}")
    return int(k)


def top_k(
    scores: Any,
    labels: Any,
    *,
    beta: float = 1.0,
    zero_division: float = 0.0,
    empty_classes: str = "exclude",
    k_max: int | None = None,
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
        cardinality is the mean number of labels per object.
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
    s = scores_checked(scores)
    y = label_rows(labels)
    sizes = np.bincount(y.indices, minlength=m).astype(np.int64)
    kept = kept_columns(sizes, empty_classes)
    if k_max is None:
        card = y.nnz / n
        kk = min(m, max(10, math.ceil(2 * card)))
    else:
        kk = min(_check_k(k_max, "k_max"), m)
    _, cols = _top_entries(s, kk)
    rows = np.arange(n)
    label_keys = np.repeat(np.arange(n, dtype=np.int64), np.diff(y.indptr)) * m + y.indices
    tp = np.zeros(m, dtype=np.int64)
    npred = np.zeros(m, dtype=np.int64)
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
        tp += np.bincount(c[ok][hit], minlength=m)
        npred += np.bincount(c[ok], minlength=m)
        ev = macro_from_counts(tp[kept], npred[kept] - tp[kept], sizes[kept], b, zd)
        p_by_k[j], r_by_k[j], f_by_k[j] = ev
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
        diagnostics={
            "k": best + 1,
            "f_by_k": f_by_k,
            "precision_by_k": p_by_k,
            "recall_by_k": r_by_k,
            "class_index": kept,
        },
    )
