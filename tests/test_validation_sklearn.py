"""Agreement with scikit-learn on random inputs, absent classes and every zero_division."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import (
    confusion_matrix,
    fbeta_score,
    hamming_loss,
    multilabel_confusion_matrix,
    precision_recall_fscore_support,
)

from fmacro.validation import BinFValidation, MultiFValidation, MultiLabelFValidation

ZERO_DIVISIONS = [0.0, 1.0, math.nan]
BETAS = [0.5, 1.0, 2.0]


def sk(fn, *args, **kwargs):  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(*args, **kwargs)


def assert_close(a: float, b: float) -> None:
    if isinstance(b, float) and math.isnan(b):
        assert math.isnan(a)
    else:
        assert a == pytest.approx(b, abs=1e-12)


def multiclass_pairs(max_classes: int = 6) -> st.SearchStrategy:
    return st.integers(2, max_classes).flatmap(
        lambda k: st.tuples(
            st.just(k),
            st.lists(
                st.tuples(st.integers(0, k - 1), st.integers(0, k - 1)), min_size=1, max_size=60
            ),
        )
    )


@given(multiclass_pairs(), st.sampled_from(ZERO_DIVISIONS), st.sampled_from(BETAS))
def test_multiclass_matches_sklearn(data, zero_division, beta) -> None:  # type: ignore[no-untyped-def]
    k, pairs = data
    y_true = np.array([a for a, _ in pairs])
    y_pred = np.array([b for _, b in pairs])
    labels = list(range(k))  # includes classes that may never occur
    m = MultiFValidation.from_predictions(
        y_true, y_pred, classes=k, beta=beta, zero_division=zero_division
    )
    assert np.array_equal(m.confusion.matrix, confusion_matrix(y_true, y_pred, labels=labels))
    p, r, f, s = sk(
        precision_recall_fscore_support,
        y_true,
        y_pred,
        labels=labels,
        beta=beta,
        average=None,
        zero_division=zero_division,
    )
    np.testing.assert_allclose(m.per_class_precision, p, equal_nan=True)
    np.testing.assert_allclose(m.per_class_recall, r, equal_nan=True)
    np.testing.assert_allclose(m.per_class_f, f, equal_nan=True)
    assert m.support.tolist() == s.tolist()
    for average in ("micro", "macro", "weighted"):
        ps, rs, fs, _ = sk(
            precision_recall_fscore_support,
            y_true,
            y_pred,
            labels=labels,
            beta=beta,
            average=average,
            zero_division=zero_division,
        )
        assert_close(getattr(m, f"{average}_precision"), ps)
        assert_close(getattr(m, f"{average}_recall"), rs)
        assert_close(getattr(m, f"{average}_f"), fs)


@given(
    st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=50),
    st.sampled_from(ZERO_DIVISIONS),
    st.sampled_from(BETAS),
)
def test_binary_matches_sklearn(pairs, zero_division, beta) -> None:  # type: ignore[no-untyped-def]
    y_true = np.array([int(a) for a, _ in pairs])
    y_pred = np.array([int(b) for _, b in pairs])
    v = BinFValidation.from_predictions(y_true, y_pred, beta=beta, zero_division=zero_division)
    p, r, f, _ = sk(
        precision_recall_fscore_support,
        y_true,
        y_pred,
        labels=[0, 1],
        pos_label=1,
        beta=beta,
        average="binary",
        zero_division=zero_division,
    )
    assert_close(v.precision, p)
    assert_close(v.recall, r)
    assert_close(v.f_beta, f)
    assert_close(
        v.f1, sk(fbeta_score, y_true, y_pred, beta=1.0, labels=[0, 1], zero_division=zero_division)
    )


def indicator_pairs() -> st.SearchStrategy:
    # scikit-learn reads a one-column matrix as binary labels, not indicators: L >= 2.
    return st.tuples(st.integers(1, 12), st.integers(2, 6)).flatmap(
        lambda nl: st.tuples(
            st.lists(
                st.lists(st.booleans(), min_size=nl[1], max_size=nl[1]),
                min_size=nl[0],
                max_size=nl[0],
            ),
            st.lists(
                st.lists(st.booleans(), min_size=nl[1], max_size=nl[1]),
                min_size=nl[0],
                max_size=nl[0],
            ),
        )
    )


@given(indicator_pairs(), st.sampled_from(ZERO_DIVISIONS), st.booleans())
def test_multilabel_matches_sklearn(pair, zero_division, sparse) -> None:  # type: ignore[no-untyped-def]
    Y = np.array(pair[0], dtype=np.int64)
    P = np.array(pair[1], dtype=np.int64)
    args = (sp.csr_matrix(Y), sp.csr_matrix(P)) if sparse else (Y, P)
    v = MultiLabelFValidation.from_predictions(*args, zero_division=zero_division)
    mcm = multilabel_confusion_matrix(Y, P)
    assert v.class_counts.tn.tolist() == mcm[:, 0, 0].tolist()
    assert v.class_counts.fp.tolist() == mcm[:, 0, 1].tolist()
    assert v.class_counts.fn.tolist() == mcm[:, 1, 0].tolist()
    assert v.class_counts.tp.tolist() == mcm[:, 1, 1].tolist()
    for average in ("micro", "macro", "weighted", "samples"):
        _, _, fs, _ = sk(
            precision_recall_fscore_support, Y, P, average=average, zero_division=zero_division
        )
        assert_close(getattr(v, f"{average}_f"), fs)
    assert v.hamming_loss == pytest.approx(hamming_loss(Y, P))
    assert v.subset_accuracy == pytest.approx(float(np.mean((Y == P).all(axis=1))))


def test_multilabel_sparse_with_unsorted_indices_and_explicit_zeros() -> None:
    Y = sp.csr_matrix(
        (np.array([1, 1, 0, 1]), np.array([2, 0, 1, 1]), np.array([0, 3, 4])), shape=(2, 3)
    )
    assert not Y.has_sorted_indices
    P = sp.csr_matrix(np.array([[1, 1, 0], [0, 1, 0]]))
    before = (Y.data.copy(), Y.indices.copy())
    v = MultiLabelFValidation.from_predictions(Y, P)
    dense = MultiLabelFValidation.from_predictions(Y.toarray(), P.toarray())
    assert v.class_counts == dense.class_counts
    assert v.class_counts.tp.tolist() == [1, 1, 0]
    assert np.array_equal(Y.data, before[0]) and np.array_equal(Y.indices, before[1])
