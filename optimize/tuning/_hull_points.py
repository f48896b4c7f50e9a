"""Hull-only smoothed points straight from dense scores (private; the fast path of ``tune``).

:func:`optimize.fixed_point` on smoothed points reads only each class's upper-right
hull vertices, unless its crossing falls on an edge (then the exact step needs the cuts
that can pass its reduction). :func:`smoothed_hull_points` therefore walks each class's
sorted scores once, smooths only the cuts that can be hull vertices (the ends of each run
of negatives and the few leading cuts where the finite-sample factor can bend p~:
docs/f-macro.md, property 4) in a
per-class scratch buffer, and keeps the cuts on the upper-right hull chain, for each
pseudo-count of a grid in the same walk. The result holds a few cuts per class instead of
one per distinct score, so ``tune`` costs about what ``fixed_point`` does. At an edge
crossing :func:`smoothed_screened_points` walks again and keeps the cuts the exact search
can use, in the classes where any can: a fit's walk (:func:`smoothed_hull_fit`) also
keeps each class's second chain, the upper-right chain of its other cuts, whose best
value under the reduction's direction says whether any cut besides the vertices reaches
the class's floor. The prior centre pi_k is the tuning labels' own rate m_k / N by default, or a
given one (``tune(base_rates=...)``): the argument holds for any pi_k >= 0.

The values are the same floats as ``smooth_points(class_points(...))`` (both call
:func:`optimize.tuning.smoothing.smoothed_cut`), and the chains are those of
:func:`optimize.search.hull.class_hulls` (both call ``upper_chain``): a chain's vertices
are their own chain, so ``fixed_point`` on these points finds the same hulls, sweep,
crossing, cuts and certificate (tests/test_tune_fast_path.py, against every cut).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.inputs import kept_classes, matching_shapes
from fmacro.optimize.search._blocks import (
    dense_labels,
    dense_scores,
    label_sizes,
    map_blocks,
    sorted_positives,
)
from fmacro.optimize.search.exact import class_best_values, screen_floors
from fmacro.optimize.search.hull import upper_chain
from fmacro.optimize.search.points import (
    ClassPoints,
    csc_column_cuts,
    longest_column,
    sorted_cuts,
    sparse_labels,
    sparse_scores,
)
from fmacro.optimize.search.result import ThresholdResult
from fmacro.optimize.tuning.smoothing import SmoothedPoints, empty_chance, sharing, smoothed_cut
from fmacro.validation.dispatch import kernel
from fmacro.validation.checks import is_sparse

__all__ = [
    "SecondChains",
    "WalkInputs",
    "smoothed_hull_fit",
    "smoothed_hull_points",
    "smoothed_screened_points",
    "unseen_thresholds",
    "walk_inputs",
]


_T = TypeVar("_T")
_Outputs = tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64], NDArray[np.int64]]
_Scratch = tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]


@kernel(cache=True, nogil=True)
def _room(out: _Outputs, need: int) -> _Outputs:
    """The output buffers (tp, fp, threshold, cut number), grown to hold ``need`` entries."""
    if need <= out[0].size:
        return out
    size = max(2 * out[0].size, need)
    grown = (
        np.empty(size, dtype=np.int64),
        np.empty(size, dtype=np.int64),
        np.empty(size, dtype=np.float64),
        np.empty(size, dtype=np.int64),
    )
    for i in range(out[0].size):
        grown[0][i] = out[0][i]
        grown[1][i] = out[1][i]
        grown[2][i] = out[2][i]
        grown[3][i] = out[3][i]
    return grown


@kernel(cache=True, nogil=True)
def _new_outputs(size: int) -> _Outputs:
    """(tp, fp, threshold, cut number) buffers of ``size`` entries."""
    return (
        np.empty(size, dtype=np.int64),
        np.empty(size, dtype=np.int64),
        np.empty(size, dtype=np.float64),
        np.empty(size, dtype=np.int64),
    )


@kernel(cache=True, nogil=True)
def _class_cuts(
    scores: NDArray[np.floating],
    labels: NDArray[np.bool_],
    srt: NDArray[np.floating],
    tp: NDArray[np.int64],
    fp: NDArray[np.int64],
    thr: NDArray[np.float64],
) -> tuple[int, int]:
    """Every cut of one dense class (``srt``: its scores ascending) into ``tp``, ``fp``,
    ``thr``, as :func:`optimize.class_points` makes them; returns (cuts, positives)."""
    pos = sorted_positives(scores, labels)
    return sorted_cuts(srt, pos, tp, fp, thr), pos.size


@kernel(cache=True, nogil=True)
def _empty_chances(n_obj: int, n_eval: float, zd: float) -> NDArray[np.float64]:
    """:func:`empty_chance` for j = 0, 1, ... while it is not 0 (it depends on j alone)."""
    n = float(n_obj)
    finite = not np.isnan(zd) and not np.isinf(n_eval)
    table = np.zeros(min(n_obj + 1, int(40.0 * n / n_eval) + 2) if finite else 0)
    for j in range(table.size):
        table[j] = empty_chance(float(j), n, n_eval, zd)
    return table


@kernel(cache=True, nogil=True)
def _curved_prefix(chances: NDArray[np.float64], priors: NDArray[np.float64], zd: float) -> int:
    """Cuts of fewer objects than this are kept whole by the walks (:func:`_hull_candidates`).

    Along a run of negatives p~ = c (1 - q_j) / (j + a) (c = tp + a pi >= 0 fixed,
    ``zero_division`` 0): past the chances table (q = 0) that is strictly convex in j,
    and inside it wherever u(j) = (1 - q_j) / (j + a) has positive second differences.
    Returned: the largest j of the table where a second difference of u, at any of
    ``priors``, is not above 1e-12 u(j) (a margin far above rounding), so from it on
    p~ is strictly convex. For n_eval = N this is 3-10 cuts instead of the table's 42.
    Other ``zero_division`` values add zd q_j (not strictly convex where q is cut to 0):
    the whole table.
    """
    size = chances.size
    if size == 0 or zd != 0.0:
        return size
    worst = 1  # the empty cut and the first are kept anyway
    for a in priors:
        for j in range(size, worst, -1):  # interior point j; q = 0 from ``size`` on
            u0 = (1.0 - chances[j - 1]) / (j - 1 + a)
            u1 = (1.0 - (chances[j] if j < size else 0.0)) / (j + a)
            u2 = (1.0 - (chances[j + 1] if j + 1 < size else 0.0)) / (j + 1 + a)
            if not u0 + u2 - 2.0 * u1 > 1e-12 * u1:
                worst = j
                break
    return worst


@kernel(cache=True, nogil=True)
def _smooth_cuts(
    sel: NDArray[np.int64],
    k: int,
    tp: NDArray[np.int64],
    fp: NDArray[np.int64],
    m: int,
    pi: float,
    n_obj: int,
    a: float,
    chances: NDArray[np.float64],
    zd: float,
    p: NDArray[np.float64],
    r: NDArray[np.float64],
) -> None:
    """(p~, r~) of the cuts ``sel[:k]`` into ``p[:k]``, ``r[:k]``."""
    for t in range(k):
        p[t], r[t] = _cut_values(sel[t], tp, fp, m, pi, n_obj, a, chances, zd)


@kernel(cache=True, nogil=True, inline="always")
def _cut_values(
    g: int,
    tp: NDArray[np.int64],
    fp: NDArray[np.int64],
    m: int,
    pi: float,
    n_obj: int,
    a: float,
    chances: NDArray[np.float64],
    zd: float,
) -> tuple[float, float]:
    """(p~, r~) of cut ``g`` of a class with m positives and prior centre ``pi``."""
    n = float(n_obj)
    jj = tp[g] + fp[g]
    j = float(jj)
    q = chances[jj] if jj < chances.size else 0.0
    return smoothed_cut(float(tp[g]), j, float(m), pi, j / n, a, q, zd)


def _indptr(counts: NDArray[np.int64]) -> NDArray[np.int64]:
    """Offsets of consecutive groups of ``counts`` entries (0 first, the total last)."""
    indptr = np.zeros(counts.size + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return indptr


# The p~ and r~ of points kept besides the output buffers (a class's second chain).
_Layer = tuple[NDArray[np.float64], NDArray[np.float64]]


@kernel(cache=True, nogil=True)
def _layer_room(layer: _Layer, need: int) -> _Layer:
    """The (p~, r~) buffers, grown to hold ``need`` entries."""
    if need <= layer[0].size:
        return layer
    size = max(2 * layer[0].size, need)
    p = np.empty(size)
    r = np.empty(size)
    # element loops: a slice assignment here costs seconds of compilation on first use
    for i in range(layer[0].size):
        p[i] = layer[0][i]
        r[i] = layer[1][i]
    return p, r


@kernel(cache=True, nogil=True)
def _emit_second_chain(
    sel: NDArray[np.int64],
    k: int,
    start: int,
    top: int,
    stack: NDArray[np.int64],
    tp: NDArray[np.int64],
    fp: NDArray[np.int64],
    m: int,
    pi: float,
    n_obj: int,
    a: float,
    chances: NDArray[np.float64],
    zd: float,
    inner: _Scratch,
    layer: _Layer,
    o: int,
) -> tuple[_Layer, int, int]:
    """The upper-right chain of a class's cuts that are not vertices of its hull chain
    (``stack[start:top]`` over the candidates ``sel[:k]``), its points' (p~, r~) appended
    to ``layer`` from entry ``o``. Returns the buffers, the next entry and the count.

    Under any direction (ga, gc) >= 0 the best value ``ga p~ + gc r~`` of those cuts is
    the best over this chain's points. Along a run r~ is affine in j and p~ convex
    (:func:`_hull_candidates`), so the value is convex there and its inner cuts are
    worth at most the best of the run's ends; an end that is a hull vertex is replaced
    by the inner cut next to it (the bound holds on the shorter run too). The
    upper-right chain of the rest holds the maximum of every such direction over them.
    :func:`smoothed_screened_points` compares it with a class's floor to know, without
    walking the class again, that no cut but its hull vertices reaches the floor.
    """
    cut, ip, ir, istack = inner
    n = 0  # at most the class's cuts: the k candidates and at most c - k others
    vertex = start
    for t in range(k):
        is_vertex = vertex < top and stack[vertex] == t
        if is_vertex:
            vertex += 1
        else:
            cut[n] = sel[t]
            n += 1
        if t + 1 < k and sel[t + 1] > sel[t] + 1:
            # A run's inner cuts are worth at most the best of the run's ends, convexity
            # again: an end that is not a vertex is among the points already; for an end
            # that is, the inner cut next to it stands in.
            lo = sel[t] + 1
            hi = sel[t + 1] - 1
            if is_vertex:
                cut[n] = lo
                n += 1
            if vertex < top and stack[vertex] == t + 1 and (hi > lo or not is_vertex):
                cut[n] = hi
                n += 1
    # smoothed by the kernel the candidates went through (no second inlined copy of it)
    _smooth_cuts(cut, n, tp, fp, m, pi, n_obj, a, chances, zd, ip, ir)
    first, last = upper_chain(ip, ir, 0, n, istack)
    layer = _layer_room(layer, o + last - first)
    for v in range(first, last):
        layer[0][o] = ip[istack[v]]
        layer[1][o] = ir[istack[v]]
        o += 1
    return layer, o, last - first


@kernel(cache=True, nogil=True)
def _emit_hull(
    tp: NDArray[np.int64],
    fp: NDArray[np.int64],
    thr: NDArray[np.float64],
    c: int,
    m: int,
    pi: float,
    n_obj: int,
    priors: NDArray[np.float64],
    chances: NDArray[np.float64],
    curved: int,
    zd: float,
    scratch: _Scratch,
    counts: NDArray[np.int64],
    col: int,
    out: _Outputs,
    o: int,
) -> tuple[_Outputs, int, int, int, int]:
    """One class's hull cuts for each prior, appended to ``out`` from entry ``o``.

    ``tp``, ``fp``, ``thr``: the class's ``c`` cuts (m positives, prior centre ``pi``);
    ``curved``: from :func:`_curved_prefix`; ``counts[g, col]`` gets the number of
    vertices at ``priors[g]``. Returns the buffers, the next entry, and for the last
    prior the number of candidates and the chain's ``(start, top)`` in ``scratch``
    (whose candidates, p~, r~ and stack stay as that prior left them).
    """
    sel, p, r, stack = scratch
    k = _hull_candidates(tp, fp, c, curved, sel)
    start = top = 0
    for g_prior in range(priors.size):
        _smooth_cuts(sel, k, tp, fp, m, pi, n_obj, priors[g_prior], chances, zd, p, r)
        start, top = upper_chain(p, r, 0, k, stack)
        out = _room(out, o + top - start)
        out_tp, out_fp, out_thr, out_number = out
        for v in range(start, top):
            g = sel[stack[v]]
            out_tp[o] = tp[g]
            out_fp[o] = fp[g]
            out_thr[o] = thr[g]
            out_number[o] = g
            o += 1
        counts[g_prior, col] = top - start
    return out, o, k, start, top


@kernel(cache=True, nogil=True)
def _new_scratch(size: int) -> _Scratch:
    """Per-class work arrays: candidate cuts, their p~ and r~, the chain's stack."""
    return (
        np.empty(size, dtype=np.int64),
        np.empty(size, dtype=np.float64),
        np.empty(size, dtype=np.float64),
        np.empty(size, dtype=np.int64),
    )


