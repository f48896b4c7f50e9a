"""Shared helpers of :mod:`optimize.plot`: lazy matplotlib import, axes, formatting."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TypeVar

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.validation.counts import frozen_array

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from fmacro.optimize.search.points import ClassPoints

# fmacro is not on a package index yet, so "pip install fmacro[plot]" fails for an
# installed wheel: name the package itself.
INSTALL_HINT = (
    "plots need matplotlib, which is not installed; install it with: pip install matplotlib"
)

_P_LABEL = "macro precision P"
_R_LABEL = "macro recall R"
# colour of the F-macro optimum
_C_OPT = "#2ca02c"


_Display = TypeVar("_Display")


def _ro(values: Any, dtype: Any = np.float64) -> NDArray[Any]:
    """A read-only copy of ``values`` (displays are frozen, and so are their arrays).

    :func:`~fmacro.validation.counts.frozen_array` with float64 by default: the displays'
    arrays are mostly precision, recall and F values.
    """
    return frozen_array(values, dtype)


def _done(display: _Display, ax: Any, fig: Any) -> _Display:
    """A copy of ``display`` with ``ax_`` and ``figure_`` set (displays are frozen)."""
    return attrs.evolve(display, ax_=ax, figure_=fig)  # type: ignore[misc]


def _headless() -> bool:
    """True on a Linux/BSD machine without an X11 or Wayland display."""
    if sys.platform.startswith(("win", "darwin")):
        return False
    return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _pyplot() -> Any:
    """Import ``matplotlib.pyplot`` lazily, choosing Agg when there is no display."""
    try:
        import matplotlib
    except ImportError as exc:  # pragma: no cover - exercised with matplotlib hidden
        raise ImportError(INSTALL_HINT) from exc
    if "matplotlib.pyplot" not in sys.modules and _headless() and not os.environ.get("MPLBACKEND"):
        chosen = getattr(matplotlib.rcParams, "_get_backend_or_none", lambda: None)()
        if chosen is None:  # nobody picked a backend: do not let pyplot probe for a GUI
            matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _figure_axes(ax: Axes | None, figsize: tuple[float, float]) -> tuple[Figure, Axes]:
    """A new figure with one axes, or the figure owning ``ax``."""
    plt = _pyplot()
    if ax is None:
        fig, new_ax = plt.subplots(figsize=figsize, layout="constrained")
        return fig, new_ax
    from matplotlib.axes import Axes as _Axes
    from matplotlib.figure import Figure as _Figure

    if not isinstance(ax, _Axes):
        raise TypeError(f"ax must be a matplotlib Axes or None, got {type(ax).__name__}")
    owner: Any = ax.figure
    while not isinstance(owner, _Figure):  # a SubFigure: return the figure holding it
        owner = owner.figure
    return owner, ax


def _given_points(points: Any, zero_division: float | None) -> ClassPoints:
    """The class points a display is computed from (``zero_division`` must match theirs)."""
    from fmacro.optimize.search.points import as_points

    if points is None:
        raise TypeError("points must be a ClassPoints, got NoneType")
    return as_points(None, None, points, zero_division=zero_division)


def _check_int(value: object, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int >= {minimum}, got {type(value).__name__}")
    if int(value) < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return int(value)


def _beta_text(b: float) -> str:
    return f"β = {b:g}"


def _fmt(x: float, digits: int = 4) -> str:
    return "nan" if math.isnan(x) else f"{x:.{digits}f}"


def _digits(values: Iterable[float]) -> int:
    """Decimals (4 to 8) that tell apart the distinct values among ``values``."""
    v = np.unique(np.asarray([x for x in values if math.isfinite(x)], dtype=np.float64))
    gaps = np.diff(v)
    gaps = gaps[gaps > 1e-12]
    if gaps.size == 0:
        return 4
    return int(np.clip(math.ceil(-math.log10(float(gaps.min()))), 4, 8))


def _level_curve(
    level: float, b2: float, p_lo: float, p_hi: float, r_hi: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Points of the curve F_beta(P, R) = level for P in [p_lo, p_hi].

    ``F = (1 + b²) P R / (b² P + R) = f`` gives ``R = f b² P / ((1 + b²) P - f)``
    for ``P > f / (1 + b²)``; samples crowd near that vertical asymptote.
    """
    if not (level > 0.0) or not math.isfinite(level):
        return np.zeros(0), np.zeros(0)
    p_asym = level / (1.0 + b2)
    start = max(p_lo, p_asym)
    if start >= p_hi:
        return np.zeros(0), np.zeros(0)
    offsets = np.geomspace(1e-9, 1.0, 800)
    p = start + (p_hi - start) * np.concatenate(([0.0], offsets))
    p = p[p > p_asym]
    r = level * b2 * p / ((1.0 + b2) * p - level)
    keep = r <= 2.0 * r_hi + 1.0
    return p[keep], r[keep]


def _pr_axes(
    ax: Axes, lim: tuple[float, float, float, float] | None = None, *, equal: bool = True
) -> None:
    ax.set_xlabel(_P_LABEL)
    ax.set_ylabel(_R_LABEL)
    x0, x1, y0, y1 = lim if lim is not None else (-0.01, 1.02, -0.01, 1.02)
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    if equal:
        ax.set_aspect("equal", adjustable="box")
    ax.grid(True, color="0.9", linewidth=0.6)
    ax.set_axisbelow(True)
