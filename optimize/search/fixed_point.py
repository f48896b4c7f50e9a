"""The linearization (fixed-point) method with a certificate of optimality.

F_beta(P, R) is concave and increasing; its gradient at (P, R) points along
(R², b² P²). For a direction phi in [0, pi/2] every class picks the hull vertex
maximizing cos(phi) p + sin(phi) r; V(phi) is the mean of the picked points and
ArgV(phi) = atan2(b² P², R²) the angle of the gradient at V(phi). ArgV is
non-increasing, so phi - ArgV(phi) changes sign exactly once. The crossing is found
by an exact sweep over all hull-edge angles merged in one sort (no iteration of
phi <- ArgV(phi), which can cycle):

* If the crossing falls inside an interval where V is constant (or on its end),
  V is a fixed point: it maximizes the linearization of F at itself over conv D, so
  by concavity it is the global optimum over conv D ⊇ D. The result is exact
  (``upper_bound == f``).
* Otherwise the crossing is at an edge angle a, where V jumps along a segment S of
  conv D's boundary. The maximum of F over conv D lies in the interior of S (the
  gradient at each end points toward the other end), so ``upper_bound`` = max of F
  over S. Moving the switching classes one at a time gives achievable points on S
  spaced at most 1/n apart in P and R; the best of them is within
  eps = b²(1+b²)d²(P+R+2d)²/(b²P+R-(1+b²)d)³, d = 1/n, of the bound.

The per-class T_b vector (each class at its own F_beta optimum) is always a
candidate too, so the result is never below it; ``polish=True`` further runs cyclic
coordinate ascent (F never decreases) from the candidates.

Cost: building points, one hull pass (numba), one sort of the H hull edges; all
O(entries + H log H) time and O(entries) memory.
"""

from __future__ import annotations

import math
from typing import Any

import attrs
import numpy as np
from numpy.typing import ArrayLike, NDArray

from fmacro.optimize._frames import names_from_frames
from fmacro.optimize.inputs import check_time_limit
from fmacro.optimize.search._fbeta import argv
from fmacro.optimize.search.constraints import constrained, noted
from fmacro.optimize.search.exact import exact_from_sweep_checked
from fmacro.optimize.search.hull import Sweep, class_hulls, edge_sweep
from fmacro.optimize.search.linearization import linearize_checked
from fmacro.optimize.search.points import ClassPoints, search_points
from fmacro.optimize.search.result import ThresholdResult
from fmacro.validation.checks import check_beta

__all__ = ["argv_curve", "fixed_point", "fixed_point_checked"]


