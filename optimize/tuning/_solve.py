"""One tuning solve: the smoothed points of a problem, the search, the result (private).

:class:`Problem` holds what a solve needs besides the pseudo-count; :func:`solve` builds
:func:`optimize.tune`'s result; :func:`fit_thresholds` gives the thresholds alone (the
inner fits of ``prior="cv"``). See :mod:`optimize.tuning.tune` for the rules.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.baselines import cyclic, per_class
from fmacro.optimize.search._fbeta import argv
from fmacro.optimize.search.domain import domain
from fmacro.optimize.search.exact import exact
from fmacro.optimize.search.fixed_point import fixed_point
from fmacro.optimize.search.linearization import linearized_cuts
from fmacro.optimize.search.points import ClassPoints, class_points
from fmacro.optimize.search.result import ThresholdResult, TuningCounts
from fmacro.optimize.tuning._hull_points import (
    SecondChains,
    WalkInputs,
    smoothed_screened_points,
    unseen_thresholds,
)
from fmacro.optimize.tuning.etu import model_centres
from fmacro.optimize.tuning.smoothing import SmoothedPoints, smoothed_at
from fmacro.validation.checks import is_sparse
from fmacro.validation.measures import macro_from_counts

__all__ = [
    "Problem",
    "UnseenWalk",
    "build_problem",
    "fit_thresholds",
    "hull_problem",
    "missing_columns",
    "problem_from_points",
    "solve",
]


@attrs.frozen
class UnseenWalk:
    """:func:`unseen_thresholds` run elsewhere: ``walk(cols, centres, priors, phis)`` ->
    the rule's thresholds of the columns ``cols`` (prior centres ``centres``) at each
    pair (``priors[g]``, ``phis[g]``), one row per pair."""

    walk: Callable[
        [NDArray[np.int64], NDArray[np.float64], Sequence[float], Sequence[float]],
        NDArray[np.float64],
    ]


@attrs.frozen
class Problem:
    """Everything a tuning solve needs besides the pseudo-count."""

    raw: ClassPoints  # every cut, or (hull_prior set) only the hull cuts at hull_prior
    # the scores of the columns without positives, for the rule for unseen classes:
    # their WalkInputs on the fast path (the columns walked in place), an UnseenWalk (the
    # same walk elsewhere: fmacro.dask's workers), else a reader of a copy of those
    # columns; each used only when the rule needs scores (the all-objects answer of
    # zero_division 0 and prior centre 0 does not); None: rule "never", or no such column
    unseen: WalkInputs | UnseenWalk | Callable[[], Any] | None
    base_rates: NDArray[np.float64] | None  # per column, or None = own rates
    n_eval: float
    beta: float
    method: str
    calibrated: bool = False
    centres: Any = None  # (centre_p, centre_r) per cut of raw, when calibrated
    # raw holds the SmoothedPoints of smoothed_hull_points at this prior (the fast path)
    hull_prior: float | None = None
    # the columns whose scores ``unseen`` holds (those without tuning positives)
    unseen_columns: Any = None
    # the objects of a WalkInputs ``unseen`` that were tuned on (a cv half), None = all
    unseen_rows: NDArray[np.int64] | None = None
    # False: method "fixed_point" stops at the linearization (the inner fits of "cv")
    exact: bool = True
    # the hull points' walk again at an edge crossing: (hull points, linearization) ->
    # the screened points (smoothed_screened_points over the fast path's input; in
    # fmacro.dask, the same on the workers)
    screen: Callable[[SmoothedPoints, ThresholdResult], SmoothedPoints] | None = None
    # the checked sample weights ``raw`` was built with (the rows ``unseen`` reads), or None
    weights: NDArray[np.float64] | None = None


def read_columns(x: Any, cols: NDArray[np.int64]) -> Any:
    """Columns ``cols`` of dense or sparse ``x`` (a copy)."""
    if is_sparse(x):
        return x.tocsc()[:, cols]
    return np.asarray(x)[:, cols]


def build_problem(
    scores: Any,
    labels: Any,
    zd: float,
    pi: NDArray[np.float64] | None,
    n: float,
    b: float,
    method: str,
    unseen: str,
    calibrated: bool = False,
    weights: NDArray[np.float64] | None = None,
) -> Problem:
    """The problem of every cut of ``scores``/``labels`` (every path but the fast one),
    weighted by the checked ``weights`` when given."""
    raw = class_points(scores, labels, zero_division=zd, sample_weight=weights)
    return problem_from_points(raw, scores, pi, n, b, method, unseen, calibrated, weights)


def missing_columns(points: ClassPoints) -> NDArray[np.int64]:
    """The columns ``points`` left out (no positives), increasing."""
    left_out = np.ones(points.n_columns, dtype=bool)
    left_out[np.asarray(points.class_index)] = False
    return np.flatnonzero(left_out).astype(np.int64)


def problem_from_points(
    raw: ClassPoints,
    scores: Any,
    pi: NDArray[np.float64] | None,
    n: float,
    b: float,
    method: str,
    unseen: str,
    calibrated: bool = False,
    weights: NDArray[np.float64] | None = None,
) -> Problem:
    """The problem of ``raw`` points: with the scores of the columns they left out (the
    rule for classes without tuning positives) and, when calibrated, the model centres;
    ``weights``: the checked sample weights ``raw`` was built with (both then weighted)."""
    missing = missing_columns(raw)
    sub = partial(read_columns, scores, missing) if unseen == "prior" and missing.size else None
    centres = model_centres(raw, scores, weights) if calibrated else None
    return Problem(
        raw, sub, pi, n, b, method, calibrated, centres, unseen_columns=missing, weights=weights
    )


def hull_problem(
    hull: SmoothedPoints,
    inputs: WalkInputs,
    b: float,
    unseen: str,
    pi: NDArray[np.float64] | None = None,
    second: SecondChains | None = None,
) -> Problem:
    """The fast path's problem: ``hull`` from :func:`smoothed_hull_points` on ``inputs``
    (the checked scores and labels, whose columns without positives the rule for unseen
    classes walks in place) with the prior centres ``pi`` per column it was walked with
    (None: the own rates; the unseen classes' rule reads them) and, from
    :func:`smoothed_hull_fit`, the classes' second chains."""
    missing = missing_columns(hull)
    wanted = unseen == "prior" and missing.size
    return Problem(
        hull,
        inputs if wanted else None,
        pi,
        hull.n_eval,
        b,
        "fixed_point",
        hull_prior=hull.pseudo_count,
        unseen_columns=missing,
        screen=partial(smoothed_screened_points, inputs, beta=b, second=second),
    )


def _search(points: SmoothedPoints, method: str, b: float, exact_step: bool) -> ThresholdResult:
    zd = points.zero_division
    if method == "fixed_point":
        return fixed_point(points=points, beta=b, zero_division=zd, exact=exact_step)
    if method == "exact":
        return exact(points=points, beta=b, zero_division=zd)
    if method == "domain":
        return domain(points=points, beta=b, zero_division=zd, n_angles=None)
    if method == "per_class":
        return per_class(points=points, beta=b, zero_division=zd)
    return cyclic(points=points, beta=b, zero_division=zd)


def smoothed_search(
    problem: Problem, a: float
) -> tuple[ClassPoints, SmoothedPoints, ThresholdResult, str]:
    """(raw points, smoothed points, search result, which cuts the search saw).

    On the fast path the linearization runs on the hull cuts; it is final unless its
    crossing falls on an edge, where the exact step runs on the cuts it can use
    (:func:`smoothed_screened_points`): the same answer as on every cut.
    """
    b = problem.beta
    raw = problem.raw
    if problem.hull_prior is not None and isinstance(raw, SmoothedPoints):
        if a != problem.hull_prior:
            raise AssertionError("hull points of another pseudo-count")
        inner = fixed_point(points=raw, beta=b, zero_division=raw.zero_division, exact=False)
        if inner.diagnostics["status"] != "edge" or not problem.exact:
            return raw, raw, inner, "hull"
        if problem.screen is None:
            raise AssertionError("an exact step on hull points needs a walk of their columns")
        screened = problem.screen(raw, inner)
        return screened, screened, _search(screened, "fixed_point", b, True), "screened"
    sm = _smoothed(problem, a)
    return raw, sm, _search(sm, problem.method, b, problem.exact), "every cut"


def _smoothed(problem: Problem, a: float) -> SmoothedPoints:
    """Every cut of ``problem`` smoothed at pseudo-count ``a`` (both checked by ``tune``;
    a weighted default ``n_eval`` may be below 1)."""
    return smoothed_at(
        problem.raw,
        a,
        problem.n_eval,
        base_rates=problem.base_rates,
        centres=problem.centres,
    )


def fill_unseen_thresholds(problem: Problem, a: float, phi: float, out: NDArray[np.float64]) -> int:
    """Fill ``out`` (per column) for the classes without tuning positives; return their count."""
    fill_unseen_grid(problem, (a,), (phi,), out[np.newaxis])
    return problem.raw.n_columns - problem.raw.n_classes


def _unseen_predict_all(
    zero_division: float, centres: NDArray[np.float64], calibrated: bool
) -> bool:
    """Whether the rule for classes without tuning positives needs no scores: with
    precision 0 for an empty cut and prior centres 0, p~ = 0 at every cut and r~ = j / N,
    so the all-objects cut wins whenever phi > 0."""
    return zero_division == 0.0 and not centres.any() and not calibrated


def fill_unseen_grid(
    problem: Problem, priors: Sequence[float], phis: Sequence[float], out: NDArray[np.float64]
) -> None:
    """:func:`fill_unseen_thresholds` at each pair (``priors[g]``, ``phis[g]``) into row g
    of ``out``; on the fast path one walk of the unseen columns serves every pair."""
    raw = problem.raw
    if problem.unseen is None:
        return
    todo = [
        g
        for g, (a, phi) in enumerate(zip(priors, phis, strict=True))
        if a != 0.0 and not math.isnan(phi)
    ]
    cols = problem.unseen_columns
    pi = np.zeros(cols.size) if problem.base_rates is None else problem.base_rates[cols]
    if _unseen_predict_all(raw.zero_division, pi, problem.calibrated):
        for g in todo:
            if phis[g] > 0.0:
                out[g, cols] = -np.inf
        return
    if todo and isinstance(problem.unseen, (WalkInputs, UnseenWalk)):  # a column at a time
        todo_priors, todo_phis = [priors[g] for g in todo], [phis[g] for g in todo]
        if isinstance(problem.unseen, UnseenWalk):
            found = problem.unseen.walk(cols, pi, todo_priors, todo_phis)
        else:
            found = unseen_thresholds(
                problem.unseen,
                cols,
                pi,
                pseudo_counts=todo_priors,
                n_eval=problem.n_eval,
                zero_division=raw.zero_division,
                phis=todo_phis,
                rows=problem.unseen_rows,
            )
        for i, g in enumerate(todo):
            out[g, cols] = found[i]
        return
    if not todo:
        return
    # the copy of the unseen columns, their cuts and model centres serve every pair
    if not callable(problem.unseen):
        raise AssertionError("the every-cut rule reads a copy of the unseen columns")
    unseen_scores = problem.unseen()
    empty = np.zeros(unseen_scores.shape, dtype=np.uint8)
    # zero_division only sets p of the empty cut here; SmoothedPoints uses the real one.
    # Weighted: j and N are sums of the weights, as for the classes searched
    w = problem.weights
    pts = class_points(unseen_scores, empty, empty_classes="include", sample_weight=w)
    centres = model_centres(pts, unseen_scores, w) if problem.calibrated else None
    for g in todo:
        out[g, cols] = _unseen_every_cut(problem, pts, centres, priors[g], phis[g], pi)


def _unseen_every_cut(
    problem: Problem,
    pts: ClassPoints,
    centres: tuple[NDArray[np.float64], NDArray[np.float64]] | None,
    a: float,
    phi: float,
    pi: NDArray[np.float64],
) -> NDArray[np.float64]:
    """The rule's thresholds of the unseen columns from every cut ``pts`` of a copy of
    them (with the model's ``centres`` when calibrated)."""
    raw = problem.raw
    cols = problem.unseen_columns
    sm = SmoothedPoints(
        pts.indptr,
        pts.tp,
        pts.fp,
        pts.threshold,
        pts.support,
        pts.class_index,
        pts.n_samples,
        pts.n_columns,
        raw.zero_division,
        pseudo_count=a,
        base_rate=pi,
        n_eval=problem.n_eval,
    )
    if centres is not None:
        sm = attrs.evolve(sm, centre_p=centres[0], centre_r=centres[1])
    v = math.cos(phi) * sm.precision + math.sin(phi) * sm.recall
    v = np.where(np.isnan(v), -np.inf, v)
    starts = np.asarray(sm.indptr[:-1])
    best = np.maximum.reduceat(v, starts)
    owner = np.repeat(np.arange(cols.size), sm.n_cuts)
    hit = np.flatnonzero(v == best[owner])
    _, first = np.unique(owner[hit], return_index=True)
    chosen = hit[first]
    # the all-objects cut predicts every object, also below the tuning rows' scores
    return np.where(chosen == sm.indptr[1:] - 1, -np.inf, sm.threshold[chosen])


def _plain_values(
    raw: ClassPoints, cuts: NDArray[np.int64], b: float
) -> tuple[float, float, float]:
    """Plain (P, R, F) of ``cuts``, equal to :func:`evaluate_cuts` but touching only those
    cuts: the searches' plain mean (an empty cut under ``zero_division=nan`` makes it NaN)."""
    idx = raw.indptr[:-1] + cuts
    p, r, f = macro_from_counts(
        raw.tp[idx], raw.fp[idx], raw.support, b, raw.zero_division, undefined="propagate"
    )
    return float(p), float(r), float(f)


def solve(problem: Problem, a: float, extra: dict[str, Any]) -> ThresholdResult:
    b = problem.beta
    raw, sm, inner, searched = smoothed_search(problem, a)
    cuts = sm.local_cuts(inner.cuts)
    p, r, f = _plain_values(raw, cuts, b)
    phi = float(argv(inner.precision, inner.recall, b * b))
    thresholds = raw.thresholds_for(cuts)
    n_unseen = fill_unseen_thresholds(problem, a, phi, thresholds)
    others = unseen_predicted(problem, thresholds)
    counts = (
        None
        if others is None
        else TuningCounts.from_points(raw, cuts, thresholds, unseen_predicted=others)
    )
    certified = problem.method in ("fixed_point", "exact", "domain")
    diag: dict[str, Any] = {
        "prior": a,
        "n_eval": problem.n_eval,
        "search": problem.method,
        "smoothed_f": inner.f,
        "smoothed_precision": inner.precision,
        "smoothed_recall": inner.recall,
        "smoothed_upper_bound": inner.upper_bound,
        "smoothed_gap": inner.gap,
        "certified": certified,
        "certificate": (
            "smoothed_upper_bound bounds the smoothed objective F_beta(mean p~, mean r~), "
            "not the in-sample F-macro"
            if certified
            else "none"
        ),
        "phi": phi,
        "n_unseen": n_unseen,
        "unseen": "never" if problem.unseen is None or a == 0.0 else "prior",
        "calibrated": problem.calibrated,
        "searched_cuts": searched,
        "search_diagnostics": dict(inner.diagnostics),
        **extra,
    }
    return ThresholdResult(
        thresholds=thresholds,
        cuts=inner.cuts,
        precision=p,
        recall=r,
        f=f,
        upper_bound=math.nan,
        gap=math.nan,
        method="tune",
        beta=b,
        zero_division=raw.zero_division,
        diagnostics=diag,
        tuning=counts,
    )


def unseen_predicted(problem: Problem, thresholds: NDArray[np.float64]) -> NDArray[Any] | None:
    """What each column without tuning positives predicts on the tuning rows (column
    order; the sum of their weights when weighted): nothing at ``+inf``, every row at
    ``-inf``, else counted on its scores; ``None`` when a finite threshold's scores are not
    at hand (:class:`UnseenWalk`: on fmacro.dask's workers)."""
    raw = problem.raw
    cols = missing_columns(raw)
    thr = thresholds[cols]
    out = np.where(np.isneginf(thr), raw.n_samples, 0).astype(
        np.float64 if raw.weighted else np.int64
    )
    finite = np.flatnonzero(np.isfinite(thr)).tolist()
    if not finite:
        return out
    unseen, rows, weights = problem.unseen, problem.unseen_rows, problem.weights
    if (
        unseen is None
        or isinstance(unseen, UnseenWalk)
        or (rows is not None and weights is not None)
    ):
        return None

    def total(hit_rows: NDArray[np.int64]) -> Any:
        return hit_rows.size if weights is None else weights[hit_rows].sum()

    if isinstance(unseen, WalkInputs):  # every column, walked in place
        for k in finite:
            j = int(cols[k])
            if unseen.csc is not None:
                indptr, indices, data = unseen.csc
                part = slice(indptr[j], indptr[j + 1])
                hit_rows = indices[part][data[part] >= thr[k]]
                if rows is not None:
                    hit_rows = hit_rows[np.isin(hit_rows, rows)]
            else:
                column = unseen.scores[:, j] if rows is None else unseen.scores[rows, j]
                hit_rows = np.flatnonzero(column >= thr[k])
            out[k] = total(hit_rows)
        return out
    if rows is not None:
        return None
    sub = unseen()  # a copy of the columns ``cols``, every tuning row
    csc = sub.tocsc() if is_sparse(sub) else None
    for k in finite:
        if csc is not None:
            part = slice(csc.indptr[k], csc.indptr[k + 1])
            hit_rows = np.asarray(csc.indices[part])[csc.data[part] >= thr[k]]
        else:
            hit_rows = np.flatnonzero(np.asarray(sub[:, k]) >= thr[k])
        out[k] = total(hit_rows)
    return out


def fit_thresholds(problem: Problem, a: float) -> NDArray[np.float64]:
    """The thresholds of :func:`solve` alone (what the inner fits of ``"cv"`` need).

    Without the exact step, method ``"fixed_point"`` is the linearization on each class's
    hull (:func:`linearized_cuts`), as on the fast path's hull points: the inner fits
    give the same thresholds whichever points they read.
    """
    b = problem.beta
    if problem.method == "fixed_point" and not problem.exact and problem.hull_prior is None:
        sm = _smoothed(problem, a)
        indptr = np.asarray(sm.indptr)
        cuts, big_p, big_r = linearized_cuts(
            indptr, np.asarray(sm.precision), np.asarray(sm.recall), b
        )
        thresholds = sm.thresholds_at(cuts)
    else:
        _, _, inner, _ = smoothed_search(problem, a)
        thresholds = np.array(inner.thresholds, dtype=np.float64)
        big_p, big_r = inner.precision, inner.recall
    fill_unseen_thresholds(problem, a, float(argv(big_p, big_r, b * b)), thresholds)
    return thresholds
