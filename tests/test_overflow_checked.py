"""Issue 26: overflow and setting checks.

1. Sample weights: one check (``validation.weights.check_sample_weight``) for every function
   taking ``sample_weight``; weights summing past 2**1022 are refused everywhere.
2. ``beta``: only [2**-254, 2**254], where every F_beta formula stays within float64.
3. Counts: integers must fit in int64 (with their total); pooling names the true sum.
4. ``tune``'s settings (``random_state``, ``cv_grid``, ``n_eval``, ``prior``) name themselves.

Each refusal asserts the exception type and that the message names the argument; the
accepted extremes are compared with exact (``fractions``) computations.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from fmacro.crossval import KFold, cross_validate
from fmacro.optimize import best_threshold, class_points, tune
from fmacro.optimize.search._fbeta import segment_max
from fmacro.optimize.search.points import ClassPoints
from fmacro.optimize.tuning.smoothing import check_n_eval, check_pseudo_count, smooth_points
from fmacro.validation import (
    BinFValidation,
    ClassCounts,
    ConfusionMatrix,
    Counts,
    MultiFValidation,
    MultiLabelFValidation,
    measures,
)
from fmacro.validation.checks import (
    BETA_MAX,
    BETA_MIN,
    WEIGHTED_TOTAL_MAX,
    check_beta,
    check_fraction,
    check_zero_division,
)
from fmacro.validation.counts import count_array
from fmacro.validation.weights import check_sample_weight

BIG = 2**63 - 1  # the largest int64


def exact_f(tp: Any, fp: Any, fn: Any, beta: float) -> Fraction:
    """F_beta of counts in exact rational arithmetic (0 when TP = 0 < FP + FN)."""
    b2 = Fraction(beta) ** 2
    tp_, fp_, fn_ = Fraction(tp), Fraction(fp), Fraction(fn)
    return (1 + b2) * tp_ / ((1 + b2) * tp_ + b2 * fn_ + fp_)


def brute_best_f(scores: np.ndarray, labels: np.ndarray, w: np.ndarray, beta: float) -> Fraction:
    """max over thresholds t in the scores of the exact weighted F_beta of ``scores >= t``."""
    best = Fraction(0)
    for t in np.unique(scores):
        pred = scores >= t
        tp = sum((Fraction(x) for x in w[pred & (labels == 1)]), Fraction(0))
        fp = sum((Fraction(x) for x in w[pred & (labels == 0)]), Fraction(0))
        fn = sum((Fraction(x) for x in w[~pred & (labels == 1)]), Fraction(0))
        best = max(best, exact_f(tp, fp, fn, beta))
    return best


# --------------------------------------------------------------- 1. sample weights


def _binary_problem(seed: int = 0, n: int = 30) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    scores = np.round(rng.random(n), 2)  # ties
    labels = (rng.random(n) < 0.4).astype(np.int64)
    labels[:2] = [0, 1]
    weights = rng.integers(1, 20, n).astype(np.float64) * rng.random(n)
    return scores, labels, weights


def _entry_points(weights: Any) -> dict[str, Any]:
    """Every public function taking ``sample_weight``, called on a small problem."""
    y = np.array([1, 0])
    s = np.array([0.9, 0.1])
    y2 = np.array([[1, 0], [0, 1]])
    s2 = np.array([[0.9, 0.1], [0.2, 0.8]])

    def fit(_x: Any, _y: Any) -> Any:
        return lambda x: np.asarray(x).reshape(-1).astype(np.int64) % 2

    return {
        "BinFValidation": lambda: BinFValidation.from_predictions(y, y, sample_weight=weights),
        "MultiFValidation": lambda: MultiFValidation.from_predictions(y, y, sample_weight=weights),
        "MultiLabelFValidation": lambda: MultiLabelFValidation.from_predictions(
            y2, y2, sample_weight=weights
        ),
        "best_threshold": lambda: best_threshold(s, y, sample_weight=weights),
        "class_points": lambda: class_points(s2, y2, sample_weight=weights),
        "cross_validate": lambda: cross_validate(
            fit, np.array([1.0, 2.0]), y, KFold(k=2), sample_weight=weights
        ),
    }


@pytest.mark.parametrize(
    "weights",
    [
        [1e308, 1e308],  # the sum overflows float64
        [2.0**1022, 2.0**1021],  # finite, but past 2**1022 (twice it would overflow)
    ],
)
@pytest.mark.parametrize("entry", list(_entry_points(None)))
def test_weights_summing_past_2_to_1022_are_refused_by_every_entry_point(
    weights: list[float], entry: str
) -> None:
    with pytest.raises(ValueError, match=r"sample_weight sums to .* more than 2\*\*1022"):
        _entry_points(np.array(weights))[entry]()


def test_the_refusal_names_the_true_sum_also_past_float64() -> None:
    with pytest.raises(ValueError, match=re.escape("sample_weight sums to 2e+308")):
        check_sample_weight(np.array([1e308, 1e308]), 2)
    with pytest.raises(ValueError, match="my_weights sums to"):
        check_sample_weight(np.array([1e308, 1e308]), 2, name="my_weights")


def test_weights_summing_to_exactly_2_to_1022_are_accepted() -> None:
    w = check_sample_weight(np.array([2.0**1021, 2.0**1021]), 2)
    assert w is not None and float(w.sum()) == WEIGHTED_TOTAL_MAX
    v = BinFValidation.from_predictions(np.array([1, 0]), np.array([1, 1]), sample_weight=w)
    # tp = fp = 2**1021, fn = 0: precision 1/2, recall 1, F1 = 2/3
    assert v.precision == 0.5 and v.recall == 1.0
    assert v.f_beta == float(exact_f(2**1021, 2**1021, 0, 1.0))
    assert v.accuracy == 0.5


def test_weights_scaled_by_a_power_of_two_give_the_same_f_bit_for_bit() -> None:
    scores, labels, w = _binary_problem()
    scale = 2.0**990  # exact: every sum is the unscaled sum times the scale
    assert float((w * scale).sum()) <= WEIGHTED_TOTAL_MAX
    plain = best_threshold(scores, labels, sample_weight=w)
    big = best_threshold(scores, labels, sample_weight=w * scale)
    assert (big.f, big.cut, big.precision, big.recall) == (
        plain.f,
        plain.cut,
        plain.precision,
        plain.recall,
    )
    np.testing.assert_array_equal(big.fs, plain.fs)
    assert plain.f == pytest.approx(float(brute_best_f(scores, labels, w, 1.0)), rel=1e-14)
    pred = (scores >= plain.threshold).astype(np.int64)
    v_plain = BinFValidation.from_predictions(labels, pred, sample_weight=w)
    v_big = BinFValidation.from_predictions(labels, pred, sample_weight=w * scale)
    assert v_big.f_beta == v_plain.f_beta == plain.f
    s2 = np.c_[1 - scores, scores]
    y2 = np.c_[1 - labels, labels]
    p_plain = class_points(s2, y2, sample_weight=w)
    p_big = class_points(s2, y2, sample_weight=w * scale)
    np.testing.assert_array_equal(p_big.precision, p_plain.precision)
    np.testing.assert_array_equal(p_big.recall, p_plain.recall)


def test_weights_scaled_by_1e300_give_the_same_f() -> None:
    scores, labels, w = _binary_problem(seed=3)
    for beta in (0.5, 1.0, 2.0):
        plain = best_threshold(scores, labels, sample_weight=w, beta=beta)
        big = best_threshold(scores, labels, sample_weight=w * 1e300, beta=beta)
        assert math.isfinite(float((w * 1e300).sum()))
        assert big.cut == plain.cut
        assert big.f == pytest.approx(plain.f, rel=1e-14)
        assert big.f == pytest.approx(float(brute_best_f(scores, labels, w, beta)), rel=1e-14)


def test_weighted_counts_whose_f_overflows_for_this_beta_are_refused_not_zero() -> None:
    scores, labels, w = _binary_problem(seed=1)
    with pytest.raises(ValueError, match=r"beta=1e\+10.*overflows.*sample_weight"):
        best_threshold(scores, labels, sample_weight=w * 1e300, beta=1e10)
    with pytest.raises(ValueError, match=r"beta=1e\+10.*overflows"):
        measures.f_beta_from_counts(1e300, 0.0, 1e300, 1e10)
    v = BinFValidation.from_counts(Counts(1e300, 0.0, 1e300, 0.0), beta=1e10)
    with pytest.raises(ValueError, match="beta"):
        _ = v.f_beta
    # TP = 0: the infinite denominator still gives the true F, 0
    assert measures.f_beta_from_counts(0.0, 1e300, 1e300, 1e10) == 0.0


# ---------------------------------------------------------------------- 2. beta


@pytest.mark.parametrize(
    ("beta", "error"),
    [
        (True, TypeError),
        (np.bool_(False), TypeError),
        ("2", TypeError),
        (None, TypeError),
        (math.nan, ValueError),
        (math.inf, ValueError),
        (-math.inf, ValueError),
        (0, ValueError),
        (0.0, ValueError),
        (-1.0, ValueError),
        (1e154, ValueError),  # F was NaN
        (1e77, ValueError),
        (np.nextafter(BETA_MAX, math.inf), ValueError),
        (np.nextafter(BETA_MIN, 0.0), ValueError),
        (1e-170, ValueError),  # beta**2 underflows to 0
        (10**400, ValueError),  # float() of it overflows
        (-(10**400), ValueError),
    ],
)
def test_check_beta_refuses(beta: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match="beta"):
        check_beta(beta)


@pytest.mark.parametrize("beta", [1e154, 1e200, -1.0, math.nan, 1e-170])
@pytest.mark.parametrize(
    "call",
    [
        lambda b: best_threshold([0.9, 0.1], [1, 0], beta=b),
        lambda b: BinFValidation.from_counts(Counts(1, 1, 1, 1), beta=b),
        lambda b: MultiFValidation.from_predictions([0, 1], [0, 1], beta=b),
        lambda b: tune(np.array([[0.9, 0.1], [0.2, 0.8]]), np.eye(2, dtype=int), beta=b),
    ],
)
def test_functions_taking_beta_refuse_it_naming_it(beta: float, call: Any) -> None:
    with pytest.raises(ValueError, match="beta"):
        call(beta)


def test_the_range_is_closed_under_reciprocals_and_exact_powers_of_two() -> None:
    assert BETA_MAX == 2.0**254 and BETA_MIN == 2.0**-254 == 1.0 / BETA_MAX
    assert check_beta(BETA_MAX) == BETA_MAX and check_beta(BETA_MIN) == BETA_MIN
    assert check_beta(np.float32(2.0)) == 2.0 and check_beta(3) == 3.0


@pytest.mark.parametrize("beta", [BETA_MAX, BETA_MIN, 1.0])
@pytest.mark.parametrize(
    "counts",
    [
        (3, 5, 7, 11),
        (2**62, 2**61 - 1, 2**61, 0),  # total 2**63 - 1, the largest accepted
        (1, 0, BIG - 1, 0),
        (BIG - 1, 1, 0, 0),
        (0, 0, 5, 2),  # F = 0 for every beta: never zero_division
    ],
)
def test_f_at_the_extreme_betas_equals_the_exact_value(
    beta: float, counts: tuple[int, int, int, int]
) -> None:
    tp, fp, fn, tn = counts
    v = BinFValidation.from_counts(Counts(tp, fp, fn, tn), beta=beta, zero_division=1.0)
    want = float(exact_f(tp, fp, fn, beta))
    assert v.f_beta == pytest.approx(want, rel=4e-16, abs=0.0)
    if tp + fp == 0:  # precision 0/0: the P/R form does not apply
        assert v.f_beta == 0.0  # not zero_division (1.0): b**2 FN did not underflow
        return
    p, r = Fraction(tp, tp + fp), Fraction(tp, tp + fn)
    b2 = Fraction(beta) ** 2
    via_pr = (1 + b2) * p * r / (b2 * p + r) if p + r else Fraction(0)
    assert measures.f_beta_from_pr(float(p), float(r), beta) == pytest.approx(
        float(via_pr), rel=4e-16, abs=0.0
    )


def test_best_threshold_at_the_largest_beta_matches_brute_force() -> None:
    scores, labels, _ = _binary_problem(seed=5, n=25)
    ones = np.ones(labels.size)
    for beta in (BETA_MAX, BETA_MIN):
        r = best_threshold(scores, labels, beta=beta)
        assert np.isfinite(r.fs).all()
        assert r.f == pytest.approx(float(brute_best_f(scores, labels, ones, beta)), rel=1e-15)
    # beta = 2**254: F_beta is recall up to 2**-508, so the best cut takes every positive
    assert best_threshold(scores, labels, beta=BETA_MAX).recall == 1.0


def test_segment_max_keeps_its_interior_maximum_at_the_largest_beta() -> None:
    """At beta = 2**254 the quadratic's roots stay finite (at 2**300 they were lost and the
    segment's maximum was reported as 0); checked against an exact grid."""
    beta = BETA_MAX
    b2 = Fraction(beta) ** 2
    for p0, r1 in ((0.7, 0.9), (0.3, 0.4), (1.0, 1.0)):
        p0 = p0 * 2.0**-508  # P of the order of R / beta**2: the maximum is interior
        f, _ = segment_max(p0, 0.0, 0.0, r1, beta)
        grid = (
            exact_f_pr(Fraction(p0) * (1 - t), Fraction(r1) * t, b2)
            for t in (Fraction(i, 4000) for i in range(4001))
        )
        best = max(grid)
        assert best > 0
        assert float(f[0]) >= float(best) * (1 - 1e-12)
        assert float(f[0]) <= float(best) * (1 + 1e-6)  # the grid is fine enough


