"""Paired comparisons: the bootstrap of a difference (validation.compare) against a
brute-force Python bootstrap, and the paired t-tests over folds (crossval.compare)
against scipy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from fmacro.crossval import KFold, cross_validate
from fmacro.crossval.compare import compare_cross_validations, paired_t_test, student_t_sf
from fmacro.validation.compare import compare, paired_p_value

MASK = 2**64 - 1


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def reference_weights(seed: int, n: int, n_resamples: int) -> np.ndarray:
    """(B, n) Poisson(1) draws of the documented generator (as in test_bootstrap.py)."""
    cdf, term, thresholds = 0.0, math.exp(-1), []
    for k in range(1, 19):  # float CDF: differs from the exact table with p ~ 1e-16
        cdf += term
        thresholds.append(math.floor(cdf * 2**53))
        term /= k
    base = _mix(seed)
    out = np.zeros((n_resamples, n))
    for b in range(n_resamples):
        key = _mix((base + (b + 1) * 0x9E3779B97F4A7C15) & MASK)
        for j in range(n):
            bits = _mix((key + (j + 1) * 0x9E3779B97F4A7C15) & MASK) >> 11
            out[b, j] = sum(1 for t in thresholds if bits >= t)
    return out


def _f_macro(e: np.ndarray, p: np.ndarray, w: np.ndarray, k: int) -> float:
    # F1 of (macro precision, macro recall), weighted counts, 0/0 = 0: by hand
    precisions, recalls = [], []
    for c in range(k):
        tp = float(w[(e == c) & (p == c)].sum())
        fp = float(w[(e != c) & (p == c)].sum())
        fn = float(w[(e == c) & (p != c)].sum())
        precisions.append(tp / (tp + fp) if tp + fp else 0.0)
        recalls.append(tp / (tp + fn) if tp + fn else 0.0)
    mp, mr = sum(precisions) / k, sum(recalls) / k
    return 2 * mp * mr / (mp + mr) if mp + mr else 0.0


def test_compare_equals_a_brute_force_paired_bootstrap() -> None:
    rng = np.random.default_rng(0)
    n, k, b = 40, 3, 60
    e = rng.integers(0, k, n)
    a = np.where(rng.random(n) < 0.8, e, rng.integers(0, k, n))
    c = np.where(rng.random(n) < 0.6, e, rng.integers(0, k, n))
    result = compare(e, a, c, n_resamples=b, seed=99, level=0.9)
    w = reference_weights(99, n, b)
    diffs = np.array([_f_macro(e, a, w[j], k) - _f_macro(e, c, w[j], k) for j in range(b)])
    ones = np.ones(n)
    assert result.difference == pytest.approx(_f_macro(e, a, ones, k) - _f_macro(e, c, ones, k))
    low, high = np.quantile(diffs, [0.05, 0.95])
    assert result.low == pytest.approx(low, abs=1e-12)
    assert result.high == pytest.approx(high, abs=1e-12)
    below, above = 1 + np.sum(diffs <= 0), 1 + np.sum(diffs >= 0)
    assert result.p_value == pytest.approx(min(1.0, 2 * min(below, above) / (b + 1)))


@pytest.mark.parametrize("kind", ["binary", "multiclass", "multilabel"])
def test_a_model_compared_with_itself_differs_by_zero(kind: str) -> None:
    rng = np.random.default_rng(1)
    if kind == "multilabel":
        y, p = rng.integers(0, 2, (80, 4)), rng.integers(0, 2, (80, 4))
        r = compare(y, p, p.copy(), n_resamples=100, seed=0)
    elif kind == "binary":
        y, p = rng.integers(0, 2, 80), rng.integers(0, 2, 80)
        r = compare(y, p, p.copy(), measure="f1", n_resamples=100, seed=0, positive=1)
    else:
        y, p = rng.integers(0, 4, 80), rng.integers(0, 4, 80)
        r = compare(y, p, p.copy(), n_resamples=100, seed=0)
    assert r.kind == kind
    assert (r.difference, r.low, r.high, r.p_value) == (0.0, 0.0, 0.0, 1.0)


def test_compare_finds_a_clear_difference_and_not_a_null_one() -> None:
    rng = np.random.default_rng(2)
    n = 2000
    y = rng.integers(0, 2, (n, 5))
    flip_a = rng.random((n, 5)) < 0.1
    flip_b = rng.random((n, 5)) < 0.2
    clear = compare(y, y ^ flip_a, y ^ flip_b, n_resamples=300, seed=1)
    assert clear.low > 0 and clear.p_value < 0.01
    # two models of the same quality: 0 inside the interval at most levels
    same = compare(y, y ^ flip_a, y ^ (rng.random((n, 5)) < 0.1), n_resamples=300, seed=1)
    assert same.low < 0 < same.high or same.p_value >= 0.01


def test_compare_unions_the_classes_each_model_predicts() -> None:
    r = compare([0, 1, 2, 2], [0, 1, 2, 2], [0, 1, 1, 3], n_resamples=50, seed=0)
    # over classes 0..3 (3 only predicted by B): A has F-macro 1, B (by hand) 0.6
    # B: precision 1, 0.5, 0, 0 -> 0.375; recall 1, 1, 0, 0 (class 3 has no member) -> 0.5
    assert r.estimate_a == 0.75  # A over 4 classes: P = R = 3/4
    assert r.estimate_b == pytest.approx(2 * 0.375 * 0.5 / 0.875)


def test_paired_p_value_by_hand() -> None:
    assert paired_p_value([0.1, 0.2, -0.05, 0.3]) == pytest.approx(2 * 2 / 5)
    assert paired_p_value([1.0] * 99) == pytest.approx(2 / 100)
    assert math.isnan(paired_p_value([math.nan]))


def test_compare_refuses_bad_measures() -> None:
    with pytest.raises(ValueError, match="measure"):
        compare([0, 1], [0, 1], [1, 0], measure="per_class_f")
    with pytest.raises(ValueError, match="kind"):
        compare([0, 1], [0, 1], [1, 0], kind="ranking")


# --------------------------------------------------------------------- t-tests over folds


@pytest.mark.parametrize("n", [2, 5, 30])
def test_uncorrected_t_test_is_scipy_ttest_rel(n: int) -> None:
    rng = np.random.default_rng(n)
    a, b = rng.normal(0.7, 0.05, n), rng.normal(0.68, 0.05, n)
    for alternative in ("two-sided", "greater", "less"):
        ours = paired_t_test(a, b, correction="none", alternative=alternative)  # type: ignore[arg-type]
        theirs = stats.ttest_rel(a, b, alternative=alternative)
        assert ours.statistic == pytest.approx(theirs.statistic, rel=1e-12)
        assert ours.p_value == pytest.approx(theirs.pvalue, rel=1e-9, abs=1e-15)
    ci = stats.ttest_rel(a, b).confidence_interval(0.9)
    ours = paired_t_test(a, b, correction="none", level=0.9)
    assert (ours.low, ours.high) == pytest.approx((ci.low, ci.high), rel=1e-9)


def test_seed_001_t_statistic() -> None:
    # seed 001 eq. 42: t = E[d] / sqrt(Var[d]) * sqrt(n - 1), Var with ddof=0
    d = np.array([0.03, -0.01, 0.02, 0.05, 0.0, 0.04])
    t = d.mean() / math.sqrt(d.var()) * math.sqrt(d.size - 1)
    assert paired_t_test(d, np.zeros(6), correction="none").statistic == pytest.approx(t)


def test_nadeau_bengio_correction_by_hand() -> None:
    a = np.array([0.81, 0.79, 0.84, 0.80, 0.83])
    b = np.array([0.78, 0.80, 0.80, 0.77, 0.80])
    d = a - b
    ratio = 0.25
    t = d.mean() / math.sqrt((1 / 5 + ratio) * d.var(ddof=1))
    r = paired_t_test(a, b, test_train_ratio=ratio)
    assert r.statistic == pytest.approx(t)
    assert r.p_value == pytest.approx(2 * stats.t.sf(abs(t), 4))
    # ratio 0 is the plain paired test
    assert paired_t_test(a, b, test_train_ratio=0.0).p_value == pytest.approx(
        stats.ttest_rel(a, b).pvalue
    )


def test_student_t_sf_against_scipy() -> None:
    for t in (-5.0, -1.0, 0.0, 0.3, 2.0, 12.0):
        for df in (1, 3, 10, 200):
            assert student_t_sf(t, df) == pytest.approx(stats.t.sf(t, df), rel=1e-9, abs=1e-300)


def test_cross_validation_runs_are_compared_on_their_folds() -> None:
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 2))
    y = (X[:, 0] + 0.5 * rng.normal(size=200) > 0).astype(int)

    def good(X_train: np.ndarray, y_train: np.ndarray):
        return lambda X_new: (np.asarray(X_new)[:, 0] > 0).astype(int)

    def poor(X_train: np.ndarray, y_train: np.ndarray):
        return lambda X_new: (np.asarray(X_new)[:, 1] > 0).astype(int)

    splitter = KFold(5, seed=0)
    run_a = cross_validate(good, X, y, splitter, progress=False)
    run_b = cross_validate(poor, X, y, splitter, progress=False)
    r = compare_cross_validations(run_a, run_b)
    assert r.test_train_ratio == pytest.approx(0.25)
    expected = paired_t_test(run_a.fold_scores, run_b.fold_scores, test_train_ratio=0.25)
    assert r == expected and r.mean_difference > 0
    other = cross_validate(poor, X, y, KFold(5, seed=1), progress=False)
    with pytest.raises(ValueError, match="different folds"):
        compare_cross_validations(run_a, other)


def test_t_test_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match="test_train_ratio"):
        paired_t_test([1.0, 2.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="scores_b"):
        paired_t_test([1.0, 2.0], [1.0], correction="none")
    with pytest.raises(ValueError, match="scores_a"):
        paired_t_test([1.0, math.nan], [1.0, 1.0], correction="none")
