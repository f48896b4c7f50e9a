"""The linearization of F-macro on a merged edge sweep: crossing, edge walk, candidates.

F_beta(P, R) is concave and increasing; its gradient at (P, R) points along
(R², b² P²). For a direction phi in [0, pi/2] every class picks the hull vertex
maximizing cos(phi) p + sin(phi) r; V(phi) is the mean of the picked points and
ArgV(phi) = atan2(b² P², R²) the angle of the gradient at V(phi). ArgV is
non-increasing, so phi - ArgV(phi) changes sign exactly once: :func:`crossing` finds it on
the sweep of all hull-edge angles (see :mod:`fmacro.optimize.search.fixed_point` for what
the two outcomes, a fixed point or an edge, certify).

This module is the linearization alone, on an already built sweep
(:func:`fixed_point_from_sweep`) or on bare per-class arrays (:func:`linearized_cuts`, for
``tune(prior="cv")``'s many small fits). :func:`fmacro.optimize.fixed_point` (which closes
an edge's gap with the exact search) and :mod:`fmacro.optimize.search.exact` (which starts
from the linearization's answer) both build on it, so neither imports the other's module
back.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.search._fbeta import argv, eps_bound, segment_max
from fmacro.optimize.search.coordinate import ascend_checked, own_best_cuts, own_cuts_checked
from fmacro.optimize.search.hull import (
    Sweep,
    chains_and_edges,
    group_ends,
    merged_edges,
    state_cuts,
)
from fmacro.optimize.search.points import ClassPoints
from fmacro.optimize.search.result import ThresholdResult, macro_pr
from fmacro.validation.checks import check_beta
from fmacro.validation.measures import f_beta_from_pr

__all__ = [
    "crossing",
    "edge_walk",
    "evaluate_checked",
    "fixed_point_from_sweep",
    "linearize_checked",
    "linearized_cuts",
]


def crossing(
    ends: NDArray[np.int64],
    angle: NDArray[np.float64],
    P: NDArray[np.float64],
    R: NDArray[np.float64],
    b2: float,
) -> tuple[str, int, int, float]:
    """Locate the sign change of phi - ArgV(phi) along a sweep (``ends``: its
    :func:`~fmacro.optimize.search.hull.group_ends`; ``angle``, ``P``, ``R``: its sorted
    angles and boundary points).

    Returns (status, state_before, state_after, phi). For status "fixed_point" the
    optimal state is ``state_before == state_after``.
    """
    if ends.size == 0:
        return "fixed_point", 0, 0, float(argv(P[0], R[0], b2))
    starts = np.concatenate(([0], ends[:-1]))
    ag = angle[ends - 1]
    a_before = argv(P[starts], R[starts], b2)
    a_after = argv(P[ends], R[ends], b2)
    hit = np.flatnonzero((a_before <= ag) | (a_after <= ag))
    if hit.size == 0:
        last = int(ends[-1])
        return "fixed_point", last, last, float(a_after[-1])
    g = int(hit[0])
    if a_before[g] <= ag[g]:
        s = int(starts[g])
        return "fixed_point", s, s, float(a_before[g])
    if a_after[g] == ag[g]:
        e = int(ends[g])
        return "fixed_point", e, e, float(ag[g])
    return "edge", int(starts[g]), int(ends[g]), float(ag[g])


def edge_walk(
    P: NDArray[np.float64], R: NDArray[np.float64], s0: int, s1: int, beta: float
) -> tuple[int, NDArray[np.float64]]:
    """The best state s0..s1 on the crossing's segment (first on ties), and F of each:
    the switching classes moved one edge at a time."""
    walk_f = np.asarray(f_beta_from_pr(P[s0 : s1 + 1], R[s0 : s1 + 1], beta))
    return s0 + int(np.argmax(walk_f)), walk_f


def _best_candidate(values: list[float]) -> int:
    """Index of the largest F (NaN counts as -inf; ties go to the later candidate)."""
    scored = [(-math.inf if math.isnan(v) else v, i) for i, v in enumerate(values)]
    return max(scored)[1]


def fixed_point_from_sweep(
    sweep: Sweep, *, beta: float = 1.0, polish: bool = False
) -> ThresholdResult:
    """:func:`fixed_point` with ``exact=False`` on an already merged edge sweep.

    Examples
    --------
    The sweep of :func:`fmacro.optimize.edge_sweep`'s example: its boundary points (P, R)
    are (1, 5/12), (5/6, 2/3) and (7/12, 1). ArgV is above the angle of class 1's edge
    (atan2(1/2, 2/3)) at its start and below at its end, so the crossing is on that edge.
    The walk along it and the T_b cuts both reach F = 20/27 (the later candidate, T_b,
    is kept); the bound is the maximum of F on the edge:

    >>> import numpy as np
    >>> from fmacro.optimize import class_hulls, class_points, edge_sweep
    >>> scores = np.array([[0.6, 0.9], [0.5, 0.7], [0.4, 0.6], [0.3, 0.4], [0.2, 0.3], [0.1, 0.2]])
    >>> labels = np.array([[1, 1], [1, 0], [0, 1], [1, 0], [0, 0], [1, 1]])
    >>> sweep = edge_sweep(class_hulls(class_points(scores, labels)))
    >>> res = fixed_point_from_sweep(sweep)
    >>> res.diagnostics["status"], round(res.diagnostics["phi"], 4), res.diagnostics["source"]
    ('edge', 0.6435, 'per_class')
    >>> res.cuts.tolist(), round(res.f, 4), round(res.upper_bound, 4)
    ([6, 3], 0.7407, 0.7658)
    """
    return linearize_checked(sweep, check_beta(beta), polish=polish)


def evaluate_checked(
    points: ClassPoints, cuts: NDArray[np.int64], b: float
) -> tuple[float, float, float]:
    """:func:`~fmacro.optimize.search.result.evaluate_cuts` with a checked beta ``b``
    (the same floats): what the searches' internal steps call."""
    p, r = macro_pr(points, cuts)
    return p, r, float(f_beta_from_pr(p, r, b))


