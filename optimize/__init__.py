"""fmacro.optimize: F-measure optimization.

- :mod:`~fmacro.optimize.search`: the certified F-macro search core (class points, hulls,
  the fixed-point sweep, domain analysis, localization, brute force);
- :mod:`~fmacro.optimize.baselines`: classic rules (per-class T_b, global, top-k, PCut, cyclic,
  micro_macro);
- :mod:`~fmacro.optimize.search.result` and :mod:`~fmacro.optimize.evaluation`: the frozen result
  every method returns, and held-out scoring of thresholds;
- :mod:`~fmacro.optimize.io` (rankings on disk), :mod:`~fmacro.optimize.sklearn` (an
  estimator), :mod:`~fmacro.optimize.synthetic` (generators), :mod:`~fmacro.optimize.plot`,
  :mod:`~fmacro.optimize.fdelta` (F-score perceptron training),
  :mod:`~fmacro.optimize.uncertainty` (:func:`held_out_interval`: an interval for the F-macro
  tuned thresholds reach on new data), :mod:`~fmacro.optimize.comparison`
  (:func:`compare_methods`: several methods' held-out measures side by side).
"""

from __future__ import annotations

import importlib
from typing import Any

from fmacro.optimize.baselines import (
    BinaryThreshold,
    best_threshold,
    cuts_for_thresholds,
    cyclic,
    global_threshold,
    micro_macro,
    per_class,
    predict_top_k,
    proportional,
    top_k,
)
from fmacro.optimize.comparison import MethodComparison, compare_methods
from fmacro.optimize.evaluation import MacroEvaluation, evaluate_thresholds, f_macro
from fmacro.optimize.io import RankedLists, read_ranked_lists
from fmacro.optimize.search import (
    ClassHulls,
    ClassPoints,
    LocalizeResult,
    Sweep,
    argv_curve,
    brute_force,
    brute_force_exact,
    class_hulls,
    class_points,
    coordinate_ascent,
    domain,
    edge_sweep,
    exact,
    fixed_point,
    localize,
    per_class_cuts,
)
from fmacro.optimize.search.constraints import rate_caps
from fmacro.optimize.search.result import ThresholdResult, evaluate_cuts
from fmacro.optimize.tuning import (
    ExpectedPoints,
    SmoothedPoints,
    etu,
    expected_points,
    smooth_points,
    tune,
)
from fmacro.validation.values import read_only_copies

# RankedLists (optimize/io.py) gets its read-only copies here: the package __init__ runs
# before any import of fmacro.optimize.io, so every RankedLists is covered. (io.py is
# being reworked on another branch; the decorator can move onto the class after merging.)
read_only_copies(RankedLists)

__all__ = [
    "BinaryThreshold",
    "ClassHulls",
    "ClassPoints",
    "ExpectedPoints",
    "HeldOutInterval",
    "LocalizeResult",
    "MacroEvaluation",
    "MethodComparison",
    "SmoothedPoints",
    "Sweep",
    "ThresholdResult",
    "argv_curve",
    "best_threshold",
    "brute_force",
    "brute_force_exact",
    "class_hulls",
    "class_points",
    "compare_methods",
    "coordinate_ascent",
    "cuts_for_thresholds",
    "cyclic",
    "domain",
    "edge_sweep",
    "etu",
    "evaluate_cuts",
    "evaluate_thresholds",
    "exact",
    "expected_points",
    "f_macro",
    "fixed_point",
    "global_threshold",
    "held_out_interval",
    "localize",
    "micro_macro",
    "per_class",
    "per_class_cuts",
    "predict_top_k",
    "proportional",
    "rate_caps",
    "read_ranked_lists",
    "smooth_points",
    "top_k",
    "tune",
]

# Subpackages with heavier or optional dependencies load on first attribute access.
_LAZY_SUBMODULES = frozenset({"fdelta", "plot", "sklearn", "synthetic", "uncertainty"})
# Names of those subpackages exported here, loaded with them on first access.
_LAZY_NAMES = {"held_out_interval": "uncertainty", "HeldOutInterval": "uncertainty"}


def __getattr__(name: str) -> Any:
    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f"fmacro.optimize.{name}")
    if name in _LAZY_NAMES:
        module = importlib.import_module(f"fmacro.optimize.{_LAZY_NAMES[name]}")
        return getattr(module, name)
    raise AttributeError(f"module 'fmacro.optimize' has no attribute {name!r}")
