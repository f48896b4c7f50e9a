"""Research figures of the F-macro search, each with a caption a data scientist can read.

These show *why* the thresholds are what they are (the geometry of the search in the
dissertation's figures); for the thresholds themselves see the displays of
:mod:`fmacro.optimize.plot.displays` (precision-recall curves, F against threshold).
:data:`CAPTIONS` holds one plain-language caption per figure; :func:`save_captioned` saves
a figure with its caption underneath (``fmacro thresholds --plot DIR`` does).

Each figure is a display in scikit-learn's pattern (:class:`ClassPointsDisplay`,
:class:`DomainDisplay`, :class:`ArgVDisplay`, :class:`LocalizationDisplay`): ``from_points``
computes the arrays drawn (testable without matplotlib), ``plot(ax=None)`` draws them; the
``plot_*`` functions do both and return the figure.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from fmacro.optimize.plot.argv import ArgVDisplay, plot_argv
from fmacro.optimize.plot.domain import DomainDisplay, plot_domain
from fmacro.optimize.plot.localization import LocalizationDisplay, plot_localization
from fmacro.optimize.plot.points import ClassPointsDisplay, plot_class_points

__all__ = [
    "CAPTIONS",
    "ArgVDisplay",
    "ClassPointsDisplay",
    "DomainDisplay",
    "LocalizationDisplay",
    "plot_argv",
    "plot_class_points",
    "plot_domain",
    "plot_localization",
    "save_captioned",
]

#: Caption of each diagnostic figure, by the name of its PNG file without ``.png``.
CAPTIONS: Mapping[str, str] = MappingProxyType(
    {
        "class_points": (
            "Each dot is one possible threshold of one class: its precision (x) and recall (y) "
            "on the tuning data. The line over a class's dots is its upper hull, the only "
            "thresholds an F-macro optimum can use; the large marker is the threshold chosen "
            "by the certified search (fixed_point)."
        ),
        "domain": (
            "Every choice of per-class thresholds gives one (macro precision, macro recall) "
            "pair; the light dots sample them. The best F-macro lies on the upper-right edge "
            "of that set (dark line), where the green F level curve just touches it; each "
            "method's marker shows where its thresholds land, and the distance from the "
            "optimum is F-macro it leaves on the table."
        ),
        "argv": (
            "The certified search looks for a direction angle that reproduces itself "
            "(ArgV(phi) = phi). Where the curve crosses the diagonal, the thresholds are "
            "optimal; a single clean crossing means the optimum is well defined."
        ),
        "localization": (
            "Where can thresholds lie that no change of a single class's threshold improves "
            "(where coordinate ascent, such as the 'cyclic' method, stops)? Black cells could "
            "hold such a point, coloured ones cannot (colour: how large the region of each "
            "cell still is). Black cells away from the star are traps where a local search "
            "could stop short of the optimum."
        ),
    }
)


def save_captioned(fig: Any, name: str, path: Any, *, dpi: int = 110, width: int = 100) -> None:
    """Save ``fig`` as a PNG at ``path`` with ``CAPTIONS[name]`` written under it.

    The figure is rendered first and the caption set below the rendered image, so that
    nothing in the figure (an outside legend included) can overlap it.
    """
    import io

    from fmacro.optimize.plot._common import _pyplot

    if name not in CAPTIONS:
        raise ValueError(f"name must be one of {sorted(CAPTIONS)}, got {name!r}")
    plt = _pyplot()
    text = textwrap.fill(CAPTIONS[name], width)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    buffer.seek(0)
    image = plt.imread(buffer)
    rows, cols = image.shape[:2]
    strip = 0.25 + 0.17 * (text.count("\n") + 1)  # inches: margins + lines of small text
    height = rows / dpi + strip
    out = plt.figure(figsize=(cols / dpi, height), dpi=dpi)
    try:
        ax = out.add_axes((0.0, strip / height, 1.0, rows / dpi / height))
        ax.imshow(image, interpolation="none")
        ax.set_axis_off()
        out.text(
            0.5, (strip - 0.1) / height, text, ha="center", va="top", fontsize=9, color="#333333"
        )
        out.savefig(path, dpi=dpi)
    finally:
        plt.close(out)