# One class's cuts come from a dense block (its rows: scores, labels, sorted scores) or
# from the columns ``cols`` of a CSC matrix holding retrieved entries only: the walks
# below read either through _source_cuts, so each is written once. A dense source has
# empty CSC arrays, a CSC source empty dense ones.
_Source = tuple[
    NDArray[Any],  # dense scores, one class per row
    NDArray[np.bool_],  # dense labels
    NDArray[Any],  # dense scores, each row ascending
    NDArray[np.int64],  # CSC scores: indptr, rows, values
    NDArray[np.int64],
    NDArray[np.float64],
    NDArray[np.int64],  # CSC labels: indptr, positive rows
    NDArray[np.int64],
    NDArray[np.int64],  # the CSC columns walked
    int,  # objects
]


def _dense_source(u: NDArray[Any], yb: NDArray[np.bool_], srt: NDArray[Any]) -> _Source:
    none = np.zeros(0, dtype=np.int64)
    return (u, yb, srt, none, none, np.zeros(0), none, none, none, int(srt.shape[1]))


def _csc_source(inputs: WalkInputs, cols: NDArray[np.int64]) -> _Source:
    if inputs.csc is None or inputs.label_columns is None:
        raise AssertionError("a CSC source needs CSC inputs")
    dense = np.zeros((0, 0))
    return (
        dense,
        np.zeros((0, 0), dtype=np.bool_),
        dense,
        *inputs.csc,
        *inputs.label_columns,
        cols,
        inputs.n_obj,
    )