def exact_f_pr(p: Fraction, r: Fraction, b2: Fraction) -> Fraction:
    den = b2 * p + r
    return Fraction(0) if den == 0 else (1 + b2) * p * r / den


@pytest.mark.parametrize(
    ("check", "value", "name"),
    [
        (check_zero_division, 10**400, "zero_division"),
        (lambda v: check_fraction(v, "test_size"), 10**400, "test_size"),
        (lambda v: check_fraction(v, "test_size"), -(10**400), "test_size"),
    ],
)
def test_sibling_checks_refuse_integers_beyond_float64_naming_the_argument(
    check: Any, value: int, name: str
) -> None:
    with pytest.raises(ValueError, match=name):
        check(value)


# --------------------------------------------------------------------- 3. counts


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"tp": 2**63}, "tp"),
        ({"fp": np.uint64(2**63)}, "fp"),
        ({"fn": 2**64}, "fn"),
        ({"tn": 10**30}, "tn"),
        ({"tn": -1}, "tn"),
    ],
)
def test_counts_outside_int64_are_refused_naming_the_field(
    kwargs: dict[str, Any], field: str
) -> None:
    values = {"tp": 1, "fp": 1, "fn": 1, "tn": 1, **kwargs}
    with pytest.raises(ValueError, match=f"^{field} must"):
        Counts(**values)


