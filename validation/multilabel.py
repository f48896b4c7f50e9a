"""Multi-label validation of (N, L) indicator matrices, dense or scipy.sparse CSR."""

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
from fmacro.validation.bootstrap import LabelOutcomes, join_outcomes
from fmacro.validation.checks import (
    check_beta,
    check_same_length,
    check_zero_division,
    is_sparse,
)
from fmacro.validation.counts import ClassCounts, frozen_array, frozen_counts, sum_start
from fmacro.validation.frames import frame_columns
from fmacro.validation.labels import numpy_from_pandas
from fmacro.validation.multiclass import class_report
from fmacro.validation.plumbing import (
    collect_predictions,
    is_numba_function,
    jitted_observations,
    observations_array,
)
from fmacro.validation.report import same_settings
from fmacro.validation.values import read_only_copies, value_key
from fmacro.validation.weights import check_sample_weight, weighted_label_counts

__all__ = ["MultiLabelFValidation", "SampleCounts"]


def _frozen_counts(values: Any) -> NDArray[np.int64]:
    return frozen_counts(values, "per-sample counts", ndim=1)


def _optional_weights(values: Any) -> NDArray[np.float64] | None:
    return None if values is None else frozen_array(values, np.float64)


@read_only_copies
@attrs.frozen
class SampleCounts:
    """Per-example counts: true positives, true labels and predicted labels of each row.

    They carry the example-based measures (samples-F, subset accuracy) through ``+``,
    which concatenates rows. ``weight`` holds each row's sample weight (``None``: 1 each).
    """

    tp: NDArray[np.int64] = attrs.field(converter=_frozen_counts, eq=value_key)
    true: NDArray[np.int64] = attrs.field(converter=_frozen_counts, eq=value_key)
    predicted: NDArray[np.int64] = attrs.field(converter=_frozen_counts, eq=value_key)
    weight: NDArray[np.float64] | None = attrs.field(
        default=None, converter=_optional_weights, eq=value_key
    )

    def __attrs_post_init__(self) -> None:
        sizes = {self.tp.size, self.true.size, self.predicted.size}
        if len(sizes) != 1:
            raise ValueError(
                f"tp, true and predicted must have one entry per sample, got sizes {sizes}"
            )
        if (self.tp > self.true).any() or (self.tp > self.predicted).any():
            raise ValueError("tp cannot exceed the true or the predicted labels of a sample")

    def __add__(self, other: object) -> SampleCounts:
        if not isinstance(other, SampleCounts):
            return NotImplemented
        weight = None
        if self.weight is not None or other.weight is not None:
            weight = np.concatenate([self.row_weights(), other.row_weights()])
        return SampleCounts(
            np.concatenate([self.tp, other.tp]),
            np.concatenate([self.true, other.true]),
            np.concatenate([self.predicted, other.predicted]),
            weight,
        )

    def __radd__(self, other: object) -> SampleCounts:
        return sum_start(other, self)

    def row_weights(self) -> NDArray[np.float64]:
        """Each row's weight (ones when unweighted)."""
        return np.ones(self.tp.size) if self.weight is None else self.weight

    @property
    def n_samples(self) -> int:
        return int(self.tp.size)


def _indicator_dense(y: Any, name: str) -> NDArray[Any]:
    """A C-ordered 0/1 matrix for the kernels (they index rows, so any layout is copied).

    pandas nullable or pyarrow columns (``Int64``, ``boolean``, ``int8[pyarrow]``) are read
    as the numpy dtype they hold; a missing entry is refused with its row and column.
    """
    y = numpy_from_pandas(y, name=name, what="label")
    arr = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D (samples, labels) indicator matrix, got shape {arr.shape}"
        )
    if arr.dtype == np.bool_ or np.issubdtype(arr.dtype, np.integer):
        # The kernels recheck any row holding a byte above 1 (a bool's raw byte too).
        return np.ascontiguousarray(arr)
    if np.issubdtype(arr.dtype, np.floating):
        if not np.isfinite(arr).all():
            raise ValueError(f"{name} contains NaN or infinite values; indicators must be 0 or 1")
        if not np.isin(arr, (0.0, 1.0)).all():
            raise _bad_values(arr, name, int(np.count_nonzero((arr != 0) & (arr != 1))))
        # Fortran-ordered input (a pandas DataFrame's to_numpy(), a transpose) becomes C.
        return np.ascontiguousarray(arr, dtype=np.uint8)
    raise TypeError(f"{name} must hold 0/1 indicators, got dtype {arr.dtype}")