def _over_classes(
    inputs: WalkInputs,
    cols: NDArray[np.int64],
    kernel: Callable[[_Source, int], _T],
    rows: NDArray[np.int64] | None = None,
) -> Sequence[_T]:
    """``kernel(source, first)`` over the classes ``cols`` of ``inputs``: once over the CSC
    columns, or on each dense block (``first``: the index in ``cols`` of its first class)."""
    if inputs.csc is not None:
        if rows is not None:
            raise ValueError("rows= is for dense scores")
        return [kernel(_csc_source(inputs, cols), 0)]
    return map_blocks(
        inputs.scores,
        inputs.labels,
        cols,
        lambda u, yb, srt, first: kernel(_dense_source(u, yb, srt), first),
        rows,
    )


@kernel(cache=True, nogil=True)
def _source_classes(src: _Source) -> tuple[int, int]:
    """(classes of ``src``, room for one class's cuts)."""
    if src[3].size == 0:
        return src[2].shape[0], src[9] + 1
    return src[8].size, longest_column(src[3], src[8]) + 2


@kernel(cache=True, nogil=True)
def _source_cuts(
    src: _Source,
    i: int,
    tp: NDArray[np.int64],
    fp: NDArray[np.int64],
    thr: NDArray[np.float64],
) -> tuple[int, int]:
    """Every cut of class ``i`` of ``src`` into ``tp``, ``fp``, ``thr``, as
    :func:`optimize.class_points` makes them; returns (cuts, positives)."""
    unsorted, y, srt, s_ptr, s_rows, s_vals, l_ptr, l_rows, cols, n_obj = src
    if s_ptr.size == 0:
        return _class_cuts(unsorted[i], y[i], srt[i], tp, fp, thr)
    return csc_column_cuts(s_ptr, s_rows, s_vals, l_ptr, l_rows, cols[i], n_obj, tp, fp, thr)


