"""Cyclic coordinate ascent on F_beta(P, R) over per-class cuts (shared kernel).

Each pass visits the classes in order; a class moves to the cut maximizing
F_beta(P, R) given every other class's cut, and only when that strictly improves F
(by more than ``tol``), so F never decreases and the process terminates. It stops
after a pass without a move: the result is a *coordinate-wise maximum* (no single
class can improve F), which for F-macro can be strictly worse than the optimum.

Also here: :func:`per_class_cuts`, each class at its own F_beta-optimal cut (T_b).

Both kernels are numba (first call compiles, then cached on disk); a pass costs one
read of all cuts.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fmacro.optimize.search.points import ClassPoints, check_cuts
from fmacro.validation.checks import check_beta
from fmacro.validation.dispatch import kernel
from fmacro.validation.measures import f_beta_kernel

__all__ = ["ascend_checked", "coordinate_ascent", "own_cuts_checked", "per_class_cuts"]

_DEFAULT_TOL = 1e-14


def coordinate_ascent(
    points: ClassPoints,
    start_cuts: ArrayLike,
    beta: float = 1.0,
    *,
    max_passes: int = 10_000,
    tol: float = _DEFAULT_TOL,
) -> NDArray[np.int64]:
    """Cyclic coordinate ascent from ``start_cuts``; returns the final local cuts.

    Parameters
    ----------
    points
        Per-class points.
    start_cuts
        Local cut of each kept class to start from (not modified).
    beta
        F_beta weight (> 0).
    max_passes
        Safety cap on full passes (each pass that moves a class raises F by > tol,
        so the cap is never reached in practice).
    tol
        A move must raise F by more than this (guards against float noise).

    Examples
    --------
    The points of :func:`fmacro.optimize.class_points`'s example, whose optimum is the cut
    pair (2, 6) with F = 3/4. From (1, 1) class 0 moves to all six objects (P = 5/6,
    R = 2/3, F = 20/27); then no single class can raise F, and the ascent stops below 3/4:

    >>> import numpy as np
    >>> from fmacro.optimize import class_points
    >>> scores = np.array([[0.6, 0.9], [0.5, 0.7], [0.4, 0.6], [0.3, 0.4], [0.2, 0.3], [0.1, 0.2]])
    >>> labels = np.array([[1, 1], [1, 0], [0, 1], [1, 0], [0, 0], [1, 1]])
    >>> pts = class_points(scores, labels)
    >>> coordinate_ascent(pts, [1, 1]).tolist()
    [6, 1]
    >>> coordinate_ascent(pts, [0, 6]).tolist()  # class 0 moves to its top 2: the optimum
    [2, 6]
    """
    b = check_beta(beta)
    return ascend_checked(points, check_cuts(points, start_cuts), b, max_passes=max_passes, tol=tol)


def ascend_checked(
    points: ClassPoints,
    start_cuts: NDArray[np.int64],
    b: float,
    *,
    max_passes: int = 10_000,
    tol: float = _DEFAULT_TOL,
) -> NDArray[np.int64]:
    """:func:`coordinate_ascent` from checked local ``start_cuts`` (not modified) and a
    checked beta ``b``: what internal steps call."""
    cuts = start_cuts.copy()
    out, _ = _ascent_kernel(
        np.asarray(points.indptr),
        np.asarray(points.precision),
        np.asarray(points.recall),
        cuts,
        b * b,
        int(max_passes),
        float(tol),
    )
    return out


def per_class_cuts(points: ClassPoints, beta: float = 1.0) -> NDArray[np.int64]:
    """Each class's own F_beta-optimal cut (first one on ties): the T_b vector.

    Examples
    --------
    The points of :func:`fmacro.optimize.class_points`'s example: class 0 is best with all
    six objects (p = 2/3, r = 1: F = 4/5); class 1 ties at F = 2/3 between its top 3
    (p = r = 2/3) and all six (p = 1/2, r = 1), and takes the first:

    >>> import numpy as np
    >>> from fmacro.optimize import class_points
    >>> scores = np.array([[0.6, 0.9], [0.5, 0.7], [0.4, 0.6], [0.3, 0.4], [0.2, 0.3], [0.1, 0.2]])
    >>> labels = np.array([[1, 1], [1, 0], [0, 1], [1, 0], [0, 0], [1, 1]])
    >>> per_class_cuts(class_points(scores, labels)).tolist()
    [6, 3]
    """
    return own_cuts_checked(points, check_beta(beta))


def own_cuts_checked(points: ClassPoints, b: float) -> NDArray[np.int64]:
    """:func:`per_class_cuts` with a checked beta ``b``: what internal steps call."""
    return own_best_cuts(
        np.asarray(points.indptr), np.asarray(points.precision), np.asarray(points.recall), b * b
    )


@kernel(cache=True)
def _ascent_kernel(
    indptr: NDArray[np.int64],
    p: NDArray[np.float64],
    r: NDArray[np.float64],
    cuts: NDArray[np.int64],
    b2: float,
    max_passes: int,
    tol: float,
) -> tuple[NDArray[np.int64], int]:
    n = indptr.size - 1
    passes = 0
    while passes < max_passes:
        passes += 1
        sp = 0.0
        sr = 0.0
        for j in range(n):
            sp += p[indptr[j] + cuts[j]]
            sr += r[indptr[j] + cuts[j]]
        moved = False
        for j in range(n):
            g = indptr[j] + cuts[j]
            op = sp - p[g]
            orr = sr - r[g]
            cur = f_beta_kernel((op + p[g]) / n, (orr + r[g]) / n, b2)
            if np.isnan(cur):
                cur = -np.inf
            best = cur
            best_c = cuts[j]
            for c in range(indptr[j + 1] - indptr[j]):
                h = indptr[j] + c
                v = f_beta_kernel((op + p[h]) / n, (orr + r[h]) / n, b2)
                if v > best + tol or (best == -np.inf and not np.isnan(v)):
                    best = v
                    best_c = c
            if best_c != cuts[j]:
                h = indptr[j] + best_c
                sp = op + p[h]
                sr = orr + r[h]
                cuts[j] = best_c
                moved = True
        if not moved:
            break
    return cuts, passes


@kernel(cache=True)
def own_best_cuts(
    indptr: NDArray[np.int64], p: NDArray[np.float64], r: NDArray[np.float64], b2: float
) -> NDArray[np.int64]:
    """Each class's own F_beta-optimal local cut (first on ties) of points given class by
    class (``b2`` = beta squared, checked): :func:`per_class_cuts` on bare arrays."""
    n = indptr.size - 1
    out = np.zeros(n, dtype=np.int64)
    for j in range(n):
        best = -np.inf
        for c in range(indptr[j + 1] - indptr[j]):
            g = indptr[j] + c
            if np.isnan(p[g]) or np.isnan(r[g]):
                continue
            v = f_beta_kernel(p[g], r[g], b2)
            if v > best:
                best = v
                out[j] = c
    return out
