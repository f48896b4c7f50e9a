"""Domain analysis: bounds on the F-macro optimum from support points of D.

D is the set of achievable (P, R) (one cut per class). For a direction phi in
[0, pi/2] the support point of conv D is the mean of each class's hull vertex
maximizing cos(phi) p + sin(phi) r; it is achievable (its cuts are returned). With
``n_angles`` directions:

* lower bound = the best F_beta among the support points (achievable);
* upper bound = the max of F_beta over the outer polygon cut out by the support
  lines cos(phi) P + sin(phi) R <= h(phi) (it contains conv D ⊇ D); F is increasing,
  so the max lies on the polygon's upper-right chain.

``n_angles=None`` gives the exact hull of D by merging all hull-edge angles
(conv D is the Minkowski average of the class hulls): the lower bound is the best
hull vertex and the upper bound the max of F over conv D.

Cost: points, one hull pass, one sort of the edge angles, then O(n_angles log H).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fmacro.optimize._frames import names_from_frames
from fmacro.optimize.search._fbeta import segment_max
from fmacro.optimize.search.constraints import constrained, noted
from fmacro.optimize.search.hull import Sweep, class_hulls, edge_sweep
from fmacro.optimize.search.points import ClassPoints, search_points
from fmacro.optimize.search.result import ThresholdResult
from fmacro.validation.checks import check_beta
from fmacro.validation.measures import f_beta_from_pr

__all__ = ["domain", "domain_checked", "domain_from_sweep"]


@names_from_frames("scores", "labels")
def domain(
    scores: Any = None,
    labels: Any = None,
    *,
    beta: float = 1.0,
    zero_division: float | None = None,
    empty_classes: str = "exclude",
    points: ClassPoints | None = None,
    n_angles: int | None = 64,
    sample_weight: Any = None,
    min_precision: Any = None,
    max_predicted_rate: Any = None,
) -> ThresholdResult:
    """Domain analysis with ``n_angles`` support directions (or the exact hull).

    Parameters
    ----------
    scores, labels, beta, zero_division, empty_classes, points, sample_weight
        As for :func:`fmacro.optimize.fixed_point`.
    min_precision, max_predicted_rate
        Per-class constraints on the cuts, as for :func:`fmacro.optimize.fixed_point`:
        the support function and bound are those of the feasible cuts.
    n_angles
        Number of directions, evenly spaced in [0, pi/2] (both ends included),
        at least 3; ``None`` for the exact hull of D.

    Returns
    -------
    ThresholdResult
        ``method="domain"``: thresholds of the best support point (the lower
        bound, ``f``), ``upper_bound`` from the outer polygon. ``diagnostics``:
        ``angles`` (n_angles,), ``support_points`` (n_angles, 2), ``support_f``,
        ``outer_polygon`` (m, 2) the upper-right chain of the outer polygon (for
        ``n_angles=None``: the vertices of conv D's upper-right boundary),
        ``ub_point`` and ``n_angles``.

    Examples
    --------
    The two classes of :func:`fmacro.optimize.fixed_point`'s example, whose optimum is
    F = 3/4. The exact hull of D has three vertices, (P, R) = (1, 5/12), (5/6, 2/3) and
    (7/12, 1), with F = 10/17, 20/27 and 14/19; the best of them is the lower bound, and the
    maximum of F over the hull's boundary the upper one:

    >>> import numpy as np
    >>> scores = np.array([[0.6, 0.9], [0.5, 0.7], [0.4, 0.6], [0.3, 0.4], [0.2, 0.3], [0.1, 0.2]])
    >>> labels = np.array([[1, 1], [1, 0], [0, 1], [1, 0], [0, 0], [1, 1]])
    >>> res = domain(scores, labels, n_angles=None)
    >>> res.cuts.tolist(), round(res.f, 4), round(res.upper_bound, 4)
    ([6, 1], 0.7407, 0.7658)
    >>> res.diagnostics["support_points"].round(4).tolist()
    [[1.0, 0.4167], [0.8333, 0.6667], [0.5833, 1.0]]

    With 64 directions the outer polygon is a little larger, and so is its bound:

    >>> round(domain(scores, labels).upper_bound, 4)
    0.7666
    """
    b = check_beta(beta)
    if n_angles is not None:
        if isinstance(n_angles, bool) or not isinstance(n_angles, (int, np.integer)):
            raise TypeError(f"n_angles must be an int >= 3 or None, got {type(n_angles).__name__}")
        if n_angles < 3:
            raise ValueError(f"n_angles must be >= 3 (or None for the exact hull), got {n_angles}")
    pts = search_points(scores, labels, points, zero_division, empty_classes, sample_weight)
    pts, rules = constrained(pts, min_precision, max_predicted_rate)
    return noted(domain_checked(pts, b, n_angles), rules)


def domain_checked(points: ClassPoints, b: float, n_angles: int | None = None) -> ThresholdResult:
    """:func:`domain` on given ``points`` with a checked beta ``b`` and ``n_angles``:
    what ``tune`` calls."""
    return domain_from_sweep_checked(edge_sweep(class_hulls(points)), b, n_angles)


def _chain_max(poly: NDArray[np.float64], beta: float) -> tuple[float, NDArray[np.float64]]:
    """Max of F_beta over a polygonal chain given by its vertices, and where."""
    if poly.shape[0] == 1:
        return float(f_beta_from_pr(poly[0, 0], poly[0, 1], beta)), poly[0].copy()
    fs, ts = segment_max(poly[:-1, 0], poly[:-1, 1], poly[1:, 0], poly[1:, 1], beta)
    i = int(np.argmax(fs))
    point = poly[i] + ts[i] * (poly[i + 1] - poly[i])
    return float(fs[i]), point


def domain_from_sweep(
    sweep: Sweep, *, beta: float = 1.0, n_angles: int | None = 64
) -> ThresholdResult:
    """:func:`domain` on an already merged edge sweep."""
    return domain_from_sweep_checked(sweep, check_beta(beta), n_angles)


def domain_from_sweep_checked(sweep: Sweep, b: float, n_angles: int | None = 64) -> ThresholdResult:
    """:func:`domain_from_sweep` with a checked beta ``b`` (and ``n_angles``)."""
    pts = sweep.hulls.points
    if n_angles is None:
        states = np.concatenate(([0], np.asarray(sweep.group_end))).astype(np.int64)
        angles = np.concatenate(([0.0], sweep.angle[np.asarray(sweep.group_end) - 1]))
        support = np.column_stack((sweep.P[states], sweep.R[states]))
        poly = support
    else:
        angles = np.linspace(0.0, math.pi / 2, int(n_angles))
        states = sweep.state_index(angles, "right").astype(np.int64)
        support = np.column_stack((sweep.P[states], sweep.R[states]))
        poly = _outer_chain(angles, support)
    support_f = np.asarray(f_beta_from_pr(support[:, 0], support[:, 1], b))
    best = int(np.argmax(support_f))
    cuts = sweep.cuts_at(int(states[best]))
    ub, ub_point = _chain_max(poly, b)
    res = ThresholdResult.from_checked_cuts(pts, cuts, beta=b, method="domain")
    ub = max(ub, res.f)  # rounding only
    diag = {
        "angles": angles,
        "support_points": support,
        "support_f": support_f,
        "outer_polygon": poly,
        "ub_point": ub_point,
        "n_angles": -1 if n_angles is None else int(n_angles),
    }
    return ThresholdResult.from_checked_cuts(
        pts, cuts, beta=b, method="domain", upper_bound=ub, diagnostics=diag
    )


def _outer_chain(angles: NDArray[np.float64], support: NDArray[np.float64]) -> NDArray[np.float64]:
    """Upper-right chain of the polygon {cos(a) P + sin(a) R <= h(a)} ∩ {P, R >= 0}."""
    c = np.cos(angles)
    s = np.sin(angles)
    h = c * support[:, 0] + s * support[:, 1]
    ci, si, hi = c[:-1], s[:-1], h[:-1]
    cj, sj, hj = c[1:], s[1:], h[1:]
    det = ci * sj - si * cj
    xp = (hi * sj - hj * si) / det
    xr = (ci * hj - cj * hi) / det
    start = np.array([[h[0] / c[0], 0.0]])
    end = np.array([[0.0, h[-1] / s[-1]]])
    return np.vstack((start, np.column_stack((xp, xr)), end))
