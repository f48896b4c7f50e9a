"""Multi-label counting kernels for CSR indicator matrices."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import prange

from fmacro.validation._kernels._common import (
    _LINE,
    _PRANGE_ONLY,
    MultiLabelCounts,
    _int32_chunks,
    _n_chunks,
    _parallel,
    run_parallel,
)
from fmacro.validation.dispatch import kernel


@kernel(inline="always")
def _csr_body(
    t_indptr: Any,
    t_indices: Any,
    t_data: Any,
    p_indptr: Any,
    p_indices: Any,
    p_data: Any,
    start: int,
    stop: int,
    rec: Any,
    row_tp: Any,
    row_true: Any,
    row_pred: Any,
) -> Any:
    # One pass, any index order. rec[j] = [true, tp, predicted, stamp] of label j (int32:
    # 16 bytes, so every touch of a label hits one cache line); stamp == the row's mark
    # means the row predicts j, so TP needs no sorted merge walk. Stored zeros are
    # skipped; values other than 0/1 and indices outside 0..L-1 are counted (not stored).
    n_labels = rec.shape[0]
    bad_t = 0
    bad_p = 0
    bad_index = 0
    for i in range(start, stop):
        mark = np.int32(i - start + 1)
        r_p = 0
        for q in range(p_indptr[i], p_indptr[i + 1]):
            v = p_data[q]
            if v != 0:
                j = p_indices[q]
                if j < 0 or j >= n_labels:
                    bad_index += 1
                    continue
                bad_p += v != 1
                rec[j, 2] += 1
                rec[j, 3] = mark
                r_p += 1
        r_t = 0
        r_tp = 0
        for q in range(t_indptr[i], t_indptr[i + 1]):
            v = t_data[q]
            if v != 0:
                j = t_indices[q]
                if j < 0 or j >= n_labels:
                    bad_index += 1
                    continue
                bad_t += v != 1
                hit = np.int32(rec[j, 3] == mark)
                rec[j, 0] += 1
                rec[j, 1] += hit
                r_t += 1
                r_tp += hit
        row_tp[i] = r_tp
        row_true[i] = r_t
        row_pred[i] = r_p
    return bad_t, bad_p, bad_index


@kernel(cache=True)
def _csr_serial(
    t_indptr: Any,
    t_indices: Any,
    t_data: Any,
    p_indptr: Any,
    p_indices: Any,
    p_data: Any,
    n_labels: int,
) -> Any:
    n = t_indptr.size - 1
    rec = np.zeros((n_labels, 4), dtype=np.int32)
    row_tp = np.zeros(n, dtype=np.int64)
    row_true = np.zeros(n, dtype=np.int64)
    row_pred = np.zeros(n, dtype=np.int64)
    bad_t, bad_p, bad_index = _csr_body(
        t_indptr, t_indices, t_data, p_indptr, p_indices, p_data,
        0, n, rec, row_tp, row_true, row_pred,
    )  # fmt: skip
    total = rec.astype(np.int64)
    return (
        total[:, 1].copy(),
        total[:, 0].copy(),
        total[:, 2].copy(),
        row_tp,
        row_true,
        row_pred,
        bad_t,
        bad_p,
        bad_index,
    )


@kernel(cache=True, parallel=_PRANGE_ONLY)
def _csr_parallel(
    t_indptr: Any,
    t_indices: Any,
    t_data: Any,
    p_indptr: Any,
    p_indices: Any,
    p_data: Any,
    n_labels: int,
    n_chunks: int,
) -> Any:
    n = t_indptr.size - 1
    # 16-byte records; the 4 extra ones per chunk are a cache line of gap.
    recs = np.zeros((n_chunks, n_labels + _LINE // 16, 4), dtype=np.int32)
    row_tp = np.zeros(n, dtype=np.int64)
    row_true = np.zeros(n, dtype=np.int64)
    row_pred = np.zeros(n, dtype=np.int64)
    bad = np.zeros((n_chunks, 3), dtype=np.int64)
    for c in prange(n_chunks):
        start = c * n // n_chunks
        stop = (c + 1) * n // n_chunks
        bad_t, bad_p, bad_index = _csr_body(
            t_indptr, t_indices, t_data, p_indptr, p_indices, p_data,
            start, stop, recs[c, :n_labels], row_tp, row_true, row_pred,
        )  # fmt: skip
        bad[c, 0] = bad_t
        bad[c, 1] = bad_p
        bad[c, 2] = bad_index
    total = recs[0, :n_labels].astype(np.int64)
    for c in range(1, n_chunks):
        total += recs[c, :n_labels]
    bad_sum = bad.sum(axis=0)
    return (
        total[:, 1].copy(),
        total[:, 0].copy(),
        total[:, 2].copy(),
        row_tp,
        row_true,
        row_pred,
        bad_sum[0],
        bad_sum[1],
        bad_sum[2],
    )


def multilabel_counts_csr(
    y_true: Any, y_pred: Any, *, parallel: bool | None = None
) -> MultiLabelCounts:
    """As :func:`multilabel_counts_dense`, for two CSR matrices of the same shape.

    Neither may hold duplicate entries (canonical format or ``sum_duplicates``); indices
    need not be sorted and stored zeros are ignored. ``bad_index`` counts column indices
    outside ``0..L-1`` (possible only in a hand-built CSR); such entries are not counted.
    """
    n, n_labels = y_true.shape
    args = (
        y_true.indptr,
        y_true.indices,
        y_true.data,
        y_pred.indptr,
        y_pred.indices,
        y_pred.data,
        n_labels,
    )
    if _parallel(y_true.nnz + y_pred.nnz + n, parallel):
        out = run_parallel(_csr_parallel, *args, _int32_chunks(n, _n_chunks(n, n_labels)))
    else:
        out = _csr_serial(*args)
    tp, nt, npred, row_tp, row_true, row_pred, bad_t, bad_p, bad_index = out
    return MultiLabelCounts(
        tp, nt, npred, row_tp, row_true, row_pred, int(bad_t), int(bad_p), int(bad_index)
    )
