"""Compiled counting loops (numba).

Each kernel reads its inputs once and returns raw counts plus counts of invalid entries,
so validating label values costs no extra pass.

Serial and parallel paths
-------------------------
Every loop body is an ``inline="always"`` helper over one range of the input, wrapped
twice: a serial kernel (one range, no threads) and a parallel one (``prange`` over a few
chunks per thread, per-chunk tables a cache line apart, summed at the end). Only the
``prange`` loop runs in parallel: numba would otherwise make every array expression
(``np.zeros``, ``.sum``) a parallel region of its own, each waking the threads again.
Inputs below ``SERIAL_BELOW = 2**18`` elements take the serial kernel: waking threads
costs more than such a loop.

Threads and ``OMP_WAIT_POLICY``
-------------------------------
Importing this module sets the environment variable ``OMP_WAIT_POLICY=passive`` unless
it is already set (a user's value is kept). numba's default threading layer is OpenMP,
whose idle threads otherwise spin; on a machine shared with other busy processes those
spinning threads hold cores, and each parallel call then waits for a scheduler slice
(tens of ms) before all its threads have run. With passive waiting an idle thread
sleeps, and waking it costs microseconds (up to a few hundred on a loaded machine)
instead; the serial path spares small inputs even that. The setting is read when the
OpenMP runtime starts, so it only applies if no OpenMP runtime was started earlier in
the process; to choose otherwise, set ``OMP_WAIT_POLICY`` (e.g. ``active``) before
importing ``validation``.

Label checks
------------
* Binary, 0/1 labels: one branch-free pass sums ``e & p``, ``e`` and ``p`` and ORs all
  labels together; an OR of at most 1 proves every label is 0 or 1 (positive label 0
  uses the complements). Other label sets take the general pass, also branch-free, which
  counts ``== positive`` and tracks the smallest and largest other label: they differ
  exactly when there are two or more negative labels.
* Multiclass: per-chunk int32 tables (exact while a chunk has fewer than 2**31 labels;
  the chunk count is raised to guarantee it), summed into int64.
* Multi-label dense: 1-byte inputs (bool, uint8, int8 viewed as uint8) go through a
  SWAR kernel (eight entries per 64-bit word, column counts in byte lanes flushed every
  255 rows); a row with a byte above 1 is rechecked entry by entry. Other integer
  dtypes use a generic branch-free loop with the same per-row recheck.
* Multi-label CSR: one pass per row with a record per label (true, TP, predicted,
  stamp); a stamp equal to the row's mark means the row predicts that label, so index
  order does not matter. Stored zeros are skipped; stored values other than 0/1 and
  column indices outside ``0..L-1`` are counted. Input must hold no duplicate entries.

First-call cost: numba compiles a kernel for each new combination of input dtypes, and
the serial and parallel variants separately on first use (about 1-3 s each, up to ~10 s
for the parallel SWAR kernel on a loaded machine); the machine
code is cached on disk (``cache=True``), so later processes load it in milliseconds.
"""

from __future__ import annotations

import os

# Before numba starts its OpenMP threads (they start on the first parallel call): spinning
# idle OpenMP threads on a shared machine make every parallel call wait for a scheduler
# slice. setdefault keeps a value the user chose.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from typing import Any, NamedTuple

import numba
import numpy as np
from numba import prange
from numba.core.cpu_options import ParallelOptions

__all__ = [
    "SERIAL_BELOW",
    "MultiLabelCounts",
    "binary_counts",
    "binary_counts_predict",
    "confusion_counts",
    "confusion_counts_predict",
    "multilabel_counts_csr",
    "multilabel_counts_dense",
    "multilabel_counts_predict",
]

# Parallel kernels parallelize their prange loop only. numba would otherwise turn each
# array expression (np.zeros, .sum, +=) into a parallel region of its own, and every
# region wakes the threads again (with passive waiting, a few to hundreds of µs each).
# (A ParallelOptions instance, not a dict: numba empties a dict on the first compile.)
_PRANGE_ONLY: Any = ParallelOptions(
    {
        "prange": True,
        "comprehension": False,
        "reduction": False,
        "inplace_binop": False,
        "setitem": False,
        "numpy": False,
        "stencil": False,
        "fusion": False,
    }
)

