"""fmacro on a dask cluster: evaluation and threshold search beyond one machine.

Counts are a monoid, so evaluation is a map (count each chunk on the workers with
fmacro's kernels) and a reduce (add the counts in a tree); class points need only their
own class's column, so each worker reduces its columns to their hull vertices and cut
tables (for :func:`tune`, the hull vertices of their smoothed points), and only those
travel to the client, where the sweep and the certificate run.

Needs dask (``pip install "fmacro[dask]"``); imported on first use. Computations run on
dask's current scheduler: a ``dask.distributed.Client`` once one is created (locally, or
``Client("tcp://scheduler:8786")`` for a real cluster), otherwise dask's local threads.
``fmacro.crossval.cross_validate(..., map=client)`` runs folds on a cluster too.
"""

from __future__ import annotations

from fmacro.dask._imports import import_dask

import_dask()

from fmacro.dask.evaluate import evaluate, find_classes  # noqa: E402
from fmacro.dask.thresholds import (  # noqa: E402
    HullBlock,
    domain,
    fixed_point,
    global_threshold,
    per_class,
    reduced_sweep,
)
from fmacro.dask.tune import TuneBlock, tune  # noqa: E402

__all__ = [
    "HullBlock",
    "TuneBlock",
    "domain",
    "evaluate",
    "find_classes",
    "fixed_point",
    "global_threshold",
    "per_class",
    "reduced_sweep",
    "tune",
]