def linearize_checked(sweep: Sweep, b: float, *, polish: bool = False) -> ThresholdResult:
    """:func:`fixed_point_from_sweep` with a checked beta ``b``: what internal steps
    (``fixed_point``, ``exact``, ``tune``) call, so beta is checked once per public call."""
    b2 = b * b
    pts = sweep.hulls.points
    n = pts.n_classes
    status, s0, s1, phi = crossing(np.asarray(sweep.group_end), sweep.angle, sweep.P, sweep.R, b2)
    diag: dict[str, Any] = {
        "status": status,
        "phi": phi,
        "n_hull_vertices": int(sweep.hulls.vertex_cut.shape[0]),
        "n_edges": sweep.n_edges,
    }
    if status == "fixed_point":
        cuts = sweep.cuts_at(s0)
        p, r, f = evaluate_checked(pts, cuts, b)
        diag.update(ub_point=np.array([p, r]), eps=0.0, source="fixed_point", polished=False)
        return ThresholdResult.from_checked_cuts(
            pts, cuts, beta=b, method="fixed_point", upper_bound=f, diagnostics=diag
        )
    P0, R0, P1, R1 = sweep.P[s0], sweep.R[s0], sweep.P[s1], sweep.R[s1]
    ub_arr, t_arr = segment_max(P0, R0, P1, R1, b)
    ub = float(ub_arr[0])
    t_star = float(t_arr[0])
    ub_point = np.array([P0 + t_star * (P1 - P0), R0 + t_star * (R1 - R0)])
    best_state, walk_f = edge_walk(sweep.P, sweep.R, s0, s1, b)
    candidates: list[tuple[str, NDArray[np.int64]]] = [
        ("edge_walk", sweep.cuts_at(best_state)),
        ("per_class", own_cuts_checked(pts, b)),
    ]
    if polish:
        candidates += [(f"{name}+polish", ascend_checked(pts, c, b)) for name, c in candidates]
    values = [evaluate_checked(pts, c, b)[2] for _, c in candidates]
    best_i = _best_candidate(values)
    best_f = -math.inf if math.isnan(values[best_i]) else values[best_i]
    source, cuts = candidates[best_i]
    # rounding can put an achievable F a hair above the computed bound
    ub = max(ub, best_f)
    eps = float(eps_bound(ub_point[0], ub_point[1], n, b2))
    diag.update(
        argv_before=float(argv(P0, R0, b2)),
        argv_after=float(argv(P1, R1, b2)),
        segment=np.array([[P0, R0], [P1, R1]]),
        ub_point=ub_point,
        eps=eps,
        walk_steps=int(s1 - s0),
        walk_best_f=float(walk_f.max()),
        source=source,
        polished=bool(polish),
    )
    res = ThresholdResult.from_checked_cuts(
        pts, cuts, beta=b, method="fixed_point", upper_bound=ub, diagnostics=diag
    )
    return res


