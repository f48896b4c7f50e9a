"""Weighted counting loops: each observation adds its sample weight instead of 1.

Float sums do not vectorize like the integer counts of the sibling kernels, so these are
plain loops, serial below ``SERIAL_BELOW`` entries and otherwise over a few chunks per
thread (through ``run_parallel``, like every parallel kernel here).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numpy.typing import NDArray

from fmacro.validation._kernels._common import (
    _PRANGE_ONLY,
    _n_chunks,
    _parallel,
    run_parallel,
)
from fmacro.validation.dispatch import kernel

__all__ = ["weighted_label_sums", "weighted_outcome_sums"]


@kernel(inline="always")
def _outcome_sums(e: Any, p: Any, w: Any, positive: Any) -> Any:
    # One add per sample into the slot of its outcome (2 * expected + predicted): a
    # single stream of additions instead of four multiply-adds.
    sums = np.zeros(4)
    for i in range(w.size):
        sums[2 * (e[i] == positive) + (p[i] == positive)] += w[i]
    return sums


@kernel(cache=True)
def _outcome_sums_serial(e: Any, p: Any, w: Any, positive: Any) -> Any:  # pragma: no cover
    return _outcome_sums(e, p, w, positive).reshape(1, 4)


@kernel(cache=True, parallel=_PRANGE_ONLY)
def _outcome_sums_parallel(
    e: Any, p: Any, w: Any, positive: Any, n_chunks: int
) -> Any:  # pragma: no cover - compiled
    n = w.size
    out = np.zeros((n_chunks, 4))
    for c in numba.prange(n_chunks):
        lo = c * n // n_chunks
        hi = (c + 1) * n // n_chunks
        out[c] = _outcome_sums(e[lo:hi], p[lo:hi], w[lo:hi], positive)
    return out


def weighted_outcome_sums(
    expected: Any, predicted: Any, weights: NDArray[np.float64], positive: Any
) -> NDArray[np.float64]:
    """Weight sums ``[tn, fp, fn, tp]``: slot ``2 * (e == positive) + (p == positive)``."""
    n = weights.size
    if _parallel(n, None):
        per_chunk = run_parallel(
            _outcome_sums_parallel, expected, predicted, weights, positive, _n_chunks(n)
        )
    else:
        per_chunk = _outcome_sums_serial(expected, predicted, weights, positive)
    return np.asarray(per_chunk.sum(axis=0))


@kernel(cache=True, parallel=_PRANGE_ONLY)
def _dense_label_sums(
    e: Any, p: Any, w: NDArray[np.float64], n_chunks: int
) -> NDArray[np.float64]:  # pragma: no cover - compiled
    """Per row chunk: weighted (tp, true, predicted) of every label, shape (chunks, 3, L).

    Indicator matrices are mostly zeros, so the branch on "either is set" is predictable
    and the adds are few.
    """
    n_rows, n_labels = e.shape
    out = np.zeros((n_chunks, 3, n_labels))
    for c in numba.prange(n_chunks):
        acc = out[c]
        for i in range(c * n_rows // n_chunks, (c + 1) * n_rows // n_chunks):
            wi = w[i]
            for j in range(n_labels):
                a = e[i, j] != 0
                b = p[i, j] != 0
                if a or b:
                    if a and b:
                        acc[0, j] += wi
                    if a:
                        acc[1, j] += wi
                    if b:
                        acc[2, j] += wi
    return out


def weighted_label_sums(
    expected: NDArray[Any], predicted: NDArray[Any], weights: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Per-label weight sums ``(tp, true, predicted)`` of two C-ordered 0/1 matrices."""
    # one chunk (no thread wake-ups) for small inputs; a parallel kernel either way, so
    # it goes through run_parallel
    chunks = (
        min(_n_chunks(expected.size), expected.shape[0]) if _parallel(expected.size, None) else 1
    )
    per_chunk = run_parallel(_dense_label_sums, expected, predicted, weights, chunks)
    tp, true, pred = per_chunk.sum(axis=0)
    return tp, true, pred