def _indicator_csr(y: Any, name: str) -> Any:
    """CSR without duplicate entries; the caller's matrix is never modified.

    Values are checked by the counting kernel (stored zeros are skipped there); a
    position stored twice is refused when scipy's sum of the two is not 0 or 1.
    """
    _check_sparse_2d(y, name)
    csr = y.tocsr()
    if not csr.has_canonical_format:
        stored = csr.nnz
        csr = csr.copy()
        csr.sum_duplicates()
        if csr.nnz < stored:
            data = np.asarray(csr.data)
            summed_bad = (data != 0) & (data != 1)
            if summed_bad.any():
                sums = np.unique(data[summed_bad])[:5].tolist()
                raise ValueError(
                    f"{name} stores {stored - csr.nnz} position(s) more than once; scipy adds "
                    f"duplicates, which gives values such as {sums} here: store each "
                    "(row, label) position once"
                )
    return csr


def _check_sparse_2d(y: Any, name: str) -> None:
    if is_sparse(y) and len(y.shape) != 2:
        raise ValueError(
            f"{name} must be a 2-D (samples, labels) indicator matrix, got a "
            f"{len(y.shape)}-D sparse array of shape {y.shape}"
        )


def _bad_values(y: Any, name: str, n_bad: int) -> ValueError:
    """The error for ``n_bad`` entries of ``y`` other than 0/1, with a few of them."""
    if y is None:  # rows a jitted predict returned inside the kernel
        return ValueError(f"predict returned {n_bad} entries other than 0 and 1")
    values = np.asarray(y.data if is_sparse(y) else y)
    if values.dtype == np.bool_:  # a bool array built from raw bytes: show the bytes
        raw = np.ascontiguousarray(values).view(np.uint8)
        found = np.unique(raw[raw > 1])[:5].tolist()
        return ValueError(
            f"{name} is a bool array holding raw byte values other than 0 and 1 (such as "
            f"{found}) in {n_bad} entries; pass (x != 0) instead"
        )
    found = np.unique(values[(values != 0) & (values != 1)])[:5].tolist()
    where = "stored entries" if is_sparse(y) else "entries"
    return ValueError(
        f"{name} must hold only 0 and 1; {n_bad} {where} do not (values such as {found})"
    )


def _count_with_jitted(
    predict: Callable[..., Any], expected: Any, observations: Any
) -> tuple[ClassCounts, SampleCounts]:
    obs = jitted_observations(observations)
    _check_sparse_2d(expected, "expected")
    t = _indicator_dense(expected.toarray() if is_sparse(expected) else expected, "expected")
    check_same_length(expected=t, observations=obs)
    if t.shape[0] == 0 or t.shape[1] == 0:
        raise ValueError(f"expected is empty (shape {t.shape})")
    counts, bad_length = _kernels.multilabel_counts_predict(predict, obs, t)
    if bad_length:
        raise ValueError(
            f"predict must return an indicator row of length {t.shape[1]} for each "
            f"observation; {bad_length} row(s) had another length"
        )
    return _counts_from_kernel(counts, t, None)


