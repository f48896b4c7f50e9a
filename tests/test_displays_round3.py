"""Displays, round 3: class names as ``column=``, ``from_estimator`` / ``from_predictions``,
average precision in the PR legend, the multi-label confusion grid, and an
``FMacroThresholdClassifier`` that displays in Jupyter without warnings."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification, make_multilabel_classification
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import average_precision_score, multilabel_confusion_matrix
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import LinearSVC

from fmacro.optimize import class_points, fixed_point
from fmacro.optimize.plot import (
    FThresholdDisplay,
    MultilabelConfusionDisplay,
    PrecisionRecallDisplay,
)
from fmacro.optimize.plot._columns import column_index
from fmacro.optimize.sklearn import FMacroThresholdClassifier
from fmacro.validation import MultiLabelFValidation

SCORES = np.array([[0.9, 0.1], [0.8, 0.9], [0.7, 0.8], [0.2, 0.3], [0.1, 0.2]])
LABELS = np.array([[1, 0], [0, 1], [1, 0], [0, 1], [1, 1]])


@pytest.fixture(autouse=True)
def _close_figures() -> Iterator[None]:
    yield
    plt.close("all")


def _brute_pr(scores: Any, labels: Any, t: float) -> tuple[float, float]:
    pred = np.asarray(scores) >= t
    y = np.asarray(labels).astype(bool)
    tp = int(np.sum(pred & y))
    return (tp / pred.sum() if pred.sum() else 0.0), tp / int(y.sum())


def _cut_of(scores: Any, threshold: float) -> float:
    """The threshold of the cut ``score >= threshold``: its lowest predicted score."""
    hit = np.asarray(scores)[np.asarray(scores) >= threshold]
    return float(hit.min()) if hit.size else np.inf


# --------------------------------------------------------------------------- column names


def test_column_rule_names_and_positions() -> None:
    # no names, or no int name: an int is a position
    assert column_index(1, None, 3) == 1
    assert column_index(np.int64(2), ["a", "b", "c"], 3) == 2
    assert column_index("b", ["a", "b", "c"], 3) == 1
    # some name is an int: an int is a name (as pos_label / Series[k] on an int index)
    assert column_index(1, [1, 2, 3], 3) == 0
    assert column_index(3, [1, 2, 3], 3) == 2
    assert column_index("x", [0, "x"], 2) == 1
    # names keep their kind: "1" is not 1, 1.0 is not 1
    with pytest.raises(ValueError, match=r"column '1' is not a class name .* 1, 2, 3"):
        column_index("1", [1, 2, 3], 3)
    with pytest.raises(ValueError, match="an int column is a name, not a position"):
        column_index(0, [1, 2, 3], 3)
    with pytest.raises(ValueError, match=r"column 'd' is not a class name of the result; its "):
        column_index("d", ["a", "b", "c"], 3)
    with pytest.raises(ValueError, match=r"out of range: the result has 3 columns \('a', 'b'"):
        column_index(3, ["a", "b", "c"], 3)
    with pytest.raises(ValueError, match=r"out of range: .* \(0 \.\. 2\)"):
        column_index(-1, None, 3)
    with pytest.raises(ValueError, match="has no class names"):
        column_index("a", None, 3)
    with pytest.raises(TypeError, match="column must be an int or a class name"):
        column_index([0], None, 3)
    # a long name list is shortened in the message
    with pytest.raises(ValueError, match=r"'l4', \.\.\. \(30 in all\)"):
        column_index("zz", [f"l{i}" for i in range(30)], 30)


def test_from_result_by_class_name() -> None:
    pts = class_points(SCORES, LABELS)
    result = fixed_point(points=pts).with_classes(["news", "sports"])
    by_name = PrecisionRecallDisplay.from_result(result, pts, "sports")
    by_index = PrecisionRecallDisplay.from_result(result, pts, 1)
    assert by_name.class_name == by_index.class_name == "sports"
    np.testing.assert_array_equal(by_name.precision, by_index.precision)
    assert by_name.operating_point[2] == result.thresholds[1]
    ft = FThresholdDisplay.from_result(result, pts, "news")
    assert ft.chosen_threshold == result.thresholds[0] and ft.class_name == "news"
    with pytest.raises(ValueError, match=r"'weather' is not a class name .*'news', 'sports'"):
        PrecisionRecallDisplay.from_result(result, pts, "weather")
    with pytest.raises(ValueError, match="out of range"):
        PrecisionRecallDisplay.from_result(result, pts, 5)


def test_from_result_int_names_win() -> None:
    pts = class_points(SCORES, LABELS)
    result = fixed_point(points=pts).with_classes([7, 3])
    d = PrecisionRecallDisplay.from_result(result, pts, 3)  # the name 3: column 1
    assert d.class_name == "3"
    assert d.operating_point[2] == result.thresholds[1]
    with pytest.raises(ValueError, match="an int column is a name"):
        PrecisionRecallDisplay.from_result(result, pts, 0)


def test_from_scores_dataframe_columns() -> None:
    s = pd.DataFrame(SCORES, columns=["news", "sports"])
    y = pd.DataFrame(LABELS, columns=["news", "sports"])
    d = PrecisionRecallDisplay.from_scores(s, y, column="sports")
    ref = PrecisionRecallDisplay.from_scores(SCORES, LABELS, column=1)
    np.testing.assert_array_equal(d.recall, ref.recall)
    assert d.class_name == "sports" and ref.class_name == "class 1"
    assert PrecisionRecallDisplay.from_scores(s, y, column=1).class_name == "sports"
    assert PrecisionRecallDisplay.from_scores(s, LABELS, column="news").support == 3
    with pytest.raises(ValueError, match="is not a class name of scores"):
        FThresholdDisplay.from_scores(s, y, column="weather")
    with pytest.raises(ValueError, match="scores has no class names"):
        FThresholdDisplay.from_scores(SCORES, LABELS, column="news")
    with pytest.raises(ValueError, match="different columns"):
        FThresholdDisplay.from_scores(s, y[["sports", "news"]], column="news")


# --------------------------------------------------------------------------- average precision


@pytest.mark.parametrize("seed", range(8))
def test_average_precision_equals_sklearn_with_ties(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    y = rng.random(n) < 0.4
    y[0] = True
    s = np.round(rng.random(n) + 0.3 * y, 1)  # few distinct values: many ties
    d = PrecisionRecallDisplay.from_predictions(y.astype(int), s)
    assert d.average_precision == pytest.approx(average_precision_score(y, s), abs=1e-12)
    # from_result on points without dominated cuts gives the same AP
    pts = class_points(s[:, None], y[:, None], dominated="drop")
    dr = PrecisionRecallDisplay.from_result(fixed_point(points=pts), pts, 0)
    assert dr.average_precision == pytest.approx(d.average_precision, abs=1e-12)


def test_average_precision_in_legend() -> None:
    d = PrecisionRecallDisplay.from_scores(SCORES, LABELS, column=1)
    ap = average_precision_score(LABELS[:, 1], SCORES[:, 1])
    assert d.average_precision == pytest.approx(ap)
    drawn = d.plot()
    texts = [t.get_text() for t in drawn.ax_.get_legend().get_texts()]
    assert texts[0] == f"class 1 (AP = {ap:.2f})"
    renamed = d.plot(name="model A")
    assert renamed.ax_.get_legend().get_texts()[0].get_text() == f"model A (AP = {ap:.2f})"


# --------------------------------------------------------------------------- from_predictions


def test_from_predictions_one_column() -> None:
    d = PrecisionRecallDisplay.from_predictions(LABELS[:, 1], SCORES[:, 1])
    ref = PrecisionRecallDisplay.from_scores(SCORES, LABELS, column=1)
    np.testing.assert_array_equal(d.precision, ref.precision)
    assert d.chosen == ref.chosen and d.class_name == "1"
    names = np.array(["ham", "spam"])[LABELS[:, 1]]
    named = FThresholdDisplay.from_predictions(
        pd.Series(names), pd.Series(SCORES[:, 1]), pos_label="spam", threshold=0.5
    )
    assert named.class_name == "spam" and named.chosen_threshold == 0.8
    assert FThresholdDisplay.from_predictions([-1, 1, 1], [0.1, 0.5, 0.2]).chosen_f == 1.0
    with pytest.raises(ValueError, match="pass pos_label="):
        PrecisionRecallDisplay.from_predictions(names, SCORES[:, 1])
    with pytest.raises(ValueError, match="takes one column"):
        PrecisionRecallDisplay.from_predictions(LABELS, SCORES)


# --------------------------------------------------------------------------- from_estimator


@pytest.fixture(scope="module")
def binary() -> tuple[Any, Any]:
    return make_classification(n_samples=150, random_state=0)


@pytest.fixture(scope="module")
def multilabel() -> tuple[Any, Any]:
    X, Y = make_multilabel_classification(n_samples=150, n_classes=4, random_state=0)
    return pd.DataFrame(X), pd.DataFrame(Y, columns=["a", "b", "c", "d"])


def test_from_estimator_plain_binary(binary: tuple[Any, Any]) -> None:
    X, y = binary
    clf = LogisticRegression().fit(X, y)
    d = PrecisionRecallDisplay.from_estimator(clf, X, y)
    ref = PrecisionRecallDisplay.from_predictions(y, clf.predict_proba(X)[:, 1])
    np.testing.assert_array_equal(d.precision, ref.precision)
    assert (d.class_name, d.estimator_name, d.chosen) == ("1", "LogisticRegression", ref.chosen)
    assert d.average_precision == pytest.approx(
        average_precision_score(y, clf.predict_proba(X)[:, 1])
    )
    legend = d.plot().ax_.get_legend().get_texts()[0].get_text()
    assert legend == f"LogisticRegression: 1 (AP = {d.average_precision:.2f})"
    neg = PrecisionRecallDisplay.from_estimator(clf, X, y, column=0)
    assert neg.class_name == "0" and neg.support == int(np.sum(y == 0))
    # decision_function: the same ranking, other thresholds
    df = FThresholdDisplay.from_estimator(clf, X, y, response_method="decision_function")
    np.testing.assert_allclose(df.thresholds, np.unique(clf.decision_function(X))[::-1])
    svc = LinearSVC().fit(X, np.where(y == 1, "yes", "no"))
    named = PrecisionRecallDisplay.from_estimator(
        svc, X, np.where(y == 1, "yes", "no"), column="yes"
    )
    assert named.class_name == "yes" and named.support == int(y.sum())
    with pytest.raises(ValueError, match=r"'maybe' is not a class name of LinearSVC"):
        PrecisionRecallDisplay.from_estimator(svc, X, y, column="maybe")


def test_from_estimator_tuned_binary_marks_its_threshold(binary: tuple[Any, Any]) -> None:
    X, y = binary
    clf = FMacroThresholdClassifier(LogisticRegression(), cv=3, random_state=0).fit(X, y)
    d = PrecisionRecallDisplay.from_estimator(clf, X, y)
    r, p, t = d.operating_point
    s1 = clf.predict_proba(X)[:, 1]
    assert t == _cut_of(s1, clf.thresholds_[0]) and d.class_name == "1"
    assert (p, r) == pytest.approx(_brute_pr(s1, y == 1, clf.thresholds_[0]))
    # the operating point is what predict does
    assert r == pytest.approx(np.mean(clf.predict(X)[y == 1] == 1))
    ft = FThresholdDisplay.from_estimator(clf, X, y, column=1)
    assert ft.chosen_threshold == t
    with pytest.raises(ValueError, match="tuned for one class"):
        FThresholdDisplay.from_estimator(clf, X, y, column=0)
    with pytest.raises(ValueError, match="response_method must be 'auto'"):
        FThresholdDisplay.from_estimator(clf, X, y, response_method="decision_function")


def test_from_estimator_tuned_multiclass_int_labels() -> None:
    X, y = make_classification(n_samples=200, n_classes=3, n_informative=4, random_state=1)
    y = y + 1  # labels 1, 2, 3: an int column is a label
    clf = FMacroThresholdClassifier(
        LogisticRegression(max_iter=500), cv=3, random_state=0, method="fixed_point"
    ).fit(X, y)
    d = PrecisionRecallDisplay.from_estimator(clf, X, y, column=3)
    s3 = clf.predict_proba(X)[:, 2]
    assert d.class_name == "3" and d.operating_point[2] == _cut_of(s3, clf.thresholds_[2])
    assert d.support == int(np.sum(y == 3))
    assert PrecisionRecallDisplay.from_estimator(clf, X, y).class_name == "1"  # first column
    with pytest.raises(ValueError, match="an int column is a name"):
        PrecisionRecallDisplay.from_estimator(clf, X, y, column=0)


def test_from_estimator_multilabel(multilabel: tuple[Any, Any]) -> None:
    X, Y = multilabel
    clf = FMacroThresholdClassifier(
        OneVsRestClassifier(LogisticRegression()), cv=3, random_state=0
    ).fit(X, Y)
    scores = clf.predict_proba(X)
    for k, name in enumerate("abcd"):
        d = PrecisionRecallDisplay.from_estimator(clf, X, Y, column=name)
        r, p, t = d.operating_point
        assert d.class_name == name and t == _cut_of(scores[:, k], clf.thresholds_[k])
        assert (p, r) == pytest.approx(_brute_pr(scores[:, k], Y[name], clf.thresholds_[k]))
        assert d.average_precision == pytest.approx(average_precision_score(Y[name], scores[:, k]))
    assert PrecisionRecallDisplay.from_estimator(clf, X, Y, column=2).class_name == "c"
    # a plain one-vs-rest classifier: each label's own F-optimal cut
    ovr = OneVsRestClassifier(LogisticRegression()).fit(X, Y)
    own = FThresholdDisplay.from_estimator(ovr, X, Y, column="b")
    assert own.chosen_f == pytest.approx(own.f.max())
    assert own.estimator_name == "OneVsRestClassifier"
    plain = FThresholdDisplay.from_estimator(ovr, X.to_numpy(), Y.to_numpy(), column=1)
    np.testing.assert_array_equal(plain.f, own.f)
    with pytest.raises(ValueError, match="has no class names"):
        FThresholdDisplay.from_estimator(ovr, X.to_numpy(), Y.to_numpy(), column="b")


def test_from_estimator_not_fitted(binary: tuple[Any, Any]) -> None:
    from sklearn.exceptions import NotFittedError

    X, y = binary
    with pytest.raises(NotFittedError):
        PrecisionRecallDisplay.from_estimator(LogisticRegression(), X, y)


# --------------------------------------------------------------------------- confusion grid


def test_multilabel_confusion_grid_matches_sklearn() -> None:
    rng = np.random.default_rng(3)
    Y = (rng.random((60, 30)) < 0.3).astype(int)
    P = (rng.random((60, 30)) < 0.3).astype(int)
    ref = multilabel_confusion_matrix(Y, P)
    d = MultilabelConfusionDisplay.from_predictions(Y, P)
    assert d.n_labels == 30 and len(d.labels) == 16  # capped by default
    np.testing.assert_array_equal(d.matrices, ref[:16])
    assert d.matrices.dtype == np.int64 and not d.matrices.flags.writeable
    every = MultilabelConfusionDisplay.from_predictions(Y, P, max_labels=30)
    np.testing.assert_array_equal(every.matrices, ref)
    names = [f"tag{i}" for i in range(30)]
    v = MultiLabelFValidation.from_predictions(
        pd.DataFrame(Y, columns=names), pd.DataFrame(P, columns=names)
    )
    asked = MultilabelConfusionDisplay.from_validation(v, ["tag7", 2, "tag29"])
    assert asked.labels == ("tag7", "tag2", "tag29") and asked.indices == (7, 2, 29)
    np.testing.assert_array_equal(asked.matrices, ref[[7, 2, 29]])
    w = rng.random(60)
    weighted = MultilabelConfusionDisplay.from_predictions(Y, P, sample_weight=w, labels=[0, 1])
    np.testing.assert_allclose(
        weighted.matrices, multilabel_confusion_matrix(Y, P, sample_weight=w)[:2]
    )
    with pytest.raises(ValueError, match="more than max_labels=2"):
        MultilabelConfusionDisplay.from_validation(v, ["tag1", "tag2", "tag3"], max_labels=2)
    with pytest.raises(ValueError, match="'nope' is not a class name of the validation"):
        MultilabelConfusionDisplay.from_validation(v, ["nope"])
    with pytest.raises(TypeError, match="MultiLabelFValidation"):
        MultilabelConfusionDisplay.from_validation(object())
    with pytest.raises(TypeError, match="labels must be a sequence"):
        MultilabelConfusionDisplay.from_validation(v, "tag1")
    with pytest.raises(ValueError, match="ncols must be >= 1"):
        MultilabelConfusionDisplay.from_validation(v, ncols=0)


def test_multilabel_confusion_grid_draws() -> None:
    Y = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 1]])
    P = np.array([[1, 0, 0], [0, 1, 1], [0, 1, 0], [1, 0, 1]])
    d = MultilabelConfusionDisplay.from_predictions(Y, P, ncols=2)
    drawn = d.plot()
    assert d.ax_ is None and drawn.ax_.shape == (2, 2)
    used = drawn.ax_.reshape(-1)
    assert [ax.get_title() for ax in used[:3]] == ["0", "1", "2"]
    assert not used[3].axison  # the spare axes is hidden
    cells = [t.get_text() for t in used[0].texts]
    np.testing.assert_array_equal(
        np.array(cells, dtype=int).reshape(2, 2), multilabel_confusion_matrix(Y, P)[0]
    )
    assert (
        "2 of 3 labels"
        in MultilabelConfusionDisplay.from_predictions(Y, P, max_labels=2)
        .plot()
        .figure_._suptitle.get_text()
    )


# --------------------------------------------------------------------------- Jupyter repr


def _shown_without_warnings(clf: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert repr(clf).startswith("FMacroThresholdClassifier(")
        assert "FMacroThresholdClassifier" in clf._repr_html_()
        assert "text/html" in clf._repr_mimebundle_()


def test_repr_and_html_emit_no_warning(
    binary: tuple[Any, Any], multilabel: tuple[Any, Any]
) -> None:
    X, y = binary
    Xd, Yd = multilabel
    _shown_without_warnings(FMacroThresholdClassifier(LogisticRegression()))
    _shown_without_warnings(FMacroThresholdClassifier(OneVsRestClassifier(LogisticRegression())))
    fits = [
        (LogisticRegression(), X, y),
        (LogisticRegression(), pd.DataFrame(X), pd.Series(y)),
        (OneVsRestClassifier(LogisticRegression()), Xd, Yd),
        (OneVsRestClassifier(LogisticRegression()), Xd.to_numpy(), Yd.to_numpy()),
    ]
    for est, X_fit, y_fit in fits:
        clf = FMacroThresholdClassifier(est, cv=3, random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # fitting may warn; displaying may not
            clf.fit(X_fit, y_fit)
        _shown_without_warnings(clf)


def test_class_docstring_has_only_numpydoc_sections() -> None:
    """scikit-learn's HTML repr parses the docstring; unknown sections warn there."""
    from sklearn.externals._numpydoc.docscrape import ClassDoc

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ClassDoc(FMacroThresholdClassifier)
