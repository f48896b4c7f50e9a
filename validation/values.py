"""Equality and hashing by value for fmacro's frozen value classes.

attrs compares and hashes fields as they are, which fails for two kinds of field:
numpy arrays (``==`` is element-wise, and arrays are unhashable) and NaN (``nan != nan``,
so a validation built with ``zero_division=nan`` differs from an identical one). Each
such field is declared ``attrs.field(eq=value_key)``: attrs then compares and hashes
``value_key(field)`` instead, for ``==`` and ``hash()`` alike.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, TypeVar, cast

import attrs
import numpy as np

from fmacro.validation.checks import is_sparse

__all__ = ["freeze_arrays", "read_only_copies", "value_key"]


class _NaN:
    """The key of every NaN: equal to itself, one hash."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NaN"


_NAN = _NaN()


def value_key(value: Any) -> Any:
    """A hashable stand-in for ``value`` that is equal exactly when the values are equal.

    * a numpy array: its shape, dtype and contents (NaN entries equal, -0.0 == 0.0;
      object arrays element by element);
    * a scipy.sparse matrix: its shape and canonical CSR contents;
    * a float NaN: one NaN key;
    * a tuple or list: the tuple of its items' keys;
    * anything else: itself.
    """
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            items = tuple(value_key(v) for v in value.ravel().tolist())
            return ("ndarray", value.shape, "O", items)
        if value.dtype.kind in "fc":
            value = np.where(np.isnan(value), np.nan, value + 0)  # one NaN, no -0.0
        return ("ndarray", value.shape, value.dtype.str, value.tobytes())
    if is_sparse(value):
        csr = value.tocsr(copy=True)
        csr.sum_duplicates()
        csr.eliminate_zeros()
        csr.sort_indices()
        return (
            "sparse",
            csr.shape,
            *(value_key(np.asarray(a)) for a in (csr.data, csr.indices, csr.indptr)),
        )
    if isinstance(value, float) and math.isnan(value):
        return _NAN
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(value_key(v) for v in value))
    return value


# -- read-only after pickle and copy ------------------------------------------------
#
# numpy drops the read-only flag when an array is pickled or deep-copied, so a frozen
# value would come back from ``pickle``, ``copy.deepcopy`` or a process pool with
# writeable arrays (and lazily cached measures computed from them).  Every value class
# holding arrays is decorated with :func:`read_only_copies`: its copies are rebuilt from
# the attrs fields alone (caches are dropped and recomputed) and every array they hold
# is made read-only again.

_T = TypeVar("_T")


def freeze_arrays(value: Any) -> Any:
    """Make every numpy array in ``value`` read-only, in place, and return ``value``.

    Looks inside tuples, lists and mappings (their values); other objects (nested value
    classes rebuild themselves) are left as they are.
    """
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
        if value.dtype == object:
            for item in value.ravel().tolist():
                freeze_arrays(item)
    elif isinstance(value, (tuple, list)):
        for item in value:
            freeze_arrays(item)
    elif isinstance(value, Mapping):
        for item in value.values():
            freeze_arrays(item)
    return value


def _rebuild_value(cls: type[_T], values: tuple[Any, ...]) -> _T:
    """A value of ``cls`` holding ``values`` (one per attrs field), arrays read-only."""
    obj = cls.__new__(cls)
    for field, value in zip(attrs.fields(cast(Any, cls)), values, strict=True):
        object.__setattr__(obj, field.name, freeze_arrays(value))
    return obj


def _reduce_value(self: Any) -> tuple[Any, ...]:
    cls = type(self)
    return (_rebuild_value, (cls, tuple(getattr(self, f.name) for f in attrs.fields(cls))))


def _copy_value(self: _T) -> _T:
    # A frozen value is its own shallow copy (as a tuple is).
    return self


def read_only_copies(cls: type[_T]) -> type[_T]:
    """Class decorator (outside ``@attrs.frozen``): pickle/deepcopy keep arrays read-only.

    ``pickle`` and ``copy.deepcopy`` rebuild the value from its fields with every array
    read-only; ``copy.copy`` returns the value itself. Subclasses inherit the behaviour.
    """
    if not attrs.has(cast(type, cls)):
        raise TypeError(f"read_only_copies decorates attrs classes, got {cls.__name__}")
    setattr(cls, "__reduce__", _reduce_value)  # noqa: B010 - mypy forbids method assignment
    setattr(cls, "__copy__", _copy_value)  # noqa: B010
    return cls
