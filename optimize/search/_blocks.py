"""Dense score matrices walked a block of columns at a time (private).

``per_class`` and ``class_points`` both need, for each class, its scores sorted and its
labels, without a float64 copy or a full ``np.sort(axis=0)`` copy of the matrix. Here a
block of columns is transposed (each class contiguous: sorting contiguous rows is several
times faster than sorting along axis 0), sorted in the scores' own dtype (float32 stays
float32) and handed to a nogil kernel; blocks run on one thread per core (``np.sort`` and
the kernels release the GIL).

Extra memory: per running thread, the transposed block, its sorted copy and its labels
(a block holds at most 2**21 entries, 16 MB of float64, and at most a sixth of the
input divided by the number of threads, so that the threads together hold at most half
the input's size; but up to 2**16 entries, 512 KB of float64, whatever the input: on
small inputs the per-block work in Python would otherwise cost more than the walk),
plus the kernels' outputs.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import numba
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.inputs import as_binary_labels
from fmacro.optimize.offsets import indptr_from_counts
from fmacro.validation.checks import as_float_array, check_exact_in_float64, is_sparse
from fmacro.validation.dispatch import kernel
from fmacro.validation.labels import numpy_from_pandas

__all__ = [
    "check_dense_scores",
    "column_blocks",
    "dense_labels",
    "dense_scores",
    "label_sizes",
    "map_blocks",
    "run_beside",
    "sorted_positives",
]

_T = TypeVar("_T")
_U = TypeVar("_U")
_MAX_BLOCK = 1 << 21  # entries per block: 16 MB of float64
_MIN_BLOCK = 1 << 16  # blocks may always be this large: 512 KB of float64


@kernel(cache=True, nogil=True)
def sorted_positives(
    scores: NDArray[np.floating], labels: NDArray[np.bool_]
) -> NDArray[np.float64]:
    """Scores (as float64) of one class's positives, ascending."""
    m = 0
    for i in range(labels.size):
        if labels[i]:
            m += 1
    pos = np.empty(m, dtype=np.float64)
    c = 0
    for i in range(labels.size):
        if labels[i]:
            pos[c] = scores[i]
            c += 1
    pos.sort()
    return pos


def dense_scores(scores: Any) -> NDArray[Any]:
    """Dense scores without a copy when possible.

    float32/float64 and integer arrays are returned as they are (integers are checked
    against float64 rounding and converted a block at a time); anything else is read
    once as a checked float64 array. pandas nullable or pyarrow numbers are read as the
    numpy dtype they hold first (as integers, they are then checked as integers are), a
    missing entry refused with its position.
    """
    if not isinstance(scores, np.ndarray):
        scores = numpy_from_pandas(scores, name="scores", what="score")
    arr = scores if isinstance(scores, np.ndarray) else np.asarray(scores)
    if arr.dtype in (np.float32, np.float64) or arr.dtype.kind in "iu":
        if arr.ndim != 2:
            raise ValueError(f"scores must be 2-dimensional, got shape {arr.shape}")
        return arr
    return as_float_array(arr, "scores", ndim=2)


def dense_labels(labels: Any) -> Any:
    """Bool labels as they are, sparse labels as a checked CSC matrix; others to bool once."""
    if isinstance(labels, np.ndarray) and labels.dtype == np.bool_:
        return labels
    if is_sparse(labels):
        csc = labels.tocsc(copy=True)
        csc.sum_duplicates()
        as_binary_labels(np.asarray(csc.data), "labels")
        csc.eliminate_zeros()
        return csc
    return as_binary_labels(labels, "labels")


def label_sizes(y: Any) -> NDArray[np.int64]:
    """Positives per column of :func:`dense_labels`' result."""
    counts = np.diff(y.indptr) if is_sparse(y) else np.count_nonzero(y, axis=0)
    return np.asarray(counts, dtype=np.int64)


