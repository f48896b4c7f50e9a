"""Bootstrap intervals for every measure of a validation: resampled counts, one pass.

A validation built with ``keep_outcomes=True`` (off by default: the record is another
pass over the data) keeps a compact per-object *outcome record*, in object order
(:class:`BinaryOutcomes`, :class:`ClassOutcomes`, :class:`LabelOutcomes`); ``+``
concatenates records, so the objects of a pooled validation sit at the positions
they have in one in-memory validation of all the data. :func:`bootstrap` then counts B
resamples in one compiled pass (``_kernels.bootstrap``): each object adds ``w_b(i)``
times its sample weight to its count cells, and every measure of resample ``b`` is the
validation's own measure (the same pure functions of counts) applied to table ``b``.

Methods
-------
``"poisson"`` (default)
    ``w_b(i) ~ Poisson(1)``, drawn from a counter-based generator keyed on (seed,
    resample, object position). Resamples do not hold exactly ``n`` objects (their size
    is ``Poisson(n)``), which changes the intervals by O(1/n); in exchange the weights of
    an object do not depend on the others, so validations of chunks pooled with ``+``
    (or by ``fmacro.dask.evaluate``) give the in-memory intervals bit for bit.
``"multinomial"``
    The classic bootstrap: ``n`` objects drawn with replacement. It depends on ``n`` and
    on every object's position, so pooled chunks give other (equally valid) resamples
    than one validation of the whole data only if the chunks are bootstrapped apart; the
    pooled validation itself is resampled as a whole and is exact.

Intervals are percentile intervals: ``(q_{(1-level)/2}, q_{(1+level)/2})`` of the
resampled values (numpy's default linear interpolation between order statistics).
Resamples whose measure is NaN (a 0/0 under ``zero_division=nan``, e.g. a resample that
draws no member of a class) are left out of the quantiles and counted in
``n_undefined``; with ``zero_division`` 0 or 1 a 0/0 takes that value in each resample,
as in the validation itself.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Hashable, Sequence
from functools import cached_property
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.validation import measures
from fmacro.validation._kernels.bootstrap import (
    binary_outcome_codes,
    label_outcome_entries,
    label_outcome_entries_csr,
    resample_keys,
    resampled_tables,
)
from fmacro.validation.averages import ClassAverages
from fmacro.validation.counts import ClassCounts, Counts
from fmacro.validation.values import freeze_arrays, read_only_copies, value_key

__all__ = [
    "METHODS",
    "BinaryOutcomes",
    "BootstrapResult",
    "ClassOutcomes",
    "LabelOutcomes",
    "bootstrap",
    "check_bootstrap_options",
    "measure_names",
]

METHODS = ("poisson", "multinomial")
#: Largest memory the B resampled count tables may take (one float64 per count).
TABLES_MAX_BYTES = 2**31
_METHOD_CODES = {"poisson": 0, "multinomial": 1}

_EMPTY_INT = np.zeros(0, dtype=np.int64)
_EMPTY_FLOAT = np.zeros(0, dtype=np.float64)


def _frozen(values: Any, dtype: Any) -> NDArray[Any]:
    out = np.ascontiguousarray(values, dtype=dtype)
    if out is values or (isinstance(values, np.ndarray) and np.shares_memory(out, values)):
        out = out.copy()
    out.flags.writeable = False
    return out


def _uint8(values: Any) -> NDArray[np.uint8]:
    return _frozen(values, np.uint8)


def _int32(values: Any) -> NDArray[np.int32]:
    return _frozen(values, np.int32)


def _int64(values: Any) -> NDArray[np.int64]:
    return _frozen(values, np.int64)


def _optional_weights(values: Any) -> NDArray[np.float64] | None:
    return None if values is None else _frozen(values, np.float64)


def _joined_weights(
    a: NDArray[np.float64] | None, n_a: int, b: NDArray[np.float64] | None, n_b: int
) -> NDArray[np.float64] | None:
    """Weights of two concatenated records (an unweighted part weighs 1 per object)."""
    if a is None and b is None:
        return None
    return np.concatenate([np.ones(n_a) if a is None else a, np.ones(n_b) if b is None else b])


# ----------------------------------------------------------------- outcome records


@read_only_copies
@attrs.frozen
class BinaryOutcomes:
    """Each object's binary outcome: 0 TP, 1 FP, 2 FN, 3 TN (one byte each), in order.

    ``weights``: each object's sample weight (``None``: 1 each).
    """

    codes: NDArray[np.uint8] = attrs.field(converter=_uint8, eq=value_key)
    weights: NDArray[np.float64] | None = attrs.field(
        default=None, converter=_optional_weights, eq=value_key
    )

    @classmethod
    def from_masks(
        cls, expected_positive: Any, predicted_positive: Any, weights: Any = None
    ) -> BinaryOutcomes:
        """The record of two boolean vectors (object is a positive; predicted positive)."""
        e = np.asarray(expected_positive, dtype=bool)
        p = np.asarray(predicted_positive, dtype=bool)
        # TP 0, FP 1, FN 2, TN 3: twice "not predicted" plus "not expected"
        codes = 2 * (~p).view(np.uint8) + (~e).view(np.uint8)
        return cls(codes, weights)

    @classmethod
    def from_labels(
        cls, expected: Any, predicted: Any, positive: Any, weights: Any = None
    ) -> BinaryOutcomes:
        """The record of two checked label vectors: one compiled pass for integer labels."""
        e, p = np.asarray(expected), np.asarray(predicted)
        if e.dtype.kind in "biu" and p.dtype.kind in "biu" and isinstance(positive, int):
            return cls(binary_outcome_codes(e, p, positive), weights)
        return cls.from_masks(e == positive, p == positive, weights)

    @property
    def n_objects(self) -> int:
        return int(self.codes.size)

    def __add__(self, other: BinaryOutcomes) -> BinaryOutcomes:
        return BinaryOutcomes(
            np.concatenate([self.codes, other.codes]),
            _joined_weights(self.weights, self.n_objects, other.weights, other.n_objects),
        )

    def slots(self) -> tuple[NDArray[np.int64], NDArray[Any], int]:
        """``(indptr, slots, n_slots)`` for the kernel: one slot per object."""
        return _EMPTY_INT, self.codes, 4


@read_only_copies
@attrs.frozen
class ClassOutcomes:
    """Each object's (expected, predicted) class codes, in order; ``weights`` as above."""

    expected: NDArray[np.int32] = attrs.field(converter=_int32, eq=value_key)
    predicted: NDArray[np.int32] = attrs.field(converter=_int32, eq=value_key)
    n_classes: int
    weights: NDArray[np.float64] | None = attrs.field(
        default=None, converter=_optional_weights, eq=value_key
    )

    @property
    def n_objects(self) -> int:
        return int(self.expected.size)

    def __add__(self, other: ClassOutcomes) -> ClassOutcomes:
        return ClassOutcomes(
            np.concatenate([self.expected, other.expected]),
            np.concatenate([self.predicted, other.predicted]),
            self.n_classes,
            _joined_weights(self.weights, self.n_objects, other.weights, other.n_objects),
        )

    def slots(self) -> tuple[NDArray[np.int64], NDArray[Any], int]:
        """Slots ``[tp | fp | fn] x class``: a hit adds to TP of its class, a miss to FN of
        the expected class and FP of the predicted one."""
        k = self.n_classes
        e = self.expected.astype(np.int64)
        p = self.predicted.astype(np.int64)
        hit = e == p
        counts = np.where(hit, 1, 2)
        indptr = np.zeros(e.size + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        slots = np.empty(int(indptr[-1]), dtype=np.int64)
        first = indptr[:-1]
        slots[first] = np.where(hit, e, 2 * k + e)  # TP of e, or FN of e
        slots[first[~hit] + 1] = k + p[~hit]  # FP of p
        return indptr, slots, 3 * k


@read_only_copies
@attrs.frozen
class LabelOutcomes:
    """Each row's TP, FP and FN entries (CSR by row): slot ``kind * L + label``, kind 0 TP,
    1 FP, 2 FN. True negatives are not stored (they are the rest of the row). Row weights
    live in the validation's ``SampleCounts``."""

    indptr: NDArray[np.int64] = attrs.field(converter=_int64, eq=value_key)
    entries: NDArray[np.int32] = attrs.field(converter=_int32, eq=value_key)
    n_labels: int

    @classmethod
    def from_indicators(cls, expected: Any, predicted: Any, per_row: Any = None) -> LabelOutcomes:
        """The record of two checked 0/1 indicator matrices (both CSR, or both dense).

        ``per_row``: each row's number of TP, FP and FN entries (true + predicted - TP),
        when already counted (dense input is then read once).
        """
        from fmacro.validation.checks import is_sparse

        n_labels = expected.shape[1]
        if is_sparse(expected):
            t, p = _sorted_csr(expected), _sorted_csr(predicted)
            if per_row is None:
                both = t.astype(bool) + p.astype(bool)  # bool: one entry per position
                both.eliminate_zeros()
                per_row = np.diff(both.indptr)
            indptr = np.zeros(t.shape[0] + 1, dtype=np.int64)
            np.cumsum(per_row, out=indptr[1:])
            entries = label_outcome_entries_csr(
                np.asarray(t.indptr),
                np.asarray(t.indices),
                np.asarray(t.data),
                np.asarray(p.indptr),
                np.asarray(p.indices),
                np.asarray(p.data),
                indptr,
                np.int64(n_labels),
            )
            return cls(indptr, entries, n_labels)
        t, p = np.ascontiguousarray(expected), np.ascontiguousarray(predicted)
        if per_row is None:
            per_row = np.count_nonzero((t != 0) | (p != 0), axis=1)
        indptr = np.zeros(t.shape[0] + 1, dtype=np.int64)
        np.cumsum(per_row, out=indptr[1:])
        return cls(indptr, label_outcome_entries(t, p, indptr), n_labels)

    @property
    def n_objects(self) -> int:
        return int(self.indptr.size - 1)

    def __add__(self, other: LabelOutcomes) -> LabelOutcomes:
        return LabelOutcomes(
            np.concatenate([self.indptr, other.indptr[1:] + self.indptr[-1]]),
            np.concatenate([self.entries, other.entries]),
            self.n_labels,
        )

    def slots(self) -> tuple[NDArray[np.int64], NDArray[Any], int]:
        return self.indptr, self.entries, 3 * self.n_labels


Outcomes = BinaryOutcomes | ClassOutcomes | LabelOutcomes


def _sorted_csr(matrix: Any) -> Any:
    """``matrix`` as CSR with sorted indices (a copy only when they are not)."""
    csr = matrix.tocsr()
    return csr if csr.has_sorted_indices else csr.sorted_indices()


def join_outcomes(a: Outcomes | None, b: Outcomes | None) -> Any:
    """The record of two pooled validations: concatenated, or ``None`` if one has none."""
    if a is None or b is None:
        return None
    return a + b  # type: ignore[operator]


# ----------------------------------------------------------------- measure names

_BINARY_MEASURES = (
    "score", "f_beta", "f1", "precision", "recall", "sensitivity", "specificity", "g",
    "accuracy",
)  # fmt: skip
_CLASS_MEASURES = (
    "score", "f_macro", "macro_f", "macro_precision", "macro_recall", "micro_f",
    "micro_precision", "micro_recall", "weighted_f", "weighted_precision",
    "weighted_recall", "precision", "recall",
)  # fmt: skip
_PER_CLASS = ("per_class_f", "per_class_precision", "per_class_recall", "per_class_specificity")
_KIND_MEASURES = {
    "binary": _BINARY_MEASURES,
    "multiclass": (*_CLASS_MEASURES, "accuracy"),
    "multilabel": (*_CLASS_MEASURES, "samples_f", "subset_accuracy", "hamming_loss"),
}


def measure_names(kind: str, *, per_class: bool = True) -> tuple[str, ...]:
    """The measures a bootstrap of a ``kind`` validation gives intervals for, by name."""
    names = _KIND_MEASURES[kind]
    return names + _PER_CLASS if per_class and kind != "binary" else names


# ----------------------------------------------------------------- one resample's measures


@attrs.frozen
class _ResampledClasses(ClassAverages):
    """The class-based measures of one resample: ``ClassAverages`` over resampled counts,
    plus the kind's own measures from the resample's total and per-row sums."""

    class_counts: ClassCounts
    beta: float
    zero_division: float
    total: float
    rows: tuple[float, float, float]  # (sum w*f over defined rows, sum w defined, sum w exact)

    @cached_property
    def accuracy(self) -> float:
        return measures.safe_divide(
            float(self.class_counts.tp.sum()), self.total, self.zero_division
        )

    @cached_property
    def samples_f(self) -> float:
        f_sum, defined, _ = self.rows
        return f_sum / defined if defined > 0 else math.nan

    @cached_property
    def subset_accuracy(self) -> float:
        return self.rows[2] / self.total if self.total > 0 else math.nan

    @cached_property
    def hamming_loss(self) -> float:
        c = self.class_counts
        wrong = c.fp.sum() + c.fn.sum()
        return float(measures.safe_divide(wrong, wrong + c.tp.sum() + c.tn.sum(), 0.0))


def _row_extras(validation: Any) -> NDArray[np.float64]:
    """Per-row values summed with the resample weights: F (0 where undefined), defined, exact."""
    s = validation.sample_counts
    f = np.asarray(validation.per_sample_f, dtype=np.float64)
    defined = ~np.isnan(f)
    exact = (s.tp == s.true) & (s.tp == s.predicted)
    return np.column_stack([np.where(defined, f, 0.0), defined, exact]).astype(np.float64)


def check_bootstrap_options(n_resamples: Any, seed: Any, method: Any) -> tuple[int, int, str]:
    """``(n_resamples, seed, method)`` checked; a ``None`` seed is drawn from the OS."""
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)):
        raise TypeError(f"n_resamples must be an integer, got {type(n_resamples).__name__}")
    if n_resamples < 2:
        raise ValueError(f"n_resamples must be at least 2, got {n_resamples}")
    if seed is None:
        seed = secrets.randbits(63)
    elif isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be a non-negative integer or None, got {type(seed).__name__}")
    elif not 0 <= seed < 2**64:
        raise ValueError(f"seed must be in 0..2**64-1, got {seed}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    return int(n_resamples), int(seed), str(method)


def bootstrap(
    validation: Any, n_resamples: int = 1000, *, seed: int | None = None, method: str = "poisson"
) -> BootstrapResult:
    """Resample ``validation``'s objects ``n_resamples`` times; see the module docstring.

    Raises
    ------
    ValueError
        If the validation keeps no outcome record (built from counts, a confusion matrix,
        or by a numba-jitted ``predict``), or for bad options.
    """
    n_resamples, seed, method = check_bootstrap_options(n_resamples, seed, method)
    record = getattr(validation, "outcomes", None)
    if record is None:
        raise ValueError(
            f"this {type(validation).__name__} keeps no per-object outcomes, so it cannot "
            "be resampled: build it with keep_outcomes=True (from_predictions(expected, "
            "predicted, keep_outcomes=True), or with a Python predict); validations built "
            "from counts, a confusion matrix or a numba-jitted predict never keep them"
        )
    indptr, slots, n_slots = record.slots()
    if n_resamples * n_slots * 8 > TABLES_MAX_BYTES:
        raise ValueError(
            f"n_resamples={n_resamples} resampled tables of {n_slots} counts each would take "
            f"{n_resamples * n_slots * 8 / 2**30:.1f} GiB (more than "
            f"{TABLES_MAX_BYTES / 2**30:g} GiB); use fewer resamples"
        )
    if validation.kind == "multilabel":
        weight = validation.sample_counts.weight
        weights = _EMPTY_FLOAT if weight is None else np.asarray(weight, dtype=np.float64)
        extras = _row_extras(validation)
    else:
        weights = _EMPTY_FLOAT if record.weights is None else record.weights
        extras = np.zeros((record.n_objects, 0))
    tables, totals, extra_sums = resampled_tables(
        resample_keys(seed, n_resamples),
        _METHOD_CODES[method],
        np.ascontiguousarray(indptr, dtype=np.int64),
        np.ascontiguousarray(slots),
        n_slots,
        np.ascontiguousarray(weights, dtype=np.float64),
        np.ascontiguousarray(extras, dtype=np.float64),
    )
    return BootstrapResult(validation, method, seed, tables, totals, extra_sums)


def _read_only(values: Any) -> NDArray[Any]:
    out = np.array(values)
    return freeze_arrays(out)  # type: ignore[no-any-return]


@read_only_copies
@attrs.frozen
class BootstrapResult:
    """The resampled counts of a validation, and an interval for any of its measures.

    Attributes
    ----------
    validation
        The validation resampled (its measures are the point estimates).
    method, seed
        How the resamples were drawn (``seed`` is the one used, also when drawn at random,
        so ``validation.bootstrap(B, seed=result.seed)`` repeats the result).
    tables
        ``(B, n_slots)`` resampled counts: binary ``[tp, fp, fn, tn]``; multiclass and
        multi-label ``[tp | fp | fn]`` per class.
    totals
        ``(B,)`` number of objects (total weight) of each resample.
    row_sums
        ``(B, 3)`` multi-label per-row sums (weighted F over defined rows, weight of
        defined rows, weight of exactly predicted rows); ``(B, 0)`` otherwise.

    Examples
    --------
    >>> from fmacro.validation import BinFValidation
    >>> e, p = [1, 1, 0, 0] * 25, [1, 0, 0, 1] * 25
    >>> v = BinFValidation.from_predictions(e, p, keep_outcomes=True)
    >>> b = v.bootstrap(200, seed=7)
    >>> low, high = b.interval("f1")
    >>> bool(low <= v.f1 <= high)
    True
    """

    validation: Any
    method: str
    seed: int
    tables: NDArray[np.float64] = attrs.field(converter=_read_only, eq=value_key)
    totals: NDArray[np.float64] = attrs.field(converter=_read_only, eq=value_key)
    row_sums: NDArray[np.float64] = attrs.field(converter=_read_only, eq=value_key)

    @property
    def n_resamples(self) -> int:
        return int(self.totals.size)

    @property
    def kind(self) -> str:
        return str(self.validation.kind)

    def _integer(self) -> bool:
        v = self.validation
        if self.kind == "binary":
            return not v.counts.weighted
        return not v.class_counts.weighted

    def resample(self, b: int) -> Any:
        """The measures of resample ``b``: a validation-like object (same measure names)."""
        v = self.validation
        row = self.tables[b]
        as_count = (lambda x: np.rint(x).astype(np.int64)) if self._integer() else np.asarray
        if self.kind == "binary":
            tp, fp, fn, tn = (x.item() for x in as_count(row))
            return type(v).from_counts(
                Counts(tp, fp, fn, tn),
                positive=v.positive,
                beta=v.beta,
                zero_division=v.zero_division,
            )
        k = row.size // 3
        tp, fp, fn = (as_count(row[i * k : (i + 1) * k]) for i in range(3))
        total = as_count(self.totals[b])
        tn = np.maximum(total - tp - fp - fn, 0)
        extra = self.row_sums[b]
        rows = (float(extra[0]), float(extra[1]), float(extra[2])) if extra.size else (0.0,) * 3
        return _ResampledClasses(
            ClassCounts(tp, fp, fn, tn), v.beta, v.zero_division, float(self.totals[b]), rows
        )

    @cached_property
    def _resamples(self) -> tuple[Any, ...]:
        # built once: each keeps its measures once computed
        return tuple(self.resample(b) for b in range(self.n_resamples))

    def values(self, measure: str) -> NDArray[np.float64]:
        """The measure in each resample: shape ``(B,)``, or ``(B, k)`` for per-class ones."""
        self._check_measure(measure)
        out = np.array([getattr(r, measure) for r in self._resamples], dtype=np.float64)
        out.flags.writeable = False
        return out

    def interval(self, measure: str, level: float = 0.95) -> tuple[Any, Any]:
        """Percentile interval ``(low, high)`` of ``measure`` at confidence ``level``.

        Scalars for scalar measures, arrays (one per class) for ``per_class_*``; NaN
        resamples are left out (all NaN gives NaN bounds).
        """
        level = _check_level(level)
        values = self.values(measure)
        alpha = (1.0 - level) / 2.0
        with np.errstate(all="ignore"):
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns
                low, high = np.nanquantile(values, [alpha, 1.0 - alpha], axis=0)
        if values.ndim == 1:
            return float(low), float(high)
        return low, high

    def n_undefined(self, measure: str) -> Any:
        """Resamples whose ``measure`` is NaN (left out of the interval)."""
        counts = np.isnan(self.values(measure)).sum(axis=0)
        return int(counts) if np.ndim(counts) == 0 else counts

    def estimate(self, measure: str) -> Any:
        """The validation's own value of ``measure`` (the point estimate)."""
        self._check_measure(measure)
        value = getattr(self.validation, measure)
        return float(value) if np.ndim(value) == 0 else np.asarray(value, dtype=np.float64)

    def measures(self) -> tuple[str, ...]:
        """The measure names this result gives intervals for."""
        return measure_names(self.kind)

    def to_dict(self, level: float = 0.95) -> dict[str, Any]:
        """JSON-safe record: the settings, then ``{measure: {estimate, low, high}}``.

        Per-class measures give lists (one entry per class); NaN becomes ``None``.
        """
        out: dict[str, Any] = {
            "method": self.method,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "level": _check_level(level),
            "interval": "percentile",
            "measures": {},
        }
        for name in self.measures():
            low, high = self.interval(name, level)
            out["measures"][name] = {
                "estimate": _plain(self.estimate(name)),
                "low": _plain(low),
                "high": _plain(high),
            }
        return out

    def to_pandas(self, level: float = 0.95) -> Any:
        """DataFrame with columns measure, class, estimate, low, high (needs pandas).

        ``class`` is empty for scalar measures and the class label for per-class rows.
        """
        import pandas as pd

        labels = self.class_labels
        rows: list[dict[str, Any]] = []
        for name in self.measures():
            low, high = self.interval(name, level)
            est = self.estimate(name)
            if np.ndim(est) == 0:
                rows.append(
                    {"measure": name, "class": None, "estimate": est, "low": low, "high": high}
                )
            else:
                for j, label in enumerate(labels):
                    rows.append(
                        {
                            "measure": name,
                            "class": label,
                            "estimate": float(est[j]),
                            "low": float(low[j]),
                            "high": float(high[j]),
                        }
                    )
        return pd.DataFrame(rows, columns=["measure", "class", "estimate", "low", "high"])

    @property
    def class_labels(self) -> Sequence[Hashable]:
        """The class (label) names of the per-class measures; empty for binary."""
        v = self.validation
        if self.kind == "multiclass":
            return tuple(v.classes)
        if self.kind == "multilabel":
            return tuple(v.labels) if v.labels is not None else tuple(range(v.n_labels))
        return ()

    def _check_measure(self, measure: str) -> None:
        if not isinstance(measure, str):
            raise TypeError(f"measure must be a measure name, got {type(measure).__name__}")
        if measure not in measure_names(self.kind):
            raise ValueError(
                f"measure {measure!r} is not a measure of a {self.kind} validation; "
                f"one of {', '.join(measure_names(self.kind))}"
            )


def _check_level(level: Any) -> float:
    if isinstance(level, bool) or not isinstance(level, (int, float, np.floating)):
        raise TypeError(f"level must be a number in (0, 1), got {type(level).__name__}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    return float(level)


def _plain(value: Any) -> Any:
    if np.ndim(value) == 0:
        f = float(value)
        return None if math.isnan(f) else f
    return [None if math.isnan(x) else float(x) for x in np.asarray(value).tolist()]
