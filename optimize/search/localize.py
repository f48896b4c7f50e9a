"""Extended linearization: where on the (P, R) square can coordinate-wise maxima be?

A *coordinate-wise maximum* is a cut vector no single class can change to raise F
(what cyclic optimization / SCut returns; the global optimum is one). At such a
point X = (P, R), every class's cut x_k satisfies, for every other cut z of the
class, F(X + (z - x_k)/n) <= F(X). The second-order remainder of F_beta over a move
of one class (|dP|, |dR| <= d = 1/n) is at most

    eps(X) = b²(1+b²) d² (P+R+2d)² / (b²P + R - (1+b²)d)³,

so u·(z - x_k) <= n eps(X) / |grad F(X)| with u the unit gradient direction: x_k
lies within a slack of the best cut in direction u (the eps neighbourhood).

On an ``grid x grid`` partition of [0, 1]², each cell gets a box
[Pmin, Pmax] x [Rmin, Rmax] that contains (P, R) of every coordinate-wise maximum
lying in the cell: the gradient direction over the cell spans [theta_lo, theta_hi]
(extremes at two corners), eps and |grad F| are bounded over the cell, and the
direction is taken at the cell's middle angle with the extra slack
(theta_hi - theta_lo)/sqrt(2). A cell is a *candidate* iff its box meets the cell;
every coordinate-wise maximum, hence the optimum, lies in a candidate cell.

This follows the reference program's ``estimate_grid`` (per grid node the range of
each class's near-best cuts, averaged over classes), made rigorous per cell. Cost:
O(grid² x total cuts) in numba (first call compiles, cached on disk).
"""

from __future__ import annotations

import math
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.search.points import ClassPoints, as_points
from fmacro.validation.checks import check_beta
from fmacro.validation.counts import frozen_array
from fmacro.validation.dispatch import kernel
from fmacro.validation.values import read_only_copies

__all__ = ["LocalizeResult", "localize"]


@read_only_copies
@attrs.frozen(eq=False)
class LocalizeResult:
    """Per-cell boxes of the linearization map with the eps neighbourhood.

    Arrays are indexed ``[i_p, i_r]`` (cell i_p along P, i_r along R), read-only.

    Attributes
    ----------
    p_edges, r_edges : ndarray, shape (grid + 1,)
        Cell bounds along P and R.
    p_box, r_box : ndarray, shape (grid, grid, 2)
        [min, max] of P (resp. R) over the means of near-best cuts for the cell.
    v_center : ndarray, shape (grid, grid, 2)
        V at the cell's middle gradient direction (the plain linearization map).
    mask : ndarray of bool, shape (grid, grid)
        Candidate cells: the box meets the cell.
    spread : ndarray, shape (grid, grid)
        sqrt((Pmax - Pmin)² + (Rmax - Rmin)²), the size of the uncertainty.
    slack : ndarray, shape (grid, grid)
        The neighbourhood width used for the cell (inf where eps is undefined).
    beta : float
    n_classes : int
    """

    p_edges: NDArray[np.float64] = attrs.field(converter=frozen_array)
    r_edges: NDArray[np.float64] = attrs.field(converter=frozen_array)
    p_box: NDArray[np.float64] = attrs.field(converter=frozen_array)
    r_box: NDArray[np.float64] = attrs.field(converter=frozen_array)
    v_center: NDArray[np.float64] = attrs.field(converter=frozen_array)
    mask: NDArray[np.bool_] = attrs.field(converter=frozen_array)
    spread: NDArray[np.float64] = attrs.field(converter=frozen_array)
    slack: NDArray[np.float64] = attrs.field(converter=frozen_array)
    beta: float
    n_classes: int

    def contains(self, p: float, r: float) -> bool:
        """True if some candidate cell (closed) contains the point (p, r)."""
        ip = np.flatnonzero((self.p_edges[:-1] <= p) & (p <= self.p_edges[1:]))
        ir = np.flatnonzero((self.r_edges[:-1] <= r) & (r <= self.r_edges[1:]))
        return bool(self.mask[np.ix_(ip, ir)].any())

    def candidate_cells(self) -> NDArray[np.float64]:
        """Bounds [Pa, Pb, Ra, Rb] of every candidate cell, shape (k, 4)."""
        ip, ir = np.nonzero(self.mask)
        return np.column_stack(
            (self.p_edges[ip], self.p_edges[ip + 1], self.r_edges[ir], self.r_edges[ir + 1])
        )


