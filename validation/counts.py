"""Counts form a monoid: ``zero()`` is the identity and ``+`` pools.

Every count class is a frozen value: equal (and of equal hash) when its counts are.
Counts are integers, or floats when they are weighted by ``sample_weight`` (each
observation counts its weight); ``weighted`` tells which. Adding integer and weighted
counts gives weighted counts.

Pooling folds, chunks or validators is adding their counts; every measure is then a
pure function of the pooled counts (see :mod:`validation.measures`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal
from typing import Any, TypeVar

import attrs
import numpy as np
from numpy.typing import ArrayLike, NDArray

from fmacro.validation.checks import (
    INT64_MAX,
    WEIGHTED_TOTAL_MAX,
    describe_total,
    short_number,
)
from fmacro.validation.values import read_only_copies, value_key

_Summable = TypeVar("_Summable")


def sum_start(other: object, value: _Summable) -> _Summable:
    """``other + value`` for a left operand that is not a count: only ``0`` is allowed.

    ``sum(values)`` starts from the int 0, so ``0 + value`` is ``value`` (the identity);
    anything else on the left is a ``TypeError`` saying so, not a silent number.
    """
    if type(other) is int and other == 0:
        return value
    name = type(value).__name__
    raise TypeError(
        f"only the integer 0 (the start of sum()) can be added to a {name} from the left, "
        f"got {other!r} ({type(other).__name__}); add two {name} values instead"
    )


__all__ = [
    "ClassCounts",
    "ConfusionMatrix",
    "Count",
    "Counts",
    "add_counts",
    "count_array",
    "count_scalar",
    "exact_total",
    "frozen_array",
    "frozen_counts",
    "frozen_floats",
    "sum_start",
]


def frozen_array(values: ArrayLike, dtype: Any = None) -> NDArray[Any]:
    """Return a read-only copy of ``values`` (as ``dtype`` if given): it aliases nothing."""
    arr = np.array(values, dtype=dtype, copy=True)
    arr.flags.writeable = False
    return arr


def frozen_floats(values: ArrayLike) -> NDArray[np.float64]:
    """:func:`frozen_array` as float64: the converter of frozen values' float array fields
    (attrs' typing wants a named function, not a partial or a lambda)."""
    return frozen_array(values, np.float64)


Count = int | float
"""An integer count, or a float one when observations are weighted."""


def _count_in_range(instance: object, attribute: attrs.Attribute[Any], value: Count) -> None:
    if value < 0:
        raise ValueError(f"{attribute.name} must be a non-negative count, got {value}")
    if isinstance(value, int) and value > INT64_MAX:
        raise ValueError(
            f"{attribute.name} must fit in int64 (at most 2**63 - 1), got {value}: "
            "integer counts beyond it cannot be measured exactly"
        )


def _as_count(value: object) -> Count:
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"counts must be numbers, got the bool {value!r}")
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            raise ValueError(f"weighted counts must be finite, got {value!r}")
        return float(value)
    raise TypeError(
        "counts must be integers (or floats, when weighted), "
        f"got {value!r} of type {type(value).__name__}"
    )


def _exact(value: Count) -> Decimal | int:
    """A count as an exact number (a float's exact binary value), for sums in messages."""
    return Decimal(value) if isinstance(value, float) else value


def _check_scalar_total(values: tuple[Count, ...], what: str) -> None:
    """Refuse counts whose total does not fit: int64 for integers, 2**1022 when weighted.

    Every sum of the counts a measure takes (TP + FP, TP + FN, the total, ...) is then
    representable: no int64 wrap-around and no float64 overflow.
    """
    if any(isinstance(v, float) for v in values):
        total = sum(_exact(v) for v in values)
        if total > WEIGHTED_TOTAL_MAX:
            raise ValueError(
                f"{what} = {short_number(total)} is more than 2**1022 (about 4.5e307), "
                "beyond which sums of weighted counts overflow float64; scale the weights down"
            )
    else:
        exact = sum(int(v) for v in values)
        if exact > INT64_MAX:
            raise ValueError(
                f"{what} = {exact} is more than 2**63 - 1, the largest int64: integer "
                "counts and their total must fit in int64"
            )


