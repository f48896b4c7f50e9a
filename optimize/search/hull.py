"""Per-class upper convex hulls in the (p, r) plane and the merged edge sweep.

For a direction ``phi`` in ``[0, pi/2]`` a class's cut maximizing
``cos(phi) p + sin(phi) r`` is a vertex of the upper-right part of the convex hull of
its (p, r) points: the chain from the highest-precision point (ties: the larger
recall) to the highest-recall point (ties: the larger precision). Along the chain r
increases and p decreases; the edge from vertex i to i+1 has the *edge angle*
``atan2(p_i - p_{i+1}, r_{i+1} - r_i)`` in ``[0, pi/2)``, the direction at which
both ends are equally good. Vertex i is optimal for ``phi`` between the angles of
its two edges.

Collinear points on an edge are kept as vertices: they are achievable points on the
corresponding edge of conv D and make the edge walk of :func:`fixed_point` finer.

The achievable set D of (P, R) = mean of one point per class has
``conv D = (1/n) * Minkowski sum of the class hulls``; its upper-right boundary is
obtained by sorting all edge angles once (:class:`Sweep`).

The hull kernel is numba (first call compiles, then cached on disk); cost is linear
in the number of cuts.
"""

from __future__ import annotations

import math
from functools import cached_property

import attrs
import numpy as np
from numpy.typing import ArrayLike, NDArray

from fmacro.optimize.offsets import group_of_entries
from fmacro.optimize.search.points import ClassPoints
from fmacro.validation.counts import frozen_array
from fmacro.validation.dispatch import kernel
from fmacro.validation.values import read_only_copies

__all__ = ["ClassHulls", "Sweep", "class_hulls", "edge_sweep"]


def _ro(a: NDArray) -> NDArray:
    # Always a copy (a value never aliases an array it was given). frozen_array keeps the
    # memory order where the old copy asked for C order: the same for these 1-D arrays.
    return frozen_array(a)


@read_only_copies
@attrs.frozen(eq=False)
class ClassHulls:
    """Upper-right hull chains of every kept class (CSR-like, read-only arrays).

    Attributes
    ----------
    points : ClassPoints
    vertex_indptr : ndarray of int64, shape (n_classes + 1,)
        Class ``j`` owns vertices ``vertex_indptr[j]:vertex_indptr[j + 1]`` (>= 1).
    vertex_cut : ndarray of int64
        Local cut index of each vertex (into its class's cuts).
    vertex_p, vertex_r : ndarray of float64
        The vertex's precision and recall.
    edge_angle : ndarray of float64
        One per consecutive vertex pair; class ``j``'s edges are
        ``vertex_indptr[j] - j : vertex_indptr[j + 1] - j - 1``; non-decreasing
        within a class.
    """

    points: ClassPoints
    vertex_indptr: NDArray[np.int64] = attrs.field(converter=_ro)
    vertex_cut: NDArray[np.int64] = attrs.field(converter=_ro)
    vertex_p: NDArray[np.float64] = attrs.field(converter=_ro)
    vertex_r: NDArray[np.float64] = attrs.field(converter=_ro)
    edge_angle: NDArray[np.float64] = attrs.field(converter=_ro)

    @property
    def n_classes(self) -> int:
        return self.points.n_classes

    @cached_property
    def n_vertices(self) -> NDArray[np.int64]:
        """Number of hull vertices of each class."""
        return _ro(np.diff(self.vertex_indptr))

    @cached_property
    def edge_class(self) -> NDArray[np.int64]:
        """Kept-class index of each edge."""
        return _ro(group_of_entries(self.n_vertices - 1))

    @cached_property
    def edge_dp(self) -> NDArray[np.float64]:
        """Change of p along each edge (<= 0)."""
        return _ro(edge_diff(self.vertex_p, self.vertex_indptr))

    @cached_property
    def edge_dr(self) -> NDArray[np.float64]:
        """Change of r along each edge (> 0)."""
        return _ro(edge_diff(self.vertex_r, self.vertex_indptr))


