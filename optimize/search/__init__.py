"""The certified F-macro search core.

rankings -> :mod:`~fmacro.optimize.search.points` (per-class precision/recall of every cut)
-> :mod:`~fmacro.optimize.search.hull` (upper hulls, merged edge angles)
-> :mod:`~fmacro.optimize.search.fixed_point` (the sweep, thresholds and a certificate).
:mod:`~fmacro.optimize.search.exact` proves the exact optimum (reduction by dual bounds and a
pruned Pareto merge), :mod:`~fmacro.optimize.search.domain` brackets the optimum with support
directions,
:mod:`~fmacro.optimize.search.localize` maps where coordinate-wise maxima can lie, and
:mod:`~fmacro.optimize.search.brute_force` enumerates tiny problems exactly (the test oracle).
"""

from fmacro.optimize.search.brute_force import brute_force, brute_force_exact
from fmacro.optimize.search.coordinate import coordinate_ascent, per_class_cuts
from fmacro.optimize.search.domain import domain
from fmacro.optimize.search.exact import exact
from fmacro.optimize.search.fixed_point import argv_curve, fixed_point
from fmacro.optimize.search.hull import ClassHulls, Sweep, class_hulls, edge_sweep
from fmacro.optimize.search.localize import LocalizeResult, localize
from fmacro.optimize.search.points import ClassPoints, class_points

__all__ = [
    "ClassHulls",
    "ClassPoints",
    "LocalizeResult",
    "Sweep",
    "argv_curve",
    "brute_force",
    "brute_force_exact",
    "class_hulls",
    "class_points",
    "coordinate_ascent",
    "domain",
    "edge_sweep",
    "exact",
    "fixed_point",
    "localize",
    "per_class_cuts",
]
