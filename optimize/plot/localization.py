"""The :func:`fmacro.optimize.localize` grid coloured by box size, candidate cells in black."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.plot._common import (
    _C_OPT,
    _P_LABEL,
    _R_LABEL,
    _beta_text,
    _check_int,
    _done,
    _figure_axes,
    _fmt,
    _given_points,
    _ro,
)
from fmacro.optimize.search.domain import domain
from fmacro.optimize.search.fixed_point import fixed_point
from fmacro.optimize.search.localize import LocalizeResult, localize
from fmacro.optimize.search.points import ClassPoints, as_points
from fmacro.optimize.search.result import ThresholdResult
from fmacro.validation.checks import check_beta

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


@attrs.frozen(eq=False)
class LocalizationDisplay:
    """The :func:`fmacro.optimize.localize` grid coloured by box size, candidates in black.

    Each cell of the (P, R) square is coloured by the size
    sqrt((Pmax - Pmin)² + (Rmax - Rmin)²) of its box, the region where the
    linearization map with its eps neighbourhood can send a point of the cell.
    Candidate cells (the box meets the cell) are black: every coordinate-wise
    maximum, hence the optimum, lies in them.

    Computed once by :meth:`from_points`, :meth:`from_scores` or
    :meth:`from_localization`, drawn by :meth:`plot`.

    Attributes
    ----------
    localization : LocalizeResult
        The grid (``p_edges``, ``r_edges``, ``spread``, ``mask``, ``beta``, ...).
    boundary : ndarray, shape (m, 2), or None
        The upper-right boundary of conv D (``domain(n_angles=None)``); None when the
        optimum is not marked; read-only.
    optimum : ThresholdResult or None
        :func:`~fmacro.optimize.fixed_point` on the points; None when not marked.
    ax_, figure_
        Set by :meth:`plot`.
    """

    localization: LocalizeResult
    boundary: NDArray[np.float64] | None
    optimum: ThresholdResult | None
    ax_: Any = None
    figure_: Any = None

    @property
    def n_candidates(self) -> int:
        """Candidate cells."""
        return int(np.count_nonzero(self.localization.mask))

    @classmethod
    def from_localization(
        cls,
        localization: LocalizeResult,
        points: ClassPoints | None = None,
        *,
        beta: float | None = None,
        zero_division: float | None = None,
        mark_optimum: bool = True,
    ) -> LocalizationDisplay:
        """A prebuilt grid; with ``points``, the optimum and conv D's boundary to mark.

        ``beta``, when given, must be the grid's (the default takes it); the points must
        have the grid's number of classes.
        """
        if not isinstance(localization, LocalizeResult):
            raise TypeError(
                f"localization must be a LocalizeResult, got {type(localization).__name__}"
            )
        b = localization.beta
        if beta is not None and not math.isclose(localization.beta, check_beta(beta)):
            raise ValueError(
                f"localization was computed with beta={localization.beta!r} but beta={beta!r}"
            )
        if points is None:
            return cls(localization, None, None)
        pts = as_points(None, None, points, zero_division=zero_division)
        if localization.n_classes != pts.n_classes:
            raise ValueError(
                f"localization has {localization.n_classes} classes but the points have "
                f"{pts.n_classes}"
            )
        if not mark_optimum:
            return cls(localization, None, None)
        zd = pts.zero_division
        opt = fixed_point(points=pts, beta=b, zero_division=zd, exact=False)
        exact = domain(points=pts, beta=b, zero_division=zd, n_angles=None)
        return cls(localization, _ro(exact.diagnostics["outer_polygon"]), opt)

    @classmethod
    def from_points(
        cls,
        points: ClassPoints,
        *,
        beta: float = 1.0,
        zero_division: float | None = None,
        grid: int = 50,
        mark_optimum: bool = True,
    ) -> LocalizationDisplay:
        """:func:`~fmacro.optimize.localize` on ``grid`` x ``grid`` cells of the points."""
        b = check_beta(beta)
        pts = _given_points(points, zero_division)
        cells = _check_int(grid, "grid", 1)
        loc = localize(points=pts, beta=b, zero_division=pts.zero_division, grid=cells)
        return cls.from_localization(loc, pts, mark_optimum=mark_optimum)

    @classmethod
    def from_scores(
        cls,
        scores: Any,
        labels: Any,
        *,
        beta: float = 1.0,
        zero_division: float | None = None,
        empty_classes: str = "exclude",
        grid: int = 50,
        mark_optimum: bool = True,
    ) -> LocalizationDisplay:
        """As :meth:`from_points`, on the class points of ``scores`` and ``labels``."""
        pts = as_points(
            scores, labels, None, zero_division=zero_division, empty_classes=empty_classes
        )
        return cls.from_points(pts, beta=beta, grid=grid, mark_optimum=mark_optimum)

    def plot(
        self, ax: Axes | None = None, *, log_color: bool = True, title: str | None = None
    ) -> LocalizationDisplay:
        """Draw the grid, the candidates and (when computed) the optimum; returns the display.

        Parameters
        ----------
        ax
            Axes to draw into (legend inside); default a new figure (legend below).
        log_color
            Logarithmic colour scale when the box sizes span more than a factor 10
            (default), else linear.
        title
            Axes title.
        """
        from matplotlib.colors import ListedColormap, LogNorm, Normalize
        from matplotlib.patches import Patch

        loc = self.localization
        given_ax = ax is not None
        fig, ax = _figure_axes(ax, (7.6, 7.4))
        spread = np.asarray(loc.spread, dtype=np.float64)
        finite = spread[np.isfinite(spread) & (spread > 0)]
        norm: Normalize
        if log_color and finite.size and finite.max() > 10.0 * finite.min():
            norm = LogNorm(vmin=float(finite.min()), vmax=float(finite.max()))
        else:
            norm = Normalize(vmin=0.0, vmax=float(finite.max()) if finite.size else 1.0)
        mesh = ax.pcolormesh(
            loc.p_edges,
            loc.r_edges,
            np.ma.masked_invalid(spread.T),
            cmap="viridis",
            norm=norm,
            shading="flat",
            rasterized=True,
        )
        mask = np.asarray(loc.mask)
        ax.pcolormesh(
            loc.p_edges,
            loc.r_edges,
            np.ma.masked_where(~mask.T, np.ones(mask.T.shape)),
            cmap=ListedColormap(["black"]),
            shading="flat",
            rasterized=True,
        )
        bar = fig.colorbar(mesh, ax=ax, shrink=0.85)
        bar.set_label("box size √((Pmax − Pmin)² + (Rmax − Rmin)²)")
        handles: list[Any] = [
            Patch(facecolor="black", label=f"candidate cells ({self.n_candidates} of {mask.size})")
        ]
        if self.boundary is not None and self.optimum is not None:
            from matplotlib import patheffects

            outline = [patheffects.Stroke(linewidth=2.6, foreground="black"), patheffects.Normal()]
            (line,) = ax.plot(
                self.boundary[:, 0],
                self.boundary[:, 1],
                "-",
                color="white",
                linewidth=1.2,
                path_effects=outline,
                label="upper-right boundary of conv D",
            )
            (star,) = ax.plot(
                [self.optimum.precision],
                [self.optimum.recall],
                "*",
                color=_C_OPT,
                markersize=14,
                markeredgecolor="white",
                markeredgewidth=0.8,
                zorder=5,
                label=f"fixed_point optimum F = {_fmt(self.optimum.f)}",
            )
            handles += [line, star]
        if given_ax:
            ax.legend(handles=handles, loc="upper right", fontsize="x-small", framealpha=0.9)
        else:
            fig.legend(handles=handles, loc="outside lower center", ncols=2, fontsize="small")
        ax.set_xlim(float(loc.p_edges[0]), float(loc.p_edges[-1]))
        ax.set_ylim(float(loc.r_edges[0]), float(loc.r_edges[-1]))
        ax.set_aspect("equal", adjustable="box")
        ax.set_xlabel(_P_LABEL)
        ax.set_ylabel(_R_LABEL)
        if title is None:
            g = spread.shape[0]
            title = (
                f"Localization of coordinate-wise maxima: {g}×{g} grid, "
                f"{loc.n_classes} classes, {_beta_text(loc.beta)}"
            )
        ax.set_title(title, fontsize="medium")
        return _done(self, ax, fig)


def plot_localization(
    scores: Any = None,
    labels: Any = None,
    *,
    beta: float = 1.0,
    zero_division: float | None = None,
    empty_classes: str = "exclude",
    points: ClassPoints | None = None,
    grid: int = 50,
    localization: LocalizeResult | None = None,
    mark_optimum: bool = True,
    log_color: bool = True,
    ax: Axes | None = None,
    title: str | None = None,
) -> Figure:
    """The :func:`fmacro.optimize.localize` grid coloured by box size, candidates in black.

    ``LocalizationDisplay.from_points(...)`` (or ``.from_localization(...)``)
    ``.plot(ax=ax, log_color=log_color, title=title).figure_``; see
    :class:`LocalizationDisplay` for what is drawn.

    Parameters
    ----------
    scores, labels, beta, zero_division, empty_classes, points
        As for :func:`fmacro.optimize.fixed_point`.
    grid
        Cells per axis for :func:`fmacro.optimize.localize` (cost grows as grid² x cuts).
    localization
        A prebuilt :class:`~fmacro.optimize.search.localize.LocalizeResult` (its ``beta`` must equal
        ``beta``); then ``scores``/``labels``/``points`` are only needed to mark the
        optimum and the boundary of conv D.
    mark_optimum
        Draw the fixed_point optimum and the upper-right boundary of conv D (needs
        the points).
    log_color
        Logarithmic colour scale when the box sizes span more than a factor 10
        (default), else linear.
    ax
        Axes to draw into (legend inside); default a new figure (legend below).
    title
        Axes title.

    Returns
    -------
    matplotlib.figure.Figure
        Two meshes (box size, candidate cells) and a colour bar.
    """
    b = check_beta(beta)
    have_data = points is not None or scores is not None or labels is not None
    pts = (
        as_points(scores, labels, points, zero_division=zero_division, empty_classes=empty_classes)
        if have_data
        else None
    )
    if localization is None:
        if pts is None:
            raise TypeError("plot_localization needs scores and labels, points= or localization=")
        display = LocalizationDisplay.from_points(pts, beta=b, grid=grid, mark_optimum=mark_optimum)
    else:
        display = LocalizationDisplay.from_localization(
            localization, pts, beta=b, mark_optimum=mark_optimum
        )
    fig: Figure = display.plot(ax=ax, log_color=log_color, title=title).figure_
    return fig
