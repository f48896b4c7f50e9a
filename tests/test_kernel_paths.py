"""Interpreted and compiled kernels give the same results, bit for bit.

fmacro interprets a kernel instead of compiling it when compiling would cost more
(validation/dispatch.py), so a user's first call (interpreted) and second call
(compiled) must agree exactly. Each test runs one public function twice, once with every
kernel forced to its compiled and once to its interpreted path, and compares the results
exactly: arrays by dtype, shape and bits (NaN positions included), numbers by type and value.
"""

from __future__ import annotations

import math
import os
import struct
import subprocess
import sys
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import attrs
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import sparse as sp

from fmacro import crossval, optimize
from fmacro.validation import BinFValidation, MultiFValidation, MultiLabelFValidation, dispatch
from fmacro.validation.dispatch import forced, interpreted, kernel, kernel_mode
from fmacro.validation.strategies import (
    binary_labels,
    multiclass_labels,
    multilabel_indicators,
    score_matrices,
)

# Diagnostics entries that are times: they differ between any two runs.
_TIMES = ("time", "seconds", "elapsed")


def _same(a: Any, b: Any, where: str = "result") -> None:
    """Assert ``a`` and ``b`` are equal bit for bit (see the module docstring)."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, (
            f"{where}: {a.dtype}{a.shape} vs {b.dtype}{b.shape}"
        )
        if a.dtype == object:
            for i, (x, y) in enumerate(zip(a.ravel(), b.ravel(), strict=True)):
                _same(x, y, f"{where}[{i}]")
        elif a.dtype.kind in "fc":
            nan_a, nan_b = np.isnan(a), np.isnan(b)
            assert np.array_equal(nan_a, nan_b), f"{where}: NaN at different places"
            bits_a = np.where(nan_a, 0, a).view(np.uint8)
            bits_b = np.where(nan_b, 0, b).view(np.uint8)
            assert np.array_equal(bits_a, bits_b), f"{where}: {a!r} vs {b!r}"
        else:
            assert np.array_equal(a, b), f"{where}: {a!r} vs {b!r}"
    elif isinstance(a, float):
        same = (math.isnan(a) and math.isnan(b)) or struct.pack("<d", a) == struct.pack("<d", b)
        assert same, f"{where}: {a!r} vs {b!r}"
    elif isinstance(a, np.generic):
        _same(np.asarray(a), np.asarray(b), where)
    elif sp.issparse(a):
        _same(a.toarray(), b.toarray(), where)
    elif attrs.has(type(a)):
        for field in attrs.fields(type(a)):
            _same(getattr(a, field.name), getattr(b, field.name), f"{where}.{field.name}")
    elif isinstance(a, Mapping):
        assert list(a) == list(b), f"{where}: keys {list(a)} vs {list(b)}"
        for key in a:
            if not any(t in str(key) for t in _TIMES):
                _same(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b), f"{where}: length {len(a)} vs {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{where}[{i}]")
    else:
        assert a == b, f"{where}: {a!r} vs {b!r}"


def _outcome(fn: Callable[[], Any], mode: str) -> tuple[str, Any, list[tuple[type, str]]]:
    """``("ok", result, warnings)`` or ``("raised", (type, message), warnings)`` of
    ``fn()`` on the forced path."""
    with forced(mode), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            outcome: tuple[str, Any] = ("ok", fn())
        except (ValueError, ZeroDivisionError, FloatingPointError) as exc:
            outcome = ("raised", (type(exc), str(exc)))
    return (*outcome, [(w.category, str(w.message)) for w in caught])


def both(fn: Callable[[], Any]) -> Any:
    """``fn()`` on the compiled and on the interpreted path; asserts they agree (results,
    errors and warnings, none of them a RuntimeWarning); returns the result."""
    compiled = _outcome(fn, "compiled")
    interp = _outcome(fn, "interpreted")
    assert compiled[0] == interp[0], f"compiled {compiled} vs interpreted {interp}"
    _same(compiled[1], interp[1])
    assert compiled[2] == interp[2], f"warnings: compiled {compiled[2]} vs {interp[2]}"
    assert not any(issubclass(c, RuntimeWarning) for c, _ in interp[2]), interp[2]
    return compiled[1]


# -- the dispatcher ---------------------------------------------------------------------


def test_modes_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(dispatch.ENV, raising=False)
    assert kernel_mode() == "auto"
    monkeypatch.setenv(dispatch.ENV, "Interpreted")
    assert kernel_mode() == "interpreted"
    with forced("compiled"):
        assert kernel_mode() == "compiled"
    assert kernel_mode() == "interpreted"
    monkeypatch.setenv(dispatch.ENV, "fast")
    with pytest.raises(ValueError, match="FMACRO_KERNELS"):
        kernel_mode()
    with pytest.raises(ValueError, match="mode"), forced("fast"):
        pass


@kernel(cache=False)
def _helper(x: Any) -> Any:
    return x + np.int64(1)


@kernel
def _caller(a: Any, k: int = 2) -> Any:
    total = 0
    for v in a:
        total += _helper(v) * k
    return total, a.sum() > 0


def test_interpreted_kernel_is_python_with_python_callees() -> None:
    fn = interpreted(_caller)
    assert fn is interpreted(_caller)  # built once
    assert fn.__code__ is _caller.py_func.__code__
    assert fn.__globals__["_helper"] is interpreted(_helper)
    assert interpreted(np.sum) is np.sum


def test_paths_of_a_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    a = np.arange(5, dtype=np.int64)
    with forced("interpreted"):
        out = _caller(a)  # default argument, boxed results
    assert out == (30, True) and type(out[0]) is int and type(out[1]) is bool
    assert not _caller.signatures  # nothing compiled
    with forced("compiled"):
        assert _caller(a, 3) == (45, True)
    assert _caller.signatures
    with forced("interpreted"):  # machine code in memory is set aside
        assert _caller(a, 3) == (45, True)
    assert _caller(a, 3) == (45, True)  # and back


def test_auto_interprets_small_inputs_and_compiles_large_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    @kernel
    def add(a: Any) -> Any:
        s = 0.0
        for v in a:
            s += v
        return s

    monkeypatch.delenv(dispatch.ENV, raising=False)
    assert add(np.ones(10)) == 10.0
    assert not add.signatures  # interpreted
    big = int(dispatch.COMPILE_SECONDS / dispatch.SECONDS_PER_ELEMENT) * 100
    assert add(np.ones(big)) == float(big)
    assert add.signatures  # compiled: interpreting it would have cost more


def test_auto_compiles_a_loop_of_small_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    @kernel
    def add(a: Any) -> Any:
        s = 0.0
        for v in a:
            s += v
        return s

    monkeypatch.delenv(dispatch.ENV, raising=False)
    x = np.ones(1000)
    for _ in range(100_000):
        add(x)
        if add.signatures:
            break
    assert add.signatures


def test_a_work_measure_given_to_the_decorator(monkeypatch: pytest.MonkeyPatch) -> None:
    # A kernel whose time is not proportional to its arrays' elements says so.
    @kernel(work=lambda a, rounds: a.size * rounds)
    def repeated(a: Any, rounds: int) -> Any:
        s = 0.0
        for _ in range(rounds):
            for v in a:
                s += v
        return s

    monkeypatch.delenv(dispatch.ENV, raising=False)
    assert repeated(np.ones(3), 2) == 6.0
    assert not repeated.signatures  # interpreted
    assert repeated(np.ones(10), 10**7) == 1e8  # interpreting it would take minutes
    assert repeated.signatures


def test_numba_errors_on_the_interpreted_path() -> None:
    @kernel
    def ratio(a: Any, b: Any) -> Any:
        return a[0] / b[0], np.int64(a[1]) * np.int64(2**62)

    with forced("interpreted"):
        with pytest.raises(ZeroDivisionError):
            ratio(np.array([1.0, 3.0]), np.array([0.0]))
        assert ratio(np.array([1.0, 3.0]), np.array([2.0])) == (0.5, -(2**62))  # wraps
    with forced("compiled"):
        with pytest.raises(ZeroDivisionError):
            ratio(np.array([1.0, 3.0]), np.array([0.0]))
        assert ratio(np.array([1.0, 3.0]), np.array([2.0])) == (0.5, -(2**62))


# -- validations --------------------------------------------------------------------------


@given(binary_labels(), st.sampled_from([0, 1]))
def test_binary_validations(data: Any, positive: int) -> None:
    expected, predicted = data
    both(lambda: BinFValidation.from_predictions(expected, predicted, positive=positive))
    three = np.where(expected == 0, predicted + 2, expected)  # more than two labels
    both(lambda: BinFValidation.from_predictions(three, predicted, positive=positive))


@given(multiclass_labels())
def test_multiclass_validations(data: Any) -> None:
    expected, predicted, k = data
    both(lambda: MultiFValidation.from_predictions(expected, predicted, classes=k))


@given(multilabel_indicators(), st.booleans())
def test_multilabel_validations(data: Any, as_bool: bool) -> None:
    y_true, y_pred = data
    if as_bool:
        y_true, y_pred = y_true.astype(bool), y_pred.astype(np.int64)
    both(lambda: MultiLabelFValidation.from_predictions(y_true, y_pred))


@given(multilabel_indicators(sparse=True))
def test_multilabel_csr_validations(data: Any) -> None:
    y_true, y_pred = data
    both(lambda: MultiLabelFValidation.from_predictions(y_true, y_pred))


@given(multiclass_labels(min_samples=1, max_samples=60), st.data())
def test_weighted_validations(data: Any, draw: st.DataObject) -> None:
    expected, predicted, k = data
    w = draw.draw(hnp.arrays(np.float64, expected.size, elements=st.floats(0.01, 1e6, width=64)))
    both(lambda: MultiFValidation.from_predictions(expected, predicted, classes=k, sample_weight=w))
    e, p = (expected == 0).astype(np.int64), (predicted == 0).astype(np.int64)
    both(lambda: BinFValidation.from_predictions(e, p, sample_weight=w))
    y_true = np.eye(k, dtype=np.uint8)[expected]
    y_pred = np.eye(k, dtype=np.uint8)[predicted]
    both(lambda: MultiLabelFValidation.from_predictions(y_true, y_pred, sample_weight=w))


@pytest.mark.parametrize("parallel", [False, True])
@settings(max_examples=10)
@given(multilabel_indicators(max_samples=60), multiclass_labels())
def test_serial_and_parallel_counting_kernels(parallel: bool, ml: Any, mc: Any) -> None:
    from fmacro.validation import _kernels as k

    y_true, y_pred = ml
    both(lambda: k.multilabel_counts_dense(y_true, y_pred, parallel=parallel))
    both(lambda: k.multilabel_counts_dense(y_true.astype(np.int32), y_pred, parallel=parallel))
    csr_t, csr_p = sp.csr_matrix(y_true), sp.csr_matrix(y_pred)
    both(lambda: k.multilabel_counts_csr(csr_t, csr_p, parallel=parallel))
    expected, predicted, n = mc
    both(lambda: k.confusion_counts(expected, predicted, n, parallel=parallel))
    both(lambda: k.binary_counts(expected, predicted, 1, parallel=parallel))
    both(lambda: k.binary_counts(expected % 2, predicted % 2, 0, parallel=parallel))


# -- threshold search ---------------------------------------------------------------------


def _random_problem(seed: int, n: int, k: int, rate: float) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    scores = rng.random((n, k))
    labels = (rng.random((n, k)) < rate).astype(np.int64)
    labels[rng.integers(0, n, k), np.arange(k)] = 1
    return scores, labels


problems = st.one_of(
    score_matrices(),
    score_matrices(ties=False, max_samples=60),
    st.builds(
        _random_problem,
        st.integers(0, 2**32 - 1),
        st.integers(2, 300),
        st.integers(1, 12),
        st.sampled_from([0.02, 0.1, 0.4]),
    ),
)


@given(problems, st.sampled_from([0.0, 1.0, math.nan]))
def test_class_points(problem: Any, zd: float) -> None:
    scores, labels = problem
    both(lambda: optimize.class_points(scores, labels, zero_division=zd))
    both(lambda: optimize.class_points(sp.csr_matrix(scores), labels, zero_division=zd))


@given(problems, st.sampled_from([0.5, 1.0, 2.0]))
def test_fixed_point_and_exact(problem: Any, beta: float) -> None:
    scores, labels = problem
    both(lambda: optimize.fixed_point(scores, labels, beta=beta, exact=False))
    both(lambda: optimize.fixed_point(scores, labels, beta=beta, polish=True))
    both(lambda: optimize.exact(scores, labels, beta=beta))


@given(problems, st.sampled_from([0.0, 1.0, 3.0, 30.0]))
def test_tune(problem: Any, prior: float) -> None:
    scores, labels = problem
    both(lambda: optimize.tune(scores, labels, prior=prior))


def test_tune_prior_cv() -> None:
    # the halves' hulls go through search.linearization.linearized_cuts and the hull
    # kernels, compiled here too
    scores, labels = _random_problem(7, 240, 6, 0.1)
    both(lambda: optimize.tune(scores, labels, prior="cv"))


def test_tune_ending_on_a_hull_edge() -> None:
    ends = set()
    for seed in range(40):
        scores, labels = _random_problem(seed, 40 + 7 * seed, 1 + seed % 6, 0.2)
        for prior in (1.0, 30.0):
            result = both(lambda: optimize.tune(scores, labels, prior=prior))  # noqa: B023
            ends.add(result.diagnostics["search_diagnostics"]["status"])
        result = both(lambda: optimize.fixed_point(scores, labels, exact=False))  # noqa: B023
        ends.add(result.diagnostics["status"])
    assert ends == {"edge", "fixed_point"}


@given(problems)
def test_baselines(problem: Any) -> None:
    scores, labels = problem
    both(lambda: optimize.per_class(scores, labels))
    both(lambda: optimize.cyclic(scores, labels))
    both(lambda: optimize.global_threshold(scores, labels))
    both(lambda: optimize.localize(scores, labels, grid=6))
    thresholds = np.quantile(scores, 0.5, axis=0)
    both(lambda: optimize.evaluate_thresholds(scores, labels, thresholds))


# -- cross-validation ---------------------------------------------------------------------


@given(st.integers(2, 200), st.integers(2, 10), st.integers(0, 2**32 - 1))
def test_splitters(n: int, k: int, seed: int) -> None:
    assume(k <= n)
    rng = np.random.default_rng(seed)
    X = np.zeros((n, 1))
    y = rng.integers(0, 3, n)
    groups = rng.integers(0, max(k, n // 3), n)
    labels = (rng.random((n, 5)) < 0.3).astype(np.int64)

    def splits(splitter: Any, *args: Any) -> list[Any]:
        return [tuple(part.copy() for part in s) for s in splitter.split(X, *args)]

    both(lambda: splits(crossval.KFold(k=k, seed=seed)))
    both(lambda: splits(crossval.OneFold(seed=seed)))
    both(lambda: splits(crossval.RepeatedKFold(k=k, repeats=2, seed=seed)))
    both(lambda: splits(crossval.StratifiedKFold(k=k, seed=seed), y))
    if len(np.unique(groups)) >= k:
        both(lambda: splits(crossval.GroupKFold(k=k), None, groups))
    for ties in ("labels", "paper"):
        both(lambda: splits(crossval.MultilabelStratifiedKFold(k=k, seed=seed, ties=ties), labels))  # noqa: B023


_WARM = """
import numpy as np
from fmacro.crossval._kernels import group_folds
out = group_folds(np.array([3, 1, 2]), np.array([0, 2, 1]), 2)
assert list(out) == [0, 1, 1], out
print(len(group_folds.signatures), sum(group_folds._cache_hits.values()))
"""


def test_a_warm_process_loads_machine_code_from_the_disk_cache(tmp_path: Any) -> None:
    # A process that compiled (FMACRO_KERNELS=compiled) filled the disk cache; the next
    # process, in the default mode, loads that machine code instead of interpreting.
    env = {k: v for k, v in os.environ.items() if k != dispatch.ENV}
    env["NUMBA_CACHE_DIR"] = str(tmp_path)
    run = [sys.executable, "-c", _WARM]
    cold = subprocess.run(run, env=env, capture_output=True, text=True, check=True)
    assert cold.stdout.split() == ["0", "0"]  # small input: interpreted, nothing compiled
    filled = subprocess.run(
        run, env={**env, dispatch.ENV: "compiled"}, capture_output=True, text=True, check=True
    )
    assert filled.stdout.split() == ["1", "0"]  # compiled, into the disk cache
    warm = subprocess.run(run, env=env, capture_output=True, text=True, check=True)
    assert warm.stdout.split() == ["1", "1"]  # loaded from the disk cache
