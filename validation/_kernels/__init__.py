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

Fork safety
-----------
A process forked after a GNU OpenMP parallel region is killed, so ``_common`` asks numba
for the ``forksafe`` threading layer (tbb, else workqueue) before the first parallel call,
unless the user chose a layer (``NUMBA_THREADING_LAYER`` or ``numba.config``). workqueue is
not thread-safe: every parallel kernel is called through ``run_parallel``, which holds a
process-wide lock (re-created in a forked child). ``OMP_WAIT_POLICY`` then matters only
when the user picks OpenMP.

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
for the parallel SWAR kernel on a loaded machine); the machine code is cached on disk
(``cache=True``), so later processes load it in milliseconds. Every kernel is declared
with ``dispatch.kernel`` instead of ``numba.njit``: where the disk cache does not have
it yet, a kernel runs interpreted (the same source, the same results bit for bit) while
that costs less than compiling it, so small inputs never wait for the compiler
(``FMACRO_KERNELS=compiled|interpreted`` forces a path).
"""

from __future__ import annotations

import os

# Before numba starts its OpenMP threads (they start on the first parallel call): spinning
# idle OpenMP threads on a shared machine make every parallel call wait for a scheduler
# slice. setdefault keeps a value the user chose.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from fmacro.validation._kernels._common import SERIAL_BELOW, MultiLabelCounts
from fmacro.validation._kernels.binary import binary_counts
from fmacro.validation._kernels.multiclass import confusion_counts
from fmacro.validation._kernels.multilabel_csr import multilabel_counts_csr
from fmacro.validation._kernels.multilabel_dense import multilabel_counts_dense
from fmacro.validation._kernels.predict import (
    binary_counts_predict,
    confusion_counts_predict,
    multilabel_counts_predict,
)
from fmacro.validation._kernels.weighted import weighted_label_sums, weighted_outcome_sums

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
    "weighted_label_sums",
    "weighted_outcome_sums",
]