def _count(
    expected: Any,
    predicted: Any,
    *,
    n: int | None = None,
    sample_weight: Any = None,
    keep_outcomes: bool = False,
) -> tuple[ClassCounts, SampleCounts, LabelOutcomes | None]:
    """Counts of two indicator matrices; ``n`` is their row count if already checked.

    With ``sample_weight`` the per-label counts are sums of row weights (floats) and the
    per-row counts carry the weights. Also returns each row's TP/FP/FN entries (for
    ``bootstrap``).
    """
    _check_sparse_2d(expected, "expected")
    _check_sparse_2d(predicted, "predicted")
    if n is None:
        n = check_same_length(expected=expected, predicted=predicted)
    weights = check_sample_weight(sample_weight, n)
    if is_sparse(expected) and is_sparse(predicted):
        t = _indicator_csr(expected, "expected")
        p = _indicator_csr(predicted, "predicted")
        kernel = _kernels.multilabel_counts_csr
    else:
        t = _indicator_dense(expected.toarray() if is_sparse(expected) else expected, "expected")
        p = _indicator_dense(
            predicted.toarray() if is_sparse(predicted) else predicted, "predicted"
        )
        kernel = _kernels.multilabel_counts_dense
    if t.shape != p.shape:
        raise ValueError(f"expected has shape {t.shape} but predicted has shape {p.shape}")
    if t.shape[0] == 0 or t.shape[1] == 0:
        raise ValueError(f"expected is empty (shape {t.shape})")
    class_counts, sample_counts = _counts_from_kernel(kernel(t, p), t, p)
    outcomes = None
    if keep_outcomes:
        s = sample_counts  # entries per row: true + predicted - TP, counted already
        outcomes = LabelOutcomes.from_indicators(t, p, s.true + s.predicted - s.tp)
    if weights is None:
        return class_counts, sample_counts, outcomes
    tp, true, pred, total = weighted_label_counts(t, p, weights)
    # differences of float sums may round a zero to -1e-16: clip at 0
    fp = np.maximum(pred - tp, 0.0)
    fn = np.maximum(true - tp, 0.0)
    tn = np.maximum(total - tp - fp - fn, 0.0)
    return (
        ClassCounts(tp, fp, fn, tn),
        attrs.evolve(sample_counts, weight=weights),
        outcomes,
    )


def _counts_from_kernel(
    c: _kernels.MultiLabelCounts, t: Any, p: Any
) -> tuple[ClassCounts, SampleCounts]:
    """Check a kernel's bad-entry counts, then turn its raw counts into count objects."""
    if c.bad_index:
        raise ValueError(
            f"expected or predicted has {c.bad_index} column indices outside 0..{t.shape[1] - 1}; "
            "the CSR matrix is malformed"
        )
    for name, y, n_bad in (("expected", t, c.bad_true), ("predicted", p, c.bad_pred)):
        if n_bad:
            raise _bad_values(y, name, n_bad)
    n = t.shape[0]
    fp = c.predicted - c.tp
    fn = c.true - c.tp
    return (
        ClassCounts(c.tp, fp, fn, n - c.tp - fp - fn),
        SampleCounts(c.row_tp, c.row_true, c.row_pred),
    )


