"""Geometry of F_beta that the certified methods share (private): gradient angle, maximum
on a segment, second-order remainder. F_beta itself is :mod:`fmacro.validation.measures`'s.

These formulas square ``b**2`` again (the discriminant of :func:`segment_max` and the
remainder of :func:`eps_bound` hold terms up to ``16 (1 + b**2)**2`` for P, R in [0, 1]):
they stay finite for ``beta <= 2**254``, the bound :func:`validation.checks.check_beta`
enforces (above it a root of the quadratic would be lost to overflow, silently).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fmacro.validation.measures import f_beta_from_pr

__all__ = ["argv", "eps_bound", "segment_max"]


def argv(p: ArrayLike, r: ArrayLike, b2: float) -> NDArray[np.float64]:
    """Angle of the gradient of F_beta at (P, R): atan2(b² P², R²) in [0, pi/2]."""
    pa = np.asarray(p, dtype=np.float64)
    ra = np.asarray(r, dtype=np.float64)
    return np.arctan2(b2 * pa * pa, ra * ra)


def segment_max(
    p0: ArrayLike, r0: ArrayLike, p1: ArrayLike, r1: ArrayLike, beta: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Max of F_beta on each segment [(p0, r0), (p1, r1)] and the maximizing t in [0, 1].

    F_beta restricted to a segment is PR/L (times 1 + b²) with P, R, L linear in t;
    its stationary points solve a quadratic, so the maximum is among t = 0, t = 1 and
    the real roots in (0, 1).
    """
    b2 = beta * beta
    P0, R0, P1, R1 = (np.atleast_1d(np.asarray(x, dtype=np.float64)) for x in (p0, r0, p1, r1))
    dp, dr = P1 - P0, R1 - R0
    dl = b2 * dp + dr
    l0 = b2 * P0 + R0
    a0 = dp * R0 + P0 * dr
    a1 = 2.0 * dp * dr
    qa = 0.5 * a1 * dl
    qb = a1 * l0
    qc = a0 * l0 - dl * P0 * R0
    cands = [np.zeros_like(P0), np.ones_like(P0)]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        disc = qb * qb - 4.0 * qa * qc
        sq = np.sqrt(np.where(disc >= 0.0, disc, np.nan))
        # numerically stable roots: q = -(qb + sign(qb) sqrt(disc)) / 2, t = q/qa, qc/q
        q = -0.5 * (qb + np.where(qb >= 0.0, sq, -sq))
        t1 = q / qa
        t2 = qc / q
    for t in (t1, t2):
        cands.append(np.where(np.isfinite(t), np.clip(t, 0.0, 1.0), 0.0))
    best_f = np.full(P0.shape, -np.inf)
    best_t = np.zeros_like(P0)
    for t in cands:
        val = np.asarray(f_beta_from_pr(P0 + t * dp, R0 + t * dr, beta))
        better = val > best_f
        best_f = np.where(better, val, best_f)
        best_t = np.where(better, t, best_t)
    return best_f, best_t


def eps_bound(p: ArrayLike, r: ArrayLike, n: int, b2: float) -> NDArray[np.float64]:
    """b²(1+b²) d² (P+R+2d)² / (b²P + R - (1+b²) d)³ with d = 1/n; inf where undefined.

    Bounds the second-order remainder of F_beta for a move of one class
    (|dP|, |dR| <= d) from (P, R): F(X + delta) >= F(X) + grad F(X) . delta - eps.
    """
    pa = np.asarray(p, dtype=np.float64)
    ra = np.asarray(r, dtype=np.float64)
    d = 1.0 / n
    den = b2 * pa + ra - (1.0 + b2) * d
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = b2 * (1.0 + b2) * d * d * (pa + ra + 2.0 * d) ** 2 / den**3
    return np.where(den > 0.0, out, np.inf)
