"""Multiclass (single-label) validation built on a confusion matrix."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from functools import cached_property
from typing import Any, cast

import attrs
import numpy as np
import toolz
from numpy.typing import NDArray

from fmacro.validation import _kernels, measures
from fmacro.validation.averages import ClassAverages
from fmacro.validation.base import ValidationBase
from fmacro.validation.bootstrap import ClassOutcomes, join_outcomes
from fmacro.validation.checks import (
    as_label_vector,
    check_beta,
    check_same_length,
    check_zero_division,
    is_sparse,
)
from fmacro.validation.counts import ClassCounts, ConfusionMatrix, sum_start
from fmacro.validation.frames import categorical_classes
from fmacro.validation.plumbing import (
    check_jitted_label_type,
    collect_predictions,
    fast_labels,
    is_numba_function,
    jitted_inputs,
    observations_array,
)
from fmacro.validation.report import format_table, same_settings
from fmacro.validation.sparse_confusion import (
    SparseConfusionMatrix,
    count_pairs,
    prefer_sparse,
)
from fmacro.validation.values import read_only_copies, value_key
from fmacro.validation.weights import check_sample_weight, weighted_confusion

__all__ = ["MultiFValidation", "resolve_classes"]

ClassesArg = int | Sequence[Hashable] | np.ndarray | None


def resolve_classes(classes: ClassesArg) -> tuple[tuple[Hashable, ...], bool]:
    """Return ``(labels, identity)``; ``identity`` means label ``i`` is class index ``i``."""
    if isinstance(classes, (int, np.integer)) and not isinstance(classes, bool):
        if classes < 1:
            raise ValueError(f"classes must be >= 1 (number of classes), got {classes}")
        return tuple(range(int(classes))), True
    if classes is None or isinstance(classes, (str, bytes)) or not hasattr(classes, "__len__"):
        raise TypeError(
            "classes must be a number of classes or a sequence of class labels, "
            f"got {type(classes).__name__}"
        )
    labels: tuple[Hashable, ...] = (
        tuple(np.asarray(classes).tolist()) if isinstance(classes, np.ndarray) else tuple(classes)  # type: ignore[arg-type]
    )
    if not labels:
        raise ValueError("classes is empty; at least one class is needed")
    if len(set(labels)) != len(labels):
        raise ValueError(f"classes has duplicate labels: {labels[:10]}")
    identity = all(
        isinstance(c, (int, np.integer)) and not isinstance(c, bool) and c == i
        for i, c in enumerate(labels)
    )
    return labels, identity


def _codes(x: Any, name: str, labels: tuple[Hashable, ...], identity: bool) -> Any:
    if identity:
        return fast_labels(x, name, n_classes=len(labels))
    return as_label_vector(x, name, classes=labels)


def _count(
    expected: Any,
    predicted: Any,
    labels: tuple[Hashable, ...],
    identity: bool,
    *,
    n: int | None = None,
    sample_weight: Any = None,
    keep_outcomes: bool = False,
) -> tuple[ConfusionMatrix | SparseConfusionMatrix, ClassOutcomes | None]:
    """Confusion matrix of two label vectors; ``n`` is their length if already checked.

    With ``sample_weight`` each observation adds its weight (a float matrix). When the
    dense k x k table would be large and mostly empty, only the occurring cells are
    counted (:class:`SparseConfusionMatrix`, memory O(n + k)). Also returns each
    object's (expected, predicted) class codes (for ``bootstrap``).
    """
    _refuse_sparse(expected, predicted)
    if n is None:
        n = check_same_length(expected=expected, predicted=predicted)
    weights = check_sample_weight(sample_weight, n)
    e = _codes(expected, "expected", labels, identity)
    p = _codes(predicted, "predicted", labels, identity)
    k = len(labels)
    outcomes = ClassOutcomes(e, p, k, weights) if keep_outcomes else None
    sparse = prefer_sparse(k, n)
    if sparse or weights is not None:
        if e.size and (min(e.min(), p.min()) < 0 or max(e.max(), p.max()) >= k):
            _refuse_outside(e, p, k)
        if sparse:
            return count_pairs(e, p, k, weights), outcomes
        assert weights is not None
        return ConfusionMatrix(weighted_confusion(e, p, k, weights)), outcomes
    matrix, n_bad = _kernels.confusion_counts(e, p, k)
    if n_bad:
        _refuse_outside(e, p, k)
    return ConfusionMatrix(matrix), outcomes


def _refuse_outside(e: NDArray[Any], p: NDArray[Any], k: int) -> None:
    """Raise for the first of ``e``/``p`` holding class codes outside ``0..k-1``."""
    for name, codes in (("expected", e), ("predicted", p)):
        bad = (codes < 0) | (codes >= k)
        if bad.any():
            raise ValueError(
                f"{name} has label(s) outside the declared classes 0..{k - 1}: "
                f"{np.unique(codes[bad])[:5].tolist()}"
            )


def _refuse_sparse(expected: Any, predicted: Any) -> None:
    for name, x in (("expected", expected), ("predicted", predicted)):
        if is_sparse(x):
            raise TypeError(
                f"{name} must be a 1-D sequence of labels, got a scipy sparse matrix; "
                "for (samples, labels) indicator matrices use MultiLabelFValidation"
            )


def _infer_classes(expected: Any, predicted: Any) -> tuple[Hashable, ...]:
    """Sorted distinct labels of two label vectors whose lengths the caller checked."""
    _refuse_sparse(expected, predicted)
    from fmacro.validation.labels import coerce_label_pair

    # The one label rule: mixed str/int, NaN and (1, n) rows are refused, never merged.
    e, p = coerce_label_pair(expected, predicted)
    try:
        # Distinct values of each (np.unique in C for numpy dtypes), merged as Python values:
        # exact for every integer width (no float64 common dtype of int64 and uint64).
        return tuple(sorted(_distinct(e) | _distinct(p)))
    except TypeError:
        # Hashable objects numpy cannot sort: keep first-seen order.
        return tuple(dict.fromkeys([*e.tolist(), *p.tolist()]))


def _distinct(labels: Any) -> set[Any]:
    return set((np.unique(labels) if labels.dtype != object else labels).tolist())


@read_only_copies
@attrs.frozen(init=False)
class MultiFValidation(ClassAverages, ValidationBase):
    """F-validation of a single-label multiclass classifier.

    Counts a confusion matrix once (**rows = expected class, columns = predicted class**)
    and derives per-class and averaged measures lazily. ``score`` is F-macro, the F_beta
    of macro precision and macro recall (see :mod:`validation.averages`).

    Parameters
    ----------
    expected
        Expected labels, one per observation.
    observations
        The observations ``predict`` is applied to (array, list, pandas object, sparse
        matrix). ``predict`` receives row ``i`` by position: a numpy row (a pandas
        DataFrame is converted with ``to_numpy()``, so ``row[j]`` is the j-th column, not
        a column label), a 1-row CSR matrix for sparse input, or a list item;
        ``crossval.vectorized`` hands over the same rows.
    classes
        The number of classes ``k`` (labels are the integers ``0..k-1``) or the sequence
        of class labels (any hashable values; each label's position is its class index).
    predict
        ``observation -> label``; with ``batched=True`` ``observations -> labels``; a numba
        ``@njit`` function runs inside the compiled counting loop.
    beta, zero_division, batched, sample_weight, keep_outcomes
        As in :class:`validation.BinFValidation` (``keep_outcomes``: the (expected,
        predicted) class codes, 8 bytes per observation, 16 with weights).

    Examples
    --------
    >>> m = MultiFValidation.from_predictions([0, 0, 1, 2], [0, 1, 1, 2], classes=3)
    >>> m.confusion.matrix.tolist()
    [[1, 1, 0], [0, 1, 0], [0, 0, 1]]
    >>> round(m.macro_precision, 4), round(m.macro_recall, 4), m.accuracy
    (0.8333, 0.8333, 0.75)
    """

    kind = "multiclass"

    confusion: ConfusionMatrix | SparseConfusionMatrix
    classes: tuple[Hashable, ...] = attrs.field(eq=value_key)
    beta: float = 1.0
    zero_division: float = attrs.field(default=0.0, eq=value_key)
    outcomes: ClassOutcomes | None = attrs.field(default=None, eq=False, repr=False)
    """Each object's (expected, predicted) class codes, in order (for :meth:`bootstrap`);
    ``None`` for a validation built from a confusion matrix or by a numba-jitted
    ``predict``. Not part of ``==`` and ``hash``."""

    def __init__(
        self,
        expected: Any,
        observations: Any,
        classes: ClassesArg,
        predict: Callable[..., Any] | None = None,
        *,
        beta: float = 1.0,
        zero_division: float = 0.0,
        batched: bool = False,
        sample_weight: Any = None,
        keep_outcomes: bool = False,
    ) -> None:
        if predict is None:
            raise TypeError(
                "MultiFValidation(expected, observations, classes, predict) needs classes "
                "before predict: the number of classes k (labels 0..k-1) or the list of "
                "labels, e.g. MultiFValidation(y, X, 3, predict)"
                + (" (the third argument is a function)" if callable(classes) else "")
            )
        beta = check_beta(beta)
        zero_division = check_zero_division(zero_division)
        labels, identity = resolve_classes(classes)
        confusion: ConfusionMatrix | SparseConfusionMatrix
        outcomes = None
        if is_numba_function(predict) and not batched and sample_weight is None:
            if not identity:
                raise TypeError(
                    "a numba-jitted predict needs integer classes 0..k-1 (pass classes=k)"
                )
            confusion = _count_with_jitted(predict, expected, observations, len(labels))
        else:
            n = check_same_length(expected=expected, observations=observations_array(observations))
            predicted = collect_predictions(
                predict, observations, n, batched=batched, integer_labels=identity
            )
            confusion, outcomes = _count(
                expected,
                predicted,
                labels,
                identity,
                n=n,
                sample_weight=sample_weight,
                keep_outcomes=keep_outcomes,
            )
        self.__attrs_init__(confusion, labels, beta, zero_division, outcomes)

    @classmethod
    def from_predictions(
        cls,
        expected: Any,
        predicted: Any,
        classes: ClassesArg = None,
        *,
        beta: float = 1.0,
        zero_division: float = 0.0,
        sample_weight: Any = None,
        keep_outcomes: bool = False,
    ) -> MultiFValidation:
        """Validation of given predictions.

        ``classes=None`` takes the categories of pandas categorical labels (in category
        order, including categories that never occur), else the sorted distinct labels of
        ``expected`` and ``predicted``; pass ``classes`` to include classes that never
        occur or to fix the order. ``sample_weight``: one non-negative weight per
        observation (float counts).
        ``keep_outcomes=True``: also keep each object's outcome, for :meth:`bootstrap`
        (default ``False``: the counts only, faster; such a validation cannot be
        bootstrapped).

        Examples
        --------
        >>> v = MultiFValidation.from_predictions([0, 1, 2], [0, 2, 2], sample_weight=[1, 3, 1])
        >>> v.confusion.matrix.tolist()
        [[1.0, 0.0, 0.0], [0.0, 0.0, 3.0], [0.0, 0.0, 1.0]]
        >>> round(v.micro_f, 4), v.accuracy
        (0.4, 0.4)
        """
        n = None
        if classes is None:
            classes = categorical_classes(expected, predicted)
        if classes is None:
            n = check_same_length(expected=expected, predicted=predicted)
            labels, identity = resolve_classes(_infer_classes(expected, predicted))
        else:
            labels, identity = resolve_classes(classes)
        confusion, outcomes = _count(
            expected,
            predicted,
            labels,
            identity,
            n=n,
            sample_weight=sample_weight,
            keep_outcomes=keep_outcomes,
        )
        obj = cls.from_confusion(confusion, labels, beta=beta, zero_division=zero_division)
        object.__setattr__(obj, "outcomes", outcomes)
        return obj

    @classmethod
    def from_confusion(
        cls,
        confusion: ConfusionMatrix | Any,
        classes: ClassesArg = None,
        *,
        beta: float = 1.0,
        zero_division: float = 0.0,
    ) -> MultiFValidation:
        """Validation of a confusion matrix (rows = expected, columns = predicted).

        ``confusion`` is a ``ConfusionMatrix``, a ``SparseConfusionMatrix`` or a square
        array of counts.
        """
        if not isinstance(confusion, (ConfusionMatrix, SparseConfusionMatrix)):
            confusion = ConfusionMatrix(confusion)
        labels, _ = resolve_classes(confusion.n_classes if classes is None else classes)
        if len(labels) != confusion.n_classes:
            raise ValueError(
                f"classes has {len(labels)} labels but the confusion matrix has "
                f"{confusion.n_classes} classes"
            )
        obj = cls.__new__(cls)
        obj.__attrs_init__(confusion, labels, check_beta(beta), check_zero_division(zero_division))
        return obj

    @classmethod
    def using(cls, predict: Callable[..., Any], **options: Any) -> Callable[..., MultiFValidation]:
        """Curried constructor: ``MultiFValidation.using(predict, classes=k)(expected, obs)``."""
        return cast(Callable[..., MultiFValidation], toolz.curry(cls, predict=predict, **options))

    @cached_property
    def class_counts(self) -> ClassCounts:  # type: ignore[override]
        """One-vs-rest counts of each class."""
        return self.confusion.class_counts()

    @cached_property
    def accuracy(self) -> float:
        correct = self.class_counts.tp.sum()
        return measures.safe_divide(
            float(correct), float(self.confusion.n_samples), self.zero_division
        )

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    def __radd__(self, other: object) -> MultiFValidation:
        """``0 + v`` is ``v``, so ``sum(validations)`` pools; other left operands raise."""
        return sum_start(other, self)

    def __add__(self, other: object) -> MultiFValidation:
        if not isinstance(other, MultiFValidation):
            return NotImplemented
        same_settings(self, other, ("classes", "beta", "zero_division"))
        pooled = type(self).from_confusion(
            self.confusion + other.confusion,
            self.classes,
            beta=self.beta,
            zero_division=self.zero_division,
        )
        # the outcomes concatenate, so object positions match one validation of all data
        object.__setattr__(pooled, "outcomes", join_outcomes(self.outcomes, other.outcomes))
        return pooled

    def summary(self) -> dict[str, Any]:
        """Measures as plain values, with the class labels and accuracy."""
        return {
            "kind": "multiclass",
            "classes": [str(c) for c in self.classes],
            "accuracy": self.accuracy,
            **super().summary(),
        }

    def _report_title(self) -> str:
        return (
            f"{type(self).__name__}: {self.n_classes} classes, beta={self.beta:g}, "
            f"zero_division={self.zero_division}"
        )

    def _report_body(self, digits: int) -> str:
        """Per-class rows, then micro, macro, weighted and F-macro, then accuracy."""
        return class_report(self, self.classes, digits, extra=[("accuracy", self.accuracy)])


def class_report(
    v: ClassAverages,
    labels: Sequence[Hashable],
    digits: int,
    extra: Sequence[tuple[str, float]] = (),
) -> str:
    """The report body shared by multiclass and multi-label validations (title aside)."""
    absent = set(v.absent_classes.tolist())
    f_name = f"F{v.beta:g}"
    rows: list[tuple[Any, ...]] = []
    for k, label in enumerate(labels):
        name = f"{label} (absent)" if k in absent else str(label)
        rows.append(
            (
                name,
                float(v.per_class_precision[k]),
                float(v.per_class_recall[k]),
                float(v.per_class_f[k]),
                v.support[k].item(),  # an int, or a float when weighted
            )
        )
    rows.append(("", "", "", "", ""))
    rows.extend(v._average_rows())
    body = format_table(("class", "precision", "recall", f_name, "support"), rows, digits)
    tail = [f"{name}: {value:.{digits}f}" for name, value in extra]
    notes = [
        "micro = pooled counts; macro = mean of per-class values; weighted = support-weighted;",
        f"F-macro = {f_name} of (macro precision, macro recall), fmacro's score.",
    ]
    if v.class_counts.weighted:
        notes.append("Counts are weighted by sample_weight (support = total weight).")
    if absent:
        notes.append(
            f"{len(absent)} class(es) marked (absent) have no true and no predicted member."
        )
    return "\n".join([body, *tail, *notes])


def _count_with_jitted(
    predict: Callable[..., Any], expected: Any, observations: Any, k: int
) -> ConfusionMatrix:
    e, obs = jitted_inputs(expected, observations, n_classes=k)
    check_jitted_label_type(predict, obs)
    matrix, n_invalid = _kernels.confusion_counts_predict(predict, obs, e, k)
    if n_invalid:
        raise ValueError(
            f"{n_invalid} expected or predicted label(s) fall outside the classes 0..{k - 1}"
        )
    return ConfusionMatrix(matrix)
