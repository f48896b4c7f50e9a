"""``tune`` on a dask cluster: the smoothed hull vertices on the workers, the sweep on the client.

A class's smoothed points depend on its own column and on numbers every worker knows:
the pseudo-count a, the number of rows N, the evaluation batch size and the class's prior
centre (its own rate m_k / N, or a given base rate). So each worker walks its columns
once, as :func:`fmacro.optimize.tune` does in memory, and sends only each class's hull
vertices (raw counts, threshold and cut number: a few per class) and its second chain.
The client smooths these and runs the linearization. Where it ends on an edge, the
exact step needs, for some classes, the cuts besides the hull vertices that can pass its
first reduction: the client sends the floors, the workers walk just those classes' columns
again and send those cuts, and the exact step runs on the client. The result is the
in-memory ``tune``'s, bit for bit.

Classes without tuning positives take ``tune``'s rule at the solution's angle. With its
defaults (zero_division 0, own rates: prior centre 0) the rule predicts every object
without reading a score; with given base rates or another zero_division, the workers
read those classes' columns once more in a second pass.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np
from numpy.typing import ArrayLike, NDArray

from fmacro.dask._checks import ROW_COLUMNS, RowSpec, check_unread_scores, partition_columns
from fmacro.dask._imports import import_dask
from fmacro.dask.thresholds import (
    _concat_ptr,
    _has_positive,
    _ro_float,
    _ro_int,
    _segments,
    block_tasks,
    column_order,
    input_shape,
)
from fmacro.optimize.search.result import ThresholdResult
from fmacro.optimize.tuning._hull_points import (
    Screened,
    ScreenPlan,
    WalkedHulls,
    _indptr,
    _smoothed_at,
    merge_screened,
    screen_plan,
    screened_cuts,
    unseen_thresholds,
    walk_inputs,
    walked_hulls,
)
from fmacro.optimize.tuning._solve import Problem, UnseenWalk, solve
from fmacro.optimize.tuning.smoothing import (
    SmoothedPoints,
    check_base_rates,
    check_n_eval,
    check_pseudo_count,
)
from fmacro.validation.checks import check_beta, check_zero_division

__all__ = ["TuneBlock", "tune"]

_UNSEEN = ("prior", "never")


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

    columns: NDArray[np.int64] = attrs.field(converter=_ro_int)
    support: NDArray[np.int64] = attrs.field(converter=_ro_int)
    centre: NDArray[np.float64] = attrs.field(converter=_ro_float)
    indptr: NDArray[np.int64] = attrs.field(converter=_ro_int)
    tp: NDArray[np.int64] = attrs.field(converter=_ro_int)
    fp: NDArray[np.int64] = attrs.field(converter=_ro_int)
    threshold: NDArray[np.float64] = attrs.field(converter=_ro_float)
    number: NDArray[np.int64] = attrs.field(converter=_ro_int)
    # each class's second chain (p~, r~ of the upper-right chain of its other cuts):
    # what lets an edge's second walk leave out classes
    chain_indptr: NDArray[np.int64] = attrs.field(converter=_ro_int)
    chain_p: NDArray[np.float64] = attrs.field(converter=_ro_float)
    chain_r: NDArray[np.float64] = attrs.field(converter=_ro_float)

    @property
    def n_classes(self) -> int:
        return int(self.columns.shape[0])

    @classmethod
    def empty(cls) -> TuneBlock:
        z, one = np.zeros(0), np.zeros(1)
        return cls(z, z, z, one, z, z, z, z, one, z, z)


def _n_eval(s: _Settings, n_obj: int) -> float:
    return float(n_obj) if s.n_eval is None else s.n_eval


def _walk(scores: Any, labels: Any, columns: NDArray[np.int64], s: _Settings) -> TuneBlock:
    """Worker side: one walk of the block's columns, keeping the smoothed hull vertices."""
    if not _has_positive(labels):
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
        raise AssertionError("the walk was asked for the second chains")
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
class _Unseen:
    """What the workers need for the rule's pass: the settings at one (prior, angle) pair,
    and the columns without tuning positives with their prior centres."""

    settings: _Settings
    columns: NDArray[np.int64]  # increasing
    centres: NDArray[np.float64]


def _held(wanted: NDArray[np.int64], columns: NDArray[np.int64]) -> NDArray[np.int64]:
    """For each of a block's ``columns``, its index in ``wanted`` (increasing), or -1."""
    if wanted.size == 0:
        return np.full(columns.size, -1, dtype=np.int64)
    at = np.minimum(np.searchsorted(wanted, columns), wanted.size - 1)
    return np.where(wanted[at] == columns, at, -1).astype(np.int64)


