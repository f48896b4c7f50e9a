"""Where labels cross into scikit-learn and back (issue 26 defects 8, 21, 23).

* 8: ``FMacroThresholdClassifier.score`` pairs a multi-label DataFrame ``y`` with the
  fitted label columns by name, refusing another order, other names or missing columns
  (as scikit-learn refuses such an ``X``), instead of scoring them by position.
* 21: pandas nullable (``Int64``, ``UInt8``, ``boolean``, ``Float64``) and pyarrow label
  and score columns are read as their numpy dtype everywhere labels are taken; a missing
  value (``pd.NA``) is refused with its position.
* 23: scikit-learn 1.9 casts ``arange(n_labels)`` to the dtype of an integer indicator, so
  ``OneVsRestClassifier`` trains a uint8 ``y`` of more than 256 labels on permuted columns;
  the estimator hands its inner estimator int64 labels and the loader returns int64.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression, RidgeClassifier
from sklearn.metrics import f1_score, fbeta_score
from sklearn.model_selection import cross_val_score
from sklearn.multiclass import OneVsRestClassifier
from sklearn.preprocessing import LabelBinarizer

from fmacro.crossval import MultilabelStratifiedKFold
from fmacro.optimize import evaluate_thresholds, fixed_point, tune
from fmacro.optimize.sklearn import FMacroThresholdClassifier
from fmacro.validation import MultiFValidation
from fmacro.validation.datasets import load_arff_data, load_dataset
from fmacro.validation.labels import coerce_labels, numpy_from_pandas
from fmacro.validation.sklearn import f_macro_score

NULLABLE = ["Int64", "UInt8", "boolean", "Float64"]
PYARROW = ["int8[pyarrow]", "uint8[pyarrow]", "bool[pyarrow]", "double[pyarrow]"]


def _toy(n: int = 90, n_labels: int = 4, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    W = rng.normal(size=(3, n_labels))
    Y = (X @ W + rng.normal(scale=0.8, size=(n, n_labels)) > 0.3).astype(np.int64)
    Y[0] = 1  # every label has a positive
    return X, Y


def _ovr() -> OneVsRestClassifier:
    return OneVsRestClassifier(LogisticRegression(solver="liblinear"))


# ---------------------------------------------------------------- defect 8: y's columns


@pytest.fixture(scope="module")
def fitted_on_frame() -> tuple[FMacroThresholdClassifier, np.ndarray, pd.DataFrame]:
    X, Y = _toy()
    Ydf = pd.DataFrame(Y, columns=["a", "b", "c", "d"])
    clf = FMacroThresholdClassifier(_ovr(), cv=3, random_state=0).fit(X, Ydf)
    return clf, X, Ydf


def test_score_of_the_fitted_columns_is_f_macro_of_predict(fitted_on_frame) -> None:  # type: ignore[no-untyped-def]
    clf, X, Ydf = fitted_on_frame
    assert clf.label_names_in_.tolist() == ["a", "b", "c", "d"]
    pred = clf.predict(X)
    want = f_macro_score(Ydf.to_numpy(), pred)
    assert clf.score(X, Ydf) == pytest.approx(want)
    # hand-computed: F1 of macro precision and macro recall
    tp = (Ydf.to_numpy() & pred).sum(axis=0)
    p = np.mean(tp / pred.sum(axis=0))
    r = np.mean(tp / Ydf.to_numpy().sum(axis=0))
    assert want == pytest.approx(2 * p * r / (p + r))
    # a y without column names is taken by position
    assert clf.score(X, Ydf.to_numpy()) == pytest.approx(want)
    assert clf.score(X, sp.csr_matrix(Ydf.to_numpy())) == pytest.approx(want)


def test_score_refuses_reordered_columns_and_names_the_fix(fitted_on_frame) -> None:  # type: ignore[no-untyped-def]
    clf, X, Ydf = fitted_on_frame
    reordered = Ydf[["d", "c", "b", "a"]]
    right = clf.score(X, Ydf)
    # by position the reordered frame gives another number: the silent error refused here
    assert f_macro_score(reordered.to_numpy(), clf.predict(X)) != pytest.approx(right)
    with pytest.raises(ValueError, match=r"y has the label columns .* in another order") as err:
        clf.score(X, reordered)
    assert "'d', 'c', 'b', 'a' instead of 'a', 'b', 'c', 'd'" in str(err.value)
    assert "y[clf.label_names_in_]" in str(err.value)
    # the fix the message gives works and scores the fitted pairing
    assert clf.score(X, reordered[clf.label_names_in_]) == pytest.approx(right)


def test_score_refuses_renamed_missing_and_extra_columns(fitted_on_frame) -> None:  # type: ignore[no-untyped-def]
    clf, X, Ydf = fitted_on_frame
    with pytest.raises(ValueError, match=r"unseen at fit: 'z'; seen at fit, yet now missing: 'a'"):
        clf.score(X, Ydf.rename(columns={"a": "z"}))
    with pytest.raises(ValueError, match=r"\(seen at fit, yet now missing: 'd'\)"):
        clf.score(X, Ydf[["a", "b", "c"]])
    with pytest.raises(ValueError, match=r"\(unseen at fit: 'e'\); select them: y\[clf"):
        clf.score(X, Ydf.assign(e=0))
    # the extra column dropped as the message says: the fitted score
    assert clf.score(X, Ydf.assign(e=0)[clf.label_names_in_]) == pytest.approx(clf.score(X, Ydf))


def test_column_names_keep_their_type_and_nan_equals_nan() -> None:
    X, Y = _toy()
    clf = FMacroThresholdClassifier(_ovr(), cv=3, random_state=0)
    clf.fit(X, pd.DataFrame(Y, columns=[0, 1, 2, 3]))
    assert clf.label_names_in_.tolist() == [0, 1, 2, 3]
    with pytest.raises(ValueError, match=r"unseen at fit: '0', '1', '2', '3'; seen at fit"):
        clf.score(X, pd.DataFrame(Y, columns=["0", "1", "2", "3"]))
    clf.fit(X, pd.DataFrame(Y, columns=["a", np.nan, "c", "d"]))
    want = f_macro_score(Y, clf.predict(X))
    assert clf.score(X, pd.DataFrame(Y, columns=["a", float("nan"), "c", "d"])) == want
    # a repeated name cannot be paired: refused (by scikit-learn's target check first)
    with pytest.raises(ValueError, match=r"unique|more than once"):
        clf.fit(X, pd.DataFrame(Y, columns=["a", "a", "c", "d"]))


def test_refit_on_an_array_forgets_the_names_and_cross_val_score_pairs_them() -> None:
    X, Y = _toy()
    Ydf = pd.DataFrame(Y, columns=["a", "b", "c", "d"])
    clf = FMacroThresholdClassifier(_ovr(), cv=3, random_state=0).fit(X, Ydf)
    clf.fit(X, Y)
    assert not hasattr(clf, "label_names_in_")
    # without fitted names, a DataFrame y is taken by position
    assert clf.score(X, Ydf[["d", "c", "b", "a"]]) == pytest.approx(
        f_macro_score(Y[:, ::-1], clf.predict(X))
    )
    # scikit-learn's model selection scores DataFrame parts with the fitted columns
    scores = cross_val_score(FMacroThresholdClassifier(_ovr(), cv=2, random_state=0), X, Ydf, cv=3)
    scores_np = cross_val_score(FMacroThresholdClassifier(_ovr(), cv=2, random_state=0), X, Y, cv=3)
    np.testing.assert_allclose(scores, scores_np)


# ------------------------------------------------- defect 21: nullable and pyarrow dtypes


def _dtypes_or_skip(dtype: str) -> None:
    if "pyarrow" in dtype:
        pytest.importorskip("pyarrow")


@pytest.mark.parametrize("dtype", NULLABLE + PYARROW)
def test_estimator_takes_nullable_indicator_frames(dtype: str) -> None:
    _dtypes_or_skip(dtype)
    X, Y = _toy()
    Ydf = pd.DataFrame(Y, columns=["a", "b", "c", "d"]).astype(dtype)
    before = Ydf.copy()
    ref = FMacroThresholdClassifier(_ovr(), cv=3, random_state=0).fit(X, Y)
    clf = FMacroThresholdClassifier(_ovr(), cv=3, random_state=0).fit(X, Ydf)
    np.testing.assert_array_equal(clf.thresholds_, ref.thresholds_)
    pred = clf.predict(X)
    assert isinstance(pred, np.ndarray)
    np.testing.assert_array_equal(pred, ref.predict(X))
    floats = ("Float64", "double[pyarrow]")
    kind = "b" if dtype.startswith("bool") else "f" if dtype in floats else "iu"
    assert pred.dtype.kind in kind
    assert clf.score(X, Ydf) == pytest.approx(ref.score(X, Y))
    pd.testing.assert_frame_equal(Ydf, before)


@pytest.mark.parametrize("dtype", NULLABLE + PYARROW)
def test_estimator_takes_nullable_binary_series(dtype: str) -> None:
    _dtypes_or_skip(dtype)
    X, Y = _toy()
    y = pd.Series(Y[:, 1]).astype(dtype)
    ref = FMacroThresholdClassifier(LogisticRegression(), cv=3, random_state=0).fit(X, Y[:, 1])
    clf = FMacroThresholdClassifier(LogisticRegression(), cv=3, random_state=0).fit(X, y)
    np.testing.assert_array_equal(clf.thresholds_, ref.thresholds_)
    # the classes are numpy values of the column's kind (True, not 1.0, for booleans)
    want = y.to_numpy(dtype=y.dtype.numpy_dtype)
    assert clf.classes_.dtype == np.unique(want).dtype
    np.testing.assert_array_equal(clf.predict(X), ref.predict(X).astype(clf.classes_.dtype))
    assert clf.score(X, y) == pytest.approx(fbeta_score(want, clf.predict(X), beta=1.0))


def test_splitters_get_the_converted_labels() -> None:
    # MultilabelStratifiedKFold alone refuses an Int64 frame; the estimator hands it numpy
    X, Y = _toy()
    Ydf = pd.DataFrame(Y, columns=["a", "b", "c", "d"]).astype("Int64")
    cv = MultilabelStratifiedKFold(k=3, seed=0)
    ref = FMacroThresholdClassifier(_ovr(), cv=cv).fit(X, Y)
    clf = FMacroThresholdClassifier(_ovr(), cv=cv).fit(X, Ydf)
    np.testing.assert_array_equal(clf.thresholds_, ref.thresholds_)
    assert clf.best_score_ == ref.best_score_


def test_estimator_refuses_a_missing_label_with_its_position() -> None:
    X, Y = _toy()
    Ydf = pd.DataFrame(Y, columns=["a", "b", "c", "d"]).astype("Int64")
    Ydf.iloc[3, 1] = pd.NA
    clf = FMacroThresholdClassifier(_ovr(), cv=3, random_state=0)
    with pytest.raises(ValueError, match=r"y has a missing label \(NaN/NA\) at row 3, column 'b'"):
        clf.fit(X, Ydf)
    y = pd.Series(Y[:, 0], dtype="boolean")
    y.iloc[5] = pd.NA
    with pytest.raises(ValueError, match=r"y has a missing label \(NaN/NA\) at position 5"):
        FMacroThresholdClassifier(LogisticRegression()).fit(X, y)
    clf.fit(X, Ydf.fillna(0))
    with pytest.raises(ValueError, match=r"at row 3, column 'b'"):
        clf.score(X, Ydf)


def test_estimator_refuses_indicators_other_than_0_1() -> None:
    # scikit-learn calls a {-1, 1} matrix a multilabel indicator; as bool it is all True
    X, Y = _toy()
    with pytest.raises(ValueError, match=r"y must hold only 0 and 1, found \[-1\]"):
        FMacroThresholdClassifier(_ovr()).fit(X, 2 * Y - 1)


@pytest.mark.parametrize("dtype", NULLABLE + PYARROW)
def test_coerce_labels_reads_the_numpy_dtype(dtype: str) -> None:
    _dtypes_or_skip(dtype)
    values = pd.Series([1, 0, 1, 1]).astype(dtype)
    out = coerce_labels(values, name="expected")
    assert out.tolist() == [1, 0, 1, 1] and out.dtype != object
    column = coerce_labels(pd.DataFrame({"y": values}), name="expected")
    assert column.tolist() == [1, 0, 1, 1] and column.dtype != object
    missing = values.copy()
    missing.iloc[2] = pd.NA
    with pytest.raises(ValueError, match=r"expected has a missing label \(NaN/NA\) at position 2"):
        coerce_labels(missing, name="expected")
    # a validation of nullable labels matches scikit-learn on the plain ones
    pred = pd.Series([1, 1, 0, 1]).astype(dtype)
    v = MultiFValidation.from_predictions(values, pred)
    assert v.macro_f == pytest.approx(f1_score([1, 0, 1, 1], [1, 1, 0, 1], average="macro"))


def test_numpy_from_pandas_leaves_other_inputs_alone() -> None:
    arr = np.array([1, 0])
    assert numpy_from_pandas(arr, name="y") is arr
    plain = pd.Series([1, 0])
    assert numpy_from_pandas(plain, name="y") is plain
    text = pd.Series(["a", "b"], dtype="string")
    assert numpy_from_pandas(text, name="y") is text
    mixed = pd.DataFrame({"a": pd.Series([1, 0], dtype="Int64"), "b": [True, False]})
    out = numpy_from_pandas(mixed, name="y")
    assert out.dtype == np.int64 and out.tolist() == [[1, 1], [0, 0]]


@pytest.mark.parametrize("dtype", NULLABLE + PYARROW)
def test_optimize_label_checks_take_nullable_frames(dtype: str) -> None:
    _dtypes_or_skip(dtype)
    rng = np.random.default_rng(1)
    scores = rng.random((40, 3))
    labels = (rng.random((40, 3)) < scores).astype(np.int64)
    frame = pd.DataFrame(labels, columns=["x", "y", "z"]).astype(dtype)
    ref = fixed_point(scores, labels)
    got = fixed_point(scores, frame)
    np.testing.assert_array_equal(got.thresholds, ref.thresholds)
    assert got.f == pytest.approx(ref.f)
    assert tune(scores, frame).thresholds.tolist() == tune(scores, labels).thresholds.tolist()
    ev = evaluate_thresholds(scores, frame, ref)
    assert ev.f == pytest.approx(evaluate_thresholds(scores, labels, ref).f)
    frame.iloc[7, 2] = pd.NA
    with pytest.raises(
        ValueError, match=r"labels has a missing label \(NaN/NA\) at row 7, column 'z'"
    ):
        fixed_point(scores, frame)


@pytest.mark.parametrize("dtype", ["Float64", "double[pyarrow]"])
def test_optimize_takes_nullable_score_frames(dtype: str) -> None:
    _dtypes_or_skip(dtype)
    rng = np.random.default_rng(2)
    scores = rng.random((40, 3))
    labels = (rng.random((40, 3)) < scores).astype(np.int64)
    frame = pd.DataFrame(scores, columns=["x", "y", "z"]).astype(dtype)
    ref = fixed_point(scores, labels)
    np.testing.assert_array_equal(fixed_point(frame, labels).thresholds, ref.thresholds)
    assert evaluate_thresholds(frame, labels, ref.with_classes(["x", "y", "z"])).f == ref.f
    frame.iloc[4, 0] = pd.NA
    named = ref.with_classes(["x", "y", "z"])
    with pytest.raises(
        ValueError, match=r"scores has a missing score \(NaN/NA\) at row 4, column 'x'"
    ):
        evaluate_thresholds(frame, labels, named)


def test_nullable_integer_scores_are_checked_for_float64_rounding() -> None:
    big = pd.DataFrame({"a": [2**53 + 1, 0, 1], "b": [0, 1, 2]}, dtype="Int64")
    result = fixed_point(np.array([[3.0, 0.0], [0.0, 1.0], [1.0, 2.0]]), np.eye(3, 2))
    with pytest.raises(ValueError, match="float64 cannot represent exactly"):
        evaluate_thresholds(big, np.eye(3, 2), result.with_classes(["a", "b"]))


# ------------------------------------------------------ defect 23: > 256 label columns


def _wide(n: int = 160, n_labels: int = 300) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    X = rng.normal(size=(n, 4))
    Y = (X @ rng.normal(size=(4, n_labels)) + rng.normal(size=(n, n_labels)) > 0.8).astype(np.int64)
    Y[:2] = 1  # every label has positives in every fold part
    Y[2:4] = 0
    return X, Y


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.bool_])
def test_300_label_columns_each_learn_their_own_labels(dtype: type) -> None:
    X, Y = _wide()
    clf = FMacroThresholdClassifier(_ovr(), cv=2, random_state=0).fit(X, Y.astype(dtype))
    proba = clf.estimator_.predict_proba(X)
    for k in range(Y.shape[1]):
        alone = LogisticRegression(solver="liblinear").fit(X, Y[:, k]).predict_proba(X)[:, 1]
        np.testing.assert_allclose(proba[:, k], alone, rtol=1e-10, atol=1e-12, err_msg=str(k))
    ref = FMacroThresholdClassifier(_ovr(), cv=2, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(clf.thresholds_, ref.thresholds_)
    assert clf.predict(X).dtype == np.dtype(dtype)


def test_bool_labels_reach_ridge_as_zero_one() -> None:
    # RidgeClassifier codes targets -1/+1 in the dtype of y: a bool y becomes all True
    X, Y = _wide(n_labels=5)
    clf = FMacroThresholdClassifier(RidgeClassifier(), cv=2, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf.fit(X, Y.astype(bool))
    decision = clf.estimator_.decision_function(X)
    for k in range(Y.shape[1]):
        alone = RidgeClassifier().fit(X, Y[:, k]).decision_function(X)
        np.testing.assert_allclose(decision[:, k], alone, rtol=1e-9, atol=1e-12)


def test_loader_labels_are_int64_and_survive_label_binarization() -> None:
    Y = load_dataset("corel5k", "test")[1]
    Ys = load_dataset("corel5k", "test", sparse=True)[1]
    assert Y.dtype == np.int64 and Ys.dtype == np.int64 and Y.shape == (500, 374)
    assert set(np.unique(Y).tolist()) == {0, 1}
    # OneVsRestClassifier binarizes y this way before fitting one estimator per column
    for labels in (Y, Ys):
        binarized = LabelBinarizer(sparse_output=True).fit_transform(labels)
        np.testing.assert_array_equal(binarized.toarray(), Y)
    assert load_arff_data("emotions", "test").Y.dtype == np.int64
    assert load_dataset("emotions", "all")[1].dtype == np.int64


def test_multiclass_threshold_result_keeps_typed_class_labels() -> None:
    # classes_ 3, 10, 20 (ints) name the thresholds as ints, not '3', '10', '20'
    rng = np.random.default_rng(5)
    X = rng.normal(size=(120, 3))
    y = np.array([3, 10, 20])[rng.integers(0, 3, size=120)]
    clf = FMacroThresholdClassifier(LogisticRegression(), cv=3).fit(X, y)
    assert clf.threshold_result_.classes == (3, 10, 20)
    assert all(type(c) is int for c in clf.threshold_result_.classes)
