"""Compiled counting loops (numba).

Each kernel reads its inputs once, in parallel chunks, and returns raw counts plus a
count of invalid entries, so validation of label ranges costs no extra pass.

First-call cost: numba compiles a kernel for each new combination of input dtypes
(about 1-3 s each); the machine code is cached on disk (``cache=True``), so later
processes load it in milliseconds.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numba import prange

__all__ = [
    "binary_counts",
    "binary_counts_predict",
    "confusion_counts",
    "confusion_counts_predict",
    "multilabel_counts_csr",
    "multilabel_counts_dense",
]

# Chunks per thread: enough to balance load, few enough that per-chunk tables stay small.
_CHUNKS_PER_THREAD = 2


def _n_chunks(n: int, table_size: int = 1) -> int:
    threads = numba.get_num_threads()
    # Large per-chunk tables (many classes) cost memory; one chunk per thread then.
    per_thread = 1 if table_size > 4096 else _CHUNKS_PER_THREAD
    return max(1, min(n, threads * per_thread))


@numba.njit(cache=True, parallel=True)
def _binary_counts(expected: Any, predicted: Any, positive: Any, n_chunks: int) -> Any:
    n = expected.size
    out = np.zeros((n_chunks, 4), dtype=np.int64)
    other = np.zeros(n_chunks, dtype=np.int64)
    has_other = np.zeros(n_chunks, dtype=np.bool_)
    conflict = np.zeros(n_chunks, dtype=np.bool_)
    for c in prange(n_chunks):
        start = c * n // n_chunks
        stop = (c + 1) * n // n_chunks
        tp = 0
        fp = 0
        fn = 0
        tn = 0
        seen = False
        neg = np.int64(0)
        bad = False
        for i in range(start, stop):
            e = expected[i] == positive
            p = predicted[i] == positive
            if e:
                if p:
                    tp += 1
                else:
                    fn += 1
            elif p:
                fp += 1
            else:
                tn += 1
            # Track the negative label: a binary problem has exactly one.
            if not e:
                v = np.int64(expected[i])
                if not seen:
                    neg = v
                    seen = True
                elif v != neg:
                    bad = True
            if not p:
                v = np.int64(predicted[i])
                if not seen:
                    neg = v
                    seen = True
                elif v != neg:
                    bad = True
        out[c, 0] = tp
        out[c, 1] = fp
        out[c, 2] = fn
        out[c, 3] = tn
        other[c] = neg
        has_other[c] = seen
        conflict[c] = bad
    return out, other, has_other, conflict


@numba.njit(cache=True, parallel=True)
def _binary_counts_range(expected: Any, predicted: Any, positive: Any, n_chunks: int) -> Any:
    # Branch-free pass: TP, true and predicted positives, and the label range.
    n = expected.size
    out = np.zeros((n_chunks, 5), dtype=np.int64)
    for c in prange(n_chunks):
        start = c * n // n_chunks
        stop = (c + 1) * n // n_chunks
        tp = 0
        n_true = 0
        n_pred = 0
        lo = np.int64(positive)
        hi = np.int64(positive)
        for i in range(start, stop):
            a = np.int64(expected[i])
            b = np.int64(predicted[i])
            e = np.int64(a == positive)
            p = np.int64(b == positive)
            tp += e & p
            n_true += e
            n_pred += p
            lo = min(lo, min(a, b))
            hi = max(hi, max(a, b))
        out[c, 0] = tp
        out[c, 1] = n_true
        out[c, 2] = n_pred
        out[c, 3] = lo
        out[c, 4] = hi
    return out


def binary_counts(expected: Any, predicted: Any, positive: int) -> tuple[np.ndarray, bool]:
    """Return ``([tp, fp, fn, tn], more_than_two_labels)`` for integer label vectors."""
    n = expected.size
    out = _binary_counts_range(expected, predicted, positive, _n_chunks(n))
    tp, n_true, n_pred = (int(v) for v in out[:, :3].sum(axis=0))
    lo, hi = int(out[:, 3].min()), int(out[:, 4].max())
    if hi - lo > 1:
        # Labels such as {-1, +1}: the range cannot prove there are only two; check exactly.
        _, other, has_other, conflict = _binary_counts(expected, predicted, positive, _n_chunks(n))
        too_many = bool(conflict.any()) or len(set(other[has_other].tolist())) > 1
    else:
        too_many = False
    fp = n_pred - tp
    fn = n_true - tp
    return np.array([tp, fp, fn, n - tp - fp - fn], dtype=np.int64), too_many


@numba.njit(cache=True, parallel=True)
def _confusion_counts(expected: Any, predicted: Any, k: int, n_chunks: int) -> Any:
    n = expected.size
    tables = np.zeros((n_chunks, k * k), dtype=np.int64)
    bad = np.zeros(n_chunks, dtype=np.int64)
    for c in prange(n_chunks):
        start = c * n // n_chunks
        stop = (c + 1) * n // n_chunks
        nbad = 0
        for i in range(start, stop):
            e = np.int64(expected[i])
            p = np.int64(predicted[i])
            if e < 0 or e >= k or p < 0 or p >= k:
                nbad += 1
            else:
                tables[c, e * k + p] += 1
        bad[c] = nbad
    total = tables[0].copy()
    for c in range(1, n_chunks):
        total += tables[c]
    return total.reshape((k, k)), bad.sum()


def confusion_counts(expected: Any, predicted: Any, k: int) -> tuple[np.ndarray, int]:
    """Return ``(k x k confusion matrix, number of labels outside 0..k-1)``."""
    return _confusion_counts(expected, predicted, k, _n_chunks(expected.size, k * k))


@numba.njit(cache=True, parallel=True)
def _multilabel_counts_dense(y_true: Any, y_pred: Any, n_chunks: int) -> Any:
    n, n_labels = y_true.shape
    tp = np.zeros((n_chunks, n_labels), dtype=np.int64)
    nt = np.zeros((n_chunks, n_labels), dtype=np.int64)
    npred = np.zeros((n_chunks, n_labels), dtype=np.int64)
    row_tp = np.zeros(n, dtype=np.int64)
    row_true = np.zeros(n, dtype=np.int64)
    row_pred = np.zeros(n, dtype=np.int64)
    bad = np.zeros(n_chunks, dtype=np.int64)
    for c in prange(n_chunks):
        start = c * n // n_chunks
        stop = (c + 1) * n // n_chunks
        nbad = 0
        for i in range(start, stop):
            rt = 0
            rtrue = 0
            rpred = 0
            for j in range(n_labels):
                t = np.int64(y_true[i, j])
                p = np.int64(y_pred[i, j])
                if (t != 0 and t != 1) or (p != 0 and p != 1):
                    nbad += 1
                    continue
                both = t & p
                tp[c, j] += both
                nt[c, j] += t
                npred[c, j] += p
                rt += both
                rtrue += t
                rpred += p
            row_tp[i] = rt
            row_true[i] = rtrue
            row_pred[i] = rpred
        bad[c] = nbad
    return tp.sum(axis=0), nt.sum(axis=0), npred.sum(axis=0), row_tp, row_true, row_pred, bad.sum()


def multilabel_counts_dense(y_true: Any, y_pred: Any) -> tuple[Any, ...]:
    """Per-label (tp, true, predicted), per-row (tp, true, predicted), and bad-value count."""
    return _multilabel_counts_dense(y_true, y_pred, _n_chunks(y_true.shape[0], y_true.shape[1]))


@numba.njit(cache=True, parallel=True)
def _multilabel_counts_csr(
    t_indptr: Any, t_indices: Any, p_indptr: Any, p_indices: Any, n_labels: int, n_chunks: int
) -> Any:
    n = t_indptr.size - 1
    tp = np.zeros((n_chunks, n_labels), dtype=np.int64)
    nt = np.zeros((n_chunks, n_labels), dtype=np.int64)
    npred = np.zeros((n_chunks, n_labels), dtype=np.int64)
    row_tp = np.zeros(n, dtype=np.int64)
    row_true = np.zeros(n, dtype=np.int64)
    row_pred = np.zeros(n, dtype=np.int64)
    for c in prange(n_chunks):
        start = c * n // n_chunks
        stop = (c + 1) * n // n_chunks
        for i in range(start, stop):
            a = t_indptr[i]
            a_end = t_indptr[i + 1]
            b = p_indptr[i]
            b_end = p_indptr[i + 1]
            row_true[i] = a_end - a
            row_pred[i] = b_end - b
            for q in range(a, a_end):
                nt[c, t_indices[q]] += 1
            for q in range(b, b_end):
                npred[c, p_indices[q]] += 1
            # Both index lists are sorted: a merge walk finds the intersection.
            rt = 0
            while a < a_end and b < b_end:
                ja = t_indices[a]
                jb = p_indices[b]
                if ja == jb:
                    tp[c, ja] += 1
                    rt += 1
                    a += 1
                    b += 1
                elif ja < jb:
                    a += 1
                else:
                    b += 1
            row_tp[i] = rt
    return tp.sum(axis=0), nt.sum(axis=0), npred.sum(axis=0), row_tp, row_true, row_pred


def multilabel_counts_csr(y_true: Any, y_pred: Any) -> tuple[Any, ...]:
    """As :func:`multilabel_counts_dense`, for CSR with sorted indices and 1-valued data."""
    n_labels = y_true.shape[1]
    return _multilabel_counts_csr(
        y_true.indptr,
        y_true.indices,
        y_pred.indptr,
        y_pred.indices,
        n_labels,
        _n_chunks(y_true.shape[0], n_labels),
    )


# Kernels that call a user's numba-jitted ``predict`` inside the loop. A function argument
# is part of the compiled signature, so each new ``predict`` compiles once per process.
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
