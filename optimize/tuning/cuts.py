"""The cut-level pieces every walk of ``tune`` shares: buffers, smoothed values, candidates.

A walk (:mod:`.hulls`, :mod:`.screen`, :mod:`.empty`) reads one class's cuts at a time
from a :mod:`.source` into buffers made here, smooths the cuts it needs with
:func:`cut_values` (the same floats as :func:`optimize.tuning.smoothing.smoothed_cut`
on every cut) and keeps the candidates of :func:`hull_candidates`: the ends of each run of
negatives and the few leading cuts where the finite-sample factor can bend p~
(docs/f-macro.md, property 4). Internal: the names are public for the sibling modules.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.tuning.smoothing import empty_chance, smoothed_cut
from fmacro.validation.dispatch import kernel

__all__ = [
    "Layer",
    "Outputs",
    "Scratch",
    "curved_prefix",
    "cut_values",
    "empty_chances",
    "grow_layer",
    "grow_outputs",
    "hull_candidates",
    "new_outputs",
    "new_scratch",
    "prior_major",
    "smooth_cuts",
]

Outputs = tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64], NDArray[np.int64]]


Scratch = tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]


@kernel(cache=True, nogil=True)
def grow_outputs(out: Outputs, need: int) -> Outputs:
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
def new_outputs(size: int) -> Outputs:
    """(tp, fp, threshold, cut number) buffers of ``size`` entries."""
    return (
        np.empty(size, dtype=np.int64),
        np.empty(size, dtype=np.int64),
        np.empty(size, dtype=np.float64),
        np.empty(size, dtype=np.int64),
    )


@kernel(cache=True, nogil=True)
def new_scratch(size: int) -> Scratch:
    """Per-class work arrays: candidate cuts, their p~ and r~, the chain's stack."""
    return (
        np.empty(size, dtype=np.int64),
        np.empty(size, dtype=np.float64),
        np.empty(size, dtype=np.float64),
        np.empty(size, dtype=np.int64),
    )


# The p~ and r~ of points kept besides the output buffers (a class's second layer).
Layer = tuple[NDArray[np.float64], NDArray[np.float64]]


@kernel(cache=True, nogil=True)
def grow_layer(layer: Layer, need: int) -> Layer:
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
def empty_chances(n_obj: int, n_eval: float, zd: float) -> NDArray[np.float64]:
    """:func:`empty_chance` for j = 0, 1, ... while it is not 0 (it depends on j alone)."""
    n = float(n_obj)
    finite = not np.isnan(zd) and not np.isinf(n_eval)
    table = np.zeros(min(n_obj + 1, int(40.0 * n / n_eval) + 2) if finite else 0)
    for j in range(table.size):
        table[j] = empty_chance(float(j), n, n_eval, zd)
    return table


@kernel(cache=True, nogil=True)
def curved_prefix(chances: NDArray[np.float64], priors: NDArray[np.float64], zd: float) -> int:
    """Cuts of fewer objects than this are kept whole by the walks (:func:`hull_candidates`).

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


@kernel(cache=True, nogil=True, inline="always")
def cut_values(
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


@kernel(cache=True, nogil=True)
def smooth_cuts(
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
        p[t], r[t] = cut_values(sel[t], tp, fp, m, pi, n_obj, a, chances, zd)


@kernel(cache=True, nogil=True)
def hull_candidates(
    tp: NDArray[np.int64], fp: NDArray[np.int64], c: int, n_curved: int, sel: NDArray[np.int64]
) -> int:
    """The cuts that can be hull vertices into ``sel``; returns how many.

    Within a run of cuts of equal tp (negatives), r~ is affine in j and p~ is convex in j
    from j = ``n_curved`` on (:func:`curved_prefix`: where the finite-sample factor is 1,
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


@kernel(cache=True)
def prior_major(
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
