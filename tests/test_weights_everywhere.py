"""``sample_weight`` on every threshold method and evaluation (issue 28, item 1).

* Integer weights are repeated rows: every method on ``(S, Y, w)`` gives the thresholds,
  cuts, F, P, R and bounds it gives on the rows repeated ``w`` times (``np.repeat``; a
  weight 0 is a row that is not there), dense and sparse (Hypothesis, w in 0..3).
* Fractional weights: each method on weights is the method on
  ``points=class_points(S, Y, sample_weight=w)``.
* Bad weights are refused naming ``sample_weight``; the caller's arrays are not changed;
  a weighted call differs from an unweighted one where it must.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from fmacro import optimize
from fmacro.optimize import (
    argv_curve,
    brute_force,
    class_points,
    cyclic,
    domain,
    etu,
    evaluate_thresholds,
    exact,
    f_macro,
    fixed_point,
    global_threshold,
    localize,
    per_class,
    proportional,
    top_k,
    tune,
)
from fmacro.optimize.search.brute_force import brute_force_exact

# examples per test: the profile's (tests/conftest.py)
SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
ZERO_DIVISIONS = st.sampled_from([0.0, 1.0, math.nan])
BETAS = st.sampled_from([0.5, 1.0, 2.0])


@st.composite
def weighted_problems(
    draw: st.DrawFn, max_rows: int = 7, max_classes: int = 3, levels: int = 4
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Small scores with ties (``levels`` values), labels and integer weights 0..3, with a
    class holding a positive of non-zero weight."""
    n = draw(st.integers(2, max_rows))
    k = draw(st.integers(1, max_classes))
    s = np.array(draw(st.lists(st.integers(0, levels - 1), min_size=n * k, max_size=n * k)))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n * k, max_size=n * k)))
    w = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    s, y = s.reshape(n, k) / (levels - 1), y.reshape(n, k)
    assume(bool((y[w > 0] == 1).any()))
    return s, y, w


