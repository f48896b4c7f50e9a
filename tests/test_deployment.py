"""The predict-everything rule (optimize.deployment): which classes are flagged, and the warning."""

from __future__ import annotations

import warnings
from importlib import resources

import attrs
import numpy as np
import pytest

from fmacro.optimize import per_class, tune
from fmacro.optimize.deployment import (
    PredictEverythingWarning,
    predict_everything_classes,
    warn_predict_everything,
)


def corel5k() -> tuple[np.ndarray, np.ndarray]:
    source = resources.files("fmacro.optimize") / "data" / "corel5k_test_scores.npz"
    with resources.as_file(source) as path, np.load(path) as data:
        return data["scores"], data["labels"]


def flagged_by_hand(
    scores: np.ndarray, labels: np.ndarray, thresholds: np.ndarray, most: float, rare: float
) -> np.ndarray:
    # the rule recomputed from the thresholds themselves, not from the result's counts
    predicted_rate = (scores >= thresholds).mean(axis=0)
    base_rate = labels.mean(axis=0)
    return np.flatnonzero((predicted_rate > most) & (base_rate < rare))


def test_a_rare_class_whose_best_cut_predicts_every_row_is_flagged() -> None:
    labels = np.array([[1, 0], [0, 0], [0, 0], [0, 0], [0, 1]])
    scores = np.array([[0.9, 0.8], [0.1, 0.7], [0.2, 0.9], [0.3, 0.6], [0.4, 0.5]])
    result = per_class(scores, labels)
    # class 1: its positive has the lowest score, so F1 is best (1/3) predicting all 5
    # rows, at base rate 1/5; class 0 predicts its one positive only
    assert result.thresholds.tolist() == [0.9, 0.5]
    np.testing.assert_array_equal(predict_everything_classes(result), [1])
    # the rule's edges are strict: a predicted rate of exactly 1 is never "more than 1"
    assert predict_everything_classes(result, min_predicted_rate=0.999).tolist() == [1]
    # base rate 1/5 is not below 1/5
    assert predict_everything_classes(result, max_base_rate=0.2).size == 0
    assert predict_everything_classes(result, max_base_rate=0.21).tolist() == [1]


def test_the_flagged_columns_equal_the_rule_applied_to_the_thresholds_on_corel5k() -> None:
    scores, labels = corel5k()
    with pytest.warns(PredictEverythingWarning):
        result = tune(scores, labels)
    for most, rare in [(0.5, 0.25), (0.9, 0.01), (0.1, 0.5)]:
        got = predict_everything_classes(result, min_predicted_rate=most, max_base_rate=rare)
        want = flagged_by_hand(scores, labels, result.thresholds, most, rare)
        np.testing.assert_array_equal(got, want)
    # the default rule on the bundled rankings: 235 of 374 words, the 111 without a
    # positive among them (their threshold is -inf)
    flagged = predict_everything_classes(result)
    assert flagged.size == 235
    assert set(np.flatnonzero(labels.sum(axis=0) == 0)) <= set(flagged.tolist())


def test_the_warning_names_the_classes_and_the_labels_per_object() -> None:
    scores, labels = corel5k()
    with pytest.warns(PredictEverythingWarning):
        result = tune(scores, labels).with_classes([f"word{j}" for j in range(labels.shape[1])])
    with pytest.warns(PredictEverythingWarning) as caught:
        flagged = warn_predict_everything(result)
    message = str(caught[0].message)
    first = ", ".join(repr(f"word{j}") for j in flagged[:10])
    assert "predict 235 rare classes for more than 50% of the tuning rows" in message
    assert f"{first} and 225 more" in message
    mean_true = labels.sum() / labels.shape[0]
    assert f"against {mean_true:.4g} true" in message
    assert caught[0].filename == __file__  # points at the caller


def test_no_counts_no_warning_and_bad_rules_are_refused() -> None:
    labels = np.array([[1, 0], [0, 0], [0, 0], [0, 0], [0, 1]])
    scores = np.array([[0.9, 0.8], [0.1, 0.7], [0.2, 0.9], [0.3, 0.6], [0.4, 0.5]])
    result = attrs.evolve(per_class(scores, labels), thresholds=np.array([0.9, 0.1]))
    assert result.tuning is None  # new thresholds: their tuning counts are unknown
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert warn_predict_everything(result).size == 0
    for bad in (0.0, 1.0, -0.1, float("nan")):
        with pytest.raises(ValueError, match="min_predicted_rate"):
            predict_everything_classes(result, min_predicted_rate=bad)
        with pytest.raises(ValueError, match="max_base_rate"):
            predict_everything_classes(result, max_base_rate=bad)
    with pytest.raises(TypeError, match="max_base_rate"):
        predict_everything_classes(result, max_base_rate="a quarter")


def test_tune_and_the_estimator_warn_once_at_the_callers_line() -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier

    from fmacro.optimize import held_out_interval
    from fmacro.optimize.sklearn import FMacroThresholdClassifier

    scores, labels = corel5k()
    with pytest.warns(PredictEverythingWarning, match="predict 235 rare columns") as caught:
        tune(scores, labels)
    assert len(caught) == 1 and caught[0].filename == __file__
    # the estimator: one-vs-rest on features where a rare label is unlearnable, so its
    # out-of-fold F1 is best predicting it for everyone
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    Y = np.column_stack([(X[:, 0] > 0), rng.random(200) < 0.1]).astype(int)
    clf = FMacroThresholdClassifier(
        OneVsRestClassifier(LogisticRegression()), method="per_class", cv=3
    )
    with pytest.warns(PredictEverythingWarning) as caught:
        clf.fit(X, Y)
    assert [w.filename for w in caught] == [__file__]
    flagged = predict_everything_classes(clf.threshold_result_)
    np.testing.assert_array_equal(flagged, [1])
    rate = (clf.predict(X)[:, 1]).mean()
    assert rate > 0.5  # what the warning says, on the fitted model's own predictions
    # held_out_interval refits many times and warns once, for the fit to all rows
    with pytest.warns(PredictEverythingWarning) as caught:
        held_out_interval(scores[:, :40], labels[:, :40], n_resamples=20, seed=0, n_draws=100)
    assert [w.filename for w in caught] == [__file__]


def test_the_command_line_shows_labels_per_object_instead() -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "fmacro", "thresholds", "--method", "tune", "--quiet"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "PredictEverythingWarning" not in done.stderr
    assert "labels/object" in done.stdout


def test_fmacro_dask_tune_warns_as_tune_does() -> None:
    da = pytest.importorskip("dask.array")
    from fmacro import dask as fd

    scores, labels = corel5k()
    s, y = da.from_array(scores, chunks=(500, 100)), da.from_array(labels, chunks=(500, 100))
    with pytest.warns(PredictEverythingWarning, match="predict 235 rare columns") as caught:
        fd.tune(s, y, scheduler="synchronous")
    assert [w.filename for w in caught] == [__file__]