@attrs.frozen
class Counts:
    """Binary outcome counts: true/false positives, false/true negatives.

    Examples
    --------
    >>> a = Counts(tp=2, fp=0, fn=2, tn=6)
    >>> b = Counts(tp=8, fp=4, fn=0, tn=0)
    >>> a + b
    Counts(tp=10, fp=4, fn=2, tn=6)
    >>> sum([a, b], Counts.zero()) == a + b
    True
    """

    tp: Count = attrs.field(converter=_as_count, validator=_count_in_range)
    fp: Count = attrs.field(converter=_as_count, validator=_count_in_range)
    fn: Count = attrs.field(converter=_as_count, validator=_count_in_range)
    tn: Count = attrs.field(default=0, converter=_as_count, validator=_count_in_range)

    def __attrs_post_init__(self) -> None:
        _check_scalar_total((self.tp, self.fp, self.fn, self.tn), "tp + fp + fn + tn")

    @classmethod
    def zero(cls) -> Counts:
        """The identity of ``+``."""
        return cls(0, 0, 0, 0)

    def __add__(self, other: object) -> Counts:
        if not isinstance(other, Counts):
            return NotImplemented
        pooled = []
        for name in ("tp", "fp", "fn", "tn"):
            a, b = getattr(self, name), getattr(other, name)
            total = a + b  # exact for integers; a float sum may overflow to inf
            if isinstance(total, float) and not total <= WEIGHTED_TOTAL_MAX:
                true = short_number(_exact(a) + _exact(b))
                raise ValueError(
                    f"pooled {name} = {a!r} + {b!r} = {true} is more than 2**1022 "
                    "(about 4.5e307), beyond which weighted counts overflow float64"
                )
            pooled.append(total)
        return Counts(*pooled)

    def __radd__(self, other: object) -> Counts:
        return sum_start(other, self)

    @property
    def n_samples(self) -> Count:
        """Number of samples counted (TP + FP + FN + TN); their total weight if weighted."""
        return self.tp + self.fp + self.fn + self.tn

    @property
    def weighted(self) -> bool:
        """Whether the counts are sums of sample weights (floats) rather than integers."""
        return any(isinstance(v, float) for v in (self.tp, self.fp, self.fn, self.tn))


def count_array(
    value: ArrayLike, what: str, *, ndim: int | None = None, weighted: bool = True
) -> NDArray[Any]:
    """A read-only int64 copy of counts, or float64 of weighted ones (``weighted=True``).

    The checks run on the values as given, before the cast: an unsigned count above
    2**63 - 1 (which int64 would wrap to a negative number) is refused, as are negative,
    NaN or infinite counts, other dtypes and other shapes than ``ndim`` dimensions.
    """
    arr = np.asarray(value)
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{what} must be {ndim}-D, got shape {arr.shape}")
    if arr.dtype == object and arr.size and all(_is_int(v) for v in arr.flat):
        # numpy keeps Python integers beyond uint64 as objects: say so, by value
        top = max(int(v) for v in arr.flat)
        if top > INT64_MAX:
            raise ValueError(f"{what} must fit in int64 (at most 2**63 - 1), found {top}")
    if arr.size == 0 or np.issubdtype(arr.dtype, np.integer):
        if arr.size and arr.max() > np.iinfo(np.int64).max:
            raise ValueError(f"{what} must fit in int64 (at most 2**63 - 1), found {arr.max()}")
        dtype: Any = np.int64
    elif weighted and np.issubdtype(arr.dtype, np.floating):
        if not np.isfinite(arr).all():
            raise ValueError(f"weighted {what} must be finite")
        dtype = np.float64
    else:
        kinds = "integers (or floats, when weighted)" if weighted else "integers"
        raise TypeError(f"{what} must be {kinds}, got dtype {arr.dtype}")
    if arr.size and arr.min() < 0:
        raise ValueError(f"{what} must be non-negative, found {arr.min()}")
    return frozen_array(arr, dtype)


def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def exact_total(values: NDArray[Any]) -> Count:
    """The sum of non-negative counts: an exact Python int for integer counts (no int64
    wrap-around, even past 2**63), a float for weighted ones (``inf`` if it overflows)."""
    arr = np.asarray(values)
    if arr.dtype.kind == "f":
        with np.errstate(over="ignore"):
            return float(arr.sum())
    if arr.size == 0:
        return 0
    flat = arr.astype(np.int64, copy=False).reshape(-1)
    if int(flat.max()) <= INT64_MAX // flat.size:  # the int64 sum cannot wrap
        return int(flat.sum())
    if flat.size < 2**31:  # high and low 32 bits summed apart cannot wrap either
        high = int((flat >> 32).sum())
        low = int((flat & 0xFFFFFFFF).sum())
        return (high << 32) + low
    return sum(int(v) for v in flat.tolist())


def _index_text(at: tuple[int, ...]) -> str:
    return f"[{at[0]}]" if len(at) == 1 else str(list(at))


