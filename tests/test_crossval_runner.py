"""cross_validate and CrossValidation: seed 002 C13 examples, pooling, inference, parallel maps."""

from __future__ import annotations

import multiprocessing
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

import attrs
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import accuracy_score, f1_score
from sklearn.model_selection import cross_val_predict, cross_val_score
from sklearn.tree import DecisionTreeClassifier

from fmacro.crossval import (
    CrossValidation,
    Fold,
    GroupKFold,
    KFold,
    LeaveOneOut,
    MultilabelStratifiedKFold,
    OneFold,
    RepeatedKFold,
    StratificationWarning,
    StratifiedKFold,
    cross_validate,
    vectorized,
)
from fmacro.validation import BinFValidation, Counts, MultiFValidation, MultiLabelFValidation

# --------------------------------------------------------------------------- helpers


def knn_fit(neighbours: int) -> Callable[[Any, Any], Callable[[Any], np.ndarray]]:
    """A tiny 1-D k-nearest-neighbour classifier (majority vote)."""

    def fit(X_train: np.ndarray, y_train: np.ndarray) -> Callable[[Any], np.ndarray]:
        def predict(X_val: np.ndarray) -> np.ndarray:
            out = []
            for x in X_val:
                nearest = np.argsort(np.abs(X_train - x), kind="stable")[:neighbours]
                out.append(Counter(y_train[nearest].tolist()).most_common(1)[0][0])
            return np.array(out)

        return predict

    return fit


def tree_fit(X_train: np.ndarray, y_train: np.ndarray) -> Callable[[Any], np.ndarray]:
    """Module level, hence picklable for a process pool."""
    return DecisionTreeClassifier(max_depth=3, random_state=0).fit(X_train, y_train).predict


