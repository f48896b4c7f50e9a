"""Plots of the F-macro threshold search (needs matplotlib: ``pip install matplotlib``).

For users, in scikit-learn's Display pattern (compute with ``from_...``, draw with
``.plot(ax=None)``; :mod:`fmacro.optimize.plot.displays`):
:class:`PrecisionRecallDisplay` (a class's precision-recall curve with the chosen
threshold and its average precision), :class:`FThresholdDisplay` (F against threshold),
:class:`ConfusionMatrixDisplay` (multiclass heat map), :class:`MultilabelConfusionDisplay`
(a grid of per-label 2x2 matrices; :mod:`fmacro.optimize.plot.grid`) and
:class:`FoldScoresDisplay` (cross-validation folds). The two curve displays are built
``from_result``, ``from_scores``, ``from_estimator`` (a fitted classifier; an
``FMacroThresholdClassifier`` marks its tuned threshold) or ``from_predictions``, and take
their class as ``column=``, a class name or an index.

The research figures below are grouped, with plain-language captions, in
:mod:`fmacro.optimize.plot.diagnostics`, each in the same pattern too
(:class:`ClassPointsDisplay`, :class:`DomainDisplay`, :class:`ArgVDisplay`,
:class:`LocalizationDisplay`: ``from_points``/``from_scores`` compute the arrays drawn,
``plot`` draws them); each ``plot_*`` function is ``...Display.from_points(...).plot(...)``
returning the figure. Every plot function returns a
:class:`matplotlib.figure.Figure` (it never calls ``plt.show``) and accepts either
``scores`` and ``labels`` or prebuilt ``points=`` (a
:class:`~fmacro.optimize.ClassPoints`), like the optimization functions, plus ``beta``.
Pass ``ax=`` to draw into an existing axes instead of a new figure.

* :func:`plot_class_points` - each class's (p, r) cut points with its upper convex
  hull (the dissertation's Figure 2.1 view of the ingredients of D).
* :func:`plot_domain` - the achievable set D of (macro P, macro R), its exact
  upper-right boundary, the support polygon of the domain method, the optimum of
  :func:`~fmacro.optimize.fixed_point`, and the F_beta level curves through the optimum and
  through the upper bound (Figure 3.7).
* :func:`plot_argv` - ArgV(phi) against the identity; the crossing is the fixed point
  (Figure 3.1).
* :func:`plot_localization` - the grid of :func:`~fmacro.optimize.localize` coloured by box
  size, candidate cells in black (Figures 3.2, 3.5).
* :func:`plot_fold_scores` - cross-validation fold scores with the pooled score and the
  fold mean.
* :func:`save_threshold_plots` - the PNG files written by ``fmacro thresholds --plot DIR``.

Axes: precision on x, recall on y, so a direction phi (maximize
``cos(phi) P + sin(phi) R``) is measured from the P axis.

matplotlib is imported on first use. On a machine without a display, and when no
backend was chosen (``MPLBACKEND``, ``matplotlib.use``, Jupyter), the non-interactive
Agg backend is selected. Figures made without ``ax=`` belong to pyplot: close them with
``plt.close(fig)`` when you make many.

Examples
--------
>>> import numpy as np
>>> import matplotlib.pyplot as plt
>>> from fmacro.optimize.plot import plot_domain
>>> scores = np.array([[0.9, 0.2], [0.8, 0.7], [0.3, 0.6], [0.1, 0.1]])
>>> labels = np.array([[1, 0], [0, 1], [1, 1], [0, 0]])
>>> fig = plot_domain(scores, labels)
>>> fig.axes[0].get_xlabel(), fig.axes[0].get_ylabel()
('macro precision P', 'macro recall R')
>>> plt.close(fig)
"""

from fmacro.optimize.plot import diagnostics as diagnostics
from fmacro.optimize.plot._common import INSTALL_HINT as INSTALL_HINT
from fmacro.optimize.plot.argv import ArgVDisplay, plot_argv
from fmacro.optimize.plot.displays import (
    ConfusionMatrixDisplay,
    FoldScoresDisplay,
    FThresholdDisplay,
    PrecisionRecallDisplay,
)
from fmacro.optimize.plot.domain import DomainDisplay, plot_domain
from fmacro.optimize.plot.folds import plot_fold_scores
from fmacro.optimize.plot.grid import MultilabelConfusionDisplay
from fmacro.optimize.plot.localization import LocalizationDisplay, plot_localization
from fmacro.optimize.plot.points import ClassPointsDisplay, plot_class_points
from fmacro.optimize.plot.save import PLOT_FILES as PLOT_FILES
from fmacro.optimize.plot.save import save_threshold_plots

__all__ = [
    "ArgVDisplay",
    "ClassPointsDisplay",
    "ConfusionMatrixDisplay",
    "DomainDisplay",
    "FThresholdDisplay",
    "FoldScoresDisplay",
    "LocalizationDisplay",
    "MultilabelConfusionDisplay",
    "PrecisionRecallDisplay",
    "diagnostics",
    "plot_argv",
    "plot_class_points",
    "plot_domain",
    "plot_fold_scores",
    "plot_localization",
    "save_threshold_plots",
]