@read_only_copies
@attrs.frozen(init=False)
class MultiLabelFValidation(ClassAverages, ValidationBase):
    """F-validation of a multi-label classifier over (N, L) indicator matrices.

    Label-based measures (per label, micro, macro, weighted, F-macro) come from per-label
    one-vs-rest counts; example-based ones (samples-F, subset accuracy) from per-row counts.

    Parameters
    ----------
    expected
        (N, L) 0/1 indicator matrix (numpy, pandas or scipy.sparse).
    observations
        The observations ``predict`` is applied to (array, list, pandas object, sparse
        matrix). ``predict`` receives row ``i`` by position: a numpy row (a pandas
        DataFrame is converted with ``to_numpy()``, so ``row[j]`` is the j-th column, not
        a column label), a 1-row CSR matrix for sparse input, or a list item;
        ``crossval.vectorized`` hands over the same rows.
    predict
        ``observation -> indicator row of length L``; with ``batched=True``
        ``observations -> (N, L) indicator matrix`` (dense or CSR). A numba ``@njit``
        function (returning a 1-D 0/1 array) runs inside the compiled counting loop.
    labels
        Optional names of the L labels (for the report).
    beta, zero_division, batched, sample_weight, keep_outcomes
        As in :class:`validation.BinFValidation` (``keep_outcomes``: each row's TP, FP
        and FN entries, 4 bytes each plus 8 per row).

    Examples
    --------
    >>> Y = np.array([[1, 0, 1], [0, 1, 0]])
    >>> P = np.array([[1, 0, 0], [0, 1, 1]])
    >>> v = MultiLabelFValidation.from_predictions(Y, P)
    >>> v.class_counts.tp.tolist(), round(v.micro_f, 4), v.subset_accuracy, v.hamming_loss
    ([1, 1, 0], 0.6667, 0.0, 0.3333333333333333)
    """

    kind = "multilabel"

    class_counts: ClassCounts
    sample_counts: SampleCounts
    labels: tuple[Hashable, ...] | None = attrs.field(default=None, eq=value_key)
    beta: float = 1.0
    zero_division: float = attrs.field(default=0.0, eq=value_key)
    outcomes: LabelOutcomes | None = attrs.field(default=None, eq=False, repr=False)
    """Each row's TP, FP and FN entries, in row order (for :meth:`bootstrap`); ``None``
    for a validation built by a numba-jitted ``predict``. Not part of ``==`` and ``hash``."""

    def __init__(
        self,
        expected: Any,
        observations: Any,
        predict: Callable[..., Any],
        *,
        labels: Sequence[Hashable] | None = None,
        beta: float = 1.0,
        zero_division: float = 0.0,
        batched: bool = False,
        sample_weight: Any = None,
        keep_outcomes: bool = False,
    ) -> None:
        beta = check_beta(beta)
        zero_division = check_zero_division(zero_division)
        outcomes = None
        if is_numba_function(predict) and not batched and sample_weight is None:
            class_counts, sample_counts = _count_with_jitted(predict, expected, observations)
        else:
            n = check_same_length(expected=expected, observations=observations_array(observations))
            if batched:
                predicted = collect_predictions(predict, observations, n, batched=True)
            else:
                rows = collect_predictions(
                    predict, observations, n, batched=False, integer_labels=False
                )
                predicted = np.asarray(rows)
                if predicted.ndim != 2:
                    raise TypeError(
                        "predict must return an indicator row (a 1-D 0/1 sequence of length "
                        f"L) for each observation; got results of shape {predicted.shape}"
                    )
            class_counts, sample_counts, outcomes = _count(
                expected, predicted, n=n, sample_weight=sample_weight, keep_outcomes=keep_outcomes
            )
        self.__attrs_init__(
            class_counts,
            sample_counts,
            _labels(labels, class_counts),
            beta,
            zero_division,
            outcomes,
        )

    @classmethod
    def from_predictions(
        cls,
        expected: Any,
        predicted: Any,
        *,
        labels: Sequence[Hashable] | None = None,
        beta: float = 1.0,
        zero_division: float = 0.0,
        sample_weight: Any = None,
        keep_outcomes: bool = False,
    ) -> MultiLabelFValidation:
        """Validation of given (N, L) 0/1 indicator matrices (numpy, pandas or scipy.sparse).

        ``expected`` holds the true labels of each row, ``predicted`` the predicted ones,
        as in the other validations' ``from_predictions(expected, predicted)``.
        ``sample_weight``: one non-negative weight per row; label counts become sums of
        weights and the example-based measures weighted means. ``labels=None`` names the
        labels by the columns of DataFrame inputs (else ``0..L-1``).
        ``keep_outcomes=True``: also keep each object's outcome, for :meth:`bootstrap`
        (default ``False``: the counts only, faster; such a validation cannot be
        bootstrapped).

        Examples
        --------
        >>> Y = np.array([[1, 0], [0, 1], [1, 1]])
        >>> P = np.array([[1, 0], [1, 1], [0, 1]])
        >>> v = MultiLabelFValidation.from_predictions(Y, P, sample_weight=[1, 2, 1])
        >>> v.class_counts.tp.tolist(), v.class_counts.fp.tolist(), v.subset_accuracy
        ([1.0, 3.0], [2.0, 0.0], 0.25)
        """
        if labels is None:
            labels = frame_columns(expected, predicted)
        class_counts, sample_counts, outcomes = _count(
            expected, predicted, sample_weight=sample_weight, keep_outcomes=keep_outcomes
        )
        obj = cls.__new__(cls)
        obj.__attrs_init__(
            class_counts,
            sample_counts,
            _labels(labels, class_counts),
            check_beta(beta),
            check_zero_division(zero_division),
            outcomes,
        )
        return obj

    @classmethod
    def using(
        cls, predict: Callable[..., Any], **options: Any
    ) -> Callable[..., MultiLabelFValidation]:
        """Curried constructor: ``MultiLabelFValidation.using(predict)(expected, observations)``."""
        return cast(
            Callable[..., MultiLabelFValidation], toolz.curry(cls, predict=predict, **options)
        )

    @property
    def n_labels(self) -> int:
        return self.class_counts.n_classes

    @property
    def n_samples(self) -> int:
        return self.sample_counts.n_samples

    @cached_property
    def per_sample_f(self) -> NDArray[np.float64]:
        """F_beta of each example (row); a row with no true and no predicted label is 0/0."""
        s = self.sample_counts
        return frozen_array(
            measures.f_beta_from_counts(
                s.tp, s.predicted - s.tp, s.true - s.tp, self.beta, self.zero_division
            ),
            np.float64,
        )

    @cached_property
    def samples_f(self) -> float:
        """Mean over examples of the per-example F_beta (weighted by ``sample_weight``)."""
        s = self.sample_counts
        if s.weight is None:
            return measures.mean_defined(self.per_sample_f)
        return measures.weighted_mean_defined(self.per_sample_f, s.weight)

    @cached_property
    def subset_accuracy(self) -> float:
        """Share (or weight share) of examples whose predicted label set is the true one."""
        s = self.sample_counts
        exact = (s.tp == s.true) & (s.tp == s.predicted)
        if s.weight is None:
            return float(np.count_nonzero(exact) / s.n_samples)
        return float(measures.safe_divide(s.weight.sum(where=exact), s.weight.sum(), 0.0))

    @cached_property
    def hamming_loss(self) -> float:
        """Share (or weight share) of (example, label) entries predicted wrongly."""
        c = self.class_counts
        wrong = c.fp.sum() + c.fn.sum()
        return float(measures.safe_divide(wrong, wrong + c.tp.sum() + c.tn.sum(), 0.0))

    def __radd__(self, other: object) -> MultiLabelFValidation:
        """``0 + v`` is ``v``, so ``sum(validations)`` pools; other left operands raise."""
        return sum_start(other, self)

    def __add__(self, other: object) -> MultiLabelFValidation:
        if not isinstance(other, MultiLabelFValidation):
            return NotImplemented
        same_settings(self, other, ("labels", "beta", "zero_division"))
        if other.n_labels != self.n_labels:
            raise ValueError(
                f"cannot pool validations of {self.n_labels} and {other.n_labels} labels"
            )
        obj = type(self).__new__(type(self))
        obj.__attrs_init__(
            self.class_counts + other.class_counts,
            self.sample_counts + other.sample_counts,
            self.labels,
            self.beta,
            self.zero_division,
            # the outcomes concatenate in row order, as the sample counts do
            join_outcomes(self.outcomes, other.outcomes),
        )
        return obj

    def summary(self) -> dict[str, Any]:
        """Measures as plain values, with the example-based ones."""
        return {
            "kind": "multilabel",
            "labels": None if self.labels is None else [str(c) for c in self.labels],
            "samples_f": self.samples_f,
            "subset_accuracy": self.subset_accuracy,
            "hamming_loss": self.hamming_loss,
            **super().summary(),
        }

    def _report_title(self) -> str:
        return (
            f"MultiLabelFValidation: {self.n_samples} samples, {self.n_labels} labels, "
            f"beta={self.beta:g}, zero_division={self.zero_division}"
        )

    def _report_body(self, digits: int) -> str:
        """Per-label rows, then micro, macro, weighted, F-macro and example-based measures."""
        names = self.labels if self.labels is not None else tuple(range(self.n_labels))
        extra = [
            ("samples F", self.samples_f),
            ("subset accuracy", self.subset_accuracy),
            ("Hamming loss", self.hamming_loss),
        ]
        return class_report(self, names, digits, extra=extra)


def _labels(labels: Sequence[Hashable] | None, counts: ClassCounts) -> tuple[Hashable, ...] | None:
    if labels is None:
        return None
    out = tuple(labels)
    if len(out) != counts.n_classes:
        raise ValueError(
            f"labels has {len(out)} names but the matrices have {counts.n_classes} labels"
        )
    return out
