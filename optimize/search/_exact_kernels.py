"""numba kernels of the exact F-macro search (private; see :mod:`optimize.exact`).

All kernels work on a CSR-like candidate layout: class ``j`` owns candidates
``ptr[j]:ptr[j + 1]`` with coordinates ``p, r`` and a boolean ``alive`` mask. A
direction is a pair ``(ga, gc)``; a point's value under it is ``ga * p + gc * r``.
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray

__all__ = [
    "class_pareto",
    "merge_chunk",
    "merge_staircases",
    "neumaier_sum",
    "reduce_points",
    "support",
]


@numba.njit(cache=True)
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


@numba.njit(cache=True)
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


@numba.njit(cache=True)
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


@numba.njit(cache=True)
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


@numba.njit(cache=True)
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


@numba.njit(cache=True)
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