def _unseen(scores: Any, labels: Any, columns: NDArray[np.int64], job: _Unseen) -> Any:
    """Worker side, the rule's pass: the thresholds of the block's columns without tuning
    positives, with their numbers among the job's columns."""
    at = _held(job.columns, columns)
    local = np.flatnonzero(at >= 0).astype(np.int64)
    if local.size == 0:
        return None
    s = job.settings
    inputs = walk_inputs(scores, labels)
    found = unseen_thresholds(
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
    at = _held(job.columns, columns)
    local = np.flatnonzero(at >= 0).astype(np.int64)
    if local.size == 0:
        return None
    return at[local], screened_cuts(walk_inputs(scores, labels), local, job.plan, at[local])


def _block_columns(first: int, scores: Any) -> NDArray[np.int64]:
    return np.arange(first, first + scores.shape[1], dtype=np.int64)


def _walk_array(scores: Any, labels: Any, first: int, s: _Settings) -> TuneBlock:
    return _walk(scores, labels, _block_columns(first, scores), s)


def _unseen_array(scores: Any, labels: Any, first: int, job: _Unseen) -> Any:
    return _unseen(scores, labels, _block_columns(first, scores), job)


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


def _unseen_rows(frame: Any, spec: RowSpec, job: _Unseen) -> Any:
    if len(frame) == 0:
        return None
    return _unseen(*partition_columns(frame, spec), job)


def merge_walks(blocks: Sequence[TuneBlock], n_samples: int, n_columns: int) -> WalkedHulls:
    """The workers' blocks in column order, as one walk's hull cuts."""
    blocks = [b for b in blocks if b.n_classes]
    columns = np.concatenate([np.zeros(0, np.int64), *(b.columns for b in blocks)])
    order = column_order(columns)
    indptr, at = _segments(_concat_ptr([b.indptr for b in blocks]), order)

    def cat(name: str) -> NDArray[Any]:
        return np.concatenate([getattr(b, name) for b in blocks])

    cuts = (indptr, cat("tp")[at], cat("fp")[at], cat("threshold")[at], cat("number")[at])
    chain_ptr, chain_at = _segments(_concat_ptr([b.chain_indptr for b in blocks]), order)
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
        Not supported: only ``None``, any other value raises ``TypeError``. The workers
        run the fused walk of the in-memory fast path, which counts rows in integers
        (a weighted walk would need a weighted kernel, and every block the weights of
        all rows). Weighted tuning runs in memory:
        ``fmacro.optimize.tune(scores, labels, sample_weight=w)`` on the computed
        arrays, or ``tune(points=class_points(scores, labels, sample_weight=w))``;
        integer weights can also repeat the rows of dask arrays
        (``rows = np.repeat(np.arange(len(w)), w)``, then ``tune(scores[rows],
        labels[rows])``: the same result as the weights).

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
    if sample_weight is not None:
        raise TypeError(
            "fmacro.dask.tune takes no sample_weight (only None): its workers' walk counts "
            "rows in integers. Tune weighted data in memory with "
            "fmacro.optimize.tune(scores, labels, sample_weight=w) on the computed arrays "
            "(or tune(points=class_points(scores, labels, sample_weight=w))); integer "
            "weights can instead repeat the rows of dask arrays: rows = "
            "np.repeat(np.arange(len(w)), w); tune(scores[rows], labels[rows])"
        )
    b = check_beta(beta)
    zd = check_zero_division(zero_division)
    if isinstance(prior, str):
        raise ValueError(
            f"prior must be a number >= 0 here, got {prior!r}: prior='cv' splits the rows, "
            "which column blocks do not allow"
        )
    a = check_pseudo_count(prior)
    if unseen not in _UNSEEN:
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
    settings = _Settings(a, given_n_eval, zd, pi)

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

    walked = merge_walks(run((_walk_array, _walk_rows), settings), n_obj, n_cols)
    n = _n_eval(settings, n_obj)
    hull = _smoothed_at(walked, 0, a, n, zd)
    missing = walked.missing()

    def screen(points: SmoothedPoints, linear: ThresholdResult) -> SmoothedPoints:
        # the in-memory smoothed_screened_points, its walk on the workers
        plan = screen_plan(points, linear, b, walked.second)
        if not plan.need.any():
            return points
        job = _Screen(plan, np.asarray(points.class_index)[plan.need])
        found = [part for part in run((_screen_array, _screen_rows), job) if part is not None]
        return merge_screened(points, plan, _in_plan_order(found, job.columns.size))

    def unseen_walk(
        cols: NDArray[np.int64],
        centres: NDArray[np.float64],
        priors: Sequence[float],
        phis: Sequence[float],
    ) -> NDArray[np.float64]:
        # the in-memory unseen_thresholds, its walk on the workers: one pass per pair
        out = np.empty((len(priors), cols.size))
        for g, (prior_g, phi) in enumerate(zip(priors, phis, strict=True)):
            job = _Unseen(attrs.evolve(settings, prior=prior_g, phi=phi), cols, centres)
            walked = np.zeros(cols.size, dtype=bool)
            for at, values in filter(None, run((_unseen_array, _unseen_rows), job)):
                out[g, at] = values
                walked[at] = True
            if not walked.all():  # rows only: columns no row mentions
                absent = np.flatnonzero(~walked)
                out[g, absent] = _rule_without_entries(centres[absent], job.settings, n_obj)
        return out

    wanted = unseen == "prior" and missing.size
    problem = Problem(
        hull,
        UnseenWalk(unseen_walk) if wanted else None,
        pi,
        n,
        b,
        "fixed_point",
        hull_prior=a,
        unseen_columns=missing,
        screen=screen,
    )
    return solve(problem, a, {})


def _in_plan_order(found: Sequence[tuple[NDArray[np.int64], Screened]], n_need: int) -> Screened:
    """The workers' screened cuts, each class once, put in the plan's order."""
    at = np.concatenate([np.zeros(0, np.int64), *(numbers for numbers, _ in found)])
    if at.size != n_need or not np.array_equal(np.sort(at), np.arange(n_need)):
        raise AssertionError("each needed class is walked by exactly one block")
    order = np.argsort(at, kind="stable")
    indptr, gather = _segments(_concat_ptr([_indptr(cuts[0]) for _, cuts in found]), order)
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
    values: NDArray[np.float64] = unseen_thresholds(
        inputs,
        np.arange(centres.size, dtype=np.int64),
        centres,
        pseudo_counts=(s.prior,),
        n_eval=_n_eval(s, n_obj),
        zero_division=s.zero_division,
        phis=(s.phi,),
    )
    return np.asarray(values[0], dtype=np.float64)
