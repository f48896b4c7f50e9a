"""Multiclass counting kernels: the k x k confusion matrix of two label vectors."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import prange

from fmacro.validation._kernels._common import (
    _LINE,
    _PRANGE_ONLY,
    SERIAL_BELOW,
    _int32_chunks,
    _n_chunks,
    run_parallel,
)
from fmacro.validation.dispatch import kernel


@kernel(inline="always")
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


@kernel(cache=True)
def _confusion_serial(expected: Any, predicted: Any, k: int) -> Any:
    table = np.zeros(k * k, dtype=np.int64)
    nbad = _confusion_body(expected, predicted, k, table)
    return table.reshape((k, k)), nbad


@kernel(cache=True, parallel=_PRANGE_ONLY)
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
    # The sum over the per-chunk tables reads and writes k*k cells per chunk: with
    # 1000 classes that is megabytes (milliseconds, serially), so it runs in parallel
    # too, a block of cells per task.
    total = np.empty(m, dtype=np.int64)
    n_blocks = max(1, min(64, m // 4096))
    for b in prange(n_blocks):
        lo = b * m // n_blocks
        hi = (b + 1) * m // n_blocks
        for j in range(lo, hi):
            total[j] = tables[0, j]
        for c in range(1, n_chunks):
            for j in range(lo, hi):
                total[j] += tables[c, j]
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
        table, n_bad = run_parallel(_confusion_parallel, expected, predicted, k, n_chunks)
    return table, int(n_bad)
