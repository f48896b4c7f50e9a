"""``proportional`` (PCut): class k predicts about ``scale * prior_k * N`` objects.

Each class predicts its top-ranked objects; ``scale`` is tuned by an exact sweep.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from fmacro.optimize._frames import names_from_frames
from fmacro.optimize.baselines._sweep import nonempty_cuts, sweep_cuts
from fmacro.optimize.offsets import group_of_entries
from fmacro.optimize.search.points import ClassPoints, as_points
from fmacro.optimize.search.result import ThresholdResult
from fmacro.validation.checks import as_float_array, check_beta

__all__ = ["proportional"]


@names_from_frames("scores", "labels")
def proportional(
    scores: Any = None,
    labels: Any = None,
    *,
    beta: float = 1.0,
    zero_division: float | None = None,
    empty_classes: str = "exclude",
    points: ClassPoints | None = None,
    priors: ArrayLike | None = None,
    sample_weight: Any = None,
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
    sample_weight
        One non-negative weight per object, or ``None``: the cuts are those of
        ``class_points(scores, labels, sample_weight=...)``, ``N`` is the total weight
        and a cut's size its predicted weight (default priors: weighted frequencies).
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
    pts = as_points(
        scores,
        labels,
        points,
        zero_division=zero_division,
        empty_classes=empty_classes,
        sample_weight=sample_weight,
    )
    n_obj = pts.n_samples
    if priors is None:
        prior = pts.support.astype(np.float64) / n_obj
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
    idx = nonempty_cuts(pts)
    owner = group_of_entries(pts.n_cuts)[idx]
    expected = prior[owner] * n_obj
    keep = expected > 0
    idx, owner, expected = idx[keep], owner[keep], expected[keep]
    count = (np.asarray(pts.tp) + np.asarray(pts.fp))[idx]
    keys = count / expected
    cuts, _, pos, _, sorted_keys = sweep_cuts(pts, idx, keys, b)
    scale = 0.0 if pos == 0 else float(sorted_keys[pos - 1])
    return ThresholdResult.from_checked_cuts(
        pts, cuts, beta=b, method="proportional", diagnostics={"scale": scale}
    )
