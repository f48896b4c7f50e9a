"""Input checks shared by the F-Delta modules (thin wrappers over fmacro.validation.checks)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from fmacro.validation.checks import as_float_array, check_positive_real, is_sparse
from fmacro.validation.weights import check_sample_weight

__all__ = [
    "LabelEncoding",
    "as_features",
    "as_sample_weight",
    "as_weight_vector",
    "check_gamma",
    "check_positive_int",
    "encode_labels",
]

#: accepted label encodings, written as (label of class a, label of class b)
LabelEncoding = tuple[int, int]
ENCODINGS_TEXT = "{-1, +1} (class a = +1, class b = -1) or {0, 1} (class a = 1, class b = 0)"


def as_features(X: Any, name: str = "X") -> NDArray[np.float64]:
    """Return ``X`` as a C-contiguous, finite float64 matrix of shape (n, d)."""
    if is_sparse(X):
        X = X.toarray()
    arr = as_float_array(X, name, ndim=2)
    if arr.shape[1] == 0:
        raise ValueError(f"{name} must have at least one feature column, got shape {arr.shape}")
    return np.ascontiguousarray(arr)


def encode_labels(y: Any, name: str = "y") -> tuple[NDArray[np.bool_], LabelEncoding]:
    """Map labels to a boolean "is class a" mask and remember their encoding.

    Accepted encodings are ``{-1, +1}`` and ``{0, 1}`` (booleans count as ``{0, 1}``);
    in both, 1 is class a (the class whose F-score F-Delta maximizes). Both classes
    must occur.
    """
    if is_sparse(y):
        raise TypeError(f"{name} must be a 1-D label vector, got a sparse matrix")
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty; at least one example of each class is needed")
    if arr.dtype == np.bool_:
        arr = arr.astype(np.int64)
    elif not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"{name} must hold labels in {ENCODINGS_TEXT}, got dtype {arr.dtype}")
    values = np.unique(arr)
    found = set(values.tolist())
    if found <= {-1, 1}:
        encoding: LabelEncoding = (1, -1)
    elif found <= {0, 1}:
        encoding = (1, 0)
    else:
        shown = values[:6].tolist()
        raise ValueError(f"{name} must hold labels in {ENCODINGS_TEXT}; found values {shown}")
    is_a = arr == 1
    n_a = int(np.count_nonzero(is_a))
    if n_a == 0:
        raise ValueError(f"{name} has no examples of class a (label 1); both classes must occur")
    if n_a == arr.size:
        raise ValueError(
            f"{name} has no examples of class b (label {encoding[1]}); both classes must occur"
        )
    return np.ascontiguousarray(is_a), encoding


def as_sample_weight(
    sample_weight: Any, n: int, name: str = "sample_weight"
) -> NDArray[np.float64]:
    """Return per-sample weights as float64 (ones when ``None``).

    The weights pass fmacro's one check of sample weights,
    :func:`fmacro.validation.weights.check_sample_weight`: ``n`` non-negative finite
    numbers, not all zero, summing to at most 2**1022.
    """
    weights = check_sample_weight(sample_weight, n, name)
    if weights is None:
        return np.ones(n, dtype=np.float64)
    return weights


def as_weight_vector(w: Any, d: int, name: str = "w") -> NDArray[np.float64]:
    """Return the paper's weight vector ``[w_0 (bias), w_1, ..., w_d]`` as float64."""
    arr = as_float_array(w, name, ndim=1)
    if arr.shape[0] != d + 1:
        raise ValueError(
            f"{name} must have d + 1 = {d + 1} entries ([bias, w_1..w_d]) for {d} features, "
            f"got {arr.shape[0]}"
        )
    return np.array(arr, dtype=np.float64)  # private copy


def check_gamma(gamma: object, name: str = "gamma") -> float:
    """Return the tanh scaling factor as a float, finite and > 0.

    Any finite positive real number: gamma only scales the activations, so beta's range
    (:func:`~fmacro.validation.checks.check_beta`) does not apply to it.
    """
    return check_positive_real(gamma, name)


def check_positive_int(value: object, name: str, *, minimum: int = 1) -> int:
    """Return ``value`` as an int >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer >= {minimum}, got {type(value).__name__}")
    if int(value) < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)
