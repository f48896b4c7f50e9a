"""Cross-validation fold scores with the pooled score and the fold mean."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from fmacro.optimize.plot._common import _figure_axes, _fmt

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


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
