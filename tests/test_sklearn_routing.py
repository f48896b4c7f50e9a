"""FMacroThresholdClassifier and scikit-learn: metadata routing and the folds of an int cv.

Issue 28, items 2 and 3. The inner estimator here records every ``fit`` in a registry
shared by its clones: the row ids it was trained on (column 0 of ``X``) and the sample
weights it got, so the tests see which folds were used and where the weights went.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import sklearn
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import make_classification, make_multilabel_classification
from sklearn.exceptions import UnsetMetadataPassedError
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, GroupKFold
from sklearn.model_selection import KFold as SkKFold
from sklearn.model_selection import StratifiedKFold as SkStratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils.metadata_routing import get_routing_for_object

from fmacro.crossval import KFold
from fmacro.optimize.sklearn import FMacroThresholdClassifier


class _Registry(list):  # type: ignore[type-arg]
    """A list that scikit-learn's ``clone`` (deepcopy) shares instead of copying."""

    def __deepcopy__(self, memo: dict[int, Any]) -> _Registry:
        return self

    def __copy__(self) -> _Registry:
        return self


class _Recorder(ClassifierMixin, BaseEstimator):
    """Logistic regression on ``X[:, 1:]`` that records each fit's rows and weights.

    Column 0 of ``X`` holds the row ids. ``use_weights=False`` records the weights it gets
    but trains unweighted. A 2-D ``y`` gets one logistic regression per label.
    """

    def __init__(
        self, registry: _Registry | None = None, C: float = 1.0, use_weights: bool = True
    ) -> None:
        self.registry = registry
        self.C = C
        self.use_weights = use_weights

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> _Recorder:
        X, y = np.asarray(X), np.asarray(y)
        if self.registry is not None:
            w = None if sample_weight is None else np.asarray(sample_weight).copy()
            self.registry.append((X[:, 0].astype(int), w))
        w_fit = sample_weight if self.use_weights else None
        columns = [y] if y.ndim == 1 else [y[:, j] for j in range(y.shape[1])]
        self.models_ = [
            LogisticRegression(C=self.C).fit(X[:, 1:], col, sample_weight=w_fit) for col in columns
        ]
        self.classes_ = self.models_[0].classes_ if y.ndim == 1 else np.arange(y.shape[1])
        self.sample_weight_ = sample_weight
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        Z = np.asarray(X)[:, 1:]
        if len(self.models_) == 1 and self.classes_.shape[0] == self.models_[0].classes_.shape[0]:
            return np.asarray(self.models_[0].predict_proba(Z))
        return np.column_stack([m.predict_proba(Z)[:, 1] for m in self.models_])

    def predict(self, X: Any) -> np.ndarray:
        return np.asarray(self.classes_[np.argmax(self.predict_proba(X), axis=1)])


