"""Figures for users, in scikit-learn's Display pattern: compute once, draw with ``plot``.

Each ``...Display`` is a frozen value computed by a ``from_...`` constructor (no
matplotlib needed, so the numbers are testable without drawing). ``plot(ax=None)``
draws it and returns a copy of the display with ``ax_`` and ``figure_`` set, as
scikit-learn's displays do.

* :class:`PrecisionRecallDisplay` - one class's precision-recall curve (recall on x,
  precision on y) with the chosen operating point and its average precision.
* :class:`FThresholdDisplay` - one class's F_beta against the threshold, with the
  chosen threshold.
* :class:`ConfusionMatrixDisplay` - a multiclass confusion matrix as a heat map.
* :class:`FoldScoresDisplay` - cross-validation fold scores with the pooled score and
  the fold mean.

The two curve displays take their class as ``column=``: a class name or an index, by the
rule of :mod:`fmacro.optimize.plot._columns` (when some class name is an int, an int
``column`` is a name, as scikit-learn's ``pos_label``; otherwise it is a position). Both are
built ``from_result`` (a search result and its points), ``from_scores`` (score and label
matrices, DataFrames naming their columns), ``from_estimator`` (a fitted classifier: an
:class:`~fmacro.optimize.sklearn.FMacroThresholdClassifier` marks its tuned threshold,
any other classifier the class's own F_beta-optimal cut) and ``from_predictions`` (one
1-D ranking, as scikit-learn's). The multi-label confusion grid is
:class:`~fmacro.optimize.plot.grid.MultilabelConfusionDisplay`.
"""

from __future__ import annotations

import math
from typing import Any, TypeVar

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.plot._columns import column_index, estimator_column
from fmacro.optimize.plot._common import _done, _figure_axes, _ro
from fmacro.optimize.search.points import ClassPoints, class_points
from fmacro.optimize.search.result import ThresholdResult
from fmacro.validation.checks import check_beta
from fmacro.validation.frames import frame_columns
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
    estimator_name: str | None = None

    @property
    def average_precision(self) -> float:
        """Step-wise AP, scikit-learn's definition: the sum over cuts of (R_n - R_n-1) P_n.

        Cuts are ordered by decreasing threshold from the empty cut (recall 0), so a cut
        whose tp does not rise adds nothing: points without dominated cuts give the same AP.
        """
        if self.support == 0 or self.recall.size < 2:
            return math.nan
        return float(np.sum(np.diff(self.recall) * self.precision[1:]))


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
    result: ThresholdResult, points: ClassPoints, column: Any, name: str | None
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
    column = column_index(column, result.classes, int(result.cuts.shape[0]), "the result")
    if name is None and result.classes is not None:
        name = str(result.classes[column])
    hit = np.flatnonzero(np.asarray(points.class_index) == int(column))
    # result.cuts number all cuts of each class; these points may hold only some
    cut = int(points.local_cuts(result.cuts)[hit[0]]) if hit.size else None
    return _class_curve(points, column, cut, result.beta, name)


def _curve_from_scores(
    scores: Any, labels: Any, column: Any, threshold: float | None, beta: float, name: str | None
) -> _ClassCurve:
    b = check_beta(beta)
    names = frame_columns(scores, labels, names=("scores", "labels"), remedy="")
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels)
    if s.ndim == 1:
        s, y = s[:, None], y[:, None]
        column = column_index(column, None, 1, "1-D scores")
    else:
        column = column_index(column, names, s.shape[1], "scores")
        if name is None and names is not None:
            name = str(names[column])
    points = class_points(s, y)
    curve = _class_curve(points, column, None, b, name)
    if threshold is None:
        return curve
    # the cut predicting exactly the objects with score >= threshold
    cut = int(np.count_nonzero(curve.thresholds >= float(threshold))) - 1
    return attrs.evolve(curve, chosen=max(cut, 0))


_CurveDisplay = TypeVar("_CurveDisplay", bound="_FromClassCurve")


