"""``load_dataset(..., as_frame=True)`` and ``ArffData.to_frames``: DataFrames named by the
ARFF's attributes and labels, equal to the arrays, and fmacro's results named by label."""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from fmacro import optimize
from fmacro.validation.datasets import PANDAS_HINT, ArffData, load_arff_data, load_dataset


@pytest.mark.parametrize(
    ("name", "split"),
    [("emotions", "test"), ("yeast", "train"), ("enron", "test"), ("birds", "train")],
)
def test_frames_are_named_by_the_arff_and_equal_the_arrays(name: str, split: str) -> None:
    arrays = load_arff_data(name, split)
    frames = load_arff_data(name, split, as_frame=True)
    assert isinstance(frames.X, pd.DataFrame) and isinstance(frames.Y, pd.DataFrame)
    # enron's and yeast's labels come in another order than their xml: the ARFF order
    assert list(frames.X.columns) == list(arrays.feature_names)
    assert list(frames.Y.columns) == list(arrays.label_names)
    assert frames.feature_names == arrays.feature_names
    assert frames.label_names == arrays.label_names and frames.relation == arrays.relation
    for frame, values in ((frames.X, arrays.X), (frames.Y, arrays.Y)):
        assert isinstance(frame.index, pd.RangeIndex) and frame.index.equals(
            pd.RangeIndex(values.shape[0])
        )
        assert (frame.dtypes == values.dtype).all()
        assert np.array_equal(frame.to_numpy(), values)
    assert (frames.Y.dtypes == np.int64).all() and (frames.X.dtypes == np.float64).all()
    X, Y = load_dataset(name, split, as_frame=True)
    assert X.equals(frames.X) and Y.equals(frames.Y)


def test_birds_quoted_label_names_are_columns() -> None:
    _, Y = load_dataset("birds", "train", as_frame=True)
    assert "Swainson's Thrush" in Y.columns


def test_sparse_frames_have_sparse_columns_equal_to_the_csr() -> None:
    csr = load_arff_data("medical", "test", sparse=True)
    frames = load_arff_data("medical", "test", sparse=True, as_frame=True)
    assert all(isinstance(d, pd.SparseDtype) for d in frames.X.dtypes)
    assert all(d == pd.SparseDtype(np.int64, 0) for d in frames.Y.dtypes)
    assert all(d == pd.SparseDtype(np.float64, 0.0) for d in frames.X.dtypes)
    for frame, matrix in ((frames.X, csr.X), (frames.Y, csr.Y)):
        back = frame.sparse.to_coo().tocsr()
        assert back.dtype == matrix.dtype and (back != matrix).nnz == 0
        assert isinstance(frame.index, pd.RangeIndex)
    dense = load_arff_data("medical", "test", as_frame=True)
    assert list(frames.Y.columns) == list(dense.Y.columns) == list(csr.label_names)
    assert np.array_equal(frames.Y.sparse.to_dense().to_numpy(), dense.Y.to_numpy())


def test_all_stacks_the_splits_under_one_range_index() -> None:
    X, Y = load_dataset("emotions", "all", as_frame=True)
    assert X.shape == (593, 72) and Y.shape == (593, 6)
    assert X.index.equals(pd.RangeIndex(593)) and Y.index.equals(pd.RangeIndex(593))
    _, Y_arrays = load_dataset("emotions", "all")
    assert np.array_equal(Y.to_numpy(), Y_arrays)


