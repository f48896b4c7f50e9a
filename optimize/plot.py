"""Plots of the F-macro threshold search (needs matplotlib: ``pip install "fmacro[plot]"``).

Every function returns a :class:`matplotlib.figure.Figure` (it never calls ``plt.show``)
and accepts either ``scores`` and ``labels`` or prebuilt ``points=`` (a
:class:`~optimize.points.ClassPoints`), like the optimization functions, plus ``beta``.
Pass ``ax=`` to draw into an existing axes instead of a new figure.

* :func:`plot_class_points` - each class's (p, r) cut points with its upper convex
  hull (the dissertation's Figure 2.1 view of the ingredients of D).
* :func:`plot_domain` - the achievable set D of (macro P, macro R), its exact
  upper-right boundary, the support polygon of the domain method, the optimum of
  :func:`~optimize.fixed_point`, and the F_beta level curves through the optimum and
  through the upper bound (Figure 3.7).
* :func:`plot_argv` - ArgV(phi) against the identity; the crossing is the fixed point
  (Figure 3.1).
* :func:`plot_localization` - the grid of :func:`~optimize.localize` coloured by box
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
>>> from optimize.plot import plot_domain
>>> scores = np.array([[0.9, 0.2], [0.8, 0.7], [0.3, 0.6], [0.1, 0.1]])
>>> labels = np.array([[1, 0], [0, 1], [1, 1], [0, 0]])
>>> fig = plot_domain(scores, labels)
>>> fig.axes[0].get_xlabel(), fig.axes[0].get_ylabel()
('macro precision P', 'macro recall R')
>>> plt.close(fig)
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np
from numpy.typing import ArrayLike, NDArray

from optimize.domain import domain
from optimize.fixed_point import argv_curve, fixed_point
from optimize.hull import class_hulls, edge_sweep
from optimize.localize import LocalizeResult, localize
from optimize.points import ClassPoints, as_points
from optimize.result import ThresholdResult
from validation._checks import check_beta

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "plot_argv",
    "plot_class_points",
    "plot_domain",
    "plot_fold_scores",
    "plot_localization",
    "save_threshold_plots",
]

INSTALL_HINT = 'optimize.plot needs matplotlib; install it with: pip install "fmacro[plot]"'

#: File names written by :func:`save_threshold_plots`, in order.
PLOT_FILES = ("class_points.png", "domain.png", "argv.png", "localization.png")

_P_LABEL = "macro precision P"
_R_LABEL = "macro recall R"
# colours: sample of D, exact boundary, support polygon, bounds, optimum
_C_SAMPLE = "#9ecae1"
_C_BOUNDARY = "#252525"
_C_SUPPORT = "#d62728"
_C_LOWER = "#1f77b4"
_C_UPPER = "black"
_C_OPT = "#2ca02c"
_OTHER_MARKERS = ("o", "s", "^", "v", "D", "P", "h", "<", ">", "p")
_OTHER_COLORS = ("#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f")


# --------------------------------------------------------------------------- helpers


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


def _check_results(results: Iterable[Any], name: str = "results") -> list[ThresholdResult]:
    out = []
    for i, item in enumerate(results):
        if not isinstance(item, ThresholdResult):
            raise TypeError(f"{name}[{i}] must be a ThresholdResult, got {type(item).__name__}")
        out.append(item)
    return out


# --------------------------------------------------------------------------- class points


def plot_class_points(
    scores: Any = None,
    labels: Any = None,
    *,
    beta: float = 1.0,
    zero_division: float = 0.0,
    empty_classes: str = "exclude",
    points: ClassPoints | None = None,
    max_classes: int = 6,
    classes: ArrayLike | None = None,
    seed: int = 0,
    mark_optimum: bool = True,
    ax: Axes | None = None,
    title: str | None = None,
) -> Figure:
    """Per-class (p, r) points of every cut with each class's upper convex hull.

    Parameters
    ----------
    scores, labels, beta, zero_division, empty_classes, points
        As for :func:`optimize.fixed_point`.
    max_classes
        When there are more kept classes, a seeded random sample of this many is
        drawn (>= 1).
    classes
        Original column indices of the classes to draw (overrides the sample); each
        must be a kept class (one with positives, unless ``empty_classes="include"``).
    seed
        Seed of the class sample (drawn among the classes with at least the median
        number of positives).
    mark_optimum
        Mark each drawn class's cut chosen by :func:`optimize.fixed_point` (the
        F-macro optimum).
    ax
        Axes to draw into; default a new figure.
    title
        Axes title; default describes what is drawn.

    Returns
    -------
    matplotlib.figure.Figure
        Per class: one scatter of its cut points and one line of its hull chain
        (plus one scatter of the chosen cuts when ``mark_optimum``).
    """
    b = check_beta(beta)
    pts = as_points(
        scores, labels, points, zero_division=zero_division, empty_classes=empty_classes
    )
    n = pts.n_classes
    if classes is None:
        k = _check_int(max_classes, "max_classes", 1)
        if n <= k:
            chosen = np.arange(n)
        else:
            # draw from the larger half of the classes: a class with m positives has
            # only m + 1 distinct recalls, so tiny classes show little
            sizes = np.asarray(pts.positives)
            pool = np.flatnonzero(sizes >= np.median(sizes))
            if pool.size < k:
                pool = np.argsort(-sizes, kind="stable")[:k]
            chosen = np.sort(np.random.default_rng(seed).choice(pool, size=k, replace=False))
    else:
        cols = np.asarray(classes).reshape(-1)
        if cols.size == 0:
            raise ValueError("classes must name at least one class, got an empty list")
        if not np.issubdtype(cols.dtype, np.integer):
            raise TypeError(f"classes must be integer column indices, got dtype {cols.dtype}")
        pos = np.searchsorted(pts.class_index, cols)
        pos = np.minimum(pos, n - 1)
        bad = pts.class_index[pos] != cols
        if bad.any():
            raise ValueError(
                f"classes: column {int(cols[bad][0])} is not a kept class (columns "
                f"0..{pts.n_columns - 1} with positives: {n} of them)"
            )
        chosen = pos.astype(np.int64)
    hulls = class_hulls(pts)
    opt_cuts = fixed_point(points=pts, beta=b, zero_division=pts.zero_division).cuts
    given_ax = ax is not None
    fig, ax = _figure_axes(ax, (7.2, 7.6))
    plt = _pyplot()
    cmap = plt.get_cmap("tab10")
    prec = np.asarray(pts.precision)
    rec = np.asarray(pts.recall)
    n_shown = int(np.sum(np.asarray(pts.n_cuts)[chosen]))
    dot = 20.0 if n_shown <= 300 else 9.0
    for i, j in enumerate(chosen):
        color = cmap(i % 10)
        sl = pts.class_slice(int(j))
        col = int(pts.class_index[j])
        m = int(pts.positives[j])
        ax.scatter(prec[sl], rec[sl], s=dot, color=color, alpha=0.45, linewidths=0)
        v0, v1 = int(hulls.vertex_indptr[j]), int(hulls.vertex_indptr[j + 1])
        ax.plot(
            hulls.vertex_p[v0:v1],
            hulls.vertex_r[v0:v1],
            "-o",
            color=color,
            markersize=3.5,
            linewidth=1.6,
            label=f"class {col} (m = {m}, {int(pts.n_cuts[j])} cuts)",
        )
        if mark_optimum:
            c = int(pts.indptr[j]) + int(opt_cuts[j])
            ax.scatter(
                [prec[c]],
                [rec[c]],
                s=140,
                marker="*",
                color=color,
                edgecolors="black",
                linewidths=0.7,
                zorder=5,
            )
    # legend proxies for the generic marks
    ax.scatter([], [], s=dot, color="0.5", alpha=0.6, label="cut points (p, r)")
    ax.plot([], [], "-o", color="0.5", markersize=3.5, label="upper convex hull")
    if mark_optimum:
        ax.scatter(
            [],
            [],
            s=140,
            marker="*",
            color="0.7",
            edgecolors="black",
            linewidths=0.7,
            label=f"cut at the F-macro optimum ({_beta_text(b)})",
        )
    shown_p = np.concatenate([prec[pts.class_slice(int(j))] for j in chosen])
    p_top = float(np.nanmax(shown_p)) if np.isfinite(shown_p).any() else 1.0
    _pr_axes(ax, (-0.01, min(1.02, 1.08 * p_top + 0.02), -0.01, 1.02), equal=False)
    ax.set_xlabel("precision p of the class")
    ax.set_ylabel("recall r of the class")
    if given_ax:
        ax.legend(loc="upper right", fontsize="x-small", framealpha=0.9)
    else:
        fig.legend(loc="outside lower center", ncols=2, fontsize="small")
    if title is None:
        shown = "all" if chosen.size == n else f"{chosen.size} of"
        title = f"Per-class (p, r) points and upper hulls: {shown} {n} classes"
    ax.set_title(title)
    return fig


# --------------------------------------------------------------------------- domain


def _support_cuts(points: ClassPoints, angles: NDArray[np.float64]) -> NDArray[np.int64]:
    """Per direction, each class's first cut maximizing cos(a) p + sin(a) r (any a)."""
    starts = np.asarray(points.indptr[:-1])
    counts = np.asarray(points.n_cuts)
    p = np.asarray(points.precision)
    r = np.asarray(points.recall)
    invalid = np.isnan(p) | np.isnan(r)
    local = np.arange(p.size) - np.repeat(starts, counts)
    big = np.iinfo(np.int64).max
    out = np.empty((angles.size, points.n_classes), dtype=np.int64)
    for i, a in enumerate(angles):
        v = math.cos(a) * p + math.sin(a) * r
        v[invalid] = -np.inf
        best = np.maximum.reduceat(v, starts)
        idx = np.where(v >= np.repeat(best, counts), local, big)
        out[i] = np.minimum.reduceat(idx, starts)
    return out


