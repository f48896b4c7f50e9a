"""The exact F-macro optimum, certified: dual-bound reduction and a pruned Pareto merge.

F_beta is concave and positively homogeneous of degree 1, so for every direction on
its gradient curve ``g(u) = ((1+b²)(1-u)², (1+b²)u²/b²)``, ``u`` in [0, 1],

    F(S) <= <g(u), S>   for every (sum P, sum R) = S >= 0, with equality at one u.

Write ``h_k(g)`` for the best value of ``<g, x>`` over class k's points. Any choice
of one point per class has ``n F(P, R) = F(S) <= sum_k h_k(g)``, and choosing a point
``x`` in class k instead of its best one lowers that bound by the *loss*
``h_k(g) - <g, x>``. Given an achievable incumbent F = LB:

1. **Reduction.** A point whose loss exceeds ``sum_k h_k(g) - n LB`` for some ``g``
   can only be in choices with F < LB: drop it (several directions, repeated). When
   a class keeps several points, LB is first raised by coordinate ascent over the
   survivors (every slack shrinks with it).
   Dominated points of a class (another point has p and r at least as large) are
   dropped too: F is non-decreasing in P and R. When every class keeps one point,
   every optimal choice reduces (by dominance swaps) to the one choice left, which is
   therefore optimal: no search runs.
2. **Pruned Pareto merge.** The classes left with one point are a constant; the others
   are merged one at a time. A partial sum ``a`` (classes merged so far) survives only
   if ``<g, offset + a> + sum over unmerged classes of h_k(g) >= n LB`` for every
   direction of a small grid (otherwise no completion reaches LB), and only if no other
   partial sum is at least as large in both coordinates (its completions would be
   dominated). Each level also completes the surviving partial sums greedily (the
   best point of each unmerged class for each direction) to raise LB, and re-runs the
   reduction on the unmerged classes.
3. **Finish.** After the last class every survivor is a complete choice; the best is
   optimal. Near-ties (float F within 1e-12) are decided in exact rational
   arithmetic (``fractions.Fraction``) when there are at most
   ``EXACT_TIE_CLASSES`` classes.

Every pruning test is made with a safety margin above the float rounding error of
the sums involved, so nothing that could beat the incumbent is dropped. The proof is
in docs/f-macro.md ("The exact optimum"). ``time_limit`` stops the merge between
chunks of work: the result is then the best choice found with a valid upper bound
(the relaxation bound of :func:`fmacro.optimize.search.fixed_point`, tightened by the bound over
the partial sums still alive).

Cost: everything :func:`fmacro.optimize.search.fixed_point` does, plus one numba pass
over the cuts (dominance filter and the first reduction round fused, support values
read off fixed_point's hulls) and a few rounds on the survivors. When that leaves one
point per class, fixed_point's answer is proven optimal and nothing else runs
(``diagnostics["proof"] == "reduction"``; e.g. Corel5k). Otherwise the grid of
directions is built, the reduction repeated with it, and the merge runs; its size
depends on how many points survive (a handful per searched class on problems with
many classes).
"""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize._frames import names_from_frames
from fmacro.optimize.inputs import check_time_limit
from fmacro.optimize.search._exact_kernels import (
    best_completion,
    cap_ends,
    coordinate_polish,
    crossing_u,
    front_support,
    merge_chunk,
    merge_staircases,
    neumaier_sum,
    reduce_rounds,
    screen_cuts,
    suffix_sums,
    support,
    support_all,
)
from fmacro.optimize.search.brute_force import exact_f_of_cuts
from fmacro.optimize.search.constraints import constrained, noted
from fmacro.optimize.search.hull import ClassHulls, Sweep, class_hulls, edge_sweep
from fmacro.optimize.search.linearization import evaluate_checked, linearize_checked
from fmacro.optimize.search.points import ClassPoints, search_points
from fmacro.optimize.search.result import ThresholdResult
from fmacro.validation.checks import check_beta
from fmacro.validation.measures import f_beta_from_pr

__all__ = ["EXACT_TIE_CLASSES", "exact", "exact_from_sweep"]

EXACT_TIE_CLASSES = 2000
"""Near-ties are decided in Fraction arithmetic up to this many classes."""

_N_GRID = 8
_CHUNK_WORK = 2_000_000  # children tried per merge call (between time checks)
_MAX_TIE_CANDIDATES = 64
_POLISH_PASSES = 50
_EPS = float(np.finfo(np.float64).eps)


