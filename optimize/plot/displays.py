"""Figures for users, in scikit-learn's Display pattern: compute once, draw with ``plot``.

Each ``...Display`` is a frozen value computed by a ``from_...`` constructor (no
matplotlib needed, so the numbers are testable without drawing). ``plot(ax=None)``
draws it and returns a copy of the display with ``ax_`` and ``figure_`` set, as
scikit-learn's displays do.

* :class:`PrecisionRecallDisplay` - one class's precision-recall curve (recall on x,
  precision on y) with the chosen operating point.
* :class:`FThresholdDisplay` - one class's F_beta against the threshold, with the
  chosen threshold.
* :class:`ConfusionMatrixDisplay` - a multiclass confusion matrix as a heat map.
* :class:`FoldScoresDisplay` - cross-validation fold scores with the pooled score and
  the fold mean.
"""

from __future__ import annotations

import math
from typing import Any, TypeVar

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.plot._common import _done, _figure_axes, _ro
from fmacro.optimize.search.points import ClassPoints, class_points
from fmacro.optimize.search.result import ThresholdResult
from fmacro.validation.checks import check_beta
from fmacro.validation.measures import f_beta_from_pr

__all__ = [
    "ConfusionMatrixDisplay",
    "FThresholdDisplay",
    "FoldScoresDisplay",
    "PrecisionRecallDisplay",
]


@attrs.frozen(eq=False)
class _ClassCurve:
    """One class's cuts (empty cut first) and the chosen one: shared by two displays."""

    name: str
    thresholds: NDArray[np.float64]
    precision: NDArray[np.float64]
    recall: NDArray[np.float64]
    f: NDArray[np.float64]
    chosen: int
    beta: float
    support: int
    n_samples: int


def _class_curve(
    points: ClassPoints, column: int, cut: int | None, beta: float, name: str | None
) -> _ClassCurve:
    if isinstance(column, bool) or not isinstance(column, (int, np.integer)):
        raise TypeError(f"column must be an int, got {type(column).__name__}")
    hit = np.flatnonzero(np.asarray(points.class_index) == int(column))
    if hit.size == 0:
        raise ValueError(
            f"column {column} is not among the searched classes (columns with a positive "
            f"label): {np.asarray(points.class_index).tolist()}"
        )
    k = int(hit[0])
    lo, hi = int(points.indptr[k]), int(points.indptr[k + 1])
    p = np.asarray(points.precision[lo:hi])
    r = np.asarray(points.recall[lo:hi])
    f = np.asarray(f_beta_from_pr(p, r, beta))
    if cut is None:  # the class's own F_beta optimum (first maximum, NaN never wins)
        cut = int(np.argmax(np.where(np.isnan(f), -np.inf, f)))
    return _ClassCurve(
        name=f"class {column}" if name is None else str(name),
        thresholds=_ro(points.threshold[lo:hi]),
        precision=_ro(p),
        recall=_ro(r),
        f=_ro(f),
        chosen=int(cut),
        beta=beta,
        support=int(points.support[k]),
        n_samples=int(points.n_samples),
    )


def _curve_from_result(
    result: ThresholdResult, points: ClassPoints, column: int, name: str | None
) -> _ClassCurve:
    if not isinstance(result, ThresholdResult):
        raise TypeError(f"result must be a ThresholdResult, got {type(result).__name__}")
    if not isinstance(points, ClassPoints):
        raise TypeError(f"points must be a ClassPoints, got {type(points).__name__}")
    if result.cuts.shape[0] != points.n_classes:
        raise ValueError(
            f"result has {result.cuts.shape[0]} cuts but points has {points.n_classes} "
            "classes; pass the points the result was computed on"
        )
    if name is None and result.classes is not None:
        name = str(result.classes[int(column)])
    hit = np.flatnonzero(np.asarray(points.class_index) == int(column))
    # result.cuts number all cuts of each class; these points may hold only some
    cut = int(points.local_cuts(result.cuts)[hit[0]]) if hit.size else None
    return _class_curve(points, column, cut, result.beta, name)


