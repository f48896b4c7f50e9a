"""Where ``tune``'s fast-path walks used to live, and where to find them now (an index).

The walk of a class's sorted scores is split by pass, each module small enough to read
whole:

- :mod:`optimize.tuning.source`: where a class's cuts are read from (dense scores or CSC
  columns, a cv half's rows), :class:`~optimize.tuning.source.WalkInputs`;
- :mod:`optimize.tuning.cuts`: the shared buffers, smoothed cut values and hull candidates;
- :mod:`optimize.tuning.hulls`: the hull vertices and each class's second layer;
- :mod:`optimize.tuning.screen`: the screened cuts the exact step reads at an edge;
- :mod:`optimize.tuning.empty`: the thresholds of the empty classes.

:mod:`optimize.tuning.columns` puts them behind one seam, ``Columns``. The names below are
kept here for code written before the split.
"""

from __future__ import annotations

from fmacro.optimize.tuning.empty import empty_thresholds
from fmacro.optimize.tuning.hulls import smoothed_hull_fit, smoothed_hull_points, walked_hulls
from fmacro.optimize.tuning.screen import smoothed_screened_points
from fmacro.optimize.tuning.source import WalkInputs, walk_inputs

__all__ = [
    "WalkInputs",
    "empty_thresholds",
    "smoothed_hull_fit",
    "smoothed_hull_points",
    "smoothed_screened_points",
    "walk_inputs",
    "walked_hulls",
]
