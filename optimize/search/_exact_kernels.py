"""numba kernels of the exact F-macro search (private; see :mod:`optimize.exact`).

All kernels work on a CSR-like candidate layout: class ``j`` owns candidates
``ptr[j]:ptr[j + 1]`` with coordinates ``p, r`` and a boolean ``alive`` mask. A
direction is a pair ``(ga, gc)``; a point's value under it is ``ga * p + gc * r``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from fmacro.validation.dispatch import kernel
from fmacro.validation.measures import f_beta_kernel

__all__ = [
    "best_completion",
    "cap_ends",
    "class_pareto",
    "coordinate_polish",
    "crossing_u",
    "front_support",
    "merge_chunk",
    "merge_staircases",
    "neumaier_sum",
    "reduce_points",
    "reduce_rounds",
    "screen_cuts",
    "suffix_sums",
    "support",
    "support_all",
]


@kernel(cache=True)
def neumaier_sum(x: NDArray[np.float64]) -> float:
    """Compensated (Kahan-Neumaier) sum: error about 2 ulp of the result, not n ulp."""
    s = 0.0
    c = 0.0
    for v in x:
        t = s + v
        if abs(s) >= abs(v):
            c += (s - t) + v
        else:
            c += (v - t) + s
        s = t
    return s + c


@kernel(cache=True)
def class_pareto(
    indptr: NDArray[np.int64],
    tp: NDArray[np.int64],
    p: NDArray[np.float64],
    r: NDArray[np.float64],
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Per class, the cuts not dominated by another cut of the same class.

    A cut is dropped when another cut of its class has ``p >=`` and ``r >=`` (one
    strict), or is an identical earlier point; NaN points (undefined empty cuts) are
    dropped. Cuts come in non-decreasing ``tp`` (so non-decreasing ``r``) order.
    Returns ``(ptr, idx)``: class ``j`` keeps global cut indices
    ``idx[ptr[j]:ptr[j + 1]]`` in increasing ``r`` (decreasing ``p``) order.
    """
    n = indptr.size - 1
    idx = np.empty(indptr[n], dtype=np.int64)
    ptr = np.zeros(n + 1, dtype=np.int64)
    out = 0
    for j in range(n):
        lo = indptr[j]
        hi = indptr[j + 1]
        start = out
        best_p = -np.inf  # best precision among strictly larger recall
        g_end = hi
        while g_end > lo:
            # the group of cuts with the recall of cut g_end - 1
            g_start = g_end - 1
            while g_start > lo and r[g_start - 1] == r[g_end - 1]:
                g_start -= 1
            cand = -1
            cand_p = -np.inf
            for c in range(g_start, g_end):
                if np.isnan(p[c]) or np.isnan(r[c]):
                    continue
                if p[c] > cand_p:
                    cand_p = p[c]
                    cand = c
            if cand >= 0 and cand_p > best_p:
                idx[out] = cand
                out += 1
                best_p = cand_p
            g_end = g_start
        # reverse to increasing recall
        a = start
        b = out - 1
        while a < b:
            tmp = idx[a]
            idx[a] = idx[b]
            idx[b] = tmp
            a += 1
            b -= 1
        ptr[j + 1] = out
    return ptr, idx[:out].copy()


