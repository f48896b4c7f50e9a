"""The scikit-learn scorers plug into cross_val_score and GridSearchCV."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_multilabel_classification
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score, precision_recall_fscore_support
from sklearn.model_selection import GridSearchCV, KFold, cross_val_predict, cross_val_score
from sklearn.multiclass import OneVsRestClassifier

from fmacro.validation import MultiFValidation
from fmacro.validation.sklearn import f_macro_score, f_macro_scorer, measure_scorer


def test_scorer_equals_validation_on_each_fold() -> None:
    X, y = make_classification(n_samples=120, n_classes=3, n_informative=4, random_state=0)
    clf = LogisticRegression(max_iter=500)
    cv = KFold(3, shuffle=True, random_state=0)
    scores = cross_val_score(clf, X, y, cv=cv, scoring=f_macro_scorer())
    for score, (train, test) in zip(scores, cv.split(X), strict=True):
        pred = clf.fit(X[train], y[train]).predict(X[test])
        assert score == pytest.approx(MultiFValidation.from_predictions(y[test], pred).f_macro)
    macro = cross_val_score(clf, X, y, cv=cv, scoring=measure_scorer("macro_f"))
    for score, (train, test) in zip(macro, cv.split(X), strict=True):
        pred = clf.fit(X[train], y[train]).predict(X[test])
        assert score == pytest.approx(f1_score(y[test], pred, average="macro"))


def test_grid_search_and_multilabel() -> None:
    X, Y = make_multilabel_classification(n_samples=80, n_classes=4, random_state=1)
    search = GridSearchCV(
        OneVsRestClassifier(LogisticRegression(max_iter=300)),
        {"estimator__C": [0.1, 1.0]},
        scoring=f_macro_scorer(beta=2.0),
        cv=3,
    )
    search.fit(X, Y)
    assert 0.0 <= search.best_score_ <= 1.0
    pred = cross_val_predict(OneVsRestClassifier(LogisticRegression(max_iter=300)), X, Y, cv=3)
    p, r, _, _ = precision_recall_fscore_support(Y, pred, average="macro", zero_division=0.0)
    assert f_macro_score(Y, pred) == pytest.approx(2 * p * r / (p + r))


def test_unknown_measure() -> None:
    with pytest.raises(ValueError, match="measure must be one of"):
        measure_scorer("auc")


def test_multilabel_accuracies_and_hamming_loss_agree_with_scikit_learn() -> None:
    from sklearn.metrics import accuracy_score, hamming_loss, precision_score

    from fmacro.validation.sklearn import measure_score

    rng = np.random.default_rng(5)
    y_true = (rng.random((40, 6)) < 0.3).astype(int)
    y_pred = (rng.random((40, 6)) < 0.3).astype(int)
    assert measure_score(y_true, y_pred, measure="subset_accuracy") == accuracy_score(
        y_true, y_pred
    )
    assert measure_score(y_true, y_pred, measure="hamming_loss") == pytest.approx(
        hamming_loss(y_true, y_pred)
    )
    assert measure_score(y_true, y_pred, measure="weighted_precision") == pytest.approx(
        precision_score(y_true, y_pred, average="weighted", zero_division=0)
    )


def test_hamming_loss_scorer_is_negated_as_scikit_learns_losses() -> None:
    from sklearn.dummy import DummyClassifier
    from sklearn.metrics import hamming_loss

    rng = np.random.default_rng(6)
    X = rng.random((30, 3))
    Y = (rng.random((30, 4)) < 0.4).astype(int)
    clf = DummyClassifier(strategy="most_frequent").fit(X, Y)
    score = measure_scorer("hamming_loss")(clf, X, Y)
    assert score == pytest.approx(-hamming_loss(Y, clf.predict(X)))