#: Inputs with fewer elements than this run the serial kernels.
SERIAL_BELOW = 1 << 18

# Chunks per thread: enough to balance load, few enough that per-chunk tables stay small.
_CHUNKS_PER_THREAD = 2
# Gap after each per-chunk table, in bytes: one cache line, so no two threads write to a
# shared line (false sharing would make the parallel loops slower than the serial ones).
_LINE = 64
# Largest count an int32 per-chunk table holds exactly.
_INT32_MAX = 2**31 - 1
_INT64_MAX = np.int64(2**63 - 1)
_INT64_MIN = np.int64(-(2**63))

_BYTE_ONES = np.uint64(0x0101010101010101)
_EVEN_BYTES = np.uint64(0x00FF00FF00FF00FF)
_ONE_BYTE = (np.dtype(np.bool_), np.dtype(np.uint8), np.dtype(np.int8))


def _n_chunks(n: int, table_size: int = 1) -> int:
    threads = numba.get_num_threads()
    # Large per-chunk tables (many classes) cost memory; one chunk per thread then.
    per_thread = 1 if table_size > 4096 else _CHUNKS_PER_THREAD
    return max(1, min(n, threads * per_thread))


def _int32_chunks(n: int, n_chunks: int) -> int:
    """Enough chunks that none holds more than 2**31 - 1 items (int32 tables stay exact)."""
    return max(n_chunks, -(-n // _INT32_MAX))


def _parallel(size: int, parallel: bool | None) -> bool:
    return size >= SERIAL_BELOW if parallel is None else parallel


# --------------------------------------------------------------------------------------
# Binary
# --------------------------------------------------------------------------------------


@numba.njit(inline="always")
def _bin01_body(expected: Any, predicted: Any) -> Any:
    # Valid only for 0/1 labels, which the OR of all labels proves afterwards (any other
    # value, negative ones too, sets a bit above bit 0).
    tp = 0
    n_true = 0
    n_pred = 0
    acc = 0
    for i in range(expected.size):
        a = np.int64(expected[i])
        b = np.int64(predicted[i])
        acc |= a | b
        tp += a & b
        n_true += a
        n_pred += b
    return tp, n_true, n_pred, acc


@numba.njit(cache=True)
def _bin01_serial(expected: Any, predicted: Any) -> Any:
    out = np.zeros((1, 4), dtype=np.int64)
    tp, n_true, n_pred, acc = _bin01_body(expected, predicted)
    out[0, 0] = tp
    out[0, 1] = n_true
    out[0, 2] = n_pred
    out[0, 3] = acc
    return out


@numba.njit(cache=True, parallel=_PRANGE_ONLY)
def _bin01_parallel(expected: Any, predicted: Any, n_chunks: int) -> Any:
    n = expected.size
    out = np.zeros((n_chunks, 4), dtype=np.int64)
    for c in prange(n_chunks):
        start = c * n // n_chunks
        stop = (c + 1) * n // n_chunks
        tp, n_true, n_pred, acc = _bin01_body(expected[start:stop], predicted[start:stop])
        out[c, 0] = tp
        out[c, 1] = n_true
        out[c, 2] = n_pred
        out[c, 3] = acc
    return out


@numba.njit(inline="always")
def _bin_general_body(expected: Any, predicted: Any, positive: Any) -> Any:
    # Branch-free: TP, true and predicted positives, and the smallest and largest label
    # other than ``positive``; they differ exactly when there are two or more negatives.
    tp = 0
    n_true = 0
    n_pred = 0
    neg_lo = _INT64_MAX
    neg_hi = _INT64_MIN
    for i in range(expected.size):
        a = np.int64(expected[i])
        b = np.int64(predicted[i])
        e = a == positive
        p = b == positive
        tp += np.int64(e & p)
        n_true += np.int64(e)
        n_pred += np.int64(p)
        neg_lo = min(neg_lo, min(_INT64_MAX if e else a, _INT64_MAX if p else b))
        neg_hi = max(neg_hi, max(_INT64_MIN if e else a, _INT64_MIN if p else b))
    return tp, n_true, n_pred, neg_lo, neg_hi


@numba.njit(cache=True)
def _bin_general_serial(expected: Any, predicted: Any, positive: Any) -> Any:
    out = np.zeros((1, 5), dtype=np.int64)
    tp, n_true, n_pred, neg_lo, neg_hi = _bin_general_body(expected, predicted, positive)
    out[0, 0] = tp
    out[0, 1] = n_true
    out[0, 2] = n_pred
    out[0, 3] = neg_lo
    out[0, 4] = neg_hi
    return out


@numba.njit(cache=True, parallel=_PRANGE_ONLY)
def _bin_general_parallel(expected: Any, predicted: Any, positive: Any, n_chunks: int) -> Any:
    n = expected.size
    out = np.zeros((n_chunks, 5), dtype=np.int64)
    for c in prange(n_chunks):
        start = c * n // n_chunks
        stop = (c + 1) * n // n_chunks
        tp, n_true, n_pred, neg_lo, neg_hi = _bin_general_body(
            expected[start:stop], predicted[start:stop], positive
        )
        out[c, 0] = tp
        out[c, 1] = n_true
        out[c, 2] = n_pred
        out[c, 3] = neg_lo
        out[c, 4] = neg_hi
    return out


def _counts_array(n: int, tp: int, n_true: int, n_pred: int) -> np.ndarray:
    fp = n_pred - tp
    fn = n_true - tp
    return np.array([tp, fp, fn, n - tp - fp - fn], dtype=np.int64)


def _binary01(expected: Any, predicted: Any, positive: int, par: bool) -> np.ndarray | None:
    """``[tp, fp, fn, tn]`` if every label is 0 or 1, else ``None``."""
    n = expected.size
    if par:
        out = _bin01_parallel(expected, predicted, _n_chunks(n))
    else:
        out = _bin01_serial(expected, predicted)
    acc = out[:, 3]
    if acc.min() < 0 or acc.max() > 1:
        return None
    tp, n_true, n_pred = (int(v) for v in out[:, :3].sum(axis=0))
    if positive == 0:
        # Counts of label 0 are the complements of those of label 1.
        tp, n_true, n_pred = n - n_true - n_pred + tp, n - n_true, n - n_pred
    return _counts_array(n, tp, n_true, n_pred)


def binary_counts(
    expected: Any, predicted: Any, positive: int, *, parallel: bool | None = None
) -> tuple[np.ndarray, bool]:
    """Return ``([tp, fp, fn, tn], more_than_two_labels)`` for integer label vectors.

    ``parallel`` forces the serial (``False``) or parallel (``True``) kernels; ``None``
    picks by size (:data:`SERIAL_BELOW`).
    """
    n = expected.size
    par = _parallel(n, parallel)
    if positive in (0, 1) and 0 <= expected[0] <= 1 and 0 <= predicted[0] <= 1:
        raw = _binary01(expected, predicted, positive, par)
        if raw is not None:
            return raw, False
    if par:
        out = _bin_general_parallel(expected, predicted, positive, _n_chunks(n))
    else:
        out = _bin_general_serial(expected, predicted, positive)
    tp, n_true, n_pred = (int(v) for v in out[:, :3].sum(axis=0))
    # Two or more labels other than ``positive``: the smallest differs from the largest.
    too_many = int(out[:, 3].min()) < int(out[:, 4].max())
    return _counts_array(n, tp, n_true, n_pred), too_many


# --------------------------------------------------------------------------------------
# Multiclass
# --------------------------------------------------------------------------------------


@numba.njit(inline="always")
def _confusion_body(expected: Any, predicted: Any, k: int, table: Any) -> Any:
    # ``table`` is a flat k*k table (int32 per chunk, or int64); returns the invalid count.
    nbad = 0
    for i in range(expected.size):
        e = np.int64(expected[i])
        p = np.int64(predicted[i])
        if e < 0 or e >= k or p < 0 or p >= k:
            nbad += 1
        else:
            table[e * k + p] += 1
    return nbad


@numba.njit(cache=True)
def _confusion_serial(expected: Any, predicted: Any, k: int) -> Any:
    table = np.zeros(k * k, dtype=np.int64)
    nbad = _confusion_body(expected, predicted, k, table)
    return table.reshape((k, k)), nbad


@numba.njit(cache=True, parallel=_PRANGE_ONLY)
def _confusion_parallel(expected: Any, predicted: Any, k: int, n_chunks: int) -> Any:
    # int32 tables: half the cache footprint of int64; exact as a chunk has < 2**31 labels.
    n = expected.size
    m = k * k
    tables = np.zeros((n_chunks, m + _LINE // 4), dtype=np.int32)
    bad = np.zeros(n_chunks, dtype=np.int64)
    for c in prange(n_chunks):
        start = c * n // n_chunks
        stop = (c + 1) * n // n_chunks
        bad[c] = _confusion_body(expected[start:stop], predicted[start:stop], k, tables[c, :m])
    total = tables[0, :m].astype(np.int64)
    for c in range(1, n_chunks):
        total += tables[c, :m]
    return total.reshape((k, k)), bad.sum()


def confusion_counts(
    expected: Any, predicted: Any, k: int, *, parallel: bool | None = None
) -> tuple[np.ndarray, int]:
    """Return ``(k x k confusion matrix, number of labels outside 0..k-1)``.

    ``parallel`` as in :func:`binary_counts`; with ``None``, inputs shorter than the
    table (k * k) also run serially, since per-thread tables would cost more than the loop.
    """
    n = expected.size
    if parallel is None:
        parallel = n >= max(SERIAL_BELOW, k * k)
    if not parallel:
        table, n_bad = _confusion_serial(expected, predicted, k)
    else:
        n_chunks = _int32_chunks(n, _n_chunks(n, k * k))
        table, n_bad = _confusion_parallel(expected, predicted, k, n_chunks)
    return table, int(n_bad)


class MultiLabelCounts(NamedTuple):
    """Raw multi-label counts; when any ``bad_*`` is non-zero the others are meaningless."""

    tp: np.ndarray  # per label
    true: np.ndarray
    predicted: np.ndarray
    row_tp: np.ndarray  # per row (example)
    row_true: np.ndarray
    row_pred: np.ndarray
    bad_true: int  # entries of y_true other than 0/1
    bad_pred: int  # entries of y_pred other than 0/1
    bad_index: int  # CSR column indices outside 0..L-1 (always 0 for dense input)


# --------------------------------------------------------------------------------------
# Multi-label, dense
# --------------------------------------------------------------------------------------


@numba.njit(inline="always")
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


@numba.njit(inline="always")
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


@numba.njit(inline="always")
def _byte_sum(x: Any) -> Any:
    # Sum of the 8 byte lanes of x (each <= 255).
    y = (x & _EVEN_BYTES) + ((x >> np.uint64(8)) & _EVEN_BYTES)
    return np.int64((y * np.uint64(0x0001000100010001)) >> np.uint64(48))


@numba.njit(inline="always")
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


@numba.njit(cache=True)
def _dense_serial(y_true: Any, y_pred: Any) -> Any:
    n, n_labels = y_true.shape
    tp = np.zeros(n_labels, dtype=np.int64)
    nt = np.zeros(n_labels, dtype=np.int64)
    npred = np.zeros(n_labels, dtype=np.int64)
    row_tp = np.zeros(n, dtype=np.int64)
    row_true = np.zeros(n, dtype=np.int64)
    row_pred = np.zeros(n, dtype=np.int64)
    bad_t, bad_p = _dense_body(y_true, y_pred, 0, n, tp, nt, npred, row_tp, row_true, row_pred)
    return tp, nt, npred, row_tp, row_true, row_pred, bad_t, bad_p


@numba.njit(cache=True, parallel=_PRANGE_ONLY)
def _dense_parallel(y_true: Any, y_pred: Any, n_chunks: int) -> Any:
    n, n_labels = y_true.shape
    # Per chunk: tp, true and predicted counts side by side, then a cache line of gap.
    m = 3 * n_labels
    counts = np.zeros((n_chunks, m + _LINE // 8), dtype=np.int64)
    row_tp = np.zeros(n, dtype=np.int64)
    row_true = np.zeros(n, dtype=np.int64)
    row_pred = np.zeros(n, dtype=np.int64)
    bad = np.zeros((n_chunks, 2), dtype=np.int64)
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
            mine[2 * n_labels : m],
            row_tp,
            row_true,
            row_pred,
        )
        bad[c, 0] = bad_t
        bad[c, 1] = bad_p
    total = counts[0, :m].copy()
    for c in range(1, n_chunks):
        total += counts[c, :m]
    bad_sum = bad.sum(axis=0)
    return (
        total[:n_labels].copy(),
        total[n_labels : 2 * n_labels].copy(),
        total[2 * n_labels :].copy(),
        row_tp,
        row_true,
        row_pred,
        bad_sum[0],
        bad_sum[1],
    )


@numba.njit(cache=True)
def _dense_u8_serial(y_true: Any, y_pred: Any) -> Any:
    n, n_labels = y_true.shape
    tp = np.zeros(n_labels, dtype=np.int64)
    nt = np.zeros(n_labels, dtype=np.int64)
    npred = np.zeros(n_labels, dtype=np.int64)
    row_tp = np.zeros(n, dtype=np.int64)
    row_true = np.zeros(n, dtype=np.int64)
    row_pred = np.zeros(n, dtype=np.int64)
    bad_t, bad_p = _dense_u8_body(y_true, y_pred, 0, n, tp, nt, npred, row_tp, row_true, row_pred)
    return tp, nt, npred, row_tp, row_true, row_pred, bad_t, bad_p


@numba.njit(cache=True, parallel=_PRANGE_ONLY)
def _dense_u8_parallel(y_true: Any, y_pred: Any, n_chunks: int) -> Any:
    n, n_labels = y_true.shape
    # Per chunk: tp, true and predicted counts side by side, then a cache line of gap.
    m = 3 * n_labels
    counts = np.zeros((n_chunks, m + _LINE // 8), dtype=np.int64)
    row_tp = np.zeros(n, dtype=np.int64)
    row_true = np.zeros(n, dtype=np.int64)
    row_pred = np.zeros(n, dtype=np.int64)
    bad = np.zeros((n_chunks, 2), dtype=np.int64)
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
            mine[2 * n_labels : m],
            row_tp,
            row_true,
            row_pred,
        )
        bad[c, 0] = bad_t
        bad[c, 1] = bad_p
    total = counts[0, :m].copy()
    for c in range(1, n_chunks):
        total += counts[c, :m]
    bad_sum = bad.sum(axis=0)
    return (
        total[:n_labels].copy(),
        total[n_labels : 2 * n_labels].copy(),
        total[2 * n_labels :].copy(),
        row_tp,
        row_true,
        row_pred,
        bad_sum[0],
        bad_sum[1],
    )


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
    out = parallel_kernel(t, p, _n_chunks(n, n_labels)) if par else serial(t, p)
    tp, nt, npred, row_tp, row_true, row_pred, bad_t, bad_p = out
    return MultiLabelCounts(tp, nt, npred, row_tp, row_true, row_pred, int(bad_t), int(bad_p), 0)


# --------------------------------------------------------------------------------------
# Multi-label, CSR
# --------------------------------------------------------------------------------------


@numba.njit(inline="always")
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


@numba.njit(cache=True)
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


@numba.njit(cache=True, parallel=_PRANGE_ONLY)
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
        out = _csr_parallel(*args, _int32_chunks(n, _n_chunks(n, n_labels)))
    else:
        out = _csr_serial(*args)
    tp, nt, npred, row_tp, row_true, row_pred, bad_t, bad_p, bad_index = out
    return MultiLabelCounts(
        tp, nt, npred, row_tp, row_true, row_pred, int(bad_t), int(bad_p), int(bad_index)
    )


# --------------------------------------------------------------------------------------
# Kernels that call a user's numba-jitted ``predict`` inside the loop. A function argument
# is part of the compiled signature, so each new ``predict`` compiles once per process.
# --------------------------------------------------------------------------------------
@numba.njit
def binary_counts_predict(predict: Any, observations: Any, expected: Any, positive: Any) -> Any:
    tp = 0
    fp = 0
    fn = 0
    tn = 0
    n_invalid = 0
    neg_seen = False
    neg = np.int64(0)
    for i in range(expected.size):
        pred = np.int64(predict(observations[i]))
        e = expected[i] == positive
        p = pred == positive
        if not e:
            v = np.int64(expected[i])
            if not neg_seen:
                neg = v
                neg_seen = True
            elif v != neg:
                n_invalid += 1
        if not p:
            if not neg_seen:
                neg = pred
                neg_seen = True
            elif pred != neg:
                n_invalid += 1
        if e:
            if p:
                tp += 1
            else:
                fn += 1
        elif p:
            fp += 1
        else:
            tn += 1
    return np.array([tp, fp, fn, tn], dtype=np.int64), n_invalid


@numba.njit
def confusion_counts_predict(predict: Any, observations: Any, expected: Any, k: int) -> Any:
    table = np.zeros((k, k), dtype=np.int64)
    n_invalid = 0
    for i in range(expected.size):
        e = np.int64(expected[i])
        p = np.int64(predict(observations[i]))
        if e < 0 or e >= k or p < 0 or p >= k:
            n_invalid += 1
        else:
            table[e, p] += 1
    return table, n_invalid


@numba.njit
def _multilabel_counts_predict(predict: Any, observations: Any, y_true: Any) -> Any:
    n, n_labels = y_true.shape
    tp = np.zeros(n_labels, dtype=np.int64)
    true = np.zeros(n_labels, dtype=np.int64)
    pred = np.zeros(n_labels, dtype=np.int64)
    row_tp = np.zeros(n, dtype=np.int64)
    row_true = np.zeros(n, dtype=np.int64)
    row_pred = np.zeros(n, dtype=np.int64)
    bad_true = 0
    bad_pred = 0
    bad_length = 0
    for i in range(n):
        row = predict(observations[i])
        if row.size != n_labels:
            bad_length += 1
            continue
        for j in range(n_labels):
            t = np.int64(y_true[i, j])
            p = np.int64(row[j])
            if t != 0 and t != 1:
                bad_true += 1
                continue
            if p != 0 and p != 1:
                bad_pred += 1
                continue
            both = t & p
            tp[j] += both
            true[j] += t
            pred[j] += p
            row_tp[i] += both
            row_true[i] += t
            row_pred[i] += p
    return tp, true, pred, row_tp, row_true, row_pred, bad_true, bad_pred, bad_length


def multilabel_counts_predict(
    predict: Any, observations: Any, y_true: Any
) -> tuple[MultiLabelCounts, int]:
    """Multi-label counts with a jitted ``predict`` (observation -> 0/1 row) in the loop.

    Returns the counts and the number of rows whose prediction has the wrong length.
    """
    tp, true, pred, row_tp, row_true, row_pred, bad_true, bad_pred, bad_length = (
        _multilabel_counts_predict(predict, observations, y_true)
    )
    counts = MultiLabelCounts(
        tp, true, pred, row_tp, row_true, row_pred, int(bad_true), int(bad_pred), 0
    )
    return counts, int(bad_length)
