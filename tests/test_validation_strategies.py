"""fmacro's own invariants, stated with the strategies and checks it ships to users."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fmacro.validation import BinFValidation, MultiFValidation, MultiLabelFValidation
from fmacro.validation.invariants import (
    check_f_between_p_and_r,
    check_folds_partition,
    check_micro_equals_accuracy,
    check_pooled_counts,
)
from fmacro.validation.strategies import (
    binary_labels,
    counts,
    multiclass_labels,
    multilabel_indicators,
    score_matrices,
    splitter_inputs,
)


@given(multiclass_labels())
def test_micro_equals_accuracy(data) -> None:  # type: ignore[no-untyped-def]
    expected, predicted, k = data
    v = MultiFValidation.from_predictions(expected, predicted, k)
    check_micro_equals_accuracy(v)
    check_f_between_p_and_r(v)


@given(multiclass_labels(absent_classes=False))
def test_every_class_present_when_asked(data) -> None:  # type: ignore[no-untyped-def]
    expected, _, k = data
    assert set(expected.tolist()) == set(range(k))


@given(counts(), st.sampled_from([0.5, 1.0, 2.0]))
def test_f_between_p_and_r_binary(c, beta) -> None:  # type: ignore[no-untyped-def]
    check_f_between_p_and_r(BinFValidation.from_counts(c, beta=beta))


@given(binary_labels(min_samples=2), st.integers(1, 10))
def test_pooled_counts_equal_sum_of_chunks(data, n_chunks) -> None:  # type: ignore[no-untyped-def]
    expected, predicted = data
    parts = [
        BinFValidation.from_predictions(e, p)
        for e, p in zip(
            np.array_split(expected, n_chunks), np.array_split(predicted, n_chunks), strict=True
        )
        if e.size
    ]
    pooled = BinFValidation.from_predictions(expected, predicted)
    check_pooled_counts(parts, pooled)
    assert sum(parts[1:], parts[0]).counts == pooled.counts


@given(multilabel_indicators(sparse=True))
def test_sparse_multilabel_pools(data) -> None:  # type: ignore[no-untyped-def]
    Y, P = data
    n = Y.shape[0]
    half = max(1, n // 2)
    whole = MultiLabelFValidation.from_predictions(Y, P)
    if half < n:
        parts = [
            MultiLabelFValidation.from_predictions(Y[:half], P[:half]),
            MultiLabelFValidation.from_predictions(Y[half:], P[half:]),
        ]
        check_pooled_counts(parts, whole)
    check_f_between_p_and_r(whole)


@given(score_matrices())
def test_score_matrices_have_positives_in_every_class(data) -> None:  # type: ignore[no-untyped-def]
    scores, labels = data
    assert scores.shape == labels.shape
    assert (labels.sum(axis=0) >= 1).all()


@given(splitter_inputs())
def test_a_round_robin_split_partitions(data) -> None:  # type: ignore[no-untyped-def]
    _, y, k = data
    idx = np.arange(len(y))
    folds = [(idx[idx % k != f], idx[idx % k == f]) for f in range(k)]
    check_folds_partition(folds, len(y))


def test_invariant_checks_fail_loudly() -> None:
    with pytest.raises(AssertionError, match="covered"):
        check_folds_partition([([1], [0])], n_samples=2)
    with pytest.raises(AssertionError, match="complement"):
        check_folds_partition([([0], [0, 1])], n_samples=2)
    a = BinFValidation.from_predictions([1, 0], [1, 1])
    with pytest.raises(AssertionError, match="pooled counts"):
        check_pooled_counts([a, a], a)


@given(multiclass_labels(min_samples=3, max_samples=30))
def test_one_name_for_the_number_of_samples_and_the_per_class_positives(data) -> None:  # type: ignore[no-untyped-def]
    # n_samples: how many objects were counted; support: the true members of each class.
    expected, predicted, k = data
    n = expected.shape[0]
    assert n >= 3
    m = MultiFValidation.from_predictions(expected, predicted, k)
    assert m.confusion.n_samples == n
    assert m.support.tolist() == np.bincount(expected, minlength=k).tolist()
    assert m.class_counts.support.tolist() == m.support.tolist()
    b = BinFValidation.from_predictions(expected == 0, predicted == 0, positive=True)
    assert b.counts.n_samples == n
    Y = np.eye(k, dtype=np.uint8)[expected]
    P = np.eye(k, dtype=np.uint8)[predicted]
    ml = MultiLabelFValidation.from_predictions(Y, P)
    assert ml.n_samples == ml.sample_counts.n_samples == n
    assert ml.support.tolist() == m.support.tolist()
    for old in ("total",):
        assert not hasattr(m.confusion, old) and not hasattr(b.counts, old)
