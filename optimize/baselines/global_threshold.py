"""``global_threshold``: one score threshold shared by every class, by an exact sweep."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from fmacro.optimize._frames import names_from_frames
from fmacro.optimize.baselines._sweep import nonempty_cuts, sweep_cuts
from fmacro.optimize.search.points import ClassPoints, as_points
from fmacro.optimize.search.result import ThresholdResult, TuningCounts, evaluate_cuts
from fmacro.validation.checks import check_beta

__all__ = ["global_threshold"]


@names_from_frames("scores", "labels")
def global_threshold(
    scores: Any = None,
    labels: Any = None,
    *,
    beta: float = 1.0,
    zero_division: float | None = None,
    empty_classes: str = "exclude",
    points: ClassPoints | None = None,
    sample_weight: Any = None,
) -> ThresholdResult:
    """One score threshold ``t`` shared by all classes, maximizing F-macro.

    Exact: the sweep visits every distinct score of every class (and the empty and
    all-objects states) in decreasing order and evaluates F_beta(P, R) after each.
    ``sample_weight`` (one weight per object) sweeps the cuts of
    ``class_points(scores, labels, sample_weight=...)``; objects of weight 0 are left
    out, so their scores are no candidate thresholds.

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
    pts = as_points(
        scores,
        labels,
        points,
        zero_division=zero_division,
        empty_classes=empty_classes,
        sample_weight=sample_weight,
    )
    idx = nonempty_cuts(pts)
    keys = -np.asarray(pts.threshold)[idx]
    cuts, _, pos, _, sorted_keys = sweep_cuts(pts, idx, keys, b)
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
        tuning=TuningCounts.from_points(pts, cuts, thresholds),
    )
