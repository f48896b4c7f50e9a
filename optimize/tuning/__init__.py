"""Thresholds for new data: the F-macro choices that hold up on data the tuning never saw.

- :func:`tune` (:mod:`~fmacro.optimize.tuning.tune`): the certified optimum of smoothed class
  points (pseudo-count priors on each cut's precision and recall, and the chance that a cut
  predicts anything in a batch of ``n_eval`` new objects); the call users make.
- :func:`smooth_points` (:mod:`~fmacro.optimize.tuning.smoothing`): that transformation of
  the class points, so any search method runs on them.
- :func:`etu` (:mod:`~fmacro.optimize.tuning.etu`): decisions for one batch of calibrated
  probabilities, without labels (transductive).
"""

from fmacro.optimize.tuning.etu import ExpectedPoints, etu, expected_points
from fmacro.optimize.tuning.smoothing import SmoothedPoints, smooth_points
from fmacro.optimize.tuning.tune import tune

__all__ = ["ExpectedPoints", "SmoothedPoints", "etu", "expected_points", "smooth_points", "tune"]