def blobs(n: int = 120, classes: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = np.arange(n) % classes
    X = rng.normal(size=(n, 2)) + y[:, None] * 1.2
    return X, y


# --------------------------------------------------------------------------- seed 002, C13


X_1D = np.array([1.0, 2.0, 3.0, 10.0, 11.0])
Y_1D = np.array(["A", "A", "A", "B", "B"])


def test_loo_one_nn_accuracy_is_one() -> None:
    # C13 example 3: 5/5 correct
    cv = cross_validate(knn_fit(1), X_1D, Y_1D, LeaveOneOut())
    assert isinstance(cv.pooled, MultiFValidation)
    assert cv.pooled.accuracy == 1.0
    assert cv.out_of_fold.tolist() == ["A", "A", "A", "B", "B"]
    assert cv.n_folds == 5


def test_loo_three_nn_accuracy_is_point_six() -> None:
    # C13 example 4: x=10 and x=11 are outvoted by the A's, 3/5 correct
    cv = cross_validate(knn_fit(3), X_1D, Y_1D, LeaveOneOut())
    assert cv.pooled.accuracy == pytest.approx(0.6)
    assert cv.out_of_fold.tolist() == ["A"] * 5
    np.testing.assert_array_equal(cv.pooled.confusion.matrix, [[3, 0], [2, 0]])
    # k = n equals leave-one-out
    same = cross_validate(knn_fit(3), X_1D, Y_1D, KFold(k=5, seed=1))
    np.testing.assert_array_equal(same.out_of_fold, cv.out_of_fold)


def test_pooled_versus_fold_averaged_f_from_counts() -> None:
    # C13 example 5: fold 1 TP=2 FP=0 FN=2; fold 2 TP=8 FP=4 FN=0
    v1 = BinFValidation.from_counts(Counts(tp=2, fp=0, fn=2, tn=0))
    v2 = BinFValidation.from_counts(Counts(tp=8, fp=4, fn=0, tn=0))
    cv = CrossValidation(validations=(v1, v2))
    np.testing.assert_allclose(cv.fold_scores, [4 / 6, 16 / 20])
    assert cv.mean == pytest.approx(0.7333, abs=5e-5)
    assert cv.pooled.score == pytest.approx(20 / 26)
    assert round(cv.pooled.score, 3) == 0.769
    assert cv.pooled.counts == Counts(tp=10, fp=4, fn=2, tn=0)
    assert cv.std == pytest.approx(np.std([4 / 6, 0.8]))
    text = cv.report()
    assert "pooled" in text and "0.7692" in text
    assert "fold average" in text and "0.7333" in text
    assert "each sample weighs the same" in text and "each fold weighs the same" in text


@attrs.frozen
class FixedFolds:
    """A scikit-learn style splitter with given validation parts (not a crossval class)."""

    parts: tuple[tuple[int, ...], ...]

    def split(self, X: Any, y: Any = None, groups: Any = None) -> Iterator[tuple[Any, Any]]:
        everything = np.arange(len(X))
        for part in self.parts:
            yield np.setdiff1d(everything, part), np.array(part)

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        return len(self.parts)


def test_pooled_versus_fold_averaged_f_from_predictions() -> None:
    # the same two folds, realized as predictions: fold 1 = samples 0..3, fold 2 = 4..15
    y = np.array([1, 1, 1, 1] + [1] * 8 + [0] * 4)
    prediction = np.array([1, 1, 0, 0] + [1] * 12)
    X = np.arange(16)

    def fit(X_train: np.ndarray, y_train: np.ndarray) -> Callable[[Any], np.ndarray]:
        return lambda X_val: prediction[X_val]

    cv = cross_validate(fit, X, y, FixedFolds(((0, 1, 2, 3), tuple(range(4, 16)))))
    assert [v.counts for v in cv.validations] == [Counts(2, 0, 2, 0), Counts(8, 4, 0, 0)]
    assert cv.pooled.score == pytest.approx(20 / 26)
    assert cv.mean == pytest.approx((4 / 6 + 0.8) / 2)
    np.testing.assert_array_equal(cv.out_of_fold, prediction)


def test_validations_hold_validations_and_fold_indices_hold_folds() -> None:
    # .validations[i] is the validation of the samples in .fold_indices[i].validation;
    # the old name .folds (validations, while a Fold holds indices) is gone.
    y = np.array([1, 1, 1, 1] + [1] * 8 + [0] * 4)
    prediction = np.array([1, 1, 0, 0] + [1] * 12)

    def fit(X_train: np.ndarray, y_train: np.ndarray) -> Callable[[Any], np.ndarray]:
        return lambda X_val: prediction[X_val]

    cv = cross_validate(fit, np.arange(16), y, FixedFolds(((0, 1, 2, 3), tuple(range(4, 16)))))
    assert not hasattr(cv, "folds")
    assert all(isinstance(v, BinFValidation) for v in cv.validations)
    assert all(isinstance(f, Fold) for f in cv.fold_indices)
    for v, f in zip(cv.validations, cv.fold_indices, strict=True):
        again = BinFValidation.from_predictions(y[f.validation], prediction[f.validation])
        assert v.counts == again.counts


# --------------------------------------------------------------------------- pooling and inference


def test_multiclass_classes_fixed_from_full_y_so_folds_pool() -> None:
    X, y = blobs(60)
    y = y.copy()
    y[0] = 7  # a class with one member: most folds never see it
    with pytest.warns(StratificationWarning):
        cv = cross_validate(tree_fit, X, y, StratifiedKFold(k=4, seed=0))
    assert all(v.classes == (0, 1, 2, 7) for v in cv.validations)
    oof = MultiFValidation.from_predictions(y, cv.out_of_fold, classes=(0, 1, 2, 7))
    np.testing.assert_array_equal(cv.pooled.confusion.matrix, oof.confusion.matrix)
    assert cv.pooled.score == pytest.approx(oof.score)


def test_binary_inferred_and_cross_checked_with_scikit_learn() -> None:
    X, y3 = blobs(150, classes=3, seed=2)
    y = (y3 == 2).astype(int)
    splitter = KFold(k=5, seed=4)
    cv = cross_validate(tree_fit, X, y, splitter)
    assert all(isinstance(v, BinFValidation) and v.positive == 1 for v in cv.validations)
    model = DecisionTreeClassifier(max_depth=3, random_state=0)
    np.testing.assert_array_equal(cv.out_of_fold, cross_val_predict(model, X, y, cv=splitter))
    sk_fold_f1 = cross_val_score(model, X, y, cv=splitter, scoring="f1")
    np.testing.assert_allclose(cv.fold_scores, sk_fold_f1)
    assert cv.mean == pytest.approx(sk_fold_f1.mean())
    assert cv.pooled.score == pytest.approx(f1_score(y, cv.out_of_fold))
    assert cv.pooled.accuracy == pytest.approx(accuracy_score(y, cv.out_of_fold))


def test_multilabel_inferred_dense_and_sparse() -> None:
    rng = np.random.default_rng(5)
    X = rng.normal(size=(80, 3))
    Y = np.stack([X[:, 0] > 0, X[:, 1] > 0.5, X[:, 0] + X[:, 2] > 0], axis=1).astype(np.uint8)

    def fit(X_train: Any, Y_train: Any) -> Callable[[Any], Any]:
        dense = Y_train.toarray() if sp.issparse(Y_train) else Y_train
        model = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X_train, dense)
        if sp.issparse(Y_train):
            return lambda X_val: sp.csr_matrix(model.predict(X_val))
        return model.predict

    splitter = MultilabelStratifiedKFold(k=4, seed=1)
    cv = cross_validate(fit, X, Y, splitter)
    assert all(isinstance(v, MultiLabelFValidation) for v in cv.validations)
    whole = MultiLabelFValidation.from_predictions(Y, cv.out_of_fold)
    np.testing.assert_array_equal(cv.pooled.class_counts.tp, whole.class_counts.tp)
    assert cv.pooled.score == pytest.approx(whole.score)
    cv_sparse = cross_validate(fit, X, sp.csr_matrix(Y), splitter)
    assert sp.issparse(cv_sparse.out_of_fold)
    np.testing.assert_array_equal(cv_sparse.out_of_fold.toarray(), cv.out_of_fold)
    assert cv_sparse.pooled.score == pytest.approx(cv.pooled.score)


