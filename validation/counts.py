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
from typing import Any, TypeVar

import attrs
import numpy as np
from numpy.typing import ArrayLike, NDArray

from fmacro.validation._values import read_only_copies, value_key

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
    "count_array",
    "count_scalar",
    "frozen_array",
    "frozen_counts",
    "sum_start",
]


def frozen_array(values: ArrayLike, dtype: Any = None) -> NDArray[Any]:
    """Return a read-only copy of ``values`` (as ``dtype`` if given): it aliases nothing."""
    arr = np.array(values, dtype=dtype, copy=True)
    arr.flags.writeable = False
    return arr


Count = int | float
"""An integer count, or a float one when observations are weighted."""


def _non_negative(instance: object, attribute: attrs.Attribute[Any], value: Count) -> None:
    if value < 0:
        raise ValueError(f"{attribute.name} must be a non-negative count, got {value}")


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

    tp: Count = attrs.field(converter=_as_count, validator=_non_negative)
    fp: Count = attrs.field(converter=_as_count, validator=_non_negative)
    fn: Count = attrs.field(converter=_as_count, validator=_non_negative)
    tn: Count = attrs.field(default=0, converter=_as_count, validator=_non_negative)

    @classmethod
    def zero(cls) -> Counts:
        """The identity of ``+``."""
        return cls(0, 0, 0, 0)

    def __add__(self, other: object) -> Counts:
        if not isinstance(other, Counts):
            return NotImplemented
        return Counts(
            self.tp + other.tp, self.fp + other.fp, self.fn + other.fn, self.tn + other.tn
        )

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
        """Counts summed over classes (the input of micro averages)."""
        return Counts(*(count_scalar(a.sum()) for a in (self.tp, self.fp, self.fn, self.tn)))

    def __getitem__(self, k: int) -> Counts:
        return Counts(*(count_scalar(a[k]) for a in (self.tp, self.fp, self.fn, self.tn)))

    def __add__(self, other: object) -> ClassCounts:
        if not isinstance(other, ClassCounts):
            return NotImplemented
        if other.n_classes != self.n_classes:
            raise ValueError(f"cannot add counts of {self.n_classes} and {other.n_classes} classes")
        return ClassCounts(
            self.tp + other.tp, self.fp + other.fp, self.fn + other.fn, self.tn + other.tn
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
        return ConfusionMatrix(self.matrix + other.matrix)

    def __radd__(self, other: object) -> ConfusionMatrix:
        return sum_start(other, self)
