"""The exact sweeps the global and proportional baselines share (private).

Both move every class along its cuts in the order of one key per cut (a score threshold,
or a predicted share) and keep the state with the best F-macro; the first call in a process
compiles the kernels (a few seconds, then cached on disk).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fmacro.optimize.search.points import ClassPoints
from fmacro.validation.dispatch import kernel
from fmacro.validation.measures import f_beta_kernel

__all__ = ["cuts_for_thresholds", "nonempty_cuts", "sweep_cuts"]


@kernel(cache=True)
def _shared_sweep(
    indptr: NDArray[np.int64],
    p: NDArray[np.float64],
    r: NDArray[np.float64],
    order: NDArray[np.int64],
    keys: NDArray[np.float64],
    b2: float,
) -> tuple[NDArray[np.int64], float, int]:
    """Move classes along their cuts in the order of ``keys`` (ascending, grouped).

    ``order`` lists global indices of non-empty cuts, sorted so that ``keys`` (the
    key of each listed cut) is non-decreasing and each class's cuts appear in
    increasing cut order. After each group of equal keys every class sits at its
    last listed cut; F-macro is evaluated there. Returns the best cuts, the best F
    (-inf if no state is defined) and the number of listed cuts applied (0 = all
    classes at the empty cut).
    """
    n = indptr.size - 1
    owner = np.empty(indptr[n], dtype=np.int64)
    for j in range(n):
        for g in range(indptr[j], indptr[j + 1]):
            owner[g] = j
    cur = indptr[:-1].copy()  # global index of each class's current cut
    sp = 0.0
    sr = 0.0
    n_undef = 0
    for j in range(n):
        g = cur[j]
        if np.isnan(p[g]) or np.isnan(r[g]):
            n_undef += 1
        else:
            sp += p[g]
            sr += r[g]
    best_f = -np.inf
    best_pos = 0
    if n_undef == 0:
        best_f = f_beta_kernel(sp / n, sr / n, b2)
    m = order.size
    i = 0
    while i < m:
        key = keys[i]
        while i < m and keys[i] == key:
            g = order[i]
            j = owner[g]
            old = cur[j]
            if np.isnan(p[old]) or np.isnan(r[old]):
                n_undef -= 1
            else:
                sp -= p[old]
                sr -= r[old]
            if np.isnan(p[g]) or np.isnan(r[g]):
                n_undef += 1
            else:
                sp += p[g]
                sr += r[g]
            cur[j] = g
            i += 1
        if n_undef == 0:
            v = f_beta_kernel(sp / n, sr / n, b2)
            if v > best_f:
                best_f = v
                best_pos = i
    cuts = np.zeros(n, dtype=np.int64)
    for t in range(best_pos):
        g = order[t]
        j = owner[g]
        cuts[j] = g - indptr[j]
    return cuts, best_f, best_pos


@kernel(cache=True)
def _cuts_for_thresholds_kernel(
    indptr: NDArray[np.int64], thr: NDArray[np.float64], t: NDArray[np.float64]
) -> NDArray[np.int64]:
    """Per class, the last cut whose threshold is >= t (thresholds decrease along cuts)."""
    n = indptr.size - 1
    out = np.zeros(n, dtype=np.int64)
    for j in range(n):
        lo = indptr[j]
        hi = indptr[j + 1]  # first index with thr < t lies in [lo + 1, hi]
        a = lo + 1
        b = hi
        while a < b:
            mid = (a + b) // 2
            if thr[mid] >= t[j]:
                a = mid + 1
            else:
                b = mid
        out[j] = a - 1 - lo
    return out


def nonempty_cuts(points: ClassPoints) -> NDArray[np.int64]:
    """Global indices of every cut except each class's empty cut (cut 0)."""
    mask = np.ones(points.tp.size, dtype=bool)
    mask[points.indptr[:-1]] = False
    return np.flatnonzero(mask).astype(np.int64)


def sweep_cuts(
    points: ClassPoints, cut_idx: NDArray[np.int64], keys: NDArray[np.float64], b: float
) -> tuple[NDArray[np.int64], float, int, NDArray[np.int64], NDArray[np.float64]]:
    order = np.argsort(keys, kind="stable")
    sorted_idx = np.ascontiguousarray(cut_idx[order])
    sorted_keys = np.ascontiguousarray(keys[order])
    cuts, best_f, pos = _shared_sweep(
        np.asarray(points.indptr),
        np.asarray(points.precision),
        np.asarray(points.recall),
        sorted_idx,
        sorted_keys,
        b * b,
    )
    return cuts, float(best_f), int(pos), sorted_idx, sorted_keys


def cuts_for_thresholds(points: ClassPoints, thresholds: ArrayLike) -> NDArray[np.int64]:
    """The cuts that score thresholds select on the points' own data.

    Parameters
    ----------
    points
        Per-class points.
    thresholds
        One threshold per ORIGINAL column (length ``points.n_columns``); predict
        positive iff ``score >= threshold``.

    Returns
    -------
    ndarray of int64, shape (n_classes,)
        Local cut of each kept class: the deepest cut whose threshold is
        ``>= thresholds[column]`` (``+inf`` gives the empty cut).
    """
    if points.pruned:
        raise ValueError(
            "points were built with dominated='drop': a threshold may select a cut they "
            "left out; build them with class_points(..., dominated='keep')"
        )
    t = np.asarray(thresholds, dtype=np.float64)
    if t.shape != (points.n_columns,):
        raise ValueError(
            f"thresholds must have one entry per class column, shape ({points.n_columns},), "
            f"got {t.shape}"
        )
    if np.isnan(t).any():
        raise ValueError(f"thresholds contains {int(np.isnan(t).sum())} NaN value(s)")
    return _cuts_for_thresholds_kernel(
        np.asarray(points.indptr),
        np.asarray(points.threshold),
        np.ascontiguousarray(t[points.class_index]),
    )
