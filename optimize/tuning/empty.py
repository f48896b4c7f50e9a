"""The thresholds of the empty classes (no tuning positives), walked one column at a time.

An empty class is not part of the objective; ``tune(unseen="prior")`` gives it the first
cut maximizing ``cos(phi) p~ + sin(phi) r~`` over its smoothed cuts (tp = m = 0), -inf
for the all-objects cut (:mod:`optimize.tuning.tune`, "Classes without tuning
positives"). :func:`best_empty_cut` is that rule on one class's cuts, the one
implementation: :func:`empty_thresholds` walks columns in place (dense or CSC, a cv
half's rows), fmacro.dask runs it on its workers, and the every-cut path
(:mod:`.columns`) feeds it the weighted or model-centred cuts of a copy.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.tuning.cuts import cut_values, empty_chances, new_outputs
from fmacro.optimize.tuning.source import (
    Source,
    WalkInputs,
    over_classes,
    source_classes,
    source_cuts,
)
from fmacro.validation.dispatch import kernel

__all__ = ["best_cuts_of_values", "best_empty_cut", "empty_thresholds", "first_best"]


@kernel(cache=True, nogil=True)
def first_best(
    p: NDArray[np.float64], r: NDArray[np.float64], c: int, cos_phi: float, sin_phi: float
) -> int:
    """The first of ``c`` cuts maximizing ``cos_phi p + sin_phi r`` (NaN counts as -inf;
    0 when no cut is above -inf): the rule's choice, whatever computed the values."""
    best = -np.inf
    chosen = 0
    for g in range(c):
        v = cos_phi * p[g] + sin_phi * r[g]
        if v > best:  # NaN never passes; the first maximum is kept
            best = v
            chosen = g
    return chosen


@kernel(cache=True, nogil=True)
def best_empty_cut(
    tp: NDArray[np.int64],
    fp: NDArray[np.int64],
    thr: NDArray[np.float64],
    c: int,
    pi: float,
    n_obj: int,
    a: float,
    chances: NDArray[np.float64],
    zd: float,
    cos_phi: float,
    sin_phi: float,
    p: NDArray[np.float64],
    r: NDArray[np.float64],
) -> float:
    """Threshold of the first of an empty class's ``c`` cuts (prior centre ``pi``)
    maximizing ``cos_phi p~ + sin_phi r~`` (:func:`first_best`); -inf for the last cut,
    the all-objects one. ``p``, ``r``: scratch for the cuts' smoothed values."""
    for g in range(c):
        p[g], r[g] = cut_values(g, tp, fp, 0, pi, n_obj, a, chances, zd)
    chosen = first_best(p, r, c, cos_phi, sin_phi)
    return -np.inf if chosen == c - 1 else thr[chosen]


@kernel(cache=True, nogil=True)
def best_cuts_of_values(
    indptr: NDArray[np.int64],
    p: NDArray[np.float64],
    r: NDArray[np.float64],
    thr: NDArray[np.float64],
    cos_phi: float,
    sin_phi: float,
) -> NDArray[np.float64]:
    """The rule's threshold of each class of smoothed points given whole (cuts
    ``indptr[k]:indptr[k + 1]``, values ``p``, ``r``): :func:`first_best`, -inf for
    a class's last cut (the every-cut path: weighted or model-centred values)."""
    n_classes = indptr.size - 1
    out = np.empty(n_classes, dtype=np.float64)
    for k in range(n_classes):
        lo = indptr[k]
        c = indptr[k + 1] - lo
        chosen = first_best(p[lo : lo + c], r[lo : lo + c], c, cos_phi, sin_phi)
        out[k] = -np.inf if chosen == c - 1 else thr[lo + chosen]
    return out


@kernel(cache=True, nogil=True)
def _empty_cuts(
    src: Source,
    first: int,
    centres: NDArray[np.float64],
    priors: NDArray[np.float64],
    n_eval: float,
    zd: float,
    cos_phis: NDArray[np.float64],
    sin_phis: NDArray[np.float64],
) -> NDArray[np.float64]:
    """:func:`best_empty_cut` of each class of ``src`` (empty classes; class
    ``k = first + i`` has prior centre ``centres[k]``) at each pair (``priors[g]``, angle
    g): row g of the result; each class's cuts are built once for all pairs."""
    n_classes, room = source_classes(src)
    n_obj = src[9]
    found = np.empty((priors.size, n_classes), dtype=np.float64)
    tp, fp, thr, _ = new_outputs(room)  # one class's cuts
    p = np.empty(room)
    r = np.empty(room)
    chances = empty_chances(n_obj, n_eval, zd)
    for i in range(n_classes):
        c, _ = source_cuts(src, i, tp, fp, thr)
        pi = centres[first + i]
        for g in range(priors.size):
            found[g, i] = best_empty_cut(
                tp, fp, thr, c, pi, n_obj, priors[g], chances, zd, cos_phis[g], sin_phis[g], p, r
            )
    return found


def empty_thresholds(
    inputs: WalkInputs,
    cols: NDArray[np.int64],
    pi: NDArray[np.float64],
    *,
    pseudo_counts: Sequence[float],
    n_eval: float,
    zero_division: float,
    phis: Sequence[float],
    rows: NDArray[np.int64] | None = None,
) -> NDArray[np.float64]:
    """The thresholds of ``tune``'s rule for the empty classes, walked.

    For each column of ``cols`` (increasing, an empty class among the objects
    ``rows``, default all; prior centres ``pi``) and each pair (``pseudo_counts[g]``,
    ``phis[g]``), in row g of the result: the first cut maximizing ``cos(phi) p~ + sin(phi)
    r~`` over its smoothed cuts (tp = m = 0), -inf for the all-objects cut. The answer
    of :class:`~.columns.CopiedColumns` on every cut (the same floats:
    :func:`smoothed_cut`), one column's cuts at a time instead of every cut of the
    columns at once, read in place and built once for all the pairs.
    """
    centres = np.ascontiguousarray(pi, dtype=np.float64)
    priors = np.asarray(pseudo_counts, dtype=np.float64)
    angles = np.asarray(phis, dtype=np.float64)
    args = (priors, float(n_eval), float(zero_division), np.cos(angles), np.sin(angles))
    parts = over_classes(
        inputs, cols, lambda src, first: _empty_cuts(src, first, centres, *args), rows
    )
    return np.concatenate([np.zeros((priors.size, 0)), *parts], axis=1)