@kernel(cache=True, nogil=True)
def _hull_cuts(
    src: _Source,
    first: int,
    centres: NDArray[np.float64],
    priors: NDArray[np.float64],
    n_eval: float,
    zd: float,
    second: bool,
) -> tuple[
    NDArray[np.int64],
    NDArray[np.int64],
    NDArray[np.int64],
    NDArray[np.float64],
    NDArray[np.int64],
    NDArray[np.int64],
    NDArray[np.float64],
    NDArray[np.float64],
]:
    """Hull cuts of each class of ``src`` (class ``k = first + i`` of the walk, prior
    centre ``centres[k]``), for each pseudo-count in ``priors``.

    Returns ``counts[g, i]`` (hull vertices of class i at ``priors[g]``) and the
    vertices' tp, fp, threshold and cut number, ordered by class, then prior, then along
    the chain; then, with ``second`` (for one prior), each class's second chain
    (:func:`_emit_second_chain`): its number of points per class and the points' p~ and
    r~ in class order (all empty otherwise).
    """
    n_classes, room = _source_classes(src)
    n_obj = src[9]
    counts = np.zeros((priors.size, n_classes), dtype=np.int64)
    out = _new_outputs(8 * n_classes * priors.size + 16)
    tp, fp, thr, _ = _new_outputs(room)  # one class's cuts
    scratch = _new_scratch(room)
    inner = _new_scratch(room if second else 0)
    second_counts = np.zeros(n_classes if second else 0, dtype=np.int64)
    layer_size = 4 * n_classes + 16 if second else 0
    layer = (np.empty(layer_size), np.empty(layer_size))
    chances = _empty_chances(n_obj, n_eval, zd)
    curved = _curved_prefix(chances, priors, zd)
    o = 0
    o2 = 0
    for i in range(n_classes):
        c, m = _source_cuts(src, i, tp, fp, thr)
        pi = centres[first + i]
        out, o, k, start, top = _emit_hull(
            tp, fp, thr, c, m, pi, n_obj, priors, chances, curved, zd, scratch, counts, i, out, o
        )
        if second:
            a = priors[priors.size - 1]
            layer, o2, second_counts[i] = _emit_second_chain(
                scratch[0], k, start, top, scratch[3], tp, fp, m, pi, n_obj, a, chances, zd,
                inner, layer, o2,
            )  # fmt: skip
    return (
        counts,
        out[0][:o].copy(),
        out[1][:o].copy(),
        out[2][:o].copy(),
        out[3][:o].copy(),
        second_counts,
        layer[0][:o2].copy(),
        layer[1][:o2].copy(),
    )