@kernel(cache=True)
def support(
    ptr: NDArray[np.int64],
    p: NDArray[np.float64],
    r: NDArray[np.float64],
    alive: NDArray[np.bool_],
    ga: float,
    gc: float,
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Per class, the largest ``ga p + gc r`` over alive candidates and its index.

    Ties go to the first (lowest-recall) candidate; a class without alive candidates
    gets ``-inf`` and index -1.
    """
    n = ptr.size - 1
    h = np.full(n, -np.inf)
    arg = np.full(n, -1, dtype=np.int64)
    for j in range(n):
        for c in range(ptr[j], ptr[j + 1]):
            if alive[c]:
                v = ga * p[c] + gc * r[c]
                if v > h[j]:
                    h[j] = v
                    arg[j] = c
    return h, arg


@kernel(cache=True)
def reduce_points(
    ptr: NDArray[np.int64],
    p: NDArray[np.float64],
    r: NDArray[np.float64],
    alive: NDArray[np.bool_],
    ga: float,
    gc: float,
    h: NDArray[np.float64],
    slack: float,
) -> int:
    """Kill (in place) alive candidates whose loss ``h_j - (ga p + gc r)`` exceeds ``slack``.

    Returns the number of candidates killed.
    """
    n = ptr.size - 1
    killed = 0
    for j in range(n):
        for c in range(ptr[j], ptr[j + 1]):
            if alive[c] and h[j] - (ga * p[c] + gc * r[c]) > slack:
                alive[c] = False
                killed += 1
    return killed


@kernel(cache=True)
def support_all(
    ptr: NDArray[np.int64],
    p: NDArray[np.float64],
    r: NDArray[np.float64],
    alive: NDArray[np.bool_],
    ga: NDArray[np.float64],
    gc: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """:func:`support` under every direction ``(ga[i], gc[i])``: row i of each output.

    One call instead of one per direction: the merge refreshes every direction's
    supports after each level, where the calls' overhead outweighed their work.
    """
    g = ga.size
    n = ptr.size - 1
    h = np.empty((g, n))
    arg = np.empty((g, n), dtype=np.int64)
    for i in range(g):
        h_i, arg_i = support(ptr, p, r, alive, ga[i], gc[i])
        # element loops: slice assignments cost seconds of compilation on first use
        for j in range(n):
            h[i, j] = h_i[j]
            arg[i, j] = arg_i[j]
    return h, arg


@kernel(cache=True)
def suffix_sums(
    sup: NDArray[np.float64],
    p: NDArray[np.float64],
    r: NDArray[np.float64],
    arg: NDArray[np.int64],
    first: int,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Per direction i: the compensated sums of ``sup[i, first:]`` and of the p and r of
    the candidates ``arg[i, first:]`` (the remaining classes' supports and picks)."""
    g, n = sup.shape
    hs = np.empty(g)
    ps = np.empty(g)
    rs = np.empty(g)
    rest = max(n - first, 0)
    h_row = np.empty(rest)
    p_row = np.empty(rest)
    r_row = np.empty(rest)
    for i in range(g):
        # gathered by element loops (no slicing or fancy indexing to compile)
        for j in range(rest):
            h_row[j] = sup[i, first + j]
            p_row[j] = p[arg[i, first + j]]
            r_row[j] = r[arg[i, first + j]]
        hs[i] = neumaier_sum(h_row)
        ps[i] = neumaier_sum(p_row)
        rs[i] = neumaier_sum(r_row)
    return hs, ps, rs


@kernel(cache=True)
def reduce_rounds(
    ptr: NDArray[np.int64],
    p: NDArray[np.float64],
    r: NDArray[np.float64],
    alive: NDArray[np.bool_],
    ga: NDArray[np.float64],
    gc: NDArray[np.float64],
    target: float,
    margin: float,
    fixed: NDArray[np.float64],
    rounds: int,
) -> None:
    """Kill (in place) alive candidates whose loss under some direction exceeds its slack.

    Direction i's slack: the sum of the alive supports (classes without an alive
    candidate count 0) plus ``fixed[i]`` (what classes outside the layout contribute),
    minus ``target``, floored at 0, plus ``margin``. Up to ``rounds`` passes over the
    directions, stopping after a pass that kills nothing.
    """
    h_fin = np.empty(ptr.size - 1)
    for _ in range(rounds):
        killed = 0
        for i in range(ga.size):
            h, _ = support(ptr, p, r, alive, ga[i], gc[i])
            for j in range(h.size):  # a class without alive candidates counts 0
                h_fin[j] = h[j] if np.isfinite(h[j]) else 0.0
            total = neumaier_sum(h_fin) + fixed[i]
            slack = total - target
            if slack < 0.0:
                slack = 0.0
            slack += margin
            killed += reduce_points(ptr, p, r, alive, ga[i], gc[i], h, slack)
        if killed == 0:
            break


@kernel(cache=True)
def merge_chunk(
    front_p: NDArray[np.float64],
    front_r: NDArray[np.float64],
    lo: int,
    hi: int,
    xp: NDArray[np.float64],
    xr: NDArray[np.float64],
    ga: NDArray[np.float64],
    gc: NDArray[np.float64],
    base: NDArray[np.float64],
    target: float,
    tol: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]]:
    """Pareto front of the children ``a + x`` (front points ``lo:hi``, class points ``x``).

    A child is kept only when ``base[i] + ga[i] * P + gc[i] * R >= target`` for every
    direction ``i`` (``base`` holds the fixed offset and the remaining classes'
    support values) and no other kept child weakly dominates it. ``front`` must be a
    staircase (strictly decreasing P, increasing R): the children of one class point
    are then a staircase too, and the staircases are merged pairwise in linear
    passes. Returns the children's sums (decreasing P), parent and point indices.
    """
    m = xp.size
    g = ga.size
    cap = (hi - lo) * m
    out_p = np.empty(cap)
    out_r = np.empty(cap)
    par = np.empty(cap, dtype=np.int64)
    cho = np.empty(cap, dtype=np.int64)
    seg = np.zeros(m + 1, dtype=np.int64)
    # slack of every parent under every direction: a child passes direction i iff
    # its point's value reaches -slack
    va = np.empty((hi - lo, g))
    for a in range(lo, hi):
        for i in range(g):
            va[a - lo, i] = base[i] + ga[i] * front_p[a] + gc[i] * front_r[a] - target
    c = 0
    for t in range(m):
        x0 = xp[t]
        x1 = xr[t]
        vx = np.empty(g)
        for i in range(g):
            vx[i] = ga[i] * x0 + gc[i] * x1
        for a in range(lo, hi):
            ok = True
            for i in range(g):
                if va[a - lo, i] + vx[i] < 0.0:
                    ok = False
                    break
            if ok:
                out_p[c] = front_p[a] + x0
                out_r[c] = front_r[a] + x1
                par[c] = a
                cho[c] = t
                c += 1
        seg[t + 1] = c
    return merge_staircases(out_p[:c], out_r[:c], par[:c], cho[:c], seg, tol)


