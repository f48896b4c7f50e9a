"""One tuning solve: the smoothed points of a :class:`~.problem.Problem`, the search, the result.

:func:`solve` builds :func:`optimize.tune`'s result; :func:`fit_thresholds` gives the
thresholds alone (the inner fits of ``prior="cv"``). Both take the problem's checked
:class:`~.settings.TuneSettings` and run the searches through their ``*_checked``
entries, which check nothing again. See :mod:`optimize.tuning.tune` for the rules.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.baselines.cyclic import cyclic_checked
from fmacro.optimize.baselines.per_class import per_class_checked
from fmacro.optimize.search._fbeta import argv
from fmacro.optimize.search.constraints import cuts_to_keep, keep_cuts
from fmacro.optimize.search.domain import domain_checked
from fmacro.optimize.search.exact import exact_checked
from fmacro.optimize.search.fixed_point import fixed_point_checked
from fmacro.optimize.search.linearization import linearized_cuts
from fmacro.optimize.search.points import ClassPoints
from fmacro.optimize.search.result import ThresholdResult, TuningCounts
from fmacro.optimize.tuning.problem import Problem, empty_predicted, fill_empty_thresholds
from fmacro.optimize.tuning.screen import screened_points
from fmacro.optimize.tuning.smoothing import SmoothedPoints, sharing, smoothed_at
from fmacro.validation.measures import macro_from_counts

__all__ = ["fit_thresholds", "search", "smoothed_search", "solve"]


def search(points: SmoothedPoints, method: str, b: float, exact_step: bool) -> ThresholdResult:
    """The search ``method`` on smoothed ``points`` (``b``: the checked beta)."""
    if method == "fixed_point":
        return fixed_point_checked(points, b, exact=exact_step)
    if method == "exact":
        return exact_checked(points, b)
    if method == "domain":
        return domain_checked(points, b)
    if method == "per_class":
        return per_class_checked(points, b)
    return cyclic_checked(points, b)


def smoothed_search(
    problem: Problem, a: float
) -> tuple[ClassPoints, SmoothedPoints, ThresholdResult, str]:
    """(raw points, smoothed points, search result, which cuts the search saw).

    On the fast path the linearization runs on the hull cuts; it is final unless its
    crossing falls on an edge, where the exact step runs on the screened cuts
    (:func:`~.screen.screened_points`, the columns walked again): the same answer as on
    every cut.
    """
    s = problem.settings
    b = s.beta
    raw = problem.points
    if problem.hull_prior is not None and isinstance(raw, SmoothedPoints):
        if a != problem.hull_prior:
            raise AssertionError("hull points of another pseudo-count")
        inner = fixed_point_checked(raw, b, exact=False)
        if inner.diagnostics["status"] != "edge" or not s.exact:
            return raw, raw, inner, "hull"
        if problem.columns is None:
            raise AssertionError("an exact step on hull points needs a walk of their columns")
        screened = screened_points(raw, inner, b, problem.second, problem.columns.screened_cuts)
        return screened, screened, search(screened, "fixed_point", b, True), "screened"
    raw, sm = _smoothed(problem, a)
    return raw, sm, search(sm, s.method, b, s.exact), "every cut"


def _smoothed(problem: Problem, a: float) -> tuple[ClassPoints, SmoothedPoints]:
    """The raw and smoothed points of every feasible cut of ``problem`` at pseudo-count
    ``a`` (both checked by ``tune``; a weighted default ``n_eval`` may be below 1).

    A cut's smoothed values depend on its own counts and its class's only, so smoothing
    every cut and keeping the feasible ones gives the smoothed feasible points.
    """
    s = problem.settings
    sm = smoothed_at(problem.points, a, s.n_eval, base_rates=s.base_rates, centres=problem.centres)
    keep = cuts_to_keep(problem.points, s.constraints)
    if keep is None:
        return problem.points, sm
    raw = keep_cuts(problem.points, keep)
    model = sm.centre_p.size > 0
    kept = sharing(
        raw,
        pseudo_count=sm.pseudo_count,
        base_rate=sm.base_rate,
        n_eval=sm.n_eval,
        centre_p=sm.centre_p[keep] if model else sm.centre_p,
        centre_r=sm.centre_r[keep] if model else sm.centre_r,
    )
    return raw, kept


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
    """:func:`optimize.tune`'s result for ``problem`` at pseudo-count ``a`` (``extra``:
    more diagnostics, those of ``prior="cv"``)."""
    s = problem.settings
    b = s.beta
    raw, sm, inner, searched = smoothed_search(problem, a)
    cuts = sm.local_cuts(inner.cuts)
    p, r, f = _plain_values(raw, cuts, b)
    phi = float(argv(inner.precision, inner.recall, b * b))
    thresholds = raw.thresholds_for(cuts)
    fill_empty_thresholds(problem, (a,), (phi,), thresholds[np.newaxis])
    others = empty_predicted(problem, thresholds)
    counts = (
        None
        if others is None
        else TuningCounts.from_points(raw, cuts, thresholds, unseen_predicted=others)
    )
    certified = s.method in ("fixed_point", "exact", "domain")
    diag: dict[str, Any] = {
        "prior": a,
        "n_eval": s.n_eval,
        "search": s.method,
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
        "n_unseen": raw.n_columns - raw.n_classes,
        "unseen": "prior" if problem.rule_applies and a != 0.0 else "never",
        "calibrated": s.calibrated,
        "searched_cuts": searched,
        "search_diagnostics": dict(inner.diagnostics),
        **extra,
    }
    if s.constraints is not None:
        diag["constraints"] = s.constraints.to_dict()
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


def fit_thresholds(problem: Problem, a: float) -> NDArray[np.float64]:
    """The thresholds of :func:`solve` alone (what the inner fits of ``"cv"`` need).

    Without the exact step, method ``"fixed_point"`` is the linearization on each class's
    hull (:func:`linearized_cuts`), as on the fast path's hull points: the inner fits
    give the same thresholds whichever points they read.
    """
    s = problem.settings
    b = s.beta
    if s.method == "fixed_point" and not s.exact and problem.hull_prior is None:
        _, sm = _smoothed(problem, a)
        indptr = np.asarray(sm.indptr)
        cuts, big_p, big_r = linearized_cuts(
            indptr, np.asarray(sm.precision), np.asarray(sm.recall), b
        )
        thresholds = sm.thresholds_at(cuts)
    else:
        _, _, inner, _ = smoothed_search(problem, a)
        thresholds = np.array(inner.thresholds, dtype=np.float64)
        big_p, big_r = inner.precision, inner.recall
    fill_empty_thresholds(problem, (a,), (float(argv(big_p, big_r, b * b)),), thresholds[None])
    return thresholds
