"""Baseline threshold rules for F-macro, and held-out evaluation of thresholds.

Every method returns a :class:`~optimize.result.ThresholdResult` with
``upper_bound = gap = nan`` (no certificate) and ``method`` set to its name:

``per_class``  (T_b, SCut)
    Each class at its own F_beta-optimal cut. This maximizes *macro-F* (the mean of
    per-class F) exactly, but not F-macro = F_beta(P, R).
``global_threshold``
    One score threshold shared by every class, chosen by an exact sweep over all
    distinct scores.
``top_k``  (RCut)
    Each object gets its ``k`` highest-scored classes; ``k`` tuned over
    ``1..k_max``. Not a per-class threshold rule: see :func:`top_k`.
``proportional``  (PCut)
    Class ``k`` predicts about ``scale * prior_k * N`` objects (its top-ranked ones);
    ``scale`` tuned by an exact sweep.
``cyclic``
    Cyclic coordinate ascent from a start (default: the T_b cuts); returns a
    coordinate-wise maximum.

Conventions are those of :mod:`optimize.points`: positive iff
``score >= threshold``; ties are never split; the empty cut has precision
``zero_division`` (with ``nan`` it is never chosen); classes without positives are
left out of P and R by default (``empty_classes="exclude"``) and get threshold
``+inf``.

:func:`f_macro` and :func:`evaluate_thresholds` score given thresholds on (held-out)
data with the definition of :mod:`validation`: F_beta of the macro-averaged
precision and recall over the classes with at least one positive (all classes with
``empty_classes="include"``; their recall is then ``zero_division``). Under
``zero_division=nan`` a class that predicts nothing is left out of the precision
average (validation's convention); on the tuning data the optimizers never pick
such a cut, so both conventions agree there.

Cost: the sweeps sort all cuts once (``O(H log H)``, H = total cuts) and run one
numba pass; the first call in a process compiles the kernels (a few seconds, then
cached on disk).
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

import attrs
import numba
import numpy as np
from numpy.typing import ArrayLike, NDArray

from optimize._fbeta import f_beta_scalar
from optimize.binary import as_binary_labels
from optimize.coordinate import coordinate_ascent, per_class_cuts
from optimize.points import (
    ClassPoints,
    as_points,
    check_cuts,
    check_empty_classes,
    matching_shapes,
    matrix_shape,
)
from optimize.result import ThresholdResult, evaluate_cuts
from validation._checks import as_float_array, check_beta, check_zero_division, is_sparse
from validation.counts import frozen_array
from validation.measures import f_beta_from_pr, mean_defined, safe_divide

__all__ = [
    "MacroEvaluation",
    "cuts_for_thresholds",
    "cyclic",
    "evaluate_thresholds",
    "f_macro",
    "global_threshold",
    "per_class",
    "predict_top_k",
    "proportional",
    "top_k",
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
        Precomputed :class:`~optimize.points.ClassPoints` (then scores/labels None).

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
    if empty_classes == "include":
        cols = np.arange(n_cols, dtype=np.int64)
    else:
        cols = np.flatnonzero(sizes > 0).astype(np.int64)
        if cols.size == 0:
            raise ValueError("labels has no class with a positive example; nothing to optimize")
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


# --------------------------------------------------------------------------- RCut


class _LabelRows(NamedTuple):
    """Validated 0/1 labels by row: CSR structure, plus the bool matrix if given dense."""

    indptr: NDArray[np.int64]
    indices: NDArray[np.int64]  # sorted within each row
    dense: NDArray[np.bool_] | None

    @property
    def nnz(self) -> int:
        return int(self.indices.size)

    def to_dense(self, shape: tuple[int, int]) -> NDArray[np.bool_]:
        if self.dense is not None:
            return self.dense
        out = np.zeros(shape, dtype=bool)
        out[np.repeat(np.arange(shape[0]), np.diff(self.indptr)), self.indices] = True
        return out


def _label_rows(labels: Any) -> _LabelRows:
    """Labels (dense or sparse, checked 0/1) by row; dense input needs no scipy."""
    if is_sparse(labels):
        csr = labels.tocsr(copy=True)
        csr.sum_duplicates()
        as_binary_labels(np.asarray(csr.data), "labels")
        csr.eliminate_zeros()
        csr.sort_indices()
        return _LabelRows(
            np.asarray(csr.indptr, dtype=np.int64), np.asarray(csr.indices, dtype=np.int64), None
        )
    dense = as_binary_labels(labels, "labels")
    rows, cols = np.nonzero(dense)  # row-major: columns come sorted within each row
    indptr = np.zeros(dense.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=dense.shape[0]), out=indptr[1:])
    return _LabelRows(indptr, cols.astype(np.int64), dense)


def _scores_checked(scores: Any) -> Any:
    """Dense float64 array or canonical CSR (finite data), never the caller's object."""
    if is_sparse(scores):
        csr = scores.tocsr(copy=True)
        csr.sum_duplicates()
        csr.sort_indices()
        data = np.asarray(csr.data, dtype=np.float64)
        if not np.isfinite(data).all():
            bad = int(data.size - np.count_nonzero(np.isfinite(data)))
            raise ValueError(f"scores contains {bad} NaN or infinite value(s)")
        csr.data = data
        return csr
    return as_float_array(scores, "scores", ndim=2)


