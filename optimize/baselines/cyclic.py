"""``cyclic``: cyclic coordinate ascent on F-macro from any start (default: the T_b cuts).

It stops at a coordinate-wise maximum, which for F-macro can be strictly below the optimum.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fmacro.optimize._frames import names_from_frames
from fmacro.optimize.baselines._sweep import cuts_for_thresholds
from fmacro.optimize.search.constraints import constrained, feasible_start, noted
from fmacro.optimize.search.coordinate import ascend_checked, own_cuts_checked
from fmacro.optimize.search.linearization import evaluate_checked
from fmacro.optimize.search.points import ClassPoints, as_points
from fmacro.optimize.search.result import ThresholdResult
from fmacro.validation.checks import check_beta

__all__ = ["cyclic", "cyclic_checked"]


@names_from_frames("scores", "labels")
def cyclic(
    scores: Any = None,
    labels: Any = None,
    *,
    beta: float = 1.0,
    zero_division: float | None = None,
    empty_classes: str = "exclude",
    points: ClassPoints | None = None,
    start: ThresholdResult | ArrayLike | None = None,
    start_thresholds: ArrayLike | None = None,
    sample_weight: Any = None,
    min_precision: Any = None,
    max_predicted_rate: Any = None,
) -> ThresholdResult:
    """Cyclic coordinate ascent on F-macro; returns a coordinate-wise maximum.

    Each pass moves every class, in turn, to the cut that maximizes F_beta(P, R)
    given the others (only on a strict improvement), until a pass changes nothing:
    then no single-class change can raise F. F never decreases from the start, but
    the end point can be strictly below the optimum.

    Parameters
    ----------
    start
        Starting cuts: a :class:`ThresholdResult` on the same data (its ``cuts``),
        or integer cut numbers (as in ``ThresholdResult.cuts``), one per kept class.
        Default: the T_b cuts of :func:`per_class`.
    start_thresholds
        Alternatively, starting score thresholds, one per ORIGINAL column
        (converted with :func:`cuts_for_thresholds`). Not together with ``start``.
    min_precision, max_predicted_rate
        Per-class constraints on the cuts, as for :func:`fmacro.optimize.fixed_point`:
        the ascent moves only between feasible cuts, and a given start must be feasible.
    Other parameters
        As in :func:`per_class` (``sample_weight`` included: the ascent runs on the
        weighted points).

    Returns
    -------
    ThresholdResult
        ``method="cyclic"``; ``diagnostics["start_f"]`` is F-macro at the start.
    """
    b = check_beta(beta)
    # Without a start, no class ever needs a dominated cut (see class_points); an explicit
    # start may sit on one, so points built here then keep every cut (given pruned points
    # refuse such a start by name).
    default_start = start is None and start_thresholds is None
    pts = as_points(
        scores,
        labels,
        points,
        zero_division=zero_division,
        empty_classes=empty_classes,
        dominated="drop" if default_start or points is not None else "keep",
        sample_weight=sample_weight,
    )
    if start is not None and start_thresholds is not None:
        raise ValueError("pass start= or start_thresholds=, not both")
    feasible, rules = constrained(pts, min_precision, max_predicted_rate)
    if default_start:
        return noted(cyclic_checked(feasible, b), rules)
    if start_thresholds is not None:
        start_cuts = cuts_for_thresholds(pts, start_thresholds)
    elif isinstance(start, ThresholdResult):
        start_cuts = pts.local_cuts(start.cuts)
    elif start is not None:
        start_cuts = pts.local_cuts(start)
    if feasible is not pts:
        start_cuts = feasible_start(feasible, pts.full_cuts(start_cuts))
    return noted(_ascent_from(feasible, start_cuts, b), rules)


def cyclic_checked(points: ClassPoints, b: float) -> ThresholdResult:
    """:func:`cyclic` from the default start on given ``points`` with a checked beta
    ``b``: what ``tune`` calls."""
    return _ascent_from(points, own_cuts_checked(points, b), b)


def _ascent_from(pts: ClassPoints, start_cuts: NDArray[np.int64], b: float) -> ThresholdResult:
    """The ascent's result from checked local ``start_cuts``."""
    start_f = evaluate_checked(pts, start_cuts, b)[2]
    cuts = ascend_checked(pts, start_cuts, b)
    return ThresholdResult.from_checked_cuts(
        pts, cuts, beta=b, method="cyclic", diagnostics={"start_f": start_f}
    )