def column_blocks(n_obj: int, n_cols: int) -> list[slice]:
    """Consecutive blocks of columns: at most 2**21 entries, and at most a sixth of the
    matrix per thread (a running block holds up to three block-sized arrays) unless that
    is under 2**16 entries; one column at least."""
    threads = max(1, numba.get_num_threads())
    entries = min(_MAX_BLOCK, max(n_obj, _MIN_BLOCK, (n_obj * n_cols) // (6 * threads)))
    width = max(1, min(n_cols, entries // max(n_obj, 1)))
    return [slice(a, min(a + width, n_cols)) for a in range(0, n_cols, width)]


def _part(x: Any, blk: slice, rows: Any, keep: NDArray[np.bool_] | None = None) -> Any:
    """Block ``blk`` of ``x`` (dense or sparse), of the objects ``rows`` (default all),
    its columns ``keep`` only when given."""
    if rows is None:
        part = x[:, blk]
    elif is_sparse(x):
        part = x[:, blk][rows]
    else:
        part = x[rows, blk]  # rows first, then columns: 5x faster than np.ix_ here
    return part if keep is None else part[:, keep]


def _transposed(
    s: NDArray[Any], blk: slice, rows: Any = None, keep: NDArray[np.bool_] | None = None
) -> NDArray[Any]:
    """Block ``blk`` of the scores (of the objects ``rows``, default all; its columns
    ``keep`` when given), one class per row, float32 or float64."""
    u = np.ascontiguousarray(_part(s, blk, rows, keep).T)
    if u.dtype.kind in "iu":
        check_exact_in_float64(u, "scores")
        u = u.astype(np.float64)
    return u


def _label_block(
    y: Any, blk: slice, rows: Any = None, keep: NDArray[np.bool_] | None = None
) -> NDArray[np.bool_]:
    part = _part(y, blk, rows, keep)
    if is_sparse(part):
        return np.ascontiguousarray(part.toarray().T, dtype=np.bool_)
    return np.ascontiguousarray(part.T)


def _refuse_non_finite(u: NDArray[Any], blk: slice) -> None:
    bad = int(u.size - np.count_nonzero(np.isfinite(u)))
    raise ValueError(
        f"scores contains {bad} NaN or infinite value(s) in columns {blk.start}-{blk.stop - 1}"
    )


def map_blocks(
    s: NDArray[Any],
    y: Any,
    columns: NDArray[np.int64],
    kernel: Callable[[NDArray[Any], NDArray[np.bool_], NDArray[Any], int], _T],
    rows: NDArray[np.int64] | None = None,
) -> Sequence[_T]:
    """``kernel(scores, labels, sorted_scores, first)`` on each block of ``columns``, in order.

    ``columns`` are increasing. Each array has one row per class of the block: its
    scores over the objects (``rows`` only, when given: a subset walked without copying
    the whole of it), its bool labels, and its scores ascending; row ``i`` is
    ``columns[first + i]``. NaN or infinite scores are refused in every column,
    ``columns`` or not; except with ``rows``, where only ``columns`` are read (the
    caller has checked the whole input: a subset's walks are the inner fits of
    ``tune(prior="cv")``).
    """
    kept = np.zeros(s.shape[1], dtype=bool)
    kept[columns] = True
    kept_before = indptr_from_counts(kept)

    def run(blk: slice) -> _T:
        sel = kept[blk]
        if rows is not None:
            u, yb = _transposed(s, blk, rows, sel), _label_block(y, blk, rows, sel)
        else:
            u, yb = _transposed(s, blk), _label_block(y, blk)
        if rows is None and not sel.all():
            # consecutive blocks read fast: the columns left out are dropped after
            if not np.isfinite(u[~sel]).all():
                _refuse_non_finite(u[~sel], blk)
            u, yb = u[sel], yb[sel]
        srt = np.sort(u, axis=1)
        # Sorted ascending, NaN last: a non-finite value sits at one of the two ends.
        if srt.size and not np.isfinite(srt[:, [0, -1]]).all():
            _refuse_non_finite(u, blk)
        return kernel(u, yb, srt, int(kept_before[blk.start]))

    n_obj = int(s.shape[0]) if rows is None else int(rows.size)
    blocks = column_blocks(n_obj, int(s.shape[1]))
    workers = min(len(blocks), numba.get_num_threads())
    if workers > 1:
        return _run_shared(run, blocks, workers)
    return [run(blk) for blk in blocks]


_POOL: tuple[int, ThreadPoolExecutor] | None = None  # (owning process id, pool)
_POOL_LOCK = threading.Lock()


def _forget_pool() -> None:
    """In a forked child: neither the parent's threads nor a lock they held exist."""
    global _POOL, _POOL_LOCK
    _POOL = None
    _POOL_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def _pool() -> ThreadPoolExecutor:
    """One pool of helper threads per process, started on first use.

    Starting threads costs about a millisecond here, as much as the whole walk of a
    500 x 374 matrix; the pool is kept. A forked child gets a pool of its own (the
    parent's threads do not exist in it).
    """
    global _POOL
    with _POOL_LOCK:
        if _POOL is None or _POOL[0] != os.getpid():
            size = max(1, (os.cpu_count() or 1) - 1)
            _POOL = (os.getpid(), ThreadPoolExecutor(size, thread_name_prefix="fmacro-blocks"))
        return _POOL[1]


def _run_shared(run: Callable[[slice], _T], blocks: list[slice], workers: int) -> list[_T]:
    """``run`` on every block by the calling thread and ``workers - 1`` pool threads.

    Blocks are taken one at a time from a shared counter; after a failure no new block
    starts, and the first error is raised once every thread has stopped. The caller never
    waits for a helper that has not started, so calls from inside the pool cannot
    deadlock.
    """
    results: list[Any] = [None] * len(blocks)
    lock = threading.Lock()
    state = {"next": 0, "failed": False}

    def work() -> None:
        while True:
            with lock:
                i = state["next"]
                if state["failed"] or i >= len(blocks):
                    return
                state["next"] = i + 1
            try:
                results[i] = run(blocks[i])
            except BaseException:
                state["failed"] = True
                raise

    helpers = [_pool().submit(work) for _ in range(workers - 1)]
    error: BaseException | None = None
    try:
        work()
    except BaseException as exc:  # wait for the helpers before raising
        error = exc
    for fut in helpers:
        # a helper still queued (the pool busy, e.g. with callers of map_blocks running
        # in the pool's own threads) is not waited for: every block is done
        if fut.cancel():
            continue
        failure = fut.exception()
        if error is None and failure is not None:
            error = failure
    if error is not None:
        raise error
    return results


def run_beside(other: Callable[[], _T], here: Callable[[], _U]) -> tuple[_T, _U]:
    """(``other()``, ``here()``): ``other`` in a pool thread while ``here`` runs in the
    calling thread; in the calling thread after it when no pool thread took it by then
    (the caller never waits for a queued task). Each raises as it would alone; when
    ``here`` raises, ``other`` is cancelled or waited for first."""
    pending = _pool().submit(other)
    try:
        mine = here()
    except BaseException:
        if not pending.cancel():
            pending.exception()  # let it finish before the error leaves
        raise
    if pending.cancel():
        return other(), mine
    return pending.result(), mine


def check_dense_scores(s: NDArray[Any]) -> None:
    """Refuse NaN/inf (and integers float64 would round), block by block: no float64 copy."""
    for blk in column_blocks(int(s.shape[0]), int(s.shape[1])):
        u = _transposed(s, blk)
        if not np.isfinite(u).all():
            _refuse_non_finite(u, blk)
