"""Baseline threshold rules for F-macro.

Every method returns a :class:`~optimize.result.ThresholdResult` with
``upper_bound = gap = nan`` (no certificate) and ``method`` set to its name:

``per_class``  (T_b, SCut)
    Each class at its own F_beta-optimal cut. This maximizes *macro-F* (the mean of
    per-class F) exactly, but not F-macro = F_beta(P, R).
``global_threshold``
    One score threshold shared by every class, chosen by an exact sweep over all
    distinct scores.
``top_k``  (RCut)
    In :mod:`fmacro.optimize.baselines.top_k`: each object gets its ``k`` highest-scored classes.
``proportional``  (PCut)
    Class ``k`` predicts about ``scale * prior_k * N`` objects (its top-ranked ones);
    ``scale`` tuned by an exact sweep.
``cyclic``
    Cyclic coordinate ascent from a start (default: the T_b cuts); returns a
    coordinate-wise maximum.

Conventions are those of :mod:`fmacro.optimize.search.points`: positive iff
``score >= threshold``; ties are never split; the empty cut has precision
``zero_division`` (with ``nan`` it is never chosen); classes without positives are
left out of P and R by default (``empty_classes="exclude"``) and get threshold
``+inf``.

:mod:`optimize.evaluation` scores given thresholds on held-out data.

Cost: the sweeps sort all cuts once (``O(H log H)``, H = total cuts) and run one
numba pass; the first call in a process compiles the kernels (a few seconds, then
cached on disk).
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numba
import numpy as np
from numpy.typing import ArrayLike, NDArray

from fmacro.optimize._inputs import (
    as_binary_labels,
    check_empty_classes,
    kept_classes,
    matching_shapes,
)
from fmacro.optimize.search._fbeta import f_beta_scalar
from fmacro.optimize.search.coordinate import coordinate_ascent, per_class_cuts
from fmacro.optimize.search.points import ClassPoints, as_points, check_cuts
from fmacro.optimize.search.result import ThresholdResult, evaluate_cuts
from fmacro.validation.checks import as_float_array, check_beta, check_zero_division, is_sparse
from fmacro.validation.measures import f_beta_from_pr

__all__ = [
    "cuts_for_thresholds",
    "cyclic",
    "global_threshold",
    "per_class",
    "proportional",
]


# --------------------------------------------------------------------------- kernels


@numba.njit(cache=True)
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
        best_f = f_beta_scalar(sp / n, sr / n, b2)
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
            v = f_beta_scalar(sp / n, sr / n, b2)
            if v > best_f:
                best_f = v
                best_pos = i
    cuts = np.zeros(n, dtype=np.int64)
    for t in range(best_pos):
        g = order[t]
        j = owner[g]
        cuts[j] = g - indptr[j]
    return cuts, best_f, best_pos


@numba.njit(cache=True)
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


# nogil: blocks of columns run on several Python threads (np.sort releases the GIL too).
@numba.njit(cache=True, nogil=True)
def _block_best_cuts(
    unsorted: NDArray[np.float64],
    y: NDArray[np.bool_],
    srt: NDArray[np.float64],
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
            best = f_beta_scalar(zd, r0, b2)
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
                f = f_beta_scalar(p, r, b2)
                if f > best:
                    best = f
                    best_cut[row] = ncut
                    best_tp[row] = t
                    best_cnt[row] = taken
                    best_thr[row] = v
    return best_cut, best_tp, best_cnt, best_thr


# --------------------------------------------------------------------------- helpers


def _points(
    scores: Any,
    labels: Any,
    points: ClassPoints | None,
    zero_division: float,
    empty_classes: str,
) -> ClassPoints:
    return as_points(
        scores, labels, points, zero_division=zero_division, empty_classes=empty_classes
    )


def _nonempty_cuts(points: ClassPoints) -> NDArray[np.int64]:
    """Global indices of every cut except each class's empty cut (cut 0)."""
    mask = np.ones(points.tp.size, dtype=bool)
    mask[points.indptr[:-1]] = False
    return np.flatnonzero(mask).astype(np.int64)