def add_counts(
    a: NDArray[Any],
    b: NDArray[Any],
    what: str,
    *,
    where: Callable[[tuple[int, ...]], str] | None = None,
) -> NDArray[Any]:
    """``a + b`` of two count arrays of one shape, refusing a sum past the count range.

    Integer counts: an entry past 2**63 - 1 (where int64 would wrap to a negative
    number) is refused naming its true sum; weighted counts: an entry past 2**1022.
    The message names the entry by its index (``[3]``, ``[1, 2]``), or by
    ``where(index)`` when given.
    """
    if a.dtype.kind == "f" or b.dtype.kind == "f":
        with np.errstate(over="ignore"):
            out = np.add(a, b, dtype=np.float64)
        bad = ~(out <= WEIGHTED_TOTAL_MAX)
        limit = "2**1022 (about 4.5e307), beyond which weighted counts overflow float64"
    else:
        bad = b > INT64_MAX - a  # both non-negative: the test itself cannot wrap
        out = None
        limit = "2**63 - 1, the largest int64"
    if bad.any():
        at = tuple(int(i) for i in np.argwhere(bad)[0])
        x, y = a[at].item(), b[at].item()
        shown = short_number(_exact(x) + _exact(y))
        entry = (where or _index_text)(at)
        raise ValueError(f"pooled {what}{entry} = {x!r} + {y!r} = {shown} is more than {limit}")
    return np.asarray(a + b) if out is None else out


def _check_array_totals(arrays: tuple[NDArray[Any], ...], what: str) -> None:
    """Refuse count arrays whose element-wise total does not fit (see ``Counts``).

    The totals are first summed in float64: an integer total past 2**63 - 1 shows there
    as at least 2**62, and only such entries are summed exactly.
    """
    with np.errstate(over="ignore"):
        approx = sum((a.astype(np.float64) for a in arrays[1:]), arrays[0].astype(np.float64))
    weighted = arrays[0].dtype.kind == "f"
    suspects = np.flatnonzero(~(approx <= (WEIGHTED_TOTAL_MAX if weighted else 2.0**62)))
    for k in suspects.tolist():
        values = tuple(a.reshape(-1)[k].item() for a in arrays)
        _check_scalar_total(values, f"{what} of entry {k}")


def count_scalar(value: Any) -> Count:
    """A count as a Python number: ``float`` when weighted, else ``int``."""
    return float(value) if isinstance(value, (float, np.floating)) else int(value)


def frozen_counts(value: ArrayLike, what: str, *, ndim: int | None = None) -> NDArray[np.int64]:
    """A read-only int64 copy of integer (unweighted) counts; see :func:`count_array`."""
    return count_array(value, what, ndim=ndim, weighted=False)


def _frozen_int_vector(value: ArrayLike) -> NDArray[Any]:
    return count_array(value, "per-class counts", ndim=1)


@read_only_copies
@attrs.frozen
class ClassCounts:
    """One-vs-rest counts per class (multiclass) or per label (multi-label).

    All four arrays have one entry per class and are read-only.

    Examples
    --------
    >>> cc = ConfusionMatrix([[50, 5, 5], [5, 22, 3], [4, 2, 4]]).class_counts()
    >>> cc.tp.tolist(), cc.fp.tolist(), cc.fn.tolist()
    ([50, 22, 4], [9, 7, 8], [10, 8, 6])
    """

    tp: NDArray[Any] = attrs.field(converter=_frozen_int_vector, eq=value_key)
    fp: NDArray[Any] = attrs.field(converter=_frozen_int_vector, eq=value_key)
    fn: NDArray[Any] = attrs.field(converter=_frozen_int_vector, eq=value_key)
    tn: NDArray[Any] = attrs.field(converter=_frozen_int_vector, eq=value_key)

    def __attrs_post_init__(self) -> None:
        sizes = {self.tp.size, self.fp.size, self.fn.size, self.tn.size}
        if len(sizes) != 1:
            raise ValueError(f"tp, fp, fn and tn must have one entry per class, got sizes {sizes}")
        if len({a.dtype for a in (self.tp, self.fp, self.fn, self.tn)}) != 1:
            # mixing integer and weighted arrays: make all four weighted
            for name in ("tp", "fp", "fn", "tn"):
                object.__setattr__(self, name, frozen_array(getattr(self, name), np.float64))
        _check_array_totals((self.tp, self.fp, self.fn, self.tn), "tp + fp + fn + tn")

    @property
    def weighted(self) -> bool:
        """Whether the counts are sums of sample weights (floats) rather than integers."""
        return bool(self.tp.dtype == np.float64)

    @classmethod
    def zero(cls, n_classes: int) -> ClassCounts:
        """The identity of ``+`` for ``n_classes`` classes."""
        z = np.zeros(n_classes, dtype=np.int64)
        return cls(z, z, z, z)

    @property
    def n_classes(self) -> int:
        return int(self.tp.size)

    @property
    def support(self) -> NDArray[Any]:
        """Per-class positives: the true members of each class (TP + FN)."""
        return frozen_array(self.tp + self.fn)

    def pooled(self) -> Counts:
        """Counts summed over classes (the input of micro averages).

        Integer sums are exact (no int64 wrap-around); the pooled counts must then fit
        as :class:`Counts` do.
        """
        sums = [exact_total(a) for a in (self.tp, self.fp, self.fn, self.tn)]
        if self.weighted and not all(s <= WEIGHTED_TOTAL_MAX for s in sums):
            name, arr = next(
                (n, a)
                for n, a, s in zip(("tp", "fp", "fn", "tn"), self._arrays(), sums, strict=True)
                if not s <= WEIGHTED_TOTAL_MAX
            )
            raise ValueError(
                f"pooled {name} (summed over classes) = {describe_total(arr)} is more than "
                "2**1022 (about 4.5e307), beyond which weighted counts overflow float64"
            )
        return Counts(*sums)

    def _arrays(self) -> tuple[NDArray[Any], ...]:
        return (self.tp, self.fp, self.fn, self.tn)

    def __getitem__(self, k: int) -> Counts:
        return Counts(*(count_scalar(a[k]) for a in (self.tp, self.fp, self.fn, self.tn)))

    def __add__(self, other: object) -> ClassCounts:
        if not isinstance(other, ClassCounts):
            return NotImplemented
        if other.n_classes != self.n_classes:
            raise ValueError(f"cannot add counts of {self.n_classes} and {other.n_classes} classes")
        return ClassCounts(
            *(
                add_counts(a, b, name)
                for name, a, b in zip(
                    ("tp", "fp", "fn", "tn"), self._arrays(), other._arrays(), strict=True
                )
            )
        )

    def __radd__(self, other: object) -> ClassCounts:
        return sum_start(other, self)