def repeated(s: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    rows = np.repeat(np.arange(w.size), w)
    return s[rows], y[rows]


def as_format(s: np.ndarray, y: np.ndarray, sparse: bool) -> tuple[Any, Any]:
    return (sp.csr_matrix(s), sp.csr_matrix(y)) if sparse else (s, y)


def same_float(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def assert_same_result(a: Any, b: Any) -> None:
    """Thresholds, cuts, F, P, R and bounds equal, bit for bit (NaN equal to NaN)."""
    np.testing.assert_array_equal(a.thresholds, b.thresholds)
    np.testing.assert_array_equal(a.cuts, b.cuts)
    for field in ("f", "precision", "recall", "upper_bound", "gap"):
        x, z = float(getattr(a, field)), float(getattr(b, field))
        assert same_float(x, z), (field, x, z)


# Methods taking scores, labels and sample_weight, with the options each is run with.
SEARCHES: dict[str, Callable[..., Any]] = {
    "fixed_point": fixed_point,
    "fixed_point(exact=False)": lambda *a, **k: fixed_point(*a, exact=False, **k),
    "fixed_point(polish=True)": lambda *a, **k: fixed_point(*a, exact=False, polish=True, **k),
    "exact": exact,
    "domain": domain,
    "domain(n_angles=None)": lambda *a, **k: domain(*a, n_angles=None, **k),
    "per_class": per_class,
    "cyclic": cyclic,
    "global_threshold": global_threshold,
    "proportional": proportional,
    "brute_force": brute_force,
}


# --------------------------------------------------------------------------- repeated rows


@SETTINGS
@given(weighted_problems(), st.booleans(), BETAS, ZERO_DIVISIONS)
def test_search_methods_on_integer_weights_are_the_repeated_rows(
    data: tuple, sparse: bool, beta: float, zd: float
) -> None:
    s, y, w = data
    s_rep, y_rep = repeated(s, y, w)
    for name, method in SEARCHES.items():
        a = method(*as_format(s, y, sparse), beta=beta, zero_division=zd, sample_weight=w)
        b = method(*as_format(s_rep, y_rep, sparse), beta=beta, zero_division=zd)
        try:
            assert_same_result(a, b)
        except AssertionError as err:
            raise AssertionError(name) from err


@SETTINGS
@given(weighted_problems(), st.booleans())
def test_class_points_of_integer_weights_are_the_repeated_rows(data: tuple, sparse: bool) -> None:
    """The cuts of weight-0 rows are gone, and the last cut of a truncated sparse list is
    there iff an object of non-zero weight is not retrieved."""
    s, y, w = data
    a = class_points(*as_format(s, y, sparse), sample_weight=w)
    b = class_points(*as_format(*repeated(s, y, w), sparse))
    assert a.weighted and not b.weighted
    for field in ("indptr", "tp", "fp", "threshold", "support", "class_index"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field), err_msg=field)
    assert a.n_samples == b.n_samples == w.sum()


@SETTINGS
@given(weighted_problems(), st.booleans(), ZERO_DIVISIONS, st.integers(1, 4))
def test_top_k_on_integer_weights_is_the_repeated_rows(
    data: tuple, sparse: bool, zd: float, k_max: int
) -> None:
    s, y, w = data
    s_rep, y_rep = repeated(s, y, w)
    for options in ({}, {"k_max": k_max}):
        a = top_k(*as_format(s, y, sparse), zero_division=zd, sample_weight=w, **options)
        b = top_k(*as_format(s_rep, y_rep, sparse), zero_division=zd, **options)
        assert_same_result(a, b)
        assert a.diagnostics["k"] == b.diagnostics["k"]
        np.testing.assert_array_equal(a.diagnostics["f_by_k"], b.diagnostics["f_by_k"])


@SETTINGS
@given(weighted_problems(), st.booleans(), ZERO_DIVISIONS, st.sampled_from(["exclude", "include"]))
def test_evaluations_on_integer_weights_are_the_repeated_rows(
    data: tuple, sparse: bool, zd: float, empty_classes: str
) -> None:
    s, y, w = data
    assume(not (math.isnan(zd) and empty_classes == "include"))
    s_rep, y_rep = repeated(s, y, w)
    rng = np.random.default_rng(int(s.sum() * 8 + w.sum()))
    thresholds = rng.choice([-np.inf, 0.0, 1 / 3, 2 / 3, 1.0, np.inf], size=s.shape[1])
    options = {"zero_division": zd, "empty_classes": empty_classes}
    a = evaluate_thresholds(*as_format(s, y, sparse), thresholds, sample_weight=w, **options)
    b = evaluate_thresholds(*as_format(s_rep, y_rep, sparse), thresholds, **options)
    assert a.tp.dtype == np.float64 and b.tp.dtype == np.int64
    for field in ("f", "precision", "recall"):
        assert same_float(getattr(a, field), getattr(b, field)), field
    for field in ("class_index", "tp", "fp", "support", "class_precision", "class_recall"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field), err_msg=field)
    np.testing.assert_array_equal(a.class_f, b.class_f)
    f = f_macro(*as_format(s, y, sparse), thresholds, sample_weight=w, **options)
    assert same_float(f, a.f)


# tune's options: prior, n_eval, unseen, base rates, method; each also runs with the other
# zero_division values and beta
TUNE_OPTIONS = st.fixed_dictionaries(
    {
        "prior": st.sampled_from([0.0, 1.0, 3.0]),
        "n_eval": st.sampled_from([None, 1.0, 5.0, math.inf]),
        "unseen": st.sampled_from(["prior", "never"]),
        "method": st.sampled_from(["fixed_point", "exact", "per_class", "cyclic", "domain"]),
        "zero_division": ZERO_DIVISIONS,
        "beta": BETAS,
    }
)