def test_counts_whose_total_leaves_int64_are_refused_naming_the_true_total() -> None:
    with pytest.raises(ValueError, match=re.escape("tp + fp + fn + tn = 9223372036854775808")):
        Counts(2**62, 2**62, 0, 0)
    with pytest.raises(ValueError, match=re.escape("tp + fp + fn + tn = 2e+308 is more than")):
        Counts(1e308, 1e308, 0.0, 0.0)


def test_measures_of_the_largest_counts_are_exact_not_overflow_errors() -> None:
    c = Counts(BIG, 0, 0, 0)
    v = BinFValidation.from_counts(c)
    assert (v.precision, v.recall, v.accuracy, v.f_beta) == (1.0, 1.0, 1.0, 1.0)
    c = Counts(2**62, 2**62 - 1, 0, 0)
    v = BinFValidation.from_counts(c)
    assert v.precision == float(Fraction(2**62, 2**63 - 1)) == 0.5
    assert v.accuracy == 0.5


def test_measures_refuse_integer_sums_that_would_wrap_instead_of_returning_them() -> None:
    with pytest.raises(ValueError, match="int64"):
        measures.precision(np.array([2**62]), np.array([2**62]))
    with pytest.raises(ValueError, match="int64"):
        measures.recall(2**62, 2**62)
    with pytest.raises(ValueError, match="int64"):
        measures.accuracy(2**63, 0, 0, 0)  # a Python int beyond int64
    assert measures.precision(np.array([1, 2]), np.array([0, 2])).tolist() == [1.0, 0.5]
    assert measures.precision(np.zeros(0, np.int64), np.zeros(0, np.int64)).size == 0