@kernel(cache=True)
def merge_staircases(
    sp: NDArray[np.float64],
    sr: NDArray[np.float64],
    par: NDArray[np.int64],
    cho: NDArray[np.int64],
    seg: NDArray[np.int64],
    tol: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]]:
    """The Pareto front of the union of staircases ``seg[s]:seg[s + 1]`` (each by decreasing P).

    Pairwise linear merges (a tournament): O(total x log(number of staircases)). A
    point is dropped when an earlier kept one has P at least as large and R at least
    as large minus ``tol`` (a rounding-level tolerance: sums of the same values
    added in different orders are one point, not a spurious staircase).
    Returns the front by decreasing P with its parent and point indices.
    """
    p = sp.copy()
    r = sr.copy()
    pa = par.copy()
    ch = cho.copy()
    bounds = seg.copy()
    while bounds.size > 2:
        n_seg = bounds.size - 1
        n_new = (n_seg + 1) // 2
        np_ = np.empty(p.size)
        nr = np.empty(p.size)
        npa = np.empty(p.size, dtype=np.int64)
        nch = np.empty(p.size, dtype=np.int64)
        nb = np.zeros(n_new + 1, dtype=np.int64)
        c = 0
        for s in range(n_new):
            i = bounds[2 * s]
            i_end = bounds[2 * s + 1]
            if 2 * s + 2 <= n_seg:
                j = bounds[2 * s + 1]
                j_end = bounds[2 * s + 2]
            else:
                j = i_end
                j_end = i_end
            best_r = -np.inf
            while i < i_end or j < j_end:
                if j >= j_end:
                    take = i
                    i += 1
                elif i >= i_end:
                    take = j
                    j += 1
                elif p[i] > p[j] or (p[i] == p[j] and r[i] >= r[j]):
                    take = i
                    i += 1
                else:
                    take = j
                    j += 1
                if r[take] > best_r + tol:
                    best_r = r[take]
                    np_[c] = p[take]
                    nr[c] = r[take]
                    npa[c] = pa[take]
                    nch[c] = ch[take]
                    c += 1
            nb[s + 1] = c
        p = np_[:c]
        r = nr[:c]
        pa = npa[:c]
        ch = nch[:c]
        bounds = nb
    return p.copy(), r.copy(), pa.copy(), ch.copy()


