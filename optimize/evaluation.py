"""Scoring given thresholds on (held-out) data, with validation's definition of F-macro.

:func:`f_macro` and :func:`evaluate_thresholds` compute F_beta of the macro-averaged
precision and recall over the classes with at least one positive (all classes with
``empty_classes="include"``; their recall is then ``zero_division``), by the one
definition of :func:`fmacro.validation.measures.macro_from_counts`: under
``zero_division=nan`` a class that predicts nothing is left out of the precision
average (the 0/0 rule of the validations). The searches' own F (``ThresholdResult.f``)
is a plain mean in which such a class makes F NaN; they never pick such a cut, so on the
tuning rows both give the same F for the thresholds a search returns. Predictions are
``score >= threshold``; a sparse score matrix predicts only its stored entries (and
``-inf`` thresholds predict all).
"""

from __future__ import annotations

import math
from typing import Any

import attrs
import numpy as np
from numpy.typing import ArrayLike, NDArray

from fmacro.optimize._frames import check_frame_columns, common_columns
from fmacro.optimize.inputs import (
    LabelRows,
    check_empty_classes,
    kept_classes,
    label_rows,
    matching_shapes,
    scores_checked,
    sparse_hits,
)
from fmacro.optimize.rules import TopK, check_thresholds
from fmacro.optimize.search.result import ThresholdResult
from fmacro.validation.checks import check_beta, check_zero_division, is_sparse
from fmacro.validation.counts import frozen_array
from fmacro.validation.dispatch import kernel
from fmacro.validation.measures import (
    f_beta_from_counts,
    macro_from_counts,
    mean_defined,
    precision,
    recall,
)
from fmacro.validation.names import ClassName, check_class_names, names_to_json
from fmacro.validation.values import read_only_copies

__all__ = ["MacroEvaluation", "evaluate_thresholds", "f_macro"]


def _optional_thresholds(values: Any) -> NDArray[np.float64] | None:
    return None if values is None else frozen_array(values, np.float64)


def _optional_size(value: Any) -> int | float | None:
    """``n_samples``: an int (objects), a float (their total weight), or ``None``."""
    if value is None:
        return None
    return float(value) if isinstance(value, (float, np.floating)) else int(value)


