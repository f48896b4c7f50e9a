"""ArgV(phi) against the identity: the fixed point of the F-macro optimum."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.plot._common import (
    _C_OPT,
    _beta_text,
    _done,
    _figure_axes,
    _fmt,
    _given_points,
    _ro,
)
from fmacro.optimize.search.fixed_point import argv_curve, fixed_point
from fmacro.optimize.search.hull import class_hulls, edge_sweep
from fmacro.optimize.search.points import ClassPoints, as_points
from fmacro.validation.checks import check_beta

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


_PI_TICKS = ["0", "π/8", "π/4", "3π/8", "π/2"]


@attrs.frozen(eq=False)
class ArgVDisplay:
    """ArgV(phi) against the identity; their crossing gives the F-macro optimum.

    V(phi) is the mean of each class's hull vertex maximizing
    ``cos(phi) p + sin(phi) r`` and ArgV(phi) the direction of the gradient of F_beta
    at V(phi) (:func:`fmacro.optimize.search.fixed_point.argv_curve`). V is constant between
    consecutive hull-edge angles, so ArgV is a non-increasing step function, held exactly
    here. Where it meets the identity is the fixed point; when the identity passes through
    a jump (the "edge" case), the optimum lies on the segment of conv D between the two
    states and :func:`fmacro.optimize.fixed_point` walks it.

    Computed once by :meth:`from_points` (or :meth:`from_scores`), drawn by :meth:`plot`.

    Attributes
    ----------
    phi : ndarray
        Start of each step of ArgV (0, then each hull-edge angle where V changes),
        followed by pi/2; read-only.
    argv : ndarray
        ArgV on each step, the last value repeated at pi/2 (drawn with
        ``where="post"``); read-only.
    phi_star : float
        The crossing found by :func:`~fmacro.optimize.fixed_point` (``diagnostics["phi"]``).
    status : str
        ``"fixed_point"`` (ArgV crosses the identity) or ``"edge"`` (inside a jump).
    f : float
        F-macro of the optimum.
    n_classes : int
    beta : float
    ax_, figure_
        Set by :meth:`plot`.
    """

    phi: NDArray[np.float64]
    argv: NDArray[np.float64]
    phi_star: float
    status: str
    f: float
    n_classes: int
    beta: float
    ax_: Any = None
    figure_: Any = None

    @property
    def n_jumps(self) -> int:
        """Steps of ArgV after the first (directions where V changes)."""
        return int(self.phi.size) - 2

    @classmethod
    def from_points(
        cls, points: ClassPoints, *, beta: float = 1.0, zero_division: float | None = None
    ) -> ArgVDisplay:
        """ArgV of the class points (``zero_division`` must match the points' if given)."""
        b = check_beta(beta)
        pts = _given_points(points, zero_division)
        zd = pts.zero_division
        sweep = edge_sweep(class_hulls(pts))
        ends = np.asarray(sweep.group_end)
        breaks = np.asarray(sweep.angle)[ends - 1] if ends.size else np.zeros(0)
        starts = np.unique(np.concatenate(([0.0], breaks)))
        _, _, values = argv_curve(starts, points=pts, beta=b, zero_division=zd, side="right")
        opt = fixed_point(points=pts, beta=b, zero_division=zd, exact=False)
        return cls(
            phi=_ro(np.append(starts, math.pi / 2)),
            argv=_ro(np.append(values, values[-1])),
            phi_star=float(opt.diagnostics["phi"]),
            status=str(opt.diagnostics["status"]),
            f=float(opt.f),
            n_classes=pts.n_classes,
            beta=b,
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
    ) -> ArgVDisplay:
        """As :meth:`from_points`, on the class points of ``scores`` and ``labels``."""
        pts = as_points(
            scores, labels, None, zero_division=zero_division, empty_classes=empty_classes
        )
        return cls.from_points(pts, beta=beta)

    def plot(self, ax: Axes | None = None, *, title: str | None = None) -> ArgVDisplay:
        """Draw ArgV (steps), the identity and the crossing; returns the display.

        Lines, in order: the identity, ArgV, a marker at the crossing, a guide at phi*.
        With ``ax=`` the legend is inside the axes, else below them.
        """
        given_ax = ax is not None
        fig, ax = _figure_axes(ax, (7.0, 7.4))
        phi = self.phi_star
        ax.plot(
            [0, math.pi / 2],
            [0, math.pi / 2],
            "-",
            color="0.55",
            linewidth=1.2,
            label="identity ArgV = φ",
        )
        ax.step(
            self.phi,
            self.argv,
            where="post",
            color="#1f77b4",
            linewidth=1.6,
            label=f"ArgV(φ): gradient direction of F_β at V(φ), {_beta_text(self.beta)}",
        )
        how = (
            "fixed point (exact optimum)"
            if self.status == "fixed_point"
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
        ax.set_xticks(ticks, _PI_TICKS)
        ax.set_xlim(0, math.pi / 2)
        # ArgV is non-increasing: its range is [ArgV(pi/2), ArgV(0)]; a weak ranker keeps
        # it far below pi/2, so fit the y-axis to it (the identity leaves through the top)
        y_top = float(min(math.pi / 2, 1.2 * max(float(np.max(self.argv)), phi) + 0.01))
        ax.set_ylim(0, y_top)
        if y_top >= math.pi / 2:
            ax.set_yticks(ticks, _PI_TICKS)
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
                f"ArgV against the identity ({self.n_classes} classes, {self.n_jumps} jumps): "
                f"F-macro {_fmt(self.f)}"
            )
        ax.set_title(title, fontsize="medium")
        return _done(self, ax, fig)


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

    ``ArgVDisplay.from_points(...).plot(ax=ax, title=title).figure_``; see
    :class:`ArgVDisplay` for what is drawn.

    Returns
    -------
    matplotlib.figure.Figure
        Lines: ArgV (step), the identity; a marker at the crossing.
    """
    pts = as_points(
        scores, labels, points, zero_division=zero_division, empty_classes=empty_classes
    )
    fig: Figure = ArgVDisplay.from_points(pts, beta=beta).plot(ax=ax, title=title).figure_
    return fig
