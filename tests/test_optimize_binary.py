"""Tests for fmacro.optimize.baselines.binary.best_threshold."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import precision_recall_curve

from fmacro.optimize.baselines.binary import best_threshold
from fmacro.optimize.inputs import as_binary_labels

SEED_LABELS = [1, 1, 0, 1, 0, 0, 1, 0, 0, 0]  # lecture notes C11 example 5: P,P,N,P,N,N,P,N,N,N
SEED_F = [0.400, 0.667, 0.571, 0.750, 0.667, 0.600, 0.727, 0.667, 0.615, 0.571]


def test_seed_c11_example5() -> None:
    scores = np.arange(10, 0, -1, dtype=float)
    r = best_threshold(scores, SEED_LABELS)
    assert r.k == 4
    assert r.cut == 4
    assert r.f == pytest.approx(0.75)
    assert r.precision == pytest.approx(0.75) and r.recall == pytest.approx(0.75)
    assert r.threshold == 7.0
    assert r.support == 4
    # Curve: the empty cut (F = 0) then k = 1..10 as in the notes (3 decimals).
    assert r.fs[0] == 0.0 and r.thresholds[0] == math.inf
    np.testing.assert_allclose(r.fs[1:], SEED_F, atol=5e-4)
    assert list(r.tp) == [0, 1, 2, 2, 3, 3, 3, 4, 4, 4, 4]
    assert list(r.fp) == [0, 0, 0, 1, 1, 2, 3, 3, 4, 5, 6]
    # exact: F(4) = 2*3 / (2*3 + 1 + 1) = 3/4
    assert Fraction(r.f).limit_denominator(100) == Fraction(3, 4)
    np.testing.assert_array_equal(r.apply(scores), np.arange(10) < 4)


def test_ties_are_grouped() -> None:
    # Two objects share score 0.8 (one positive, one negative): no cut splits them.
    r = best_threshold([0.9, 0.8, 0.8, 0.3, 0.1], [1, 0, 1, 0, 0])
    assert list(r.thresholds) == [math.inf, 0.9, 0.8, 0.3, 0.1]
    assert list(r.tp) == [0, 1, 2, 2, 2]
    assert list(r.fp) == [0, 0, 1, 2, 3]
    # F at each cut: 0, 2/3, 4/5, 4/6, 4/7 -> best is the 0.8 group, F = 0.8
    assert r.threshold == 0.8 and r.k == 3 and r.f == pytest.approx(0.8)


def test_beta_changes_choice() -> None:
    labels = SEED_LABELS
    scores = np.arange(10, 0, -1, dtype=float)
    # beta = 2 favours recall: F2(k=7) = 5*4/(5*4+3) = 20/23 > F2(k=4) = 15/(15+4+1) = 0.75
    r2 = best_threshold(scores, labels, beta=2.0)
    assert r2.k == 7 and r2.f == pytest.approx(20 / 23)
    # beta = 0.5 favours precision: F0.5(k=2) = 1.25*2/(1.25*2+0.25*2) = 2.5/3
    r05 = best_threshold(scores, labels, beta=0.5)
    assert r05.k == 2 and r05.f == pytest.approx(2.5 / 3.0)


def test_ties_in_f_pick_smallest_cut() -> None:
    # labels by rank 1,0,0,1: F(1) = 2/3, F(2) = 2/4, F(3) = 2/5, F(4) = 4/6 = 2/3.
    r = best_threshold([4, 3, 2, 1], [1, 0, 0, 1])
    np.testing.assert_allclose(r.fs, [0, 2 / 3, 2 / 4, 2 / 5, 2 / 3])
    assert r.fs[1] == r.fs[4]
    assert r.k == 1 and r.threshold == 4.0 and r.f == pytest.approx(2 / 3)
    # no positives, zero_division = 1: the empty cut (F = 1) wins
    r0 = best_threshold([3, 2, 1], [0, 0, 0], zero_division=1.0)
    assert r0.k == 0 and r0.threshold == math.inf and r0.f == 1.0


def test_no_positive_labels() -> None:
    r = best_threshold([3.0, 2.0, 1.0], [0, 0, 0])
    # every cut has F = 0 (0/0 at the empty cut -> zero_division = 0): smallest cut
    assert r.k == 0 and r.f == 0.0 and r.recall == 0.0
    rn = best_threshold([3.0, 2.0, 1.0], [0, 0, 0], zero_division=math.nan)
    assert math.isnan(rn.fs[0]) and rn.k == 1 and rn.f == 0.0


def test_all_same_score() -> None:
    r = best_threshold([0.5] * 4, [1, 0, 1, 0])
    assert r.thresholds.size == 2
    assert r.k == 4 and r.f == pytest.approx(2 * 2 / (2 * 2 + 2))


def test_curve_is_read_only_and_inputs_unchanged() -> None:
    scores = np.array([0.3, 0.9, 0.1, 0.5])
    labels = np.array([0, 1, 0, 1])
    s0, y0 = scores.copy(), labels.copy()
    r = best_threshold(scores, labels)
    np.testing.assert_array_equal(scores, s0)
    np.testing.assert_array_equal(labels, y0)
    for arr in (r.thresholds, r.tp, r.fp, r.precisions, r.recalls, r.fs):
        assert not arr.flags.writeable
    with pytest.raises(ValueError):
        r.fs[0] = 1.0
    with pytest.raises(AttributeError):
        r.f = 0.0  # type: ignore[misc]


@pytest.mark.parametrize(
    ("scores", "labels", "kwargs", "exc", "match"),
    [
        ([1.0, 2.0], [1, 0, 1], {}, ValueError, "same number of samples"),
        ([1.0, math.nan], [1, 0], {}, ValueError, "scores contains 1 NaN"),
        ([1.0, math.inf], [1, 0], {}, ValueError, "scores contains 1 NaN or infinite"),
        ([1.0, 2.0], [1, 2], {}, ValueError, "labels must hold only 0 and 1"),
        ([1.0, 2.0], [0.5, 1.0], {}, ValueError, "labels must hold only 0 and 1"),
        ([1.0, 2.0], ["a", "b"], {}, TypeError, "labels must be a 0/1 indicator"),
        ([1.0, 2.0], [1, 0], {"beta": 0.0}, ValueError, "beta must be a finite number > 0"),
        ([1.0, 2.0], [1, 0], {"beta": -1.0}, ValueError, "beta"),
        ([1.0, 2.0], [1, 0], {"zero_division": 0.5}, ValueError, "zero_division"),
        ([], [], {}, ValueError, "scores is empty"),
        ([[1.0, 2.0]], [[1, 0]], {}, ValueError, "scores must be 1-dimensional"),
    ],
)
def test_bad_input(
    scores: object, labels: object, kwargs: dict[str, float], exc: type, match: str
) -> None:
    with pytest.raises(exc, match=match):
        best_threshold(scores, labels, **kwargs)  # type: ignore[arg-type]


def test_as_binary_labels_accepts_bool_int_float() -> None:
    for y in ([True, False], [1, 0], [1.0, 0.0]):
        np.testing.assert_array_equal(as_binary_labels(y), [True, False])


def _brute_best_f(scores: np.ndarray, labels: np.ndarray, beta: float) -> Fraction:
    b2 = Fraction(beta) ** 2
    m = int(labels.sum())
    best = Fraction(0)
    for t in np.unique(scores):
        pred = scores >= t
        tp = int((pred & (labels == 1)).sum())
        fp = int((pred & (labels == 0)).sum())
        den = (1 + b2) * tp + b2 * (m - tp) + fp
        if den:
            best = max(best, (1 + b2) * tp / den)
    return best


@settings(max_examples=60, deadline=None)
@given(
    data=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 1)), min_size=1, max_size=25),
    beta=st.sampled_from([0.5, 1.0, 2.0]),
)
def test_matches_brute_force_and_sklearn(data: list[tuple[int, int]], beta: float) -> None:
    scores = np.array([d[0] for d in data], dtype=float) / 5.0  # many ties
    labels = np.array([d[1] for d in data])
    r = best_threshold(scores, labels, beta=beta)
    assert r.f == pytest.approx(float(_brute_best_f(scores, labels, beta)), abs=1e-12)
    # F of the returned threshold, recomputed from scratch
    pred = scores >= r.threshold
    tp = int((pred & (labels == 1)).sum())
    assert r.k == int(pred.sum()) and r.tp[r.cut] == tp
    if labels.sum() == 0:
        return
    p, rec, thr = precision_recall_curve(labels, scores, drop_intermediate=False)
    # sklearn: thresholds ascending, one per distinct score, plus the (1, 0) end point.
    np.testing.assert_allclose(r.thresholds[1:][::-1], thr)
    np.testing.assert_allclose(r.precisions[1:][::-1], p[:-1])
    np.testing.assert_allclose(r.recalls[1:][::-1], rec[:-1])
    b2 = beta * beta
    with np.errstate(invalid="ignore", divide="ignore"):
        f_sk = np.where(
            b2 * p[:-1] + rec[:-1] > 0,
            (1 + b2) * p[:-1] * rec[:-1] / (b2 * p[:-1] + rec[:-1]),
            0.0,
        )
    np.testing.assert_allclose(r.fs[1:][::-1], f_sk, atol=1e-12)
    assert r.f == pytest.approx(max(float(f_sk.max()), 0.0), abs=1e-12)


def test_random_continuous_scores_against_sklearn() -> None:
    rng = np.random.default_rng(3)
    scores = np.round(rng.normal(size=2000), 2)  # ties from rounding
    labels = (rng.random(2000) < 0.2 + 0.3 * (scores > 0.5)).astype(int)
    r = best_threshold(scores, labels)
    p, rec, _ = precision_recall_curve(labels, scores, drop_intermediate=False)
    with np.errstate(invalid="ignore"):
        f_sk = np.nan_to_num(2 * p * rec / (p + rec))
    assert r.f == pytest.approx(float(f_sk.max()), rel=1e-12)
