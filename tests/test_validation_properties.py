"""Invariants of counts and measures (Hypothesis), composition, and the Scala book's bugs."""

from __future__ import annotations

import math

import numba
import numpy as np
import pytest
import toolz
from hypothesis import given
from hypothesis import strategies as st

from fmacro.validation import (
    BinFValidation,
    ClassCounts,
    ConfusionMatrix,
    Counts,
    MultiFValidation,
    MultiLabelFValidation,
    measures,
)

counts_st = st.builds(
    Counts, st.integers(0, 1000), st.integers(0, 1000), st.integers(0, 1000), st.integers(0, 1000)
)
labels_st = st.integers(2, 6).flatmap(
    lambda k: st.tuples(
        st.just(k),
        st.lists(st.integers(0, k - 1), min_size=1, max_size=80),
        st.lists(st.integers(0, k - 1), min_size=1, max_size=80),
    )
)


def paired(k: int, a: list[int], b: list[int]) -> tuple[np.ndarray, np.ndarray]:
    n = min(len(a), len(b))
    return np.array(a[:n]), np.array(b[:n])


@given(labels_st)
def test_micro_p_equals_micro_r_equals_micro_f_equals_accuracy(data) -> None:  # type: ignore[no-untyped-def]
    k, a, b = data
    e, p = paired(k, a, b)
    m = MultiFValidation.from_predictions(e, p, classes=k)
    assert m.micro_precision == pytest.approx(m.accuracy)
    assert m.micro_recall == pytest.approx(m.accuracy)
    assert m.micro_f == pytest.approx(m.accuracy)
    assert m.accuracy == pytest.approx(float(np.mean(e == p)))


@given(counts_st, st.sampled_from([0.5, 1.0, 2.0, 3.0]))
def test_f_between_min_and_max_of_p_and_r(c: Counts, beta: float) -> None:
    v = BinFValidation.from_counts(c, beta=beta)
    if c.tp > 0:
        assert min(v.precision, v.recall) - 1e-12 <= v.f_beta <= max(v.precision, v.recall) + 1e-12
        assert v.f1 <= v.g + 1e-12 <= (v.precision + v.recall) / 2 + 2e-12


@given(counts_st)
def test_f1_count_form(c: Counts) -> None:
    v = BinFValidation.from_counts(c)
    den = 2 * c.tp + c.fp + c.fn
    assert v.f1 == pytest.approx(2 * c.tp / den if den else 0.0)


@given(st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.1, 5.0))
def test_f_beta_swaps_roles_with_inverse_beta(p: float, r: float, beta: float) -> None:
    assert measures.f_beta_from_pr(p, r, beta) == pytest.approx(
        measures.f_beta_from_pr(r, p, 1.0 / beta), abs=1e-12
    )


@given(st.floats(0.01, 1.0), st.floats(0.01, 1.0), st.floats(1.01, 5.0))
def test_beta_above_one_favours_recall(p: float, r: float, beta: float) -> None:
    # F_beta moves toward recall as beta grows (the book claims the opposite).
    f1 = measures.f_beta_from_pr(p, r, 1.0)
    fb = measures.f_beta_from_pr(p, r, beta)
    assert abs(fb - r) <= abs(f1 - r) + 1e-12


@given(labels_st, labels_st)
def test_counts_of_a_concatenation_are_the_sum_of_counts(d1, d2) -> None:  # type: ignore[no-untyped-def]
    k = max(d1[0], d2[0])
    e1, p1 = paired(*d1)
    e2, p2 = paired(*d2)
    whole = MultiFValidation.from_predictions(np.r_[e1, e2], np.r_[p1, p2], classes=k)
    parts = MultiFValidation.from_predictions(
        e1, p1, classes=k
    ) + MultiFValidation.from_predictions(e2, p2, classes=k)
    assert whole.confusion == parts.confusion
    assert whole.f_macro == pytest.approx(parts.f_macro)
    b1 = BinFValidation.from_predictions(e1 == 1, p1 == 1)
    b2 = BinFValidation.from_predictions(e2 == 1, p2 == 1)
    assert (b1 + b2).counts == BinFValidation.from_predictions(
        np.r_[e1, e2] == 1, np.r_[p1, p2] == 1
    ).counts


@given(counts_st, counts_st, counts_st)
def test_counts_are_a_monoid(a: Counts, b: Counts, c: Counts) -> None:
    assert (a + b) + c == a + (b + c)
    assert a + Counts.zero() == a == Counts.zero() + a
    assert sum([a, b, c], Counts.zero()) == a + b + c
    assert sum([a, b, c]) == a + b + c