class _FromClassCurve:
    """The constructors of the one-class curve displays (each built by ``_of``).

    ``column`` is a class name or an index (see the module docstring); an unknown name or
    an index out of range raises ``ValueError`` listing some valid names.
    """

    @classmethod
    def _of(cls: type[_CurveDisplay], c: _ClassCurve) -> _CurveDisplay:
        raise NotImplementedError

    @classmethod
    def from_result(
        cls: type[_CurveDisplay],
        result: ThresholdResult,
        points: ClassPoints,
        column: Any = 0,
        *,
        name: str | None = None,
    ) -> _CurveDisplay:
        """The curve of class ``column`` at ``result``'s cut.

        ``column`` is a name of ``result.classes`` or an original column index.
        """
        return cls._of(_curve_from_result(result, points, column, name))

    @classmethod
    def from_scores(
        cls: type[_CurveDisplay],
        scores: Any,
        labels: Any,
        column: Any = 0,
        *,
        threshold: float | None = None,
        beta: float = 1.0,
        name: str | None = None,
    ) -> _CurveDisplay:
        """The curve of one column of ``scores``/``labels`` (1-D: that ranking).

        The operating point is ``score >= threshold``; ``None`` takes the class's own
        F_beta-optimal cut. With DataFrame ``scores`` (or ``labels``) ``column`` may be a
        column name.
        """
        return cls._of(_curve_from_scores(scores, labels, column, threshold, beta, name))

    @classmethod
    def from_estimator(
        cls: type[_CurveDisplay],
        estimator: Any,
        X: Any,
        y: Any,
        *,
        column: Any = None,
        response_method: str = "auto",
        beta: float | None = None,
        name: str | None = None,
    ) -> _CurveDisplay:
        """The curve of one class of a fitted classifier's scores of ``X``, labels ``y``.

        Parameters
        ----------
        estimator
            A fitted scikit-learn classifier: binary or multiclass (``classes_``), or
            multi-label (2-D 0/1 ``y``; ``predict_proba``/``decision_function`` one
            column per label, or one array per label). For an
            :class:`~fmacro.optimize.sklearn.FMacroThresholdClassifier` the scores are
            those its thresholds apply to (its estimator's response) and the operating
            point is the cut ``score >= thresholds_[k]`` of the class's tuned threshold
            (reported, as every cut, by its lowest predicted score); for any other
            classifier it is the class's own F_beta-optimal cut, as in
            :meth:`from_scores`.
        X, y
            Samples and their labels (class labels, or a multi-label indicator whose
            DataFrame columns name the labels).
        column
            A class name (a label of ``classes_``, a column of a DataFrame ``y``) or a
            column index. ``None``: the positive class of a binary target
            (``pos_label_`` of a classifier tuned for F_beta, else ``classes_[1]``, as
            scikit-learn), else the first column.
        response_method
            ``"auto"`` (``predict_proba``, else ``decision_function``),
            ``"predict_proba"`` or ``"decision_function"``; only ``"auto"`` for an
            ``FMacroThresholdClassifier`` (its thresholds hold for its own scores).
        beta
            ``None``: the estimator's ``beta`` (``FMacroThresholdClassifier``), else 1.
        name
            The class's name in the figure (default: the class label).

        Examples
        --------
        >>> from sklearn.datasets import make_classification
        >>> from sklearn.linear_model import LogisticRegression
        >>> from fmacro.optimize.plot import PrecisionRecallDisplay
        >>> X, y = make_classification(n_samples=100, random_state=0)
        >>> clf = LogisticRegression().fit(X, y)
        >>> d = PrecisionRecallDisplay.from_estimator(clf, X, y)
        >>> d.class_name, d.estimator_name, 0.9 < d.average_precision <= 1.0
        ('1', 'LogisticRegression', True)
        """
        c = estimator_column(estimator, X, y, column, response_method, beta)
        curve = _curve_from_scores(
            c.scores, c.labels, 0, c.threshold, c.beta, c.name if name is None else name
        )
        return cls._of(attrs.evolve(curve, estimator_name=c.estimator_name))

    @classmethod
    def from_predictions(
        cls: type[_CurveDisplay],
        y_true: Any,
        y_score: Any,
        *,
        pos_label: Any = None,
        threshold: float | None = None,
        beta: float = 1.0,
        name: str | None = None,
    ) -> _CurveDisplay:
        """The curve of one ranking: binary labels ``y_true`` and scores ``y_score`` (1-D).

        As scikit-learn's ``from_predictions``: ``pos_label`` is the positive class
        (``None``: ``y_true`` must be 0/1, -1/1 or bool, and 1 is positive). The
        operating point is ``score >= threshold`` (``None``: the F_beta-optimal cut).
        For score matrices use :meth:`from_scores`.

        Examples
        --------
        >>> from fmacro.optimize.plot import PrecisionRecallDisplay
        >>> d = PrecisionRecallDisplay.from_predictions(
        ...     ["a", "b", "b", "a"], [0.1, 0.9, 0.35, 0.4], pos_label="b"
        ... )
        >>> d.class_name, round(d.average_precision, 4)
        ('b', 0.8333)
        """
        y_t = np.asarray(y_true.to_numpy() if hasattr(y_true, "to_numpy") else y_true)
        y_s = np.asarray(y_score.to_numpy() if hasattr(y_score, "to_numpy") else y_score)
        if y_t.ndim != 1 or y_s.ndim != 1:
            raise ValueError(
                "from_predictions takes one column: 1-D y_true and y_score (got shapes "
                f"{y_t.shape} and {y_s.shape}); for score matrices use from_scores"
            )
        if pos_label is None:
            values = set(np.unique(y_t).tolist())
            if not values <= {0, 1} and not values <= {-1, 1}:
                raise ValueError(
                    f"y_true takes the values {sorted(values, key=str)[:5]}; pass pos_label= "
                    "unless they are 0/1, -1/1 or bool"
                )
            pos_label = 1
        positive = y_t == pos_label
        label = str(pos_label.item() if isinstance(pos_label, np.generic) else pos_label)
        return cls._of(
            _curve_from_scores(y_s, positive, 0, threshold, beta, label if name is None else name)
        )


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
    average_precision : float
        Step-wise average precision of the curve, scikit-learn's definition
        (``sklearn.metrics.average_precision_score``): the sum over cuts of
        ``(R_n - R_{n-1}) P_n``; shown in the legend as ``(AP = 0.83)``.
    estimator_name : str or None
        The classifier's class name (:meth:`from_estimator`), shown in the legend.
    ax_, figure_
        Set by :meth:`plot`.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from fmacro.optimize.plot import PrecisionRecallDisplay
    >>> scores = pd.DataFrame({"cat": [0.9, 0.8, 0.3, 0.1], "dog": [0.2, 0.7, 0.6, 0.1]})
    >>> labels = pd.DataFrame({"cat": [1, 0, 1, 0], "dog": [0, 1, 1, 0]})
    >>> d = PrecisionRecallDisplay.from_scores(scores, labels, column="dog")
    >>> d.class_name, d.support, d.average_precision, d.operating_point
    ('dog', 2, 1.0, (1.0, 1.0, 0.6))
    """

    precision: NDArray[np.float64]
    recall: NDArray[np.float64]
    thresholds: NDArray[np.float64]
    chosen: int
    class_name: str
    beta: float
    support: int
    average_precision: float = math.nan
    estimator_name: str | None = None
    ax_: Any = None
    figure_: Any = None

    @property
    def operating_point(self) -> tuple[float, float, float]:
        """(recall, precision, threshold) of the chosen cut."""
        i = self.chosen
        return float(self.recall[i]), float(self.precision[i]), float(self.thresholds[i])

    @classmethod
    def _of(cls, c: _ClassCurve) -> PrecisionRecallDisplay:
        return cls(
            c.precision,
            c.recall,
            c.thresholds,
            c.chosen,
            c.name,
            c.beta,
            c.support,
            c.average_precision,
            c.estimator_name,
        )

    def plot(self, ax: Any = None, *, name: str | None = None) -> PrecisionRecallDisplay:
        """Draw the curve (a step per cut) and the operating point; returns the display.

        The curve's legend entry is ``name (AP = 0.83)``; ``name`` defaults to the class
        name, after the estimator's (``LogisticRegression: 1``) from :meth:`from_estimator`.
        """
        fig, ax = _figure_axes(ax, (6.0, 5.0))
        label = name or (
            f"{self.estimator_name}: {self.class_name}" if self.estimator_name else self.class_name
        )
        (line,) = ax.plot(
            self.recall[1:],
            self.precision[1:],
            drawstyle="steps-post",
            label=f"{label} (AP = {self.average_precision:.2f})",
        )
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
    estimator_name : str or None
        The classifier's class name (:meth:`from_estimator`).
    ax_, figure_
        Set by :meth:`plot`.

    Examples
    --------
    >>> from fmacro.optimize.plot import FThresholdDisplay
    >>> d = FThresholdDisplay.from_predictions([1, 0, 1, 0], [0.9, 0.8, 0.3, 0.1])
    >>> d.thresholds.tolist(), d.chosen_threshold, round(d.chosen_f, 4)
    ([0.9, 0.8, 0.3, 0.1], 0.3, 0.8)
    """

    thresholds: NDArray[np.float64]
    f: NDArray[np.float64]
    chosen_threshold: float
    chosen_f: float
    class_name: str
    beta: float
    estimator_name: str | None = None
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
            c.estimator_name,
        )

    def plot(self, ax: Any = None) -> FThresholdDisplay:
        """Draw F against the threshold and the chosen threshold; returns the display."""
        fig, ax = _figure_axes(ax, (6.5, 4.5))
        label = (
            f"{self.estimator_name}: {self.class_name}" if self.estimator_name else self.class_name
        )
        ax.plot(self.thresholds, self.f, drawstyle="steps-post", label=label)
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
