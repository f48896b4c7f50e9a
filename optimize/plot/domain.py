"""The achievable set D of (macro P, macro R) with its bounds and the optimum."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.plot._common import (
    _C_OPT,
    _beta_text,
    _check_int,
    _digits,
    _done,
    _figure_axes,
    _fmt,
    _given_points,
    _level_curve,
    _pr_axes,
    _pyplot,
    _ro,
)
from fmacro.optimize.plot._sampling import _sample_domain
from fmacro.optimize.search.domain import domain
from fmacro.optimize.search.fixed_point import fixed_point
from fmacro.optimize.search.points import ClassPoints, as_points
from fmacro.optimize.search.result import ThresholdResult
from fmacro.validation.checks import check_beta, check_seed

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

# colours: sample of D, exact boundary, support polygon, bounds
_C_SAMPLE = "#9ecae1"
_C_BOUNDARY = "#252525"
_C_SUPPORT = "#d62728"
_C_LOWER = "#1f77b4"
_C_UPPER = "black"
_OTHER_MARKERS = ("o", "s", "^", "v", "D", "P", "h", "<", ">", "p")
_OTHER_COLORS = ("#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f")


def _check_results(results: Iterable[Any], name: str = "results") -> list[ThresholdResult]:
    out = []
    for i, item in enumerate(results):
        if not isinstance(item, ThresholdResult):
            raise TypeError(f"{name}[{i}] must be a ThresholdResult, got {type(item).__name__}")
        out.append(item)
    return out


def _same_point(a: ThresholdResult, b: ThresholdResult) -> bool:
    return bool(
        np.isclose(a.precision, b.precision, rtol=0, atol=1e-12)
        and np.isclose(a.recall, b.recall, rtol=0, atol=1e-12)
    )


Window = tuple[float, float, float, float]


def _full_window(
    sample_p: NDArray[np.float64],
    sample_r: NDArray[np.float64],
    arrays: Sequence[NDArray[np.float64]],
    marks: Sequence[ThresholdResult],
) -> Window:
    """Axis limits holding D's sample, the (n, 2) ``arrays`` and the results' (P, R)."""
    x = np.concatenate([sample_p, *(a[:, 0] for a in arrays), [m.precision for m in marks]])
    y = np.concatenate([sample_r, *(a[:, 1] for a in arrays), [m.recall for m in marks]])
    x_top = float(np.nanmax(x[np.isfinite(x)], initial=0.0))
    y_top = float(np.nanmax(y[np.isfinite(y)], initial=0.0))
    x_hi = min(1.02, 1.06 * x_top + 0.02)
    y_hi = min(1.02, 1.06 * y_top + 0.02)
    return (-0.01 * x_hi, x_hi, -0.01 * y_hi, y_hi)


def _zoom_window(
    full: Window, opt: ThresholdResult, support: ThresholdResult
) -> tuple[Window, bool]:
    """A square around the optimum holding the bounds' points, and whether it is worth drawing."""
    here = np.array([opt.precision, opt.recall])
    marks = [
        np.asarray(support.diagnostics["ub_point"]),
        np.array([support.precision, support.recall]),
        np.asarray(opt.diagnostics.get("ub_point", here)),
    ]
    dist = [float(np.max(np.abs(m - here))) for m in marks if np.all(np.isfinite(m))]
    extent = max(full[1] - full[0], full[3] - full[2])
    half = max(2.5 * max(dist, default=0.0), 0.005 * extent)
    # only when the bounds' points are apart yet small against D (many classes)
    worth = 1e-4 * extent < max(dist, default=0.0) and half <= 0.1 * extent
    # a zoom asked for when a bound's point is far would be wider than D itself: keep it a
    # quarter of D across (the far point stays visible in the full view)
    half = min(half, 0.125 * extent)
    win = (here[0] - half, here[0] + half, here[1] - half, here[1] + half)
    return (float(win[0]), float(win[1]), float(win[2]), float(win[3])), bool(worth)