def test_to_frames_is_a_frozen_value_that_aliases_nothing() -> None:
    arrays = load_arff_data("emotions", "test")
    frames = arrays.to_frames()
    assert frames == load_arff_data("emotions", "test", as_frame=True)
    assert hash(frames) == hash(load_arff_data("emotions", "test", as_frame=True))
    assert frames != arrays  # DataFrames and arrays are different values
    for twin in (pickle.loads(pickle.dumps(frames)), copy.deepcopy(frames), copy.copy(frames)):
        assert twin == frames
    frames.X.iloc[0, 0] = -1.0  # a DataFrame cannot be read-only: it is the value's copy
    assert arrays.X[0, 0] != -1.0 and arrays.to_frames().X.iloc[0, 0] != -1.0
    given = pd.DataFrame({"a": [1.0, 2.0]})
    value = ArffData(given, pd.DataFrame({"y": [0, 1]}), ("a",), ("y",), "r")
    given.iloc[0, 0] = 5.0
    assert value.X.iloc[0, 0] == 1.0  # the value copied the frame it was given
    assert frames.to_frames() == frames
    sparse = load_arff_data("emotions", "test", sparse=True, as_frame=True)
    assert sparse == pickle.loads(pickle.dumps(sparse)) and sparse != frames


def test_results_are_named_by_label() -> None:
    X, Y = load_dataset("emotions", "train", as_frame=True)
    names = tuple(Y.columns)
    W = np.linalg.lstsq(X[:200], Y[:200], rcond=None)[0]
    S = (X[200:] @ W).set_axis(Y.columns, axis=1)
    found = optimize.tune(S, Y[200:])
    assert found.classes == names
    arrays = optimize.tune(S.to_numpy(), Y[200:].to_numpy())
    assert np.array_equal(found.thresholds, arrays.thresholds)
    assert list(found.to_pandas().index[: len(names)]) == list(names)
    assert optimize.evaluate_thresholds(S, Y[200:], found).classes == names
    # sparse label columns give the same result
    _, Y_sparse = load_dataset("emotions", "train", sparse=True, as_frame=True)
    assert np.array_equal(optimize.tune(S, Y_sparse[200:]).thresholds, found.thresholds)


def test_the_estimator_end_to_end_names_its_labels() -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier

    from fmacro.optimize.sklearn import FMacroThresholdClassifier

    X, Y = load_dataset("emotions", "train", as_frame=True)
    X_test, Y_test = load_dataset("emotions", "test", as_frame=True)
    clf = FMacroThresholdClassifier(OneVsRestClassifier(LogisticRegression(solver="liblinear")))
    clf.fit(X, Y)
    assert list(clf.label_names_in_) == list(Y.columns)
    assert clf.threshold_result_.classes == tuple(Y.columns)
    assert list(clf.feature_names_in_) == list(X.columns)
    assert 0.0 < clf.score(X_test, Y_test) <= 1.0
    with pytest.raises(ValueError, match="order"):
        clf.score(X_test, Y_test[Y_test.columns[::-1]])


def test_sparse_frame_features_reach_a_sparse_capable_estimator() -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier

    X, Y = load_dataset("medical", "train", sparse=True, as_frame=True)
    model = OneVsRestClassifier(LogisticRegression(solver="liblinear"))
    labels = Y.sparse.to_dense()
    kept = labels.columns[labels.sum().between(1, len(labels) - 1)]
    scores = model.fit(X, labels[kept]).decision_function(X)
    assert scores.shape == (X.shape[0], len(kept))
    assert sp.issparse(X.sparse.to_coo())


BLOCK_PANDAS = """
import sys

class _BlockPandas:
    def find_spec(self, name, path=None, target=None):
        if name == "pandas" or name.startswith("pandas."):
            raise ModuleNotFoundError(f"No module named {name!r} (blocked by the test)")
        return None

sys.meta_path.insert(0, _BlockPandas())
"""


def test_without_pandas_as_frame_says_what_to_install() -> None:
    code = BLOCK_PANDAS + textwrap.dedent(
        """
        from fmacro.validation.datasets import load_arff_data, load_dataset
        X, Y = load_dataset("emotions", "test")  # arrays need no pandas
        assert X.shape == (202, 72)
        for call in (lambda: load_dataset("emotions", "test", as_frame=True),
                     lambda: load_arff_data("emotions", "test").to_frames()):
            try:
                call()
            except ImportError as exc:
                print(exc)
            else:
                raise AssertionError("no ImportError")
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [PANDAS_HINT, PANDAS_HINT]
    assert "pip install pandas" in PANDAS_HINT