def class_hulls(points: ClassPoints) -> ClassHulls:
    """Upper-right hull chain of every kept class of ``points``.

    Examples
    --------
    The points of :func:`fmacro.optimize.class_points`'s example. Class 0's chain runs
    from cut 2 (p = 1, r = 1/2) to cut 6 (p = 2/3, r = 1): cut 4 (3/4, 3/4) lies below
    it. Class 1's runs from cut 1 (1, 1/3) to cut 6 (1/2, 1), above cut 3 (2/3, 2/3).
    Each chain has one edge, of angle atan2(p_0 - p_1, r_1 - r_0):

    >>> import numpy as np
    >>> from fmacro.optimize import class_points
    >>> scores = np.array([[0.6, 0.9], [0.5, 0.7], [0.4, 0.6], [0.3, 0.4], [0.2, 0.3], [0.1, 0.2]])
    >>> labels = np.array([[1, 1], [1, 0], [0, 1], [1, 0], [0, 0], [1, 1]])
    >>> hulls = class_hulls(class_points(scores, labels))
    >>> hulls.vertex_indptr.tolist(), hulls.vertex_cut.tolist()
    ([0, 2, 4], [2, 6, 1, 6])
    >>> hulls.edge_angle.round(4).tolist()  # atan2(1/3, 1/2), atan2(1/2, 2/3)
    [0.588, 0.6435]
    """
    vptr, vcut, vp, vr, ang = hull_chains(
        np.asarray(points.indptr),
        np.asarray(points.precision),
        np.asarray(points.recall),
    )
    return ClassHulls(points, vptr, vcut, vp, vr, ang)


@kernel(cache=True, nogil=True)
def upper_chain(
    p: NDArray[np.float64],
    r: NDArray[np.float64],
    base: int,
    n_cuts: int,
    stack: NDArray[np.int64],
) -> tuple[int, int]:
    """Upper-right hull chain of the cuts ``base .. base + n_cuts - 1`` (one class).

    Leaves the chain's cut indices in ``stack[start:top]`` and returns ``(start, top)``:
    the monotone chain over the cuts in order (recall non-decreasing along a class),
    started at the last vertex of maximal precision. Shared by :func:`class_hulls` and
    the fused hull of :mod:`optimize.tuning._hull_points`.
    """
    top = 0
    last_r = -np.inf
    for g in range(base, base + n_cuts):
        if np.isnan(p[g]) or np.isnan(r[g]):
            continue
        if r[g] <= last_r:
            # same recall as the previous kept cut (raw points: same tp), lower
            # precision; compared on r itself so that transformed points
            # (optimize.smoothing, where r grows at equal tp) keep their cuts
            continue
        last_r = r[g]
        while top >= 2:
            a = stack[top - 2]
            b = stack[top - 1]
            cross = (r[b] - r[a]) * (p[g] - p[a]) - (p[b] - p[a]) * (r[g] - r[a])
            if cross > 0.0:
                top -= 1
            else:
                break
        stack[top] = g
        top += 1
    # start at the last vertex of maximal precision
    start = 0
    best = -np.inf
    for t in range(top):
        if p[stack[t]] >= best:
            best = p[stack[t]]
            start = t
    return start, top


@kernel(cache=True)
def hull_chains(
    indptr: NDArray[np.int64],
    p: NDArray[np.float64],
    r: NDArray[np.float64],
) -> tuple[
    NDArray[np.int64],
    NDArray[np.int64],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.float64],
]:
    """Upper-right hull chain of each class of points given class by class: (vertex
    indptr, vertex cuts, vertex p, vertex r, edge angles), as :class:`ClassHulls` holds
    them."""
    return _chains(indptr, p, r, False)


ChainsAndEdges = tuple[
    NDArray[np.int64],
    NDArray[np.int64],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.int64],
]


@kernel(cache=True)
def chains_and_edges(
    indptr: NDArray[np.int64],
    p: NDArray[np.float64],
    r: NDArray[np.float64],
    are_chains: bool,
) -> ChainsAndEdges:
    """:func:`hull_chains` and, per edge, its change of p and r and its class.

    ``are_chains``: the points of each class already are its chain (the hull cuts of
    ``optimize.tuning``'s walk, which are their own chain): they are taken as they are,
    the chain not rebuilt.
    """
    vptr, vcut, vp, vr, ang = _chains(indptr, p, r, are_chains)
    # from the chains: arrays as long as they are, not as the points
    # a chain of v vertices has v - 1 edges (every class keeps a vertex)
    # (np.repeat here, not optimize.offsets: this runs compiled, where only numba
    # functions can be called)
    n = vptr.size - 1
    eclass = np.repeat(np.arange(n, dtype=np.int64), np.diff(vptr) - 1)
    return vptr, vcut, vp, vr, ang, edge_diff(vp, vptr), edge_diff(vr, vptr), eclass


