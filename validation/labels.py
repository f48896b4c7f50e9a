"""The one rule for class labels, shared by lists, numpy, pandas and label files.

:func:`coerce_labels` turns one label vector into a clean numpy vector or refuses it;
:func:`coerce_label_pair` does it for expected and predicted together. Every validation
and every CLI reader goes through them, so a label means the same thing everywhere.

The rule
--------
Shape
    A 1-D sequence, or an ``(n, 1)`` column (flattened). A ``(1, n)`` row, a 0-d scalar, an
    ``(n, k)`` matrix with ``k > 1`` and sparse matrices are refused.
Kinds of label
    *numbers*: bool, integers of any width, and floats with an integral value (``2.0`` is
    the label ``2``); *strings* (``str``); or other hashable objects of one Python type.
Same label
    Numbers are the same label when they are equal as numbers (``1 == 1.0 == True``);
    strings when they are equal as text (``"1" != "01"``). Integers are kept exactly
    (never through float64): beyond int64 they stay Python ints.
pandas
    Series and DataFrames of nullable or pyarrow dtypes (``Int64``, ``UInt8``, ``boolean``,
    ``Float64``, ``int8[pyarrow]``, ...) are read as the numpy dtype they hold
    (:func:`numpy_from_pandas`); a missing entry is refused with its position.
Refused
    A missing label (``NaN``, ``None``, ``pandas.NA``/``NaT``) or an infinite float
    (``ValueError``); a non-integral float, complex numbers, and a mix of kinds in one
    vector or between expected and predicted (``"1"`` and ``1``), ``TypeError``: like
    scikit-learn, fmacro does not guess whether the string ``"2"`` and the number ``2``
    are one class. With declared ``classes=``, each label must equal one of them (``"2"``
    never matches the class ``2``).
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

__all__ = ["LabelKind", "coerce_label_pair", "coerce_labels", "label_kind", "numpy_from_pandas"]

LabelKind = Literal["number", "string", "object"]

_INT64 = np.iinfo(np.int64)


def _numeric_numpy_dtype(dtype: Any) -> np.dtype[Any] | None:
    """The numpy dtype a bool, integer or float (pandas) dtype stands for, else ``None``."""
    if isinstance(dtype, np.dtype):
        return dtype if dtype.kind in "biuf" else None
    # pandas masked (Int64, boolean, Float64) and pyarrow dtypes name their numpy dtype
    numpy_dtype = getattr(dtype, "numpy_dtype", None)
    if isinstance(numpy_dtype, np.dtype) and numpy_dtype.kind in "biuf":
        return numpy_dtype
    return None


def numpy_from_pandas(values: Any, *, name: str, what: str = "value") -> Any:
    """A pandas Series/DataFrame of nullable or pyarrow numbers as a numpy array.

    pandas' nullable (``Int64``, ``UInt8``, ``boolean``, ``Float64``) and pyarrow
    (``int8[pyarrow]``, ``bool[pyarrow]``, ``double[pyarrow]``) dtypes become an object
    array under ``np.asarray``, which no numeric check takes. Here they become the numpy
    dtype they hold (columns of several such dtypes: their common numpy dtype), and a
    missing entry (``pd.NA``, or NaN/None in such a column) is refused with its position:
    it is never turned into 0, 1 or NaN. Anything else (numpy arrays, lists, pandas
    objects of numpy or non-numeric dtypes) is returned unchanged for the caller's own
    checks. pandas is not imported: inputs are recognised by duck typing.

    Parameters
    ----------
    values
        Any input.
    name
        The argument's name, for the error message.
    what
        What one entry is ("label", "score", ...), for the error message.

    Returns
    -------
    ndarray or the input unchanged
        A new numpy array (never a view of the caller's data) when converted.

    Raises
    ------
    ValueError
        A nullable or pyarrow numeric input holds a missing entry.

    Examples
    --------
    >>> import pandas as pd
    >>> numpy_from_pandas(pd.Series([1, 0, 1], dtype="Int64"), name="y").dtype
    dtype('int64')
    >>> numpy_from_pandas(pd.Series([1, None], dtype="boolean"), name="y", what="label")
    Traceback (most recent call last):
    ...
    ValueError: y has a missing label (NaN/NA) at position 1
    """
    if isinstance(values, np.ndarray) or not (
        hasattr(values, "to_numpy") and hasattr(values, "isna")
    ):
        return values
    two_d = getattr(values, "ndim", None) == 2 and hasattr(values, "dtypes")
    dtypes = list(values.dtypes) if two_d else [getattr(values, "dtype", None)]
    if all(isinstance(d, np.dtype) for d in dtypes):
        return values  # numpy-backed: np.asarray reads it as it is
    numpy_dtypes = [_numeric_numpy_dtype(d) for d in dtypes]
    if not numpy_dtypes or any(d is None for d in numpy_dtypes):
        return values  # strings, categoricals, dates: the caller's rule applies
    missing = np.asarray(values.isna().to_numpy(), dtype=bool)
    if missing.any():
        if two_d:
            row, col = (int(i) for i in np.argwhere(missing)[0])
            where = f"row {row}, column {values.columns[col]!r}"
        else:
            where = f"position {int(np.flatnonzero(missing)[0])}"
        raise ValueError(f"{name} has a missing {what} (NaN/NA) at {where}")
    out: NDArray[Any] = values.to_numpy(dtype=np.result_type(*numpy_dtypes), copy=True)
    return out


def _as_array(values: Any, name: str) -> NDArray[Any]:
    if hasattr(values, "tocsr") and hasattr(values, "nnz"):
        raise TypeError(f"{name} must be a 1-D sequence of labels, got a sparse matrix")
    if isinstance(values, (str, bytes)):
        raise TypeError(
            f"{name} must be a sequence of labels, got a single {type(values).__name__}"
        )
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        # nullable/pyarrow numbers: their numpy dtype (a missing entry refused here)
        values = numpy_from_pandas(values, name=name, what="label")
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        values = values.to_numpy()  # pandas: other extension dtypes become object
    if isinstance(values, np.ndarray):
        return values
    if np.ndim(values) == 0:
        return np.asarray(values, dtype=object)
    # Lists and tuples: object dtype, so numpy never turns 1 into "1" next to a string.
    arr = np.empty(len(values), dtype=object) if _is_flat(values) else None
    if arr is not None:
        arr[:] = list(values)
        return arr
    return np.asarray(values, dtype=object)


def _is_flat(values: Any) -> bool:
    try:
        return all(not isinstance(v, (list, tuple, np.ndarray)) for v in values)
    except TypeError:
        raise TypeError(f"labels must be a sequence, got {type(values).__name__}") from None


def _shape_checked(arr: NDArray[Any], name: str) -> NDArray[Any]:
    if arr.ndim == 0:
        raise ValueError(f"{name} must be a 1-D sequence of labels, got a single value {arr!r}")
    if arr.ndim == 2 and arr.shape[1] == 1:
        return arr.reshape(-1)
    if arr.ndim != 1:
        hint = (
            "; a (1, n) row is not a label vector, pass a 1-D array or an (n, 1) column"
            if arr.ndim == 2 and arr.shape[0] == 1
            else "; a 0/1 indicator matrix is multi-label data (MultiLabelFValidation, "
            "--kind multilabel)"
            if arr.ndim == 2
            else ""
        )
        raise ValueError(f"{name} must be 1-dimensional, got shape {arr.shape}{hint}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty; at least one label is needed")
    return arr


def _missing(v: Any) -> bool:
    if v is None:
        return True
    if isinstance(v, float | np.floating):
        return math.isnan(v)
    # pandas.NA, NaT and numpy datetime NaT compare unequal to themselves or refuse bool().
    try:
        return bool(v != v)
    except (TypeError, ValueError):
        return True


def _float_to_int(arr: NDArray[np.floating[Any]], name: str) -> NDArray[Any]:
    finite = np.isfinite(arr)
    if not finite.all():
        i = int(np.flatnonzero(~finite)[0])
        what = "a missing label (NaN)" if np.isnan(arr[i]) else "an infinite label"
        raise ValueError(f"{name} has {what} at position {i}")
    integral = arr == np.round(arr)
    if not integral.all():
        i = int(np.flatnonzero(~integral)[0])
        raise TypeError(
            f"{name} has the non-integral label {arr[i].item()!r} at position {i}; class "
            "labels must be integer labels or strings (scikit-learn calls such targets "
            "'continuous')"
        )
    if (np.abs(arr) < 2.0**63).all():
        return arr.astype(np.int64)
    return _exact_ints([int(v) for v in arr.tolist()])


def _exact_ints(values: list[int]) -> NDArray[Any]:
    if all(_INT64.min <= v <= _INT64.max for v in values):
        return np.asarray(values, dtype=np.int64)
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _kind_of(v: Any) -> str:
    if isinstance(v, str):
        return "string"
    if isinstance(v, bool | np.bool_ | numbers.Integral):
        return "integer"
    if isinstance(v, numbers.Real) and not isinstance(v, numbers.Integral):
        return "float"
    if isinstance(v, numbers.Complex):
        return "complex"
    return type(v).__name__


def _from_objects(arr: NDArray[Any], name: str) -> tuple[NDArray[Any], LabelKind]:
    values = arr.tolist()
    kinds: dict[str, int] = {}
    for i, v in enumerate(values):
        if _missing(v):
            raise ValueError(f"{name} has a missing label (NaN/None: {v!r}) at position {i}")
        kinds.setdefault(_kind_of(v), i)
    numeric = {"integer", "float"}
    if "complex" in kinds:
        raise TypeError(f"{name} has the complex label {values[kinds['complex']]!r}")
    if len(kinds) > 1 and not set(kinds) <= numeric:
        a, b = sorted(kinds, key=kinds.__getitem__)[:2]
        raise TypeError(
            f"{name} mixes label types: {values[kinds[a]]!r} ({a}, position {kinds[a]}) and "
            f"{values[kinds[b]]!r} ({b}, position {kinds[b]}); convert every label to str or "
            "to int (scikit-learn refuses such a mix too)"
        )
    if set(kinds) <= numeric:
        if "float" in kinds:
            return _exact_ints([_int_of(v, name, i) for i, v in enumerate(values)]), "number"
        if all(isinstance(v, bool | np.bool_) for v in values):
            return np.asarray(values, dtype=bool), "number"
        return _exact_ints([int(v) for v in values]), "number"
    out = np.empty(len(values), dtype=object)
    out[:] = [str(v) for v in values] if "string" in kinds else values
    try:
        {hash(v) for v in values}
    except TypeError as exc:
        raise TypeError(f"{name} has an unhashable label: {exc}") from None
    return out, "string" if "string" in kinds else "object"


def _int_of(v: Any, name: str, i: int) -> int:
    if isinstance(v, numbers.Integral):
        return int(v)
    f = float(v)
    if not math.isfinite(f):
        raise ValueError(f"{name} has an infinite label at position {i}")
    if f != round(f):
        raise TypeError(
            f"{name} has the non-integral label {v!r} at position {i}; class labels must be "
            "integer labels or strings"
        )
    return int(f)


def label_kind(labels: NDArray[Any]) -> LabelKind:
    """The kind of a vector returned by :func:`coerce_labels`."""
    if labels.dtype.kind == "U":
        return "string"
    if labels.dtype != object:
        return "number"
    first = labels[0]
    if isinstance(first, str):
        return "string"
    return "number" if isinstance(first, numbers.Integral) else "object"


def coerce_labels(values: Any, *, name: str) -> NDArray[Any]:
    """One label vector under the module's rule, or a ``ValueError``/``TypeError``.

    Returns
    -------
    ndarray, shape (n,)
        bool, an integer or numpy string dtype (such input is returned as it is, as a
        read-only view), int64 (integral floats), or object holding Python ``str``
        (strings), Python ``int`` (integers beyond int64) or other hashable objects. Never
        the caller's array itself.

    Examples
    --------
    >>> coerce_labels([1.0, 2.0], name="y").tolist()
    [1, 2]
    >>> coerce_labels(["cat", 1], name="y")
    Traceback (most recent call last):
    ...
    TypeError: y mixes label types: 'cat' (string, position 0) and 1 (integer, position 1); \
convert every label to str or to int (scikit-learn refuses such a mix too)
    """
    arr = _shape_checked(_as_array(values, name), name)
    kind = arr.dtype.kind
    if kind in "biuU":
        # Already one kind (numbers, or numpy strings): a read-only view, no copy.
        view: NDArray[Any] = arr.view()
        view.flags.writeable = False
        return view
    if kind == "f":
        return _float_to_int(arr, name)
    if kind == "S":
        out = np.empty(arr.size, dtype=object)
        out[:] = [b.decode("utf-8") for b in arr.tolist()]
        return out
    if kind == "O":
        return _from_objects(arr, name)[0]
    raise TypeError(
        f"{name} must hold integer or string labels, got dtype {arr.dtype}"
        + ("" if kind != "c" else " (complex)")
    )


def coerce_label_pair(
    expected: Any, predicted: Any, names: tuple[str, str] = ("expected", "predicted")
) -> tuple[NDArray[Any], NDArray[Any]]:
    """Both vectors under the rule, refusing a mix of kinds between them.

    Lengths are not compared here (the callers report them with their own names).
    """
    e = coerce_labels(expected, name=names[0])
    p = coerce_labels(predicted, name=names[1])
    ke, kp = label_kind(e), label_kind(p)
    if ke != kp:
        raise TypeError(
            f"{names[0]} holds {ke} labels (such as {e[:1].tolist()[0]!r}) but {names[1]} holds "
            f"{kp} labels (such as {p[:1].tolist()[0]!r}); convert both to str or both to int "
            "(scikit-learn refuses such a mix too)"
        )
    return e, p
