"""The second walk of ``tune``'s fast path, at an edge crossing: the screened cuts.

When the linearization on the hull vertices (:mod:`.hulls`) ends on an edge, the exact
step of :func:`optimize.fixed_point` needs, per class, the cuts that can pass its first
reduction, the screen (:func:`optimize.search.exact.screen_floors`): its value
``ga p~ + gc r~`` at or above the class's floor. :func:`screen_plan` says which classes
need a second walk (a class whose second layer stays under its floor keeps its hull
vertices), :func:`screened_cuts` walks just their columns, :func:`merge_screened` puts
the cuts back among the other classes' vertices. fmacro.dask runs the same three steps,
the walk on its workers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.offsets import group_of_entries, indptr_from_counts
from fmacro.optimize.search.exact import class_best_values, screen_floors_checked
from fmacro.optimize.search.points import ClassPoints
from fmacro.optimize.search.result import ThresholdResult
from fmacro.optimize.tuning.cuts import (
    Outputs,
    Scratch,
    curved_prefix,
    cut_values,
    empty_chances,
    grow_outputs,
    hull_candidates,
    new_outputs,
    new_scratch,
    smooth_cuts,
)
from fmacro.optimize.tuning.hulls import SecondLayers
from fmacro.optimize.tuning.smoothing import SmoothedPoints, sharing
from fmacro.optimize.tuning.source import (
    Source,
    WalkInputs,
    over_classes,
    source_classes,
    source_cuts,
)
from fmacro.validation.dispatch import kernel

__all__ = [
    "ScreenPlan",
    "Screened",
    "merge_screened",
    "screen_plan",
    "screened_cuts",
    "screened_points",
    "smoothed_screened_points",
]


@kernel(cache=True, nogil=True)
def _walk_in(
    start: int,
    stop: int,
    step: int,
    tp: NDArray[np.int64],
    fp: NDArray[np.int64],
    m: int,
    pi: float,
    n_obj: int,
    a: float,
    chances: NDArray[np.float64],
    zd: float,
    ga: float,
    gc: float,
    low: float,
    keep: NDArray[np.bool_],
) -> int:
    """Mark cuts ``start, start + step, ...`` (strictly before ``stop``; none when ``start``
    is already past it) while ``ga p~ + gc r~ >= low``; returns the first cut that fails
    (or ``stop``)."""
    g = start
    while (g < stop) if step > 0 else (g > stop):
        p, r = cut_values(g, tp, fp, m, pi, n_obj, a, chances, zd)
        if ga * p + gc * r < low:
            return g
        keep[g] = True
        g += step
    return stop


@kernel(cache=True, nogil=True)
def _emit_screened(
    tp: NDArray[np.int64],
    fp: NDArray[np.int64],
    thr: NDArray[np.float64],
    c: int,
    m: int,
    pi: float,
    n_obj: int,
    a: float,
    chances: NDArray[np.float64],
    curved: int,
    zd: float,
    ga: float,
    gc: float,
    low: float,
    hull_cut: NDArray[np.int64],
    scratch: Scratch,
    keep: NDArray[np.bool_],
    out: Outputs,
    o: int,
) -> tuple[Outputs, int, int]:
    """One class's cuts that ``exact`` can use, appended to ``out`` from entry ``o``: its
    hull vertices ``hull_cut`` and the cuts with ``ga p~ + gc r~ >= low``. Inner cuts of a
    run are smoothed only when one of its ends reaches ``low`` (the value is convex along
    a run: :func:`hull_candidates`). Returns the buffers, the next entry, the count."""
    sel, p, r, _ = scratch
    n_sel = hull_candidates(tp, fp, c, curved, sel)
    smooth_cuts(sel, n_sel, tp, fp, m, pi, n_obj, a, chances, zd, p, r)
    for g in hull_cut:
        keep[g] = True
    for t in range(n_sel):
        if ga * p[t] + gc * r[t] >= low:
            keep[sel[t]] = True
    for t in range(n_sel - 1):
        # a run's inner cuts: convex values, so those reaching the floor are a prefix and
        # a suffix of the run, found by walking in from each end that reaches it
        lo, hi = sel[t], sel[t + 1]
        if hi == lo + 1:
            continue
        if keep[lo]:
            lo = _walk_in(lo + 1, hi, 1, tp, fp, m, pi, n_obj, a, chances, zd, ga, gc, low, keep)
        if keep[hi]:
            _walk_in(hi - 1, lo, -1, tp, fp, m, pi, n_obj, a, chances, zd, ga, gc, low, keep)
    n_keep = 0
    for g in range(c):
        n_keep += keep[g]
    # grow once per class: a buffer reassigned inside the loop below is several times slower
    out = grow_outputs(out, o + n_keep)
    out_tp, out_fp, out_thr, out_number = out
    for g in range(c):
        if keep[g]:
            out_tp[o] = tp[g]
            out_fp[o] = fp[g]
            out_thr[o] = thr[g]
            out_number[o] = g
            o += 1
            keep[g] = False
    return out, o, n_keep


@kernel(cache=True, nogil=True)
def _screened_cuts(
    src: Source,
    first: int,
    centres: NDArray[np.float64],
    a: float,
    n_eval: float,
    zd: float,
    ga: float,
    gc: float,
    floor: NDArray[np.float64],
    hull_ptr: NDArray[np.int64],
    hull_cut: NDArray[np.int64],
) -> tuple[
    NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.float64], NDArray[np.int64]
]:
    """:func:`_emit_screened` for each class of ``src``: class ``k = first + i`` with prior
    centre ``centres[k]``, floor ``floor[k]`` and hull vertices
    ``hull_cut[hull_ptr[k]:hull_ptr[k + 1]]``. Returns (cuts per class, tp, fp,
    threshold, cut number), cuts in order."""
    n_classes, room = source_classes(src)
    n_obj = src[9]
    counts = np.zeros(n_classes, dtype=np.int64)
    out = new_outputs(8 * n_classes + 16)
    tp, fp, thr, _ = new_outputs(room)  # one class's cuts
    scratch = new_scratch(room)
    keep = np.zeros(room, dtype=np.bool_)
    chances = empty_chances(n_obj, n_eval, zd)
    curved = curved_prefix(chances, np.array([a]), zd)
    o = 0
    for i in range(n_classes):
        k = first + i
        c, m = source_cuts(src, i, tp, fp, thr)
        vertices = hull_cut[hull_ptr[k] : hull_ptr[k + 1]]
        out, o, counts[i] = _emit_screened(
            tp,
            fp,
            thr,
            c,
            m,
            centres[k],
            n_obj,
            a,
            chances,
            curved,
            zd,
            ga,
            gc,
            floor[k],
            vertices,
            scratch,
            keep,
            out,
            o,
        )
    return counts, out[0][:o].copy(), out[1][:o].copy(), out[2][:o].copy(), out[3][:o].copy()


def smoothed_screened_points(
    inputs: WalkInputs,
    hull: SmoothedPoints,
    linear: ThresholdResult,
    beta: float,
    second: SecondLayers | None = None,
) -> SmoothedPoints:
    """The cuts :func:`optimize.exact` needs after ``linear`` ended on an edge.

    ``hull`` comes from :func:`smoothed_hull_points` on the same ``inputs`` and ``linear``
    is ``fixed_point(points=hull, exact=False)``. One more walk keeps, per class, the
    hull vertices and the cuts that can pass exact's first reduction
    (:func:`optimize.exact.screen_floors`), so ``fixed_point`` with its exact step finds
    the same optimum on these points as on every cut. (Its linearization's per-class
    candidate is taken over these cuts only; it serves as an incumbent, so at worst an
    exact tie is broken differently.) Given the classes' ``second`` layers (from
    :func:`smoothed_hull_fit`), a class whose second layer stays under its floor keeps
    its hull vertices without being walked again: the same points, fewer columns walked.
    """
    return screened_points(
        hull,
        linear,
        beta,
        second,
        lambda plan, cols: screened_cuts(inputs, cols, plan, np.arange(cols.size, dtype=np.int64)),
    )


def screened_points(
    hull: SmoothedPoints,
    linear: ThresholdResult,
    beta: float,
    second: SecondLayers | None,
    walk: Callable[[ScreenPlan, NDArray[np.int64]], Screened],
) -> SmoothedPoints:
    """:func:`smoothed_screened_points` with the walk given: ``walk(plan, columns)`` ->
    the screened cuts of the plan's needed classes, whose columns are ``columns``
    (:meth:`~optimize.tuning.columns.Columns.screened_cuts`: in memory or on fmacro.dask's
    workers). ``beta``: checked."""
    plan = screen_plan(hull, linear, beta, second)
    if not plan.need.any():
        return hull
    cols = np.asarray(hull.class_index)[plan.need]
    return merge_screened(hull, plan, walk(plan, cols))


@attrs.frozen(eq=False)
class ScreenPlan:
    """What an edge's second walk reads: the classes (``need``, per kept class of the
    hull) whose cuts besides the hull vertices may pass the exact step's first reduction,
    and for each of them, in order, its prior centre, floor and hull cut numbers."""

    ga: float
    gc: float
    need: NDArray[np.bool_]
    centres: NDArray[np.float64]
    floors: NDArray[np.float64]
    hull_ptr: NDArray[np.int64]
    hull_cut: NDArray[np.int64]
    pseudo_count: float
    n_eval: float
    zero_division: float


def screen_plan(
    hull: SmoothedPoints, linear: ThresholdResult, beta: float, second: SecondLayers | None
) -> ScreenPlan:
    """The :class:`ScreenPlan` of ``hull`` after ``linear`` ended on an edge."""
    ga, gc, floors = screen_floors_checked(hull, linear, beta)
    need = _classes_to_walk(ga, gc, floors, second)
    hull_ptr = np.asarray(hull.indptr)
    return ScreenPlan(
        ga,
        gc,
        need,
        np.ascontiguousarray(np.asarray(hull.base_rate)[need], dtype=np.float64),
        np.ascontiguousarray(floors[need]),
        indptr_from_counts(np.diff(hull_ptr)[need]),
        np.asarray(hull.full_cut)[np.repeat(need, np.diff(hull_ptr))],
        hull.pseudo_count,
        hull.n_eval,
        hull.zero_division,
    )


# per walked class: cuts per class, then tp, fp, threshold and cut number of the cuts
Screened = tuple[
    NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.float64], NDArray[np.int64]
]


def screened_cuts(
    inputs: WalkInputs, cols: NDArray[np.int64], plan: ScreenPlan, at: NDArray[np.int64]
) -> Screened:
    """The screened cuts of the columns ``cols`` of ``inputs``, which are the plan's
    needed classes number ``at`` (increasing): a walk of just those columns."""
    counts = np.diff(plan.hull_ptr)[at]
    sub_ptr = indptr_from_counts(counts)
    sub_cut = plan.hull_cut[np.repeat(plan.hull_ptr[:-1][at], counts) + _ranks(counts)]
    centres, floors = plan.centres[at], plan.floors[at]
    args = (plan.pseudo_count, plan.n_eval, plan.zero_division, plan.ga, plan.gc)
    parts = over_classes(
        inputs,
        cols,
        lambda src, first: _screened_cuts(src, first, centres, *args, floors, sub_ptr, sub_cut),
    )
    counts_out, tp, fp, thr, number = (
        np.concatenate([part[i] for part in parts]) for i in range(5)
    )
    return counts_out, tp, fp, thr, number


def _ranks(counts: NDArray[np.int64]) -> NDArray[np.int64]:
    """0, 1, ..., c - 1 for each count c, concatenated."""
    starts = indptr_from_counts(counts)
    return np.arange(starts[-1], dtype=np.int64) - np.repeat(starts[:-1], counts)


def merge_screened(hull: SmoothedPoints, plan: ScreenPlan, walked: Screened) -> SmoothedPoints:
    """``hull`` with each needed class's cuts replaced by its screened cuts ``walked``
    (all the plan's needed classes, in order)."""
    kept = [np.asarray(x) for x in (hull.tp, hull.fp, hull.threshold, hull.full_cut)]
    indptr, (tp, fp, thr, number) = _by_class(
        plan.need, np.asarray(hull.indptr), kept, indptr_from_counts(walked[0]), list(walked[1:])
    )
    base = ClassPoints(
        indptr,
        tp,
        fp,
        thr,
        hull.support,
        hull.class_index,
        hull.n_samples,
        hull.n_columns,
        plan.zero_division,
        full_cut=number,
    )
    return sharing(
        base,
        pseudo_count=plan.pseudo_count,
        base_rate=hull.base_rate,
        n_eval=plan.n_eval,
        centre_p=np.zeros(0),
        centre_r=np.zeros(0),
    )


def _classes_to_walk(
    ga: float, gc: float, floors: NDArray[np.float64], second: SecondLayers | None
) -> NDArray[np.bool_]:
    """The classes whose cuts besides the hull vertices may reach their floor (all
    without ``second``): those whose second layer has a point with ``ga p~ + gc r~`` at
    the floor, less a margin far above the rounding of the values (a class at the
    margin is walked; the walk itself decides)."""
    if second is None or not (ga >= 0.0 and gc >= 0.0):
        return np.ones(floors.size, dtype=bool)
    ptr, p, r = second
    best = class_best_values(ga, gc, p, r, ptr)
    margin = 1e-9 * np.maximum(1.0, np.abs(floors))
    return np.asarray(best >= floors - margin, dtype=bool)


def _by_class(
    need: NDArray[np.bool_],
    hull_ptr: NDArray[np.int64],
    hull_arrays: list[NDArray[Any]],
    walked_ptr: NDArray[np.int64],
    walked_arrays: list[NDArray[Any]],
) -> tuple[NDArray[np.int64], list[NDArray[Any]]]:
    """Each class's entries in class order: the walk's for the classes ``need`` (in
    their order in the walk), the hull's for the others. Returns (indptr, arrays)."""
    hull_counts = np.diff(hull_ptr)
    walked_counts = np.diff(walked_ptr)
    counts = hull_counts.copy()
    counts[need] = walked_counts
    indptr = indptr_from_counts(counts)
    hull_class = group_of_entries(hull_counts)
    from_hull = ~need[hull_class]
    hull_at = np.arange(hull_ptr[-1], dtype=np.int64) - hull_ptr[hull_class] + indptr[hull_class]
    walked_sub = group_of_entries(walked_counts)
    walked_class = np.flatnonzero(need)[walked_sub]
    walked_at = (
        np.arange(walked_ptr[-1], dtype=np.int64) - walked_ptr[walked_sub] + indptr[walked_class]
    )
    out = []
    for h, w in zip(hull_arrays, walked_arrays, strict=True):
        merged = np.empty(indptr[-1], dtype=w.dtype)
        merged[hull_at[from_hull]] = h[from_hull]
        merged[walked_at] = w
        out.append(merged)
    return indptr, out
