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
    "neumaier_sum",
    "pareto_indices",
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
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]]:
    """Children ``a + x`` of front points ``lo:hi`` and class points ``x`` that pass every bound.

    A child survives when ``base[i] + ga[i] * P + gc[i] * R >= target`` for every
    direction ``i`` (``base`` holds the fixed offset and the remaining classes'
    support values). Returns the children's sums, parent indices and point indices.
    """
    m = xp.size
    g = ga.size
    # class points by decreasing value under direction 0: for each parent the children
    # passing direction 0 form a prefix of this order
    v0 = ga[0] * xp + gc[0] * xr
    order = np.argsort(-v0)
    # the prefix test is a rearranged sum: allow it a few ulps of rounding
    slack0 = 1e-13 * (abs(target) + abs(base[0]) + 1.0)
    cap = (hi - lo) * m
    out_p = np.empty(cap)
    out_r = np.empty(cap)
    par = np.empty(cap, dtype=np.int64)
    cho = np.empty(cap, dtype=np.int64)
    c = 0
    for a in range(lo, hi):
        ap = front_p[a]
        ar = front_r[a]
        need0 = target - base[0] - (ga[0] * ap + gc[0] * ar)
        for q in range(m):
            t = order[q]
            if v0[t] < need0 - slack0:
                break
            sp = ap + xp[t]
            sr = ar + xr[t]
            ok = True
            for i in range(g):
                if base[i] + ga[i] * sp + gc[i] * sr < target:
                    ok = False
                    break
            if ok:
                out_p[c] = sp
                out_r[c] = sr
                par[c] = a
                cho[c] = t
                c += 1
    return out_p[:c].copy(), out_r[:c].copy(), par[:c].copy(), cho[:c].copy()


@numba.njit(cache=True)
def pareto_indices(sp: NDArray[np.float64], sr: NDArray[np.float64]) -> NDArray[np.int64]:
    """Indices of the points no other point weakly dominates (one kept per duplicate).

    Output is sorted by decreasing ``sp`` (so increasing ``sr``).
    """
    n = sp.size
    order = np.argsort(-sp)
    keep = np.empty(n, dtype=np.int64)
    k = 0
    best_r = -np.inf
    q = 0
    while q < n:
        # a group of equal sp: its point of largest sr is the only candidate
        e = q
        top = order[q]
        while e + 1 < n and sp[order[e + 1]] == sp[order[q]]:
            e += 1
            if sr[order[e]] > sr[top]:
                top = order[e]
        if sr[top] > best_r:
            keep[k] = top
            k += 1
            best_r = sr[top]
        q = e + 1
    return keep[:k].copy()
