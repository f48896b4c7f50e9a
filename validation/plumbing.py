"""Shared plumbing of the Validation classes: running ``predict`` and label intake."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fmacro.validation.checks import (
    as_label_vector,
    check_bool_bytes,
    check_fits_int64,
    check_same_length,
    is_sparse,
)

__all__ = [
    "check_jitted_label_type",
    "check_jitted_positive",
    "collect_predictions",
    "fast_labels",
    "is_numba_function",
    "jitted_inputs",
    "jitted_observations",
    "observations_array",
]


def is_numba_function(fn: object) -> bool:
    """True for a numba ``@njit`` dispatcher (it can run inside a compiled loop)."""
    return type(fn).__module__.startswith("numba") and hasattr(fn, "py_func")


def fast_labels(x: Any, name: str, *, n_classes: int | None = None) -> NDArray[Any]:
    """Integer labels ready for a kernel, without copying integer arrays.

    Integer and bool numpy vectors pass through (the kernels never write to them and
    check label ranges themselves); anything else goes through :func:`as_label_vector`.
    """
    if (
        isinstance(x, np.ndarray)
        and x.ndim == 1
        and x.size > 0
        and (np.issubdtype(x.dtype, np.integer) or x.dtype == np.bool_)
    ):
        # The kernels compare labels as int64: a uint64 above 2**63 - 1 would wrap
        # (2**64 - 1 would equal -1) and a bool's raw byte other than 0/1 would count.
        if x.dtype == np.bool_:
            check_bool_bytes(x, name)
        else:
            check_fits_int64(x, name)
        return np.ascontiguousarray(x)
    return as_label_vector(x, name, n_classes=n_classes)


def jitted_inputs(
    expected: Any, observations: Any, n_classes: int | None = None
) -> tuple[NDArray[Any], NDArray[Any]]:
    """Labels and observations for a kernel that calls a numba-jitted ``predict``."""
    obs = jitted_observations(observations)
    e = fast_labels(expected, "expected", n_classes=n_classes)
    check_same_length(expected=e, observations=obs)
    return e, obs


def check_jitted_label_type(predict: Callable[..., Any], observations: NDArray[Any]) -> None:
    """Refuse a jitted ``predict`` that returns something other than an integer label.

    Inside the compiled loop a float (a probability) would be truncated to an integer
    (0.7 -> 0) without a word; a jitted function returns one type for one input type, so
    calling it once on the first observation tells the type of every result.
    """
    if observations.shape[0] == 0:
        return
    value = predict(observations[0])
    if not isinstance(value, (int, np.integer, bool, np.bool_)):
        raise TypeError(
            "predict must return an integer label for each observation; "
            f"observation 0 gave {value!r} of type {type(value).__name__}"
        )


def check_jitted_positive(positive: Any) -> int:
    """The positive label as an int for the compiled loop; other types are refused."""
    if not isinstance(positive, (int, np.integer, bool, np.bool_)):
        raise TypeError(
            "a numba-jitted predict compares integer labels, so positive must be an integer, "
            f"got {positive!r} of type {type(positive).__name__}"
        )
    return int(positive)


def jitted_observations(observations: Any) -> NDArray[Any]:
    """Observations as the numpy array a kernel calling a jitted ``predict`` indexes."""
    obs = observations_array(observations)
    if not isinstance(obs, np.ndarray):
        raise TypeError(
            "a numba-jitted predict needs observations as a numpy array, "
            f"got {type(observations).__name__}"
        )
    return obs


def observations_array(observations: Any) -> Any:
    """Observations as something indexable by position (numpy for arrays and pandas)."""
    if is_sparse(observations):
        return observations.tocsr()
    if hasattr(observations, "to_numpy"):
        return observations.to_numpy()
    return observations


def collect_predictions(
    predict: Callable[..., Any],
    observations: Any,
    n_expected: int,
    *,
    batched: bool,
    integer_labels: bool = True,
) -> Any:
    """Run ``predict`` over the observations and return the raw predictions.

    ``n_expected`` is the number of observations, which the caller has already checked
    against the length of ``expected`` (it is not checked again here); the result holds
    exactly ``n_expected`` predictions.

    ``batched=False`` calls ``predict`` once per observation (the contract of
    *Scala for Machine Learning*, Nicolas 2015);
    ``batched=True`` calls it once on all observations and expects one prediction
    per observation back. With ``integer_labels`` each per-observation result must be
    an integer label (checked here, so a wrong ``predict`` fails with a clear message).
    """
    if not callable(predict):
        raise TypeError(f"predict must be callable, got {type(predict).__name__}")
    obs = observations_array(observations)
    if batched:
        predicted = predict(obs)
        try:
            n_predicted = len(predicted) if not hasattr(predicted, "shape") else predicted.shape[0]
        except TypeError:
            raise TypeError(
                f"predict (batched=True) must return one prediction per observation, "
                f"got {type(predicted).__name__}"
            ) from None
        if n_predicted != n_expected:
            raise ValueError(
                f"predict (batched=True) returned {n_predicted} predictions for "
                f"{n_expected} observations"
            )
        return predicted
    out = []
    for i in range(n_expected):
        value = predict(obs[i])
        if integer_labels and not isinstance(value, (int, np.integer, bool, np.bool_)):
            raise TypeError(
                f"predict must return an integer label for each observation; "
                f"observation {i} gave {value!r} of type {type(value).__name__}"
            )
        out.append(value)
    return np.asarray(out, dtype=np.int64) if integer_labels else out