@kernel(cache=True, nogil=True)
def _hull_candidates(
    tp: NDArray[np.int64], fp: NDArray[np.int64], c: int, n_curved: int, sel: NDArray[np.int64]
) -> int:
    """The cuts that can be hull vertices into ``sel``; returns how many.

    Within a run of cuts of equal tp (negatives), r~ is affine in j and p~ is convex in j
    from j = ``n_curved`` on (:func:`_curved_prefix`: where the finite-sample factor is 1,
    p~ = (tp + a pi) / (j + a)), for any prior centre pi >= 0 (the own rate m / N or a
    given one). With tp + a pi > 0 it is strictly convex: the inner cuts of a run there
    lie strictly below the chord of their nearest kept neighbours and are never hull
    vertices. With tp + a pi = 0 (tp = 0 and pi = 0, or a = 0) p~ is 0 along the run:
    with a > 0 its cuts are collinear, but a cut with p~ = 0 is never on the returned
    chain (that chain runs from the last vertex of maximal precision to the all-objects
    cut, whose p~ = (m + a pi) / (N + a) > 0, with p~ non-increasing); with a = 0, r~ is
    constant along the run and the chain keeps its first cut only. Either way any linear
    value ``ga p~ + gc r~`` (ga, gc >= 0) is convex along the run, at most the larger of
    its ends. Kept: the ends of each run, every cut whose predecessor predicts fewer than
    ``n_curved`` objects, the empty and first cuts (p of the empty cut is
    zero_division). docs/f-macro.md, property 4.
    """
    k = 0
    for g in range(c):
        if (
            g <= 1
            or g == c - 1
            or tp[g] != tp[g - 1]
            or tp[g + 1] != tp[g]
            or tp[g - 1] + fp[g - 1] < n_curved
        ):
            sel[k] = g
            k += 1
    return k


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
        p, r = _cut_values(g, tp, fp, m, pi, n_obj, a, chances, zd)
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
    scratch: _Scratch,
    keep: NDArray[np.bool_],
    out: _Outputs,
    o: int,
) -> tuple[_Outputs, int, int]:
    """One class's cuts that ``exact`` can use, appended to ``out`` from entry ``o``: its
    hull vertices ``hull_cut`` and the cuts with ``ga p~ + gc r~ >= low``. Inner cuts of a
    run are smoothed only when one of its ends reaches ``low`` (the value is convex along
    a run: :func:`_hull_candidates`). Returns the buffers, the next entry, the count."""
    sel, p, r, _ = scratch
    n_sel = _hull_candidates(tp, fp, c, curved, sel)
    _smooth_cuts(sel, n_sel, tp, fp, m, pi, n_obj, a, chances, zd, p, r)
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
    out = _room(out, o + n_keep)
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
    src: _Source,
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
    n_classes, room = _source_classes(src)
    n_obj = src[9]
    counts = np.zeros(n_classes, dtype=np.int64)
    out = _new_outputs(8 * n_classes + 16)
    tp, fp, thr, _ = _new_outputs(room)  # one class's cuts
    scratch = _new_scratch(room)
    keep = np.zeros(room, dtype=np.bool_)
    chances = _empty_chances(n_obj, n_eval, zd)
    curved = _curved_prefix(chances, np.array([a]), zd)
    o = 0
    for i in range(n_classes):
        k = first + i
        c, m = _source_cuts(src, i, tp, fp, thr)
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


@attrs.frozen(eq=False)
class WalkInputs:
    """Scores and labels checked once, in the form the walks read.

    Built by :func:`walk_inputs`; a fit and its edge walk, and every half of
    ``prior="cv"``, share one instead of converting the input each time. Dense: ``scores``
    (:func:`dense_scores`, not copied) and ``labels`` (a bool array or a checked CSC
    matrix, :func:`dense_labels`). Sparse scores: ``csc`` (indptr, indices, data of the
    checked CSC scores, NaN/inf refused) and ``label_columns`` (positive rows by column).
    """

    n_obj: int
    n_cols: int
    scores: Any = None
    labels: Any = None
    csc: tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]] | None = None
    label_columns: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None


def walk_inputs(scores: Any, labels: Any) -> WalkInputs:
    """``scores`` (dense, or a scipy sparse matrix of retrieved entries) and 0/1 ``labels``,
    checked as :func:`optimize.class_points` checks them, for the walks below."""
    n_obj, n_cols = matching_shapes(scores, labels)
    if not is_sparse(scores):
        return WalkInputs(n_obj, n_cols, dense_scores(scores), dense_labels(labels))
    csc = sparse_scores(scores)
    arrays = (
        np.asarray(csc.indptr, dtype=np.int64),
        np.asarray(csc.indices, dtype=np.int64),
        np.ascontiguousarray(csc.data, dtype=np.float64),
    )
    return WalkInputs(n_obj, n_cols, csc=arrays, label_columns=sparse_labels(labels))


# per kept class, its second chain's points (_emit_second_chain): indptr over the
# classes, then their p~ and r~
SecondChains = tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.float64]]