@SETTINGS
@given(weighted_problems(), st.booleans(), TUNE_OPTIONS, st.booleans())
def test_tune_on_integer_weights_is_the_repeated_rows(
    data: tuple, sparse: bool, options: dict, given_rates: bool
) -> None:
    """Weighted tune smooths weighted counts with n_eval defaulting to the total weight:
    the repeated rows' result (which takes the fused walk), unseen classes included."""
    s, y, w = data
    s_rep, y_rep = repeated(s, y, w)
    if given_rates:
        options = {**options, "base_rates": np.linspace(0.1, 0.9, s.shape[1])}
    a = tune(*as_format(s, y, sparse), sample_weight=w, **options)
    b = tune(*as_format(s_rep, y_rep, sparse), **options)
    assert_same_result(a, b)
    assert a.diagnostics["n_eval"] == b.diagnostics["n_eval"]
    if options["n_eval"] is None:
        assert a.diagnostics["n_eval"] == w.sum()
    assert a.diagnostics["n_unseen"] == b.diagnostics["n_unseen"]
    assert a.diagnostics["searched_cuts"] == "every cut"
    assert a.diagnostics["smoothed_f"] == pytest.approx(b.diagnostics["smoothed_f"], rel=1e-12)


@SETTINGS
@given(weighted_problems(levels=5), ZERO_DIVISIONS, st.booleans())
def test_calibrated_tune_on_integer_weights_is_the_repeated_rows(
    data: tuple, zd: float, never: bool
) -> None:
    """Calibrated scores (multiples of 1/4, so every weighted sum is exact): the model
    centres are weighted means and shares of probability mass (0 without any mass)."""
    s, y, w = data
    options = {"zero_division": zd, "calibrated": True, "unseen": "never" if never else "prior"}
    a = tune(s, y, sample_weight=w, **options)
    b = tune(*repeated(s, y, w), **options)
    assert_same_result(a, b)


@SETTINGS
@given(weighted_problems(levels=5), ZERO_DIVISIONS, BETAS)
def test_etu_on_integer_weights_is_the_repeated_rows(data: tuple, zd: float, beta: float) -> None:
    """Probabilities in multiples of 1/4: every expected count is exact, so the decisions
    and the expected-count F are those of the repeated batch."""
    eta, _, w = data
    rows = np.repeat(np.arange(w.size), w)
    assume(bool(eta[rows].any()))
    a = etu(eta, beta=beta, zero_division=zd, sample_weight=w)
    b = etu(eta[rows], beta=beta, zero_division=zd)
    assert_same_result(a, b)
    np.testing.assert_array_equal(
        a.diagnostics["expected_class_sizes"], b.diagnostics["expected_class_sizes"]
    )


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(weighted_problems(max_classes=2), BETAS)
def test_localize_and_argv_curve_on_integer_weights_are_the_repeated_rows(
    data: tuple, beta: float
) -> None:
    s, y, w = data
    s_rep, y_rep = repeated(s, y, w)
    a = localize(s, y, beta=beta, grid=4, sample_weight=w)
    b = localize(s_rep, y_rep, beta=beta, grid=4)
    for field in ("p_box", "r_box", "v_center", "mask", "spread", "slack"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field), err_msg=field)
    phi = np.linspace(0.0, math.pi / 2, 7)
    for u, v in zip(
        argv_curve(phi, s, y, beta=beta, sample_weight=w),
        argv_curve(phi, s_rep, y_rep, beta=beta),
        strict=True,
    ):
        np.testing.assert_array_equal(u, v)


# --------------------------------------------------------------------------- fractional weights