def test_class_counts_and_confusion_monoids() -> None:
    cm = ConfusionMatrix([[3, 1], [2, 4]])
    assert cm + ConfusionMatrix.zero(2) == cm
    assert (cm + cm).class_counts() == cm.class_counts() + cm.class_counts()
    cc = cm.class_counts()
    assert cc + ClassCounts.zero(2) == cc
    assert cc.pooled() == Counts(tp=7, fp=3, fn=3, tn=7)
    with pytest.raises(ValueError, match="classes"):
        cc + ClassCounts.zero(3)


def test_multilabel_pooling_equals_whole() -> None:
    rng = np.random.default_rng(0)
    Y = rng.integers(0, 2, (40, 5))
    P = rng.integers(0, 2, (40, 5))
    whole = MultiLabelFValidation.from_predictions(Y, P)
    parts = MultiLabelFValidation.from_predictions(
        Y[:15], P[:15]
    ) + MultiLabelFValidation.from_predictions(Y[15:], P[15:])
    assert whole.class_counts == parts.class_counts
    assert whole.samples_f == pytest.approx(parts.samples_f)
    assert whole.subset_accuracy == pytest.approx(parts.subset_accuracy)
    assert whole.hamming_loss == pytest.approx(parts.hamming_loss)


# --- the Scala book's bugs are absent -------------------------------------------------


def test_recall_is_macro_recall_not_precision() -> None:
    # Matrix where macro precision (0.6465) and macro recall (0.6556) differ.
    m = MultiFValidation.from_confusion([[50, 5, 5], [5, 22, 3], [4, 2, 4]])
    assert m.recall == m.macro_recall
    assert m.recall != m.precision
    assert m.score == pytest.approx(
        2 * m.macro_precision * m.macro_recall / (m.macro_precision + m.macro_recall)
    )


def test_confusion_counts_accumulate_rows_expected_columns_predicted() -> None:
    m = MultiFValidation.from_predictions([0, 0, 0, 1], [1, 1, 0, 1], classes=2)
    # Two observations of class 0 predicted as 1: they accumulate in row 0, column 1.
    assert m.confusion.matrix.tolist() == [[1, 2], [0, 1]]
    cc = m.class_counts
    assert cc.fn.tolist() == [2, 0]  # class 0 missed twice
    assert cc.fp.tolist() == [0, 2]  # class 1 predicted wrongly twice


def test_merging_counts_adds_them() -> None:
    a = BinFValidation.from_counts(Counts(2, 0, 2, 0))
    b = BinFValidation.from_counts(Counts(8, 4, 0, 0))
    pooled = a + b
    assert pooled.counts == Counts(10, 4, 2, 0)
    # Seed 002 C13 example 5: pooled 0.769 vs fold-averaged 0.733.
    assert round(pooled.f1, 3) == 0.769
    assert round((a.f1 + b.f1) / 2, 3) == 0.733


def test_binary_classify_argument_order() -> None:
    # The book's classify(predicted, expected) is called as (expected, predicted):
    # an expected positive predicted negative must count as FN, not FP.
    v = BinFValidation.from_predictions([1], [0])
    assert v.counts == Counts(tp=0, fp=0, fn=1, tn=0)


# --- composition ---------------------------------------------------------------------


def test_pooling_refuses_different_settings() -> None:
    a = BinFValidation.from_counts(Counts(1, 1, 1, 1))
    with pytest.raises(ValueError, match="beta"):
        a + BinFValidation.from_counts(Counts(1, 1, 1, 1), beta=2.0)
    m = MultiFValidation.from_predictions([0, 1], [0, 1], classes=2)
    with pytest.raises(ValueError, match="classes"):
        m + MultiFValidation.from_predictions([0, 1], [0, 1], classes=3)
    with pytest.raises(TypeError):
        a + m  # type: ignore[operator]


def test_curried_constructor_in_a_pipeline() -> None:
    X = np.array([[0.1], [0.8], [0.6], [0.3]])
    y = np.array([0, 1, 0, 0])
    validate = BinFValidation.using(lambda x: int(x[0] > 0.5))
    v = toolz.pipe((y, X), lambda args: validate(*args))
    assert v.counts == Counts(tp=1, fp=1, fn=0, tn=2)
    m = MultiFValidation.using(lambda x: int(x[0] > 0.5), classes=2)(y, X)
    assert m.confusion.matrix.tolist() == [[2, 1], [0, 1]]