def _top_entries(scores: Any, k_max: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(rows, cols) of each object's top-``k_max`` classes, rank-major.

    Returns ``cols`` of shape (N, k_max) with -1 where an object has fewer stored
    entries; ties broken by the lower column index.
    """
    if is_sparse(scores):
        n, _ = scores.shape
        row = np.repeat(np.arange(n), np.diff(scores.indptr))
        order = np.lexsort((scores.indices, -scores.data, row))
        row_o = row[order]
        starts = np.asarray(scores.indptr[:-1])
        rank = np.arange(order.size) - starts[row_o]
        keep = rank < k_max
        cols = np.full((n, k_max), -1, dtype=np.int64)
        cols[row_o[keep], rank[keep]] = np.asarray(scores.indices)[order[keep]]
        return np.arange(n), cols
    n, m = scores.shape
    if k_max < m:
        part = np.argpartition(-scores, k_max - 1, axis=1)[:, :k_max]
        # argpartition may cut through a tie at the k-th value: widen to all columns
        # holding that value, then order by (-score, column).
        kth = np.take_along_axis(scores, part, axis=1).min(axis=1)
        cand_mask = scores >= kth[:, None]
        if int(cand_mask.sum(axis=1).max()) > k_max:
            rows_c, cols_c = np.nonzero(cand_mask)
            vals = scores[rows_c, cols_c]
            order = np.lexsort((cols_c, -vals, rows_c))
            rows_o, cols_o = rows_c[order], cols_c[order]
            starts = np.searchsorted(rows_o, np.arange(n))
            rank = np.arange(rows_o.size) - starts[rows_o]
            keep = rank < k_max
            out = np.full((n, k_max), -1, dtype=np.int64)
            out[rows_o[keep], rank[keep]] = cols_o[keep]
            return np.arange(n), out
        cand = part
    else:
        cand = np.broadcast_to(np.arange(m), (n, m))
    vals = np.take_along_axis(scores, cand, axis=1)
    order = np.lexsort((cand, -vals), axis=1)
    cols = np.take_along_axis(cand, order, axis=1)[:, :k_max].astype(np.int64)
    return np.arange(n), cols


def predict_top_k(scores: Any, k: int) -> NDArray[np.bool_]:
    """RCut predictions: each object's ``k`` highest-scored classes (dense bool).

    Ties at the k-th place go to the lower column index. For sparse scores only
    stored entries can be predicted (an object with fewer than ``k`` gets all of
    them).
    """
    matrix_shape(scores, "scores")
    s = _scores_checked(scores)
    kk = _check_k(k, "k")
    n, m = s.shape
    _, cols = _top_entries(s, min(kk, m))
    out = np.zeros((n, m), dtype=bool)
    rows = np.repeat(np.arange(n), cols.shape[1])
    flat = cols.reshape(-1)
    ok = flat >= 0
    out[rows[ok], flat[ok]] = True
    return out


def _check_k(k: object, name: str) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"{name} must be a positive integer, got {type(k).__name__}")
    if int(k) < 1:
        raise ValueError(f"{name} must be a positive integer, got {k!r}")
    return int(k)


def top_k(
    scores: Any,
    labels: Any,
    *,
    beta: float = 1.0,
    zero_division: float = 0.0,
    empty_classes: str = "exclude",
    k_max: int | None = None,
) -> ThresholdResult:
    """RCut: predict each object's top ``k`` classes, ``k`` in ``1..k_max`` tuned for F-macro.

    Parameters
    ----------
    scores
        Dense ``(N, n)`` or sparse (retrieved entries only; missing entries are never
        predicted). Ties within an object go to the lower column index.
    labels
        ``(N, n)`` 0/1 indicator, dense or sparse.
    k_max
        Largest ``k`` tried; default ``min(n, max(10, ceil(2 * cardinality)))`` where
        cardinality is the mean number of labels per object.
    Other parameters
        As in :func:`per_class`.

    Returns
    -------
    ThresholdResult
        ``method="top_k"``; ``diagnostics["k"]`` is the chosen ``k`` and
        ``diagnostics["f_by_k"]``, ``["precision_by_k"]``, ``["recall_by_k"]`` the
        curves over ``k = 1..k_max``. RCut is a per-object rule, not per-class
        thresholds: ``thresholds`` are NaN and ``cuts`` are -1; predict new data
        with :func:`predict_top_k` (``result.apply`` does not apply here).

    Notes
    -----
    P and R follow :func:`evaluate_thresholds` (validation's definition). Cost: a
    partial sort of each row (dense) or one sort of the stored entries (sparse),
    then ``O(k_max * (N + n))``.
    """
    b = check_beta(beta)
    zd = check_zero_division(zero_division)
    check_empty_classes(empty_classes, zd)
    n, m = matching_shapes(scores, labels)
    s = _scores_checked(scores)
    y = _label_rows(labels)
    sizes = np.bincount(y.indices, minlength=m).astype(np.int64)
    kept = _kept_columns(sizes, empty_classes)
    if k_max is None:
        card = y.nnz / n
        kk = min(m, max(10, math.ceil(2 * card)))
    else:
        kk = min(_check_k(k_max, "k_max"), m)
    _, cols = _top_entries(s, kk)
    rows = np.arange(n)
    label_keys = np.repeat(np.arange(n, dtype=np.int64), np.diff(y.indptr)) * m + y.indices
    tp = np.zeros(m, dtype=np.int64)
    npred = np.zeros(m, dtype=np.int64)
    f_by_k = np.empty(kk)
    p_by_k = np.empty(kk)
    r_by_k = np.empty(kk)
    for j in range(kk):
        c = cols[:, j]
        ok = c >= 0
        keys = rows[ok] * m + c[ok]
        pos = np.searchsorted(label_keys, keys)
        pos = np.minimum(pos, max(label_keys.size - 1, 0))
        hit = (label_keys[pos] == keys) if label_keys.size else np.zeros(keys.size, dtype=bool)
        tp += np.bincount(c[ok][hit], minlength=m)
        npred += np.bincount(c[ok], minlength=m)
        ev = _macro_from_counts(tp[kept], npred[kept] - tp[kept], sizes[kept], b, zd)
        p_by_k[j], r_by_k[j], f_by_k[j] = ev
    f_sel = np.where(np.isnan(f_by_k), -np.inf, f_by_k)
    best = int(np.argmax(f_sel))
    return ThresholdResult(
        thresholds=np.full(m, math.nan),
        cuts=np.full(kept.size, -1, dtype=np.int64),
        precision=p_by_k[best],
        recall=r_by_k[best],
        f=f_by_k[best],
        upper_bound=math.nan,
        gap=math.nan,
        method="top_k",
        beta=b,
        zero_division=zd,
        diagnostics={
            "k": best + 1,
            "f_by_k": f_by_k,
            "precision_by_k": p_by_k,
            "recall_by_k": r_by_k,
            "class_index": kept,
        },
    )


# --------------------------------------------------------------------------- evaluation


def _kept_columns(sizes: NDArray[np.int64], empty_classes: str) -> NDArray[np.int64]:
    if empty_classes == "include":
        return np.arange(sizes.size, dtype=np.int64)
    kept = np.flatnonzero(sizes > 0).astype(np.int64)
    if kept.size == 0:
        raise ValueError("labels has no class with a positive example; nothing to evaluate")
    return kept


def _macro_from_counts(
    tp: NDArray[np.int64], fp: NDArray[np.int64], m: NDArray[np.int64], beta: float, zd: float
) -> tuple[float, float, float]:
    p_k = np.asarray(safe_divide(tp, tp + fp, zd), dtype=np.float64)
    r_k = np.asarray(safe_divide(tp, m, zd), dtype=np.float64)
    p = mean_defined(p_k)
    r = mean_defined(r_k)
    return p, r, float(f_beta_from_pr(p, r, beta))


@attrs.frozen(eq=False)
class MacroEvaluation:
    """F-macro of given thresholds on some data, with the per-class details.

    Attributes
    ----------
    f, precision, recall
        F_beta(P, R), macro precision P and macro recall R over ``class_index``.
    class_index
        Columns averaged (those with positives, or all with ``empty_classes="include"``).
    tp, fp, positives
        Per-column counts (all columns) of the predictions ``score >= threshold``.
    class_precision, class_recall, class_f
        Per-column measures (all columns; 0/0 -> ``zero_division``).
    beta, zero_division
        Settings used.
    """

    f: float
    precision: float
    recall: float
    class_index: NDArray[np.int64] = attrs.field(repr=False)
    tp: NDArray[np.int64] = attrs.field(repr=False)
    fp: NDArray[np.int64] = attrs.field(repr=False)
    positives: NDArray[np.int64] = attrs.field(repr=False)
    class_precision: NDArray[np.float64] = attrs.field(repr=False)
    class_recall: NDArray[np.float64] = attrs.field(repr=False)
    class_f: NDArray[np.float64] = attrs.field(repr=False)
    beta: float
    zero_division: float

    @property
    def macro_f(self) -> float:
        """Mean of per-class F over ``class_index`` (macro-F, not F-macro)."""
        return mean_defined(self.class_f[self.class_index])


def _predicted_counts(
    s: Any, y: _LabelRows, thr: NDArray[np.float64]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    n, m = s.shape
    if is_sparse(s):
        row = np.repeat(np.arange(n, dtype=np.int64), np.diff(s.indptr))
        col = np.asarray(s.indices, dtype=np.int64)
        hit = (s.data >= thr[col]) & ~np.isneginf(thr[col])
        keys = row[hit] * m + col[hit]
        label_keys = np.repeat(np.arange(n, dtype=np.int64), np.diff(y.indptr)) * m + y.indices
        if label_keys.size:
            pos = np.minimum(np.searchsorted(label_keys, keys), label_keys.size - 1)
            is_pos = label_keys[pos] == keys
        else:
            is_pos = np.zeros(keys.size, dtype=bool)
        tp = np.bincount(col[hit][is_pos], minlength=m).astype(np.int64)
        npred = np.bincount(col[hit], minlength=m).astype(np.int64)
        sizes = np.bincount(y.indices, minlength=m).astype(np.int64)
        allc = np.isneginf(thr)
        tp[allc] = sizes[allc]
        npred[allc] = n
        return tp, npred - tp
    pred = s >= thr[None, :]
    yd = y.to_dense((n, m))
    tp = np.count_nonzero(pred & yd, axis=0).astype(np.int64)
    fp = np.count_nonzero(pred & ~yd, axis=0).astype(np.int64)
    return tp, fp


def evaluate_thresholds(
    scores: Any,
    labels: Any,
    thresholds: ThresholdResult | ArrayLike,
    *,
    beta: float = 1.0,
    zero_division: float = 0.0,
    empty_classes: str = "exclude",
) -> MacroEvaluation:
    """Score thresholds on (held-out) data: F-macro, P, R and per-class counts.

    Parameters
    ----------
    scores
        Dense ``(N, n)`` scores, or sparse with retrieved entries only (a missing
        entry is predicted only by a ``-inf`` threshold).
    labels
        ``(N, n)`` 0/1 indicator, dense or sparse.
    thresholds
        One per column (positive iff ``score >= threshold``; ``+inf`` never,
        ``-inf`` always), or a :class:`ThresholdResult` (its ``thresholds``).
    beta, zero_division
        F_beta weight (> 0) and the 0/0 value (0.0, 1.0 or nan; with nan, classes
        predicting nothing are left out of the precision average).
    empty_classes
        ``"exclude"`` (default): average over classes with a positive in ``labels``;
        ``"include"``: over all classes (recall of an empty class = zero_division).

    Returns
    -------
    MacroEvaluation
    """
    b = check_beta(beta)
    zd = check_zero_division(zero_division)
    check_empty_classes(empty_classes, zd)
    _, m = matching_shapes(scores, labels)
    if isinstance(thresholds, ThresholdResult):
        if thresholds.method == "top_k":
            raise ValueError(
                "thresholds comes from top_k, which has no per-class thresholds; "
                "use predict_top_k(scores, result.diagnostics['k'])"
            )
        thr = np.array(thresholds.thresholds, dtype=np.float64)
    else:
        thr = np.array(thresholds, dtype=np.float64)
    if thr.shape != (m,):
        raise ValueError(
            f"thresholds must have one entry per class column, shape ({m},), got {thr.shape}"
        )
    if np.isnan(thr).any():
        raise ValueError(f"thresholds contains {int(np.isnan(thr).sum())} NaN value(s)")
    s = _scores_checked(scores)
    y = _label_rows(labels)
    sizes = np.bincount(y.indices, minlength=m).astype(np.int64)
    kept = _kept_columns(sizes, empty_classes)
    tp, fp = _predicted_counts(s, y, thr)
    p, r, f = _macro_from_counts(tp[kept], fp[kept], sizes[kept], b, zd)
    class_p = np.asarray(safe_divide(tp, tp + fp, zd), dtype=np.float64)
    class_r = np.asarray(safe_divide(tp, sizes, zd), dtype=np.float64)
    b2 = b * b
    class_f = np.asarray(
        safe_divide((1 + b2) * tp, (1 + b2) * tp + b2 * (sizes - tp) + fp, zd), dtype=np.float64
    )
    return MacroEvaluation(
        f=f,
        precision=p,
        recall=r,
        class_index=frozen_array(kept, np.int64),
        tp=frozen_array(tp, np.int64),
        fp=frozen_array(fp, np.int64),
        positives=frozen_array(sizes, np.int64),
        class_precision=frozen_array(class_p, np.float64),
        class_recall=frozen_array(class_r, np.float64),
        class_f=frozen_array(class_f, np.float64),
        beta=b,
        zero_division=zd,
    )


def f_macro(
    scores: Any,
    labels: Any,
    thresholds: ThresholdResult | ArrayLike,
    *,
    beta: float = 1.0,
    zero_division: float = 0.0,
    empty_classes: str = "exclude",
) -> float:
    """F-macro = F_beta(macro P, macro R) of ``score >= thresholds`` on (held-out) data.

    See :func:`evaluate_thresholds` for the parameters and conventions.

    Examples
    --------
    >>> import numpy as np
    >>> S = np.array([[0.9, 0.2], [0.4, 0.8], [0.1, 0.3]])
    >>> Y = np.array([[1, 0], [1, 1], [0, 0]])
    >>> f_macro(S, Y, [0.4, 0.5])  # class 0: p=1, r=1; class 1: p=1, r=1
    1.0
    """
    return evaluate_thresholds(
        scores,
        labels,
        thresholds,
        beta=beta,
        zero_division=zero_division,
        empty_classes=empty_classes,
    ).f