@attrs.frozen(eq=False)
class WalkedHulls:
    """The hull cuts of one walk, per prior, as bare arrays (private, not copied).

    ``cuts[g]`` = (indptr over the kept classes, tp, fp, threshold, cut number) of the
    vertices at the walk's ``g``-th prior.
    """

    n_obj: int  # objects walked (the rows given, or all)
    n_cols: int
    columns: NDArray[np.int64]  # the kept columns (with a positive), increasing
    support: NDArray[np.int64]  # positives of each kept column
    centres: NDArray[np.float64]  # prior centre pi of each kept column
    cuts: list[tuple[NDArray[np.int64], ...]]
    # one prior's walk, when asked: each kept column's second chain
    second: SecondChains | None = None

    def points(self, g: int, zero_division: float) -> ClassPoints:
        """The raw counts of the hull cuts at the ``g``-th prior, as points."""
        indptr, tp, fp, thr, number = self.cuts[g]
        return ClassPoints(
            indptr,
            tp,
            fp,
            thr,
            self.support,
            self.columns,
            self.n_obj,
            self.n_cols,
            zero_division,
            full_cut=number,
        )

    def missing(self) -> NDArray[np.int64]:
        """The columns left out (no positives), increasing."""
        left_out = np.ones(self.n_cols, dtype=bool)
        left_out[self.columns] = False
        return np.flatnonzero(left_out).astype(np.int64)


def walked_hulls(
    inputs: WalkInputs,
    priors: Sequence[float],
    *,
    n_eval: float,
    zero_division: float,
    rows: NDArray[np.int64] | None = None,
    base_rates: NDArray[np.float64] | None = None,
    second: bool = False,
) -> WalkedHulls:
    """:func:`smoothed_hull_points` without the objects: the hull cuts at each prior
    (and with ``second``, for one prior, each class's second chain)."""
    if second and len(priors) != 1:
        raise ValueError("second chains are walked for one prior")
    n_obj = inputs.n_obj
    grid = np.asarray(priors, dtype=np.float64)
    zd = float(zero_division)
    if inputs.label_columns is not None:
        sizes = np.diff(inputs.label_columns[0])
    elif rows is None:
        sizes = label_sizes(inputs.labels)
    else:
        n_obj = int(rows.size)
        sizes = label_sizes(inputs.labels[rows])
    cols = kept_classes(sizes, "exclude")
    rates = _centres(sizes[cols], n_obj, base_rates, cols)
    parts = _over_classes(
        inputs,
        cols,
        lambda src, first: _hull_cuts(src, first, rates, grid, float(n_eval), zd, second),
        rows,
    )
    by_prior = [(part[0], *_prior_major(*part[:5])) for part in parts]
    cuts = []
    for g in range(grid.size):
        indptr = _indptr(np.concatenate([counts[g] for counts, *_ in by_prior]))
        arrays = tuple(
            np.concatenate([part[i][part[1][g] : part[1][g + 1]] for part in by_prior])
            for i in (2, 3, 4, 5)
        )
        cuts.append((indptr, *arrays))
    chains: SecondChains | None = None
    if second:
        chain_ptr = _indptr(np.concatenate([part[5] for part in parts]))
        chain_p = np.concatenate([part[6] for part in parts])
        chain_r = np.concatenate([part[7] for part in parts])
        chains = (chain_ptr, chain_p, chain_r)
    return WalkedHulls(n_obj, inputs.n_cols, cols, sizes[cols], rates, cuts, chains)


@kernel(cache=True)
def _prior_major(
    counts: NDArray[np.int64],
    tp: NDArray[np.int64],
    fp: NDArray[np.int64],
    thr: NDArray[np.float64],
    number: NDArray[np.int64],
) -> tuple[
    NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.float64], NDArray[np.int64]
]:
    """A block's entries (row by row, each row's priors in turn) regrouped prior by prior,
    rows in order; returns the offsets of each prior's entries and the arrays."""
    n_priors, n_rows = counts.shape
    start = np.zeros(n_priors + 1, dtype=np.int64)
    for g in range(n_priors):
        start[g + 1] = start[g] + counts[g].sum()
    at = start[:-1].copy()
    out_tp = np.empty_like(tp)
    out_fp = np.empty_like(fp)
    out_thr = np.empty_like(thr)
    out_number = np.empty_like(number)
    src = 0
    for row in range(n_rows):
        for g in range(n_priors):
            for _ in range(counts[g, row]):
                o = at[g]
                out_tp[o] = tp[src]
                out_fp[o] = fp[src]
                out_thr[o] = thr[src]
                out_number[o] = number[src]
                at[g] += 1
                src += 1
    return start, out_tp, out_fp, out_thr, out_number


def smoothed_hull_points(
    inputs: WalkInputs,
    priors: Sequence[float],
    *,
    n_eval: float,
    zero_division: float,
    rows: NDArray[np.int64] | None = None,
    base_rates: NDArray[np.float64] | None = None,
) -> list[SmoothedPoints]:
    """Smoothed points holding only each class's upper-right hull cuts, one per prior.

    Parameters
    ----------
    inputs
        The scores and labels (:func:`walk_inputs`); classes without positives are left
        out, NaN/inf scores refused.
    priors
        Checked pseudo-counts a >= 0.
    n_eval
        Checked evaluation batch size (> 0, may be ``inf``).
    zero_division
        Checked precision of the empty cut.
    rows
        Increasing indices of the objects to use (default all; dense scores only): the
        points of that subset, without copying it.
    base_rates
        Checked prior centres pi per column (all ``n_cols`` columns, values in [0, 1]),
        as ``smooth_points(..., base_rates=)`` takes them. Default: the tuning labels'
        own rates m_k / N (of the ``rows`` used).

    Returns
    -------
    list of SmoothedPoints
        For each prior: points whose cuts are the hull vertices (``full_cut`` numbers
        them among all cuts), base rates the prior centres of the kept classes.
    """
    walked = walked_hulls(
        inputs,
        priors,
        n_eval=n_eval,
        zero_division=zero_division,
        rows=rows,
        base_rates=base_rates,
    )
    return [_smoothed_at(walked, g, float(a), n_eval, zero_division) for g, a in enumerate(priors)]