def test_predict_per_observation_batched_and_numba_agree() -> None:
    rng = np.random.default_rng(1)
    X = rng.random((300, 2))
    y = rng.integers(0, 3, 300)

    def slow(x: np.ndarray) -> int:
        return int(x[0] * 3)

    fast = numba.njit(slow)
    per_obs = MultiFValidation(y, X, 3, slow)
    batched = MultiFValidation(y, X, 3, lambda Z: (Z[:, 0] * 3).astype(int), batched=True)
    jitted = MultiFValidation(y, X, 3, fast)
    assert per_obs.confusion == batched.confusion == jitted.confusion
    yb = (y == 1).astype(int)
    b_jit = BinFValidation(yb, X, numba.njit(lambda x: 1 if x[0] > 0.5 else 0))
    b_py = BinFValidation(yb, X, lambda x: 1 if x[0] > 0.5 else 0)
    assert b_jit.counts == b_py.counts


def test_multilabel_predict_per_row_and_batched() -> None:
    X = np.array([[0.2, 0.9], [0.7, 0.1], [0.6, 0.6]])
    Y = np.array([[0, 1], [1, 0], [1, 0]])
    per_row = MultiLabelFValidation(Y, X, lambda x: (x > 0.5).astype(int))
    batched = MultiLabelFValidation(Y, X, lambda Z: (Z > 0.5).astype(int), batched=True)
    assert per_row.class_counts == batched.class_counts
    assert per_row.class_counts.fp.tolist() == [0, 1]


def test_zero_division_nan_excludes_undefined_classes() -> None:
    # class 2 never occurs and is never predicted: undefined precision and recall
    m0 = MultiFValidation.from_predictions([0, 1, 1], [0, 1, 0], classes=3)
    mn = MultiFValidation.from_predictions([0, 1, 1], [0, 1, 0], classes=3, zero_division=math.nan)
    m1 = MultiFValidation.from_predictions([0, 1, 1], [0, 1, 0], classes=3, zero_division=1.0)
    assert mn.zero_division != mn.zero_division  # recorded as nan
    assert mn.macro_precision == pytest.approx((0.5 + 1.0) / 2)
    assert m0.macro_precision == pytest.approx((0.5 + 1.0 + 0.0) / 3)
    assert m1.macro_precision == pytest.approx((0.5 + 1.0 + 1.0) / 3)
    assert m0.absent_classes.tolist() == [2]
    assert "(absent)" in m0.report()


def test_f_macro_differs_from_macro_f() -> None:
    # Two classes: one perfect, one with P=1, R=0.1 -> macro-F averages F, F-macro does not.
    m = MultiFValidation.from_confusion([[10, 0], [9, 1]])
    assert m.per_class_precision.tolist() == pytest.approx([10 / 19, 1.0])
    assert m.f_macro == pytest.approx(
        measures.f_beta_from_pr(m.macro_precision, m.macro_recall, 1.0)
    )
    assert m.f_macro > m.macro_f


def test_report_lists_rows_and_averages() -> None:
    m = MultiFValidation.from_predictions(["a", "b", "a"], ["a", "a", "a"])
    text = m.report()
    for word in ("a", "b", "micro", "macro", "weighted", "F-macro", "accuracy"):
        assert word in text
    assert str(m) == text
    assert "F1" in BinFValidation.from_counts(Counts(1, 1, 1, 1)).report()


def test_multilabel_numba_predict_runs_in_the_compiled_loop() -> None:
    rng = np.random.default_rng(4)
    X = rng.random((50, 3))
    Y = (rng.random((50, 3)) > 0.5).astype(np.uint8)

    def row(x: np.ndarray) -> np.ndarray:
        return (x > 0.5).astype(np.uint8)

    jitted = MultiLabelFValidation(Y, X, numba.njit(row))
    python = MultiLabelFValidation(Y, X, row)
    assert jitted.class_counts == python.class_counts
    assert jitted.samples_f == pytest.approx(python.samples_f)
    with pytest.raises(ValueError, match="length 3"):
        MultiLabelFValidation(Y, X, numba.njit(lambda x: x[:2] > 0.5))
    with pytest.raises(ValueError, match="predict returned"):
        MultiLabelFValidation(Y, X, numba.njit(lambda x: (x * 3).astype(np.int64)))
