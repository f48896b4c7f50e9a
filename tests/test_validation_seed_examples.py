"""Worked examples of the lecture notes (seed 002, sections C11 and C12), with their numbers."""

from __future__ import annotations

import numpy as np
import pytest

from fmacro.validation import BinFValidation, ConfusionMatrix, Counts, MultiFValidation


def labels_from_counts(c: Counts) -> tuple[np.ndarray, np.ndarray]:
    """Expected/predicted vectors realising the given binary counts (positive = 1)."""
    expected = np.array([1] * c.tp + [0] * c.fp + [1] * c.fn + [0] * c.tn)
    predicted = np.array([1] * c.tp + [1] * c.fp + [0] * c.fn + [0] * c.tn)
    return expected, predicted


C11 = Counts(tp=40, fp=10, fn=20, tn=30)


def test_c11_example1_accuracy() -> None:
    assert BinFValidation.from_counts(C11).accuracy == pytest.approx(0.70)


def test_c11_example2_precision_recall_from_labels() -> None:
    v = BinFValidation.from_predictions(*labels_from_counts(C11))
    assert v.counts == C11
    assert v.precision == pytest.approx(0.80)
    assert v.recall == pytest.approx(40 / 60)
    assert round(v.recall, 3) == 0.667


def test_c11_example3_f_two_ways_and_bounds() -> None:
    v = BinFValidation.from_counts(C11)
    assert v.f1 == pytest.approx(80 / 110)
    harmonic = 2 * v.precision * v.recall / (v.precision + v.recall)
    assert v.f1 == pytest.approx(harmonic)
    assert round(v.f1, 3) == 0.727
    assert min(v.precision, v.recall) <= v.f1 <= (v.precision + v.recall) / 2


def test_c11_example4_accuracy_paradox() -> None:
    a = BinFValidation.from_counts(Counts(tp=0, fp=0, fn=20, tn=980))
    b = BinFValidation.from_counts(Counts(tp=15, fp=30, fn=5, tn=950))
    assert a.accuracy == pytest.approx(0.98)
    assert a.precision == 0.0  # 0/0 -> 0 by the notes' convention (zero_division=0.0)
    assert a.recall == 0.0
    assert a.f1 == 0.0
    assert b.accuracy == pytest.approx(0.965)
    assert b.precision == pytest.approx(15 / 45)
    assert b.recall == pytest.approx(0.75)
    assert b.f1 == pytest.approx(30 / 65)
    assert round(b.f1, 4) == 0.4615
    assert a.accuracy > b.accuracy and b.f1 > a.f1


def test_c11_example5_f_for_each_top_k_cut() -> None:
    ranked = [1, 1, 0, 1, 0, 0, 1, 0, 0, 0]  # P,P,N,P,N,N,P,N,N,N
    stated = [0.400, 0.667, 0.571, 0.750, 0.667, 0.600, 0.727, 0.667, 0.615, 0.571]
    scores = []
    for k in range(1, 11):
        predicted = [1] * k + [0] * (10 - k)
        scores.append(BinFValidation.from_predictions(ranked, predicted).f1)
    assert [round(s, 3) for s in scores] == stated
    assert int(np.argmax(scores)) + 1 == 4
    assert max(scores) == pytest.approx(0.75)


def test_c12_example1_sensitivity_specificity() -> None:
    v = BinFValidation.from_counts(Counts(tp=15, fp=30, fn=5, tn=950))
    assert v.sensitivity == pytest.approx(0.75)
    assert v.specificity == pytest.approx(950 / 980)
    assert round(v.specificity, 4) == 0.9694


C12_MATRIX = [[50, 5, 5], [5, 22, 3], [4, 2, 4]]


def test_c12_example2_one_vs_rest_counts() -> None:
    cc = ConfusionMatrix(C12_MATRIX).class_counts()
    assert cc.tp.tolist() == [50, 22, 4]
    assert cc.fp.tolist() == [9, 7, 8]
    assert cc.fn.tolist() == [10, 8, 6]
    m = MultiFValidation.from_confusion(C12_MATRIX, ["A", "B", "C"])
    assert np.round(m.per_class_precision, 4).tolist() == [0.8475, 0.7586, 0.3333]
    assert np.round(m.per_class_recall, 4).tolist() == [0.8333, 0.7333, 0.4]


def test_c12_example3_macro_and_micro() -> None:
    m = MultiFValidation.from_confusion(C12_MATRIX)
    assert round(m.macro_precision, 4) == 0.6465
    assert round(m.macro_recall, 4) == 0.6556
    assert m.micro_precision == pytest.approx(0.76)
    assert m.micro_recall == pytest.approx(0.76)
    assert m.accuracy == pytest.approx(0.76)


def test_c12_example3_from_labels_matches_matrix() -> None:
    expected, predicted = [], []
    for a, row in enumerate(C12_MATRIX):
        for b, count in enumerate(row):
            expected += [a] * count
            predicted += [b] * count
    m = MultiFValidation.from_predictions(expected, predicted, classes=3)
    assert m.confusion == ConfusionMatrix(C12_MATRIX)


def test_c12_example4_imbalance() -> None:
    m = MultiFValidation.from_confusion([[980, 0], [20, 0]], ["common", "rare"])
    assert m.accuracy == pytest.approx(0.98)
    assert m.micro_recall == pytest.approx(0.98)
    assert m.macro_recall == pytest.approx(0.5)
    rare = BinFValidation.from_counts(m.class_counts[1])
    assert rare.sensitivity == 0.0
    assert rare.specificity == 1.0


def test_c12_example5_improving_a_rare_class() -> None:
    before = MultiFValidation.from_confusion(C12_MATRIX)
    after = MultiFValidation.from_confusion([[50, 5, 5], [5, 22, 3], [1, 2, 7]])
    assert after.class_counts.fp.tolist() == [6, 7, 8]
    assert after.class_counts.fn.tolist() == [10, 8, 3]
    assert round(after.macro_precision, 4) == 0.7060
    assert round(after.macro_recall, 4) == 0.7556
    assert after.micro_precision == pytest.approx(0.79)
    assert round(after.micro_precision - before.micro_precision, 3) == 0.03
    assert round(after.macro_precision - before.macro_precision, 3) == 0.060
    assert round(after.macro_recall - before.macro_recall, 3) == 0.100