@kernel(cache=True)
def _chains(
    indptr: NDArray[np.int64],
    p: NDArray[np.float64],
    r: NDArray[np.float64],
    are_chains: bool,
) -> tuple[
    NDArray[np.int64],
    NDArray[np.int64],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.float64],
]:
    """:func:`hull_chains`; with ``are_chains`` the points are taken as their chains."""
    n = indptr.size - 1
    total = indptr[n]
    vptr = np.zeros(n + 1, dtype=np.int64)
    vcut = np.empty(total, dtype=np.int64)
    vp = np.empty(total, dtype=np.float64)
    vr = np.empty(total, dtype=np.float64)
    ang = np.empty(total, dtype=np.float64)
    stack = np.arange(total) if are_chains else np.empty(total, dtype=np.int64)
    out = 0
    na = 0
    for j in range(n):
        base = indptr[j]
        if are_chains:
            start, top = base, indptr[j + 1]
        else:
            start, top = upper_chain(p, r, base, indptr[j + 1] - base, stack)
        prev_angle = 0.0
        for t in range(start, top):
            g = stack[t]
            vcut[out] = g - base
            vp[out] = p[g]
            vr[out] = r[g]
            if t > start:
                # math.atan2: the libm atan2 numba compiles np.arctan2 to as well; numpy's
                # own arctan2 (SIMD on some CPUs) can differ in the last bit
                a = math.atan2(vp[out - 1] - vp[out], vr[out] - vr[out - 1])
                if a < prev_angle:
                    a = prev_angle  # keep the chain's angles monotone under rounding
                ang[na] = a
                prev_angle = a
                na += 1
            out += 1
        vptr[j + 1] = out
    return vptr, vcut[:out].copy(), vp[:out].copy(), vr[:out].copy(), ang[:na].copy()


@read_only_copies
@attrs.frozen(eq=False)
class Sweep:
    """All hull edges merged by angle: conv D's upper-right boundary.

    ``P[i], R[i]`` is the point of conv D reached after applying the first ``i``
    sorted edges (``i = 0``: every class at its highest-precision vertex). Equal
    angles keep class order and, within a class, chain order.

    Attributes
    ----------
    hulls : ClassHulls
    order : ndarray of int64
        Edge indices sorted by angle (stable).
    angle : ndarray of float64
        Sorted edge angles.
    P, R : ndarray of float64, shape (n_edges + 1,)
        Cumulative boundary points.
    """

    hulls: ClassHulls
    order: NDArray[np.int64] = attrs.field(converter=_ro)
    angle: NDArray[np.float64] = attrs.field(converter=_ro)
    P: NDArray[np.float64] = attrs.field(converter=_ro)
    R: NDArray[np.float64] = attrs.field(converter=_ro)

    @property
    def n_edges(self) -> int:
        return int(self.angle.shape[0])

    @cached_property
    def sorted_class(self) -> NDArray[np.int64]:
        """Kept-class index of each sorted edge."""
        return _ro(self.hulls.edge_class[self.order])

    @cached_property
    def group_end(self) -> NDArray[np.int64]:
        """State index after each group of equal angles (i.e. group's last edge + 1)."""
        return _ro(group_ends(self.angle))

    def state_index(self, phi: ArrayLike, side: str = "right") -> NDArray[np.int64]:
        """Number of edges applied at direction ``phi``.

        ``side="right"`` applies edges with angle ``<= phi`` (the highest-recall
        maximizer at a tie), ``"left"`` those with angle ``< phi``.
        """
        if side not in ("right", "left"):
            raise ValueError(f"side must be 'left' or 'right', got {side!r}")
        v = np.asarray(phi, dtype=np.float64)
        if side == "right":
            return np.asarray(np.searchsorted(self.angle, v, side="right"), dtype=np.int64)
        return np.asarray(np.searchsorted(self.angle, v, side="left"), dtype=np.int64)

    def cuts_at(self, index: int) -> NDArray[np.int64]:
        """Local cuts (one per kept class) of the state after ``index`` sorted edges."""
        h = self.hulls
        return state_cuts(self.sorted_class, h.vertex_indptr, h.vertex_cut, int(index))