@attrs.frozen(eq=False)
class DomainDisplay:
    """The achievable set D of (macro P, macro R) with its bounds and the optimum.

    Computed once by :meth:`from_points` (or :meth:`from_scores`), drawn by :meth:`plot`.

    Attributes
    ----------
    sample_p, sample_r : ndarray
        Achievable (P, R) points of D: every cut vector when there are at most
        ``max(n_samples, 20000)`` (``exhaustive``), else a seeded random sample; read-only.
    exhaustive : bool
    boundary : ndarray, shape (m, 2)
        The exact upper-right boundary of conv D (``domain(n_angles=None)``); read-only.
    support_polygon, support_points : ndarray, shape (k, 2)
        The support polygon and support points of ``domain(n_angles=n_angles)``; read-only.
    optimum, support, exact : ThresholdResult
        :func:`~fmacro.optimize.fixed_point`, ``domain(n_angles=n_angles)`` and
        ``domain(n_angles=None)`` on the points.
    others : tuple of ThresholdResult
        Further results to mark (those of fixed_point/domain at a point already drawn
        are left out).
    beta : float
    n_angles, n_classes : int
    full_window, zoom_window : tuple of 4 floats
        (x0, x1, y0, y1) of the full view (fitted to D) and of the zoom around the optimum.
    zoom_suggested : bool
        The bounds' points are apart yet small against D: a zoom panel shows them.
    ax_, figure_
        Set by :meth:`plot` (``ax_`` is the full view; a zoom is the figure's second axes).
    """

    sample_p: NDArray[np.float64]
    sample_r: NDArray[np.float64]
    exhaustive: bool
    boundary: NDArray[np.float64]
    support_polygon: NDArray[np.float64]
    support_points: NDArray[np.float64]
    optimum: ThresholdResult
    support: ThresholdResult
    exact: ThresholdResult
    others: tuple[ThresholdResult, ...]
    beta: float
    n_angles: int
    n_classes: int
    full_window: Window
    zoom_window: Window
    zoom_suggested: bool
    ax_: Any = None
    figure_: Any = None

    @classmethod
    def from_points(
        cls,
        points: ClassPoints,
        *,
        beta: float = 1.0,
        zero_division: float | None = None,
        n_angles: int = 16,
        n_samples: int = 4000,
        seed: int = 0,
        results: Sequence[ThresholdResult] = (),
    ) -> DomainDisplay:
        """Compute what :func:`plot_domain` draws (parameters as there)."""
        b = check_beta(beta)
        angles = _check_int(n_angles, "n_angles", 3)
        n_draw = _check_int(n_samples, "n_samples", 1)
        check_seed(seed)
        extra = _check_results(results)
        pts = _given_points(points, zero_division)
        zd = pts.zero_division
        opt = fixed_point(points=pts, beta=b, zero_division=zd, exact=False)
        support = domain(points=pts, beta=b, zero_division=zd, n_angles=angles)
        exact = domain(points=pts, beta=b, zero_division=zd, n_angles=None)
        others = tuple(
            r
            for r in extra
            if not (
                r.method in ("fixed_point", "domain")
                and (_same_point(r, opt) or _same_point(r, support))
            )
        )
        sample_p, sample_r, exhaustive = _sample_domain(pts, n_draw, np.random.default_rng(seed))
        boundary = _ro(exact.diagnostics["outer_polygon"])
        polygon = _ro(support.diagnostics["outer_polygon"])
        support_points = _ro(support.diagnostics["support_points"])
        full = _full_window(sample_p, sample_r, [boundary, support_points], [opt, *others])
        zoom_win, worth = _zoom_window(full, opt, support)
        return cls(
            sample_p=_ro(sample_p),
            sample_r=_ro(sample_r),
            exhaustive=bool(exhaustive),
            boundary=boundary,
            support_polygon=polygon,
            support_points=support_points,
            optimum=opt,
            support=support,
            exact=exact,
            others=others,
            beta=b,
            n_angles=angles,
            n_classes=pts.n_classes,
            full_window=full,
            zoom_window=zoom_win,
            zoom_suggested=worth,
        )

    @classmethod
    def from_scores(
        cls,
        scores: Any,
        labels: Any,
        *,
        beta: float = 1.0,
        zero_division: float | None = None,
        empty_classes: str = "exclude",
        n_angles: int = 16,
        n_samples: int = 4000,
        seed: int = 0,
        results: Sequence[ThresholdResult] = (),
    ) -> DomainDisplay:
        """As :meth:`from_points`, on the class points of ``scores`` and ``labels``."""
        pts = as_points(
            scores, labels, None, zero_division=zero_division, empty_classes=empty_classes
        )
        return cls.from_points(
            pts, beta=beta, n_angles=n_angles, n_samples=n_samples, seed=seed, results=results
        )

    @property
    def digits(self) -> int:
        """Decimals that tell the drawn F values apart."""
        opt, sup = self.optimum, self.support
        return _digits([opt.f, opt.upper_bound, sup.f, sup.upper_bound])

    def _draw(self, ax: Axes, window: Window, equal: bool) -> None:
        """Draw every element on ``ax`` (labels are used by the legend)."""
        digits = self.digits
        n_pts = self.sample_p.size
        if self.exhaustive:
            what = f"all {n_pts} cut vectors"
            size, alpha = (14.0, 0.7) if n_pts <= 2000 else (5.0, 0.5)
        else:
            what = f"{n_pts} random cut vectors"
            size, alpha = 5.0, 0.5
        ax.scatter(
            self.sample_p,
            self.sample_r,
            s=size,
            color=_C_SAMPLE,
            alpha=alpha,
            linewidths=0,
            rasterized=True,
            label=f"achievable (P, R) in D: {what}",
        )
        poly = self.support_polygon
        ax.plot(
            poly[:, 0],
            poly[:, 1],
            "-",
            color=_C_SUPPORT,
            linewidth=2.0,
            alpha=0.8,
            label=f"support polygon, {self.n_angles} directions",
        )
        sup = self.support_points
        ax.plot(
            sup[:, 0],
            sup[:, 1],
            "o",
            color=_C_SUPPORT,
            markersize=4,
            label="support points (achievable)",
        )
        hull = self.boundary
        ax.plot(
            hull[:, 0],
            hull[:, 1],
            "-",
            color=_C_BOUNDARY,
            linewidth=1.0,
            label="upper-right boundary of conv D (exact)",
        )
        b2 = self.beta * self.beta
        x0, x1, _, y1 = window
        f_lo, f_hi = self.optimum.f, self.optimum.upper_bound
        pc, rc = _level_curve(f_lo, b2, x0, x1, y1)
        ax.plot(
            pc,
            rc,
            "-",
            color=_C_OPT,
            linewidth=1.2,
            label=f"F_β = {_fmt(f_lo, digits)} (found by fixed_point)",
        )
        if math.isfinite(f_hi) and f_hi - f_lo > 1e-12:
            pc, rc = _level_curve(f_hi, b2, x0, x1, y1)
            ax.plot(
                pc,
                rc,
                "--",
                color=_C_UPPER,
                linewidth=1.0,
                label=f"F_β = {_fmt(f_hi, digits)} (its upper bound, gap {f_hi - f_lo:.1e})",
            )
            top = np.asarray(self.optimum.diagnostics.get("ub_point", [np.nan, np.nan]))
            ax.plot(
                [top[0]],
                [top[1]],
                "+",
                color=_C_UPPER,
                markersize=12,
                markeredgewidth=1.6,
                zorder=6,
                label="where F_β reaches that bound on conv D",
            )
        ax.plot(
            [self.support.precision],
            [self.support.recall],
            "x",
            color=_C_LOWER,
            markersize=11,
            markeredgewidth=2.4,
            zorder=6,
            label=f"domain lower bound F = {_fmt(self.support.f, digits)}",
        )
        ub = np.asarray(self.support.diagnostics["ub_point"])
        ax.plot(
            [ub[0]],
            [ub[1]],
            "x",
            color=_C_UPPER,
            markersize=11,
            markeredgewidth=2.4,
            zorder=6,
            label=f"domain upper bound F = {_fmt(self.support.upper_bound, digits)}",
        )
        ax.plot(
            [self.optimum.precision],
            [self.optimum.recall],
            "*",
            color=_C_OPT,
            markersize=16,
            markeredgecolor="black",
            markeredgewidth=0.7,
            zorder=5,
            label=f"fixed_point optimum F = {_fmt(self.optimum.f, digits)}",
        )
        for i, res in enumerate(self.others):
            # hollow markers above the star: results at the same point stay visible
            ax.plot(
                [res.precision],
                [res.recall],
                _OTHER_MARKERS[i % len(_OTHER_MARKERS)],
                markerfacecolor="none",
                markeredgecolor=_OTHER_COLORS[i % len(_OTHER_COLORS)],
                markersize=9 + 2 * (i % 3),
                markeredgewidth=1.8,
                zorder=7,
                label=f"{res.method}: F = {_fmt(res.f, digits)}",
            )
        _pr_axes(ax, window, equal=equal)

    def plot(
        self, ax: Axes | None = None, *, zoom: bool | None = None, title: str | None = None
    ) -> DomainDisplay:
        """Draw D, its bounds and the optimum; returns the display with ``ax_``/``figure_``.

        Parameters
        ----------
        ax
            Axes to draw into (one panel, legend inside); default a new figure with the
            legend below the panels.
        zoom
            Add a second panel zoomed around the optimum and the bounds' points;
            ``None`` (default) adds it when ``zoom_suggested``. Ignored with ``ax=``.
        title
            Title; default names the data size, beta and the certified optimum.
        """
        if zoom is not None and not isinstance(zoom, (bool, np.bool_)):
            raise TypeError(f"zoom must be True, False or None, got {type(zoom).__name__}")
        if zoom is None:
            zoom = self.zoom_suggested
        full = self.full_window
        given_ax = ax is not None
        if ax is not None:
            fig, ax = _figure_axes(ax, (7.0, 7.0))
            self._draw(ax, full, equal=False)
            ax.legend(loc="lower left", fontsize="x-small", framealpha=0.9)
            axes = [ax]
        elif zoom:
            plt = _pyplot()
            fig, axes_arr = plt.subplots(1, 2, figsize=(13.0, 7.8), layout="constrained")
            axes = list(axes_arr)
            self._draw(axes[0], full, equal=False)
            win = self.zoom_window
            side = win[1] - win[0]
            self._draw(axes[1], win, equal=True)
            axes[0].indicate_inset(
                (win[0], win[2], side, side), edgecolor="0.2", linewidth=1.2, alpha=1.0
            )
            axes[0].set_title("all of D (fitted to D)", fontsize="medium")
            axes[1].set_title(
                f"zoom: {side:.3g} × {side:.3g} around the optimum", fontsize="medium"
            )
            handles, names = axes[0].get_legend_handles_labels()
            fig.legend(handles, names, loc="outside lower center", ncols=3, fontsize="small")
        else:
            plt = _pyplot()
            fig, ax = plt.subplots(figsize=(8.0, 9.0), layout="constrained")
            self._draw(ax, full, equal=False)
            handles, names = ax.get_legend_handles_labels()
            fig.legend(handles, names, loc="outside lower center", ncols=2, fontsize="small")
            axes = [ax]
        if title is None:
            digits = self.digits
            title = (
                f"Achievable (P, R) set D, {self.n_classes} classes, {_beta_text(self.beta)}: "
                f"best F-macro {_fmt(self.optimum.f, digits)}, "
                f"proven ≤ {_fmt(self.optimum.upper_bound, digits)}"
            )
        if given_ax:
            axes[0].set_title(title, fontsize="medium")
        else:
            fig.suptitle(title)
        return _done(self, axes[0], fig)