def gradient_directions(u: NDArray[np.float64], b2: float) -> tuple[NDArray, NDArray]:
    """Directions ``g(u) = ((1+b²)(1-u)², (1+b²)u²/b²)`` on F_beta's gradient curve.

    For every (P, R) >= 0, ``F_beta(P, R) = min over u in [0, 1] of <g(u), (P, R)>``,
    attained at ``u = b²P / (b²P + R)``.
    """
    uu = np.asarray(u, dtype=np.float64)
    return (1.0 + b2) * (1.0 - uu) ** 2, (1.0 + b2) * uu * uu / b2


def _u_of(p: NDArray[np.float64], r: NDArray[np.float64], b2: float) -> NDArray[np.float64]:
    den = b2 * p + r
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0.0, b2 * p / np.where(den > 0.0, den, 1.0), 0.5)


def _crossing_u(p0: Any, r0: Any, p1: Any, r1: Any, lb: float, b2: float) -> float:
    """u where F first reaches ``lb`` walking from (p0, r0) to (p1, r1) (F >= lb there)."""
    return float(crossing_u(float(p0), float(r0), float(p1), float(r1), float(lb), b2))


def _u_star(ub_point: NDArray[np.float64], b2: float) -> float:
    """u of the relaxation optimum: its direction is the tightest single bound."""
    return float(_u_of(np.array([ub_point[0]]), np.array([ub_point[1]]), b2)[0])


def _grid(sweep: Sweep, ub_point: NDArray[np.float64], lb: float, beta: float) -> NDArray:
    """Directions to prune with (any u is valid; these are the useful ones).

    u of the relaxation optimum first, then a grid between the directions of the two
    ends of the cap {F >= LB} of conv D's boundary, then the u of the boundary states
    just outside the cap.
    """
    b2 = beta * beta
    u_star = _u_star(ub_point, b2)
    big_p = np.asarray(sweep.P)
    big_r = np.asarray(sweep.R)
    i0, i1, i_max = (int(v) for v in cap_ends(big_p, big_r, b2, lb))
    last = big_p.size - 1
    ends = [u_star]
    if i0 >= 0:
        if i0 > 0:
            ends.append(_crossing_u(big_p[i0 - 1], big_r[i0 - 1], big_p[i0], big_r[i0], lb, b2))
        if i1 < last:
            ends.append(_crossing_u(big_p[i1 + 1], big_r[i1 + 1], big_p[i1], big_r[i1], lb, b2))
    else:  # the cap lies inside the edge of the relaxation optimum
        i0 = i1 = i_max
        for j in (max(i0 - 1, 0), i0, min(i0 + 1, last)):
            ends.append(_crossing_u(big_p[j], big_r[j], ub_point[0], ub_point[1], lb, b2))
    grid = np.linspace(min(ends), max(ends), _N_GRID)
    nb = [max(i0 - 1, 0), min(i1 + 1, last)]
    outer = _u_of(big_p[nb], big_r[nb], b2)
    rest = np.setdiff1d(np.clip(np.concatenate((grid, outer)), 0.0, 1.0), [u_star])
    return np.concatenate(([u_star], rest))


@attrs.frozen
class _Candidates:
    """Per-class candidate points (CSR), their global cut indices, alive mask."""

    ptr: NDArray[np.int64]
    idx: NDArray[np.int64]
    p: NDArray[np.float64]
    r: NDArray[np.float64]
    alive: NDArray[np.bool_]


def _screened_candidates(
    hulls: ClassHulls, ga: NDArray, gc: NDArray, target: float, margin: float
) -> tuple[_Candidates, int]:
    """The non-dominated cuts that pass one reduction round; and how many were non-dominated.

    One pass over the cuts (:func:`screen_cuts`), with support values read off the
    hulls that :func:`fixed_point` already built.
    """
    points = hulls.points
    precision = np.asarray(points.precision)
    recall = np.asarray(points.recall)
    ptr, idx, n_nondominated = screen_cuts(
        np.asarray(points.indptr),
        precision,
        recall,
        np.asarray(hulls.vertex_indptr),
        np.asarray(hulls.vertex_p),
        np.asarray(hulls.vertex_r),
        np.ascontiguousarray(ga, dtype=np.float64),
        np.ascontiguousarray(gc, dtype=np.float64),
        float(target),
        float(margin),
    )
    p = np.ascontiguousarray(precision[idx])
    r = np.ascontiguousarray(recall[idx])
    return _Candidates(ptr, idx, p, r, np.ones(idx.size, dtype=bool)), int(n_nondominated)