@read_only_copies
@attrs.frozen(eq=False)
class MacroEvaluation:
    """F-macro of given thresholds on some data, with the per-class details.

    Attributes
    ----------
    f, precision, recall
        F_beta(P, R), macro precision P and macro recall R over ``class_index``.
    class_index
        Columns averaged (those with positives, or all with ``empty_classes="include"``).
    tp, fp, support
        Per-column counts (all columns) of the predictions ``score >= threshold``.
    class_precision, class_recall, class_f
        Per-column measures (all columns; 0/0 -> ``zero_division``).
    beta, zero_division
        Settings used.
    thresholds
        The thresholds evaluated, one per column (``None`` when not given).
    n_samples
        Number of objects evaluated (their total weight when weighted; ``None`` when not
        given).
    classes
        Column names, by :mod:`fmacro.validation.names` (kinds kept): the evaluated
        result's :attr:`~fmacro.optimize.ThresholdResult.classes`, else the columns of
        DataFrame scores or labels; ``None`` when unknown (rows are then numbered).
    """

    f: float
    precision: float
    recall: float
    class_index: NDArray[np.int64] = attrs.field(repr=False, converter=frozen_array)
    tp: NDArray[np.int64] = attrs.field(repr=False, converter=frozen_array)
    fp: NDArray[np.int64] = attrs.field(repr=False, converter=frozen_array)
    support: NDArray[np.int64] = attrs.field(repr=False, converter=frozen_array)
    class_precision: NDArray[np.float64] = attrs.field(repr=False, converter=frozen_array)
    class_recall: NDArray[np.float64] = attrs.field(repr=False, converter=frozen_array)
    class_f: NDArray[np.float64] = attrs.field(repr=False, converter=frozen_array)
    beta: float
    zero_division: float
    thresholds: NDArray[np.float64] | None = attrs.field(
        default=None, repr=False, converter=_optional_thresholds
    )
    n_samples: int | float | None = attrs.field(default=None, converter=_optional_size)
    classes: tuple[ClassName, ...] | None = attrs.field(
        default=None, repr=False, converter=check_class_names
    )

    @property
    def macro_f(self) -> float:
        """Mean of per-class F over ``class_index`` (macro-F, not F-macro)."""
        return mean_defined(self.class_f[self.class_index])

    @property
    def micro_f(self) -> float:
        """F_beta of the counts pooled over every column (micro-F; 0/0 -> ``zero_division``)."""
        tp, fp, fn = self.tp.sum(), self.fp.sum(), (self.support - self.tp).sum()
        return float(f_beta_from_counts(tp, fp, fn, self.beta, self.zero_division))

    @property
    def predicted(self) -> NDArray[Any]:
        """Predicted objects per column: ``tp + fp`` (their weight when weighted)."""
        return self.tp + self.fp

    @property
    def labels_per_object(self) -> float:
        """Mean number of labels predicted per object (every column); NaN without
        ``n_samples`` or objects."""
        if not self.n_samples:
            return math.nan
        return float(self.predicted.sum() / self.n_samples)

    @property
    def true_labels_per_object(self) -> float:
        """Mean number of true labels per object; NaN without ``n_samples`` or objects."""
        if not self.n_samples:
            return math.nan
        return float(self.support.sum() / self.n_samples)

    def _rows(self) -> dict[str, NDArray[Any]]:
        """The per-column values of :meth:`to_pandas` and :meth:`to_dict`, in order."""
        n_cols = self.tp.shape[0]
        kept = np.zeros(n_cols, dtype=bool)
        kept[self.class_index] = True
        thresholds = np.full(n_cols, np.nan) if self.thresholds is None else self.thresholds
        with np.errstate(divide="ignore", invalid="ignore"):
            rate = self.predicted / self.n_samples if self.n_samples else np.full(n_cols, np.nan)
        return {
            "threshold": np.asarray(thresholds, dtype=np.float64),
            "kept": kept,
            "precision": self.class_precision,
            "recall": self.class_recall,
            "f": self.class_f,
            "support": self.support,
            "tp": self.tp,
            "fp": self.fp,
            "predicted": self.predicted,
            "predicted_rate": np.asarray(rate, dtype=np.float64),
        }

    def to_pandas(self) -> Any:
        """A DataFrame: one row per class column, then ``macro avg`` and ``F-macro`` (needs
        pandas).

        Class rows are named by :attr:`classes` (kinds kept), else numbered. Columns:
        ``threshold``, ``kept`` (averaged in P and R: :attr:`class_index`), ``precision``,
        ``recall``, ``f`` (per class; float, undefined = NaN), ``support``, ``tp``, ``fp``,
        ``predicted`` (``tp + fp``; nullable integers, nullable floats when weighted) and
        ``predicted_rate`` (``predicted / n_samples``). The ``macro avg`` row holds the
        means of the kept classes' precision, recall and F (its ``f`` is
        :attr:`macro_f`); the ``F-macro`` row macro P, macro R and F of the two
        (:attr:`precision`, :attr:`recall`, :attr:`f`). The average rows have no counts.
        """
        import pandas as pd

        rows = self._rows()
        n_cols = self.tp.shape[0]
        names: list[Any] = list(self.classes) if self.classes is not None else list(range(n_cols))
        index = pd.Index([*names, "macro avg", "F-macro"], dtype=object)
        kept = self.class_index
        averages = {
            "precision": [mean_defined(self.class_precision[kept]), self.precision],
            "recall": [mean_defined(self.class_recall[kept]), self.recall],
            "f": [self.macro_f, self.f],
        }
        count_dtype = "Float64" if self.tp.dtype.kind == "f" else "Int64"
        frame = pd.DataFrame(index=index)
        for name, values in rows.items():
            if name in ("support", "tp", "fp", "predicted"):
                frame[name] = pd.array([*values.tolist(), pd.NA, pd.NA], dtype=count_dtype)
            elif name == "kept":
                frame[name] = pd.array([*values.tolist(), pd.NA, pd.NA], dtype="boolean")
            else:
                tail = averages.get(name, [math.nan, math.nan])
                frame[name] = np.array([*values.tolist(), *tail], dtype=np.float64)
        return frame

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict of the evaluation (``json.dumps(..., allow_nan=False)`` works).

        Fields: ``beta``; ``zero_division`` (``0.0``, ``1.0`` or the string ``"nan"``, the
        policy); ``n_samples`` and ``weighted`` (counts are sums of weights);
        ``classes`` (:func:`~fmacro.validation.names.names_to_json`: names keep their
        kind; ``null`` when unknown); ``f``, ``precision``, ``recall`` (F-macro and its
        macro P and R), ``macro_f``, ``labels_per_object``, ``true_labels_per_object``;
        ``class_index``; and ``per_class``, one object per column with ``class`` (its
        name, or its position when the names are unknown) and the columns of
        :meth:`to_pandas`. An undefined value (NaN) is ``null``; a threshold of ``+-inf``
        is the string ``"inf"`` or ``"-inf"``, as in a thresholds record.
        """
        rows = self._rows()
        n_cols = self.tp.shape[0]
        names: list[Any] = (
            names_to_json(self.classes) if self.classes is not None else list(range(n_cols))
        )
        per_class = []
        for j, name in enumerate(names):
            row: dict[str, Any] = {"class": name}
            for key, values in rows.items():
                value = values[j].item()
                if key == "threshold" and isinstance(value, float) and math.isinf(value):
                    row[key] = "inf" if value > 0 else "-inf"
                else:
                    row[key] = _json_number(value)
            per_class.append(row)
        zd = self.zero_division
        return {
            "beta": self.beta,
            "zero_division": "nan" if math.isnan(zd) else zd,
            "n_samples": self.n_samples,
            "weighted": bool(self.tp.dtype.kind == "f"),
            "classes": None if self.classes is None else names_to_json(self.classes),
            "f": _json_number(self.f),
            "precision": _json_number(self.precision),
            "recall": _json_number(self.recall),
            "macro_f": _json_number(self.macro_f),
            "labels_per_object": _json_number(self.labels_per_object),
            "true_labels_per_object": _json_number(self.true_labels_per_object),
            "class_index": self.class_index.tolist(),
            "per_class": per_class,
        }


def _json_number(value: Any) -> Any:
    """A JSON value of a number: NaN (undefined) is ``None``; bools and ints as they are."""
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _evaluated_names(
    scores: Any, labels: Any, thresholds: Any
) -> tuple[ClassName, ...] | list[ClassName] | None:
    """The column names of an evaluation: the result's classes, else a DataFrame's columns."""
    if isinstance(thresholds, ThresholdResult) and thresholds.classes is not None:
        return thresholds.classes
    return common_columns(scores, labels)


def predicted_counts(
    s: Any, y: LabelRows, thr: NDArray[np.float64]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    n, m = s.shape
    if is_sparse(s):
        _, col_hit, is_pos = sparse_hits(s, y, thr)
        tp = np.bincount(col_hit[is_pos], minlength=m).astype(np.int64)
        npred = np.bincount(col_hit, minlength=m).astype(np.int64)
        sizes = np.bincount(y.indices, minlength=m).astype(np.int64)
        allc = np.isneginf(thr)
        tp[allc] = sizes[allc]
        npred[allc] = n
        return tp, npred - tp
    pred = s >= thr[None, :]
    yd = y.to_dense((n, m))
    tp = np.count_nonzero(pred & yd, axis=0).astype(np.int64)
    fp = np.count_nonzero(pred & ~yd, axis=0).astype(np.int64)
    return tp, fp


@kernel(cache=True, nogil=True)
def row_threshold_counts(
    scores: NDArray[np.floating],
    score_rows: NDArray[np.int64],
    labels: NDArray[np.bool_],
    label_rows: NDArray[np.int64],
    columns: NDArray[np.int64],
    thresholds: NDArray[np.float64],
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(tp, fp) of ``score >= threshold`` in ``columns``, for several threshold vectors.

    Object ``t`` is row ``score_rows[t]`` of the dense ``scores`` and row
    ``label_rows[t]`` of the bool ``labels`` (a subset is counted without copying it);
    ``thresholds`` has one row per threshold vector and one column per entry of
    ``columns``. Returns arrays shaped like ``thresholds``. Reads row by row (fastest on
    row-major arrays); counts without branches, a column's threshold vectors side by
    side (a held-out half of the bundled rankings at the five grid values of
    ``tune(prior="cv")``: 0.44 -> 0.23 ms; its columns with a positive only: 0.13 ms).
    """
    n_sets, n_cols = thresholds.shape
    by_column = np.ascontiguousarray(thresholds.T)
    hits = np.zeros((n_cols, n_sets), dtype=np.int64)
    positive_hits = np.zeros((n_cols, n_sets), dtype=np.int64)
    for t in range(score_rows.size):
        i = score_rows[t]
        li = label_rows[t]
        for k in range(n_cols):
            j = columns[k]
            v = scores[i, j]
            positive = np.int64(labels[li, j])
            for g in range(n_sets):
                hit = np.int64(v >= by_column[k, g])
                hits[k, g] += hit
                positive_hits[k, g] += hit & positive
    tp = np.ascontiguousarray(positive_hits.T)
    fp = np.ascontiguousarray((hits - positive_hits).T)
    return tp, fp