def localize(
    scores: Any = None,
    labels: Any = None,
    *,
    beta: float = 1.0,
    zero_division: float | None = None,
    empty_classes: str = "exclude",
    points: ClassPoints | None = None,
    grid: int = 50,
    sample_weight: Any = None,
) -> LocalizeResult:
    """Extended linearization on a ``grid x grid`` partition of the (P, R) square.

    Parameters
    ----------
    scores, labels, beta, zero_division, empty_classes, points, sample_weight
        As for :func:`fmacro.optimize.fixed_point`.
    grid
        Number of cells along each axis (>= 1).

    Returns
    -------
    LocalizeResult

    Examples
    --------
    With few classes one class's move shifts P and R by up to 1/n, and the eps
    neighbourhood is wide: on the two classes of :func:`fmacro.optimize.fixed_point`'s
    example every cell remains a candidate.

    >>> import numpy as np
    >>> scores = np.array([[0.6, 0.9], [0.5, 0.7], [0.4, 0.6], [0.3, 0.4], [0.2, 0.3], [0.1, 0.2]])
    >>> labels = np.array([[1, 1], [1, 0], [0, 1], [1, 0], [0, 0], [1, 1]])
    >>> bool(localize(scores, labels, grid=4).mask.all())
    True

    With 20 classes, 59 of 100 cells remain, and the optimum lies in one of them:

    >>> from fmacro.optimize import exact
    >>> from fmacro.optimize.synthetic import dense_scores
    >>> scores, labels = dense_scores(300, 20, prevalence=0.2, seed=0)
    >>> loc = localize(scores, labels, grid=10)
    >>> loc.mask.shape, int(loc.mask.sum()), loc.candidate_cells().shape
    ((10, 10), 59, (59, 4))
    >>> best = exact(scores, labels)
    >>> loc.contains(best.precision, best.recall)
    True
    """
    b = check_beta(beta)
    if isinstance(grid, bool) or not isinstance(grid, (int, np.integer)):
        raise TypeError(f"grid must be a positive int, got {type(grid).__name__}")
    if grid < 1:
        raise ValueError(f"grid must be >= 1, got {grid}")
    pts = as_points(
        scores,
        labels,
        points,
        zero_division=zero_division,
        empty_classes=empty_classes,
        sample_weight=sample_weight,
    )
    edges = np.linspace(0.0, 1.0, int(grid) + 1)
    p_box, r_box, v_center, slack = _grid_kernel(
        np.asarray(pts.indptr),
        np.asarray(pts.precision),
        np.asarray(pts.recall),
        edges,
        b * b,
    )
    pa, pb = edges[:-1, None], edges[1:, None]
    ra, rb = edges[None, :-1], edges[None, 1:]
    tol = 1e-12  # rounding of the class means
    mask = (
        (p_box[:, :, 0] <= pb + tol)
        & (p_box[:, :, 1] >= pa - tol)
        & (r_box[:, :, 0] <= rb + tol)
        & (r_box[:, :, 1] >= ra - tol)
    )
    spread = np.hypot(p_box[:, :, 1] - p_box[:, :, 0], r_box[:, :, 1] - r_box[:, :, 0])
    return LocalizeResult(
        edges, edges, p_box, r_box, v_center, mask, spread, slack, b, pts.n_classes
    )


def _grid_work(
    indptr: NDArray[np.int64], p: NDArray[np.float64], r: Any, edges: Any, b2: Any
) -> int:
    """The work of :func:`_grid_kernel` (for ``kernel``): every point, twice, per cell."""
    return int((edges.size - 1) ** 2 * (indptr.size + 2 * p.size))


@kernel(cache=True, work=_grid_work)
def _grid_kernel(
    indptr: NDArray[np.int64],
    p: NDArray[np.float64],
    r: NDArray[np.float64],
    edges: NDArray[np.float64],
    b2: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    n = indptr.size - 1
    g = edges.size - 1
    d = 1.0 / n
    p_box = np.zeros((g, g, 2))
    r_box = np.zeros((g, g, 2))
    v_center = np.zeros((g, g, 2))
    slack_out = np.zeros((g, g))
    for ip in range(g):
        pa, pb = edges[ip], edges[ip + 1]
        for ir in range(g):
            ra, rb = edges[ir], edges[ir + 1]
            th_lo = math.atan2(b2 * pa * pa, rb * rb)
            th_hi = math.atan2(b2 * pb * pb, ra * ra)
            th_c = 0.5 * (th_lo + th_hi)
            ux, uy = math.cos(th_c), math.sin(th_c)
            den = b2 * pa + ra - (1.0 + b2) * d
            # Powers as the products numba compiles ``x ** 4``, ``x ** 2`` and ``x ** 3``
            # to (x * x squared, x * x, x times x * x), so the interpreted kernel rounds
            # alike (Python's ``**`` calls pow()).
            ra2 = ra * ra
            pa2 = pa * pa
            q = b2 * pb + rb
            gmin = (1.0 + b2) * math.sqrt(ra2 * ra2 + b2 * b2 * (pa2 * pa2)) / (q * q)
            if den > 0.0 and gmin > 0.0:
                w = pb + rb + 2.0 * d
                eps = b2 * (1.0 + b2) * d * d * (w * w) / (den * (den * den))
                slack = n * eps / gmin + (th_hi - th_lo) / math.sqrt(2.0)
            else:
                slack = np.inf
            slack_out[ip, ir] = slack
            s_pmin = 0.0
            s_pmax = 0.0
            s_rmin = 0.0
            s_rmax = 0.0
            s_vp = 0.0
            s_vr = 0.0
            for j in range(n):
                best = -np.inf
                bp = 0.0
                br = 0.0
                for c in range(indptr[j], indptr[j + 1]):
                    if np.isnan(p[c]) or np.isnan(r[c]):
                        continue
                    v = ux * p[c] + uy * r[c]
                    if v > best:
                        best = v
                        bp = p[c]
                        br = r[c]
                pmin, pmax, rmin, rmax = np.inf, -np.inf, np.inf, -np.inf
                for c in range(indptr[j], indptr[j + 1]):
                    if np.isnan(p[c]) or np.isnan(r[c]):
                        continue
                    if ux * p[c] + uy * r[c] >= best - slack - 1e-12:
                        pmin = min(pmin, p[c])
                        pmax = max(pmax, p[c])
                        rmin = min(rmin, r[c])
                        rmax = max(rmax, r[c])
                s_pmin += pmin
                s_pmax += pmax
                s_rmin += rmin
                s_rmax += rmax
                s_vp += bp
                s_vr += br
            p_box[ip, ir, 0] = s_pmin / n
            p_box[ip, ir, 1] = s_pmax / n
            r_box[ip, ir, 0] = s_rmin / n
            r_box[ip, ir, 1] = s_rmax / n
            v_center[ip, ir, 0] = s_vp / n
            v_center[ip, ir, 1] = s_vr / n
    return p_box, r_box, v_center, slack_out