def smoothed_hull_fit(
    inputs: WalkInputs,
    prior: float,
    *,
    n_eval: float,
    zero_division: float,
    base_rates: NDArray[np.float64] | None = None,
) -> tuple[SmoothedPoints, SecondChains]:
    """:func:`smoothed_hull_points` at one prior (a fit's), and each kept class's second
    chain (indptr over the classes, p~, r~; :func:`_emit_second_chain`): what lets an
    edge's second walk (:func:`smoothed_screened_points`) leave out the classes where no
    cut but the hull vertices can reach the floor."""
    walked = walked_hulls(
        inputs,
        (prior,),
        n_eval=n_eval,
        zero_division=zero_division,
        base_rates=base_rates,
        second=True,
    )
    if walked.second is None:
        raise AssertionError("the walk was asked for the second chains")
    return _smoothed_at(walked, 0, float(prior), n_eval, zero_division), walked.second


def _smoothed_at(
    walked: WalkedHulls, g: int, a: float, n_eval: float, zero_division: float
) -> SmoothedPoints:
    """The hull cuts of ``walked`` at its ``g``-th prior (``a``), smoothed."""
    return sharing(
        walked.points(g, zero_division),
        pseudo_count=a,
        base_rate=walked.centres,
        n_eval=n_eval,
        centre_p=np.zeros(0),
        centre_r=np.zeros(0),
    )


