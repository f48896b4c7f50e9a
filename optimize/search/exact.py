"""The exact F-macro optimum, certified: dual-bound reduction and a pruned Pareto merge.

F_beta is concave and positively homogeneous of degree 1, so for every direction on
its gradient curve ``g(u) = ((1+b²)(1-u)², (1+b²)u²/b²)``, ``u`` in [0, 1],

    F(S) <= <g(u), S>   for every (sum P, sum R) = S >= 0, with equality at one u.

Write ``h_k(g)`` for the best value of ``<g, x>`` over class k's points. Any choice
of one point per class has ``n F(P, R) = F(S) <= sum_k h_k(g)``, and choosing a point
``x`` in class k instead of its best one lowers that bound by the *loss*
``h_k(g) - <g, x>``. Given an achievable incumbent F = LB:

1. **Reduction.** A point whose loss exceeds ``sum_k h_k(g) - n LB`` for some ``g``
   can only be in choices with F < LB: drop it (several directions, repeated).
   Dominated points of a class (another point has p and r at least as large) are
   dropped first: F is non-decreasing in P and R.
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

Cost: everything :func:`fmacro.optimize.search.fixed_point` does, plus O(cuts) for the dominance
filter and O(cuts x directions) for the reduction, plus the merge, whose size
depends on how many points survive (a handful on problems with many classes).
"""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.search._exact_kernels import (
    class_pareto,
    merge_chunk,
    merge_staircases,
    neumaier_sum,
    reduce_points,
    support,
)
from fmacro.optimize.search.brute_force import exact_f_of_cuts
from fmacro.optimize.search.fixed_point import fixed_point_from_sweep
from fmacro.optimize.search.hull import Sweep, class_hulls, edge_sweep
from fmacro.optimize.search.points import ClassPoints, search_points
from fmacro.optimize.search.result import ThresholdResult, evaluate_cuts
from fmacro.validation.checks import check_beta
from fmacro.validation.measures import f_beta_from_pr

__all__ = ["EXACT_TIE_CLASSES", "exact", "exact_from_sweep"]

EXACT_TIE_CLASSES = 2000
"""Near-ties are decided in Fraction arithmetic up to this many classes."""

_N_GRID = 8
_CHUNK_WORK = 2_000_000  # children tried per merge call (between time checks)
_MAX_TIE_CANDIDATES = 64
_EPS = np.finfo(np.float64).eps


def _check_time_limit(time_limit: Any) -> float | None:
    if time_limit is None:
        return None
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float, np.number)):
        raise TypeError(f"time_limit must be a number of seconds or None, got {time_limit!r}")
    t = float(time_limit)
    if not t > 0.0 or math.isinf(t):
        raise ValueError(f"time_limit must be a positive finite number of seconds, got {t!r}")
    return t


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


def _crossing_u(p0: Any, r0: Any, p1: Any, r1: Any, lb: float, beta: float) -> float:
    """u where F first reaches ``lb`` walking from (p0, r0) to (p1, r1) (F >= lb there)."""
    p0, r0, p1, r1 = float(p0), float(r0), float(p1), float(r1)
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if f_beta_from_pr(p0 + mid * (p1 - p0), r0 + mid * (r1 - r0), beta) >= lb:
            hi = mid
        else:
            lo = mid
    pp, rr = p0 + hi * (p1 - p0), r0 + hi * (r1 - r0)
    return float(_u_of(np.array([pp]), np.array([rr]), beta * beta)[0])


