"""Multi-label counting kernels for dense (N, L) indicator matrices (SWAR for 1-byte dtypes)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import prange

from fmacro.validation._kernels._common import (
    _LINE,
    _PRANGE_ONLY,
    MultiLabelCounts,
    _n_chunks,
    _parallel,
    run_parallel,
)
from fmacro.validation.dispatch import kernel

_BYTE_ONES = np.uint64(0x0101010101010101)
_EVEN_BYTES = np.uint64(0x00FF00FF00FF00FF)
_ONE_BYTE = (np.dtype(np.bool_), np.dtype(np.uint8), np.dtype(np.int8))


@kernel(inline="always")
def _dense_body(
    y_true: Any,
    y_pred: Any,
    start: int,
    stop: int,
    tp: Any,
    nt: Any,
    npred: Any,
    row_tp: Any,
    row_true: Any,
    row_pred: Any,
) -> Any:
    # Any integer dtype. Branch-free sums; a row whose OR has a bit other than bit 0 holds
    # a value other than 0/1 (negative ones set the sign bit) and is rechecked exactly.
    # Such values make the counts meaningless, but the caller then raises.
    n_labels = y_true.shape[1]
    bad_t = 0
    bad_p = 0
    for i in range(start, stop):
        t_row = y_true[i]
        p_row = y_pred[i]
        orv = np.int64(0)
        r_tp = 0
        r_t = 0
        r_p = 0
        for j in range(n_labels):
            t = np.int64(t_row[j])
            p = np.int64(p_row[j])
            both = t & p
            orv |= t | p
            tp[j] += both
            nt[j] += t
            npred[j] += p
            r_tp += both
            r_t += t
            r_p += p
        if orv & ~np.int64(1):
            for j in range(n_labels):
                bad_t += t_row[j] != 0 and t_row[j] != 1
                bad_p += p_row[j] != 0 and p_row[j] != 1
        row_tp[i] = r_tp
        row_true[i] = r_t
        row_pred[i] = r_p
    return bad_t, bad_p


@kernel(inline="always")
def _swar_words(t_words: Any, p_words: Any, a_tp: Any, a_t: Any, a_p: Any) -> Any:
    # Zero-based loop over slices (indices provably in range), so LLVM vectorizes it.
    orv = np.uint64(0)
    r_tp = np.uint64(0)
    r_t = np.uint64(0)
    r_p = np.uint64(0)
    for w in range(t_words.size):
        t = t_words[w]
        p = p_words[w]
        b = t & p
        orv |= t | p
        a_tp[w] += b
        a_t[w] += t
        a_p[w] += p
        r_tp += b
        r_t += t
        r_p += p
    return orv, r_tp, r_t, r_p


@kernel(inline="always")
def _byte_sum(x: Any) -> Any:
    # Sum of the 8 byte lanes of x (each <= 255).
    y = (x & _EVEN_BYTES) + ((x >> np.uint64(8)) & _EVEN_BYTES)
    return np.int64((y * np.uint64(0x0001000100010001)) >> np.uint64(48))


@kernel(inline="always")
def _dense_u8_body(
    y_true: Any,
    y_pred: Any,
    start: int,
    stop: int,
    tp: Any,
    nt: Any,
    npred: Any,
    row_tp: Any,
    row_true: Any,
    row_pred: Any,
) -> Any:
    # SWAR over C-contiguous 2-D uint8: eight entries per uint64 word. 0/1 entries add in
    # byte lanes without carries while a lane stays <= 255, so column counters live in
    # byte lanes (flushed every 255 rows) and a row's sums in lane sums (folded every 255
    # words). A byte > 1 sets a bit of ``orv`` outside the lane ones; such a row is
    # rechecked entry by entry (its carries spoil the counts, but the caller then raises).
    n_labels = y_true.shape[1]
    nw = (n_labels + 7) // 8
    direct = n_labels % 8 == 0
    ft = y_true.reshape(-1)
    fp = y_pred.reshape(-1)
    a_tp = np.zeros(nw, dtype=np.uint64)
    a_t = np.zeros(nw, dtype=np.uint64)
    a_p = np.zeros(nw, dtype=np.uint64)
    buf_t = np.zeros(nw * 8, dtype=np.uint8)  # zero-padded row copies when n_labels % 8
    buf_p = np.zeros(nw * 8, dtype=np.uint8)
    wt_buf = buf_t.view(np.uint64)
    wp_buf = buf_p.view(np.uint64)
    bad_t = 0
    bad_p = 0
    since = 0
    for i in range(start, stop):
        lo = i * n_labels
        if direct:
            wt = ft[lo : lo + n_labels].view(np.uint64)
            wp = fp[lo : lo + n_labels].view(np.uint64)
        else:
            buf_t[:n_labels] = ft[lo : lo + n_labels]
            buf_p[:n_labels] = fp[lo : lo + n_labels]
            wt = wt_buf
            wp = wp_buf
        orv = np.uint64(0)
        s_tp = 0
        s_t = 0
        s_p = 0
        w0 = 0
        while w0 < nw:
            w1 = min(nw, w0 + 255)
            o, r_tp, r_t, r_p = _swar_words(
                wt[w0:w1], wp[w0:w1], a_tp[w0:w1], a_t[w0:w1], a_p[w0:w1]
            )
            orv |= o
            s_tp += _byte_sum(r_tp)
            s_t += _byte_sum(r_t)
            s_p += _byte_sum(r_p)
            w0 = w1
        if orv & ~_BYTE_ONES:
            for j in range(n_labels):
                bad_t += ft[lo + j] > 1
                bad_p += fp[lo + j] > 1
        row_tp[i] = s_tp
        row_true[i] = s_t
        row_pred[i] = s_p
        since += 1
        if since == 255 or i == stop - 1:
            for w in range(nw):
                x_tp = a_tp[w]
                x_t = a_t[w]
                x_p = a_p[w]
                for b in range(min(8, n_labels - 8 * w)):
                    sh = np.uint64(8 * b)
                    j = 8 * w + b
                    tp[j] += np.int64((x_tp >> sh) & np.uint64(255))
                    nt[j] += np.int64((x_t >> sh) & np.uint64(255))
                    npred[j] += np.int64((x_p >> sh) & np.uint64(255))
                a_tp[w] = 0
                a_t[w] = 0
                a_p[w] = 0
            since = 0
    return bad_t, bad_p


@kernel(inline="always")
def _row_counts(n: int) -> Any:
    """Per-row TP, true and predicted counts, filled in place by a body."""
    return np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)


@kernel(inline="always")
def _chunk_tables(n_chunks: int, n_labels: int) -> Any:
    """Per chunk: tp, true and predicted counts side by side, then a cache line of gap;
    and the chunk's two bad-value counts."""
    counts = np.zeros((n_chunks, 3 * n_labels + _LINE // 8), dtype=np.int64)
    return counts, np.zeros((n_chunks, 2), dtype=np.int64)


@kernel(inline="always")
def _sum_chunks(counts: Any, bad: Any, n_labels: int) -> Any:
    """(tp, true, predicted, bad_true, bad_pred) summed over the chunk tables."""
    m = 3 * n_labels
    total = counts[0, :m].copy()
    for c in range(1, counts.shape[0]):
        total += counts[c, :m]
    bad_sum = bad.sum(axis=0)
    return (
        total[:n_labels].copy(),
        total[n_labels : 2 * n_labels].copy(),
        total[2 * n_labels :].copy(),
        bad_sum[0],
        bad_sum[1],
    )


@kernel(cache=True)
def _dense_serial(y_true: Any, y_pred: Any) -> Any:
    n, n_labels = y_true.shape
    counts, bad = _chunk_tables(1, n_labels)
    row_tp, row_true, row_pred = _row_counts(n)
    mine = counts[0]
    bad[0, 0], bad[0, 1] = _dense_body(
        y_true,
        y_pred,
        0,
        n,
        mine[:n_labels],
        mine[n_labels : 2 * n_labels],
        mine[2 * n_labels : 3 * n_labels],
        row_tp,
        row_true,
        row_pred,
    )
    tp, nt, npred, bad_t, bad_p = _sum_chunks(counts, bad, n_labels)
    return tp, nt, npred, row_tp, row_true, row_pred, bad_t, bad_p


@kernel(cache=True, parallel=_PRANGE_ONLY)
def _dense_parallel(y_true: Any, y_pred: Any, n_chunks: int) -> Any:
    n, n_labels = y_true.shape
    counts, bad = _chunk_tables(n_chunks, n_labels)
    row_tp, row_true, row_pred = _row_counts(n)
    for c in prange(n_chunks):
        start = c * n // n_chunks
        stop = (c + 1) * n // n_chunks
        mine = counts[c]
        bad_t, bad_p = _dense_body(
            y_true,
            y_pred,
            start,
            stop,
            mine[:n_labels],
            mine[n_labels : 2 * n_labels],
            mine[2 * n_labels : 3 * n_labels],
            row_tp,
            row_true,
            row_pred,
        )
        bad[c, 0] = bad_t
        bad[c, 1] = bad_p
    tp, nt, npred, bad_t, bad_p = _sum_chunks(counts, bad, n_labels)
    return tp, nt, npred, row_tp, row_true, row_pred, bad_t, bad_p


@kernel(cache=True)
def _dense_u8_serial(y_true: Any, y_pred: Any) -> Any:
    n, n_labels = y_true.shape
    counts, bad = _chunk_tables(1, n_labels)
    row_tp, row_true, row_pred = _row_counts(n)
    mine = counts[0]
    bad[0, 0], bad[0, 1] = _dense_u8_body(
        y_true,
        y_pred,
        0,
        n,
        mine[:n_labels],
        mine[n_labels : 2 * n_labels],
        mine[2 * n_labels : 3 * n_labels],
        row_tp,
        row_true,
        row_pred,
    )
    tp, nt, npred, bad_t, bad_p = _sum_chunks(counts, bad, n_labels)
    return tp, nt, npred, row_tp, row_true, row_pred, bad_t, bad_p


@kernel(cache=True, parallel=_PRANGE_ONLY)
def _dense_u8_parallel(y_true: Any, y_pred: Any, n_chunks: int) -> Any:
    n, n_labels = y_true.shape
    counts, bad = _chunk_tables(n_chunks, n_labels)
    row_tp, row_true, row_pred = _row_counts(n)
    for c in prange(n_chunks):
        start = c * n // n_chunks
        stop = (c + 1) * n // n_chunks
        mine = counts[c]
        bad_t, bad_p = _dense_u8_body(
            y_true,
            y_pred,
            start,
            stop,
            mine[:n_labels],
            mine[n_labels : 2 * n_labels],
            mine[2 * n_labels : 3 * n_labels],
            row_tp,
            row_true,
            row_pred,
        )
        bad[c, 0] = bad_t
        bad[c, 1] = bad_p
    tp, nt, npred, bad_t, bad_p = _sum_chunks(counts, bad, n_labels)
    return tp, nt, npred, row_tp, row_true, row_pred, bad_t, bad_p


def _word_aligned(y: np.ndarray) -> np.ndarray:
    # The SWAR kernel reads rows as uint64 words; give it an 8-byte aligned buffer.
    return y if y.ctypes.data % 8 == 0 else y.copy()


def multilabel_counts_dense(
    y_true: Any, y_pred: Any, *, parallel: bool | None = None
) -> MultiLabelCounts:
    """Counts of two C-contiguous (N, L) integer or bool indicator matrices.

    ``parallel`` as in :func:`binary_counts`.
    """
    n, n_labels = y_true.shape
    par = _parallel(n * n_labels, parallel)
    if y_true.dtype in _ONE_BYTE and y_pred.dtype in _ONE_BYTE:
        # Viewed as uint8, an int8 -1 reads 255 and is counted as invalid, as it should be.
        t = _word_aligned(y_true.view(np.uint8))
        p = _word_aligned(y_pred.view(np.uint8))
        serial, parallel_kernel = _dense_u8_serial, _dense_u8_parallel
    else:
        t, p = y_true, y_pred
        serial, parallel_kernel = _dense_serial, _dense_parallel
    out = run_parallel(parallel_kernel, t, p, _n_chunks(n, n_labels)) if par else serial(t, p)
    tp, nt, npred, row_tp, row_true, row_pred, bad_t, bad_p = out
    return MultiLabelCounts(tp, nt, npred, row_tp, row_true, row_pred, int(bad_t), int(bad_p), 0)