@kernel(cache=True)
def screen_cuts(
    indptr: NDArray[np.int64],
    p: NDArray[np.float64],
    r: NDArray[np.float64],
    vptr: NDArray[np.int64],
    vp: NDArray[np.float64],
    vr: NDArray[np.float64],
    ga: NDArray[np.float64],
    gc: NDArray[np.float64],
    target: float,
    margin: float,
) -> tuple[NDArray[np.int64], NDArray[np.int64], int]:
    """:func:`class_pareto` and the first round of the reduction in one pass over the cuts.

    Class ``j``'s support value under direction ``i`` is the largest
    ``ga[i] p + gc[i] r`` over its upper-right hull vertices ``vptr[j]:vptr[j + 1]``
    (directions are >= 0, so that is the largest over all its cuts). A non-dominated
    cut is kept only if its loss ``h_j - (ga p + gc r)`` is at most the slack
    ``max(sum_j h_j - target, 0) + margin`` of every direction. Dominance and the
    loss test commute (a dominated cut's loss is at least its dominator's, also in
    rounded arithmetic, which is monotone), so this keeps what :func:`class_pareto`
    followed by :func:`reduce_points` keeps, except that the support value comes from
    the hull vertices: rounding (of the values and of the hull's orientation test)
    can make it a few ulps of ``ga + gc`` below the largest value over all cuts,
    which ``margin`` (>= 64 ulps per class) absorbs. The cuts come in non-decreasing
    ``r`` order within a class, as for :func:`class_pareto`. Returns
    ``(ptr, idx, n_nondominated)``: :func:`class_pareto`'s layout of the kept cuts
    and the number of non-dominated cuts before the loss test.
    """
    n = indptr.size - 1
    g = ga.size
    h = np.full((n, g), -np.inf)
    for j in range(n):
        for v in range(vptr[j], vptr[j + 1]):
            for i in range(g):
                val = ga[i] * vp[v] + gc[i] * vr[v]
                if val > h[j, i]:
                    h[j, i] = val
    slack = np.empty(g)
    col = np.empty(n)
    for i in range(g):
        for j in range(n):
            col[j] = h[j, i] if np.isfinite(h[j, i]) else 0.0
        slack[i] = max(neumaier_sum(col) - target, 0.0) + margin
    idx = np.empty(indptr[n], dtype=np.int64)
    ptr = np.zeros(n + 1, dtype=np.int64)
    out = 0
    n_nondominated = 0
    for j in range(n):
        # forward: the best cut of each run of equal recall (the lowest index wins a
        # tie; NaN points never win, a NaN recall is a run of its own)
        start = out
        run_r = np.nan
        run_p = -np.inf
        run_c = -1
        for c in range(indptr[j], indptr[j + 1]):
            rc = r[c]
            pc = p[c]
            if rc == run_r:
                if pc > run_p:
                    run_p = pc
                    run_c = c
            else:
                if run_c >= 0:
                    idx[out] = run_c
                    out += 1
                run_r = rc
                run_p = -np.inf
                run_c = -1
                if not (np.isnan(pc) or np.isnan(rc)):
                    run_p = pc
                    run_c = c
        if run_c >= 0:
            idx[out] = run_c
            out += 1
        # backward: a run's best survives dominance iff its precision beats every
        # run of larger recall; then the loss test
        best_p = -np.inf
        kept = out
        for t in range(out - 1, start - 1, -1):
            c = idx[t]
            if p[c] > best_p:
                best_p = p[c]
                n_nondominated += 1
                keep = True
                for i in range(g):
                    if h[j, i] - (ga[i] * p[c] + gc[i] * r[c]) > slack[i]:
                        keep = False
                        break
                if keep:
                    kept -= 1
                    idx[kept] = c
        # the kept cuts sit at idx[kept:out] in increasing recall; move them to start
        m = out - kept
        for t in range(m):
            idx[start + t] = idx[kept + t]
        out = start + m
        ptr[j + 1] = out
    return ptr, idx[:out].copy(), n_nondominated


@kernel(cache=True)
def cap_ends(
    big_p: NDArray[np.float64], big_r: NDArray[np.float64], b2: float, lb: float
) -> tuple[int, int, int]:
    """First and last state with ``F >= lb`` (-1 if none) and the state of largest F."""
    first = -1
    last = -1
    best = 0
    best_f = -np.inf
    for s in range(big_p.size):
        f = f_beta_kernel(big_p[s], big_r[s], b2)
        if f >= lb:
            if first < 0:
                first = s
            last = s
        if f > best_f:
            best_f = f
            best = s
    return first, last, best


