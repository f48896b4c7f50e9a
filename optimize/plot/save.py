"""The PNG files written by ``fmacro thresholds --plot DIR``."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from fmacro.optimize.plot._common import _pyplot
from fmacro.optimize.plot.argv import plot_argv
from fmacro.optimize.plot.domain import plot_domain
from fmacro.optimize.plot.localization import plot_localization
from fmacro.optimize.plot.points import plot_class_points
from fmacro.optimize.search.points import ClassPoints
from fmacro.optimize.search.result import ThresholdResult
from fmacro.validation.checks import check_beta

#: File names written by :func:`save_threshold_plots`, in order.
PLOT_FILES = ("class_points.png", "domain.png", "argv.png", "localization.png")


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
