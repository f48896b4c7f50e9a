"""``tune(prior="cv")``: the pseudo-count chosen by cross-validation (private).

``repeats`` x 2-fold: each half of the tuning rows is fitted at every grid value and
scored on the other half (held-out plain F-macro, over that half's classes with a
positive): what :func:`~fmacro.optimize.evaluate_thresholds` gives for those thresholds
on those rows, 0/0 rule included (:func:`~fmacro.validation.measures.macro_from_counts`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import Any, Protocol, TypeVar

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize._weighted import weighted_class_sizes, weighted_predicted_counts
from fmacro.optimize.evaluation import predicted_counts, row_threshold_counts
from fmacro.optimize.inputs import as_binary_labels, label_rows, matching_shapes, scores_checked
from fmacro.optimize.search._blocks import check_dense_scores, run_beside
from fmacro.optimize.search._fbeta import argv
from fmacro.optimize.search.constraints import CutConstraints
from fmacro.optimize.search.linearization import linearized_cuts
from fmacro.optimize.tuning.columns import WalkedColumns
from fmacro.optimize.tuning.hulls import WalkedHulls
from fmacro.optimize.tuning.problem import Problem, every_cut_problem, fill_empty_thresholds
from fmacro.optimize.tuning.settings import TuneSettings
from fmacro.optimize.tuning.smoothing import centred_values
from fmacro.optimize.tuning.solve import fit_thresholds
from fmacro.optimize.tuning.source import WalkInputs, walk_inputs
from fmacro.validation.checks import is_sparse
from fmacro.validation.measures import macro_from_counts

__all__ = ["cv_scores", "cv_scores_checked"]


def cv_scores(
    scores: Any,
    labels: Any,
    grid: tuple[float, ...],
    repeats: int,
    seed: int,
    zd: float,
    pi: NDArray[np.float64] | None,
    n_eval: float | None,
    b: float,
    method: str,
    empty_rule: str,
    calibrated: bool,
    inputs: WalkInputs | None = None,
    weights: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """:func:`cv_scores_checked` of settings given one by one (all checked)."""
    n = math.nan if n_eval is None else float(n_eval)  # each half sets its own
    settings = TuneSettings(b, zd, n, method, empty_rule, pi, calibrated)
    return cv_scores_checked(scores, labels, grid, repeats, seed, settings, n_eval, inputs, weights)


def cv_scores_checked(
    scores: Any,
    labels: Any,
    grid: tuple[float, ...],
    repeats: int,
    seed: int,
    settings: TuneSettings,
    n_eval: float | None,
    inputs: WalkInputs | None = None,
    weights: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """Mean held-out plain F-macro of each grid value over ``repeats`` x 2 folds.

    Each half is fitted at every grid value and scored by counting its predictions on the
    other half (the same counts as that half's cut at each threshold). Given the fast
    path's checked ``inputs`` (the default method, own or given base rates), one walk of a
    half's rows gives its hull cuts for the whole grid (dense scores read in place, a
    sparse matrix's rows sliced); otherwise the halves are copied and their every cut
    built.

    With checked ``weights`` (never with ``inputs``) the halves are still row splits; each
    half carries its rows' weights: fitted on its weighted points, scored by weighted
    counts, its default batch size the held-out half's total weight. A half whose rows
    all weigh 0 is skipped like a half without any positive.
    """
    n_obj = matching_shapes(scores, labels)[0]
    if n_obj < 4:
        raise ValueError(f"prior='cv' needs at least 4 tuning rows, got {n_obj}")
    if weights is not None and inputs is not None:
        raise AssertionError("weighted halves are copied: the walk counts unweighted rows")
    data: _Halves = (
        _Copied(scores, labels, weights) if inputs is None else _Walked(inputs, scores, labels)
    )
    fit = _Fit.of(grid, settings)
    rng = np.random.default_rng(seed)
    total = np.zeros(len(grid))
    used = 0
    for _ in range(repeats):
        perm = rng.permutation(n_obj)
        halves = (np.sort(perm[: n_obj // 2]), np.sort(perm[n_obj // 2 :]))
        fit_rows, sizes, scorers = [], [], []
        for rows, ev_rows in (halves, halves[::-1]):
            scorer = data.held_out(ev_rows, fit)
            if scorer is not None:  # the held-out half has a positive to score
                fit_rows.append(rows)
                sizes.append(_batch_size(ev_rows, n_eval, weights))
                scorers.append(scorer)
        found = data.fits(fit_rows, sizes, fit)
        for scorer, thresholds in zip(scorers, found, strict=True):
            if thresholds is None:  # a half without any positive: nothing to learn
                continue
            f = scorer(thresholds)
            # NaN only under zero_division=nan when no class of the half predicts
            # anything (P undefined); counted 0, as zero_division=0 scores it
            total += np.where(np.isnan(f), 0.0, f)
            used += 1
    if used == 0:
        raise ValueError("prior='cv': no split has positives in both halves; pass a number")
    out = total / used
    out.flags.writeable = False
    return out


def _batch_size(
    rows: NDArray[np.int64], n_eval: float | None, weights: NDArray[np.float64] | None
) -> float:
    """The inner fits' ``n_eval``: the given one, else the held-out half's size (its
    total weight when weighted)."""
    if n_eval is not None:
        return float(n_eval)
    return float(rows.size) if weights is None else float(weights[rows].sum())


_Score = Callable[[NDArray[np.float64]], NDArray[np.float64]]
_R = TypeVar("_R")


@attrs.frozen
class _Fit:
    """The grid and the settings every inner fit shares (checked by ``tune``)."""

    grid: tuple[float, ...]
    zd: float
    pi: NDArray[np.float64] | None
    b: float
    method: str
    empty_rule: str  # tune's ``unseen=``
    calibrated: bool
    constraints: CutConstraints | None = None

    @classmethod
    def of(cls, grid: tuple[float, ...], s: TuneSettings) -> _Fit:
        return cls(
            grid,
            s.zero_division,
            s.base_rates,
            s.beta,
            s.method,
            s.empty_rule,
            s.calibrated,
            s.constraints,
        )

    def settings(self, n_eval: float) -> TuneSettings:
        """The settings of an inner fit for batches of ``n_eval`` (no exact step)."""
        full = TuneSettings(
            self.b,
            self.zd,
            n_eval,
            self.method,
            self.empty_rule,
            self.pi,
            self.calibrated,
            constraints=self.constraints,
        )
        return full.for_inner_fits(n_eval)


class _Halves(Protocol):
    def fits(
        self, rows: list[NDArray[np.int64]], sizes: list[float], fit: _Fit
    ) -> list[NDArray[np.float64] | None]:
        """For each half: thresholds (one row per grid value) fitted on its rows for
        batches of its size, or None when it holds no positive."""

    def held_out(self, rows: NDArray[np.int64], fit: _Fit) -> _Score | None:
        """F-macro of threshold rows on ``rows``, or None when they hold no positive."""


class _Walked:
    """The fast path: one walk of a half's rows gives its hull cuts at every grid value.

    Dense scores are read in place (the rows are an index array); a sparse matrix's
    halves are its rows, sliced once per half from a CSR copy (its walk reads the
    retrieved entries only).
    """

    def __init__(self, inputs: WalkInputs, scores: Any, labels: Any) -> None:
        self.inputs = inputs
        self.sparse = inputs.csc is not None
        if self.sparse:
            self.scores, self.labels = _by_rows(scores), _by_rows(labels)
        else:
            self.scores = inputs.scores
            # checked whole here: the walks of the halves would report a half's NaNs only
            check_dense_scores(self.scores)
            self.labels = inputs.labels  # bool array or checked CSC matrix

    def fits(
        self, rows: list[NDArray[np.int64]], sizes: list[float], fit: _Fit
    ) -> list[NDArray[np.float64] | None]:
        """Each half's hull cuts, each grid value searched by the linearization alone (no
        exact steps), on bare arrays. The walks of two halves run side by side (their
        numba kernels hold no lock; on the bundled rankings the pair's walks take 1.15
        ms instead of 1.54), then the searches one after the other."""
        walks = [
            partial(_no_positive_none, self._walk, r, n, fit)
            for r, n in zip(rows, sizes, strict=True)
        ]
        if len(walks) == 2:
            walked = list(run_beside(walks[1], walks[0]))[::-1]
        else:
            walked = [walk() for walk in walks]
        return [
            None if w is None else self._fit(*w, n, fit) for w, n in zip(walked, sizes, strict=True)
        ]

    def _walk(
        self, rows: NDArray[np.int64], n: float, fit: _Fit
    ) -> tuple[WalkedHulls, WalkedColumns]:
        """The half's hull cuts at every grid value, and its columns (the whole dense
        input read at ``rows``, or the half's own CSC matrix)."""
        if self.sparse:
            half = WalkedColumns(walk_inputs(self.scores[rows], self.labels[rows]))
        else:
            half = WalkedColumns(self.inputs, rows)
        return half.walked_hulls(fit.grid, fit.settings(n), second=False), half

    def _fit(
        self, walked: WalkedHulls, half: WalkedColumns, n: float, fit: _Fit
    ) -> NDArray[np.float64]:
        # what the rule for the empty classes reads: the half's columns and settings
        shared = Problem.from_points(walked.points(0, fit.zd), fit.settings(n), half)
        out = np.full((len(fit.grid), walked.n_cols), np.inf)
        b2 = fit.b * fit.b
        phis = []
        for g, (a, (indptr, tp, fp, thr, _)) in enumerate(zip(fit.grid, walked.cuts, strict=True)):
            p, r = centred_values(
                indptr, tp, fp, walked.support, walked.centres, walked.n_obj, a, n, fit.zd
            )
            cuts, big_p, big_r = linearized_cuts(indptr, p, r, fit.b, are_chains=True)
            out[g, walked.columns] = thr[indptr[:-1] + cuts]
            phis.append(float(argv(big_p, big_r, b2)))
        # one walk of the empty columns for every grid value
        fill_empty_thresholds(shared, fit.grid, phis, out)
        return out

    def held_out(self, rows: NDArray[np.int64], fit: _Fit) -> _Score | None:
        if self.sparse:
            return _rows_scorer(self.scores[rows], self.labels[rows], fit)
        if is_sparse(self.labels):
            labels = np.asarray(self.labels[rows].toarray(), dtype=np.bool_)
            label_rows_ = np.arange(rows.size, dtype=np.int64)
        else:
            labels, label_rows_ = self.labels, rows
        sizes = np.count_nonzero(labels[label_rows_], axis=0)
        scores = self.scores

        def count(
            thr: NDArray[np.float64], cols: NDArray[np.int64]
        ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
            return row_threshold_counts(scores, rows, labels, label_rows_, cols, thr)

        return _macro_scorer(count, sizes, fit.zd, fit.b)


class _Copied:
    """Every other case: each half copied (CSR rows of sparse input) and built whole;
    with ``weights``, each half with its rows' weights."""

    def __init__(
        self, scores: Any, labels: Any, weights: NDArray[np.float64] | None = None
    ) -> None:
        self.scores = scores
        self.labels = labels
        self.weights = weights

    def _weights(self, rows: NDArray[np.int64]) -> NDArray[np.float64] | None:
        return None if self.weights is None else self.weights[rows]

    def fits(
        self, rows: list[NDArray[np.int64]], sizes: list[float], fit: _Fit
    ) -> list[NDArray[np.float64] | None]:
        return [
            _no_positive_none(self._thresholds, r, n, fit) for r, n in zip(rows, sizes, strict=True)
        ]

    def _thresholds(
        self, rows: NDArray[np.int64], n: float, fit: _Fit
    ) -> NDArray[np.float64] | None:
        """The half's every-cut problem, built once and searched at each grid value (no
        exact steps); None for a half whose rows all weigh 0 (nothing to learn)."""
        w = self._weights(rows)
        if w is not None and not w.any():
            return None
        s, y = _rows(self.scores, rows), _rows(self.labels, rows)
        prob = every_cut_problem(s, y, fit.settings(n), w)
        return np.stack([fit_thresholds(prob, a) for a in fit.grid])

    def held_out(self, rows: NDArray[np.int64], fit: _Fit) -> _Score | None:
        s, y = _rows(self.scores, rows), _rows(self.labels, rows)
        w = self._weights(rows)
        if w is None:
            return _rows_scorer(s, y, fit)
        if not w.any():
            return None
        return _weighted_rows_scorer(s, y, w, fit)


def _no_positive_none(step: Callable[..., _R], *args: Any) -> _R | None:
    """``step(*args)``, or None when the half has no class with a positive."""
    try:
        return step(*args)
    except ValueError as err:
        if "no class with a positive" not in str(err):
            raise
        return None


def _rows_scorer(s: Any, y: Any, fit: _Fit) -> _Score | None:
    """The scorer of a held-out half given as its own rows (dense or sparse)."""
    if is_sparse(s) or is_sparse(y):
        by_row = label_rows(y)
        sizes = np.bincount(by_row.indices, minlength=y.shape[1])

        def count(
            thr: NDArray[np.float64], cols: NDArray[np.int64]
        ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
            full = np.full((thr.shape[0], y.shape[1]), np.inf)
            full[:, cols] = thr
            pairs = [predicted_counts(s, by_row, t) for t in full]
            tp, fp = np.stack([p[0] for p in pairs]), np.stack([p[1] for p in pairs])
            return tp[:, cols], fp[:, cols]
    else:
        dense_y = as_binary_labels(y)
        every = np.arange(y.shape[0], dtype=np.int64)
        sizes = np.count_nonzero(dense_y, axis=0)
        dense_s = np.asarray(s)

        def count(
            thr: NDArray[np.float64], cols: NDArray[np.int64]
        ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
            return row_threshold_counts(dense_s, every, dense_y, every, cols, thr)

    return _macro_scorer(count, sizes, fit.zd, fit.b)


def _weighted_rows_scorer(s: Any, y: Any, w: NDArray[np.float64], fit: _Fit) -> _Score | None:
    """The scorer of a held-out half given as its own rows and their weights: weighted
    counts (:func:`evaluate_thresholds` with ``sample_weight``) of each threshold row."""
    checked = scores_checked(s)
    by_row = label_rows(y)
    n_cols = y.shape[1]
    sizes = weighted_class_sizes(by_row, w, n_cols)

    def count(
        thr: NDArray[np.float64], cols: NDArray[np.int64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        full = np.full((thr.shape[0], n_cols), np.inf)
        full[:, cols] = thr
        pairs = [weighted_predicted_counts(checked, by_row, t, w) for t in full]
        tp, fp = np.stack([p[0] for p in pairs]), np.stack([p[1] for p in pairs])
        return tp[:, cols], fp[:, cols]

    return _macro_scorer(count, sizes, fit.zd, fit.b)


def _by_rows(x: Any) -> Any:
    """``x`` ready for row slicing: CSR when sparse, else as it is."""
    return x.tocsr() if is_sparse(x) else x


def _rows(x: Any, rows: NDArray[np.int64]) -> Any:
    """The rows ``rows`` of ``x``: CSR when sparse, else a column-major copy (the block
    walks read columns, which a column-major copy gives without a transpose)."""
    if is_sparse(x):
        return x.tocsr()[rows]
    arr = np.asarray(x)
    out = np.empty((rows.size, *arr.shape[1:]), dtype=arr.dtype, order="F")
    np.take(arr, rows, axis=0, out=out)
    return out


def _macro_scorer(
    # (tp, fp) of threshold rows in some columns: int64 counts, or float64 weight sums
    count: Callable[[NDArray[np.float64], NDArray[np.int64]], tuple[NDArray[Any], NDArray[Any]]],
    sizes: NDArray[Any],
    zd: float,
    b: float,
) -> _Score | None:
    """F-macro of each row of a threshold matrix on a held-out half (over its classes with
    a positive), or None when it has none: :func:`evaluate_thresholds` of each row on the
    half, by the one definition (:func:`macro_from_counts`; under ``zero_division=nan`` a
    class predicting nothing is left out of the precision average, and F is NaN only when
    no class predicts anything)."""
    kept = np.flatnonzero(sizes)
    if kept.size == 0:
        return None
    m = np.asarray(sizes)[kept]

    def f_macro(thresholds: NDArray[np.float64]) -> NDArray[np.float64]:
        # only the classes with a positive are scored: only their columns are counted
        tp, fp = count(np.ascontiguousarray(thresholds[:, kept], dtype=np.float64), kept)
        # correctly rounded sums: numpy's reductions may add in an order that depends on
        # the arrays' layout, and equal counts must score equal on every path
        return macro_from_counts(tp, fp, m, b, zd, summation="exact")[2]

    return f_macro