@kernel(cache=True)
def crossing_u(p0: float, r0: float, p1: float, r1: float, lb: float, b2: float) -> float:
    """u where F first reaches ``lb`` walking from (p0, r0) to (p1, r1) (F >= lb there).

    Bisection on the walk, then ``u = b² P / (b² P + R)`` at the point found (0.5 when
    P = R = 0).
    """
    lo = 0.0
    hi = 1.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if f_beta_kernel(p0 + mid * (p1 - p0), r0 + mid * (r1 - r0), b2) >= lb:
            hi = mid
        else:
            lo = mid
    pp = p0 + hi * (p1 - p0)
    rr = r0 + hi * (r1 - r0)
    den = b2 * pp + rr
    return b2 * pp / den if den > 0.0 else 0.5


@kernel(cache=True)
def best_completion(
    front_p: NDArray[np.float64],
    front_r: NDArray[np.float64],
    off_p: float,
    off_r: float,
    ps: NDArray[np.float64],
    rs: NDArray[np.float64],
    n: int,
    b2: float,
) -> tuple[float, int, int]:
    """Best F over partial sums completed greedily: ``(f, direction, node)``.

    Partial sum ``a`` completed by direction ``i`` has sums ``off + a + (ps[i], rs[i])``
    and F-macro ``F(sums) / n`` (F is homogeneous of degree 1). A candidate is divided
    out only when ``num > best * den`` says it may beat the best so far; the first
    maximum (direction-major) wins. ``f`` is -inf for an empty front.
    """
    best = -np.inf
    bi = 0
    bn = 0
    k = 1.0 + b2
    for i in range(ps.size):
        base_p = off_p + ps[i]
        base_r = off_r + rs[i]
        for a in range(front_p.size):
            big_p = base_p + front_p[a]
            big_r = base_r + front_r[a]
            num = k * big_p * big_r
            den = b2 * big_p + big_r
            if den > 0.0:
                if num > best * den:
                    f = num / den
                    if f > best:
                        best = f
                        bi = i
                        bn = a
            elif best < 0.0:
                best = 0.0
                bi = i
                bn = a
    return best / n, bi, bn


@kernel(cache=True)
def front_support(
    front_p: NDArray[np.float64],
    front_r: NDArray[np.float64],
    ga: NDArray[np.float64],
    gc: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Per direction, the largest ``ga P + gc R`` over the partial sums (-inf if none)."""
    out = np.full(ga.size, -np.inf)
    for i in range(ga.size):
        best = -np.inf
        for a in range(front_p.size):
            v = ga[i] * front_p[a] + gc[i] * front_r[a]
            if v > best:
                best = v
        out[i] = best
    return out


@kernel(cache=True)
def coordinate_polish(
    ptr: NDArray[np.int64],
    p: NDArray[np.float64],
    r: NDArray[np.float64],
    alive: NDArray[np.bool_],
    start: NDArray[np.int64],
    b2: float,
    max_passes: int,
) -> NDArray[np.int64]:
    """Cyclic coordinate ascent of F over the alive candidates, from ``start``.

    ``start[j]`` is an alive candidate of class ``j``. Each step moves one class to its
    alive candidate of largest F with the others fixed (only a strict rise moves it);
    passes repeat until none moves or ``max_passes``. F is homogeneous of degree 1,
    so the sums are compared without dividing by the number of classes. Returns the
    candidate chosen in every class.
    """
    n = ptr.size - 1
    choice: NDArray[np.int64] = np.asarray(start).copy()
    k = 1.0 + b2
    for _ in range(max_passes):
        sp = 0.0
        sr = 0.0
        for j in range(n):
            sp += p[choice[j]]
            sr += r[choice[j]]
        moved = False
        for j in range(n):
            if ptr[j + 1] - ptr[j] < 2:
                continue
            cur = choice[j]
            rest_p = sp - p[cur]
            rest_r = sr - r[cur]
            big_p = rest_p + p[cur]
            big_r = rest_r + r[cur]
            den = b2 * big_p + big_r
            best = k * big_p * big_r / den if den > 0.0 else 0.0
            best_c = cur
            for c in range(ptr[j], ptr[j + 1]):
                if not alive[c] or c == cur:
                    continue
                big_p = rest_p + p[c]
                big_r = rest_r + r[c]
                den = b2 * big_p + big_r
                f = k * big_p * big_r / den if den > 0.0 else 0.0
                if f > best:
                    best = f
                    best_c = c
            if best_c != cur:
                choice[j] = best_c
                sp = rest_p + p[best_c]
                sr = rest_r + r[best_c]
                moved = True
        if not moved:
            break
    return choice
