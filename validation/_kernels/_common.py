"""Shared settings of the counting kernels: parallel options, chunking, result type.

Kernels in the sibling modules read ``_PRANGE_ONLY`` and ``_LINE`` at compile time, and
numba's on-disk cache (``cache=True``) is invalidated only by edits to a kernel's own
file: after changing a value here, delete ``validation/_kernels/__pycache__``.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any, NamedTuple

import numba
import numpy as np
from numba.core.cpu_options import ParallelOptions

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


# -- fork safety -------------------------------------------------------------------
#
# numba's default threading layer on Linux is GNU OpenMP, which cannot survive fork():
# a child forked after any parallel kernel ran (ProcessPoolExecutor's default start
# method before Python 3.14) is terminated, and the pool breaks. fmacro therefore asks
# numba for a fork-safe layer ("forksafe": tbb if installed, else a non-GNU OpenMP,
# else numba's own workqueue) unless the user chose one (NUMBA_THREADING_LAYER, or
# numba.config.THREADING_LAYER set before the first parallel call). The choice only
# takes effect if no parallel numba code ran in the process before.
#
# workqueue is not thread-safe (numba aborts when two threads launch parallel work at
# once), so fmacro's parallel kernels run one at a time, under a process-wide lock;
# each already uses every core, so two at once would not finish sooner.

#: The layer fmacro asks numba for when the user has not chosen one.
DEFAULT_THREADING_LAYER = "forksafe"

_PARALLEL_LOCK = threading.Lock()


def _new_lock_in_child() -> None:
    # A fork while another thread held the lock would leave it held forever in the child.
    global _PARALLEL_LOCK
    _PARALLEL_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock_in_child)


def choose_threading_layer() -> str:
    """Ask numba for a fork-safe threading layer unless the user chose one; return the choice.

    Has no effect once numba's threads have started in this process.
    """
    config: Any = numba.config
    if "NUMBA_THREADING_LAYER" not in os.environ and config.THREADING_LAYER == "default":
        config.THREADING_LAYER = DEFAULT_THREADING_LAYER
    return str(config.THREADING_LAYER)


choose_threading_layer()


def run_parallel(kernel: Callable[..., Any], *args: Any) -> Any:
    """Call a parallel kernel: fork-safe layer, one parallel kernel at a time per process."""
    choose_threading_layer()
    with _PARALLEL_LOCK:
        return kernel(*args)


def _n_chunks(n: int, table_size: int = 1) -> int:
    choose_threading_layer()  # get_num_threads() starts numba's threads
    threads = numba.get_num_threads()
    # Large per-chunk tables (many classes) cost memory; one chunk per thread then.
    per_thread = 1 if table_size > 4096 else _CHUNKS_PER_THREAD
    return max(1, min(n, threads * per_thread))


def _int32_chunks(n: int, n_chunks: int) -> int:
    """Enough chunks that none holds more than 2**31 - 1 items (int32 tables stay exact)."""
    return max(n_chunks, -(-n // _INT32_MAX))


def _parallel(size: int, parallel: bool | None) -> bool:
    return size >= SERIAL_BELOW if parallel is None else parallel


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
