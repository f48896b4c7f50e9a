"""ArgV(phi) against the identity: the fixed point of the F-macro optimum."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from fmacro.optimize.plot._common import _C_OPT, _beta_text, _figure_axes, _fmt
from fmacro.optimize.search.fixed_point import argv_curve, fixed_point
from fmacro.optimize.search.hull import class_hulls, edge_sweep
from fmacro.optimize.search.points import ClassPoints, as_points
from fmacro.validation.checks import check_beta

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def plot_argv(
    scores: Any = None,
    labels: Any = None,
    *,
    beta: float = 1.0,
    zero_division: float | None = None,
    empty_classes: str = "exclude",
    points: ClassPoints | None = None,
    ax: Axes | None = None,
    title: str | None = None,
) -> Figure:
    """ArgV(phi) against the identity; their crossing gives the F-macro optimum.

    V(phi) is the mean of each class's hull vertex maximizing
    ``cos(phi) p + sin(phi) r`` and ArgV(phi) the direction of the gradient of F_beta
    at V(phi) (:func:`fmacro.optimize.search.fixed_point.argv_curve`). V is constant between
    consecutive hull-edge angles, so ArgV is a non-increasing step function, drawn
    exactly (with its jumps joined by vertical segments). Where it meets the
    identity is the fixed point; when the identity passes through a jump (the
    "edge" case), the optimum lies on the segment of conv D between the two
    states and :func:`fmacro.optimize.fixed_point` walks it.

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
