"""``per_class`` (T_b, SCut): each class at its own F_beta-optimal cut.

This maximizes *macro-F* (the mean of per-class F) exactly, but not F-macro =
F_beta(P, R). Dense input runs column blocks on one thread per core (``np.sort`` and the
nogil kernel release the GIL); the first call compiles the kernel (then cached on disk).
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numba
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize._inputs import (
    as_binary_labels,
    check_empty_classes,
    kept_classes,
    matching_shapes,
)
from fmacro.optimize.search.coordinate import per_class_cuts
from fmacro.optimize.search.points import ClassPoints, as_points
from fmacro.optimize.search.result import ThresholdResult
from fmacro.validation.checks import as_float_array, check_beta, check_zero_division, is_sparse
from fmacro.validation.measures import f_beta_from_pr, f_beta_kernel

__all__ = ["per_class"]


# nogil: blocks of columns run on several Python threads (np.sort releases the GIL too).
@numba.njit(cache=True, nogil=True)
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
        m = 0
        for i in range(n_obj):
            if y[row, i]:
                m += 1
        pos = np.empty(m, dtype=np.float64)
        c = 0
        for i in range(n_obj):
            if y[row, i]:
                pos[c] = unsorted[row, i]
                c += 1
        pos.sort()
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


def per_class(
    scores: Any = None,
    labels: Any = None,
    *,
    beta: float = 1.0,
    zero_division: float | None = None,
    empty_classes: str = "exclude",
    points: ClassPoints | None = None,
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

    Returns
    -------
    ThresholdResult
        ``method="per_class"``; ``diagnostics["macro_f"]`` is the attained macro-F
        and ``diagnostics["class_f"]`` the per-class F (one per kept class).

    Notes
    -----
    Dense inputs take a fused path without materializing the points (same result
    as with ``points=``): column blocks of ~16 MB are transposed, each class's scores
    sorted contiguously, and one numba sweep per block picks the cuts; memory is
    O(block), the loop is per block of classes, not per class.
    Otherwise one numba pass over all cuts of the points. No Python loop per class.
    """
    b = check_beta(beta)
    if points is None and not is_sparse(scores) and not is_sparse(labels):
        zd = 0.0 if zero_division is None else zero_division
        return _per_class_dense(scores, labels, b, zd, empty_classes)
    pts = as_points(
        scores, labels, points, zero_division=zero_division, empty_classes=empty_classes
    )
    cuts = per_class_cuts(pts, b)
    g = pts.indptr[:-1] + cuts
    p_k, r_k = pts.precision[g], pts.recall[g]
    class_f = np.asarray(f_beta_from_pr(p_k, r_k, b), dtype=np.float64)
    return ThresholdResult.from_cuts(
        pts,
        cuts,
        beta=b,
        method="per_class",
        diagnostics={"macro_f": float(np.mean(class_f)), "class_f": class_f},
    )


def _dense_scores(scores: Any) -> NDArray[Any]:
    """float32/float64 scores as they are (no copy; checked block by block), others float64."""
    arr = scores if isinstance(scores, np.ndarray) else np.asarray(scores)
    if arr.dtype in (np.float32, np.float64):
        return arr
    return as_float_array(arr, "scores", ndim=2)


def _dense_labels(labels: Any) -> NDArray[np.bool_]:
    """Bool labels as they are (no copy); others checked 0/1 and converted once."""
    if isinstance(labels, np.ndarray) and labels.dtype == np.bool_:
        return labels
    return as_binary_labels(labels, "labels")


def _per_class_dense(
    scores: Any, labels: Any, b: float, zero_division: float, empty_classes: str
) -> ThresholdResult:
    """T_b on dense inputs without materializing the points: one sort + one sweep.

    float32 and float64 scores are sorted in their own dtype, a column block at a time:
    the extra memory is a few blocks per thread, never a float64 copy of the matrix.
    """
    zd = check_zero_division(zero_division)
    check_empty_classes(empty_classes, zd)
    s_shape = matching_shapes(scores, labels)
    s = _dense_scores(scores)
    y = _dense_labels(labels)
    _, n_cols = s_shape
    sizes = np.count_nonzero(y, axis=0).astype(np.int64)
    cols = kept_classes(sizes, empty_classes)
    n_obj = s_shape[0]
    cut = np.zeros(n_cols, dtype=np.int64)
    tp = np.zeros(n_cols, dtype=np.int64)
    cnt = np.zeros(n_cols, dtype=np.int64)
    thr = np.full(n_cols, math.inf)
    # Column blocks of ~8-16 MB, transposed so that each class is contiguous: sorting
    # contiguous rows is several times faster than np.sort(axis=0) on a large matrix.
    # Blocks are independent and both np.sort and the kernel release the GIL, so they
    # run on one thread per core.
    width = max(1, min(n_cols, (1 << 21) // max(n_obj, 1)))
    blocks = [slice(a, min(a + width, n_cols)) for a in range(0, n_cols, width)]

    def best_cuts(blk: slice) -> tuple[NDArray[Any], ...]:
        u = np.ascontiguousarray(s[:, blk].T)
        srt = np.sort(u, axis=1)
        # Sorted ascending, NaN last: a non-finite value sits at one of the two ends.
        ends = srt[:, [0, -1]]
        if not np.isfinite(ends).all():
            bad = int(u.size - np.count_nonzero(np.isfinite(u)))
            raise ValueError(
                f"scores contains {bad} NaN or infinite value(s) in columns "
                f"{blk.start}-{blk.stop - 1}"
            )
        yb = np.ascontiguousarray(y[:, blk].T)
        return _block_best_cuts(u, yb, srt, zd, b * b)

    workers = min(len(blocks), numba.get_num_threads())
    if workers > 1:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(best_cuts, blocks))
    else:
        results = [best_cuts(blk) for blk in blocks]
    for blk, out in zip(blocks, results, strict=True):
        cut[blk], tp[blk], cnt[blk], thr[blk] = out
    cut, tp, cnt, thr = cut[cols], tp[cols], cnt[cols], thr[cols]
    m = sizes[cols]
    with np.errstate(divide="ignore", invalid="ignore"):
        p_k = np.where(cnt == 0, zd, tp / np.maximum(cnt, 1))
        r_k = np.where(m == 0, zd, tp / np.maximum(m, 1))
    n = cols.size
    p = float(np.sum(p_k) / n)
    r = float(np.sum(r_k) / n)
    thresholds = np.full(n_cols, math.inf)
    thresholds[cols] = thr
    class_f = np.asarray(f_beta_from_pr(p_k, r_k, b), dtype=np.float64)
    return ThresholdResult(
        thresholds=thresholds,
        cuts=cut,
        precision=p,
        recall=r,
        f=float(f_beta_from_pr(p, r, b)),
        upper_bound=math.nan,
        gap=math.nan,
        method="per_class",
        beta=b,
        zero_division=zd,
        diagnostics={"macro_f": float(np.mean(class_f)), "class_f": class_f},
    )
