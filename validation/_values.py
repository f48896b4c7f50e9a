"""Equality and hashing by value for fmacro's frozen value classes.

attrs compares and hashes fields as they are, which fails for two kinds of field:
numpy arrays (``==`` is element-wise, and arrays are unhashable) and NaN (``nan != nan``,
so a validation built with ``zero_division=nan`` differs from an identical one). Each
such field is declared ``attrs.field(eq=value_key)``: attrs then compares and hashes
``value_key(field)`` instead, for ``==`` and ``hash()`` alike.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from fmacro.validation.checks import is_sparse

__all__ = ["value_key"]


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
