"""Fold values: immutability, no aliasing, positional take for every container."""

from __future__ import annotations

import attrs
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from fmacro.crossval import Fold, KFold, take_rows


def test_fold_arrays_are_read_only_private_copies() -> None:
    train = np.array([0, 2, 3])
    validation = [1]
    fold = Fold(train=train, validation=validation)
    train[0] = 99  # the caller changes its own array afterwards
    assert fold.train.tolist() == [0, 2, 3]
    assert not fold.train.flags.writeable and not fold.validation.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        fold.train[0] = 5
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        fold.index = 3  # type: ignore[misc]
    t, v = fold
    assert t is fold.train and v is fold.validation


def test_fold_equality_and_hash() -> None:
    a = Fold(train=[1, 2], validation=[0], index=0)
    b = Fold(train=np.array([1, 2]), validation=np.array([0]), index=0)
    assert a == b and hash(a) == hash(b)
    assert a != Fold(train=[0, 2], validation=[1], index=0)
    with pytest.raises(ValueError, match="1-dimensional"):
        Fold(train=[[0, 1]], validation=[2])


def test_take_for_numpy_lists_sparse_and_pandas() -> None:
    fold = Fold(train=[0, 2, 3], validation=[1, 4])
    X = np.arange(10).reshape(5, 2)
    X_before = X.copy()
    y = np.array(list("abcde"))
    (X_t, _), (_, y_v) = fold.take(X, y)
    np.testing.assert_array_equal(X_t, X[[0, 2, 3]])
    assert y_v.tolist() == ["b", "e"]
    X_t[0, 0] = -1  # the taken rows are copies
    np.testing.assert_array_equal(X, X_before)

    (L_t, ly_t), (L_v, ly_v) = fold.take([10, 11, 12, 13, 14], ("a", "b", "c", "d", "e"))
    assert (L_t, ly_t, L_v, ly_v) == ([10, 12, 13], ["a", "c", "d"], [11, 14], ["b", "e"])

    for matrix in (sp.csr_matrix(X), sp.coo_matrix(X), sp.csc_array(X)):
        (S_t, _), (S_v, _) = fold.take(matrix)
        np.testing.assert_array_equal(S_t.toarray(), X[[0, 2, 3]])
        np.testing.assert_array_equal(S_v.toarray(), X[[1, 4]])

    # pandas: positional even with a shuffled, non-integer index
    frame = pd.DataFrame({"a": [5, 6, 7, 8, 9]}, index=list("zyxwv"))
    series = pd.Series([0, 1, 0, 1, 1], index=[40, 30, 20, 10, 0])
    (F_t, _), (_, s_v) = fold.take(frame, series)
    assert F_t["a"].tolist() == [5, 7, 8] and list(F_t.index) == ["z", "x", "w"]
    assert s_v.tolist() == [1, 1] and list(s_v.index) == [30, 0]
    (_, none_t), (_, none_v) = fold.take(X)
    assert none_t is None and none_v is None


def test_take_rejects_unindexable_data() -> None:
    with pytest.raises(TypeError, match="positional row access"):
        take_rows({1, 2, 3}, np.array([0]))


def test_folds_from_splitter_take_every_row_once() -> None:
    X = pd.DataFrame({"x": np.arange(12.0)}, index=np.arange(12)[::-1])
    seen = []
    for fold in KFold(k=4, seed=0).folds(X):
        (_, _), (X_v, _) = fold.take(X)
        seen.extend(X_v["x"].tolist())
    assert sorted(seen) == list(np.arange(12.0))