def _reduce(
    cand: _Candidates,
    ga: NDArray,
    gc: NDArray,
    target: float,
    margin: float,
    fixed: NDArray[np.float64] | None = None,
    rounds: int = 3,
) -> None:
    """Kill points whose loss exceeds the slack of some direction (in place).

    ``fixed[i]`` adds the best value the classes outside ``cand`` can contribute
    under direction ``i`` (merged classes); ``target`` is n LB.
    """
    extra = np.zeros(ga.size) if fixed is None else np.ascontiguousarray(fixed, dtype=np.float64)
    reduce_rounds(
        cand.ptr,
        cand.p,
        cand.r,
        cand.alive,
        np.ascontiguousarray(ga, dtype=np.float64),
        np.ascontiguousarray(gc, dtype=np.float64),
        float(target),
        float(margin),
        extra,
        rounds,
    )


@attrs.define
class _Search:
    """Mutable state of one exact search (private).

    The incumbent is ``inc_cuts`` with F-macro ``inc_f``, found by ``source``
    ("fixed_point", "coordinate_ascent" or "search").
    """

    points: ClassPoints
    b: float
    cand: _Candidates
    ga: NDArray[np.float64]
    gc: NDArray[np.float64]
    margin: float
    inc_cuts: NDArray[np.int64]
    inc_f: float
    deadline: float | None
    source: str = "fixed_point"
    n_nodes: int = 0
    max_front: int = 1

    @property
    def target(self) -> float:
        return self.points.n_classes * self.inc_f

    def out_of_time(self) -> bool:
        return self.deadline is not None and time.perf_counter() > self.deadline


def _compact(cand: _Candidates, classes: NDArray[np.int64]) -> _Candidates:
    """The alive candidates of ``classes`` (in that order) as a new CSR layout."""
    lens = np.zeros(classes.size + 1, dtype=np.int64)
    pieces = []
    for j, k in enumerate(classes.tolist()):
        sl = slice(int(cand.ptr[k]), int(cand.ptr[k + 1]))
        live = np.flatnonzero(cand.alive[sl]) + sl.start
        pieces.append(live)
        lens[j + 1] = live.size
    sel = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64)
    return _Candidates(
        np.cumsum(lens),
        cand.idx[sel],
        np.ascontiguousarray(cand.p[sel]),
        np.ascontiguousarray(cand.r[sel]),
        np.ones(sel.size, dtype=bool),
    )


def _alive_counts(cand: _Candidates) -> NDArray[np.int64]:
    csum = np.concatenate(([0], np.cumsum(cand.alive, dtype=np.int64)))
    return np.asarray(csum[cand.ptr[1:]] - csum[cand.ptr[:-1]], dtype=np.int64)