def _sweep(
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


# --------------------------------------------------------------------------- methods


def per_class(
    scores: Any = None,
    labels: Any = None,
    *,
    beta: float = 1.0,
    zero_division: float = 0.0,
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
        Precision of the empty cut: 0.0 (default), 1.0 or nan (never chosen).
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
        return _per_class_dense(scores, labels, b, zero_division, empty_classes)
    pts = _points(scores, labels, points, zero_division, empty_classes)
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


def _per_class_dense(
    scores: Any, labels: Any, b: float, zero_division: float, empty_classes: str
) -> ThresholdResult:
    """T_b on dense inputs without materializing the points: one sort + one sweep."""
    zd = check_zero_division(zero_division)
    check_empty_classes(empty_classes, zd)
    s_shape = matching_shapes(scores, labels)
    s = np.ascontiguousarray(as_float_array(scores, "scores", ndim=2))
    y = np.ascontiguousarray(as_binary_labels(labels, "labels"))
    _, n_cols = s_shape
    sizes = np.count_nonzero(y, axis=0).astype(np.int64)
    cols = kept_classes(sizes, empty_classes)
    n_obj = s_shape[0]
    cut = np.zeros(n_cols, dtype=np.int64)
    tp = np.zeros(n_cols, dtype=np.int64)
    cnt = np.zeros(n_cols, dtype=np.int64)
    thr = np.full(n_cols, math.inf)
    # Column blocks of ~16 MB, transposed so that each class is contiguous: sorting
    # contiguous rows is several times faster than np.sort(axis=0) on a large matrix.
    # Blocks are independent and both np.sort and the kernel release the GIL, so they
    # run on one thread per core.
    width = max(1, min(n_cols, (1 << 21) // max(n_obj, 1)))
    blocks = [slice(a, min(a + width, n_cols)) for a in range(0, n_cols, width)]

    def best_cuts(blk: slice) -> tuple[NDArray[Any], ...]:
        u = np.ascontiguousarray(s[:, blk].T)
        yb = np.ascontiguousarray(y[:, blk].T)
        return _block_best_cuts(u, yb, np.sort(u, axis=1), zd, b * b)

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


def global_threshold(
    scores: Any = None,
    labels: Any = None,
    *,
    beta: float = 1.0,
    zero_division: float = 0.0,
    empty_classes: str = "exclude",
    points: ClassPoints | None = None,
) -> ThresholdResult:
    """One score threshold ``t`` shared by all classes, maximizing F-macro.

    Exact: the sweep visits every distinct score of every class (and the empty and
    all-objects states) in decreasing order and evaluates F_beta(P, R) after each.

    Returns
    -------
    ThresholdResult
        ``method="global_threshold"``; ``thresholds`` is ``t`` for every kept column
        (``+inf`` for excluded columns), ``diagnostics["threshold"]`` is ``t``: the
        lowest score predicted positive (``+inf`` = predict nothing, ``-inf`` = the
        all-objects state of truncated sparse lists).

    Notes
    -----
    Sort of all cuts (``O(H log H)``) plus one numba sweep. Scores of different
    classes must be comparable for this rule to make sense (e.g. probabilities).
    """
    b = check_beta(beta)
    pts = _points(scores, labels, points, zero_division, empty_classes)
    idx = _nonempty_cuts(pts)
    keys = -np.asarray(pts.threshold)[idx]
    cuts, _, pos, _, sorted_keys = _sweep(pts, idx, keys, b)
    t = math.inf if pos == 0 else float(-sorted_keys[pos - 1])
    thresholds = np.full(pts.n_columns, math.inf)
    thresholds[pts.class_index] = t
    p, r, f = evaluate_cuts(pts, cuts, b)
    return ThresholdResult(
        thresholds=thresholds,
        cuts=cuts,
        precision=p,
        recall=r,
        f=f,
        upper_bound=math.nan,
        gap=math.nan,
        method="global_threshold",
        beta=b,
        zero_division=pts.zero_division,
        diagnostics={"threshold": t},
    )


def proportional(
    scores: Any = None,
    labels: Any = None,
    *,
    beta: float = 1.0,
    zero_division: float = 0.0,
    empty_classes: str = "exclude",
    points: ClassPoints | None = None,
    priors: ArrayLike | None = None,
) -> ThresholdResult:
    """PCut: class ``k`` predicts its top ``scale * prior_k * N`` objects; ``scale`` tuned.

    Class ``k`` takes its deepest cut with at most ``scale * prior_k * N`` predicted
    objects (a cut never splits a tie, so this is a floor). ``scale`` is chosen by an
    exact sweep over every value at which some class changes its cut.

    Parameters
    ----------
    priors
        Class frequencies, one per ORIGINAL column (length ``n_columns``), >= 0,
        e.g. the training frequencies ``Y_train.mean(axis=0)``. Default: the
        frequencies ``m_k / N`` on the data given, so ``scale = 1`` predicts each
        class about as often as it occurs. A class with prior 0 predicts nothing.
    Other parameters
        As in :func:`per_class`.

    Returns
    -------
    ThresholdResult
        ``method="proportional"``; thresholds are each class's score threshold at
        its cut; ``diagnostics["scale"]`` is the smallest scale giving the chosen
        cuts (``0.0`` when every class is at its empty cut).
    """
    b = check_beta(beta)
    pts = _points(scores, labels, points, zero_division, empty_classes)
    n_obj = pts.n_objects
    if priors is None:
        prior = pts.positives.astype(np.float64) / n_obj
    else:
        pr = as_float_array(priors, "priors", ndim=1)
        if pr.shape != (pts.n_columns,):
            raise ValueError(
                f"priors must have one entry per class column, shape ({pts.n_columns},), "
                f"got {pr.shape}"
            )
        if (pr < 0).any():
            raise ValueError(f"priors must be >= 0, found {float(pr.min())!r}")
        prior = pr[pts.class_index]
    idx = _nonempty_cuts(pts)
    owner = np.repeat(np.arange(pts.n_classes), np.asarray(pts.n_cuts))[idx]
    expected = prior[owner] * n_obj
    keep = expected > 0
    idx, owner, expected = idx[keep], owner[keep], expected[keep]
    count = (np.asarray(pts.tp) + np.asarray(pts.fp))[idx]
    keys = count / expected
    cuts, _, pos, _, sorted_keys = _sweep(pts, idx, keys, b)
    scale = 0.0 if pos == 0 else float(sorted_keys[pos - 1])
    return ThresholdResult.from_cuts(
        pts, cuts, beta=b, method="proportional", diagnostics={"scale": scale}
    )


def cyclic(
    scores: Any = None,
    labels: Any = None,
    *,
    beta: float = 1.0,
    zero_division: float = 0.0,
    empty_classes: str = "exclude",
    points: ClassPoints | None = None,
    start: ThresholdResult | ArrayLike | None = None,
    start_thresholds: ArrayLike | None = None,
) -> ThresholdResult:
    """Cyclic coordinate ascent on F-macro; returns a coordinate-wise maximum.

    Each pass moves every class, in turn, to the cut that maximizes F_beta(P, R)
    given the others (only on a strict improvement), until a pass changes nothing:
    then no single-class change can raise F. F never decreases from the start, but
    the end point can be strictly below the optimum.

    Parameters
    ----------
    start
        Starting cuts: a :class:`ThresholdResult` on the same points (its ``cuts``),
        or integer local cuts, one per kept class. Default: the T_b cuts of
        :func:`per_class`.
    start_thresholds
        Alternatively, starting score thresholds, one per ORIGINAL column
        (converted with :func:`cuts_for_thresholds`). Not together with ``start``.
    Other parameters
        As in :func:`per_class`.

    Returns
    -------
    ThresholdResult
        ``method="cyclic"``; ``diagnostics["start_f"]`` is F-macro at the start.
    """
    b = check_beta(beta)
    pts = _points(scores, labels, points, zero_division, empty_classes)
    if start is not None and start_thresholds is not None:
        raise ValueError("pass start= or start_thresholds=, not both")
    if start_thresholds is not None:
        start_cuts = cuts_for_thresholds(pts, start_thresholds)
    elif start is None:
        start_cuts = per_class_cuts(pts, b)
    elif isinstance(start, ThresholdResult):
        start_cuts = check_cuts(pts, start.cuts)
    else:
        start_cuts = check_cuts(pts, start)
    start_f = evaluate_cuts(pts, start_cuts, b)[2]
    cuts = coordinate_ascent(pts, start_cuts, b)
    return ThresholdResult.from_cuts(
        pts, cuts, beta=b, method="cyclic", diagnostics={"start_f": start_f}
    )
