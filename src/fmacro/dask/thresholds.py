"""Distributed F-macro threshold search: class hulls on the workers, the sweep on the client.

A class's cuts, and so its hull, depend only on its own column of scores and labels. Each
worker turns its columns (a column chunk of a dask array, or the rows of the classes a
shuffled dask DataFrame partition holds) into :class:`HullBlock` s: every class's hull
vertices (precision, recall, edge angles, exactly as :func:`~fmacro.optimize.search.hull.
class_hulls` computes them in memory) and the small cut table needed to map a chosen vertex
back to a score threshold: the vertices' cuts and each class's own F_beta-optimal cut (the
T_b candidate of ``fixed_point``). Only these travel to the client, where they are put
back in column order as a reduced :class:`~fmacro.optimize.search.points.ClassPoints` and
:class:`~fmacro.optimize.search.hull.ClassHulls`; the edge sweep and the certificate then
run unchanged (``fixed_point_from_sweep``, ``domain_from_sweep``, ``per_class_cuts``).
Cut indices are mapped back to each class's full list of cuts, so the result equals the
in-memory one: same thresholds, cuts, F, upper bound and diagnostics.

``global_threshold`` moves every class along all its cuts at once, so it needs every cut:
its blocks carry the full cut tables (O(entries) to the client).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.dask._checks import (
    ROW_COLUMNS,
    RowSpec,
    check_unread_scores,
    partition_columns,
)
from fmacro.dask._imports import import_dask
from fmacro.dask.blocks import (
    block_tasks,
    column_order,
    concat_ptr,
    has_positive,
    segments,
    wide_frames,
)
from fmacro.optimize.baselines.global_threshold import global_threshold as _global_threshold
from fmacro.optimize.baselines.per_class import per_class as _per_class
from fmacro.optimize.offsets import indptr_from_counts, row_of_entries
from fmacro.optimize.search.coordinate import per_class_cuts
from fmacro.optimize.search.domain import domain_from_sweep
from fmacro.optimize.search.hull import ClassHulls, Sweep, class_hulls, edge_sweep
from fmacro.optimize.search.linearization import fixed_point_from_sweep
from fmacro.optimize.search.points import ClassPoints, class_points
from fmacro.optimize.search.result import ThresholdResult
from fmacro.validation.checks import check_beta, check_zero_division
from fmacro.validation.counts import frozen_array

__all__ = [
    "HullBlock",
    "ReducedSearch",
    "domain",
    "fixed_point",
    "global_threshold",
    "per_class",
    "reduced_sweep",
]


@attrs.frozen(eq=False)
class HullBlock:
    """What one worker sends back for its classes: hull vertices and their cut table.

    CSR-like, one segment per kept class (in the block's column order). ``cut_*`` arrays
    list the kept cuts of each class (hull vertices and the class's T_b cut, or every cut
    for ``global_threshold``) with ``cut`` their index among all the class's cuts; the
    vertex arrays are those of ``class_hulls`` with ``vertex_cut`` indexing the kept cuts.
    """

    class_index: NDArray[np.int64] = attrs.field(converter=frozen_array)
    support: NDArray[np.int64] = attrs.field(converter=frozen_array)
    cut_indptr: NDArray[np.int64] = attrs.field(converter=frozen_array)
    cut: NDArray[np.int64] = attrs.field(converter=frozen_array)
    tp: NDArray[np.int64] = attrs.field(converter=frozen_array)
    fp: NDArray[np.int64] = attrs.field(converter=frozen_array)
    threshold: NDArray[np.float64] = attrs.field(converter=frozen_array)
    vertex_indptr: NDArray[np.int64] = attrs.field(converter=frozen_array)
    vertex_cut: NDArray[np.int64] = attrs.field(converter=frozen_array)
    vertex_p: NDArray[np.float64] = attrs.field(converter=frozen_array)
    vertex_r: NDArray[np.float64] = attrs.field(converter=frozen_array)
    edge_angle: NDArray[np.float64] = attrs.field(converter=frozen_array)

    @property
    def n_classes(self) -> int:
        return int(self.class_index.shape[0])

    @property
    def nbytes(self) -> int:
        """Bytes of the arrays (what travels to the client)."""
        return sum(int(getattr(self, f.name).nbytes) for f in attrs.fields(HullBlock))

    @classmethod
    def empty(cls) -> HullBlock:
        z, one, f = np.zeros(0, np.int64), np.zeros(1, np.int64), np.zeros(0)
        return cls(z, z, one, z, z, z, f, one, z, f, f, f)

    @classmethod
    def from_points(
        cls, points: ClassPoints, columns: NDArray[np.int64], beta: float, every_cut: bool
    ) -> HullBlock:
        """Reduce ``points`` of a block to its hulls; ``columns`` maps its classes to columns."""
        hulls = class_hulls(points)
        indptr = np.asarray(points.indptr)
        n = points.n_classes
        vertex_class = row_of_entries(hulls.vertex_indptr)
        vertex_global = indptr[vertex_class] + np.asarray(hulls.vertex_cut)
        if every_cut:
            keep = np.arange(int(indptr[-1]), dtype=np.int64)
        else:
            best = indptr[:-1] + per_class_cuts(points, beta)
            keep = np.union1d(vertex_global, best).astype(np.int64)
        owner = np.searchsorted(indptr, keep, side="right") - 1
        cut_indptr = indptr_from_counts(np.bincount(owner, minlength=n))
        vertex_cut = np.searchsorted(keep, vertex_global) - cut_indptr[vertex_class]
        return cls(
            class_index=columns[np.asarray(points.class_index)],
            support=points.support,
            cut_indptr=cut_indptr,
            cut=keep - indptr[owner] if points.full_cut is None else points.full_cut[keep],
            tp=np.asarray(points.tp)[keep],
            fp=np.asarray(points.fp)[keep],
            threshold=np.asarray(points.threshold)[keep],
            vertex_indptr=hulls.vertex_indptr,
            vertex_cut=vertex_cut,
            vertex_p=hulls.vertex_p,
            vertex_r=hulls.vertex_r,
            edge_angle=hulls.edge_angle,
        )


@attrs.frozen
class _Settings:
    beta: float
    zero_division: float
    empty_classes: str
    every_cut: bool


def _block(scores: Any, labels: Any, columns: NDArray[np.int64], s: _Settings) -> HullBlock:
    """Worker side: class points of a block of columns, reduced to their hulls."""
    if s.empty_classes == "exclude" and not has_positive(labels):
        check_unread_scores(scores, columns)  # as class_points checks every column
        return HullBlock.empty()  # no kept class here; the client checks the whole
    # hulls and T_b cuts never need a dominated cut; global_threshold needs every cut
    points = class_points(
        scores,
        labels,
        zero_division=s.zero_division,
        empty_classes=s.empty_classes,
        dominated="keep" if s.every_cut else "drop",
    )
    return HullBlock.from_points(points, columns, s.beta, s.every_cut)


def _array_block(scores: Any, labels: Any, first: int, s: _Settings) -> HullBlock:
    columns = np.arange(first, first + scores.shape[1], dtype=np.int64)
    return _block(scores, labels, columns, s)


def _frame_block(frame: Any, spec: RowSpec, s: _Settings) -> HullBlock:
    """Worker side: the rows of the classes of one partition, checked, as sparse columns."""
    if len(frame) == 0:
        return HullBlock.empty()
    return _block(*partition_columns(frame, spec), s)


# --------------------------------------------------------------------------- client side


@attrs.frozen(eq=False)
class ReducedSearch:
    """The client's view: reduced points and hulls in column order, and the sweep.

    ``cut`` maps each reduced cut to its index among all its class's cuts.
    """

    sweep: Sweep
    cut: NDArray[np.int64] = attrs.field(converter=frozen_array)

    @property
    def points(self) -> ClassPoints:
        return self.sweep.hulls.points

    def full_cuts(self, result: ThresholdResult) -> ThresholdResult:
        """``result`` (cuts into the reduced points) with cuts into the full cut lists."""
        full = self.cut[np.asarray(self.points.indptr[:-1]) + np.asarray(result.cuts)]
        return attrs.evolve(result, cuts=full)


def merge_blocks(
    blocks: Sequence[HullBlock], n_samples: int, n_columns: int, zero_division: float
) -> ReducedSearch:
    """Put the workers' blocks back in column order and sweep their edges."""
    blocks = [b for b in blocks if b.n_classes]
    class_index = np.concatenate([np.zeros(0, np.int64), *(b.class_index for b in blocks)])
    order = column_order(class_index)
    cut_ptr, cut_at = segments(concat_ptr([b.cut_indptr for b in blocks]), order)
    vtx_ptr, vtx_at = segments(concat_ptr([b.vertex_indptr for b in blocks]), order)
    edge_ptrs = [b.vertex_indptr - np.arange(b.n_classes + 1) for b in blocks]
    _, edge_at = segments(concat_ptr(edge_ptrs), order)

    def cat(name: str) -> NDArray[Any]:
        return np.concatenate([getattr(b, name) for b in blocks])

    points = ClassPoints(
        cut_ptr,
        cat("tp")[cut_at],
        cat("fp")[cut_at],
        cat("threshold")[cut_at],
        cat("support")[order],
        class_index[order],
        n_samples,
        n_columns,
        zero_division,
    )
    hulls = ClassHulls(
        points,
        vtx_ptr,
        cat("vertex_cut")[vtx_at],
        cat("vertex_p")[vtx_at],
        cat("vertex_r")[vtx_at],
        cat("edge_angle")[edge_at],
    )
    return ReducedSearch(edge_sweep(hulls), cat("cut")[cut_at])


def _check_empty_classes(empty_classes: str, zd: float) -> None:
    from fmacro.optimize.inputs import check_empty_classes

    check_empty_classes(empty_classes, zd)


def _absent_classes(
    found: Sequence[HullBlock], n_samples: int, n_columns: int, s: _Settings
) -> HullBlock | None:
    """With ``empty_classes="include"``: classes no row mentions (no entry, no positive)."""
    import scipy.sparse as sp

    seen = np.concatenate([b.class_index for b in found]) if found else np.zeros(0, np.int64)
    absent = np.setdiff1d(np.arange(n_columns, dtype=np.int64), seen)
    if absent.size == 0:
        return None
    empty = sp.csc_matrix((n_samples, absent.size), dtype=np.float64)
    return _block(empty, empty, absent, s)


def reduced_sweep(
    scores: Any,
    labels: Any = None,
    *,
    beta: float = 1.0,
    zero_division: float = 0.0,
    empty_classes: str = "exclude",
    columns: Sequence[str] = ROW_COLUMNS,
    n_samples: int | None = None,
    n_classes: int | None = None,
    every_cut: bool = False,
    scheduler: Any = None,
) -> ReducedSearch:
    """Hulls computed on the workers, merged on the client: the input of every method here.

    Parameters
    ----------
    scores
        (a) A dask array of scores, ``(n_samples, n_classes)``, chunked by columns (row
        chunks are merged: a worker holds whole columns; dense or scipy-sparse chunks,
        as :func:`~fmacro.optimize.search.points.class_points` takes), with ``labels`` its
        0/1 label matrix (dask or numpy, split like ``scores``); or (b) a dask DataFrame of
        rows ``(object, class, score, label)`` (names in ``columns``; ``labels=None``),
        one row per retrieved (object, class) pair, as a sparse score matrix holds them:
        integer ids, and a positive that was not retrieved has a row with a NaN score.
        The workers check every row where it is (rows shuffled by class): ids must be
        non-negative integers (integer dtype or integral floats) below ``n_samples`` /
        ``n_classes``, labels 0/1, scores finite or NaN, and a pair may have one row
        only; anything else is a ``ValueError`` naming ``scores``' column (or the pair).
        A dask array must have known chunk sizes (``x.compute_chunk_sizes()``).
    beta
        F_beta weight; picks each class's own best cut, which travels with the hulls.
    zero_division, empty_classes
        As in :func:`fmacro.optimize.fixed_point`.
    n_samples, n_classes
        Rows only: number of objects and of classes, at least the largest id + 1;
        ``None`` takes the largest id + 1 (one pass on the client). With an array: ``None``
        or its shape.
    every_cut
        Send every cut, not only the hull vertices (``global_threshold`` needs them).
    scheduler
        Passed to ``dask.compute`` (``None``: dask's current scheduler).
    """
    dask = import_dask()
    b = check_beta(beta)
    zd = check_zero_division(zero_division)
    _check_empty_classes(empty_classes, zd)
    settings = _Settings(b, zd, empty_classes, bool(every_cut))
    delayed, n, k = block_tasks(
        scores,
        labels,
        (_array_block, _frame_block),
        settings,
        columns=columns,
        n_samples=n_samples,
        n_classes=n_classes,
        scheduler=scheduler,
    )
    blocks = list(dask.compute(*delayed, scheduler=scheduler))
    if empty_classes == "include":
        extra = _absent_classes(blocks, n, k, settings)
        if extra is not None:
            blocks.append(extra)
    return merge_blocks(blocks, n, k, zd)


def _search(args: tuple[Any, ...], options: dict[str, Any], every_cut: bool) -> ReducedSearch:
    return reduced_sweep(*args, every_cut=every_cut, **options)


@wide_frames
def fixed_point(scores: Any, labels: Any = None, **options: Any) -> ThresholdResult:
    """:func:`fmacro.optimize.fixed_point` with the class hulls computed on the workers.

    Same arguments as :func:`reduced_sweep` (``beta``, ``zero_division``,
    ``empty_classes``, ``columns``, ``n_samples``, ``n_classes``, ``scheduler``). Returns
    the in-memory ``fixed_point(..., exact=False)`` result (same thresholds, cuts, F, bound
    and diagnostics): the linearization's answer, proven within ``eps`` of its bound (0 at
    a fixed point). The exact step of the in-memory default needs every non-dominated cut,
    not the hull vertices the workers send, and ``polish`` walks every cut: neither is
    offered here.
    """
    search = _search((scores, labels), options, every_cut=False)
    res = fixed_point_from_sweep(search.sweep, beta=options.get("beta", 1.0))
    return search.full_cuts(res)


@wide_frames
def domain(
    scores: Any, labels: Any = None, *, n_angles: int | None = 64, **options: Any
) -> ThresholdResult:
    """:func:`fmacro.optimize.domain` with the class hulls computed on the workers."""
    if n_angles is not None:
        if isinstance(n_angles, bool) or not isinstance(n_angles, (int, np.integer)):
            raise TypeError(f"n_angles must be an int >= 3 or None, got {type(n_angles).__name__}")
        if n_angles < 3:
            raise ValueError(f"n_angles must be >= 3 (or None for the exact hull), got {n_angles}")
    search = _search((scores, labels), options, every_cut=False)
    res = domain_from_sweep(search.sweep, beta=options.get("beta", 1.0), n_angles=n_angles)
    return search.full_cuts(res)


@wide_frames
def per_class(scores: Any, labels: Any = None, **options: Any) -> ThresholdResult:
    """:func:`fmacro.optimize.per_class` (T_b): each class's best cut travels with its hull."""
    search = _search((scores, labels), options, every_cut=False)
    res = _per_class(points=search.points, beta=options.get("beta", 1.0))
    return search.full_cuts(res)


@wide_frames
def global_threshold(scores: Any, labels: Any = None, **options: Any) -> ThresholdResult:
    """:func:`fmacro.optimize.global_threshold`; one shared threshold sweeps every cut of
    every class, so here the workers send their full cut tables (O(entries))."""
    search = _search((scores, labels), options, every_cut=True)
    return _global_threshold(points=search.points, beta=options.get("beta", 1.0))