def _curve_from_scores(
    scores: Any, labels: Any, column: int, threshold: float | None, beta: float, name: str | None
) -> _ClassCurve:
    b = check_beta(beta)
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels)
    if s.ndim == 1:
        s, y = s[:, None], y[:, None]
    points = class_points(s, y)
    curve = _class_curve(points, column, None, b, name)
    if threshold is None:
        return curve
    # the cut predicting exactly the objects with score >= threshold
    cut = int(np.count_nonzero(curve.thresholds >= float(threshold))) - 1
    return attrs.evolve(curve, chosen=max(cut, 0))


_CurveDisplay = TypeVar("_CurveDisplay", bound="_FromClassCurve")


class _FromClassCurve:
    """``from_result`` / ``from_scores`` of the one-class curve displays (built by ``_of``)."""

    @classmethod
    def _of(cls: type[_CurveDisplay], c: _ClassCurve) -> _CurveDisplay:
        raise NotImplementedError

    @classmethod
    def from_result(
        cls: type[_CurveDisplay],
        result: ThresholdResult,
        points: ClassPoints,
        column: int = 0,
        *,
        name: str | None = None,
    ) -> _CurveDisplay:
        """The curve of class ``column`` (an original column index) at ``result``'s cut."""
        return cls._of(_curve_from_result(result, points, column, name))

    @classmethod
    def from_scores(
        cls: type[_CurveDisplay],
        scores: Any,
        labels: Any,
        column: int = 0,
        *,
        threshold: float | None = None,
        beta: float = 1.0,
        name: str | None = None,
    ) -> _CurveDisplay:
        """The curve of one column of ``scores``/``labels`` (1-D: that ranking).

        The operating point is ``score >= threshold``; ``None`` takes the class's own
        F_beta-optimal cut.
        """
        return cls._of(_curve_from_scores(scores, labels, column, threshold, beta, name))


@attrs.frozen(eq=False)
class PrecisionRecallDisplay(_FromClassCurve):
    """One class's precision-recall curve and the chosen operating point.

    Attributes
    ----------
    precision, recall, thresholds : ndarray
        One entry per cut of the class's ranking, from the empty cut (threshold
        ``+inf``) to the cut predicting every object; read-only.
    chosen : int
        Index of the chosen cut (the operating point).
    class_name : str
    beta : float
    support : int
        Positives of the class.
    ax_, figure_
        Set by :meth:`plot`.
    """

    precision: NDArray[np.float64]
    recall: NDArray[np.float64]
    thresholds: NDArray[np.float64]
    chosen: int
    class_name: str
    beta: float
    support: int
    ax_: Any = None
    figure_: Any = None

    @property
    def operating_point(self) -> tuple[float, float, float]:
        """(recall, precision, threshold) of the chosen cut."""
        i = self.chosen
        return float(self.recall[i]), float(self.precision[i]), float(self.thresholds[i])

    @classmethod
    def _of(cls, c: _ClassCurve) -> PrecisionRecallDisplay:
        return cls(c.precision, c.recall, c.thresholds, c.chosen, c.name, c.beta, c.support)

    def plot(self, ax: Any = None, *, name: str | None = None) -> PrecisionRecallDisplay:
        """Draw the curve (a step per cut) and the operating point; returns the display."""
        fig, ax = _figure_axes(ax, (6.0, 5.0))
        label = name or self.class_name
        (line,) = ax.plot(self.recall[1:], self.precision[1:], drawstyle="steps-post", label=label)
        r, p, t = self.operating_point
        ax.plot(
            [r],
            [p],
            "o",
            color=line.get_color(),
            markersize=8,
            markeredgecolor="black",
            label=f"{label}: threshold {t:.3g} (P {p:.2f}, R {r:.2f})",
        )
        ax.set_xlabel("recall")
        ax.set_ylabel("precision")
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, 1.02)
        ax.set_title("Precision-recall curve, chosen threshold marked")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="lower left", fontsize="small")
        return _done(self, ax, fig)