def edge_sweep(hulls: ClassHulls) -> Sweep:
    """Sort every hull edge by angle once and accumulate the boundary points of conv D.

    Examples
    --------
    The hulls of :func:`class_hulls`'s example. State 0 has each class at its first
    vertex: (P, R) = ((1 + 1)/2, (1/2 + 1/3)/2) = (1, 5/12). Class 0's edge has the
    smaller angle, so it moves first, to all six objects (p = 2/3, r = 1); then class 1:

    >>> import numpy as np
    >>> from fmacro.optimize import class_points
    >>> scores = np.array([[0.6, 0.9], [0.5, 0.7], [0.4, 0.6], [0.3, 0.4], [0.2, 0.3], [0.1, 0.2]])
    >>> labels = np.array([[1, 1], [1, 0], [0, 1], [1, 0], [0, 0], [1, 1]])
    >>> sweep = edge_sweep(class_hulls(class_points(scores, labels)))
    >>> sweep.P.round(4).tolist(), sweep.R.round(4).tolist()
    ([1.0, 0.8333, 0.5833], [0.4167, 0.6667, 1.0])
    >>> sweep.cuts_at(1).tolist()
    [6, 1]
    """
    order, big_p, big_r = merged_edges(
        hulls.vertex_indptr,
        hulls.vertex_p,
        hulls.vertex_r,
        hulls.edge_dp,
        hulls.edge_dr,
        hulls.edge_angle,
    )
    return Sweep(hulls, order, hulls.edge_angle[order], big_p, big_r)


def merged_edges(
    vertex_indptr: NDArray[np.int64],
    vertex_p: NDArray[np.float64],
    vertex_r: NDArray[np.float64],
    edge_dp: NDArray[np.float64],
    edge_dr: NDArray[np.float64],
    edge_angle: NDArray[np.float64],
) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.float64]]:
    """The arrays of :class:`Sweep` from a hull's: (order, P, R).

    The one implementation of the sweep: :func:`edge_sweep` wraps it, and the inner
    fits of ``tune(prior="cv")`` call it on bare arrays (no objects built per fit).
    """
    n = vertex_indptr.size - 1
    # Parallel edges (equal angles) are taken longest first, not in column order, so the
    # boundary points, and the edge walk of fixed_point, do not depend on how the classes
    # are numbered: identical edges are interchangeable.
    order = np.lexsort((-edge_dr, -edge_dp, edge_angle)).astype(np.int64, copy=False)
    first = vertex_indptr[:-1]
    p0 = float(np.sum(vertex_p[first]) / n)
    r0 = float(np.sum(vertex_r[first]) / n)
    big_p, big_r = _boundary(order, edge_dp, edge_dr, float(n), p0, r0)
    return order, big_p, big_r


@kernel(cache=True)
def _boundary(
    order: NDArray[np.int64],
    edge_dp: NDArray[np.float64],
    edge_dr: NDArray[np.float64],
    n: float,
    p0: float,
    r0: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """P and R after each sorted edge: the running sums of dp / n and dr / n, in order,
    plus the start (the same floats as ``np.cumsum`` and one addition)."""
    big_p = np.empty(order.size + 1)
    big_r = np.empty(order.size + 1)
    big_p[0] = p0
    big_r[0] = r0
    sp = 0.0
    sr = 0.0
    for k in range(order.size):
        sp += edge_dp[order[k]] / n
        sr += edge_dr[order[k]] / n
        big_p[k + 1] = sp + p0
        big_r[k + 1] = sr + r0
    return big_p, big_r


@kernel(cache=True)
def edge_diff(v: NDArray[np.float64], vertex_indptr: NDArray[np.int64]) -> NDArray[np.float64]:
    """Change of a vertex value along each edge (the differences between classes dropped)."""
    n = vertex_indptr.size - 1
    out = np.empty(v.size - n, dtype=np.float64)
    k = 0
    for c in range(n):
        for i in range(vertex_indptr[c], vertex_indptr[c + 1] - 1):
            out[k] = v[i + 1] - v[i]
            k += 1
    return out


@kernel(cache=True)
def group_ends(angle: NDArray[np.float64]) -> NDArray[np.int64]:
    """State index after each group of equal sorted angles (the group's last edge + 1)."""
    n = angle.size
    out = np.empty(n, dtype=np.int64)
    k = 0
    for i in range(n):
        if i == n - 1 or angle[i + 1] != angle[i]:
            out[k] = i + 1
            k += 1
    ends: NDArray[np.int64] = out[:k].copy()
    return ends


def state_cuts(
    sorted_class: NDArray[np.int64],
    vertex_indptr: NDArray[np.int64],
    vertex_cut: NDArray[np.int64],
    index: int,
) -> NDArray[np.int64]:
    """Local cuts (one per class) of the state after the first ``index`` sorted edges
    (``sorted_class``: the class of each sorted edge)."""
    counts = np.bincount(sorted_class[:index], minlength=vertex_indptr.size - 1)
    return np.asarray(vertex_cut[vertex_indptr[:-1] + counts], dtype=np.int64)
