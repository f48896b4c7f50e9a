"""Per-class (p, r) cut points with each class's upper convex hull."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from fmacro.optimize.plot._common import _beta_text, _check_int, _figure_axes, _pr_axes, _pyplot
from fmacro.optimize.search.fixed_point import fixed_point
from fmacro.optimize.search.hull import class_hulls
from fmacro.optimize.search.points import ClassPoints, as_points
from fmacro.validation.checks import check_beta

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def plot_class_points(
    scores: Any = None,
    labels: Any = None,
    *,
    beta: float = 1.0,
    zero_division: float | None = None,
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
        As for :func:`fmacro.optimize.fixed_point`.
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
        Mark each drawn class's cut chosen by :func:`fmacro.optimize.fixed_point` (the
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
            sizes = np.asarray(pts.support)
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
        m = int(pts.support[j])
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
        shown_cols = ", ".join(str(int(c)) for c in np.asarray(pts.class_index)[chosen])
        if classes is not None:
            why = "the classes asked for"
        elif chosen.size == n:
            why = f"all {n} classes with positives"
        else:  # say which and why: a reader must not take the sample for the whole
            why = (
                f"{chosen.size} of {n} classes, drawn at random (seed {seed}) among those "
                "with at least the median number of positives (small classes have few points)"
            )
        title = "Per-class (p, r) points and upper hulls\n" + textwrap.fill(
            f"columns {shown_cols}: {why}", 80
        )
    ax.set_title(title, fontsize="medium")
    return fig
