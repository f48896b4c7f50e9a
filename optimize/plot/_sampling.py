"""Achievable (macro P, macro R) points of D for :func:`~optimize.plot.plot_domain`."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.search.points import ClassPoints


def _support_cuts(points: ClassPoints, angles: NDArray[np.float64]) -> NDArray[np.int64]:
    """Per direction, each class's first cut maximizing cos(a) p + sin(a) r (any a)."""
    starts = np.asarray(points.indptr[:-1])
    counts = np.asarray(points.n_cuts)
    p = np.asarray(points.precision)
    r = np.asarray(points.recall)
    invalid = np.isnan(p) | np.isnan(r)
    local = np.arange(p.size) - np.repeat(starts, counts)
    big = np.iinfo(np.int64).max
    out = np.empty((angles.size, points.n_classes), dtype=np.int64)
    for i, a in enumerate(angles):
        v = math.cos(a) * p + math.sin(a) * r
        v[invalid] = -np.inf
        best = np.maximum.reduceat(v, starts)
        idx = np.where(v >= np.repeat(best, counts), local, big)
        out[i] = np.minimum.reduceat(idx, starts)
    return out


def _sample_domain(
    points: ClassPoints, n_samples: int, rng: np.random.Generator
) -> tuple[NDArray[np.float64], NDArray[np.float64], bool]:
    """Achievable (P, R) points: every cut vector when few, else a random sample.

    Each draw gives every class the cut of one of three support cut vectors (of
    random directions all around the circle, with random Dirichlet weights), or,
    for a random fraction of the classes, a uniformly random cut. Every point is an
    achievable (P, R); for many classes they fill conv D.
    """
    n = points.n_classes
    starts = np.asarray(points.indptr[:-1])
    counts = np.asarray(points.n_cuts)
    prec = np.asarray(points.precision)
    rec = np.asarray(points.recall)
    log_total = float(np.sum(np.log(counts.astype(np.float64))))
    if log_total <= math.log(max(n_samples, 20_000)):
        big_p = np.zeros(1)
        big_r = np.zeros(1)
        for j in range(n):
            sl = points.class_slice(j)
            big_p = (big_p[:, None] + prec[sl][None, :]).reshape(-1)
            big_r = (big_r[:, None] + rec[sl][None, :]).reshape(-1)
        keep = ~(np.isnan(big_p) | np.isnan(big_r))
        return big_p[keep] / n, big_r[keep] / n, True
    total_cuts = int(prec.size)
    n_dir = int(np.clip(50_000_000 // max(total_cuts, 1), 8, 72))
    angles = np.linspace(0.0, 2.0 * math.pi, n_dir, endpoint=False)
    support = _support_cuts(points, angles)
    n_draw = int(min(n_samples, max(100, 20_000_000 // n)))
    chunk = max(1, 4_000_000 // n)
    out_p = []
    out_r = []
    for s0 in range(0, n_draw, chunk):
        c = min(chunk, n_draw - s0)
        # a random mixture of three support cut vectors (directions all around the
        # circle, Dirichlet weights): for many classes these fill conv D ...
        picks = rng.integers(n_dir, size=(c, 3))
        weights = np.cumsum(rng.dirichlet(np.ones(3), size=c), axis=1)
        u = rng.random((c, n))
        which = (u > weights[:, :1]).astype(np.int64) + (u > weights[:, 1:2])
        mixed = support[picks[np.arange(c)[:, None], which], np.arange(n)[None, :]]
        # ... and, for a random (mostly small) fraction of the classes, uniformly
        # random cuts, which reach the inside of small problems' D
        frac = rng.random(c) ** 2
        random_cut = np.floor(rng.random((c, n)) * counts[None, :]).astype(np.int64)
        cuts = np.where(rng.random((c, n)) < frac[:, None], random_cut, mixed)
        idx = starts[None, :] + cuts
        out_p.append(prec[idx].mean(axis=1))
        out_r.append(rec[idx].mean(axis=1))
    big_p = np.concatenate(out_p)
    big_r = np.concatenate(out_r)
    keep = ~(np.isnan(big_p) | np.isnan(big_r))
    return big_p[keep], big_r[keep], False