def _run(state: _Search) -> tuple[bool, float, list[NDArray[np.int64]]]:
    """The merge. Returns (finished, upper bound in sum units, final tie candidates).

    Improvements of the incumbent are kept as the choices of the searched classes
    (F from compensated sums of those classes and of the fixed ones) and turned into
    cuts of every class once, when the merge stops: a full evaluation per
    improvement would cost O(classes) each.
    """
    pts = state.points
    n = pts.n_classes
    b2 = state.b * state.b
    ga = np.ascontiguousarray(state.ga, dtype=np.float64)
    gc = np.ascontiguousarray(state.gc, dtype=np.float64)
    counts = _alive_counts(state.cand)
    multi = np.flatnonzero(counts > 1)
    multi = multi[np.argsort(counts[multi], kind="stable")]
    single = np.flatnonzero(counts == 1)
    # the one point of every single class, from the first alive candidate
    _, arg0 = support(state.cand.ptr, state.cand.p, state.cand.r, state.cand.alive, 1.0, 1.0)
    off_p = neumaier_sum(state.cand.p[arg0[single]])
    off_r = neumaier_sum(state.cand.r[arg0[single]])
    base_cuts = np.asarray(state.cand.idx[arg0] - pts.indptr[:-1], dtype=np.int64)
    mc = _compact(state.cand, multi)  # class j of mc is multi[j], merged in this order
    n_multi = multi.size
    inc_choice: list[NDArray[np.int64]] = []  # the best choice found (mc indices), if any

    # every direction's supports and picks in the merged classes, (n_dir, n_multi)
    sup, arg = support_all(mc.ptr, mc.p, mc.r, mc.alive, ga, gc)
    front_p = np.zeros(1)
    front_r = np.zeros(1)
    history: list[tuple[NDArray[np.int64], NDArray[np.int64]]] = []  # (parent, mc index)

    def choice_of(level: int, node: int, rest_arg: NDArray[np.int64] | None) -> NDArray[np.int64]:
        """mc index chosen in every searched class: the path to ``node``, then ``rest_arg``."""
        choice = np.zeros(n_multi, dtype=np.int64)
        if rest_arg is not None and level + 1 < n_multi:
            choice[level + 1 :] = rest_arg[level + 1 :]
        for lv in range(level, -1, -1):
            parent, chosen = history[lv]
            choice[lv] = chosen[node]
            node = int(parent[node])
        return choice

    def cuts_of(choice: NDArray[np.int64]) -> NDArray[np.int64]:
        cuts: NDArray[np.int64] = base_cuts.copy()
        cuts[multi] = mc.idx[choice] - pts.indptr[multi]
        return cuts

    def offer(choice: NDArray[np.int64]) -> None:
        big_p = (off_p + neumaier_sum(mc.p[choice])) / n
        big_r = (off_r + neumaier_sum(mc.r[choice])) / n
        f = float(f_beta_from_pr(big_p, big_r, state.b))
        if not math.isnan(f) and f > state.inc_f:
            state.inc_f = f
            state.source = "search"
            inc_choice[:] = [choice]

    def stop(
        finished: bool, ub_sum: float, ties: list[NDArray[np.int64]]
    ) -> tuple[bool, float, list[NDArray[np.int64]]]:
        for choice in ties:
            offer(choice)
        if inc_choice:
            state.inc_cuts = cuts_of(inc_choice[0])
        return finished, ub_sum, [cuts_of(c) for c in ties]

    def rest_sums(first: int) -> tuple[NDArray, NDArray, NDArray]:
        """Per direction: sums of supports, argmax p and argmax r over classes >= first."""
        return suffix_sums(sup, mc.p, mc.r, arg, first)

    def front_bound(level: int) -> float:
        """Max over the front (classes < level merged) of the min-direction bound."""
        hs = rest_sums(level)[0]
        vals = (
            ga[:, None] * (off_p + front_p[None, :])
            + gc[:, None] * (off_r + front_r[None, :])
            + hs[:, None]
        )
        return float(vals.min(axis=0).max()) + state.margin

    for level in range(n_multi):
        if state.out_of_time():
            return stop(False, front_bound(level), [])
        live = np.flatnonzero(mc.alive[mc.ptr[level] : mc.ptr[level + 1]]) + mc.ptr[level]
        xp = np.ascontiguousarray(mc.p[live])
        xr = np.ascontiguousarray(mc.r[live])
        base = ga * off_p + gc * off_r + rest_sums(level + 1)[0]
        step = max(1, _CHUNK_WORK // max(1, live.size))
        # rounding of the partial sums (level + 1 additions of values <= 1)
        tol = 8.0 * _EPS * (level + 2.0) * (level + 1.0)
        parts: list[tuple[NDArray, NDArray, NDArray, NDArray]] = []
        for lo in range(0, front_p.size, step):
            if lo > 0 and state.out_of_time():
                return stop(False, front_bound(level), [])
            hi = min(front_p.size, lo + step)
            cp, cr, par, cho = merge_chunk(
                front_p, front_r, lo, hi, xp, xr, ga, gc, base, state.target - state.margin, tol
            )
            parts.append((cp, cr, par, live[cho]))
        if len(parts) == 1:
            front_p, front_r, parent, chosen = parts[0]
        else:
            seg = np.concatenate(([0], np.cumsum([x[0].size for x in parts]))).astype(np.int64)
            all_p, all_r, all_par, all_cho = (
                np.concatenate([x[i] for x in parts]) for i in range(4)
            )
            front_p, front_r, parent, chosen = merge_staircases(
                all_p, all_r, all_par, all_cho, seg, tol
            )
        history.append((parent, chosen))
        state.n_nodes += int(front_p.size)
        state.max_front = max(state.max_front, int(front_p.size))
        if front_p.size == 0:
            return stop(True, state.target, [])  # nothing beats the incumbent
        # raise LB: complete every partial sum greedily, per direction
        _, ps, rs = rest_sums(level + 1)
        f_best, i_best, node = best_completion(front_p, front_r, off_p, off_r, ps, rs, n, b2)
        if f_best > state.inc_f:
            offer(choice_of(level, int(node), arg[int(i_best)]))
        if level + 1 < n_multi:
            # tighten: reduce the unmerged classes against the best partial sum
            fixed = ga * off_p + gc * off_r + front_support(front_p, front_r, ga, gc)
            rest_alive = mc.alive.copy()
            rest_alive[: mc.ptr[level + 1]] = False
            sub = attrs.evolve(mc, alive=rest_alive)
            _reduce(sub, ga, gc, state.target, state.margin, fixed=fixed)
            mc.alive[mc.ptr[level + 1] :] = rest_alive[mc.ptr[level + 1] :]
            sup, arg = support_all(mc.ptr, mc.p, mc.r, mc.alive, ga, gc)
    if n_multi == 0:
        return stop(True, state.target, [])
    # every survivor is complete: near-ties of the best are candidates for the finish
    f_fin = np.asarray(f_beta_from_pr((off_p + front_p) / n, (off_r + front_r) / n, state.b))
    best = float(f_fin.max())
    tol = 1e-12 * max(1.0, abs(best))
    near = np.flatnonzero(f_fin >= max(best, state.inc_f) - tol)
    near = near[np.argsort(-f_fin[near], kind="stable")][:_MAX_TIE_CANDIDATES]
    return stop(True, state.target, [choice_of(n_multi - 1, int(i), None) for i in near])


def _exact_f(points: ClassPoints, cuts: NDArray[np.int64], beta: Fraction) -> Fraction:
    """F-macro of ``cuts`` in rational arithmetic, of the values the search maximized.

    Plain points are ratios of counts (:func:`exact_f_of_cuts`); a subclass with
    transformed precision and recall (the smoothed points of ``optimize.tune``) is
    defined by its float values, each of which is a rational number exactly.
    """
    if type(points) is ClassPoints:
        return exact_f_of_cuts(points, cuts, beta)
    at = np.asarray(points.indptr)[:-1] + cuts
    n = points.n_classes
    big_p = exact_float_sum(points.precision[at].tolist()) / n
    big_r = exact_float_sum(points.recall[at].tolist()) / n
    b2 = beta * beta
    den = b2 * big_p + big_r
    return Fraction(0) if den == 0 else (1 + b2) * big_p * big_r / den


def exact_float_sum(values: list[float]) -> Fraction:
    """The exact sum of finite floats, as a fraction.

    Each float is an integer over a power of two; shifted to the largest of those powers
    they add as integers, with one fraction built at the end (a Fraction per addition
    costs a gcd each: 8x slower on 374 values in [0, 1]).
    """
    pairs = [v.as_integer_ratio() for v in values]
    if not pairs:
        return Fraction(0)
    shift = max(den.bit_length() for _, den in pairs) - 1
    total = sum(num << (shift - den.bit_length() + 1) for num, den in pairs)
    return Fraction(total, 1 << shift)


def _polish(state: _Search, cand: _Candidates) -> None:
    """Offer coordinate ascent over the alive candidates, from two starts.

    The starts: the incumbent's cuts (a class whose cut was removed takes its pick for
    the direction u*, ``state.ga[0], state.gc[0]``) and every class's pick for u*.
    """
    _, u_pick = support(
        cand.ptr, cand.p, cand.r, cand.alive, float(state.ga[0]), float(state.gc[0])
    )
    indptr = np.asarray(state.points.indptr)
    at = indptr[:-1] + state.inc_cuts
    pos = np.minimum(np.searchsorted(cand.idx, at), cand.idx.size - 1)
    kept = (cand.idx[pos] == at) & cand.alive[pos]
    b2 = state.b * state.b
    for start in (np.where(kept, pos, u_pick), u_pick):
        choice = coordinate_polish(cand.ptr, cand.p, cand.r, cand.alive, start, b2, _POLISH_PASSES)
        cuts = np.asarray(cand.idx[choice] - indptr[:-1], dtype=np.int64)
        f = evaluate_checked(state.points, cuts, state.b)[2]
        if not math.isnan(f) and f > state.inc_f:
            state.inc_f = f
            state.inc_cuts = cuts
            state.source = "coordinate_ascent"


def _sole_choice(cand: _Candidates, points: ClassPoints) -> NDArray[np.int64]:
    """Local cuts of the first alive candidate of every class."""
    _, arg = support(cand.ptr, cand.p, cand.r, cand.alive, 1.0, 1.0)
    return np.asarray(cand.idx[arg] - np.asarray(points.indptr)[:-1], dtype=np.int64)


def _margin(n: int, b2: float) -> float:
    """Rounding allowance (sum units) of every pruning test.

    Sums of up to n terms in [0, gmax] (compensated sums), the merge's additions and
    the hull-vertex support values, with a wide safety factor; gmax bounds both
    coordinates of every direction on the gradient curve.
    """
    gmax = (1.0 + b2) * max(1.0, 1.0 / b2)
    return 64.0 * _EPS * gmax * (n + 1.0) * (1.0 + math.log2(n + 1.0))


def class_best_values(
    ga: float,
    gc: float,
    precision: NDArray[np.float64],
    recall: NDArray[np.float64],
    indptr: NDArray[np.int64],
) -> NDArray[np.float64]:
    """Per class (points ``indptr[j]:indptr[j + 1]``), the largest ``ga p + gc r``: NaN
    points count as -inf, and so does a class without points."""
    values = ga * np.asarray(precision) + gc * np.asarray(recall)
    values = np.where(np.isnan(values), -np.inf, values)
    ptr = np.asarray(indptr)
    best = np.full(ptr.size - 1, -np.inf)
    # reduceat reads an empty class's segment as the next point: those stay -inf
    some = np.flatnonzero(np.diff(ptr) > 0)
    if some.size:
        best[some] = np.maximum.reduceat(values, ptr[some])
    return best


def screen_floors(
    points: ClassPoints, linear: ThresholdResult, beta: float
) -> tuple[float, float, NDArray[np.float64]]:
    """What a cut must reach to be a candidate of :func:`exact_from_sweep` after ``linear``.

    ``linear`` is :func:`fixed_point`'s answer (``exact=False``) at an edge crossing on
    ``points``, which hold (at least) every class's hull vertices. Returns ``(ga, gc,
    floors)``: the direction of the first reduction and, per kept class, a value below
    which ``ga p + gc r`` of a cut cannot pass that reduction (the class's support value
    minus twice the slack of ``linear``'s F, plus the margin: more than exact keeps, and
    exact's own incumbent is never below ``linear``'s, so its slack is never larger).
    A point that dominates a candidate passes too, so points holding the hull vertices
    and these cuts hold every candidate exact can keep, and with them its optimum.
    """
    return screen_floors_checked(points, linear, check_beta(beta))


def screen_floors_checked(
    points: ClassPoints, linear: ThresholdResult, b: float
) -> tuple[float, float, NDArray[np.float64]]:
    """:func:`screen_floors` with a checked beta ``b``: what ``tune``'s screen calls."""
    b2 = b**2
    u = np.array([_u_star(np.asarray(linear.diagnostics["ub_point"]), b2)])
    ga, gc = gradient_directions(u, b2)
    support_value = class_best_values(
        float(ga[0]), float(gc[0]), points.precision, points.recall, points.indptr
    )
    n = points.n_classes
    margin = _margin(n, b2)
    lb = linear.f if not math.isnan(linear.f) else -math.inf
    finite = np.where(np.isfinite(support_value), support_value, 0.0)
    slack = max(float(np.sum(finite)) - n * lb, 0.0) + margin
    return float(ga[0]), float(gc[0]), support_value - 2.0 * slack - margin


def exact_from_sweep(
    sweep: Sweep,
    *,
    beta: float = 1.0,
    time_limit: float | None = None,
    _start: float | None = None,
    _linear: ThresholdResult | None = None,
) -> ThresholdResult:
    """:func:`exact` on an already merged edge sweep.

    Stages: :func:`fixed_point_from_sweep` (incumbent and relaxation optimum); one
    pass over the cuts that drops dominated cuts and reduces against the direction
    of the relaxation optimum, with support values from the sweep's hulls; more
    rounds of that reduction on the survivors. When every class is left with one
    point the incumbent is proven optimal and the search is skipped
    (``diagnostics["proof"] == "reduction"``); otherwise the grid of directions is
    built, the reduction repeated with all of them, and the merge runs
    (``"search"``).
    """
    start = time.perf_counter() if _start is None else _start
    b = check_beta(beta)
    return exact_from_sweep_checked(sweep, b, check_time_limit(time_limit), start, _linear)


def exact_from_sweep_checked(
    sweep: Sweep,
    b: float,
    limit: float | None = None,
    start: float | None = None,
    linear: ThresholdResult | None = None,
) -> ThresholdResult:
    """:func:`exact_from_sweep` with checked ``b`` (beta) and ``limit`` (time limit), the
    clock started at ``start`` (default now) and, when given, the linearization's answer
    ``linear`` on this sweep: what internal steps call."""
    start = time.perf_counter() if start is None else start
    b2 = b * b
    deadline = None if limit is None else start + limit
    pts = sweep.hulls.points
    n = pts.n_classes
    # fixed_point passes its own answer on this sweep instead of having it computed again
    fp = linearize_checked(sweep, b) if linear is None else linear
    ub_point = np.asarray(fp.diagnostics["ub_point"])
    margin = _margin(n, b2)
    inc_f = fp.f if not math.isnan(fp.f) else -math.inf
    # the direction of the relaxation optimum alone: its bound is the tightest
    u = np.array([_u_star(ub_point, b2)])
    ga, gc = gradient_directions(u, b2)
    cand, n_points = _screened_candidates(sweep.hulls, ga, gc, n * inc_f, margin)
    # result cuts number every cut of a ranking; the search works on the points' own
    fp_local = pts.local_cuts(fp.cuts)
    state = _Search(pts, b, cand, ga, gc, margin, fp_local, inc_f, deadline)
    _reduce(cand, ga, gc, state.target, margin)
    if np.any(_alive_counts(cand) > 1):
        # a search is needed: first raise LB by coordinate ascent over the survivors (a
        # higher LB shrinks every slack below), then reduce with the grid of directions
        _polish(state, cand)
        _reduce(cand, ga, gc, state.target, margin)
        u = _grid(sweep, ub_point, state.inc_f, b)
        ga, gc = gradient_directions(u, b2)
        state.ga, state.gc = ga, gc
        _reduce(cand, ga, gc, state.target, margin)
    n_survivors = int(cand.alive.sum())
    n_multi = int(np.count_nonzero(_alive_counts(cand) > 1))
    if n_multi:
        finished, ub_sum, ties = _run(state)
    else:
        # one choice is left and every optimal choice reduces to it (proof in the module
        # docstring); it is the incumbent's unless that took a dominated cut
        finished, ub_sum = True, state.target
        only = _sole_choice(cand, pts)
        ties = [] if np.array_equal(only, state.inc_cuts) else [only]
        if ties and evaluate_checked(pts, only, b)[2] > state.inc_f:
            state.inc_cuts = only
    cuts = state.inc_cuts
    if finished and ties and n <= EXACT_TIE_CLASSES:
        exact_vals = [_exact_f(pts, c, Fraction(b)) for c in [state.inc_cuts, *ties]]
        i_best = int(np.argmax(np.array([v >= max(exact_vals) for v in exact_vals])))
        cuts = [state.inc_cuts, *ties][i_best]
    diag: dict[str, Any] = {
        "status": "optimal" if finished else "time_limit",
        "proof": "search" if n_multi else "reduction",
        "n_points": n_points,
        "n_survivors": n_survivors,
        "n_multi_classes": n_multi,
        "n_nodes": state.n_nodes,
        "max_front": state.max_front,
        "n_directions": int(u.size),
        "fixed_point_f": fp.f,
        "fixed_point_upper_bound": fp.upper_bound,
        "source": (
            "fixed_point"
            if np.array_equal(cuts, fp_local)
            else state.source
            if cuts is state.inc_cuts
            else "search"
        ),
    }
    if np.array_equal(cuts, fp_local):
        # fixed_point's own result already holds these cuts' thresholds, P, R and F
        f = fp.f
        ub = f if finished else max(min(fp.upper_bound, ub_sum / n), f)
        diag["seconds"] = time.perf_counter() - start
        return attrs.evolve(fp, method="exact", upper_bound=ub, gap=ub - f, diagnostics=diag)
    f = evaluate_checked(pts, cuts, b)[2]
    ub = f if finished else max(min(fp.upper_bound, ub_sum / n), f)
    diag["seconds"] = time.perf_counter() - start
    return ThresholdResult.from_checked_cuts(
        pts, cuts, beta=b, method="exact", upper_bound=ub, diagnostics=diag
    )


@names_from_frames("scores", "labels")
def exact(
    scores: Any = None,
    labels: Any = None,
    *,
    beta: float = 1.0,
    zero_division: float | None = None,
    empty_classes: str = "exclude",
    points: ClassPoints | None = None,
    time_limit: float | None = None,
    sample_weight: Any = None,
    min_precision: Any = None,
    max_predicted_rate: Any = None,
) -> ThresholdResult:
    """The exact F-macro optimum over all per-class cuts, with a proof.

    Parameters
    ----------
    scores, labels
        Rankings and true labels, as for :func:`fmacro.optimize.search.points.class_points`
        (omit both when ``points`` is given).
    beta
        F_beta weight, > 0.
    zero_division
        Precision of an empty cut (0.0, 1.0, or nan = empty cuts not allowed).
    empty_classes
        ``"exclude"`` (default) or ``"include"`` classes without positives.
    points
        Prebuilt :class:`~fmacro.optimize.search.points.ClassPoints`.
    time_limit
        Seconds (from the call) after which the search stops with the best choice
        found and a valid upper bound; ``None`` (default) runs to the end.
    sample_weight
        One non-negative weight per object, or ``None``: as for
        :func:`fmacro.optimize.fixed_point` (the search runs on
        ``class_points(scores, labels, sample_weight=...)``).

    min_precision, max_predicted_rate
        Per-class constraints on the cuts, as for :func:`fmacro.optimize.fixed_point`:
        the proof and bound are those of the optimum over the feasible cuts.
    Returns
    -------
    ThresholdResult
        ``method="exact"``. When the search finishes, ``upper_bound == f`` and
        ``gap == 0``: no choice of cuts reaches a higher F-macro (up to the float
        rounding of P and R; near-ties are decided in exact arithmetic for up to
        :data:`EXACT_TIE_CLASSES` classes). When ``time_limit`` stops it,
        ``upper_bound`` is a valid bound and ``diagnostics["status"]`` is
        ``"time_limit"``. ``diagnostics`` also holds ``proof`` (``"reduction"``
        when the reduction alone left one point per class, so no search ran;
        ``"search"`` otherwise), ``n_points`` (non-dominated
        cuts), ``n_survivors`` (after the reduction), ``n_multi_classes`` (classes
        left with more than one point), ``n_nodes`` (partial sums kept by the
        merge), ``max_front``, ``n_directions``, ``fixed_point_f``,
        ``fixed_point_upper_bound``, ``source`` (the stage that found the returned
        cuts: "fixed_point", "coordinate_ascent" or "search") and ``seconds``.

    Raises
    ------
    ValueError, TypeError
        Bad ``beta``, ``zero_division``, ``empty_classes``, ``time_limit`` or inputs.

    Examples
    --------
    The two classes of :func:`fmacro.optimize.fixed_point`'s example. The best pair of
    cuts is class 0's top 2 objects (p = 1, r = 1/2) with all six of class 1 (p = 1/2,
    r = 1): P = R = F = 3/4. The linearization's answer (F = 20/27) leaves both classes
    with several points after the reduction, so the merge runs and proves 3/4:

    >>> import numpy as np
    >>> scores = np.array([[0.6, 0.9], [0.5, 0.7], [0.4, 0.6], [0.3, 0.4], [0.2, 0.3], [0.1, 0.2]])
    >>> labels = np.array([[1, 1], [1, 0], [0, 1], [1, 0], [0, 0], [1, 1]])
    >>> res = exact(scores, labels)
    >>> res.cuts.tolist(), res.f, res.gap, res.diagnostics["proof"]
    ([2, 6], 0.75, 0.0, 'search')
    >>> round(res.diagnostics["fixed_point_f"], 4)
    0.7407
    """
    start = time.perf_counter()
    b = check_beta(beta)
    limit = check_time_limit(time_limit)
    pts = search_points(scores, labels, points, zero_division, empty_classes, sample_weight)
    pts, rules = constrained(pts, min_precision, max_predicted_rate)
    return noted(exact_checked(pts, b, limit, start), rules)


def exact_checked(
    points: ClassPoints, b: float, limit: float | None = None, start: float | None = None
) -> ThresholdResult:
    """:func:`exact` on given ``points`` with checked ``b`` (beta) and ``limit`` (time
    limit), the clock started at ``start`` (default now): what ``tune`` calls."""
    start = time.perf_counter() if start is None else start
    return exact_from_sweep_checked(edge_sweep(class_hulls(points)), b, limit, start)