def _frozen_square(value: ArrayLike) -> NDArray[Any]:
    arr = np.asarray(value)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(f"a confusion matrix must be square, got shape {arr.shape}")
    return count_array(arr, "confusion matrix counts")


@read_only_copies
@attrs.frozen
class ConfusionMatrix:
    """Square count matrix: **rows = expected class, columns = predicted class**.

    ``matrix[a, b]`` counts observations whose expected class is ``a`` and whose
    predicted class is ``b``.

    Examples
    --------
    >>> cm = ConfusionMatrix([[50, 5, 5], [5, 22, 3], [4, 2, 4]])
    >>> cm.n_samples
    100
    >>> (cm + cm).matrix[0, 0]
    np.int64(100)
    """

    matrix: NDArray[Any] = attrs.field(converter=_frozen_square, eq=value_key)

    def __attrs_post_init__(self) -> None:
        total = exact_total(self.matrix)
        if self.weighted and not total <= WEIGHTED_TOTAL_MAX:
            raise ValueError(
                f"the confusion matrix counts sum to {describe_total(self.matrix)}, more than "
                "2**1022 (about 4.5e307), beyond which weighted counts overflow float64"
            )
        if not self.weighted and total > INT64_MAX:
            raise ValueError(
                f"the confusion matrix counts sum to {total}, more than 2**63 - 1, the "
                "largest int64: integer counts and their total must fit in int64"
            )

    @classmethod
    def zero(cls, n_classes: int) -> ConfusionMatrix:
        return cls(np.zeros((n_classes, n_classes), dtype=np.int64))

    @property
    def n_classes(self) -> int:
        return int(self.matrix.shape[0])

    @property
    def n_samples(self) -> Count:
        """Number of samples counted (the sum of the matrix); their total weight if weighted."""
        return count_scalar(self.matrix.sum())

    @property
    def weighted(self) -> bool:
        """Whether the counts are sums of sample weights (floats) rather than integers."""
        return bool(self.matrix.dtype == np.float64)

    def class_counts(self) -> ClassCounts:
        """One-vs-rest counts: TP = diagonal, FP = column sum - TP, FN = row sum - TP."""
        tp = np.diag(self.matrix)
        fp = self.matrix.sum(axis=0) - tp
        fn = self.matrix.sum(axis=1) - tp
        tn = self.n_samples - tp - fp - fn
        if self.weighted:  # float sums may round a zero to -1e-16
            tn = np.maximum(tn, 0.0)
        return ClassCounts(tp, fp, fn, tn)

    def __add__(self, other: object) -> ConfusionMatrix:
        if not isinstance(other, ConfusionMatrix):
            return NotImplemented
        if other.n_classes != self.n_classes:
            raise ValueError(
                f"cannot add confusion matrices of {self.n_classes} and {other.n_classes} classes"
            )
        return ConfusionMatrix(add_counts(self.matrix, other.matrix, "confusion matrix counts"))

    def __radd__(self, other: object) -> ConfusionMatrix:
        return sum_start(other, self)