def _grid(sweep: Sweep, ub_point: NDArray[np.float64], lb: float, beta: float) -> NDArray:
    """Directions to prune with (any u is valid; these are the useful ones).

    u of the relaxation optimum first, then a grid between the directions of the two
    ends of the cap {F >= LB} of conv D's boundary, then the u of the boundary states
    just outside the cap.
    """
    b2 = beta * beta
    u_star = float(_u_of(np.array([ub_point[0]]), np.array([ub_point[1]]), b2)[0])
    big_p = np.asarray(sweep.P)
    big_r = np.asarray(sweep.R)
    f_states = np.asarray(f_beta_from_pr(big_p, big_r, beta))
    inside = np.flatnonzero(f_states >= lb)
    last = big_p.size - 1
    ends = [u_star]
    if inside.size:
        i0, i1 = int(inside[0]), int(inside[-1])
        if i0 > 0:
            ends.append(_crossing_u(big_p[i0 - 1], big_r[i0 - 1], big_p[i0], big_r[i0], lb, beta))
        if i1 < last:
            ends.append(_crossing_u(big_p[i1 + 1], big_r[i1 + 1], big_p[i1], big_r[i1], lb, beta))
    else:  # the cap lies inside the edge of the relaxation optimum
        i0 = i1 = int(np.argmax(f_states))
        for j in (max(i0 - 1, 0), i0, min(i0 + 1, last)):
            ends.append(_crossing_u(big_p[j], big_r[j], ub_point[0], ub_point[1], lb, beta))
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


def _candidates(points: ClassPoints) -> _Candidates:
    ptr, idx = class_pareto(
        np.asarray(points.indptr),
        np.asarray(points.tp),
        np.asarray(points.precision),
        np.asarray(points.recall),
    )
    p = np.ascontiguousarray(points.precision[idx])
    r = np.ascontiguousarray(points.recall[idx])
    return _Candidates(ptr, idx, p, r, np.ones(idx.size, dtype=bool))


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
    for _ in range(rounds):
        killed = 0
        for i in range(ga.size):
            h, _ = support(cand.ptr, cand.p, cand.r, cand.alive, float(ga[i]), float(gc[i]))
            h_fin = np.where(np.isfinite(h), h, 0.0)
            total = neumaier_sum(h_fin) + (0.0 if fixed is None else float(fixed[i]))
            slack = max(total - target, 0.0) + margin
            killed += reduce_points(
                cand.ptr, cand.p, cand.r, cand.alive, float(ga[i]), float(gc[i]), h, slack
            )
        if killed == 0:
            break