def _sample_domain(
    points: ClassPoints, n_samples: int, rng: np.random.Generator
) -> tuple[NDArray[np.float64], NDArray[np.float64], bool]:
    """Achievable (P, R) points: every cut vector when few, else a random sample.

    Each draw gives every class the cut of one of three support cut vectors (of
    random directions all around the circle, with random Dirichlet weights), or,
    for a random fraction of the classes, a uniformly random cut. Every point is an
    achievable (P, R); for many classes they fill conv D.
    """
    n = points.n_classes
    starts = np.asarray(points.indptr[:-1])
    counts = np.asarray(points.n_cuts)
    prec = np.asarray(points.precision)
    rec = np.asarray(points.recall)
    log_total = float(np.sum(np.log(counts.astype(np.float64))))
    if log_total <= math.log(max(n_samples, 20_000)):
        big_p = np.zeros(1)
        big_r = np.zeros(1)
        for j in range(n):
            sl = points.class_slice(j)
            big_p = (big_p[:, None] + prec[sl][None, :]).reshape(-1)
            big_r = (big_r[:, None] + rec[sl][None, :]).reshape(-1)
        keep = ~(np.isnan(big_p) | np.isnan(big_r))
        return big_p[keep] / n, big_r[keep] / n, True
    total_cuts = int(prec.size)
    n_dir = int(np.clip(50_000_000 // max(total_cuts, 1), 8, 72))
    angles = np.linspace(0.0, 2.0 * math.pi, n_dir, endpoint=False)
    support = _support_cuts(points, angles)
    n_draw = int(min(n_samples, max(100, 20_000_000 // n)))
    chunk = max(1, 4_000_000 // n)
    out_p = []
    out_r = []
    for s0 in range(0, n_draw, chunk):
        c = min(chunk, n_draw - s0)
        # a random mixture of three support cut vectors (directions all around the
        # circle, Dirichlet weights): for many classes these fill conv D ...
        picks = rng.integers(n_dir, size=(c, 3))
        weights = np.cumsum(rng.dirichlet(np.ones(3), size=c), axis=1)
        u = rng.random((c, n))
        which = (u > weights[:, :1]).astype(np.int64) + (u > weights[:, 1:2])
        mixed = support[picks[np.arange(c)[:, None], which], np.arange(n)[None, :]]
        # ... and, for a random (mostly small) fraction of the classes, uniformly
        # random cuts, which reach the inside of small problems' D
        frac = rng.random(c) ** 2
        random_cut = np.floor(rng.random((c, n)) * counts[None, :]).astype(np.int64)
        cuts = np.where(rng.random((c, n)) < frac[:, None], random_cut, mixed)
        idx = starts[None, :] + cuts
        out_p.append(prec[idx].mean(axis=1))
        out_r.append(rec[idx].mean(axis=1))
    big_p = np.concatenate(out_p)
    big_r = np.concatenate(out_r)
    keep = ~(np.isnan(big_p) | np.isnan(big_r))
    return big_p[keep], big_r[keep], False


def _same_point(a: ThresholdResult, b: ThresholdResult) -> bool:
    return bool(
        np.isclose(a.precision, b.precision, rtol=0, atol=1e-12)
        and np.isclose(a.recall, b.recall, rtol=0, atol=1e-12)
    )


@attrs.frozen(eq=False)
class _DomainLayer:
    """What the domain plot draws, computed once and drawn on one or two axes."""

    sample_p: NDArray[np.float64]
    sample_r: NDArray[np.float64]
    exhaustive: bool
    exact: ThresholdResult
    support: ThresholdResult
    opt: ThresholdResult
    others: list[ThresholdResult]
    b2: float
    n_angles: int
    digits: int

    def draw(self, ax: Axes, window: tuple[float, float, float, float], equal: bool) -> None:
        """Draw every element on ``ax`` (labels are used by the legend)."""
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
        poly = np.asarray(self.support.diagnostics["outer_polygon"])
        ax.plot(
            poly[:, 0],
            poly[:, 1],
            "-",
            color=_C_SUPPORT,
            linewidth=2.0,
            alpha=0.8,
            label=f"support polygon, {self.n_angles} directions",
        )
        sup = np.asarray(self.support.diagnostics["support_points"])
        ax.plot(
            sup[:, 0],
            sup[:, 1],
            "o",
            color=_C_SUPPORT,
            markersize=4,
            label="support points (achievable)",
        )
        hull = np.asarray(self.exact.diagnostics["outer_polygon"])
        ax.plot(
            hull[:, 0],
            hull[:, 1],
            "-",
            color=_C_BOUNDARY,
            linewidth=1.0,
            label="upper-right boundary of conv D (exact)",
        )
        x0, x1, _, y1 = window
        f_lo, f_hi = self.opt.f, self.opt.upper_bound
        pc, rc = _level_curve(f_lo, self.b2, x0, x1, y1)
        ax.plot(
            pc,
            rc,
            "-",
            color=_C_OPT,
            linewidth=1.2,
            label=f"F_β = {_fmt(f_lo, self.digits)} (found by fixed_point)",
        )
        if math.isfinite(f_hi) and f_hi - f_lo > 1e-12:
            pc, rc = _level_curve(f_hi, self.b2, x0, x1, y1)
            ax.plot(
                pc,
                rc,
                "--",
                color=_C_UPPER,
                linewidth=1.0,
                label=f"F_β = {_fmt(f_hi, self.digits)} (its upper bound, gap {f_hi - f_lo:.1e})",
            )
            top = np.asarray(self.opt.diagnostics.get("ub_point", [np.nan, np.nan]))
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
            label=f"domain lower bound F = {_fmt(self.support.f, self.digits)}",
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
            label=f"domain upper bound F = {_fmt(self.support.upper_bound, self.digits)}",
        )
        ax.plot(
            [self.opt.precision],
            [self.opt.recall],
            "*",
            color=_C_OPT,
            markersize=16,
            markeredgecolor="black",
            markeredgewidth=0.7,
            zorder=5,
            label=f"fixed_point optimum F = {_fmt(self.opt.f, self.digits)}",
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
                label=f"{res.method}: F = {_fmt(res.f, self.digits)}",
            )
        _pr_axes(ax, window, equal=equal)


def _full_window(layer: _DomainLayer) -> tuple[float, float, float, float]:
    """Axis limits holding D's sample, the boundary, the polygon's points and the marks."""
    xs = [
        layer.sample_p,
        np.asarray(layer.exact.diagnostics["outer_polygon"])[:, 0],
        np.asarray(layer.support.diagnostics["support_points"])[:, 0],
        np.array([r.precision for r in [layer.opt, *layer.others]]),
    ]
    ys = [
        layer.sample_r,
        np.asarray(layer.exact.diagnostics["outer_polygon"])[:, 1],
        np.asarray(layer.support.diagnostics["support_points"])[:, 1],
        np.array([r.recall for r in [layer.opt, *layer.others]]),
    ]
    x = np.concatenate(xs)
    y = np.concatenate(ys)
    x_top = float(np.nanmax(x[np.isfinite(x)], initial=0.0))
    y_top = float(np.nanmax(y[np.isfinite(y)], initial=0.0))
    x_hi = min(1.02, 1.06 * x_top + 0.02)
    y_hi = min(1.02, 1.06 * y_top + 0.02)
    return (-0.01 * x_hi, x_hi, -0.01 * y_hi, y_hi)


def plot_domain(
    scores: Any = None,
    labels: Any = None,
    *,
    beta: float = 1.0,
    zero_division: float = 0.0,
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

    Drawn: achievable points of D (every cut vector when there are at most
    ``max(n_samples, 20000)``, else a seeded random sample of ``n_samples``, fewer
    for very many classes); the exact upper-right boundary of conv D
    (``domain(n_angles=None)``); the support polygon and support points of
    ``domain(n_angles=n_angles)`` with its lower bound (blue cross) and the point
    where F attains its upper bound (black cross); the optimum of
    :func:`optimize.fixed_point` (star) with the level curves F_beta = f through it
    and F_beta = upper bound (dashed, when the bound is above f); and the (P, R) of
    every extra result in ``results`` (hollow markers).

    The full view is fitted to D (D of a weak ranker hugs low precision).

    Parameters
    ----------
    scores, labels, beta, zero_division, empty_classes, points
        As for :func:`optimize.fixed_point`.
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
    b = check_beta(beta)
    angles = _check_int(n_angles, "n_angles", 3)
    n_draw = _check_int(n_samples, "n_samples", 1)
    if zoom is not None and not isinstance(zoom, (bool, np.bool_)):
        raise TypeError(f"zoom must be True, False or None, got {type(zoom).__name__}")
    extra = _check_results(results)
    pts = as_points(
        scores, labels, points, zero_division=zero_division, empty_classes=empty_classes
    )
    zd = pts.zero_division
    opt = fixed_point(points=pts, beta=b, zero_division=zd)
    support = domain(points=pts, beta=b, zero_division=zd, n_angles=angles)
    exact = domain(points=pts, beta=b, zero_division=zd, n_angles=None)
    others = [
        r
        for r in extra
        if not (
            r.method in ("fixed_point", "domain")
            and (_same_point(r, opt) or _same_point(r, support))
        )
    ]
    sample_p, sample_r, exhaustive = _sample_domain(pts, n_draw, np.random.default_rng(seed))
    digits = _digits([opt.f, opt.upper_bound, support.f, support.upper_bound])
    layer = _DomainLayer(
        sample_p, sample_r, exhaustive, exact, support, opt, others, b * b, angles, digits
    )
    full = _full_window(layer)
    # zoom window around the optimum: large enough to show the bounds' points
    here = np.array([opt.precision, opt.recall])
    marks = [
        np.asarray(support.diagnostics["ub_point"]),
        np.array([support.precision, support.recall]),
        np.asarray(opt.diagnostics.get("ub_point", here)),
    ]
    dist = [float(np.max(np.abs(m - here))) for m in marks if np.all(np.isfinite(m))]
    extent = max(full[1] - full[0], full[3] - full[2])
    half = max(2.5 * max(dist, default=0.0), 0.005 * extent)
    if zoom is None:
        # only when the bounds' points are apart yet small against D
        zoom = 1e-4 * extent < max(dist, default=0.0) and half <= 0.1 * extent
    given_ax = ax is not None
    plt = _pyplot()
    if ax is not None:
        fig, ax = _figure_axes(ax, (7.0, 7.0))
        layer.draw(ax, full, equal=False)
        ax.legend(loc="lower left", fontsize="x-small", framealpha=0.9)
        axes = [ax]
    elif zoom:
        fig, axes_arr = plt.subplots(1, 2, figsize=(13.0, 7.8), layout="constrained")
        axes = list(axes_arr)
        layer.draw(axes[0], full, equal=False)
        win = (here[0] - half, here[0] + half, here[1] - half, here[1] + half)
        layer.draw(axes[1], win, equal=True)
        axes[0].indicate_inset(
            (win[0], win[2], 2 * half, 2 * half), edgecolor="0.2", linewidth=1.2, alpha=1.0
        )
        axes[0].set_title("all of D (fitted to D)", fontsize="medium")
        axes[1].set_title(
            f"zoom: {2 * half:.3g} × {2 * half:.3g} around the optimum", fontsize="medium"
        )
        handles, names = axes[0].get_legend_handles_labels()
        fig.legend(handles, names, loc="outside lower center", ncols=3, fontsize="small")
    else:
        fig, ax = plt.subplots(figsize=(8.0, 9.0), layout="constrained")
        layer.draw(ax, full, equal=False)
        handles, names = ax.get_legend_handles_labels()
        fig.legend(handles, names, loc="outside lower center", ncols=2, fontsize="small")
        axes = [ax]
    if title is None:
        title = (
            f"Achievable (P, R) set D, {pts.n_classes} classes, {_beta_text(b)}: "
            f"best F-macro {_fmt(opt.f, digits)}, proven ≤ {_fmt(opt.upper_bound, digits)}"
        )
    if given_ax:
        axes[0].set_title(title, fontsize="medium")
    else:
        fig.suptitle(title)
    return fig


# --------------------------------------------------------------------------- ArgV


def plot_argv(
    scores: Any = None,
    labels: Any = None,
    *,
    beta: float = 1.0,
    zero_division: float = 0.0,
    empty_classes: str = "exclude",
    points: ClassPoints | None = None,
    ax: Axes | None = None,
    title: str | None = None,
) -> Figure:
    """ArgV(phi) against the identity; their crossing gives the F-macro optimum.

    V(phi) is the mean of each class's hull vertex maximizing
    ``cos(phi) p + sin(phi) r`` and ArgV(phi) the direction of the gradient of F_beta
    at V(phi) (:func:`optimize.fixed_point.argv_curve`). V is constant between
    consecutive hull-edge angles, so ArgV is a non-increasing step function, drawn
    exactly (with its jumps joined by vertical segments). Where it meets the
    identity is the fixed point; when the identity passes through a jump (the
    "edge" case), the optimum lies on the segment of conv D between the two
    states and :func:`optimize.fixed_point` walks it.

    Returns
    -------
    matplotlib.figure.Figure
        Lines: ArgV (step), the identity; a marker at the crossing.
    """
    b = check_beta(beta)
    pts = as_points(
        scores, labels, points, zero_division=zero_division, empty_classes=empty_classes
    )
    zd = pts.zero_division
    sweep = edge_sweep(class_hulls(pts))
    ends = np.asarray(sweep.group_end)
    breaks = np.asarray(sweep.angle)[ends - 1] if ends.size else np.zeros(0)
    starts = np.unique(np.concatenate(([0.0], breaks)))
    _, _, values = argv_curve(starts, points=pts, beta=b, zero_division=zd, side="right")
    x = np.append(starts, math.pi / 2)
    y = np.append(values, values[-1])
    opt = fixed_point(points=pts, beta=b, zero_division=zd)
    phi = float(opt.diagnostics["phi"])
    status = str(opt.diagnostics["status"])
    given_ax = ax is not None
    fig, ax = _figure_axes(ax, (7.0, 7.4))
    ax.plot(
        [0, math.pi / 2],
        [0, math.pi / 2],
        "-",
        color="0.55",
        linewidth=1.2,
        label="identity ArgV = φ",
    )
    ax.step(
        x,
        y,
        where="post",
        color="#1f77b4",
        linewidth=1.6,
        label=f"ArgV(φ): gradient direction of F_β at V(φ), {_beta_text(b)}",
    )
    how = (
        "fixed point (exact optimum)"
        if status == "fixed_point"
        else "crossing inside a jump (edge case)"
    )
    ax.plot(
        [phi],
        [phi],
        "o",
        color=_C_OPT,
        markersize=9,
        markeredgecolor="black",
        zorder=5,
        label=f"crossing φ* = {phi:.4f}: {how}",
    )
    ax.axvline(phi, color=_C_OPT, linewidth=0.7, linestyle=":")
    ticks = np.arange(5) * math.pi / 8
    ax.set_xticks(ticks, ["0", "π/8", "π/4", "3π/8", "π/2"])
    ax.set_xlim(0, math.pi / 2)
    # ArgV is non-increasing: its range is [ArgV(pi/2), ArgV(0)]; a weak ranker keeps it
    # far below pi/2, so fit the y-axis to it (the identity then leaves through the top)
    y_top = float(min(math.pi / 2, 1.2 * max(float(np.max(values)), phi) + 0.01))
    ax.set_ylim(0, y_top)
    if y_top >= math.pi / 2:
        ax.set_yticks(ticks, ["0", "π/8", "π/4", "3π/8", "π/2"])
        ax.set_aspect("equal", adjustable="box")
    ax.grid(True, color="0.9", linewidth=0.6)
    ax.set_xlabel("direction φ of the linearization (radians)")
    ax.set_ylabel("ArgV(φ) (radians)")
    if given_ax:
        ax.legend(loc="upper right", fontsize="x-small", framealpha=0.95)
    else:
        fig.legend(loc="outside lower center", ncols=1, fontsize="small")
    if title is None:
        title = (
            f"ArgV against the identity ({pts.n_classes} classes, {x.size - 2} jumps): "
            f"F-macro {_fmt(opt.f)}"
        )
    ax.set_title(title, fontsize="medium")
    return fig


# --------------------------------------------------------------------------- localization


def plot_localization(
    scores: Any = None,
    labels: Any = None,
    *,
    beta: float = 1.0,
    zero_division: float = 0.0,
    empty_classes: str = "exclude",
    points: ClassPoints | None = None,
    grid: int = 50,
    localization: LocalizeResult | None = None,
    mark_optimum: bool = True,
    log_color: bool = True,
    ax: Axes | None = None,
    title: str | None = None,
) -> Figure:
    """The :func:`optimize.localize` grid coloured by box size, candidates in black.

    Each cell of the (P, R) square is coloured by the size
    sqrt((Pmax - Pmin)² + (Rmax - Rmin)²) of its box, the region where the
    linearization map with its eps neighbourhood can send a point of the cell.
    Candidate cells (the box meets the cell) are black: every coordinate-wise
    maximum, hence the optimum, lies in them.

    Parameters
    ----------
    scores, labels, beta, zero_division, empty_classes, points
        As for :func:`optimize.fixed_point`.
    grid
        Cells per axis for :func:`optimize.localize` (cost grows as grid² x cuts).
    localization
        A prebuilt :class:`~optimize.localize.LocalizeResult` (its ``beta`` must equal
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
        loc = localize(
            points=pts, beta=b, zero_division=pts.zero_division, grid=_check_int(grid, "grid", 1)
        )
    else:
        if not isinstance(localization, LocalizeResult):
            raise TypeError(
                f"localization must be a LocalizeResult, got {type(localization).__name__}"
            )
        if not math.isclose(localization.beta, b):
            raise ValueError(
                f"localization was computed with beta={localization.beta!r} but beta={b!r}"
            )
        if pts is not None and localization.n_classes != pts.n_classes:
            raise ValueError(
                f"localization has {localization.n_classes} classes but the points have "
                f"{pts.n_classes}"
            )
        loc = localization
    from matplotlib.colors import ListedColormap, LogNorm, Normalize
    from matplotlib.patches import Patch

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
        Patch(facecolor="black", label=f"candidate cells ({int(mask.sum())} of {mask.size})")
    ]
    if mark_optimum and pts is not None:
        opt = fixed_point(points=pts, beta=b, zero_division=pts.zero_division)
        hull = np.asarray(
            domain(points=pts, beta=b, zero_division=pts.zero_division, n_angles=None).diagnostics[
                "outer_polygon"
            ]
        )
        from matplotlib import patheffects

        outline = [patheffects.Stroke(linewidth=2.6, foreground="black"), patheffects.Normal()]
        (line,) = ax.plot(
            hull[:, 0],
            hull[:, 1],
            "-",
            color="white",
            linewidth=1.2,
            path_effects=outline,
            label="upper-right boundary of conv D",
        )
        (star,) = ax.plot(
            [opt.precision],
            [opt.recall],
            "*",
            color=_C_OPT,
            markersize=14,
            markeredgecolor="white",
            markeredgewidth=0.8,
            zorder=5,
            label=f"fixed_point optimum F = {_fmt(opt.f)}",
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
    return fig


# --------------------------------------------------------------------------- cross-validation


def plot_fold_scores(
    cv_result: Any,
    *,
    score_label: str = "score",
    ax: Axes | None = None,
    title: str | None = None,
) -> Figure:
    """Cross-validation fold scores with the pooled score and the fold mean ± std.

    Parameters
    ----------
    cv_result
        Any object with ``fold_scores`` (one number per fold), ``pooled.score``,
        ``mean`` and ``std``, e.g. :class:`crossval.CrossValidation`.
    score_label
        y-axis label (what the score is, e.g. ``"F1 (macro)"``).
    ax, title
        Axes to draw into (default a new figure) and axes title.

    Returns
    -------
    matplotlib.figure.Figure
        One marker line of fold scores, a line at the pooled score, a dashed line
        at the fold mean and a band of ± one standard deviation.
    """
    missing = [
        name for name in ("fold_scores", "pooled", "mean", "std") if not hasattr(cv_result, name)
    ]
    if not missing and not hasattr(cv_result.pooled, "score"):
        missing = ["pooled.score"]
    if missing:
        raise TypeError(
            "cv_result must have .fold_scores, .pooled.score, .mean and .std (e.g. a "
            f"crossval.CrossValidation); got a {type(cv_result).__name__} without "
            f"{', '.join(repr(m) for m in missing)}"
        )
    folds = np.asarray(cv_result.fold_scores, dtype=np.float64).reshape(-1)
    if folds.size == 0:
        raise ValueError("cv_result.fold_scores is empty; nothing to plot")
    pooled = float(cv_result.pooled.score)
    mean = float(cv_result.mean)
    std = float(cv_result.std)
    given_ax = ax is not None
    fig, ax = _figure_axes(ax, (7.5, 5.2))
    k = folds.size
    x = np.arange(1, k + 1)
    ax.axhspan(
        mean - std,
        mean + std,
        color="0.6",
        alpha=0.18,
        linewidth=0,
        label=f"fold mean ± std ({_fmt(std)})",
    )
    ax.axhline(
        mean,
        color="black",
        linestyle="--",
        linewidth=1.3,
        label=f"fold mean {_fmt(mean)} (every fold weighs the same)",
    )
    ax.axhline(
        pooled,
        color="#d62728",
        linewidth=1.8,
        label=f"pooled {_fmt(pooled)} (folds' counts summed)",
    )
    ax.plot(
        x,
        folds,
        "o",
        color="#1f77b4",
        markersize=7 if k <= 50 else 3,
        markeredgecolor="black",
        markeredgewidth=0.5,
        label=f"score of each of {k} folds",
    )
    if k <= 30:
        ax.set_xticks(x)
    ax.set_xlim(0.3, k + 0.7)
    finite = np.concatenate((folds[np.isfinite(folds)], [pooled, mean - std, mean + std]))
    finite = finite[np.isfinite(finite)]
    if finite.size:
        lo, hi = float(finite.min()), float(finite.max())
        pad = max(0.08 * (hi - lo), 0.005)
        ax.set_ylim(lo - pad, hi + pad)
    ax.set_xlabel("fold")
    ax.set_ylabel(score_label)
    ax.grid(True, axis="y", color="0.9", linewidth=0.6)
    ax.set_axisbelow(True)
    if given_ax:
        ax.legend(loc="best", fontsize="x-small", framealpha=0.9)
    else:
        fig.legend(loc="outside lower center", ncols=2, fontsize="small")
    if title is None:
        title = f"Cross-validation over {k} folds: pooled {_fmt(pooled)} vs fold mean {_fmt(mean)}"
    ax.set_title(title, fontsize="medium")
    return fig


# --------------------------------------------------------------------------- CLI files


def _localization_grid(points: ClassPoints) -> int:
    """Grid for the saved localization plot: about 3e8 cell x cut steps at most."""
    cuts = max(int(points.tp.shape[0]), 1)
    return int(np.clip(math.isqrt(300_000_000 // cuts), 8, 50))


def save_threshold_plots(
    points: ClassPoints,
    results: Iterable[Any],
    directory: str | os.PathLike[str],
    *,
    beta: float = 1.0,
) -> list[Path]:
    """Write the threshold-search plots as PNG files into ``directory`` (created).

    Files: ``class_points.png`` (:func:`plot_class_points`), ``domain.png``
    (:func:`plot_domain`, with every result's (P, R) marked; the support polygon uses
    the ``n_angles`` of a ``domain`` result when there is one, else 16),
    ``argv.png`` (:func:`plot_argv`) and ``localization.png``
    (:func:`plot_localization`, on a grid of at most 50 cells per axis, fewer for
    very large problems so that it stays within seconds).

    Parameters
    ----------
    points
        The :class:`~optimize.points.ClassPoints` the results were computed on.
    results
        ``(ThresholdResult, seconds)`` pairs as returned by the CLI's
        ``run_methods`` (bare results are accepted too).
    directory
        Output folder; created with its parents; existing files are overwritten.
    beta
        F_beta weight; every result must have been computed with it.

    Returns
    -------
    list of pathlib.Path
        The files written, in the order above.
    """
    if not isinstance(points, ClassPoints):
        raise TypeError(f"points must be a ClassPoints, got {type(points).__name__}")
    b = check_beta(beta)
    items = []
    for i, item in enumerate(results):
        res = item[0] if isinstance(item, tuple) and item else item
        if not isinstance(res, ThresholdResult):
            raise TypeError(
                f"results[{i}] must be a (ThresholdResult, seconds) pair, got {type(item).__name__}"
            )
        if not math.isclose(res.beta, b):
            raise ValueError(
                f"results[{i}] ({res.method}) was computed with beta={res.beta!r}, but beta={b!r}"
            )
        items.append(res)
    out_dir = Path(directory)
    if out_dir.exists() and not out_dir.is_dir():
        raise ValueError(f"directory {str(out_dir)!r} exists and is not a directory")
    out_dir.mkdir(parents=True, exist_ok=True)
    n_angles = next(
        (
            int(r.diagnostics["n_angles"])
            for r in items
            if r.method == "domain" and int(r.diagnostics.get("n_angles", -1)) >= 3
        ),
        16,
    )
    zd = points.zero_division
    makers = (
        lambda: plot_class_points(points=points, beta=b, zero_division=zd),
        lambda: plot_domain(
            points=points, beta=b, zero_division=zd, n_angles=n_angles, results=items
        ),
        lambda: plot_argv(points=points, beta=b, zero_division=zd),
        lambda: plot_localization(
            points=points, beta=b, zero_division=zd, grid=_localization_grid(points)
        ),
    )
    plt = _pyplot()
    written = []
    for name, make in zip(PLOT_FILES, makers, strict=True):
        fig = make()
        try:
            path = out_dir / name
            fig.savefig(path, dpi=110)
        finally:
            plt.close(fig)
        written.append(path)
    return written
