"""fmacro.optimize: F-measure optimization (F-macro threshold search, baselines, F-Delta)."""

from __future__ import annotations

import importlib
from typing import Any

from optimize.baselines import (
    cuts_for_thresholds,
    cyclic,
    global_threshold,
    per_class,
    proportional,
)
from optimize.binary import BinaryThreshold, best_threshold
from optimize.brute_force import brute_force, brute_force_exact
from optimize.coordinate import coordinate_ascent, per_class_cuts
from optimize.domain import domain
from optimize.evaluation import MacroEvaluation, evaluate_thresholds, f_macro
from optimize.exact import exact
from optimize.fixed_point import argv_curve, fixed_point
from optimize.hull import ClassHulls, Sweep, class_hulls, edge_sweep
from optimize.io import read_ranked_lists
from optimize.localize import LocalizeResult, localize
from optimize.points import ClassPoints, class_points
from optimize.rcut import predict_top_k, top_k
from optimize.result import ThresholdResult, evaluate_cuts

__all__ = [
    "BinaryThreshold",
    "ClassHulls",
    "ClassPoints",
    "LocalizeResult",
    "MacroEvaluation",
    "Sweep",
    "ThresholdResult",
    "argv_curve",
    "best_threshold",
    "brute_force",
    "brute_force_exact",
    "class_hulls",
    "class_points",
    "coordinate_ascent",
    "cuts_for_thresholds",
    "cyclic",
    "domain",
    "edge_sweep",
    "evaluate_cuts",
    "evaluate_thresholds",
    "exact",
    "f_macro",
    "fixed_point",
    "global_threshold",
    "localize",
    "per_class",
    "per_class_cuts",
    "predict_top_k",
    "proportional",
    "read_ranked_lists",
    "top_k",
]

# Subpackages with heavier or optional dependencies load on first attribute access.
_LAZY_SUBMODULES = frozenset({"fdelta", "plot", "sklearn", "cli"})


def __getattr__(name: str) -> Any:
    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f"optimize.{name}")
    raise AttributeError(f"module 'optimize' has no attribute {name!r}")
