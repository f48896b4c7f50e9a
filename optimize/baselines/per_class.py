"""``per_class`` (T_b, SCut): each class at its own F_beta-optimal cut.

This maximizes *macro-F* (the mean of per-class F) exactly, but not F-macro =
F_beta(P, R). Dense input runs column blocks on one thread per core (``np.sort`` and the
nogil kernel release the GIL); the first call compiles the kernel (then cached on disk).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fmacro.optimize._frames import names_from_frames
from fmacro.optimize.inputs import check_empty_classes, kept_classes, matching_shapes
from fmacro.optimize.search._blocks import (
    dense_labels,
    dense_scores,
    label_sizes,
    map_blocks,
    sorted_positives,
)
from fmacro.optimize.search.constraints import constrained, noted
from fmacro.optimize.search.coordinate import own_cuts_checked
from fmacro.optimize.search.points import ClassPoints, search_points
from fmacro.optimize.search.result import ThresholdResult, TuningCounts
from fmacro.validation import measures
from fmacro.validation.checks import check_beta, check_zero_division, is_sparse
from fmacro.validation.dispatch import kernel
from fmacro.validation.measures import f_beta_from_pr, f_beta_kernel

__all__ = ["per_class", "per_class_checked"]


# nogil: blocks of columns run on several Python threads (np.sort releases the GIL too).
@kernel(cache=True, nogil=True)
def _block_best_cuts(
    unsorted: NDArray[np.floating],
    y: NDArray[np.bool_],
    srt: NDArray[np.floating],
    zd: float,
    b2: float,
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]:
    """F_beta-optimal cut of each row (= class) of a block of transposed scores.

    ``unsorted[r]``, ``y[r]``: class r's scores and labels over the objects;
    ``srt[r]``: the same scores ascending. The sweep walks ``srt[r]`` from the top;
    a cut ends where the next lower score differs (ties grouped). Same arithmetic
    and tie rule (first maximum) as the T_b kernel over ClassPoints. Returns per
    row the local cut index, tp and number predicted at that cut, and its threshold.
    """
    n_rows, n_obj = srt.shape
    best_cut = np.zeros(n_rows, dtype=np.int64)
    best_tp = np.zeros(n_rows, dtype=np.int64)
    best_cnt = np.zeros(n_rows, dtype=np.int64)
    best_thr = np.full(n_rows, np.inf)
    for row in range(n_rows):
        pos = sorted_positives(unsorted[row], y[row])
        m = pos.size
        r0 = 0.0 if m > 0 else zd
        best = -np.inf
        if not (np.isnan(zd) or np.isnan(r0)):
            best = f_beta_kernel(zd, r0, b2)
        t = 0
        ncut = 0
        for i in range(n_obj - 1, -1, -1):
            v = srt[row, i]
            if i == 0 or srt[row, i - 1] != v:
                while t < m and pos[m - 1 - t] >= v:
                    t += 1
                ncut += 1
                taken = n_obj - i
                p = t / taken
                r = t / m if m > 0 else zd
                f = f_beta_kernel(p, r, b2)
                if f > best:
                    best = f
                    best_cut[row] = ncut
                    best_tp[row] = t
                    best_cnt[row] = taken
                    best_thr[row] = v
    return best_cut, best_tp, best_cnt, best_thr


@names_from_frames("scores", "labels")
def per_class(
    scores: Any = None,
    labels: Any = None,
    *,
    beta: float = 1.0,
    zero_division: float | None = None,
    empty_classes: str = "exclude",
    points: ClassPoints | None = None,
    sample_weight: Any = None,
    min_precision: Any = None,
    max_predicted_rate: Any = None,
) -> ThresholdResult:
    """Each class at its own F_beta-optimal cut (the T_b vector, SCut).

    This is the exact maximizer of macro-F (mean of per-class F_beta); its F-macro
    (``result.f``) is in general below the F-macro optimum. On ties within a class
    the smallest cut (highest threshold) is kept.

    Parameters
    ----------
    scores, labels
        Dense ``(N, n)`` scores (or sparse, retrieved entries only) and the 0/1
        indicator labels; or pass ``points=`` instead.
    beta
        F_beta weight, > 0.
    zero_division
        Precision of the empty cut: 0.0, 1.0 or nan (never chosen). ``None`` (default):
        the policy of ``points``, or 0.0 when the points are built here.
    empty_classes
        ``"exclude"`` (default) or ``"include"`` classes without positives.
    points
        Precomputed :class:`~fmacro.optimize.search.points.ClassPoints` (then scores/labels None).
    sample_weight
        One non-negative weight per object, or ``None``: the cuts are chosen on
        ``class_points(scores, labels, sample_weight=...)`` (weighted tp, fp and class
        sizes; an integer weight w is the row repeated w times). Not with ``points=``.

    min_precision, max_predicted_rate
        Per-class constraints on the cuts, as for :func:`fmacro.optimize.fixed_point`:
        each class takes its best feasible cut.
    Returns
    -------
    ThresholdResult
        ``method="per_class"``; ``diagnostics["macro_f"]`` is the attained macro-F
        and ``diagnostics["class_f"]`` the per-class F (one per kept class).

    Notes
    -----
    Dense scores (labels dense or sparse) without constraints take a fused path without
    materializing the points (same result as with ``points=``): column blocks of at most ~16 MB are
    transposed, each class's scores sorted contiguously in their own dtype, and one numba
    sweep per block picks the cuts; memory is O(block), the loop is per block of classes,
    not per class. Otherwise (sparse scores, ``points=``, ``sample_weight``) one numba
    pass over the cuts of the points (built without dominated cuts); with weights the
    points are built by one numpy sort per class.
    """
    b = check_beta(beta)
    unconstrained = min_precision is None and max_predicted_rate is None
    if points is None and sample_weight is None and unconstrained and not is_sparse(scores):
        zd = 0.0 if zero_division is None else zero_division
        return _per_class_dense(scores, labels, b, zd, empty_classes)
    # A class's best cut never has the tp of the cut before it (same recall, lower
    # precision), so the points built here drop such cuts (see class_points).
    pts = search_points(scores, labels, points, zero_division, empty_classes, sample_weight)
    pts, rules = constrained(pts, min_precision, max_predicted_rate)
    return noted(per_class_checked(pts, b), rules)


def per_class_checked(pts: ClassPoints, b: float) -> ThresholdResult:
    """:func:`per_class` on given points ``pts`` with a checked beta ``b``: what ``tune``
    calls."""
    cuts = own_cuts_checked(pts, b)
    g = pts.indptr[:-1] + cuts
    p_k, r_k = pts.precision[g], pts.recall[g]
    class_f = np.asarray(f_beta_from_pr(p_k, r_k, b), dtype=np.float64)
    return ThresholdResult.from_checked_cuts(
        pts,
        cuts,
        beta=b,
        method="per_class",
        diagnostics={"macro_f": float(np.mean(class_f)), "class_f": class_f},
    )


def _per_class_dense(
    scores: Any, labels: Any, b: float, zero_division: float, empty_classes: str
) -> ThresholdResult:
    """T_b on dense inputs without materializing the points: one sort + one sweep.

    float32 and float64 scores are sorted in their own dtype, a column block at a time
    (:mod:`fmacro.optimize.search._blocks`): the extra memory is a few blocks per thread,
    never a float64 copy of the matrix.
    """
    zd = check_zero_division(zero_division)
    check_empty_classes(empty_classes, zd)
    s_shape = matching_shapes(scores, labels)
    s = dense_scores(scores)
    y = dense_labels(labels)
    n_cols = s_shape[1]
    sizes = label_sizes(y)
    cols = kept_classes(sizes, empty_classes)
    b2 = b * b
    results = map_blocks(
        s, y, cols, lambda u, yb, srt, _first: _block_best_cuts(u, yb, srt, zd, b2)
    )
    cut, tp, cnt, thr = (np.concatenate([r[i] for r in results]) for i in range(4))
    m = sizes[cols]
    p_k = measures.safe_divide(tp, cnt, zd)
    r_k = measures.safe_divide(tp, m, zd)
    # the searches' plain mean, as ThresholdResult.from_cuts on the points
    p, r, f = measures.macro_from_counts(tp, cnt - tp, m, b, zd, undefined="propagate")
    thresholds = np.full(n_cols, math.inf)
    thresholds[cols] = thr
    class_f = np.asarray(f_beta_from_pr(p_k, r_k, b), dtype=np.float64)
    return ThresholdResult(
        thresholds=thresholds,
        cuts=cut,
        precision=float(p),
        recall=float(r),
        f=float(f),
        upper_bound=math.nan,
        gap=math.nan,
        method="per_class",
        beta=b,
        zero_division=zd,
        diagnostics={"macro_f": float(np.mean(class_f)), "class_f": class_f},
        tuning=_tuning(thresholds, s_shape[0], cols, sizes, tp, cnt),
    )


def _tuning(
    thresholds: NDArray[np.float64],
    n_samples: int,
    cols: NDArray[np.int64],
    sizes: NDArray[np.int64],
    tp: NDArray[np.int64],
    predicted: NDArray[np.int64],
) -> TuningCounts:
    """The tuning counts of the dense sweep: the kept classes' cuts, nothing elsewhere."""
    full_tp = np.zeros(thresholds.shape[0], dtype=np.int64)
    full_predicted = np.zeros(thresholds.shape[0], dtype=np.int64)
    full_tp[cols] = tp
    full_predicted[cols] = predicted
    return TuningCounts(thresholds, n_samples, cols, sizes, full_tp, full_predicted)