def _true_sum_message(total: int) -> str:
    return re.escape(f"= {total} is more than 2**63 - 1")


def test_pooling_counts_past_int64_names_the_true_sum() -> None:
    with pytest.raises(ValueError, match=re.escape("got 9223372036854775808")):
        Counts(BIG, 0, 0, 0) + Counts(1, 0, 0, 0)
    a = BinFValidation.from_counts(Counts(0, 0, 0, BIG))
    with pytest.raises(ValueError, match=re.escape("got 18446744073709551614")):
        a + a


def test_pooling_confusion_matrices_and_validations_past_int64_names_the_true_sum() -> None:
    cm = ConfusionMatrix([[BIG, 0], [0, 0]])
    with pytest.raises(ValueError, match=_true_sum_message(2 * BIG)) as info:
        cm + cm
    assert "-2" not in str(info.value)
    v = MultiFValidation.from_confusion(cm)
    with pytest.raises(ValueError, match=_true_sum_message(2 * BIG)):
        v + v
    # every entry fits, the total does not
    with pytest.raises(ValueError, match=re.escape("sum to 9223372036854775808")):
        ConfusionMatrix([[2**62, 0], [0, 0]]) + ConfusionMatrix([[0, 0], [0, 2**62]])
    with pytest.raises(ValueError, match=re.escape("sum to 9223372036854775808")):
        ConfusionMatrix([[2**62, 0], [0, 2**62]])