@names_from_frames("scores", "labels")
def fixed_point(
    scores: Any = None,
    labels: Any = None,
    *,
    beta: float = 1.0,
    zero_division: float | None = None,
    empty_classes: str = "exclude",
    points: ClassPoints | None = None,
    polish: bool = False,
    exact: bool = True,
    time_limit: float | None = None,
    sample_weight: Any = None,
    min_precision: Any = None,
    max_predicted_rate: Any = None,
) -> ThresholdResult:
    """Certified F-macro thresholds by the linearization (fixed-point) method.

    Parameters
    ----------
    scores, labels
        Rankings and true labels, as for :func:`fmacro.optimize.search.points.class_points`
        (omit both when ``points`` is given).
    beta
        F_beta weight, > 0 (beta > 1 favours recall).
    zero_division
        Precision of an empty cut (0.0, 1.0, or nan = empty cuts not allowed). ``None``
        (default): the policy of ``points``, or 0.0 when the points are built here.
    empty_classes
        ``"exclude"`` (default) or ``"include"`` classes without positives.
    points
        Prebuilt :class:`~fmacro.optimize.search.points.ClassPoints` (reuse across methods).
    polish
        Run cyclic coordinate ascent from the candidates in the edge case.
    exact
        ``True`` (default): when the crossing falls on an edge (the linearization's
        gap is above 0), close the gap with :func:`fmacro.optimize.exact` on the same
        sweep, so the result is the proven optimum (``gap == 0``). ``False``: the
        linearization's answer alone, within ``eps`` of its bound (the dissertation's
        method; what :mod:`fmacro.dask` computes, since its workers send hull vertices
        only).
    time_limit
        Seconds the exact search may take (``exact=True`` only); when it stops early,
        the best cuts found and a valid bound, never worse than ``exact=False``.
    sample_weight
        One non-negative weight per object (row of ``scores``), or ``None``: the
        points are built by ``class_points(scores, labels, sample_weight=...)``
        (checked there), so the result is the method's on those weighted points; an
        integer weight w gives the result of the row repeated w times (0: the row is
        left out). Not with ``points=`` (build them with the weights instead).

    min_precision, max_predicted_rate
        Per-class constraints on the cuts: None (default), a number in [0, 1], or one
        per class column. Only cuts whose raw precision on these rows is at least
        ``min_precision`` and which predict at most a share ``max_predicted_rate`` of the
        rows are searched (the empty cut, never predicting, always is); the result's
        bound and certificate then hold over those cuts
        (:mod:`fmacro.optimize.search.constraints`), and ``diagnostics["constraints"]``
        records them.
    Returns
    -------
    ThresholdResult
        ``method="fixed_point"``; ``upper_bound`` >= the best F-macro any thresholds
        reach on these rankings, ``gap = upper_bound - f`` (0 at an exact fixed
        point, and whenever the exact search finished). ``diagnostics`` holds
        ``status`` ("fixed_point" or "edge"), the crossing angle ``phi``, ArgV on both
        sides, the segment ends, the point ``ub_point`` where F attains the
        linearization's bound, ``eps`` (the a-priori bound on its gap),
        ``n_hull_vertices``, ``n_edges``, ``source`` of the returned cuts; after an
        exact search also ``linearization_f`` and ``linearization_bound`` (the
        answer and bound before it) and ``exact`` (the search's own diagnostics:
        ``status``, ``proof``, ``n_survivors``, ``n_nodes``, ...).

    Notes
    -----
    Cost of the exact step (benchmarks/results_exact.md): nothing at an exact fixed
    point; otherwise one pass over the cuts and, when classes keep several points,
    a pruned merge of them: 1.0-1.1x ``exact=False`` from scores on Corel5k and at
    10^5 classes, at most a few hundred ms on 5-20 classes with 10^5 objects.

    Examples
    --------
    Two classes, six objects; the rows are in decreasing score order in both columns, so
    cut j of a class keeps its top j rows (class 0's labels by rank: 1 1 0 1 0 1, class
    1's: 1 0 1 0 0 1):

    >>> import numpy as np
    >>> scores = np.array([[0.6, 0.9], [0.5, 0.7], [0.4, 0.6], [0.3, 0.4], [0.2, 0.3], [0.1, 0.2]])
    >>> labels = np.array([[1, 1], [1, 0], [0, 1], [1, 0], [0, 0], [1, 1]])
    >>> res = fixed_point(scores, labels)
    >>> res.thresholds.tolist(), res.cuts.tolist()
    ([0.5, 0.2], [2, 6])
    >>> res.precision, res.recall, res.f, res.gap
    (0.75, 0.75, 0.75, 0.0)

    Class 0 keeps its top 2 objects (p = 2/2, r = 2/4), class 1 all six (p = 3/6,
    r = 3/3): P = R = F = 3/4, the optimum (``brute_force`` tries all 7 x 7 cut pairs).
    The linearization alone ends on an edge, at the T_b cuts (class 0 all six: F = 4/5;
    class 1 its top 3: F = 2/3), with P = 2/3, R = 5/6, F = 20/27 and a bound above 3/4:

    >>> lin = fixed_point(scores, labels, exact=False)
    >>> lin.diagnostics["status"], lin.cuts.tolist(), round(lin.f, 4), round(lin.upper_bound, 4)
    ('edge', [6, 3], 0.7407, 0.7658)
    """
    b = check_beta(beta)
    if not isinstance(exact, (bool, np.bool_)):
        raise TypeError(f"exact must be a bool, got {exact!r}")
    limit = check_time_limit(time_limit)  # checked even when no search will run
    pts = search_points(scores, labels, points, zero_division, empty_classes, sample_weight)
    pts, rules = constrained(pts, min_precision, max_predicted_rate)
    found = fixed_point_checked(pts, b, exact=bool(exact), polish=polish, limit=limit)
    return noted(found, rules)


