"""The PNG files written by ``fmacro thresholds --plot DIR``."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from fmacro.optimize.plot._common import _pyplot
from fmacro.optimize.plot.diagnostics import (
    plot_argv,
    plot_class_points,
    plot_domain,
    plot_localization,
    save_captioned,
)
from fmacro.optimize.plot.displays import FThresholdDisplay, PrecisionRecallDisplay
from fmacro.optimize.rules import PerClassThresholds
from fmacro.optimize.search.points import ClassPoints
from fmacro.optimize.search.result import ThresholdResult
from fmacro.validation.checks import check_beta

#: Figures for users, written first when there is a per-class threshold result.
USER_PLOT_FILES = ("pr_curves.png", "f_threshold.png")
#: Diagnostic (research) figures, each captioned (:mod:`optimize.plot.diagnostics`).
DIAGNOSTIC_PLOT_FILES = ("class_points.png", "domain.png", "argv.png", "localization.png")
#: File names written by :func:`save_threshold_plots`, in order.
PLOT_FILES = USER_PLOT_FILES + DIAGNOSTIC_PLOT_FILES
#: Classes drawn in the user figures: those with the most positives.
N_USER_CLASSES = 6


def _largest_classes(points: ClassPoints, k: int) -> list[int]:
    """Original column indices of the ``k`` classes with most positives (ties: lower column)."""
    order = np.argsort(-np.asarray(points.support), kind="stable")[:k]
    return [int(points.class_index[i]) for i in np.sort(order)]


def _user_figures(points: ClassPoints, result: ThresholdResult) -> list[tuple[str, Any]]:
    """(file name, figure maker) of the precision-recall and F-vs-threshold figures."""
    plt = _pyplot()
    cols = _largest_classes(points, N_USER_CLASSES)
    n_all = points.n_classes
    which = (
        f"all {n_all} classes"
        if len(cols) == n_all
        else f"the {len(cols)} classes with most positives, of {n_all}"
    )

    def pr_curves() -> Any:
        fig, ax = plt.subplots(figsize=(10.0, 6.0), layout="constrained")
        for c in cols:
            PrecisionRecallDisplay.from_result(result, points, c).plot(ax=ax)
        ax.set_title(f"Precision-recall curves, {result.method} thresholds marked\n({which})")
        # outside the axes: inside, it would hide the low-precision ends of the curves
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="x-small")
        return fig

    def f_threshold() -> Any:
        n_cols = min(3, len(cols))
        n_rows = -(-len(cols) // n_cols)
        fig, axes = plt.subplots(
            n_rows,
            n_cols,
            figsize=(4.2 * n_cols, 3.4 * n_rows),
            layout="constrained",
            squeeze=False,
        )
        for ax, c in zip(axes.ravel(), cols, strict=False):
            d = FThresholdDisplay.from_result(result, points, c).plot(ax=ax)
            ax.set_title(d.class_name, fontsize="medium")
            ax.set_xlabel("threshold", fontsize="small")
            ax.legend(loc="upper left", fontsize="x-small")  # F rarely reaches 0.8
        for ax in axes.ravel()[len(cols) :]:
            ax.set_visible(False)
        fig.suptitle(
            f"F of each class against its threshold, {result.method} threshold dashed ({which})"
        )
        return fig

    return [("pr_curves.png", pr_curves), ("f_threshold.png", f_threshold)]


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

    Files, for users first (when a result has per-class thresholds, the first such
    result's; drawn for the 6 classes with most positives): ``pr_curves.png``
    (:class:`PrecisionRecallDisplay` of each, chosen threshold marked) and
    ``f_threshold.png`` (:class:`FThresholdDisplay` of each); then the captioned
    diagnostics (:mod:`optimize.plot.diagnostics`): ``class_points.png``
    (:func:`plot_class_points`), ``domain.png``
    (:func:`plot_domain`, with every result's (P, R) marked; the support polygon uses
    the ``n_angles`` of a ``domain`` result when there is one, else 16),
    ``argv.png`` (:func:`plot_argv`) and ``localization.png``
    (:func:`plot_localization`, on a grid of at most 50 cells per axis, fewer for
    very large problems so that it stays within seconds).

    Parameters
    ----------
    points
        The :class:`~fmacro.optimize.search.points.ClassPoints` the results were computed on.
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
    per_class = next(
        (
            r
            for r in items
            if isinstance(r.rule, PerClassThresholds) and r.cuts.shape[0] == points.n_classes
        ),
        None,
    )
    makers: list[tuple[str, Any]] = [] if per_class is None else _user_figures(points, per_class)
    makers += [
        ("class_points.png", lambda: plot_class_points(points=points, beta=b, zero_division=zd)),
        (
            "domain.png",
            lambda: plot_domain(
                points=points, beta=b, zero_division=zd, n_angles=n_angles, results=items
            ),
        ),
        ("argv.png", lambda: plot_argv(points=points, beta=b, zero_division=zd)),
        (
            "localization.png",
            lambda: plot_localization(
                points=points, beta=b, zero_division=zd, grid=_localization_grid(points)
            ),
        ),
    ]
    plt = _pyplot()
    written = []
    for name, make in makers:
        fig = make()
        try:
            path = out_dir / name
            if name in DIAGNOSTIC_PLOT_FILES:
                save_captioned(fig, name.removesuffix(".png"), path, dpi=110)
            else:
                fig.savefig(path, dpi=110, bbox_inches="tight")
        finally:
            plt.close(fig)
        written.append(path)
    return written