def smoothed_screened_points(
    inputs: WalkInputs,
    hull: SmoothedPoints,
    linear: ThresholdResult,
    beta: float,
    second: SecondChains | None = None,
) -> SmoothedPoints:
    """The cuts :func:`optimize.exact` needs after ``linear`` ended on an edge.

    ``hull`` comes from :func:`smoothed_hull_points` on the same ``inputs`` and ``linear``
    is ``fixed_point(points=hull, exact=False)``. One more walk keeps, per class, the
    hull vertices and the cuts that can pass exact's first reduction
    (:func:`optimize.exact.screen_floors`), so ``fixed_point`` with its exact step finds
    the same optimum on these points as on every cut. (Its linearization's per-class
    candidate is taken over these cuts only; it serves as an incumbent, so at worst an
    exact tie is broken differently.) Given the classes' ``second`` chains (from
    :func:`smoothed_hull_fit`), a class whose second chain stays under its floor keeps
    its hull vertices without being walked again: the same points, fewer columns walked.
    """
    plan = screen_plan(hull, linear, beta, second)
    if not plan.need.any():
        return hull
    cols = np.asarray(hull.class_index)[plan.need]
    walked = screened_cuts(inputs, cols, plan, np.arange(cols.size, dtype=np.int64))
    return merge_screened(hull, plan, walked)


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
    hull: SmoothedPoints, linear: ThresholdResult, beta: float, second: SecondChains | None
) -> ScreenPlan:
    """The :class:`ScreenPlan` of ``hull`` after ``linear`` ended on an edge."""
    ga, gc, floors = screen_floors(hull, linear, beta)
    need = _classes_to_walk(ga, gc, floors, second)
    hull_ptr = np.asarray(hull.indptr)
    return ScreenPlan(
        ga,
        gc,
        need,
        np.ascontiguousarray(np.asarray(hull.base_rate)[need], dtype=np.float64),
        np.ascontiguousarray(floors[need]),
        _indptr(np.diff(hull_ptr)[need]),
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
    sub_ptr = _indptr(counts)
    sub_cut = plan.hull_cut[np.repeat(plan.hull_ptr[:-1][at], counts) + _ranks(counts)]
    centres, floors = plan.centres[at], plan.floors[at]
    args = (plan.pseudo_count, plan.n_eval, plan.zero_division, plan.ga, plan.gc)
    parts = _over_classes(
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
    starts = _indptr(counts)
    return np.arange(starts[-1], dtype=np.int64) - np.repeat(starts[:-1], counts)


def merge_screened(hull: SmoothedPoints, plan: ScreenPlan, walked: Screened) -> SmoothedPoints:
    """``hull`` with each needed class's cuts replaced by its screened cuts ``walked``
    (all the plan's needed classes, in order)."""
    kept = [np.asarray(x) for x in (hull.tp, hull.fp, hull.threshold, hull.full_cut)]
    indptr, (tp, fp, thr, number) = _by_class(
        plan.need, np.asarray(hull.indptr), kept, _indptr(walked[0]), list(walked[1:])
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
    ga: float, gc: float, floors: NDArray[np.float64], second: SecondChains | None
) -> NDArray[np.bool_]:
    """The classes whose cuts besides the hull vertices may reach their floor (all
    without ``second``): those whose second chain has a point with ``ga p~ + gc r~`` at
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
    n = need.size
    hull_counts = np.diff(hull_ptr)
    walked_counts = np.diff(walked_ptr)
    counts = hull_counts.copy()
    counts[need] = walked_counts
    indptr = _indptr(counts)
    hull_class = np.repeat(np.arange(n, dtype=np.int64), hull_counts)
    from_hull = ~need[hull_class]
    hull_at = np.arange(hull_ptr[-1], dtype=np.int64) - hull_ptr[hull_class] + indptr[hull_class]
    walked_sub = np.repeat(np.arange(walked_counts.size, dtype=np.int64), walked_counts)
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


@kernel(cache=True, nogil=True)
def _best_unseen_cut(
    tp: NDArray[np.int64],
    fp: NDArray[np.int64],
    thr: NDArray[np.float64],
    c: int,
    pi: float,
    n_obj: int,
    a: float,
    chances: NDArray[np.float64],
    zd: float,
    cos_phi: float,
    sin_phi: float,
) -> float:
    """Threshold of the first of a class's ``c`` cuts (no positives, prior centre ``pi``)
    maximizing ``cos_phi p~ + sin_phi r~`` (NaN counts as -inf); -inf for the last cut,
    the all-objects one. The rule of ``_solve.fill_unseen_thresholds`` on every cut."""
    best = -np.inf
    chosen = 0
    for g in range(c):
        p, r = _cut_values(g, tp, fp, 0, pi, n_obj, a, chances, zd)
        v = cos_phi * p + sin_phi * r
        if v > best:  # NaN never passes; the first maximum is kept
            best = v
            chosen = g
    return -np.inf if chosen == c - 1 else thr[chosen]


@kernel(cache=True, nogil=True)
def _unseen_cuts(
    src: _Source,
    first: int,
    centres: NDArray[np.float64],
    priors: NDArray[np.float64],
    n_eval: float,
    zd: float,
    cos_phis: NDArray[np.float64],
    sin_phis: NDArray[np.float64],
) -> NDArray[np.float64]:
    """:func:`_best_unseen_cut` of each class of ``src`` (without positives; class
    ``k = first + i`` has prior centre ``centres[k]``) at each pair (``priors[g]``, angle
    g): row g of the result; each class's cuts are built once for all pairs."""
    n_classes, room = _source_classes(src)
    n_obj = src[9]
    found = np.empty((priors.size, n_classes), dtype=np.float64)
    tp, fp, thr, _ = _new_outputs(room)  # one class's cuts
    chances = _empty_chances(n_obj, n_eval, zd)
    for i in range(n_classes):
        c, _ = _source_cuts(src, i, tp, fp, thr)
        pi = centres[first + i]
        for g in range(priors.size):
            found[g, i] = _best_unseen_cut(
                tp, fp, thr, c, pi, n_obj, priors[g], chances, zd, cos_phis[g], sin_phis[g]
            )
    return found


def unseen_thresholds(
    inputs: WalkInputs,
    cols: NDArray[np.int64],
    pi: NDArray[np.float64],
    *,
    pseudo_counts: Sequence[float],
    n_eval: float,
    zero_division: float,
    phis: Sequence[float],
    rows: NDArray[np.int64] | None = None,
) -> NDArray[np.float64]:
    """The thresholds of ``tune``'s rule for classes without tuning positives, walked.

    For each column of ``cols`` (increasing, without positives among the objects
    ``rows``, default all; prior centres ``pi``) and each pair (``pseudo_counts[g]``,
    ``phis[g]``), in row g of the result: the first cut maximizing ``cos(phi) p~ + sin(phi)
    r~`` over its smoothed cuts (tp = m = 0), -inf for the all-objects cut. The answer
    of ``_solve.fill_unseen_thresholds`` on every cut (the same floats:
    :func:`smoothed_cut`), one column's cuts at a time instead of every cut of the
    columns at once, read in place and built once for all the pairs.
    """
    centres = np.ascontiguousarray(pi, dtype=np.float64)
    priors = np.asarray(pseudo_counts, dtype=np.float64)
    angles = np.asarray(phis, dtype=np.float64)
    args = (priors, float(n_eval), float(zero_division), np.cos(angles), np.sin(angles))
    parts = _over_classes(
        inputs, cols, lambda src, first: _unseen_cuts(src, first, centres, *args), rows
    )
    return np.concatenate([np.zeros((priors.size, 0)), *parts], axis=1)


def _centres(
    support: NDArray[np.int64],
    n_obj: int,
    base_rates: NDArray[np.float64] | None,
    cols: NDArray[np.int64],
) -> NDArray[np.float64]:
    """Prior centre pi of each kept class ``cols``: ``base_rates[cols]`` when given, else
    the own rates m_k / N (the same floats as m / N in the smoothing kernel)."""
    if base_rates is None:
        return support / float(n_obj)
    return np.ascontiguousarray(base_rates[cols], dtype=np.float64)