def fixed_point_checked(
    points: ClassPoints,
    b: float,
    *,
    exact: bool = True,
    polish: bool = False,
    limit: float | None = None,
) -> ThresholdResult:
    """:func:`fixed_point` on given ``points`` with checked ``b`` (beta) and ``limit``
    (time limit): what ``tune`` and the other internal steps call, so that beta is
    checked once, at the public entry."""
    sweep = edge_sweep(class_hulls(points))
    result = linearize_checked(sweep, b, polish=polish)
    if not exact or result.diagnostics["status"] != "edge":
        return result
    return _closed_gap(sweep, result, b, limit)


def _closed_gap(
    sweep: Sweep, linear: ThresholdResult, beta: float, time_limit: float | None
) -> ThresholdResult:
    """``linear`` (an edge crossing) replaced by the exact search's answer on the same sweep.

    The linearization's diagnostics stay (they describe the crossing and its bound); the
    search's go under ``"exact"``. Polished cuts that beat the search's stopping point
    are kept: the search stopped by ``time_limit`` is never worse than ``linear``.
    """
    found = exact_from_sweep_checked(sweep, beta, time_limit, linear=linear)
    best = found if found.f >= linear.f or math.isnan(linear.f) else linear
    upper = min(float(found.upper_bound), float(linear.upper_bound))
    upper = max(upper, float(best.f))
    diag = dict(linear.diagnostics)
    search = dict(found.diagnostics)
    diag.update(
        linearization_f=linear.f,
        linearization_bound=linear.upper_bound,
        source=search["source"] if best is found else linear.diagnostics["source"],
        exact=search,
    )
    return attrs.evolve(
        best,
        method="fixed_point",
        upper_bound=upper,
        gap=upper - float(best.f),
        diagnostics=diag,
    )


def argv_curve(
    phi: ArrayLike,
    scores: Any = None,
    labels: Any = None,
    *,
    beta: float = 1.0,
    zero_division: float | None = None,
    empty_classes: str = "exclude",
    points: ClassPoints | None = None,
    side: str = "right",
    sample_weight: Any = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """The linearization map along directions ``phi``: (V_P, V_R, ArgV).

    ``V(phi)`` is the mean of the per-class vertices maximizing
    ``cos(phi) p + sin(phi) r``; at a tie ``side="right"`` takes the higher-recall
    vertex, ``"left"`` the higher-precision one. ArgV is non-increasing in phi.
    ``sample_weight`` (one weight per object) weights the points, as in
    :func:`fixed_point`.

    Examples
    --------
    The two classes of :func:`fixed_point`'s example. At phi = 0 each class takes its
    highest-precision vertex (class 0 its top 2: p = 1, r = 1/2; class 1 its top 1:
    p = 1, r = 1/3), so V = (1, 5/12); at phi = pi/2 every object (p = 2/3 and 1/2,
    r = 1), V = (7/12, 1). ArgV = atan2(P², R²) starts above 0 and ends below pi/2, so
    phi - ArgV(phi) changes sign in between:

    >>> import numpy as np
    >>> scores = np.array([[0.6, 0.9], [0.5, 0.7], [0.4, 0.6], [0.3, 0.4], [0.2, 0.3], [0.1, 0.2]])
    >>> labels = np.array([[1, 1], [1, 0], [0, 1], [1, 0], [0, 0], [1, 1]])
    >>> vp, vr, a = argv_curve([0.0, np.pi / 2], scores, labels)
    >>> vp.round(4).tolist(), vr.round(4).tolist(), a.round(4).tolist()
    ([1.0, 0.5833], [0.4167, 1.0], [1.3989, 0.328])
    """
    b = check_beta(beta)
    pts = search_points(scores, labels, points, zero_division, empty_classes, sample_weight)
    sweep = edge_sweep(class_hulls(pts))
    idx = sweep.state_index(phi, side)
    vp = np.asarray(sweep.P[idx], dtype=np.float64)
    vr = np.asarray(sweep.R[idx], dtype=np.float64)
    return vp, vr, argv(vp, vr, b * b)