def test_validation_override() -> None:
    X, y3 = blobs(90, seed=1)
    y_pm = np.where(y3 == 0, 1, -1)  # two labels, not 0/1: multiclass unless told
    inferred = cross_validate(tree_fit, X, y_pm, KFold(k=3, seed=0))
    assert isinstance(inferred.pooled, MultiFValidation)
    binary = cross_validate(tree_fit, X, y_pm, KFold(k=3, seed=0), validation="binary")
    assert isinstance(binary.pooled, BinFValidation) and binary.pooled.positive == 1
    f2 = cross_validate(
        tree_fit,
        X,
        y_pm,
        KFold(k=3, seed=0),
        validation=lambda e, p: BinFValidation.from_predictions(e, p, positive=1, beta=2.0),
    )
    assert f2.pooled.beta == 2.0
    y01 = (y3 == 0).astype(int)
    as_multi = cross_validate(tree_fit, X, y01, KFold(k=3, seed=0), validation="multiclass")
    assert isinstance(as_multi.pooled, MultiFValidation) and as_multi.pooled.classes == (0, 1)
    with pytest.raises(ValueError, match="validation must be None, 'binary'"):
        cross_validate(tree_fit, X, y01, KFold(k=3, seed=0), validation="accuracy")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="two distinct labels, found 3"):
        cross_validate(tree_fit, X, y3, KFold(k=3, seed=0), validation="binary")
    with pytest.raises(ValueError, match="indicator matrix"):
        cross_validate(tree_fit, X, y3, KFold(k=3, seed=0), validation="multilabel")


# --------------------------------------------------------------------------- maps


def test_thread_and_process_pool_maps_give_the_same_result() -> None:
    X, y = blobs(90)
    splitter = StratifiedKFold(k=3, seed=2)
    serial = cross_validate(tree_fit, X, y, splitter)
    with ThreadPoolExecutor(max_workers=2) as pool:
        threaded = cross_validate(tree_fit, X, y, splitter, map=pool.map)
    # spawn: forking a process that already runs OpenMP threads (scikit-learn) is unsafe
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=spawn) as pool:
        processed = cross_validate(tree_fit, X, y, splitter, map=pool.map)
    for other in (threaded, processed):
        np.testing.assert_array_equal(other.fold_scores, serial.fold_scores)
        np.testing.assert_array_equal(other.out_of_fold, serial.out_of_fold)
        np.testing.assert_array_equal(other.pooled.confusion.matrix, serial.pooled.confusion.matrix)


