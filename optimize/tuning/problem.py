"""``Problem``: what a tuning solve needs besides the pseudo-count, and the empty classes' rule.

A problem is built by one of two named constructors: :meth:`Problem.from_points` (every
cut of the classes with tuning positives, or a cv half's hull cuts) or
:meth:`Problem.from_walk` (the fast path: the hull vertices at one pseudo-count and
each class's second layer). Where the score columns live is its :class:`~.columns.Columns`
(None: ``tune(points=...)``, no scores). :func:`fill_empty_thresholds` is the rule for
the empty classes (classes without tuning positives), :func:`empty_predicted` what they
predict on the tuning rows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.search.points import ClassPoints, class_points_checked
from fmacro.optimize.tuning.columns import Columns, CopiedColumns
from fmacro.optimize.tuning.etu import model_centres
from fmacro.optimize.tuning.hulls import SecondLayers
from fmacro.optimize.tuning.settings import TuneSettings
from fmacro.optimize.tuning.smoothing import SmoothedPoints

__all__ = [
    "Problem",
    "empty_columns",
    "empty_predicted",
    "every_cut_problem",
    "fill_empty_thresholds",
]

Centres = tuple[NDArray[np.float64], NDArray[np.float64]]


def empty_columns(points: ClassPoints) -> NDArray[np.int64]:
    """The columns ``points`` left out (the empty classes), increasing."""
    left_out = np.ones(points.n_columns, dtype=bool)
    left_out[np.asarray(points.class_index)] = False
    return np.flatnonzero(left_out).astype(np.int64)


@attrs.frozen(eq=False)
class Problem:
    """Everything a tuning solve needs besides the pseudo-count (see the constructors)."""

    # every cut of the classes with tuning positives, or (hull_prior set) only their
    # smoothed hull vertices at hull_prior
    points: ClassPoints
    settings: TuneSettings
    columns: Columns | None = None  # where the score columns live; None: no scores
    hull_prior: float | None = None
    second: SecondLayers | None = None  # each class's second layer (hull points only)
    centres: Centres | None = None  # model centres per cut of ``points``, when calibrated

    @classmethod
    def from_points(
        cls,
        points: ClassPoints,
        settings: TuneSettings,
        columns: Columns | None = None,
        centres: Centres | None = None,
    ) -> Problem:
        """The problem of raw ``points`` (every cut, or a cv half's hull cuts searched
        by the linearization alone), its empty classes read from ``columns``."""
        return cls(points, settings, columns, centres=centres)

    @classmethod
    def from_walk(
        cls,
        hull: SmoothedPoints,
        settings: TuneSettings,
        columns: Columns,
        second: SecondLayers | None = None,
    ) -> Problem:
        """The fast path's problem: ``hull``, the smoothed hull vertices ``columns`` gave
        at its pseudo-count, with each class's ``second`` layer."""
        return cls(hull, settings, columns, hull.pseudo_count, second)

    @property
    def empty(self) -> NDArray[np.int64]:
        """The columns of the empty classes, increasing."""
        return empty_columns(self.points)

    @property
    def rule_applies(self) -> bool:
        """Whether the empty classes get the rule's thresholds (else ``+inf``)."""
        return (
            self.settings.empty_rule == "prior" and self.columns is not None and self.empty.size > 0
        )


def every_cut_problem(
    scores: Any, labels: Any, settings: TuneSettings, weights: NDArray[np.float64] | None = None
) -> Problem:
    """The problem of every cut of ``scores``/``labels`` (every path but the fast one),
    weighted by the checked ``weights`` when given; with the model centres when
    calibrated."""
    zd = settings.zero_division
    raw = class_points_checked(scores, labels, zd, sample_weight=weights)
    centres = model_centres(raw, scores, weights) if settings.calibrated else None
    columns = CopiedColumns(scores, weights, settings.calibrated)
    return Problem.from_points(raw, settings, columns, centres)


def _predicts_everything(
    zero_division: float, centres: NDArray[np.float64], calibrated: bool
) -> bool:
    """The rule's fast case, needing no scores: with precision 0 for an empty cut and
    prior centres 0, p~ = 0 at every cut and r~ = j / N, so the all-objects cut wins
    whenever phi > 0 (what :func:`~.empty.best_empty_cut` finds on the cuts)."""
    return zero_division == 0.0 and not centres.any() and not calibrated


def fill_empty_thresholds(
    problem: Problem, priors: Sequence[float], phis: Sequence[float], out: NDArray[np.float64]
) -> None:
    """The rule's thresholds of the empty classes at each pair (``priors[g]``,
    ``phis[g]``) into row g of ``out`` (one entry per column; ``a = 0`` and ``phi = nan``
    leave the row as it is): one pass of ``problem.columns`` serves every pair."""
    if not problem.rule_applies or problem.columns is None:
        return
    s = problem.settings
    todo = [
        g
        for g, (a, phi) in enumerate(zip(priors, phis, strict=True))
        if a != 0.0 and not math.isnan(phi)
    ]
    cols = problem.empty
    pi = np.zeros(cols.size) if s.base_rates is None else s.base_rates[cols]
    bound = s.constraints is not None and s.constraints.binds(cols)
    if not bound and _predicts_everything(s.zero_division, pi, s.calibrated):
        for g in todo:
            if phis[g] > 0.0:
                out[g, cols] = -np.inf
        return
    if not todo:
        return
    todo_priors, todo_phis = [priors[g] for g in todo], [phis[g] for g in todo]
    found = problem.columns.empty_thresholds(cols, pi, todo_priors, todo_phis, s)
    for i, g in enumerate(todo):
        out[g, cols] = found[i]


def empty_predicted(problem: Problem, thresholds: NDArray[np.float64]) -> NDArray[Any] | None:
    """What each empty class predicts on the tuning rows (column order; the sum of their
    weights when weighted): nothing at ``+inf``, every row at ``-inf``, else counted on
    its scores; ``None`` when a finite threshold's scores are not at hand (fmacro.dask's
    workers hold them)."""
    raw = problem.points
    cols = problem.empty
    thr = thresholds[cols]
    out = np.where(np.isneginf(thr), raw.n_samples, 0).astype(
        np.float64 if raw.weighted else np.int64
    )
    finite = np.flatnonzero(np.isfinite(thr))
    if not finite.size:
        return out
    if problem.columns is None:
        return None
    found = problem.columns.empty_predicted(cols[finite], thr[finite])
    if found is None:
        return None
    out[finite] = found
    return out