def evaluate_thresholds(
    scores: Any,
    labels: Any,
    thresholds: ThresholdResult | ArrayLike,
    *,
    beta: float = 1.0,
    zero_division: float = 0.0,
    empty_classes: str = "exclude",
    sample_weight: Any = None,
) -> MacroEvaluation:
    """Score thresholds on (held-out) data: F-macro, P, R and per-class counts.

    Parameters
    ----------
    scores
        Dense ``(N, n)`` scores, or sparse with retrieved entries only (a missing
        entry is predicted only by a ``-inf`` threshold).
    labels
        ``(N, n)`` 0/1 indicator, dense or sparse.
    thresholds
        One real number per column (positive iff ``score >= threshold``; ``+inf`` never,
        ``-inf`` always; NaN, booleans and strings are refused), or a
        :class:`ThresholdResult` (its ``thresholds``; when it has class names, DataFrame
        ``scores`` and ``labels`` must have them as their columns, in order, by the
        class-name rule of :mod:`fmacro.validation.names`).
    beta, zero_division
        F_beta weight (> 0) and the 0/0 value (0.0, 1.0 or nan; with nan, classes
        predicting nothing are left out of the precision average).
    empty_classes
        ``"exclude"`` (default): average over classes with a positive in ``labels``;
        ``"include"``: over all classes (recall of an empty class = zero_division).
    sample_weight
        One non-negative weight per object (row), or ``None``: an object counts its
        weight in tp, fp and the class sizes, which become float64 sums of weights
        (``tp``, ``fp``, ``support`` of the result), scored by the same rule
        (:func:`fmacro.validation.measures.macro_from_counts`). A class is averaged when
        its positives have a non-zero weight. Checked by
        :func:`fmacro.validation.weights.check_sample_weight`; integer weights give the
        result of the rows repeated that many times.

    Returns
    -------
    MacroEvaluation
    """
    # imported here: this module's top is shared with the result classes' work
    from fmacro.optimize._weighted import weighted_class_sizes, weighted_predicted_counts
    from fmacro.validation.weights import check_sample_weight

    b = check_beta(beta)
    zd = check_zero_division(zero_division)
    check_empty_classes(empty_classes, zd)
    n_rows, m = matching_shapes(scores, labels)
    common_columns(scores, labels)
    weights = check_sample_weight(sample_weight, n_rows)
    if isinstance(thresholds, ThresholdResult):
        if isinstance(thresholds.rule, TopK):
            raise ValueError(
                "thresholds comes from top_k, which has no per-class thresholds; "
                "predict with result.apply(scores) (each object's top result.rule.k classes)"
            )
        check_frame_columns(scores, thresholds.classes, "scores")
        check_frame_columns(labels, thresholds.classes, "labels")
        values: Any = thresholds.thresholds
    else:
        values = thresholds
    # real numbers or +-inf, one per column: no NaN (never predicted), no bools, no text
    thr = check_thresholds(values, "thresholds", n_columns=m)
    s = scores_checked(scores)
    y = label_rows(labels)
    counts: Any  # int64 counts, or float64 sums of weights
    sizes: NDArray[Any]
    tp: NDArray[Any]
    fp: NDArray[Any]
    if weights is None:
        counts = np.int64
        sizes = np.bincount(y.indices, minlength=m).astype(np.int64)
        kept = kept_classes(sizes, empty_classes)
        tp, fp = predicted_counts(s, y, thr)
    else:
        counts = np.float64
        sizes = weighted_class_sizes(y, weights, m)
        kept = kept_classes(sizes, empty_classes)
        tp, fp = weighted_predicted_counts(s, y, thr, weights)
    p, r, f = (float(x) for x in macro_from_counts(tp[kept], fp[kept], sizes[kept], b, zd))
    class_p = np.asarray(precision(tp, fp, zd), dtype=np.float64)
    class_r = np.asarray(recall(tp, sizes - tp, zd), dtype=np.float64)
    class_f = np.asarray(f_beta_from_counts(tp, fp, sizes - tp, b, zd), dtype=np.float64)
    return MacroEvaluation(
        f=f,
        precision=p,
        recall=r,
        class_index=frozen_array(kept, np.int64),
        tp=frozen_array(tp, counts),
        fp=frozen_array(fp, counts),
        support=frozen_array(sizes, counts),
        class_precision=frozen_array(class_p, np.float64),
        class_recall=frozen_array(class_r, np.float64),
        class_f=frozen_array(class_f, np.float64),
        beta=b,
        zero_division=zd,
        thresholds=thr,
        n_samples=n_rows if weights is None else float(np.sum(weights)),
        classes=_evaluated_names(scores, labels, thresholds),
    )


