"""A multi-label confusion grid: one 2x2 confusion matrix per label, in scikit-learn's layout.

:class:`MultilabelConfusionDisplay` holds, for each drawn label, the matrix
``[[TN, FP], [FN, TP]]`` of its one-vs-rest counts (rows expected, columns predicted;
the layout of ``sklearn.metrics.multilabel_confusion_matrix``) and draws them as a grid of
small heat maps titled with the label names. With hundreds of labels only the first
``max_labels`` (16 by default) are drawn unless others are asked for by name.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.plot._columns import column_index
from fmacro.optimize.plot._common import _check_int, _pyplot, _ro

__all__ = ["MultilabelConfusionDisplay"]


@attrs.frozen(eq=False)
class MultilabelConfusionDisplay:
    """One small confusion matrix per label of a multi-label validation, in a grid.

    Attributes
    ----------
    matrices : ndarray, shape (n_shown, 2, 2)
        ``[[TN, FP], [FN, TP]]`` of each drawn label (rows expected 0/1, columns
        predicted 0/1), as ``sklearn.metrics.multilabel_confusion_matrix``; counts, or
        sums of weights for a weighted validation; read-only.
    labels : tuple of str
        Names of the drawn labels, in the order drawn.
    indices : tuple of int
        Their column positions in the validation.
    n_labels : int
        Number of labels of the validation (drawn or not).
    ncols : int
        Axes per row of the grid.
    ax_ : ndarray of Axes, figure_
        Set by :meth:`plot` (``ax_`` holds every axes of the grid, unused ones hidden).

    Examples
    --------
    >>> import numpy as np
    >>> from fmacro.optimize.plot import MultilabelConfusionDisplay
    >>> Y = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0]])
    >>> P = np.array([[1, 0, 0], [0, 1, 1], [0, 1, 0]])
    >>> d = MultilabelConfusionDisplay.from_predictions(Y, P)
    >>> d.matrices[0].tolist(), d.labels
    ([[1, 0], [1, 1]], ('0', '1', '2'))
    """

    matrices: NDArray[Any]
    labels: tuple[str, ...]
    indices: tuple[int, ...]
    n_labels: int
    ncols: int
    ax_: Any = None
    figure_: Any = None

    @classmethod
    def from_validation(
        cls,
        validation: Any,
        labels: Sequence[Any] | None = None,
        *,
        max_labels: int = 16,
        ncols: int = 4,
    ) -> MultilabelConfusionDisplay:
        """From a :class:`~fmacro.validation.MultiLabelFValidation` (its ``class_counts``).

        Parameters
        ----------
        validation
            A multi-label validation.
        labels
            Labels to draw, by name (``validation.labels``) or index, by the rule of the
            curve displays' ``column=`` (an int is a name when some label name is an int).
            ``None``: the first ``max_labels`` labels.
        max_labels
            The most labels drawn (each is an axes): ``labels=None`` draws the first
            ``max_labels``; asking for more raises ``ValueError``.
        ncols
            Axes per row of the grid.
        """
        counts = getattr(validation, "class_counts", None)
        if getattr(validation, "kind", None) != "multilabel" or counts is None:
            raise TypeError(
                f"validation must be a MultiLabelFValidation, got {type(validation).__name__}"
            )
        cap = _check_int(max_labels, "max_labels", 1)
        cols = _check_int(ncols, "ncols", 1)
        n = int(counts.tp.size)
        names = None if validation.labels is None else list(validation.labels)
        if labels is None:
            picked = list(range(min(n, cap)))
        else:
            if isinstance(labels, (str, bytes)):
                raise TypeError("labels must be a sequence of label names or indices")
            asked = labels.tolist() if hasattr(labels, "tolist") else list(labels)
            picked = [column_index(c, names, n, "the validation") for c in asked]
            if len(picked) > cap:
                raise ValueError(
                    f"labels asks for {len(picked)} labels, more than max_labels={cap} "
                    "axes; raise max_labels to draw them all"
                )
        idx = np.asarray(picked, dtype=np.intp)
        tp, fp = np.asarray(counts.tp)[idx], np.asarray(counts.fp)[idx]
        fn, tn = np.asarray(counts.fn)[idx], np.asarray(counts.tn)[idx]
        matrices = np.stack([np.stack([tn, fp], -1), np.stack([fn, tp], -1)], 1)
        shown = tuple(str(names[k]) if names is not None else str(k) for k in picked)
        dtype = np.float64 if counts.weighted else np.int64
        return cls(_ro(matrices, dtype), shown, tuple(picked), n, cols)

    @classmethod
    def from_predictions(
        cls,
        y_true: Any,
        y_pred: Any,
        *,
        labels: Sequence[Any] | None = None,
        sample_weight: Any = None,
        max_labels: int = 16,
        ncols: int = 4,
    ) -> MultilabelConfusionDisplay:
        """From (N, L) 0/1 indicator matrices (numpy, pandas, sparse; DataFrame columns
        name the labels): :meth:`from_validation` of
        ``MultiLabelFValidation.from_predictions(y_true, y_pred, sample_weight=...)``."""
        from fmacro.validation import MultiLabelFValidation

        v = MultiLabelFValidation.from_predictions(y_true, y_pred, sample_weight=sample_weight)
        return cls.from_validation(v, labels, max_labels=max_labels, ncols=ncols)

    def plot(self, *, cmap: str = "Blues") -> MultilabelConfusionDisplay:
        """Draw one 2x2 heat map per label, in a new figure; returns the display."""
        plt = _pyplot()
        k = len(self.labels)
        ncols = max(1, min(self.ncols, k))
        nrows = max(1, math.ceil(k / ncols))
        fig, axes = plt.subplots(
            nrows, ncols, figsize=(2.6 * ncols + 0.4, 2.5 * nrows + 0.6), squeeze=False
        )
        flat = axes.reshape(-1)
        for ax, label, m in zip(flat, self.labels, self.matrices, strict=False):
            high = float(m.max()) if m.size else 0.0
            ax.imshow(m, cmap=cmap, vmin=0.0, vmax=max(high, 1e-12))
            for i in range(2):
                for j in range(2):
                    v = float(m[i, j])
                    text = f"{round(v)}" if m.dtype.kind in "iu" else f"{v:.3g}"
                    color = "white" if high > 0 and v > 0.6 * high else "black"
                    ax.text(j, i, text, ha="center", va="center", color=color, fontsize="small")
            ax.set_xticks([0, 1], ["0", "1"])
            ax.set_yticks([0, 1], ["0", "1"])
            ax.set_title(label, fontsize="small")
        for ax in flat[k:]:
            ax.set_axis_off()
        for ax in axes[:, 0]:
            ax.set_ylabel("expected")
        for ax in axes[-1, :]:
            ax.set_xlabel("predicted")
        more = "" if k == self.n_labels else f", {k} of {self.n_labels} labels"
        fig.suptitle(f"Confusion matrix of each label (rows expected, columns predicted{more})")
        fig.tight_layout()
        return attrs.evolve(self, ax_=axes, figure_=fig)
