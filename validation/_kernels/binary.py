"""Binary counting kernels: ``[tp, fp, fn, tn]`` of two integer label vectors."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import prange

from fmacro.validation._kernels._common import _PRANGE_ONLY, _n_chunks, _parallel, run_parallel
from fmacro.validation.dispatch import kernel

_INT64_MAX = np.int64(2**63 - 1)
_INT64_MIN = np.int64(-(2**63))


@kernel(inline="always")
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


@kernel(cache=True)
def _bin01_serial(expected: Any, predicted: Any) -> Any:
    out = np.zeros((1, 4), dtype=np.int64)
    tp, n_true, n_pred, acc = _bin01_body(expected, predicted)
    out[0, 0] = tp
    out[0, 1] = n_true
    out[0, 2] = n_pred
    out[0, 3] = acc
    return out


@kernel(cache=True, parallel=_PRANGE_ONLY)
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


@kernel(inline="always")
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


@kernel(cache=True)
def _bin_general_serial(expected: Any, predicted: Any, positive: Any) -> Any:
    out = np.zeros((1, 5), dtype=np.int64)
    tp, n_true, n_pred, neg_lo, neg_hi = _bin_general_body(expected, predicted, positive)
    out[0, 0] = tp
    out[0, 1] = n_true
    out[0, 2] = n_pred
    out[0, 3] = neg_lo
    out[0, 4] = neg_hi
    return out


@kernel(cache=True, parallel=_PRANGE_ONLY)
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
        out = run_parallel(_bin01_parallel, expected, predicted, _n_chunks(n))
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
        out = run_parallel(_bin_general_parallel, expected, predicted, positive, _n_chunks(n))
    else:
        out = _bin_general_serial(expected, predicted, positive)
    tp, n_true, n_pred = (int(v) for v in out[:, :3].sum(axis=0))
    # Two or more labels other than ``positive``: the smallest differs from the largest.
    too_many = int(out[:, 3].min()) < int(out[:, 4].max())
    return _counts_array(n, tp, n_true, n_pred), too_many
