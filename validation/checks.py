"""Input checks shared by every fmacro package.

Each check either returns a clean, private numpy view/copy of its input or raises
``ValueError``/``TypeError`` whose message names the argument, what was expected
and what was found. Checks never modify the caller's data.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "ZERO_DIVISION_CHOICES",
    "as_float_array",
    "as_label_vector",
    "check_beta",
    "check_fraction",
    "check_same_length",
    "check_zero_division",
    "is_sparse",
]

ZERO_DIVISION_CHOICES = "0.0, 1.0 or nan"


def is_sparse(x: object) -> bool:
    """True for scipy.sparse matrices and arrays, without importing scipy."""
    return hasattr(x, "tocsr") and hasattr(x, "nnz")


def check_beta(beta: object, name: str = "beta") -> float:
    """Return ``beta`` as a float after checking it is finite and > 0."""
    if isinstance(beta, bool) or not isinstance(beta, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a real number > 0, got {type(beta).__name__}")
    value = float(beta)
    if not math.isfinite(value) or value <= 0.0:
        raise ValueError(f"{name} must be a finite number > 0, got {beta!r}")
    return value


def check_zero_division(zero_division: object, name: str = "zero_division") -> float:
    """Return the 0/0 policy as a float: 0.0, 1.0 or nan.

    ``"warn"`` (scikit-learn's default spelling) is accepted and means 0.0.
    """
    if isinstance(zero_division, str):
        if zero_division == "warn":
            return 0.0
        if zero_division.lower() == "nan":
            return math.nan
        raise ValueError(f"{name} must be {ZERO_DIVISION_CHOICES}, got {zero_division!r}")
    if isinstance(zero_division, bool) or not isinstance(
        zero_division, (int, float, np.integer, np.floating)
    ):
        raise TypeError(
            f"{name} must be {ZERO_DIVISION_CHOICES}, got {type(zero_division).__name__}"
        )
    value = float(zero_division)
    if math.isnan(value) or value in (0.0, 1.0):
        return value
    raise ValueError(f"{name} must be {ZERO_DIVISION_CHOICES}, got {zero_division!r}")


def check_fraction(value: object, name: str) -> float:
    """Return ``value`` as a float strictly inside (0, 1)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number in (0, 1), got {type(value).__name__}")
    out = float(value)
    if not (0.0 < out < 1.0):
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {value!r}")
    return out


def check_same_length(**arrays: Any) -> int:
    """Check that every keyword argument has the same first dimension; return it."""
    lengths = {name: _length(a) for name, a in arrays.items()}
    distinct = set(lengths.values())
    if len(distinct) > 1:
        found = ", ".join(f"{name} has {n}" for name, n in lengths.items())
        raise ValueError(f"inputs must have the same number of samples: {found}")
    return distinct.pop() if distinct else 0


def _length(a: Any) -> int:
    shape = getattr(a, "shape", None)
    if shape is not None and len(shape) > 0:
        return int(shape[0])
    return len(a)


def as_float_array(
    x: Any, name: str, *, ndim: int | None = None, allow_empty: bool = False
) -> NDArray[np.float64]:
    """Return ``x`` as a finite float64 array, refusing NaN/inf and bad shapes."""
    if is_sparse(x):
        raise TypeError(f"{name} must be a dense array here, got a sparse matrix")
    if np.iscomplexobj(x):  # float64 would drop the imaginary part with only a warning
        raise TypeError(f"{name} must hold real numbers, got complex values")
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be numeric, got {type(x).__name__}: {exc}") from None
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {arr.shape}")
    if not allow_empty and arr.size == 0:
        raise ValueError(f"{name} is empty; at least one value is needed")
    if not np.isfinite(arr).all():
        bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        raise ValueError(f"{name} contains {bad} NaN or infinite value(s)")
    return arr


def as_label_vector(
    x: Any,
    name: str,
    *,
    classes: Sequence[Hashable] | NDArray[Any] | None = None,
    n_classes: int | None = None,
) -> NDArray[np.int64]:
    """Return a 1-D int64 vector of class indices.

    Parameters
    ----------
    x
        Labels: integers, or arbitrary hashable labels when ``classes`` maps them.
    name
        Argument name used in error messages.
    classes
        Optional sequence of labels; each label is replaced by its position.
    n_classes
        Optional number of classes; integer labels must then lie in ``[0, n_classes)``.
        Without it any integers (negative ones too, e.g. -1/+1) are accepted.
    """
    from fmacro.validation.labels import coerce_labels

    # One rule for every label vector (shape, NaN, mixed types): validation.labels.
    arr = coerce_labels(x, name=name)
    if classes is not None:
        return _map_labels(arr, name, classes)
    if (
        arr.dtype != object
        and arr.dtype.kind in "biu"
        and (arr.dtype.kind != "u" or arr.size == 0 or arr.max() <= np.iinfo(np.int64).max)
    ):
        codes = arr.astype(np.int64, copy=True)
    elif arr.dtype == object and not isinstance(arr[0], str) and isinstance(arr[0], int):
        raise ValueError(f"{name} has integer labels beyond int64; pass classes=[...] to map them")
    else:
        raise TypeError(
            f"{name} must hold integer labels, got {arr.dtype} labels such as {arr[0]!r}; "
            "pass classes=[...] to map arbitrary labels to class indices"
        )
    if n_classes is not None:
        bad = (codes < 0) | (codes >= n_classes)
        if bad.any():
            raise ValueError(
                f"{name} has label(s) outside the declared classes 0..{n_classes - 1}: "
                f"{np.unique(codes[bad])[:5].tolist()}"
            )
    return codes


def _map_labels(
    arr: NDArray[Any], name: str, classes: Sequence[Hashable] | NDArray[Any]
) -> NDArray[np.int64]:
    class_list = (
        list(np.asarray(classes).tolist()) if isinstance(classes, np.ndarray) else list(classes)
    )
    if len(class_list) == 0:
        raise ValueError("classes is empty; at least one class is needed")
    index = {c: i for i, c in enumerate(class_list)}
    if len(index) != len(class_list):
        raise ValueError("classes has duplicate entries")
    values = arr.tolist()
    try:
        codes = np.fromiter((index[v] for v in values), dtype=np.int64, count=len(values))
    except KeyError as exc:
        raise ValueError(
            f"{name} has label {exc.args[0]!r} outside the declared classes {class_list[:10]}"
        ) from None
    except TypeError as exc:
        raise TypeError(f"{name} has an unhashable label: {exc}") from None
    return codes
