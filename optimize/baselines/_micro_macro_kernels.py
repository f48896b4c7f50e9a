"""Compiled steps of :func:`fmacro.optimize.baselines.micro_macro.micro_macro`.

The objective of a cut vector ``c`` (one local cut per kept class) is

    J(c) = mix * F_beta(TP, FP, FN) + (1 - mix) / n * sum_k F_k(c_k)

with TP, FP the sums of the classes' tp and fp at their cuts, FN = M - TP (M the summed
class sizes) and ``F_k`` the per-cut F_beta of class k, given as an array (``fk``, computed
once by :func:`fmacro.validation.measures.f_beta_from_pr` from the points' precision and
recall; NaN marks a cut the search never chooses, the empty cut under
``zero_division=nan``). Every value here is a float64 (integer counts are exact in it).

The micro term is F_beta of summed counts in the counts form of
:func:`fmacro.validation.measures.f_beta_from_counts`, ``(1 + b2) TP / ((1 + b2) TP +
b2 FN + FP)``; its 0/0 value (no positive in any kept class and nothing predicted) is
passed in as ``micro_zero``, computed by that function, so the 0/0 rule stays in
:mod:`fmacro.validation.measures`.

Every kernel is compiled on its first call with large inputs (``cache=True``: then from the
disk cache); small inputs run interpreted (:mod:`fmacro.validation.dispatch`), with the same
results bit for bit.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from fmacro.validation.dispatch import kernel

__all__ = ["ascend", "linearized_cuts", "objective"]


@kernel(cache=True)
def _micro(tp: float, fp: float, m_total: float, b2: float, micro_zero: float) -> float:
    """F_beta of the summed counts (counts form; ``micro_zero`` where it is 0/0)."""
    num = (1.0 + b2) * tp
    den = num + b2 * (m_total - tp) + fp
    if den == 0.0:
        return micro_zero
    return num / den


@kernel(cache=True)
def objective(
    indptr: NDArray[np.int64],
    tp: NDArray[np.float64],
    fp: NDArray[np.float64],
    fk: NDArray[np.float64],
    cuts: NDArray[np.int64],
    m_total: float,
    b2: float,
    mix: float,
    micro_zero: float,
) -> float:
    """J of local ``cuts`` (NaN when a chosen cut's F is NaN)."""
    n = indptr.size - 1
    big_tp = 0.0
    big_fp = 0.0
    s = 0.0
    for j in range(n):
        g = indptr[j] + cuts[j]
        big_tp += tp[g]
        big_fp += fp[g]
        s += fk[g]
    return mix * _micro(big_tp, big_fp, m_total, b2, micro_zero) + (1.0 - mix) / n * s


@kernel(cache=True)
def ascend(
    indptr: NDArray[np.int64],
    tp: NDArray[np.float64],
    fp: NDArray[np.float64],
    fk: NDArray[np.float64],
    cuts: NDArray[np.int64],
    m_total: float,
    b2: float,
    mix: float,
    micro_zero: float,
    max_passes: int,
    tol: float,
) -> tuple[NDArray[np.int64], int]:
    """Cyclic coordinate ascent on J from ``cuts`` (modified in place; every chosen cut's
    F defined): each pass gives every class, in order, its first best cut given the
    others, when that beats the current value by more than ``tol``; stops after a pass
    without a move. Returns the cuts and the number of passes."""
    n = indptr.size - 1
    w = (1.0 - mix) / n
    passes = 0
    while passes < max_passes:
        passes += 1
        big_tp = 0.0
        big_fp = 0.0
        s = 0.0
        for j in range(n):
            g = indptr[j] + cuts[j]
            big_tp += tp[g]
            big_fp += fp[g]
            s += fk[g]
        moved = False
        for j in range(n):
            g = indptr[j] + cuts[j]
            o_tp = big_tp - tp[g]
            o_fp = big_fp - fp[g]
            o_s = s - fk[g]
            cur = mix * _micro(o_tp + tp[g], o_fp + fp[g], m_total, b2, micro_zero) + w * (
                o_s + fk[g]
            )
            best = -np.inf
            best_c = cuts[j]
            for c in range(indptr[j + 1] - indptr[j]):
                h = indptr[j] + c
                if np.isnan(fk[h]):
                    continue
                v = mix * _micro(o_tp + tp[h], o_fp + fp[h], m_total, b2, micro_zero) + w * (
                    o_s + fk[h]
                )
                if v > best:
                    best = v
                    best_c = c
            if best_c != cuts[j] and best > cur + tol:
                h = indptr[j] + best_c
                big_tp = o_tp + tp[h]
                big_fp = o_fp + fp[h]
                s = o_s + fk[h]
                cuts[j] = best_c
                moved = True
        if not moved:
            break
    return cuts, passes


@kernel(cache=True)
def linearized_cuts(
    indptr: NDArray[np.int64],
    tp: NDArray[np.float64],
    fp: NDArray[np.float64],
    fk: NDArray[np.float64],
    weight_f: float,
    weight_tp: float,
    weight_predicted: float,
) -> NDArray[np.int64]:
    """Each class's first cut maximizing ``weight_f * F_k + weight_tp * tp -
    weight_predicted * (tp + fp)`` over its cuts with a defined F: the separable problem
    of one parametric (Dinkelbach) step."""
    n = indptr.size - 1
    out = np.zeros(n, dtype=np.int64)
    for j in range(n):
        best = -np.inf
        for c in range(indptr[j + 1] - indptr[j]):
            h = indptr[j] + c
            if np.isnan(fk[h]):
                continue
            v = weight_f * fk[h] + weight_tp * tp[h] - weight_predicted * (tp[h] + fp[h])
            if v > best:
                best = v
                out[j] = c
    return out
