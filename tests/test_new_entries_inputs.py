"""The entry points added for uncertainty and deployability leave the caller's arrays as
they were (values and writeable flags), and take read-only arrays."""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp

from fmacro.optimize import held_out_interval, tune
from fmacro.optimize.deployment import predict_everything_classes
from fmacro.validation import (
    BinFValidation,
    MultiFValidation,
    MultiLabelFValidation,
    compare,
)


def _snapshot(*arrays: np.ndarray) -> list[tuple[np.ndarray, bool]]:
    return [(a.copy(), a.flags.writeable) for a in arrays]


def _same(arrays: tuple[np.ndarray, ...], before: list[tuple[np.ndarray, bool]]) -> None:
    for a, (copy, writeable) in zip(arrays, before, strict=True):
        np.testing.assert_array_equal(a, copy)
        assert a.flags.writeable == writeable


def test_bootstrap_compare_and_the_interval_leave_inputs_unchanged() -> None:
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 200)
    a, b = y.copy(), rng.integers(0, 3, 200)
    a[:40] = b[:40]
    Y = (rng.random((200, 4)) < 0.3).astype(np.int64)
    P = (rng.random((200, 4)) < 0.3).astype(np.int64)
    S = rng.random((200, 4)) + 0.4 * Y
    read_only = S.copy()
    read_only.flags.writeable = False
    arrays = (y, a, b, Y, P, S, read_only)
    before = _snapshot(*arrays)
    boot = MultiFValidation.from_predictions(y, a, keep_outcomes=True).bootstrap(50, seed=0)
    assert boot.interval("f_macro")[0] <= boot.interval("f_macro")[1]
    BinFValidation.from_predictions(y == 1, a == 1, keep_outcomes=True).bootstrap(50, seed=0)
    MultiLabelFValidation.from_predictions(Y, P, keep_outcomes=True).bootstrap(50, seed=0)
    MultiLabelFValidation.from_predictions(
        sp.csr_matrix(Y), sp.csr_matrix(P), keep_outcomes=True
    ).bootstrap(20)
    compare(y, a, b, n_resamples=50, seed=0)
    compare(Y, P, Y, n_resamples=50, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = held_out_interval(read_only, Y, n_resamples=20, seed=0, n_draws=100)
        predict_everything_classes(tune(read_only, Y))
    assert found.low <= found.high
    _same(arrays, before)