def plot_domain(
    scores: Any = None,
    labels: Any = None,
    *,
    beta: float = 1.0,
    zero_division: float | None = None,
    empty_classes: str = "exclude",
    points: ClassPoints | None = None,
    n_angles: int = 16,
    n_samples: int = 4000,
    seed: int = 0,
    results: Sequence[ThresholdResult] = (),
    zoom: bool | None = None,
    ax: Axes | None = None,
    title: str | None = None,
) -> Figure:
    """The achievable set D of (macro P, macro R) with bounds and the optimum.

    ``DomainDisplay.from_points(...).plot(ax=ax, zoom=zoom, title=title).figure_``.

    Drawn: achievable points of D (every cut vector when there are at most
    ``max(n_samples, 20000)``, else a seeded random sample of ``n_samples``, fewer
    for very many classes); the exact upper-right boundary of conv D
    (``domain(n_angles=None)``); the support polygon and support points of
    ``domain(n_angles=n_angles)`` with its lower bound (blue cross) and the point
    where F attains its upper bound (black cross); the optimum of
    :func:`fmacro.optimize.fixed_point` (star) with the level curves F_beta = f through it
    and F_beta = upper bound (dashed, when the bound is above f); and the (P, R) of
    every extra result in ``results`` (hollow markers).

    The full view is fitted to D (D of a weak ranker hugs low precision).

    Parameters
    ----------
    scores, labels, beta, zero_division, empty_classes, points
        As for :func:`fmacro.optimize.fixed_point`.
    n_angles
        Directions of the support polygon (>= 3); few make the polygon visible.
    n_samples
        Size of the random sample of D (>= 1).
    seed
        Seed of the sample.
    results
        Further :class:`~optimize.result.ThresholdResult` objects whose (P, R) are
        marked (a fixed_point or domain result at a point already drawn is skipped).
    zoom
        Add a second panel zoomed around the optimum and the bounds' points;
        ``None`` (default) adds it when they are close together relative to D
        (many classes). Ignored with ``ax=``.
    ax
        Axes to draw into (one panel, legend inside); default a new figure with the
        legend below the panels.
    title
        Title; default names the data size, beta and the certified optimum.

    Returns
    -------
    matplotlib.figure.Figure
        One or two axes (full view, zoom) holding the same artists, one legend.
    """
    if zoom is not None and not isinstance(zoom, (bool, np.bool_)):
        raise TypeError(f"zoom must be True, False or None, got {type(zoom).__name__}")
    pts = as_points(
        scores, labels, points, zero_division=zero_division, empty_classes=empty_classes
    )
    display = DomainDisplay.from_points(
        pts, beta=beta, n_angles=n_angles, n_samples=n_samples, seed=seed, results=results
    )
    fig: Figure = display.plot(ax=ax, zoom=zoom, title=title).figure_
    return fig