@attrs.define
class _Search:
    """Mutable state of one exact search (private)."""

    points: ClassPoints
    b: float
    cand: _Candidates
    ga: NDArray[np.float64]
    gc: NDArray[np.float64]
    margin: float
    inc_cuts: NDArray[np.int64]
    inc_f: float
    deadline: float | None
    improved: bool = False
    n_nodes: int = 0
    max_front: int = 1

    @property
    def target(self) -> float:
        return self.points.n_classes * self.inc_f

    def offer(self, cuts: NDArray[np.int64]) -> None:
        f = evaluate_cuts(self.points, cuts, self.b)[2]
        if not math.isnan(f) and f > self.inc_f:
            self.inc_f = f
            self.inc_cuts = cuts
            self.improved = True

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
    """The merge. Returns (finished, upper bound in sum units, final tie candidates)."""
    pts = state.points
    n = pts.n_classes
    n_dir = state.ga.size
    ga, gc = state.ga, state.gc
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
    sup = np.zeros((n_dir, n_multi))
    arg = np.zeros((n_dir, n_multi), dtype=np.int64)

    def refresh_support() -> None:
        for i in range(n_dir):
            sup[i], arg[i] = support(mc.ptr, mc.p, mc.r, mc.alive, float(ga[i]), float(gc[i]))

    refresh_support()
    front_p = np.zeros(1)
    front_r = np.zeros(1)
    history: list[tuple[NDArray[np.int64], NDArray[np.int64]]] = []  # (parent, mc index)

    def cuts_of(level: int, node: int, rest_arg: NDArray[np.int64] | None) -> NDArray[np.int64]:
        cuts: NDArray[np.int64] = base_cuts.copy()
        if rest_arg is not None and level + 1 < n_multi:
            ks = multi[level + 1 :]
            cuts[ks] = mc.idx[rest_arg[level + 1 :]] - pts.indptr[ks]
        for lv in range(level, -1, -1):
            parent, chosen = history[lv]
            k = int(multi[lv])
            cuts[k] = int(mc.idx[chosen[node]] - pts.indptr[k])
            node = int(parent[node])
        return cuts

    def rest_sums(first: int) -> tuple[NDArray, NDArray, NDArray]:
        """Per direction: sums of supports, argmax p and argmax r over classes >= first."""
        hs = np.array([neumaier_sum(sup[i, first:]) for i in range(n_dir)])
        ps = np.array([neumaier_sum(mc.p[arg[i, first:]]) for i in range(n_dir)])
        rs = np.array([neumaier_sum(mc.r[arg[i, first:]]) for i in range(n_dir)])
        return hs, ps, rs

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
            return False, front_bound(level), []
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
                return False, front_bound(level), []
            hi = min(front_p.size, lo + step)
            cp, cr, par, cho = merge_chunk(
                front_p, front_r, lo, hi, xp, xr, ga, gc, base, state.target - state.margin, tol
            )
            parts.append((cp, cr, par, live[cho]))
        seg = np.concatenate(([0], np.cumsum([x[0].size for x in parts]))).astype(np.int64)
        all_p, all_r, all_par, all_cho = (np.concatenate([x[i] for x in parts]) for i in range(4))
        front_p, front_r, parent, chosen = merge_staircases(
            all_p, all_r, all_par, all_cho, seg, tol
        )
        history.append((parent, chosen))
        state.n_nodes += int(front_p.size)
        state.max_front = max(state.max_front, int(front_p.size))
        if front_p.size == 0:
            return True, state.target, []  # nothing beats the incumbent
        # raise LB: complete every partial sum greedily, per direction
        _, ps, rs = rest_sums(level + 1)
        tot_p = off_p + front_p[None, :] + ps[:, None]
        tot_r = off_r + front_r[None, :] + rs[:, None]
        f_all = np.asarray(f_beta_from_pr(tot_p / n, tot_r / n, state.b))
        i_best, node = np.unravel_index(int(np.argmax(f_all)), f_all.shape)
        if f_all[i_best, node] > state.inc_f:
            state.offer(cuts_of(level, int(node), arg[int(i_best)]))
        if level + 1 < n_multi:
            # tighten: reduce the unmerged classes against the best partial sum
            best_front = np.max(
                ga[:, None] * front_p[None, :] + gc[:, None] * front_r[None, :], axis=1
            )
            fixed = ga * off_p + gc * off_r + best_front
            rest_alive = mc.alive.copy()
            rest_alive[: mc.ptr[level + 1]] = False
            sub = attrs.evolve(mc, alive=rest_alive)
            _reduce(sub, ga, gc, state.target, state.margin, fixed=fixed)
            mc.alive[mc.ptr[level + 1] :] = rest_alive[mc.ptr[level + 1] :]
            refresh_support()
    if n_multi == 0:
        return True, state.target, []
    # every survivor is complete: near-ties of the best are candidates for the finish
    f_fin = np.asarray(f_beta_from_pr((off_p + front_p) / n, (off_r + front_r) / n, state.b))
    best = float(f_fin.max())
    tol = 1e-12 * max(1.0, abs(best))
    near = np.flatnonzero(f_fin >= max(best, state.inc_f) - tol)
    near = near[np.argsort(-f_fin[near], kind="stable")][:_MAX_TIE_CANDIDATES]
    return True, state.target, [cuts_of(n_multi - 1, int(i), None) for i in near]