def linearized_cuts(
    indptr: NDArray[np.int64],
    precision: NDArray[np.float64],
    recall: NDArray[np.float64],
    beta: float,
    are_chains: bool = False,
) -> tuple[NDArray[np.int64], float, float]:
    """(local cuts, P, R) of the linearization on each class's hull, on bare arrays.

    The points are given class by class (``indptr`` over the kept classes, their
    precision and recall); ``beta`` is checked; ``are_chains``: each class's points
    already are its hull chain (the walk's hull cuts; see :func:`chains_and_edges`). The
    steps of :func:`fixed_point` with ``exact=False`` (the same hull kernel, sweep,
    crossing, edge walk), whose per-class candidate at an edge is each class's best hull
    vertex: on points that hold only their hull vertices, the very answer of
    ``fixed_point(points=..., exact=False)``, and the same answer on all of a class's
    cuts or on its hull alone. No objects, copies or diagnostics are built: the inner
    fits of ``tune(prior="cv")`` make many on small point sets, where those cost more
    than the search.

    Examples
    --------
    :func:`fixed_point_from_sweep`'s example on bare arrays. The per-class candidate is
    each class's best hull vertex, all six objects in both classes (class 1's top 3 ties
    at F = 2/3 but is no vertex), with F = 14/19; the walk's (6, 1) wins, with P = 5/6,
    R = 2/3, F = 20/27:

    >>> import numpy as np
    >>> from fmacro.optimize import class_points
    >>> scores = np.array([[0.6, 0.9], [0.5, 0.7], [0.4, 0.6], [0.3, 0.4], [0.2, 0.3], [0.1, 0.2]])
    >>> labels = np.array([[1, 1], [1, 0], [0, 1], [1, 0], [0, 0], [1, 1]])
    >>> pts = class_points(scores, labels)
    >>> indptr, p, r = (np.asarray(a) for a in (pts.indptr, pts.precision, pts.recall))
    >>> cuts, big_p, big_r = linearized_cuts(indptr, p, r, 1.0)
    >>> cuts.tolist(), round(big_p, 4), round(big_r, 4)
    ([6, 1], 0.8333, 0.6667)
    """
    b2 = beta * beta
    n = indptr.size - 1
    vptr, vcut, vp, vr, ang, dp, dr, edge_class = chains_and_edges(
        indptr, precision, recall, are_chains
    )
    order, big_p, big_r = merged_edges(vptr, vp, vr, dp, dr, ang)
    angle = ang[order]
    status, s0, s1, _ = crossing(group_ends(angle), angle, big_p, big_r, b2)
    sorted_class = edge_class[order]
    if status == "fixed_point":
        cuts = state_cuts(sorted_class, vptr, vcut, s0)
    else:
        walk = state_cuts(sorted_class, vptr, vcut, edge_walk(big_p, big_r, s0, s1, beta)[0])
        own = vcut[vptr[:-1] + own_best_cuts(vptr, vp, vr, b2)]
        values = [_f_at(indptr, precision, recall, c, beta) for c in (walk, own)]
        cuts = (walk, own)[_best_candidate(values)]
    idx = indptr[:-1] + cuts
    return cuts, float(np.sum(precision[idx]) / n), float(np.sum(recall[idx]) / n)


def _f_at(
    indptr: NDArray[np.int64],
    precision: NDArray[np.float64],
    recall: NDArray[np.float64],
    cuts: NDArray[np.int64],
    beta: float,
) -> float:
    """F_beta of the plain means at ``cuts``, as :func:`evaluate_cuts` computes it."""
    idx = indptr[:-1] + cuts
    n = indptr.size - 1
    return float(f_beta_from_pr(np.sum(precision[idx]) / n, np.sum(recall[idx]) / n, beta))
