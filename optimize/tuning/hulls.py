"""The first walk of ``tune``'s fast path: each class's smoothed hull vertices and second layer.

:func:`optimize.fixed_point` on smoothed points reads only each class's upper-right
hull vertices, unless its crossing falls on an edge (then the exact step needs the cuts
of :mod:`.screen`). :func:`walked_hulls` therefore walks each class's sorted scores once,
smooths only the candidates of :func:`~.cuts.hull_candidates` in a per-class scratch
buffer, and keeps the cuts on the upper-right hull chain, for each pseudo-count of a grid
in the same walk. The result holds a few cuts per class instead of one per distinct
score, so ``tune`` costs about what ``fixed_point`` does. A fit's walk
(:func:`smoothed_hull_fit`) also keeps each class's second layer, the upper-right chain
of its other cuts, whose best value under the screen's direction says whether any cut
besides the vertices reaches the class's floor. The prior centre pi_k is the tuning
labels' own rate m_k / N by default, or a given one (``tune(base_rates=...)``).

The values are the same floats as ``smooth_points(class_points(...))`` (both call
:func:`optimize.tuning.smoothing.smoothed_cut`), and the chains are those of
:func:`optimize.search.hull.class_hulls` (both call ``upper_chain``): a chain's vertices
are their own chain, so ``fixed_point`` on these points finds the same hulls, sweep,
crossing, cuts and certificate (tests/test_tune_fast_path.py, against every cut).
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.inputs import kept_classes
from fmacro.optimize.offsets import indptr_from_counts
from fmacro.optimize.search._blocks import label_sizes
from fmacro.optimize.search.hull import upper_chain
from fmacro.optimize.search.points import ClassPoints
from fmacro.optimize.tuning.cuts import (
    Layer,
    Outputs,
    Scratch,
    curved_prefix,
    empty_chances,
    grow_layer,
    grow_outputs,
    hull_candidates,
    new_outputs,
    new_scratch,
    prior_major,
    smooth_cuts,
)
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
    "SecondLayers",
    "WalkedHulls",
    "emit_second_layer",
    "smoothed_hull_at",
    "smoothed_hull_fit",
    "smoothed_hull_points",
    "walked_hulls",
]


@kernel(cache=True, nogil=True)
def emit_second_layer(
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
    inner: Scratch,
    layer: Layer,
    o: int,
) -> tuple[Layer, int, int]:
    """The upper-right chain of a class's cuts that are not vertices of its hull chain
    (``stack[start:top]`` over the candidates ``sel[:k]``), its points' (p~, r~) appended
    to ``layer`` from entry ``o``. Returns the buffers, the next entry and the count.

    Under any direction (ga, gc) >= 0 the best value ``ga p~ + gc r~`` of those cuts is
    the best over this chain's points. Along a run r~ is affine in j and p~ convex
    (:func:`hull_candidates`), so the value is convex there and its inner cuts are
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
    smooth_cuts(cut, n, tp, fp, m, pi, n_obj, a, chances, zd, ip, ir)
    first, last = upper_chain(ip, ir, 0, n, istack)
    layer = grow_layer(layer, o + last - first)
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
    scratch: Scratch,
    counts: NDArray[np.int64],
    col: int,
    out: Outputs,
    o: int,
) -> tuple[Outputs, int, int, int, int]:
    """One class's hull cuts for each prior, appended to ``out`` from entry ``o``.

    ``tp``, ``fp``, ``thr``: the class's ``c`` cuts (m positives, prior centre ``pi``);
    ``curved``: from :func:`curved_prefix`; ``counts[g, col]`` gets the number of
    vertices at ``priors[g]``. Returns the buffers, the next entry, and for the last
    prior the number of candidates and the chain's ``(start, top)`` in ``scratch``
    (whose candidates, p~, r~ and stack stay as that prior left them).
    """
    sel, p, r, stack = scratch
    k = hull_candidates(tp, fp, c, curved, sel)
    start = top = 0
    for g_prior in range(priors.size):
        smooth_cuts(sel, k, tp, fp, m, pi, n_obj, priors[g_prior], chances, zd, p, r)
        start, top = upper_chain(p, r, 0, k, stack)
        out = grow_outputs(out, o + top - start)
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
def _hull_cuts(
    src: Source,
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
    the chain; then, with ``second`` (for one prior), each class's second layer
    (:func:`emit_second_layer`): its number of points per class and the points' p~ and
    r~ in class order (all empty otherwise).
    """
    n_classes, room = source_classes(src)
    n_obj = src[9]
    counts = np.zeros((priors.size, n_classes), dtype=np.int64)
    out = new_outputs(8 * n_classes * priors.size + 16)
    tp, fp, thr, _ = new_outputs(room)  # one class's cuts
    scratch = new_scratch(room)
    inner = new_scratch(room if second else 0)
    second_counts = np.zeros(n_classes if second else 0, dtype=np.int64)
    layer_size = 4 * n_classes + 16 if second else 0
    layer = (np.empty(layer_size), np.empty(layer_size))
    chances = empty_chances(n_obj, n_eval, zd)
    curved = curved_prefix(chances, priors, zd)
    o = 0
    o2 = 0
    for i in range(n_classes):
        c, m = source_cuts(src, i, tp, fp, thr)
        pi = centres[first + i]
        out, o, k, start, top = _emit_hull(
            tp, fp, thr, c, m, pi, n_obj, priors, chances, curved, zd, scratch, counts, i, out, o
        )
        if second:
            a = priors[priors.size - 1]
            layer, o2, second_counts[i] = emit_second_layer(
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


# per kept class, its second layer's points (emit_second_layer): indptr over the
# classes, then their p~ and r~
SecondLayers = tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.float64]]


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
    # one prior's walk, when asked: each kept column's second layer
    second: SecondLayers | None = None

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

    def empty_columns(self) -> NDArray[np.int64]:
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
    (and with ``second``, for one prior, each class's second layer)."""
    if second and len(priors) != 1:
        raise ValueError("second layers are walked for one prior")
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
    parts = over_classes(
        inputs,
        cols,
        lambda src, first: _hull_cuts(src, first, rates, grid, float(n_eval), zd, second),
        rows,
    )
    by_prior = [(part[0], *prior_major(*part[:5])) for part in parts]
    cuts = []
    for g in range(grid.size):
        indptr = indptr_from_counts(np.concatenate([counts[g] for counts, *_ in by_prior]))
        arrays = tuple(
            np.concatenate([part[i][part[1][g] : part[1][g + 1]] for part in by_prior])
            for i in (2, 3, 4, 5)
        )
        cuts.append((indptr, *arrays))
    layers: SecondLayers | None = None
    if second:
        layer_ptr = indptr_from_counts(np.concatenate([part[5] for part in parts]))
        layer_p = np.concatenate([part[6] for part in parts])
        layer_r = np.concatenate([part[7] for part in parts])
        layers = (layer_ptr, layer_p, layer_r)
    return WalkedHulls(n_obj, inputs.n_cols, cols, sizes[cols], rates, cuts, layers)


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
        The scores and labels (:func:`walk_inputs`); the empty classes are left
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
    return [
        smoothed_hull_at(walked, g, float(a), n_eval, zero_division) for g, a in enumerate(priors)
    ]


def smoothed_hull_fit(
    inputs: WalkInputs,
    prior: float,
    *,
    n_eval: float,
    zero_division: float,
    base_rates: NDArray[np.float64] | None = None,
) -> tuple[SmoothedPoints, SecondLayers]:
    """:func:`smoothed_hull_points` at one prior (a fit's), and each kept class's second
    chain (indptr over the classes, p~, r~; :func:`emit_second_layer`): what lets an
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
        raise AssertionError("the walk was asked for the second layers")
    return smoothed_hull_at(walked, 0, float(prior), n_eval, zero_division), walked.second


def smoothed_hull_at(
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