@attrs.frozen(eq=False)
class FThresholdDisplay(_FromClassCurve):
    """One class's F_beta against the threshold, with the chosen threshold.

    Attributes
    ----------
    thresholds, f : ndarray
        Threshold and F_beta of each non-empty cut (decreasing thresholds); read-only.
    chosen_threshold, chosen_f : float
        The chosen cut (``+inf`` and the empty cut's F when nothing is predicted).
    class_name : str
    beta : float
    ax_, figure_
        Set by :meth:`plot`.
    """

    thresholds: NDArray[np.float64]
    f: NDArray[np.float64]
    chosen_threshold: float
    chosen_f: float
    class_name: str
    beta: float
    ax_: Any = None
    figure_: Any = None

    @classmethod
    def _of(cls, c: _ClassCurve) -> FThresholdDisplay:
        return cls(
            c.thresholds[1:],
            c.f[1:],
            float(c.thresholds[c.chosen]),
            float(c.f[c.chosen]),
            c.name,
            c.beta,
        )

    def plot(self, ax: Any = None) -> FThresholdDisplay:
        """Draw F against the threshold and the chosen threshold; returns the display."""
        fig, ax = _figure_axes(ax, (6.5, 4.5))
        ax.plot(self.thresholds, self.f, drawstyle="steps-post", label=self.class_name)
        if math.isfinite(self.chosen_threshold):
            ax.axvline(
                self.chosen_threshold,
                color="black",
                linestyle="--",
                linewidth=1,
                label=f"chosen threshold {self.chosen_threshold:.3g} (F {self.chosen_f:.3f})",
            )
        ax.set_xlabel("threshold (predict the class when score >= threshold)")
        ax.set_ylabel(f"F (β = {self.beta:g}) of the class")
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(f"F against threshold: {self.class_name}")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="best", fontsize="small")
        return _done(self, ax, fig)


_NORMALIZE = (None, "true", "pred", "all")


@attrs.frozen(eq=False)
class ConfusionMatrixDisplay:
    """A multiclass confusion matrix (rows expected, columns predicted) as a heat map.

    Attributes
    ----------
    matrix : ndarray
        Counts, or fractions with ``normalize`` (``"true"``: each row sums to 1,
        ``"pred"``: each column, ``"all"``: the whole matrix; a row/column without
        samples stays 0); read-only.
    classes : tuple of str
    normalize : {None, "true", "pred", "all"}
    ax_, figure_
        Set by :meth:`plot`.
    """

    matrix: NDArray[np.float64]
    classes: tuple[str, ...]
    normalize: str | None
    ax_: Any = None
    figure_: Any = None

    @classmethod
    def from_validation(
        cls, validation: Any, *, normalize: str | None = None
    ) -> ConfusionMatrixDisplay:
        """From a ``MultiFValidation`` (its ``confusion`` and ``classes``)."""
        confusion = getattr(validation, "confusion", None)
        if confusion is None or not hasattr(confusion, "matrix"):
            raise TypeError(
                "validation must be a MultiFValidation (with a confusion matrix), got "
                f"{type(validation).__name__}"
            )
        if normalize not in _NORMALIZE:
            raise ValueError(f"normalize must be one of {list(_NORMALIZE)}, got {normalize!r}")
        counts = np.asarray(confusion.matrix, dtype=np.float64)
        if normalize is None:
            values = counts
        else:
            if normalize == "true":
                total = counts.sum(axis=1, keepdims=True)
            elif normalize == "pred":
                total = counts.sum(axis=0, keepdims=True)
            else:
                total = np.full((1, 1), counts.sum())
            values = np.divide(counts, total, out=np.zeros_like(counts), where=total > 0)
        names = tuple(str(c) for c in validation.classes)
        return cls(_ro(values), names, normalize)

    def plot(self, ax: Any = None, *, cmap: str = "Blues") -> ConfusionMatrixDisplay:
        """Draw the heat map with each cell's value; returns the display."""
        n = len(self.classes)
        side = min(3.0 + 0.55 * n, 14.0)
        fig, ax = _figure_axes(ax, (side + 1.2, side))
        image = ax.imshow(self.matrix, cmap=cmap, vmin=0.0)
        fig.colorbar(image, ax=ax, label="fraction" if self.normalize else "samples")
        if n <= 20:  # cell text stays legible up to about 20 classes
            high = float(self.matrix.max()) if self.matrix.size else 0.0
            for i in range(n):
                for j in range(n):
                    v = float(self.matrix[i, j])
                    text = f"{v:.2f}" if self.normalize else f"{round(v)}"
                    color = "white" if high > 0 and v > 0.6 * high else "black"
                    ax.text(j, i, text, ha="center", va="center", color=color, fontsize="small")
        ax.set_xticks(
            range(n), self.classes, rotation=45 if n > 6 else 0, ha="right" if n > 6 else "center"
        )
        ax.set_yticks(range(n), self.classes)
        ax.set_xlabel("predicted class")
        ax.set_ylabel("expected class")
        what = {
            None: "counts",
            "true": "each row sums to 1",
            "pred": "each column sums to 1",
            "all": "fractions of all samples",
        }[self.normalize]
        ax.set_title(f"Confusion matrix ({what})")
        return _done(self, ax, fig)