def exact_from_sweep(
    sweep: Sweep,
    *,
    beta: float = 1.0,
    time_limit: float | None = None,
    _start: float | None = None,
) -> ThresholdResult:
    """:func:`exact` on an already merged edge sweep."""
    start = time.perf_counter() if _start is None else _start
    b = check_beta(beta)
    b2 = b * b
    limit = _check_time_limit(time_limit)
    deadline = None if limit is None else start + limit
    pts = sweep.hulls.points
    n = pts.n_classes
    fp = fixed_point_from_sweep(sweep, beta=b)
    cand = _candidates(pts)
    n_points = int(cand.idx.size)
    u = _grid(sweep, np.asarray(fp.diagnostics["ub_point"]), fp.f, b)
    ga, gc = gradient_directions(u, b2)
    gmax = float(max(ga.max(), gc.max()))
    # rounding of sums of up to n terms in [0, gmax] (compensated sums) and of the
    # merge's additions, with a wide safety factor
    margin = 64.0 * _EPS * gmax * (n + 1.0) * (1.0 + math.log2(n + 1.0))
    inc_f = fp.f if not math.isnan(fp.f) else -math.inf
    state = _Search(pts, b, cand, ga, gc, margin, pts.local_cuts(fp.cuts), inc_f, deadline)
    _reduce(cand, ga, gc, state.target, margin)
    n_survivors = int(cand.alive.sum())
    n_multi = int(np.count_nonzero(_alive_counts(cand) > 1))
    finished, ub_sum, ties = _run(state)
    for cuts in ties:
        state.offer(cuts)
    cuts = state.inc_cuts
    if finished and ties and n <= EXACT_TIE_CLASSES:
        exact_vals = [exact_f_of_cuts(pts, c, Fraction(b)) for c in [state.inc_cuts, *ties]]
        i_best = int(np.argmax(np.array([v >= max(exact_vals) for v in exact_vals])))
        cuts = [state.inc_cuts, *ties][i_best]
    f = evaluate_cuts(pts, cuts, b)[2]
    ub = f if finished else max(min(fp.upper_bound, ub_sum / n), f)
    diag: dict[str, Any] = {
        "status": "optimal" if finished else "time_limit",
        "n_points": n_points,
        "n_survivors": n_survivors,
        "n_multi_classes": n_multi,
        "n_nodes": state.n_nodes,
        "max_front": state.max_front,
        "n_directions": int(u.size),
        "fixed_point_f": fp.f,
        "fixed_point_upper_bound": fp.upper_bound,
        "source": "search" if state.improved else "fixed_point",
        "seconds": time.perf_counter() - start,
    }
    return ThresholdResult.from_cuts(
        pts, cuts, beta=b, method="exact", upper_bound=ub, diagnostics=diag
    )


def exact(
    scores: Any = None,
    labels: Any = None,
    *,
    beta: float = 1.0,
    zero_division: float | None = None,
    empty_classes: str = "exclude",
    points: ClassPoints | None = None,
    time_limit: float | None = None,
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

    Returns
    -------
    ThresholdResult
        ``method="exact"``. When the search finishes, ``upper_bound == f`` and
        ``gap == 0``: no choice of cuts reaches a higher F-macro (up to the float
        rounding of P and R; near-ties are decided in exact arithmetic for up to
        :data:`EXACT_TIE_CLASSES` classes). When ``time_limit`` stops it,
        ``upper_bound`` is a valid bound and ``diagnostics["status"]`` is
        ``"time_limit"``. ``diagnostics`` also holds ``n_points`` (non-dominated
        cuts), ``n_survivors`` (after the reduction), ``n_multi_classes`` (classes
        left with more than one point), ``n_nodes`` (partial sums kept by the
        merge), ``max_front``, ``n_directions``, ``fixed_point_f``,
        ``fixed_point_upper_bound``, ``source`` ("fixed_point" when its incumbent
        was already optimal, else "search") and ``seconds``.

    Raises
    ------
    ValueError, TypeError
        Bad ``beta``, ``zero_division``, ``empty_classes``, ``time_limit`` or inputs.
    """
    start = time.perf_counter()
    b = check_beta(beta)
    _check_time_limit(time_limit)
    pts = search_points(scores, labels, points, zero_division, empty_classes)
    sweep = edge_sweep(class_hulls(pts))
    return exact_from_sweep(sweep, beta=b, time_limit=time_limit, _start=start)