def _multiclass(n: int = 150) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X with row ids in column 0, 3-class y in no particular order, weights)."""
    X, y = make_classification(
        n_samples=n, n_features=5, n_informative=3, n_redundant=0, n_classes=3, random_state=0
    )
    w = np.random.default_rng(1).uniform(0.05, 6.0, n)
    return np.column_stack([np.arange(n), X]), y, w


def _multilabel(n: int = 120) -> tuple[np.ndarray, np.ndarray]:
    X, Y = make_multilabel_classification(
        n_samples=n, n_features=5, n_classes=3, n_labels=2, random_state=3
    )
    return np.column_stack([np.arange(n), X]), Y.astype(np.int64)


def _train_rows(registry: _Registry) -> list[list[int]]:
    return [rows.tolist() for rows, _ in registry]


def _sk_train_rows(splitter: Any, X: np.ndarray, y: np.ndarray) -> list[list[int]]:
    return [train.tolist() for train, _ in splitter.split(X, y)]


@pytest.fixture
def routing() -> Iterator[None]:
    with sklearn.config_context(enable_metadata_routing=True):
        yield


# --------------------------------------------------------------------------- item 3: cv=int


def test_default_cv_is_sklearns_stratified_kfold_and_deterministic() -> None:
    X, y, _ = _multiclass()
    runs = []
    for _ in range(2):
        registry = _Registry()
        clf = FMacroThresholdClassifier(_Recorder(registry)).fit(X, y)
        runs.append((clf.thresholds_.copy(), clf.best_score_, _train_rows(registry)))
    (t1, s1, rows1), (t2, s2, rows2) = runs
    np.testing.assert_array_equal(t1, t2)
    assert s1 == s2
    assert rows1 == rows2
    # five fold fits on StratifiedKFold(5)'s training rows, then the refit on every row
    assert rows1[:5] == _sk_train_rows(SkStratifiedKFold(5), X, y)
    assert rows1[5] == list(range(X.shape[0]))
    assert len(rows1) == 6


def test_default_cv_on_multilabel_y_is_sklearns_kfold() -> None:
    X, Y = _multilabel()
    registry = _Registry()
    a = FMacroThresholdClassifier(_Recorder(registry)).fit(X, Y)
    b = FMacroThresholdClassifier(_Recorder()).fit(X, Y)
    np.testing.assert_array_equal(a.thresholds_, b.thresholds_)
    assert _train_rows(registry)[:5] == _sk_train_rows(SkKFold(5), X, Y)
    assert _train_rows(registry)[:5] == _sk_train_rows(KFold(k=5, shuffle=False), X, Y)


def test_binary_int_cv_is_stratified() -> None:
    X, y, _ = _multiclass()
    yb = (y == 1).astype(int)
    registry = _Registry()
    FMacroThresholdClassifier(_Recorder(registry), cv=3).fit(X, yb)
    assert _train_rows(registry)[:3] == _sk_train_rows(SkStratifiedKFold(3), X, yb)


def test_random_state_shuffles_the_same_splitters_seeded() -> None:
    X, y, _ = _multiclass()
    registry = _Registry()
    a = FMacroThresholdClassifier(_Recorder(registry), cv=4, random_state=3).fit(X, y)
    want = SkStratifiedKFold(4, shuffle=True, random_state=3)
    assert _train_rows(registry)[:4] == _sk_train_rows(want, X, y)
    assert _train_rows(registry)[:4] != _sk_train_rows(SkStratifiedKFold(4), X, y)
    b = FMacroThresholdClassifier(_Recorder(), cv=4, random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.thresholds_, b.thresholds_)

    Xm, Y = _multilabel()
    registry = _Registry()
    FMacroThresholdClassifier(_Recorder(registry), cv=4, random_state=3).fit(Xm, Y)
    assert _train_rows(registry)[:4] == _sk_train_rows(KFold(k=4, shuffle=True, seed=3), Xm, Y)


def test_a_random_state_instance_draws_new_folds_at_each_fit() -> None:
    X, y, _ = _multiclass()
    rs = np.random.RandomState(0)
    registry = _Registry()
    clf = FMacroThresholdClassifier(_Recorder(registry), cv=3, random_state=rs)
    clf.fit(X, y)
    clf.fit(X, y)
    rows = _train_rows(registry)
    assert rows[0] != rows[4]  # fold 1 of the first fit, fold 1 of the second
    assert sorted(rows[0] + rows[1] + rows[2]) == sorted(2 * list(range(X.shape[0])))


@pytest.mark.parametrize(
    ("random_state", "error"),
    [(-1, ValueError), (2**32, ValueError), (1.5, TypeError), (True, TypeError), ("0", TypeError)],
)
def test_bad_random_state_is_named(random_state: object, error: type[Exception]) -> None:
    X, y, _ = _multiclass(60)
    with pytest.raises(error, match="random_state must be None, an int"):
        FMacroThresholdClassifier(_Recorder(), cv=3, random_state=random_state).fit(X, y)


# --------------------------------------------------------------------------- item 2: routing off


def test_without_routing_weights_reach_the_estimator_and_the_search() -> None:
    X, y, w = _multiclass()
    registry = _Registry()
    direct = FMacroThresholdClassifier(_Recorder(registry)).fit(X, y, sample_weight=w)
    unweighted = FMacroThresholdClassifier(_Recorder()).fit(X, y)
    assert not np.array_equal(direct.thresholds_, unweighted.thresholds_)
    # every fold fit got its rows' weights, the refit all of them
    for rows, got in registry:
        np.testing.assert_array_equal(got, w[rows])
    assert len(registry) == 6

    registry.clear()
    pipe = make_pipeline(FunctionTransformer(), FMacroThresholdClassifier(_Recorder(registry)))
    pipe.fit(X, y, fmacrothresholdclassifier__sample_weight=w)
    np.testing.assert_array_equal(pipe[-1].thresholds_, direct.thresholds_)
    assert pipe[-1].best_score_ == direct.best_score_
    for rows, got in registry:
        np.testing.assert_array_equal(got, w[rows])


def test_without_routing_grid_search_passes_weights_to_fit() -> None:
    X, y, w = _multiclass()
    registry = _Registry()
    clf = FMacroThresholdClassifier(_Recorder(registry), cv=3)
    outer = SkKFold(3, shuffle=True, random_state=0)
    gs = GridSearchCV(clf, {"estimator__C": [0.05, 5.0]}, cv=outer).fit(X, y, sample_weight=w)
    for rows, got in registry:
        np.testing.assert_array_equal(got, w[rows])
    want = clone(clf).set_params(**gs.best_params_).fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(gs.best_estimator_.thresholds_, want.thresholds_)
    # scikit-learn (1.9) also hands the weights to a scorer that takes them: score
    for i, C in enumerate([0.05, 5.0]):
        scores = []
        for train, test in outer.split(X, y):
            fold = clone(clf).set_params(estimator__C=C)
            fold.fit(X[train], y[train], sample_weight=w[train])
            scores.append(fold.score(X[test], y[test], sample_weight=w[test]))
        assert gs.cv_results_["mean_test_score"][i] == pytest.approx(np.mean(scores), abs=1e-12)


def test_without_routing_fit_params_still_reach_every_fit() -> None:
    # before routing existed, any fit parameter went to every estimator.fit: unchanged
    X, y, _ = _multiclass(60)
    with pytest.raises(TypeError, match="groups"):
        FMacroThresholdClassifier(_Recorder(), cv=3).fit(X, y, groups=np.arange(60) % 3)


# --------------------------------------------------------------------------- item 2: routing on


def test_request_methods_exist_and_declare_the_routing(routing: None) -> None:
    inner = _Recorder().set_fit_request(sample_weight=True)
    clf = FMacroThresholdClassifier(inner, cv=GroupKFold(3))
    assert clf.set_fit_request(sample_weight=True) is clf
    assert clf.set_score_request(sample_weight=True) is clf
    router = get_routing_for_object(clf)
    assert router.consumes("fit", ["sample_weight", "groups", "other"]) == {
        "sample_weight",
        "groups",
    }
    assert router.consumes("score", ["sample_weight"]) == {"sample_weight"}
    # an int cv is built at fit and requests nothing
    plain = get_routing_for_object(FMacroThresholdClassifier(_Recorder()))
    assert plain.consumes("fit", ["groups"]) == set()


def test_with_routing_weights_reach_the_estimator_and_the_search(routing: None) -> None:
    X, y, w = _multiclass()
    with sklearn.config_context(enable_metadata_routing=False):
        want = FMacroThresholdClassifier(_Recorder()).fit(X, y, sample_weight=w)
    registry = _Registry()
    inner = _Recorder(registry).set_fit_request(sample_weight=True)
    direct = FMacroThresholdClassifier(inner).fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(direct.thresholds_, want.thresholds_)
    for rows, got in registry:
        np.testing.assert_array_equal(got, w[rows])
    assert len(registry) == 6

    registry.clear()
    clf = FMacroThresholdClassifier(inner).set_fit_request(sample_weight=True)
    pipe = make_pipeline(FunctionTransformer(), clf).fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(pipe[-1].thresholds_, want.thresholds_)
    assert pipe[-1].best_score_ == want.best_score_
    assert len(registry) == 6
    for rows, got in registry:
        np.testing.assert_array_equal(got, w[rows])


def test_with_routing_grid_search_weights_fit_and_score(routing: None) -> None:
    X, y, w = _multiclass()
    registry = _Registry()
    inner = _Recorder(registry).set_fit_request(sample_weight=True)
    clf = FMacroThresholdClassifier(inner, cv=3)
    clf.set_fit_request(sample_weight=True).set_score_request(sample_weight=True)
    outer = SkKFold(3, shuffle=True, random_state=0)
    gs = GridSearchCV(clf, {"estimator__C": [0.05, 5.0]}, cv=outer).fit(X, y, sample_weight=w)
    assert len(registry) == 2 * 3 * 4 + 4  # (params x outer folds x (3 + refit)), final refit
    for rows, got in registry:
        np.testing.assert_array_equal(got, w[rows])
    with sklearn.config_context(enable_metadata_routing=False):
        plain = FMacroThresholdClassifier(_Recorder(), cv=3)
        want = clone(plain).set_params(**gs.best_params_).fit(X, y, sample_weight=w)
        np.testing.assert_array_equal(gs.best_estimator_.thresholds_, want.thresholds_)
        # the test scores are weighted: score got the test rows' weights
        for i, C in enumerate([0.05, 5.0]):
            weighted, unweighted = [], []
            for train, test in outer.split(X, y):
                fold = clone(plain).set_params(estimator__C=C)
                fold.fit(X[train], y[train], sample_weight=w[train])
                weighted.append(fold.score(X[test], y[test], sample_weight=w[test]))
                unweighted.append(fold.score(X[test], y[test]))
            got = gs.cv_results_["mean_test_score"][i]
            assert got == pytest.approx(np.mean(weighted), abs=1e-12)
            assert got != pytest.approx(np.mean(unweighted), abs=1e-6)


def test_with_routing_unset_requests_raise(routing: None) -> None:
    X, y, w = _multiclass(90)
    # the inner estimator was not told whether it wants the weights
    with pytest.raises(UnsetMetadataPassedError, match=r"_Recorder\.fit"):
        FMacroThresholdClassifier(_Recorder(), cv=3).fit(X, y, sample_weight=w)
    # a pipeline above: this estimator was not told
    inner = _Recorder().set_fit_request(sample_weight=True)
    pipe = make_pipeline(FunctionTransformer(), FMacroThresholdClassifier(inner, cv=3))
    with pytest.raises(UnsetMetadataPassedError, match=r"FMacroThresholdClassifier\.fit"):
        pipe.fit(X, y, sample_weight=w)
    # GridSearchCV's default scoring calls score: its request must be set too
    clf = FMacroThresholdClassifier(inner, cv=3).set_fit_request(sample_weight=True)
    gs = GridSearchCV(clf, {"estimator__C": [1.0]}, cv=2)
    with pytest.raises(UnsetMetadataPassedError, match=r"FMacroThresholdClassifier\.score"):
        gs.fit(X, y, sample_weight=w)
    # metadata that nothing requests
    with pytest.raises(TypeError, match="groups"):
        FMacroThresholdClassifier(_Recorder(), cv=3).fit(X, y, groups=np.arange(90) % 3)


def test_with_routing_an_estimator_may_decline_the_weights(routing: None) -> None:
    X, y, w = _multiclass()
    registry = _Registry()
    inner = _Recorder(registry).set_fit_request(sample_weight=False)
    clf = FMacroThresholdClassifier(inner).set_fit_request(sample_weight=True)
    pipe = make_pipeline(FunctionTransformer(), clf).fit(X, y, sample_weight=w)
    assert [got for _, got in registry] == [None] * 6
    # = without routing, an estimator that ignores its weights under a weighted search
    with sklearn.config_context(enable_metadata_routing=False):
        want = FMacroThresholdClassifier(_Recorder(use_weights=False)).fit(X, y, sample_weight=w)
        unweighted = FMacroThresholdClassifier(_Recorder()).fit(X, y)
    np.testing.assert_array_equal(pipe[-1].thresholds_, want.thresholds_)
    assert not np.array_equal(pipe[-1].thresholds_, unweighted.thresholds_)


def test_with_routing_aliases_send_each_weight_its_way(routing: None) -> None:
    X, y, w = _multiclass()
    w_inner = np.random.default_rng(5).uniform(0.5, 2.0, X.shape[0])
    registry = _Registry()
    inner = _Recorder(registry).set_fit_request(sample_weight="inner_weight")
    clf = FMacroThresholdClassifier(inner).set_fit_request(sample_weight="search_weight")
    pipe = make_pipeline(FunctionTransformer(), clf)
    pipe.fit(X, y, search_weight=w, inner_weight=w_inner)
    assert len(registry) == 6
    for rows, got in registry:
        np.testing.assert_array_equal(got, w_inner[rows])
    # called directly, the search takes sample_weight and the estimator its alias
    direct_inner = _Recorder().set_fit_request(sample_weight="inner_weight")
    direct = FMacroThresholdClassifier(direct_inner).fit(
        X, y, sample_weight=w, inner_weight=w_inner
    )
    np.testing.assert_array_equal(pipe[-1].thresholds_, direct.thresholds_)
    with sklearn.config_context(enable_metadata_routing=False):
        both_w = FMacroThresholdClassifier(_Recorder()).fit(X, y, sample_weight=w)
        both_inner = FMacroThresholdClassifier(_Recorder()).fit(X, y, sample_weight=w_inner)
    assert not np.array_equal(direct.thresholds_, both_w.thresholds_)
    assert not np.array_equal(direct.thresholds_, both_inner.thresholds_)


def test_with_routing_the_splitter_gets_its_groups(routing: None) -> None:
    X, y, _ = _multiclass()
    groups = np.arange(X.shape[0]) % 7
    registry = _Registry()
    clf = FMacroThresholdClassifier(_Recorder(registry), cv=GroupKFold(3))
    clf.fit(X, y, groups=groups)
    want = [train.tolist() for train, _ in GroupKFold(3).split(X, y, groups)]
    assert _train_rows(registry)[:3] == want
    for rows in _train_rows(registry)[:3]:
        held_out = set(range(X.shape[0])) - set(rows)
        assert not set(groups[rows]) & set(groups[list(held_out)])


def test_with_routing_and_no_metadata_nothing_changes(routing: None) -> None:
    X, y, _ = _multiclass()
    got = FMacroThresholdClassifier(_Recorder()).fit(X, y)
    with sklearn.config_context(enable_metadata_routing=False):
        want = FMacroThresholdClassifier(_Recorder()).fit(X, y)
    np.testing.assert_array_equal(got.thresholds_, want.thresholds_)
    assert got.best_score_ == want.best_score_


def test_with_routing_prefit_routes_nothing_to_the_fitted_estimator(routing: None) -> None:
    X, y, w = _multiclass()
    fitted = _Recorder().fit(X, y)  # request unset: never fitted again, never asked
    clf = FMacroThresholdClassifier(fitted, cv="prefit", refit=False)
    assert [name for name, _ in clf.get_metadata_routing()] == ["$self_request"]
    assert [name for name, _ in clone(clf).set_params(cv=3).get_metadata_routing()] == [
        "$self_request",
        "estimator",
        "splitter",
    ]
    got = clf.fit(X, y, sample_weight=w)
    with sklearn.config_context(enable_metadata_routing=False):
        want = FMacroThresholdClassifier(fitted, cv="prefit", refit=False)
        want.fit(X, y, sample_weight=w)
        unweighted = FMacroThresholdClassifier(fitted, cv="prefit", refit=False).fit(X, y)
    np.testing.assert_array_equal(got.thresholds_, want.thresholds_)
    assert not np.array_equal(got.thresholds_, unweighted.thresholds_)
    assert fitted.sample_weight_ is None


def test_an_int_cv_too_large_for_every_class_is_named() -> None:
    X, y, _ = _multiclass(12)
    y = np.arange(12) % 4  # three samples per class
    with pytest.raises(ValueError, match=r"cv=5 stratified folds .* largest class of y has 3"):
        FMacroThresholdClassifier(_Recorder()).fit(X, y)
    clf = FMacroThresholdClassifier(_Recorder(), cv=3).fit(X, y)
    assert clf.thresholds_.shape == (4,)
