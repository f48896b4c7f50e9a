"""The entry points of a tuning solve as they were named before the split (an index).

:mod:`optimize.tuning.problem` holds :class:`~.problem.Problem` and the rule for the
empty classes, :mod:`optimize.tuning.solve` the solve itself. :func:`build_problem`
(every cut of some scores, settings given one by one) is kept for the tests and
benchmarks that build the every-cut problem directly.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.tuning.problem import Problem, every_cut_problem
from fmacro.optimize.tuning.settings import TuneSettings
from fmacro.optimize.tuning.solve import fit_thresholds, solve

__all__ = ["Problem", "build_problem", "fit_thresholds", "solve"]


def build_problem(
    scores: Any,
    labels: Any,
    zd: float,
    pi: NDArray[np.float64] | None,
    n: float,
    b: float,
    method: str,
    empty_rule: str,
    calibrated: bool = False,
    weights: NDArray[np.float64] | None = None,
) -> Problem:
    """The problem of every cut of ``scores``/``labels`` (every path but the fast one),
    the settings given one by one (checked), weighted by the checked ``weights``."""
    settings = TuneSettings(b, zd, n, method, empty_rule, pi, calibrated)
    return every_cut_problem(scores, labels, settings, weights)
