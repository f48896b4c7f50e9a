"""Per-class (p, r) cut points with each class's upper convex hull."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np
from numpy.typing import ArrayLike, NDArray

from fmacro.optimize.plot._common import (
    _beta_text,
    _check_int,
    _done,
    _figure_axes,
    _given_points,
    _pr_axes,
    _pyplot,
    _ro,
)
from fmacro.optimize.search.fixed_point import fixed_point
from fmacro.optimize.search.hull import class_hulls
from fmacro.optimize.search.points import ClassPoints, as_points
from fmacro.validation.checks import check_beta, check_seed

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def _chosen_classes(
    points: ClassPoints, classes: ArrayLike | None, max_classes: int, seed: int
) -> tuple[NDArray[np.int64], str]:
    """Positions (in ``points``) of the classes to draw, and why those."""
    check_seed(seed)
    n = points.n_classes
    if classes is not None:
        cols = np.asarray(classes).reshape(-1)
        if cols.size == 0:
            raise ValueError("classes must name at least one class, got an empty list")
        if not np.issubdtype(cols.dtype, np.integer):
            raise TypeError(f"classes must be integer column indices, got dtype {cols.dtype}")
        pos = np.minimum(np.searchsorted(points.class_index, cols), n - 1)
        bad = points.class_index[pos] != cols
        if bad.any():
            raise ValueError(
                f"classes: column {int(cols[bad][0])} is not a kept class (columns "
                f"0..{points.n_columns - 1} with positives: {n} of them)"
            )
        return pos.astype(np.int64), "the classes asked for"
    k = _check_int(max_classes, "max_classes", 1)
    if n <= k:
        return np.arange(n, dtype=np.int64), f"all {n} classes with positives"
    # draw from the larger half of the classes: a class with m positives has only
    # m + 1 distinct recalls, so tiny classes show little
    sizes = np.asarray(points.support)
    pool = np.flatnonzero(sizes >= np.median(sizes))
    if pool.size < k:
        pool = np.argsort(-sizes, kind="stable")[:k]
    chosen = np.sort(np.random.default_rng(seed).choice(pool, size=k, replace=False))
    # say which and why: a reader must not take the sample for the whole
    why = (
        f"{k} of {n} classes, drawn at random (seed {seed}) among those with at least "
        "the median number of positives (small classes have few points)"
    )
    return chosen.astype(np.int64), why


@attrs.frozen(eq=False)
class ClassPointsDisplay:
    """Per-class (p, r) points of every cut with each class's upper convex hull.

    Computed once by :meth:`from_points` (or :meth:`from_scores`), drawn by :meth:`plot`.
    Per-class sequences are in drawing order (that of ``columns``).

    Attributes
    ----------
    columns : ndarray of int
        Original column index of each drawn class; read-only.
    why : str
        Which classes are drawn and why (all of them, those asked for, or a seeded
        sample among the larger half).
    precision, recall : tuple of ndarray
        Per drawn class, the (p, r) of each of its cuts; read-only.
    hull_p, hull_r : tuple of ndarray
        Per drawn class, the vertices of its upper convex hull chain; read-only.
    chosen_p, chosen_r : ndarray or None
        Per drawn class, the (p, r) of its cut at the F-macro optimum
        (:func:`~fmacro.optimize.fixed_point`); None when not marked; read-only.
    support, n_cuts : ndarray of int
        Per drawn class, its positives and its number of cuts; read-only.
    n_classes : int
        Classes in the points (drawn or not).
    beta : float
    ax_, figure_
        Set by :meth:`plot`.
    """

    columns: NDArray[np.int64]
    why: str
    precision: tuple[NDArray[np.float64], ...]
    recall: tuple[NDArray[np.float64], ...]
    hull_p: tuple[NDArray[np.float64], ...]
    hull_r: tuple[NDArray[np.float64], ...]
    chosen_p: NDArray[np.float64] | None
    chosen_r: NDArray[np.float64] | None
    support: NDArray[np.int64]
    n_cuts: NDArray[np.int64]
    n_classes: int
    beta: float
    ax_: Any = None
    figure_: Any = None

    @classmethod
    def from_points(
        cls,
        points: ClassPoints,
        *,
        beta: float = 1.0,
        zero_division: float | None = None,
        max_classes: int = 6,
        classes: ArrayLike | None = None,
        seed: int = 0,
        mark_optimum: bool = True,
    ) -> ClassPointsDisplay:
        """Compute what :func:`plot_class_points` draws (parameters as there)."""
        b = check_beta(beta)
        pts = _given_points(points, zero_division)
        chosen, why = _chosen_classes(pts, classes, max_classes, seed)
        hulls = class_hulls(pts)
        prec = np.asarray(pts.precision)
        rec = np.asarray(pts.recall)
        slices = [pts.class_slice(int(j)) for j in chosen]
        vertices = [
            slice(int(hulls.vertex_indptr[j]), int(hulls.vertex_indptr[j + 1])) for j in chosen
        ]
        chosen_p = chosen_r = None
        if mark_optimum:
            cuts = pts.local_cuts(
                fixed_point(points=pts, beta=b, zero_division=pts.zero_division).cuts
            )
            at = np.asarray(pts.indptr)[chosen] + np.asarray(cuts)[chosen]
            chosen_p, chosen_r = _ro(prec[at]), _ro(rec[at])
        return cls(
            columns=_ro(np.asarray(pts.class_index)[chosen], np.int64),
            why=why,
            precision=tuple(_ro(prec[sl]) for sl in slices),
            recall=tuple(_ro(rec[sl]) for sl in slices),
            hull_p=tuple(_ro(hulls.vertex_p[v]) for v in vertices),
            hull_r=tuple(_ro(hulls.vertex_r[v]) for v in vertices),
            chosen_p=chosen_p,
            chosen_r=chosen_r,
            support=_ro(np.asarray(pts.support)[chosen], np.int64),
            n_cuts=_ro(np.asarray(pts.n_cuts)[chosen], np.int64),
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
        max_classes: int = 6,
        classes: ArrayLike | None = None,
        seed: int = 0,
        mark_optimum: bool = True,
    ) -> ClassPointsDisplay:
        """As :meth:`from_points`, on the class points of ``scores`` and ``labels``."""
        pts = as_points(
            scores, labels, None, zero_division=zero_division, empty_classes=empty_classes
        )
        return cls.from_points(
            pts,
            beta=beta,
            max_classes=max_classes,
            classes=classes,
            seed=seed,
            mark_optimum=mark_optimum,
        )

    def plot(self, ax: Axes | None = None, *, title: str | None = None) -> ClassPointsDisplay:
        """Draw the points, hulls and chosen cuts; returns the display.

        Per class: one scatter of its cut points, one line of its hull chain (labelled
        ``class <column> (m = <support>, <cuts> cuts)``) and, when marked, one scatter
        of its chosen cut; then legend proxies. With ``ax=`` the legend is inside.
        """
        given_ax = ax is not None
        fig, ax = _figure_axes(ax, (7.2, 7.6))
        cmap = _pyplot().get_cmap("tab10")
        marked = self.chosen_p is not None and self.chosen_r is not None
        dot = 20.0 if int(np.sum(self.n_cuts)) <= 300 else 9.0
        for i, col in enumerate(self.columns):
            color = cmap(i % 10)
            ax.scatter(
                self.precision[i], self.recall[i], s=dot, color=color, alpha=0.45, linewidths=0
            )
            ax.plot(
                self.hull_p[i],
                self.hull_r[i],
                "-o",
                color=color,
                markersize=3.5,
                linewidth=1.6,
                label=f"class {int(col)} (m = {int(self.support[i])}, {int(self.n_cuts[i])} cuts)",
            )
            if self.chosen_p is not None and self.chosen_r is not None:
                ax.scatter(
                    [self.chosen_p[i]],
                    [self.chosen_r[i]],
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
        if marked:
            ax.scatter(
                [],
                [],
                s=140,
                marker="*",
                color="0.7",
                edgecolors="black",
                linewidths=0.7,
                label=f"cut at the F-macro optimum ({_beta_text(self.beta)})",
            )
        shown_p = np.concatenate(self.precision)
        p_top = float(np.nanmax(shown_p)) if np.isfinite(shown_p).any() else 1.0
        _pr_axes(ax, (-0.01, min(1.02, 1.08 * p_top + 0.02), -0.01, 1.02), equal=False)
        ax.set_xlabel("precision p of the class")
        ax.set_ylabel("recall r of the class")
        if given_ax:
            ax.legend(loc="upper right", fontsize="x-small", framealpha=0.9)
        else:
            fig.legend(loc="outside lower center", ncols=2, fontsize="small")
        if title is None:
            shown_cols = ", ".join(str(int(c)) for c in self.columns)
            title = "Per-class (p, r) points and upper hulls\n" + textwrap.fill(
                f"columns {shown_cols}: {self.why}", 80
            )
        ax.set_title(title, fontsize="medium")
        return _done(self, ax, fig)


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

    ``ClassPointsDisplay.from_points(...).plot(ax=ax, title=title).figure_``.

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
        Axes title; default says which classes are drawn and why.

    Returns
    -------
    matplotlib.figure.Figure
        Per class: one scatter of its cut points and one line of its hull chain
        (plus one scatter of the chosen cuts when ``mark_optimum``).
    """
    pts = as_points(
        scores, labels, points, zero_division=zero_division, empty_classes=empty_classes
    )
    display = ClassPointsDisplay.from_points(
        pts,
        beta=beta,
        max_classes=max_classes,
        classes=classes,
        seed=seed,
        mark_optimum=mark_optimum,
    )
    fig: Figure = display.plot(ax=ax, title=title).figure_
    return fig