def test_pooling_class_counts_and_multilabel_validations_past_int64_names_the_true_sum() -> None:
    cc = ClassCounts([BIG, 0], [0, 0], [0, 0], [0, 0])
    pattern = re.escape(f"pooled tp[0] = {BIG} + {BIG} ") + _true_sum_message(2 * BIG)
    with pytest.raises(ValueError, match=pattern):
        cc + cc
    y = np.array([[1, 0], [0, 1], [1, 1]])
    v = MultiLabelFValidation.from_predictions(y, y)
    huge = MultiLabelFValidation.from_predictions(y, y)
    object.__setattr__(huge, "class_counts", ClassCounts([BIG, 0], [0, 0], [0, 0], [0, 0]))
    with pytest.raises(ValueError, match=_true_sum_message(BIG + 2)):
        v + huge
    with pytest.raises(ValueError, match=re.escape("of entry 0 = 9223372036854775808")):
        ClassCounts([2**62], [2**62], [0], [0])


def test_pooled_class_counts_are_summed_exactly() -> None:
    cc = ClassCounts([2**61, 2**61, 2**61], [0, 0, 0], [0, 0, 0], [0, 0, 0])
    assert cc.pooled() == Counts(3 * 2**61, 0, 0, 0)
    with pytest.raises(ValueError, match=re.escape("9223372036854775808")):
        ClassCounts([2**62, 2**62], [0, 0], [0, 0], [0, 0]).pooled()


def test_weighted_count_arrays_past_2_to_1022_name_the_true_sum() -> None:
    with pytest.raises(ValueError, match=re.escape("sum to 2e+308")):
        ConfusionMatrix([[1e308, 0.0], [0.0, 1e308]])
    a = ConfusionMatrix([[4e307, 0.0], [0.0, 0.0]])
    with pytest.raises(ValueError, match=re.escape("[0, 0] = 4e+307 + 4e+307 = 8e+307 is more")):
        a + a
    b = ConfusionMatrix([[0.0, 0.0], [0.0, 4e307]])
    with pytest.raises(ValueError, match=re.escape("sum to 8e+307, more than 2**1022")):
        a + b


def test_count_arrays_of_python_integers_beyond_int64_are_refused_by_value() -> None:
    with pytest.raises(ValueError, match=r"counts must fit in int64.*1180591620717411303424"):
        count_array([2**70, 1], "counts")
    with pytest.raises(ValueError, match="fit in int64"):
        ConfusionMatrix(np.array([[2**63, 0], [0, 0]], dtype=np.uint64))


