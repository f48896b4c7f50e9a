"""Many classes: confusion counts of the occurring cells only, equal to the dense ones."""

from __future__ import annotations

import json
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics

from fmacro.validation import (
    ConfusionMatrix,
    MultiFValidation,
    SparseConfusionMatrix,
    sparse_confusion,
)


@st.composite
def labels(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, int, np.ndarray | None]:
    k = draw(st.integers(1, 6))
    n = draw(st.integers(1, 40))
    e = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    p = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    w = None
    if draw(st.booleans()):
        w = np.array(draw(st.lists(st.floats(0.5, 4.0), min_size=n, max_size=n)))
    return e, p, k, w


@settings(max_examples=60, deadline=None)
@given(labels())
def test_sparse_counting_equals_dense(data: tuple) -> None:
    e, p, k, w = data
    dense = MultiFValidation.from_predictions(e, p, k, sample_weight=w)
    sparse_matrix = sparse_confusion.count_pairs(e, p, k, w)
    sparse = MultiFValidation.from_confusion(sparse_matrix, k)
    np.testing.assert_allclose(sparse_matrix.to_dense(), dense.confusion.matrix)
    for name in ("tp", "fp", "fn", "tn"):
        np.testing.assert_allclose(
            getattr(sparse.class_counts, name), getattr(dense.class_counts, name)
        )
    for measure in ("micro_f", "macro_f", "weighted_f", "f_macro", "accuracy"):
        assert getattr(sparse, measure) == pytest.approx(getattr(dense, measure), nan_ok=True)
    # pooling mixes the two forms, in either order
    both = sparse + dense
    assert isinstance(both.confusion, SparseConfusionMatrix)
    np.testing.assert_allclose(both.confusion.to_dense(), 2 * dense.confusion.matrix)
    np.testing.assert_allclose((dense + sparse).confusion.to_dense(), 2 * dense.confusion.matrix)


def test_many_classes_are_counted_sparsely_and_agree_with_sklearn() -> None:
    rng = np.random.default_rng(0)
    k, n = 20_000, 50_000
    e = rng.zipf(1.3, n) % k
    p = np.where(rng.random(n) < 0.6, e, rng.integers(0, k, n))
    tracemalloc.start()
    v = MultiFValidation.from_predictions(e, p, k)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert isinstance(v.confusion, SparseConfusionMatrix)
    # a dense int64 table would be 3.2 GB; the sparse counts stay within a few copies of n
    assert peak < 40 * n * 8
    present = np.union1d(e, p)
    _, _, fs, _ = metrics.precision_recall_fscore_support(
        e, p, labels=present, average="macro", zero_division=0.0
    )
    # fmacro averages over all k declared classes; rescale scikit-learn's mean over present ones
    assert v.macro_f == pytest.approx(fs * present.size / k)
    assert v.micro_f == pytest.approx(metrics.accuracy_score(e, p))
    assert v.accuracy == pytest.approx(metrics.accuracy_score(e, p))
    record = v.to_dict()["confusion_matrix"]
    assert record["n_classes"] == k and sum(record["count"]) == n
    json.dumps(record)


def test_dense_and_scipy_views() -> None:
    m = SparseConfusionMatrix.from_dense([[3, 0, 1], [0, 2, 0], [0, 0, 0]])
    assert m.to_scipy().toarray().tolist() == [[3, 0, 1], [0, 2, 0], [0, 0, 0]]
    assert m == SparseConfusionMatrix.from_dense(ConfusionMatrix([[3, 0, 1], [0, 2, 0], [0, 0, 0]]))
    assert sum([m, m]) == m + m
    huge = SparseConfusionMatrix.zero(100_000)
    with pytest.raises(ValueError, match="use to_scipy"):
        huge.to_dense()
    assert huge.to_scipy().shape == (100_000, 100_000)


@pytest.mark.parametrize(
    ("call", "error", "pattern"),
    [
        (lambda: SparseConfusionMatrix(2, [0], [2], [1]), ValueError, "0..1"),
        (lambda: SparseConfusionMatrix(2, [1, 0], [0, 0], [1, 1]), ValueError, "sorted"),
        (lambda: SparseConfusionMatrix(2, [0], [0], [-1]), ValueError, "non-negative"),
        (lambda: SparseConfusionMatrix(2, [0], [0], [1, 2]), ValueError, "one entry per cell"),
        (
            lambda: SparseConfusionMatrix.zero(2) + SparseConfusionMatrix.zero(3),
            ValueError,
            "2 and 3",
        ),
        (lambda: 1 + SparseConfusionMatrix.zero(2), TypeError, "integer 0"),
    ],
)
def test_bad_sparse_matrices_are_refused(call, error, pattern) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(error, match=pattern):
        call()


def test_out_of_range_labels_refused_on_the_sparse_path() -> None:
    with pytest.raises(ValueError, match="outside the declared classes"):
        MultiFValidation.from_predictions(np.array([0, 1]), np.array([0, 20_000]), 20_000)
