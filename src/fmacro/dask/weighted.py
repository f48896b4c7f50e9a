"""Weighted ``tune`` on a dask cluster: every weighted cut on the workers, the solve on the client.

In memory, weighted :func:`fmacro.optimize.tune` takes the every-cut path: the weighted
points of every class (:func:`~fmacro.optimize.search.points.class_points_checked` with
the weights), smoothed and searched on all their cuts. A class's weighted points depend
only on its own column and on the weights, so each worker builds the points of its
column block (a block holds whole rows; every task gets the one vector of weights) and
the client puts them back in column order: the same :class:`ClassPoints` as in memory,
array for array. The client then runs the in-memory solve on them; the empty classes
(without tuning positives) read a copy of just their columns
(:class:`CopiedDaskColumns`), never the whole array. The result is the in-memory
weighted ``tune``'s, bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.dask._checks import check_unread_scores, computed_sample_weight, is_dask_array
from fmacro.dask._imports import import_dask
from fmacro.dask.blocks import block_tasks, column_order, concat_ptr, has_positive, segments
from fmacro.optimize.search.points import ClassPoints, class_points_checked
from fmacro.optimize.search.result import ThresholdResult
from fmacro.optimize.tuning.columns import CopiedColumns
from fmacro.optimize.tuning.hulls import WalkedHulls
from fmacro.optimize.tuning.problem import Problem
from fmacro.optimize.tuning.screen import Screened, ScreenPlan
from fmacro.optimize.tuning.settings import TuneSettings
from fmacro.optimize.tuning.smoothing import check_n_eval
from fmacro.optimize.tuning.solve import solve

__all__ = ["CopiedDaskColumns", "merge_points", "weighted_tune"]


@attrs.frozen(eq=False)
class _Job:
    """What every worker needs: the checked weights (one per row) and zero_division."""

    weights: NDArray[np.float64]
    zero_division: float


def _points_array(
    scores: Any, labels: Any, first: int, job: _Job
) -> tuple[NDArray[np.int64], ClassPoints | None]:
    """Worker side: the weighted points of one column block, with the block's columns."""
    columns = np.arange(first, first + scores.shape[1], dtype=np.int64)
    if not has_positive(labels):
        # no class is kept here; the scores are still checked, as in memory
        check_unread_scores(scores, columns)
        return columns, None
    pts = class_points_checked(scores, labels, job.zero_division, sample_weight=job.weights)
    return columns, pts


def _points_rows(frame: Any, spec: Any, job: _Job) -> Any:
    raise AssertionError("weighted tune takes a dask array of scores, not rows")


def merge_points(
    blocks: Sequence[tuple[NDArray[np.int64], ClassPoints | None]],
    n_samples: float,
    n_columns: int,
    zero_division: float,
) -> ClassPoints:
    """The workers' weighted points in column order, as one :class:`ClassPoints`
    (``n_samples``: the total weight)."""
    found = [(cols, p) for cols, p in blocks if p is not None and p.n_classes]
    columns = np.concatenate(
        [np.zeros(0, np.int64), *(cols[np.asarray(p.class_index)] for cols, p in found)]
    )
    order = column_order(columns)
    indptr, at = segments(concat_ptr([np.asarray(p.indptr) for _, p in found]), order)

    def cat(name: str) -> NDArray[Any]:
        return np.concatenate([np.asarray(getattr(p, name)) for _, p in found])

    return ClassPoints(
        indptr,
        cat("tp")[at],
        cat("fp")[at],
        cat("threshold")[at],
        cat("support")[order],
        columns[order],
        n_samples,
        n_columns,
        zero_division,
    )


@attrs.frozen(eq=False)
class CopiedDaskColumns:
    """:class:`~fmacro.optimize.tuning.columns.CopiedColumns` of a dask array of scores:
    each pass computes a copy of just the columns it reads (the empty classes')."""

    scores: Any  # the dask array
    weights: NDArray[np.float64]
    scheduler: Any = None

    def _copied(self, columns: NDArray[np.int64]) -> CopiedColumns:
        part = self.scores[:, columns].compute(scheduler=self.scheduler)
        return CopiedColumns(part, self.weights)

    def walked_hulls(
        self, priors: Sequence[float], settings: TuneSettings, *, second: bool
    ) -> WalkedHulls:
        raise TypeError("copied columns are searched on every cut, not walked")

    def screened_cuts(self, plan: ScreenPlan, columns: NDArray[np.int64]) -> Screened:
        raise TypeError("copied columns are searched on every cut, not walked")

    def empty_thresholds(
        self,
        columns: NDArray[np.int64],
        centres: NDArray[np.float64],
        priors: Sequence[float],
        phis: Sequence[float],
        settings: TuneSettings,
    ) -> NDArray[np.float64]:
        local = np.arange(columns.size, dtype=np.int64)
        return self._copied(columns).empty_thresholds(local, centres, priors, phis, settings)

    def empty_predicted(
        self, columns: NDArray[np.int64], thresholds: NDArray[np.float64]
    ) -> NDArray[Any] | None:
        local = np.arange(columns.size, dtype=np.int64)
        return self._copied(columns).empty_predicted(local, thresholds)


def weighted_tune(
    scores: Any,
    labels: Any,
    sample_weight: Any,
    options: tuple[Any, ...],
    shape: tuple[int, int],
    scheduler: Any = None,
) -> ThresholdResult:
    """``tune`` of a dask array of ``scores`` (with its ``labels``, of ``shape``) weighted
    by ``sample_weight``, its checked ``options`` being (beta, zero_division, prior,
    n_eval or None, unseen, base_rates or None): the weighted points built on the
    workers, the solve on the client."""
    if not is_dask_array(scores):
        raise TypeError(
            "sample_weight needs a dask array of scores (one row per object) with its "
            "labels, not a DataFrame of (object, class, score, label) rows: make the rows "
            "a dask array, or repeat the rows of integer weights"
        )
    beta, zd, prior, n_eval, unseen, base_rates = options
    n_obj, n_cols = shape
    weights = computed_sample_weight(sample_weight, n_obj, scheduler)
    # the default batch: the rows' total weight, as in memory
    n = check_n_eval(n_eval, float(weights.sum()))
    settings = TuneSettings(beta, zd, n, "fixed_point", unseen, base_rates)
    dask = import_dask()
    delayed, _, _ = block_tasks(
        scores,
        labels,
        (_points_array, _points_rows),
        # one graph node: the weights travel once, not once per block
        dask.delayed(_Job(weights, zd), traverse=False),
        n_samples=n_obj,
        n_classes=n_cols,
        scheduler=scheduler,
    )
    blocks = dask.compute(*delayed, scheduler=scheduler)
    # the total weight as class_points sums it (each block sums the same weights)
    totals = [p.n_samples for _, p in blocks if p is not None]
    total = totals[0] if totals else float(weights.sum())
    raw = merge_points(blocks, total, n_cols, zd)
    columns = CopiedDaskColumns(scores, weights, scheduler)
    return solve(Problem.from_points(raw, settings, columns), prior, {})