@attrs.frozen(eq=False)
class FoldScoresDisplay:
    """Cross-validation fold scores with the pooled score and the fold mean ± std.

    Attributes
    ----------
    fold_scores : ndarray
        One score per fold; read-only.
    pooled, mean, std : float
        Score of the summed counts of all folds; mean and standard deviation
        (``ddof=0``) of the fold scores.
    score_label : str
    ax_, figure_
        Set by :meth:`plot`.
    """

    fold_scores: NDArray[np.float64]
    pooled: float
    mean: float
    std: float
    score_label: str
    ax_: Any = None
    figure_: Any = None

    @classmethod
    def from_cross_validation(cls, cv: Any, *, score_label: str = "score") -> FoldScoresDisplay:
        """From a :class:`crossval.CrossValidation` (``fold_scores``, ``pooled.score``)."""
        if not hasattr(cv, "fold_scores") or not hasattr(getattr(cv, "pooled", None), "score"):
            raise TypeError(
                "cv must be a crossval.CrossValidation (with fold_scores and pooled.score), "
                f"got {type(cv).__name__}"
            )
        folds = np.asarray(cv.fold_scores, dtype=np.float64).reshape(-1)
        if folds.size == 0:
            raise ValueError("cv has no fold scores; nothing to plot")
        return cls(
            _ro(folds),
            float(cv.pooled.score),
            float(np.mean(folds)),
            float(np.std(folds)),
            str(score_label),
        )

    def plot(self, ax: Any = None) -> FoldScoresDisplay:
        """Draw one bar per fold, the pooled score and the mean ± std; returns the display."""
        k = self.fold_scores.size
        fig, ax = _figure_axes(ax, (max(7.5, 3.5 + 0.5 * k), 4.5))
        x = np.arange(1, k + 1)
        ax.bar(x, self.fold_scores, color="#9ecae1", edgecolor="#3182bd", label="fold score")
        ax.axhline(self.pooled, color="#d62728", linewidth=1.5, label=f"pooled {self.pooled:.3f}")
        ax.axhline(
            self.mean,
            color="black",
            linestyle="--",
            linewidth=1,
            label=f"fold mean {self.mean:.3f} ± {self.std:.3f}",
        )
        ax.axhspan(self.mean - self.std, self.mean + self.std, color="grey", alpha=0.15)
        ax.set_xticks(x)
        ax.set_xlabel("fold")
        ax.set_ylabel(self.score_label)
        values = np.append(self.fold_scores, self.pooled)
        if np.all((values >= 0.0) & (values <= 1.0)):  # a rate: bars from 0 to full scale
            ax.set_ylim(0.0, 1.02)
        ax.set_title("Cross-validation: score of each fold")
        # outside the axes: inside, it would hide the top of some bars
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
        return _done(self, ax, fig)