@st.composite
def fractional_problems(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    s, y, _ = draw(weighted_problems())
    w = np.array(
        draw(
            st.lists(
                st.one_of(st.just(0.0), st.floats(0.05, 4.0)), min_size=len(s), max_size=len(s)
            )
        )
    )
    assume(bool((y[w > 0] == 1).any()))
    return s, y, w


@SETTINGS
@given(fractional_problems(), st.booleans(), ZERO_DIVISIONS)
def test_fractional_weights_are_the_weighted_points(data: tuple, sparse: bool, zd: float) -> None:
    s, y, w = data
    args = as_format(s, y, sparse)
    points = class_points(*args, zero_division=zd, sample_weight=w)
    for name, method in SEARCHES.items():
        a = method(*args, zero_division=zd, sample_weight=w)
        b = method(points=points)
        try:
            assert_same_result(a, b)
        except AssertionError as err:
            raise AssertionError(name) from err
    # tune: with unseen="never" (points= know no scores of the classes they left out)
    a = tune(*args, zero_division=zd, unseen="never", sample_weight=w)
    assert_same_result(a, tune(points=points, zero_division=zd, unseen="never"))


def weighted_macro(y: np.ndarray, pred: np.ndarray, w: np.ndarray) -> tuple[float, float]:
    """Macro (P, R) of 0/1 predictions with weights, over the classes with weighted
    positives (0/0 = 0): the definition, written out."""
    tp, npred, size = w @ (pred & (y == 1)), w @ pred, w @ y
    kept = size > 0
    p = np.where(npred > 0, tp / np.where(npred > 0, npred, 1.0), 0.0)[kept]
    return float(p.mean()), float((tp[kept] / size[kept]).mean())


@SETTINGS
@given(fractional_problems(), st.booleans())
def test_fractional_weights_score_by_weighted_counts(data: tuple, sparse: bool) -> None:
    """evaluate_thresholds scores a search's thresholds as the search scored them on the
    weighted points, and both it and top_k count weights as written out here."""
    s, y, w = data
    args = as_format(s, y, sparse)
    found = fixed_point(points=class_points(*args, sample_weight=w))
    got = evaluate_thresholds(*args, found.thresholds, sample_weight=w)
    assert got.f == pytest.approx(found.f, abs=1e-12)
    pred = s >= found.thresholds
    if sparse:  # a sparse matrix predicts its stored entries, or all at -inf
        pred = (pred & (s != 0)) | np.isneginf(found.thresholds)
    p, r = weighted_macro(y, pred, w)
    assert (got.precision, got.recall) == pytest.approx((p, r), abs=1e-12)
    np.testing.assert_allclose(got.support, w @ y)
    res = top_k(s, y, sample_weight=w)
    p, r = weighted_macro(y, np.asarray(res.apply(s), dtype=bool), w)
    assert (res.precision, res.recall) == pytest.approx((p, r), abs=1e-12)


def test_brute_force_exact_keeps_fractional_class_sizes() -> None:
    """The rational oracle reads a weighted class size as it is (it was cut to an int)."""
    s = np.array([[0.9], [0.5], [0.1]])
    y = np.array([[1], [0], [1]])
    points = class_points(s, y, sample_weight=[0.5, 1.0, 1.25])
    best = brute_force_exact(points)
    assert float(best.f) == pytest.approx(brute_force(points=points).f, abs=1e-15)
    assert float(best.recall) == pytest.approx(1.0)  # all three objects: tp = support


# --------------------------------------------------------------------------- tune's counts


def test_tune_smooths_weighted_counts_and_defaults_n_eval_to_the_total_weight() -> None:
    rng = np.random.default_rng(3)
    s = rng.normal(size=(40, 3))
    y = (s + rng.normal(size=(40, 3)) > 0.7).astype(int)
    w = rng.uniform(0.0, 2.0, size=40)
    res = tune(s, y, sample_weight=w)
    assert res.diagnostics["n_eval"] == pytest.approx(w.sum())
    assert res.diagnostics["searched_cuts"] == "every cut"
    points = class_points(s, y, sample_weight=w)
    by_points = tune(points=points)
    np.testing.assert_array_equal(res.thresholds, by_points.thresholds)
    assert res.f == by_points.f
    # scaling the weights changes the smoothing (a and n_eval are in units of weight)...
    f_scaled = [tune(s, y, sample_weight=c * w).diagnostics["smoothed_f"] for c in (0.01, 100)]
    assert f_scaled[0] != pytest.approx(f_scaled[1])
    # ...but not the unsmoothed objective
    raw = [tune(s, y, sample_weight=c * w, prior=0, n_eval=math.inf) for c in (0.5, 4.0)]
    np.testing.assert_array_equal(raw[0].thresholds, raw[1].thresholds)


def test_tune_cv_carries_the_weights_into_the_halves() -> None:
    """Unit weights give the unweighted choice (the halves are the same rows); other
    weights change the held-out scores."""
    rng = np.random.default_rng(5)
    s = rng.normal(size=(60, 4))
    y = (s + rng.normal(size=(60, 4)) > 1.0).astype(int)
    plain = tune(s, y, prior="cv")
    unit = tune(s, y, prior="cv", sample_weight=np.ones(60))
    np.testing.assert_array_equal(plain.diagnostics["cv_scores"], unit.diagnostics["cv_scores"])
    assert plain.diagnostics["prior"] == unit.diagnostics["prior"]
    np.testing.assert_array_equal(plain.thresholds, unit.thresholds)
    w = rng.uniform(0.0, 3.0, size=60)
    weighted = tune(s, y, prior="cv", sample_weight=w)
    assert not np.array_equal(weighted.diagnostics["cv_scores"], plain.diagnostics["cv_scores"])
    # the final fit is tune's at the chosen pseudo-count
    again = tune(s, y, prior=weighted.diagnostics["prior"], sample_weight=w)
    np.testing.assert_array_equal(weighted.thresholds, again.thresholds)


def test_tune_cv_skips_a_half_whose_rows_all_weigh_zero() -> None:
    s = np.arange(12, dtype=float).reshape(6, 2)
    y = np.array([[1, 0], [0, 1], [1, 1], [0, 0], [1, 0], [0, 1]])
    w = np.array([1.0, 0, 0, 0, 0, 0])  # every split has a half of weight 0
    with pytest.raises(ValueError, match="no split has positives in both halves"):
        tune(s, y, prior="cv", sample_weight=w)


# --------------------------------------------------------------------------- refusals


S_BAD = np.array([[0.9, 0.1], [0.4, 0.8], [0.2, 0.3], [0.7, 0.6]])
Y_BAD = np.array([[1, 0], [0, 1], [1, 1], [0, 0]])

ALL_CALLS: dict[str, Callable[[Any], Any]] = {
    **{name: (lambda w, m=m: m(S_BAD, Y_BAD, sample_weight=w)) for name, m in SEARCHES.items()},
    "top_k": lambda w: top_k(S_BAD, Y_BAD, sample_weight=w),
    "tune": lambda w: tune(S_BAD, Y_BAD, sample_weight=w),
    "tune(prior='cv')": lambda w: tune(S_BAD, Y_BAD, prior="cv", sample_weight=w),
    "tune(calibrated=True)": lambda w: tune(S_BAD, Y_BAD, calibrated=True, sample_weight=w),
    "evaluate_thresholds": lambda w: evaluate_thresholds(S_BAD, Y_BAD, [0.5, 0.5], sample_weight=w),
    "f_macro": lambda w: f_macro(S_BAD, Y_BAD, [0.5, 0.5], sample_weight=w),
    "etu": lambda w: etu(S_BAD, sample_weight=w),
    "localize": lambda w: localize(S_BAD, Y_BAD, sample_weight=w),
    "argv_curve": lambda w: argv_curve([0.5], S_BAD, Y_BAD, sample_weight=w),
    "class_points": lambda w: class_points(S_BAD, Y_BAD, sample_weight=w),
}
BAD_WEIGHTS = [
    ([1.0, -1.0, 1.0, 1.0], ValueError, "sample_weight must be non-negative"),
    ([1.0, math.nan, 1.0, 1.0], ValueError, "sample_weight contains NaN"),
    ([1.0, math.inf, 1.0, 1.0], ValueError, "sample_weight contains NaN or infinite"),
    ([1.0, 1.0, 1.0], ValueError, "sample_weight has 3 entries, expected 4"),
    ([0.0, 0.0, 0.0, 0.0], ValueError, "sample_weight is all zero"),
    ([[1.0, 1.0, 1.0, 1.0]], ValueError, "sample_weight must be 1-dimensional"),
    (["a", "b", "c", "d"], TypeError, "sample_weight must hold numbers"),
    ([True, False, True, True], TypeError, "sample_weight must hold numbers"),
]


@pytest.mark.parametrize("name", sorted(ALL_CALLS))
@pytest.mark.parametrize(("weights", "error", "message"), BAD_WEIGHTS)
def test_bad_weights_are_refused_naming_sample_weight(
    name: str, weights: list, error: type, message: str
) -> None:
    with pytest.raises(error, match=message):
        ALL_CALLS[name](weights)


TAKING_POINTS = [fixed_point, exact, domain, per_class, cyclic, global_threshold, proportional]


@pytest.mark.parametrize("method", [*TAKING_POINTS, brute_force, tune, localize])
def test_weights_with_points_are_refused(method: Callable[..., Any]) -> None:
    points = class_points(S_BAD, Y_BAD)
    with pytest.raises(ValueError, match="sample_weight goes with scores and labels"):
        method(points=points, sample_weight=[1.0, 2.0, 1.0, 1.0])


def test_dask_tune_takes_weights() -> None:
    pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")
    from fmacro import dask as fd

    s, y = da.from_array(S_BAD, chunks=(4, 1)), Y_BAD
    w = np.array([1, 2, 0, 3])
    found = fd.tune(s, y, sample_weight=w, scheduler="synchronous")
    assert_same_result(found, tune(S_BAD, Y_BAD, sample_weight=w))
    # integer weights: the repeated rows
    rows = np.repeat(np.arange(4), w)
    assert_same_result(fd.tune(s[rows], y[rows], scheduler="synchronous"), found)


# --------------------------------------------------------------------------- no mutation


@pytest.mark.parametrize("name", sorted(ALL_CALLS))
def test_caller_arrays_are_not_changed(name: str) -> None:
    global S_BAD, Y_BAD
    w = np.array([0.5, 0.0, 2.0, 1.0])
    keep = (S_BAD.copy(), Y_BAD.copy(), w.copy())
    ALL_CALLS[name](w)
    for before, after in zip(keep, (S_BAD, Y_BAD, w), strict=True):
        np.testing.assert_array_equal(before, after)
        assert after.flags.writeable


# --------------------------------------------------------------------------- weights matter


# one class ranked 3 > 2 > 1 with labels 1 0 1: unweighted, all three objects (F = 0.8)
# win; with the negative weighing 10 only the top one (F = 2/3 against 2/7) does
S_ONE = np.array([[3.0], [2.0], [1.0]])
Y_ONE = np.array([[1], [0], [1]])
W_ONE = np.array([1.0, 10.0, 1.0])


@pytest.mark.parametrize(
    "method", [*TAKING_POINTS, brute_force, lambda *a, **k: tune(*a, prior=0.0, **k)]
)
def test_a_heavy_negative_moves_the_threshold(method: Callable[..., Any]) -> None:
    plain = method(S_ONE, Y_ONE)
    weighted = method(S_ONE, Y_ONE, sample_weight=W_ONE)
    assert plain.thresholds.tolist() == [1.0] and plain.f == pytest.approx(0.8)
    assert weighted.thresholds.tolist() == [3.0] and weighted.f == pytest.approx(2 / 3)


def test_weights_change_the_evaluation_top_k_and_etu() -> None:
    assert f_macro(S_ONE, Y_ONE, [1.0]) == pytest.approx(0.8)
    assert f_macro(S_ONE, Y_ONE, [1.0], sample_weight=W_ONE) == pytest.approx(2 / 7)
    s = np.array([[0.0, 0.75, 0.0], [0.5, 0.75, 1.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.25]])
    y = np.array([[1, 1, 1], [1, 1, 1], [1, 0, 0], [1, 0, 1]])
    assert top_k(s, y).diagnostics["k"] == 3
    assert top_k(s, y, sample_weight=[4, 3, 5, 5]).diagnostics["k"] == 2
    eta = np.array([[0.25], [0.25], [0.5]])
    assert etu(eta).thresholds.tolist() == [0.5]
    assert etu(eta, sample_weight=[4, 5, 2]).thresholds.tolist() == [0.25]


def test_zero_weight_rows_add_no_threshold() -> None:
    """A row of weight 0 is not there: its score is no cut, no candidate threshold."""
    s = np.array([[0.9], [0.5], [0.1]])
    y = np.array([[1], [0], [1]])
    points = class_points(s, y, sample_weight=[1.0, 0.0, 1.0])
    assert points.threshold.tolist() == [math.inf, 0.9, 0.1]
    assert global_threshold(s, y, sample_weight=[1.0, 0.0, 1.0]).thresholds.tolist() == [0.1]
    assert optimize.fixed_point(s, y, sample_weight=[1, 0, 1]).f == 1.0