def test_per_observation_predict_via_vectorized() -> None:
    def fit(X_train: np.ndarray, y_train: np.ndarray) -> Callable[[Any], np.ndarray]:
        threshold = X_train[y_train == 1].min()
        return vectorized(lambda x: int(x >= threshold))

    X = np.arange(20.0)
    y = (X >= 10).astype(int)
    cv = cross_validate(fit, X, y, KFold(k=4, shuffle=False))
    # fold 3 validates 10..14 after training on 15..19 only: those five become FN
    assert cv.pooled.counts == Counts(tp=5, fp=0, fn=5, tn=10)


def _above_half(row: Any) -> int:
    dense = row.toarray() if sp.issparse(row) else np.asarray(row)
    return int(dense.reshape(-1)[0] > 0.5)


def test_vectorized_is_a_function_returning_a_picklable_predict() -> None:
    import inspect
    import pickle

    import pandas as pd

    assert inspect.isfunction(vectorized)
    predict = vectorized(_above_half)
    X = np.array([[0.2], [0.9], [0.7]])
    assert predict(X).tolist() == [0, 1, 1]
    assert predict(pd.DataFrame(X)).tolist() == [0, 1, 1]
    assert predict(sp.csr_matrix(X)).tolist() == [0, 1, 1]
    again = pickle.loads(pickle.dumps(predict))
    assert again(X).tolist() == [0, 1, 1]
    assert again == predict and hash(again) == hash(predict)
    with pytest.raises(TypeError, match="predict_one must be callable"):
        vectorized(3)  # type: ignore[arg-type]


# ------------------------------------------------------------------ other splitters, errors


def test_non_partition_splitters_keep_fold_predictions_but_refuse_out_of_fold() -> None:
    X, y = blobs(60)
    for splitter in (OneFold(ratio=0.75, seed=0), RepeatedKFold(k=3, repeats=2, seed=0)):
        cv = cross_validate(tree_fit, X, y, splitter)
        assert len(cv.validations) == splitter.get_n_splits()
        for fold, predicted in zip(cv.fold_indices, cv.fold_predictions, strict=True):
            assert predicted.shape == fold.validation.shape and not predicted.flags.writeable
        with pytest.raises(ValueError, match="exactly once"):
            _ = cv.out_of_fold
    groups = np.arange(60) // 6
    grouped = cross_validate(tree_fit, X, y, GroupKFold(k=5), groups=groups)
    assert grouped.out_of_fold.shape == (60,)


def test_results_are_immutable_and_inputs_untouched() -> None:
    X, y = blobs(60)
    X_before, y_before = X.copy(), y.copy()
    cv = cross_validate(tree_fit, X, y, KFold(k=3, seed=0))
    np.testing.assert_array_equal(X, X_before)
    np.testing.assert_array_equal(y, y_before)
    assert not cv.fold_scores.flags.writeable
    assert not cv.out_of_fold.flags.writeable
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        cv.n_samples = 3  # type: ignore[misc]
    assert cv.score == cv.pooled.score


def test_bad_inputs() -> None:
    X, y = blobs(30)
    with pytest.raises(ValueError, match="X has 30, y has 29"):
        cross_validate(tree_fit, X, y[:-1], KFold(k=3, seed=0))
    with pytest.raises(TypeError, match="fit must be callable"):
        cross_validate(None, X, y, KFold(k=3, seed=0))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="must return a predict callable"):
        cross_validate(lambda a, b: 3, X, y, KFold(k=3, seed=0))  # type: ignore[arg-type, return-value]
    with pytest.raises(ValueError, match="vectorized"):
        cross_validate(lambda a, b: lambda Xv: 1, X, y, KFold(k=3, seed=0))
    with pytest.raises(ValueError, match="returned 1 predictions for 10"):
        cross_validate(lambda a, b: lambda Xv: [1], X, y, KFold(k=3, seed=0))
    with pytest.raises(TypeError, match="split"):
        cross_validate(tree_fit, X, y, 5)
    with pytest.raises(ValueError, match="validations is empty"):
        CrossValidation(validations=())
