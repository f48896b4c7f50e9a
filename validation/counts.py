"""Counts form a monoid: ``zero()`` is the identity and ``+`` pools.

Every count class is a frozen value: equal (and of equal hash) when its counts are.

Pooling folds, chunks or validators is adding their counts; every measure is then a
pure function of the pooled counts (see :mod:`validation.measures`).
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
from numpy.typing import ArrayLike, NDArray

from fmacro.validation._values import read_only_copies, value_key

__all__ = ["ClassCounts", "ConfusionMatrix", "Counts", "frozen_array", "frozen_counts"]


def frozen_array(values: ArrayLike, dtype: Any = None) -> NDArray[Any]:
    """Return a read-only copy of ``values`` (as ``dtype`` if given): it aliases nothing."""
    arr = np.array(values, dtype=dtype, copy=True)
    arr.flags.writeable = False
    return arr


def _non_negative_int(instance: object, attribute: attrs.Attribute[int], value: int) -> None:
    if value < 0:
        raise ValueError(f"{attribute.name} must be a non-negative count, got {value}")


def _as_int(value: object) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"counts must be integers, got {value!r} of type {type(value).__name__}")
    return int(value)


def _is_sum_start(other: object) -> bool:
    """True for the int 0 that ``sum()`` starts from (not for False or 0.0)."""
    return type(other) is int and other == 0


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

    tp: int = attrs.field(converter=_as_int, validator=_non_negative_int)
    fp: int = attrs.field(converter=_as_int, validator=_non_negative_int)
    fn: int = attrs.field(converter=_as_int, validator=_non_negative_int)
    tn: int = attrs.field(default=0, converter=_as_int, validator=_non_negative_int)

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
        # sum() starts from the int 0; treat it as the identity.
        return self if _is_sum_start(other) else NotImplemented

    @property
    def n_samples(self) -> int:
        """Number of samples counted (TP + FP + FN + TN)."""
        return self.tp + self.fp + self.fn + self.tn


def frozen_counts(value: ArrayLike, what: str, *, ndim: int | None = None) -> NDArray[np.int64]:
    """A read-only int64 copy of integer counts, refusing negatives and overflow.

    The checks run on the values as given, before the cast: an unsigned count above
    2**63 - 1 (which int64 would wrap to a negative number) is refused, as are negative
    counts, non-integer dtypes and other shapes than ``ndim`` dimensions.
    """
    arr = np.asarray(value)
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{what} must be {ndim}-D, got shape {arr.shape}")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{what} must be integers, got dtype {arr.dtype}")
    if arr.size:
        if arr.min() < 0:
            raise ValueError(f"{what} must be non-negative, found {arr.min()}")
        if arr.max() > np.iinfo(np.int64).max:
            raise ValueError(f"{what} must fit in int64 (at most 2**63 - 1), found {arr.max()}")
    return frozen_array(arr, np.int64)


def _frozen_int_vector(value: ArrayLike) -> NDArray[np.int64]:
    return frozen_counts(value, "per-class counts", ndim=1)


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

    tp: NDArray[np.int64] = attrs.field(converter=_frozen_int_vector, eq=value_key)
    fp: NDArray[np.int64] = attrs.field(converter=_frozen_int_vector, eq=value_key)
    fn: NDArray[np.int64] = attrs.field(converter=_frozen_int_vector, eq=value_key)
    tn: NDArray[np.int64] = attrs.field(converter=_frozen_int_vector, eq=value_key)

    def __attrs_post_init__(self) -> None:
        sizes = {self.tp.size, self.fp.size, self.fn.size, self.tn.size}
        if len(sizes) != 1:
            raise ValueError(f"tp, fp, fn and tn must have one entry per class, got sizes {sizes}")

    @classmethod
    def zero(cls, n_classes: int) -> ClassCounts:
        """The identity of ``+`` for ``n_classes`` classes."""
        z = np.zeros(n_classes, dtype=np.int64)
        return cls(z, z, z, z)

    @property
    def n_classes(self) -> int:
        return int(self.tp.size)

    @property
    def support(self) -> NDArray[np.int64]:
        """Per-class positives: the true members of each class (TP + FN)."""
        return frozen_array(self.tp + self.fn, np.int64)

    def pooled(self) -> Counts:
        """Counts summed over classes (the input of micro averages)."""
        return Counts(
            int(self.tp.sum()), int(self.fp.sum()), int(self.fn.sum()), int(self.tn.sum())
        )

    def __getitem__(self, k: int) -> Counts:
        return Counts(int(self.tp[k]), int(self.fp[k]), int(self.fn[k]), int(self.tn[k]))

    def __add__(self, other: object) -> ClassCounts:
        if not isinstance(other, ClassCounts):
            return NotImplemented
        if other.n_classes != self.n_classes:
            raise ValueError(f"cannot add counts of {self.n_classes} and {other.n_classes} classes")
        return ClassCounts(
            self.tp + other.tp, self.fp + other.fp, self.fn + other.fn, self.tn + other.tn
        )

    def __radd__(self, other: object) -> ClassCounts:
        # sum() starts from the int 0; treat it as the identity.
        return self if _is_sum_start(other) else NotImplemented


def _frozen_square(value: ArrayLike) -> NDArray[np.int64]:
    arr = np.asarray(value)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(f"a confusion matrix must be square, got shape {arr.shape}")
    return frozen_counts(arr, "a confusion matrix's counts")


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

    matrix: NDArray[np.int64] = attrs.field(converter=_frozen_square, eq=value_key)

    @classmethod
    def zero(cls, n_classes: int) -> ConfusionMatrix:
        return cls(np.zeros((n_classes, n_classes), dtype=np.int64))

    @property
    def n_classes(self) -> int:
        return int(self.matrix.shape[0])

    @property
    def n_samples(self) -> int:
        """Number of samples counted (the sum of the matrix)."""
        return int(self.matrix.sum())

    def class_counts(self) -> ClassCounts:
        """One-vs-rest counts: TP = diagonal, FP = column sum - TP, FN = row sum - TP."""
        tp = np.diag(self.matrix)
        fp = self.matrix.sum(axis=0) - tp
        fn = self.matrix.sum(axis=1) - tp
        tn = self.n_samples - tp - fp - fn
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
        return self if _is_sum_start(other) else NotImplemented