def f_macro(
    scores: Any,
    labels: Any,
    thresholds: ThresholdResult | ArrayLike,
    *,
    beta: float = 1.0,
    zero_division: float = 0.0,
    empty_classes: str = "exclude",
    sample_weight: Any = None,
) -> float:
    """F-macro = F_beta(macro P, macro R) of ``score >= thresholds`` on (held-out) data.

    See :func:`evaluate_thresholds` for the parameters (``sample_weight`` included) and
    conventions.

    Examples
    --------
    >>> import numpy as np
    >>> S = np.array([[0.9, 0.2], [0.4, 0.8], [0.1, 0.3]])
    >>> Y = np.array([[1, 0], [1, 1], [0, 0]])
    >>> f_macro(S, Y, [0.4, 0.5])  # class 0: p=1, r=1; class 1: p=1, r=1
    1.0

    At threshold 0.1 class 0 predicts all three objects: p = 2/3, or (1 + 3)/5 when the
    second object weighs 3 (class 1 stays at p = r = 1):

    >>> w = [1, 3, 1]
    >>> round(f_macro(S, Y, [0.1, 0.5]), 4), round(f_macro(S, Y, [0.1, 0.5], sample_weight=w), 4)
    (0.9091, 0.9474)
    """
    return evaluate_thresholds(
        scores,
        labels,
        thresholds,
        beta=beta,
        zero_division=zero_division,
        empty_classes=empty_classes,
        sample_weight=sample_weight,
    ).f
