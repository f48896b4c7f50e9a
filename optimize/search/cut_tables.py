"""Cut tables of rankings: the builders behind :func:`~fmacro.optimize.search.points.class_points`.

A *cut table* is the ``(indptr, tp, fp, threshold[, full_cut])`` arrays of
:class:`~fmacro.optimize.search.points.ClassPoints` (the cut, tie and ``dominated="drop"``
rules are in :mod:`fmacro.optimize.search.points`' notes). This module builds them, and
builds no value: dense blocks (``_block_cuts``, walked per block of columns by
:mod:`fmacro.optimize.search._blocks`), CSC matrices of retrieved entries (``_csc_cuts``,
``csc_column_cuts``, ``sorted_cuts``), pre-ranked 0/1 lists (``_ranked_cuts``, with the
checks of :func:`check_ranked_lists`) and weighted counts (:func:`weighted_cuts`), plus
the sparse input readers they share (:func:`sparse_scores`, :func:`sparse_labels`).
Internal: :mod:`fmacro.optimize.search.points` re-exports the names other modules use.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fmacro.optimize.inputs import as_binary_labels, kept_classes, matching_shapes
from fmacro.optimize.offsets import indptr_from_counts, row_of_entries
from fmacro.optimize.search._blocks import check_dense_scores, dense_scores, sorted_positives
from fmacro.validation.checks import INT64_MAX, check_exact_in_float64, is_sparse
from fmacro.validation.dispatch import kernel

__all__ = [
    "check_ranked_lists",
    "csc_column_cuts",
    "longest_column",
    "sorted_cuts",
    "sparse_labels",
    "sparse_scores",
    "weighted_cuts",
]


def _whole_numbers(x: ArrayLike, name: str) -> NDArray[np.int64]:
    """``x`` as int64, refusing what the cast would change: fractions, NaN/inf, values
    beyond int64 (a cast would truncate 2.5 to 2 or wrap 2**63 to a negative number)."""
    arr = np.asarray(x)
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr) | (arr != np.trunc(arr)) | (np.abs(arr) >= 2.0**63)
        if bad.any():
            raise ValueError(
                f"{name} must hold whole numbers within int64, got {arr[bad].reshape(-1)[0]!r}"
            )
    elif arr.dtype.kind == "u" and arr.size and int(arr.max()) > INT64_MAX:
        raise ValueError(f"{name} must fit in int64 (at most 2**63 - 1), found {arr.max()}")
    elif arr.dtype == object or arr.dtype.kind not in "biuf":
        if arr.dtype == object and all(isinstance(v, int) for v in arr.flat):
            raise ValueError(f"{name} must fit in int64 (at most 2**63 - 1)")
        raise TypeError(f"{name} must hold integers, got dtype {arr.dtype}")
    return arr.astype(np.int64)


def check_ranked_lists(
    lengths: NDArray[np.int64],
    in_list: NDArray[np.int64],
    support: NDArray[np.int64],
    n_samples: int,
    where: Callable[[int], str] = lambda j: f"class {j}",
) -> None:
    """Refuse ranked lists that no ranking of ``n_samples`` objects can produce.

    ``where(j)`` names list ``j`` in the message (a file reader adds the line number).
    """
    checks = (
        (support < 0, "support must be >= 0, got {size}"),
        (lengths > n_samples, "ranked list has {len} entries, more than n_samples={n}"),
        (support > n_samples, "support {size} exceeds n_samples={n}"),
        (in_list > support, "ranked list holds {ones} positives, more than its support {size}"),
        (
            lengths - in_list > n_samples - support,
            "ranked list holds {neg} negatives but only n_samples - support = {room} exist",
        ),
    )
    for bad, template in checks:
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            detail = template.format(
                len=int(lengths[j]),
                n=n_samples,
                size=int(support[j]),
                ones=int(in_list[j]),
                neg=int(lengths[j] - in_list[j]),
                room=int(n_samples - support[j]),
            )
            raise ValueError(f"{where(j)}: {detail}")


# --------------------------------------------------------------------------- inputs


def _as_uint8_01(x: Any, name: str) -> NDArray[np.uint8]:
    return as_binary_labels(x, name).view(np.uint8)


def sparse_scores(scores: Any) -> Any:
    csc = scores.tocsc(copy=True)
    csc.sum_duplicates()
    csc.sort_indices()
    check_exact_in_float64(csc.data, "scores")
    data = np.asarray(csc.data, dtype=np.float64)
    if not np.isfinite(data).all():
        bad = int(data.size - np.count_nonzero(np.isfinite(data)))
        raise ValueError(f"scores contains {bad} NaN or infinite value(s)")
    return csc


def sparse_labels(labels: Any) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    if is_sparse(labels):
        csc = labels.tocsc(copy=True)
        csc.sum_duplicates()
        data = np.asarray(csc.data)
        _as_uint8_01(data, "labels")
        csc.eliminate_zeros()
        csc.sort_indices()
        return np.asarray(csc.indptr, dtype=np.int64), np.asarray(csc.indices, dtype=np.int64)
    dense = _as_uint8_01(labels, "labels")
    cols, rows = np.nonzero(dense.T)
    indptr = indptr_from_counts(np.bincount(cols, minlength=dense.shape[1]))
    return indptr, rows.astype(np.int64)


# ----------------------------------------------------------------- weighted counts (numpy)


def _weighted_column_cuts(
    values: NDArray[np.float64],
    positive: NDArray[np.bool_],
    weights: NDArray[np.float64],
    support: float,
    total: float,
    n_obj: int,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """``(tp, fp, threshold)`` of every cut of one class's retrieved entries, weighted.

    Cut 0 is empty (threshold +inf); a tie group is never split; when fewer than
    ``n_obj`` objects are retrieved, a last cut at -inf takes every object.
    """
    order = np.argsort(-values, kind="stable")
    v = values[order]
    w = weights[order]
    is_pos = positive[order]
    ends = np.flatnonzero(np.append(v[1:] != v[:-1], True)) if v.size else np.zeros(0, int)
    tp = np.concatenate(([0.0], np.cumsum(np.where(is_pos, w, 0.0))[ends]))
    fp = np.concatenate(([0.0], np.cumsum(np.where(is_pos, 0.0, w))[ends]))
    thr = np.concatenate(([math.inf], v[ends]))
    if v.size < n_obj:
        tp = np.append(tp, support)
        fp = np.append(fp, max(total - support, 0.0))
        thr = np.append(thr, -math.inf)
    return tp, fp, thr


def weighted_cuts(
    scores: Any,
    labels: Any,
    weights: NDArray[np.float64],
    empty_classes: str,
) -> tuple[
    NDArray[np.int64],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.int64],
    float,
    int,
]:
    """The cut table of :func:`~fmacro.optimize.search.points.class_points` with checked
    ``sample_weight`` (float counts), column by column.

    Returns ``(indptr, tp, fp, threshold, support, class_index, n_samples, n_columns)``:
    the fields of the weighted :class:`~fmacro.optimize.search.points.ClassPoints`.

    One stable sort per class in numpy: slower than the unweighted kernels, which
    count in integers. An object of weight 0 is an object that is not there: it adds
    no cut (its score is no threshold) and does not count among the objects a truncated
    sparse list leaves out, so integer weights give the cuts, thresholds and counts of
    the rows repeated that many times (``np.repeat``).
    """
    n_obj, n_cls = matching_shapes(scores, labels)
    total = float(weights.sum())
    live = weights > 0
    n_live = int(np.count_nonzero(live))
    l_ptr, l_rows = sparse_labels(labels)
    owner = row_of_entries(l_ptr)
    support_all = np.bincount(owner, weights=weights[l_rows], minlength=n_cls).astype(np.float64)
    cols = kept_classes(support_all, empty_classes)
    if is_sparse(scores):
        csc = sparse_scores(scores)
        s_ptr, s_rows, s_vals = csc.indptr, csc.indices, csc.data
    else:
        dense = dense_scores(scores)
        check_dense_scores(dense)
        every_row = np.arange(n_obj)
    parts_tp, parts_fp, parts_thr = [], [], []
    for k in cols.tolist():
        positives = l_rows[l_ptr[k] : l_ptr[k + 1]]
        if is_sparse(scores):
            rows = np.asarray(s_rows[s_ptr[k] : s_ptr[k + 1]], dtype=np.int64)
            values = np.asarray(s_vals[s_ptr[k] : s_ptr[k + 1]], dtype=np.float64)
        else:
            rows, values = every_row, np.asarray(dense[:, k], dtype=np.float64)
        counted = live[rows]
        if not counted.all():  # objects of weight 0 are not there
            rows, values = rows[counted], values[counted]
        positive = np.isin(rows, positives, assume_unique=True)
        tp, fp, thr = _weighted_column_cuts(
            values, positive, weights[rows], float(support_all[k]), total, n_live
        )
        parts_tp.append(tp)
        parts_fp.append(fp)
        parts_thr.append(thr)
    indptr = indptr_from_counts([t.size for t in parts_tp])
    return (
        indptr,
        np.concatenate(parts_tp),
        np.concatenate(parts_fp),
        np.concatenate(parts_thr),
        support_all[cols],
        cols,
        total,
        n_cls,
    )


# --------------------------------------------------------------------------- kernels


@kernel(cache=True, nogil=True)
def _block_cuts(
    unsorted: NDArray[np.floating],
    y: NDArray[np.bool_],
    srt: NDArray[np.floating],
    drop: bool,
    keep_first: bool,
) -> tuple[
    NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.float64], NDArray[np.int64]
]:
    """Cuts of each row (= class) of a block of transposed scores.

    ``unsorted[r]``, ``y[r]``: class r's scores and labels over the objects; ``srt[r]``:
    the same scores ascending. Walking ``srt[r]`` from the top, a cut ends where the next
    lower score differs (ties grouped). With ``drop`` only the empty cut, the cuts whose
    tp rises and (``keep_first``) the first non-empty cut are stored, with their numbers
    among all cuts. Returns (cuts per row, tp, fp, threshold, cut numbers or empty).
    """
    n_rows, n_obj = srt.shape
    bound = np.zeros(n_rows + 1, dtype=np.int64)
    for row in range(n_rows):
        if drop:
            m = 0
            for i in range(n_obj):
                if y[row, i]:
                    m += 1
            size = m + 2  # empty cut, first non-empty cut, one per rise of tp
        else:
            size = 1 if n_obj == 0 else 2
            for i in range(1, n_obj):
                if srt[row, i - 1] != srt[row, i]:
                    size += 1
        bound[row + 1] = bound[row] + size
    total = bound[n_rows]
    tp = np.empty(total, dtype=np.int64)
    fp = np.empty(total, dtype=np.int64)
    thr = np.empty(total, dtype=np.float64)
    number = np.empty(total if drop else 0, dtype=np.int64)
    counts = np.zeros(n_rows, dtype=np.int64)
    for row in range(n_rows):
        pos = sorted_positives(unsorted[row], y[row])
        m = pos.size
        c = bound[row]
        tp[c] = 0
        fp[c] = 0
        thr[c] = np.inf
        if drop:
            number[c] = 0
        c += 1
        t = 0
        last = 0
        ncut = 0
        for i in range(n_obj - 1, -1, -1):
            v = srt[row, i]
            if i == 0 or srt[row, i - 1] != v:
                while t < m and pos[m - 1 - t] >= v:
                    t += 1
                ncut += 1
                if not drop or t > last or (keep_first and ncut == 1):
                    tp[c] = t
                    fp[c] = (n_obj - i) - t
                    thr[c] = v
                    if drop:
                        number[c] = ncut
                    c += 1
                    last = t
        counts[row] = c - bound[row]
    if not drop:
        return counts, tp, fp, thr, number
    # compact: the bound counted every positive as a rise
    n_kept = 0
    for row in range(n_rows):
        n_kept += counts[row]
    out_tp = np.empty(n_kept, dtype=np.int64)
    out_fp = np.empty(n_kept, dtype=np.int64)
    out_thr = np.empty(n_kept, dtype=np.float64)
    out_number = np.empty(n_kept, dtype=np.int64)
    o = 0
    for row in range(n_rows):
        for g in range(bound[row], bound[row] + counts[row]):
            out_tp[o] = tp[g]
            out_fp[o] = fp[g]
            out_thr[o] = thr[g]
            out_number[o] = number[g]
            o += 1
    return counts, out_tp, out_fp, out_thr, out_number


@kernel(cache=True, nogil=True)
def sorted_cuts(
    vals: NDArray[np.floating],
    pos: NDArray[np.floating],
    tp: NDArray[np.int64],
    fp: NDArray[np.int64],
    thr: NDArray[np.float64],
) -> int:
    """The cuts of one class from its scores ascending (``vals``) and its positives'
    scores ascending (``pos``, a sub-multiset of ``vals``): cut 0 empty (+inf), then one
    per distinct score from the top (ties grouped), into ``tp``, ``fp``, ``thr``. Returns
    the number of cuts."""
    tp[0] = 0
    fp[0] = 0
    thr[0] = np.inf
    c = 1
    q = 0  # positives with score >= the current value
    nv = vals.size
    npos = pos.size
    for t in range(nv - 1, -1, -1):
        v = vals[t]
        if t == 0 or vals[t - 1] != v:
            while q < npos and pos[npos - 1 - q] >= v:
                q += 1
            tp[c] = q
            fp[c] = (nv - t) - q
            thr[c] = v
            c += 1
    return c


@kernel(cache=True, nogil=True)
def longest_column(s_ptr: NDArray[np.int64], cols: NDArray[np.int64]) -> int:
    """Most entries in one of the columns ``cols`` of a CSC matrix."""
    longest = 0
    for k in cols:
        longest = max(longest, s_ptr[k + 1] - s_ptr[k])
    return longest


@kernel(cache=True, nogil=True)
def csc_column_cuts(
    s_ptr: NDArray[np.int64],
    s_rows_all: NDArray[np.int64],
    s_vals_all: NDArray[np.float64],
    l_ptr: NDArray[np.int64],
    l_rows_all: NDArray[np.int64],
    k: int,
    n_obj: int,
    tp: NDArray[np.int64],
    fp: NDArray[np.int64],
    thr: NDArray[np.float64],
) -> tuple[int, int]:
    """Every cut of column ``k`` of a CSC score matrix holding retrieved entries only.

    ``s_ptr``/``s_rows_all``/``s_vals_all``: the scores' CSC arrays (rows increasing in a
    column); ``l_ptr``/``l_rows_all``: the positive rows of each column (increasing).
    Writes into ``tp``, ``fp``, ``thr`` (room for the column's entries + 2): cut 0 empty
    (+inf), one cut per distinct retrieved score (ties grouped), and, when fewer than
    ``n_obj`` objects are retrieved, a last cut at -inf taking every object. Returns
    (number of cuts, positives).
    """
    s_rows = s_rows_all[s_ptr[k] : s_ptr[k + 1]]
    s_vals = s_vals_all[s_ptr[k] : s_ptr[k + 1]]
    l_rows = l_rows_all[l_ptr[k] : l_ptr[k + 1]]
    m = l_rows.size
    # scores of retrieved positives: merge the two sorted row lists
    pos = np.empty(min(m, s_rows.size), dtype=np.float64)
    npos = 0
    ia = 0
    ib = 0
    while ia < s_rows.size and ib < m:
        if s_rows[ia] == l_rows[ib]:
            pos[npos] = s_vals[ia]
            npos += 1
            ia += 1
            ib += 1
        elif s_rows[ia] < l_rows[ib]:
            ia += 1
        else:
            ib += 1
    nv = s_vals.size
    c = sorted_cuts(np.sort(s_vals), np.sort(pos[:npos]), tp, fp, thr)
    if nv < n_obj:
        tp[c] = m
        fp[c] = n_obj - m
        thr[c] = -np.inf
        c += 1
    return c, m


@kernel(cache=True)
def _csc_cuts(
    s_ptr: NDArray[np.int64],
    s_rows: NDArray[np.int64],
    s_vals: NDArray[np.float64],
    l_ptr: NDArray[np.int64],
    l_rows: NDArray[np.int64],
    cols: NDArray[np.int64],
    n_obj: int,
    drop: bool,
    keep_first: bool,
) -> tuple[
    NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.float64], NDArray[np.int64]
]:
    """Cuts of each kept column of a CSC score matrix holding retrieved entries only.

    With ``drop`` only the cuts of :func:`class_points`' ``dominated="drop"`` are stored,
    with their numbers among all cuts (else the numbers are not filled).
    """
    nk = cols.size
    counts = np.empty(nk, dtype=np.int64)
    # upper bound: empty cut + one per entry (with drop: per positive, and the first
    # non-empty cut) + the all-objects cut
    bound = np.zeros(nk + 1, dtype=np.int64)
    for j in range(nk):
        k = cols[j]
        n_entries = s_ptr[k + 1] - s_ptr[k]
        if drop:
            n_entries = min(n_entries, l_ptr[k + 1] - l_ptr[k] + 1)
        bound[j + 1] = bound[j] + n_entries + 2
    tp = np.zeros(bound[nk], dtype=np.int64)
    fp = np.zeros(bound[nk], dtype=np.int64)
    thr = np.empty(bound[nk], dtype=np.float64)
    number = np.zeros(bound[nk], dtype=np.int64)
    # one column's every cut, reused
    longest = longest_column(s_ptr, cols)
    col_tp = np.empty(longest + 2, dtype=np.int64)
    col_fp = np.empty(longest + 2, dtype=np.int64)
    col_thr = np.empty(longest + 2, dtype=np.float64)
    for j in range(nk):
        k = cols[j]
        n_cuts, _ = csc_column_cuts(
            s_ptr, s_rows, s_vals, l_ptr, l_rows, k, n_obj, col_tp, col_fp, col_thr
        )
        c = bound[j]
        last = 0
        for g in range(n_cuts):
            if g == 0 or not drop or col_tp[g] > last or (keep_first and g == 1):
                tp[c] = col_tp[g]
                fp[c] = col_fp[g]
                thr[c] = col_thr[g]
                number[c] = g
                c += 1
                last = col_tp[g]
        counts[j] = c - bound[j]
    indptr = np.zeros(nk + 1, dtype=np.int64)
    for j in range(nk):
        indptr[j + 1] = indptr[j] + counts[j]
    out_tp = np.empty(indptr[nk], dtype=np.int64)
    out_fp = np.empty(indptr[nk], dtype=np.int64)
    out_thr = np.empty(indptr[nk], dtype=np.float64)
    out_number = np.empty(indptr[nk], dtype=np.int64)
    for j in range(nk):
        for t in range(counts[j]):
            out_tp[indptr[j] + t] = tp[bound[j] + t]
            out_fp[indptr[j] + t] = fp[bound[j] + t]
            out_thr[indptr[j] + t] = thr[bound[j] + t]
            out_number[indptr[j] + t] = number[bound[j] + t]
    return indptr, out_tp, out_fp, out_thr, out_number


@kernel(cache=True)
def _ranked_cuts(
    flat: NDArray[np.uint8],
    ptr: NDArray[np.int64],
    sizes: NDArray[np.int64],
    cols: NDArray[np.int64],
    n_obj: int,
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]:
    """Cuts of pre-ranked 0/1 lists: every position is its own cut."""
    nk = cols.size
    indptr = np.zeros(nk + 1, dtype=np.int64)
    for j in range(nk):
        k = cols[j]
        length = ptr[k + 1] - ptr[k]
        indptr[j + 1] = indptr[j] + length + 1 + (1 if length < n_obj else 0)
    tp = np.zeros(indptr[nk], dtype=np.int64)
    fp = np.zeros(indptr[nk], dtype=np.int64)
    thr = np.empty(indptr[nk], dtype=np.float64)
    for j in range(nk):
        k = cols[j]
        c = indptr[j]
        thr[c] = np.inf
        a, b = 0, 0
        length = ptr[k + 1] - ptr[k]
        for t in range(length):
            if flat[ptr[k] + t] != 0:
                a += 1
            else:
                b += 1
            tp[c + 1 + t] = a
            fp[c + 1 + t] = b
            thr[c + 1 + t] = 0.0 - t
        if length < n_obj:
            e = c + 1 + length
            tp[e] = sizes[k]
            fp[e] = n_obj - sizes[k]
            thr[e] = -np.inf
    return indptr, tp, fp, thr