@pytest.mark.parametrize(
    ("kwargs", "name", "error"),
    [
        ({"support": [1.5]}, "support", ValueError),  # was truncated to 1
        ({"support": [np.nan]}, "support", ValueError),
        ({"support": np.array([2**63], dtype=np.uint64)}, "support", ValueError),
        ({"support": ["1"]}, "support", TypeError),
        ({"n_samples": 2**64}, "n_samples", ValueError),
    ],
)
def test_ranked_lists_refuse_counts_a_cast_would_change(
    kwargs: dict[str, Any], name: str, error: type[Exception]
) -> None:
    args: dict[str, Any] = {"support": [1], "n_samples": 4, **kwargs}
    with pytest.raises(error, match=name):
        ClassPoints.from_ranked_lists([[1, 0]], args["support"], args["n_samples"])


def test_ranked_lists_accept_whole_float_supports() -> None:
    a = ClassPoints.from_ranked_lists([[1, 0, 1]], np.array([2.0]), 4)
    b = ClassPoints.from_ranked_lists([[1, 0, 1]], [2], 4)
    assert a.support.tolist() == b.support.tolist() == [2]
    np.testing.assert_array_equal(a.recall, b.recall)


# ---------------------------------------------------------------------- 4. tune


def _tune_problem() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.random((40, 3)), (rng.random((40, 3)) < 0.4).astype(np.int64)


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"prior": "cv", "random_state": -1}, ValueError, "random_state must be an int >= 0"),
        ({"prior": "cv", "random_state": np.int64(-5)}, ValueError, "random_state"),
        ({"prior": "cv", "random_state": 1.5}, TypeError, "random_state"),
        ({"prior": "cv", "cv_grid": 3}, TypeError, "cv_grid must be a sequence"),
        ({"prior": "cv", "cv_grid": None}, TypeError, "cv_grid must be a sequence"),
        ({"prior": "cv", "cv_grid": "013"}, TypeError, "cv_grid must be a sequence"),
        ({"prior": "cv", "cv_grid": np.ones((2, 2))}, ValueError, "cv_grid must be a 1-D"),
        ({"prior": "cv", "cv_grid": [1.0, math.nan]}, ValueError, re.escape("cv_grid[1]")),
        ({"prior": "cv", "cv_grid": [True]}, TypeError, re.escape("cv_grid[0]")),
        ({"prior": "cv", "cv_grid": []}, ValueError, "cv_grid"),
        ({"n_eval": 0.5}, ValueError, "n_eval must be a batch size >= 1"),
        ({"n_eval": 1e-300}, ValueError, "n_eval"),  # was "negative dimensions not allowed"
        ({"n_eval": -math.inf}, ValueError, "n_eval"),
        ({"prior": 10**400}, ValueError, "prior"),
        ({"prior": math.inf}, ValueError, "prior"),
    ],
)
def test_tune_settings_name_themselves(
    kwargs: dict[str, Any], error: type[Exception], pattern: str
) -> None:
    s, y = _tune_problem()
    with pytest.raises(error, match=pattern):
        tune(s, y, **kwargs)


def test_tune_accepts_the_boundary_settings() -> None:
    s, y = _tune_problem()
    r = tune(s, y, prior="cv", random_state=0, cv_grid=np.array([0.0, 3.0]), cv_repeats=1)
    assert r.diagnostics["prior"] in (0.0, 3.0)
    again = tune(s, y, prior="cv", random_state=0, cv_grid=(0.0, 3.0), cv_repeats=1)
    np.testing.assert_array_equal(r.thresholds, again.thresholds)
    one = tune(s, y, n_eval=1)
    assert one.diagnostics["n_eval"] == 1.0
    assert 0.0 <= one.f <= 1.0
    # an integer beyond float64 is an infinite batch, as math.inf
    huge = tune(s, y, n_eval=10**400)
    np.testing.assert_array_equal(huge.thresholds, tune(s, y, n_eval=math.inf).thresholds)


def test_smoothing_checks_name_the_argument() -> None:
    s, y = _tune_problem()
    pts = class_points(s, y)
    with pytest.raises(ValueError, match="n_eval"):
        smooth_points(pts, 3.0, n_eval=0.5)
    with pytest.raises(ValueError, match="prior"):
        smooth_points(pts, 10**400)
    with pytest.raises(TypeError, match=r"^prior must be a number >= 0 or 'cv'"):
        check_pseudo_count("3")
    with pytest.raises(TypeError, match=r"^cv_grid must be a number >= 0, got"):
        check_pseudo_count("3", "cv_grid")
    assert check_n_eval(None, 40) == 40.0 and check_n_eval(math.inf, 40) == math.inf
