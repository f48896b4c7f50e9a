"""``tune`` on a dask cluster: the smoothed hull vertices on the workers, the sweep on the client.

A class's smoothed points depend on its own column and on numbers every worker knows:
the pseudo-count a, the number of rows N, the evaluation batch size and the class's prior
centre (its own rate m_k / N, or a given base rate). So each worker walks its columns
once, as :func:`fmacro.optimize.tune` does in memory, and sends only each class's hull
vertices (raw counts, threshold and cut number: a few per class) and its second layer.
The client smooths these and runs the linearization. Where it ends on an edge, the
exact step needs, for some classes, the cuts besides the hull vertices that can pass its
first reduction: the client sends the floors, the workers walk just those classes' columns
again and send those cuts, and the exact step runs on the client. The result is the
in-memory ``tune``'s, bit for bit.

The empty classes (without tuning positives) take ``tune``'s rule at the solution's
angle. With its defaults (zero_division 0, own rates: prior centre 0) the rule predicts
every object without reading a score; with given base rates or another zero_division, the
workers read those classes' columns once more in a second pass. :class:`WorkerColumns` is
the workers' implementation of the seam :class:`~fmacro.optimize.tuning.columns.Columns`,
so the client runs the in-memory solve (:mod:`fmacro.optimize.tuning.solve`) unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import numpy as np
from numpy.typing import ArrayLike, NDArray

from fmacro.dask._checks import ROW_COLUMNS, RowSpec, check_unread_scores, partition_columns
from fmacro.dask._imports import import_dask
from fmacro.dask.blocks import (
    block_tasks,
    column_order,
    concat_ptr,
    has_positive,
    input_shape,
    positions_in,
    segments,
    wide_frames,
)
from fmacro.dask.weighted import weighted_tune
from fmacro.optimize.deployment import warns_predict_everything
from fmacro.optimize.offsets import indptr_from_counts
from fmacro.optimize.search.result import ThresholdResult
from fmacro.optimize.tuning.empty import empty_thresholds
from fmacro.optimize.tuning.hulls import WalkedHulls, smoothed_hull_at, walked_hulls
from fmacro.optimize.tuning.problem import Problem
from fmacro.optimize.tuning.screen import (
    Screened,
    ScreenPlan,
    screened_cuts,
)
from fmacro.optimize.tuning.settings import EMPTY_CLASS_RULES, TuneSettings
from fmacro.optimize.tuning.smoothing import (
    check_base_rates,
    check_n_eval,
    check_pseudo_count,
)
from fmacro.optimize.tuning.solve import solve
from fmacro.optimize.tuning.source import walk_inputs
from fmacro.validation.checks import check_beta, check_zero_division
from fmacro.validation.counts import frozen_array

__all__ = ["TuneBlock", "WorkerColumns", "tune"]


@attrs.frozen(eq=False)
class _Settings:
    prior: float
    n_eval: float | None  # None: the number of rows, which every block holds
    zero_division: float
    base_rates: NDArray[np.float64] | None  # per column, or None = the own rates
    phi: float = math.nan  # the solution's angle (second pass only)


@attrs.frozen(eq=False)
class TuneBlock:
    """What one worker sends back: its kept classes' smoothed-hull vertices, as raw cuts.

    CSR-like, one segment per class with a tuning positive (``columns``, increasing
    within the block): ``tp``, ``fp``, ``threshold`` and ``number`` (the cut's number in
    the class's full ranking) of each vertex, with the class's ``support`` and prior
    ``centre``.
    """

    columns: NDArray[np.int64] = attrs.field(converter=frozen_array)
    support: NDArray[np.int64] = attrs.field(converter=frozen_array)
    centre: NDArray[np.float64] = attrs.field(converter=frozen_array)
    indptr: NDArray[np.int64] = attrs.field(converter=frozen_array)
    tp: NDArray[np.int64] = attrs.field(converter=frozen_array)
    fp: NDArray[np.int64] = attrs.field(converter=frozen_array)
    threshold: NDArray[np.float64] = attrs.field(converter=frozen_array)
    number: NDArray[np.int64] = attrs.field(converter=frozen_array)
    # each class's second layer (p~, r~ of the upper-right chain of its other cuts):
    # what lets an edge's second walk leave out classes
    chain_indptr: NDArray[np.int64] = attrs.field(converter=frozen_array)
    chain_p: NDArray[np.float64] = attrs.field(converter=frozen_array)
    chain_r: NDArray[np.float64] = attrs.field(converter=frozen_array)

    @property
    def n_classes(self) -> int:
        return int(self.columns.shape[0])

    @classmethod
    def empty(cls) -> TuneBlock:
        z, one, f = np.zeros(0, np.int64), np.zeros(1, np.int64), np.zeros(0)
        return cls(z, z, f, one, z, z, f, z, one, f, f)


def _n_eval(s: _Settings, n_obj: int) -> float:
    return float(n_obj) if s.n_eval is None else s.n_eval


def _walk(scores: Any, labels: Any, columns: NDArray[np.int64], s: _Settings) -> TuneBlock:
    """Worker side: one walk of the block's columns, keeping the smoothed hull vertices."""
    if not has_positive(labels):
        check_unread_scores(scores, columns)  # as tune checks every column in memory
        return TuneBlock.empty()
    inputs = walk_inputs(scores, labels)
    walked = walked_hulls(
        inputs,
        (s.prior,),
        n_eval=_n_eval(s, inputs.n_obj),
        zero_division=s.zero_division,
        base_rates=None if s.base_rates is None else s.base_rates[columns],
        second=True,
    )
    if walked.second is None:
        raise AssertionError("the walk was asked for the second layers")
    indptr, tp, fp, threshold, number = walked.cuts[0]
    chain_indptr, chain_p, chain_r = walked.second
    return TuneBlock(
        columns[walked.columns],
        walked.support,
        walked.centres,
        indptr,
        tp,
        fp,
        threshold,
        number,
        chain_indptr,
        chain_p,
        chain_r,
    )


@attrs.frozen(eq=False)
class _Empty:
    """What the workers need for the rule's pass: the settings at one (prior, angle) pair,
    and the columns of the empty classes with their prior centres."""

    settings: _Settings
    columns: NDArray[np.int64]  # increasing
    centres: NDArray[np.float64]


def _empty(scores: Any, labels: Any, columns: NDArray[np.int64], job: _Empty) -> Any:
    """Worker side, the rule's pass: the thresholds of the block's empty classes, with
    their numbers among the job's columns."""
    at = positions_in(job.columns, columns)
    local = np.flatnonzero(at >= 0).astype(np.int64)
    if local.size == 0:
        return None
    s = job.settings
    inputs = walk_inputs(scores, labels)
    found = empty_thresholds(
        inputs,
        local,
        job.centres[at[local]],
        pseudo_counts=(s.prior,),
        n_eval=_n_eval(s, inputs.n_obj),
        zero_division=s.zero_division,
        phis=(s.phi,),
    )
    return at[local], found[0]


@attrs.frozen(eq=False)
class _Screen:
    """What the workers need for an edge's second walk: the plan and its classes' columns."""

    plan: ScreenPlan
    columns: NDArray[np.int64]  # column of each needed class, increasing


def _screen(scores: Any, labels: Any, columns: NDArray[np.int64], job: _Screen) -> Any:
    """Worker side, at an edge: the screened cuts of the block's needed classes, with
    their numbers among the plan's needed classes."""
    at = positions_in(job.columns, columns)
    local = np.flatnonzero(at >= 0).astype(np.int64)
    if local.size == 0:
        return None
    return at[local], screened_cuts(walk_inputs(scores, labels), local, job.plan, at[local])


def _block_columns(first: int, scores: Any) -> NDArray[np.int64]:
    return np.arange(first, first + scores.shape[1], dtype=np.int64)


def _walk_array(scores: Any, labels: Any, first: int, s: _Settings) -> TuneBlock:
    return _walk(scores, labels, _block_columns(first, scores), s)


def _empty_array(scores: Any, labels: Any, first: int, job: _Empty) -> Any:
    return _empty(scores, labels, _block_columns(first, scores), job)


def _screen_array(scores: Any, labels: Any, first: int, job: _Screen) -> Any:
    return _screen(scores, labels, _block_columns(first, scores), job)


def _screen_rows(frame: Any, spec: RowSpec, job: _Screen) -> Any:
    if len(frame) == 0:
        return None
    return _screen(*partition_columns(frame, spec), job)


def _walk_rows(frame: Any, spec: RowSpec, s: _Settings) -> TuneBlock:
    if len(frame) == 0:
        return TuneBlock.empty()
    return _walk(*partition_columns(frame, spec), s)


def _empty_rows(frame: Any, spec: RowSpec, job: _Empty) -> Any:
    if len(frame) == 0:
        return None
    return _empty(*partition_columns(frame, spec), job)


def merge_walks(blocks: Sequence[TuneBlock], n_samples: int, n_columns: int) -> WalkedHulls:
    """The workers' blocks in column order, as one walk's hull cuts."""
    blocks = [b for b in blocks if b.n_classes]
    columns = np.concatenate([np.zeros(0, np.int64), *(b.columns for b in blocks)])
    order = column_order(columns)
    indptr, at = segments(concat_ptr([b.indptr for b in blocks]), order)

    def cat(name: str) -> NDArray[Any]:
        return np.concatenate([getattr(b, name) for b in blocks])

    cuts = (indptr, cat("tp")[at], cat("fp")[at], cat("threshold")[at], cat("number")[at])
    chain_ptr, chain_at = segments(concat_ptr([b.chain_indptr for b in blocks]), order)
    second = (chain_ptr, cat("chain_p")[chain_at], cat("chain_r")[chain_at])
    return WalkedHulls(
        n_samples,
        n_columns,
        columns[order],
        cat("support")[order],
        cat("centre")[order],
        [cuts],
        second,
    )


@warns_predict_everything
@wide_frames
def tune(
    scores: Any,
    labels: Any = None,
    *,
    beta: float = 1.0,
    zero_division: float = 0.0,
    prior: float = 3.0,
    base_rates: ArrayLike | None = None,
    n_eval: float | None = None,
    unseen: str = "prior",
    columns: Sequence[str] = ROW_COLUMNS,
    n_samples: int | None = None,
    n_classes: int | None = None,
    scheduler: Any = None,
    sample_weight: Any = None,
) -> ThresholdResult:
    """:func:`fmacro.optimize.tune` with each class's smoothed hull computed on the workers.

    Parameters
    ----------
    scores, labels, columns, n_samples, n_classes, scheduler
        As for :func:`fmacro.dask.fixed_point`: a dask array of scores chunked by columns
        with its 0/1 labels, or a dask DataFrame of ``(object, class, score, label)`` rows.
    beta, zero_division, prior, base_rates, n_eval, unseen
        As for :func:`fmacro.optimize.tune`; ``prior`` is a number >= 0 (``"cv"``
        splits the rows, which the column blocks do not allow: choose a in memory on a
        sample, or pass the default 3).
    sample_weight
        One non-negative weight per row of a dask array of scores (a dask or numpy
        vector), or ``None``; as for :func:`fmacro.optimize.tune`, whose result it gives
        bit for bit (integer weights: the rows repeated). The weights are computed on
        the client and sent once to every worker, which builds the weighted points of
        its columns; the client solves on every cut (``searched_cuts == "every cut"``),
        reading only the empty classes' columns again (:mod:`fmacro.dask.weighted`).
        Not with a DataFrame of rows (their objects have no row order to weight).

    Returns
    -------
    ThresholdResult
        The in-memory ``tune``'s result (same thresholds, cuts, F and diagnostics): the
        proven optimum of the smoothed objective. ``diagnostics["searched_cuts"]`` says
        whether the search ended at a fixed point (``"hull"``: one pass over the data)
        or on an edge (``"screened"``: the workers walked the columns of the classes
        that needed it once more).

    Notes
    -----
    Each worker process compiles ``tune``'s walk kernels on its first call on large
    chunks (about 20 s on a shared 2-core machine, as in memory) unless numba's disk
    cache has them; on small chunks it runs them interpreted instead, while that costs
    less (``fmacro.validation.dispatch``). To time warm workers, fill their
    cache first: one call with ``FMACRO_KERNELS=compiled`` in the workers' environment.
    """
    dask = import_dask()
    b = check_beta(beta)
    zd = check_zero_division(zero_division)
    if isinstance(prior, str):
        raise ValueError(
            f"prior must be a number >= 0 here, got {prior!r}: prior='cv' splits the rows, "
            "which column blocks do not allow"
        )
    a = check_pseudo_count(prior)
    if unseen not in EMPTY_CLASS_RULES:
        raise ValueError(f"unseen must be 'prior' or 'never', got {unseen!r}")
    given_n_eval = None if n_eval is None else check_n_eval(n_eval, 1.0)
    n_obj, n_cols = input_shape(
        scores,
        labels,
        columns=columns,
        n_samples=n_samples,
        n_classes=n_classes,
        scheduler=scheduler,
    )
    pi = None if base_rates is None else check_base_rates(base_rates, n_cols)
    if sample_weight is not None:
        options = (b, zd, a, n_eval, unseen, pi)
        return weighted_tune(scores, labels, sample_weight, options, (n_obj, n_cols), scheduler)
    worker_settings = _Settings(a, given_n_eval, zd, pi)
    settings = TuneSettings(b, zd, _n_eval(worker_settings, n_obj), "fixed_point", unseen, pi)

    def run(tasks: tuple[Any, Any], s: Any) -> Any:
        delayed, _, _ = block_tasks(
            scores,
            labels,
            tasks,
            # one graph node for the settings: given base rates (a float per column)
            # travel once, not once per block
            dask.delayed(s, traverse=False),
            columns=columns,
            n_samples=n_obj,
            n_classes=n_cols,
            scheduler=scheduler,
        )
        return dask.compute(*delayed, scheduler=scheduler)

    workers = WorkerColumns(run, worker_settings, n_obj, n_cols)
    walked = workers.walked_hulls((a,), settings, second=True)
    hull = smoothed_hull_at(walked, 0, a, settings.n_eval, zd)
    return solve(Problem.from_walk(hull, settings, workers, walked.second), a, {})


@attrs.frozen(eq=False)
class WorkerColumns:
    """The score columns on the dask workers: :class:`~fmacro.optimize.tuning.columns.Columns`
    whose passes run on the blocks (``run(tasks, job)`` computes a task pair over every
    block), each sending back only what the client needs."""

    run: Callable[[tuple[Any, Any], Any], Any]
    settings: _Settings  # the workers' settings (n_eval None: the rows of each block)
    n_obj: int
    n_cols: int

    def walked_hulls(
        self, priors: Sequence[float], settings: TuneSettings, *, second: bool
    ) -> WalkedHulls:
        """The workers' walk at one prior, with each class's second layer."""
        if len(priors) != 1 or not second:
            raise ValueError("the workers walk one prior, keeping the second layers")
        s = attrs.evolve(self.settings, prior=float(priors[0]))
        return merge_walks(self.run((_walk_array, _walk_rows), s), self.n_obj, self.n_cols)

    def screened_cuts(self, plan: ScreenPlan, columns: NDArray[np.int64]) -> Screened:
        """The in-memory screened pass, its walk on the workers."""
        job = _Screen(plan, columns)
        found = [part for part in self.run((_screen_array, _screen_rows), job) if part is not None]
        return _in_plan_order(found, columns.size)

    def empty_thresholds(
        self,
        columns: NDArray[np.int64],
        centres: NDArray[np.float64],
        priors: Sequence[float],
        phis: Sequence[float],
        settings: TuneSettings,
    ) -> NDArray[np.float64]:
        """The in-memory walk of the empty classes on the workers: one pass per pair."""
        out = np.empty((len(priors), columns.size))
        for g, (prior_g, phi) in enumerate(zip(priors, phis, strict=True)):
            job = _Empty(attrs.evolve(self.settings, prior=prior_g, phi=phi), columns, centres)
            walked = np.zeros(columns.size, dtype=bool)
            for at, values in filter(None, self.run((_empty_array, _empty_rows), job)):
                out[g, at] = values
                walked[at] = True
            if not walked.all():  # rows only: columns no row mentions
                unread = np.flatnonzero(~walked)
                out[g, unread] = _rule_without_entries(centres[unread], job.settings, self.n_obj)
        return out

    def empty_predicted(
        self, columns: NDArray[np.int64], thresholds: NDArray[np.float64]
    ) -> NDArray[Any] | None:
        """Not at hand: the scores stay on the workers."""
        return None


def _in_plan_order(found: Sequence[tuple[NDArray[np.int64], Screened]], n_need: int) -> Screened:
    """The workers' screened cuts, each class once, put in the plan's order."""
    at = np.concatenate([np.zeros(0, np.int64), *(numbers for numbers, _ in found)])
    if at.size != n_need or not np.array_equal(np.sort(at), np.arange(n_need)):
        raise AssertionError("each needed class is walked by exactly one block")
    order = np.argsort(at, kind="stable")
    indptr, gather = segments(concat_ptr([indptr_from_counts(cuts[0]) for _, cuts in found]), order)
    arrays = [np.concatenate([cuts[i] for _, cuts in found])[gather] for i in (1, 2, 3, 4)]
    return np.diff(indptr), arrays[0], arrays[1], arrays[2], arrays[3]


def _rule_without_entries(
    centres: NDArray[np.float64], s: _Settings, n_obj: int
) -> NDArray[np.float64]:
    """The rule's thresholds of columns without a retrieved entry (their prior centres
    ``centres``), whose only cuts are the empty one and the all-objects one."""
    import scipy.sparse as sp

    shape = (n_obj, centres.size)
    inputs = walk_inputs(sp.csc_matrix(shape), sp.csc_matrix(shape, dtype=np.int8))
    values: NDArray[np.float64] = empty_thresholds(
        inputs,
        np.arange(centres.size, dtype=np.int64),
        centres,
        pseudo_counts=(s.prior,),
        n_eval=_n_eval(s, n_obj),
        zero_division=s.zero_division,
        phis=(s.phi,),
    )
    return np.asarray(values[0], dtype=np.float64)
