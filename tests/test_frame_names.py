"""Threshold results named by DataFrame columns, and checked against them on use."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

from fmacro.optimize import (
    ThresholdResult,
    brute_force,
    class_points,
    cyclic,
    domain,
    etu,
    evaluate_thresholds,
    exact,
    f_macro,
    fixed_point,
    global_threshold,
    per_class,
    proportional,
    top_k,
    tune,
)

NAMES = ["beach", "sunset", "fall", "field"]


def _data(n: int = 40, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    labels = (rng.random((n, len(NAMES))) < 0.35).astype(np.int8)
    labels[0] = 1  # every class has a positive
    scores = labels * 0.7 + rng.normal(size=labels.shape)
    return scores, labels


METHODS: list[tuple[str, Callable[..., ThresholdResult]]] = [
    ("tune", tune),
    ("tune_cv", lambda s, y: tune(s, y, prior="cv")),
    ("fixed_point", fixed_point),
    ("domain", domain),
    ("exact", exact),
    ("per_class", per_class),
    ("global_threshold", global_threshold),
    ("top_k", top_k),
    ("proportional", proportional),
    ("cyclic", cyclic),
]


@pytest.mark.parametrize(("name", "method"), METHODS, ids=[m[0] for m in METHODS])
def test_dataframes_name_the_result_and_change_nothing_else(
    name: str, method: Callable[..., ThresholdResult]
) -> None:
    s, y = _data()
    s_frame, y_frame = pd.DataFrame(s, columns=NAMES), pd.DataFrame(y, columns=NAMES)
    plain = method(s, y)
    named = method(s_frame, y_frame)
    assert plain.classes is None
    assert named.classes == tuple(NAMES)
    np.testing.assert_array_equal(named.thresholds, plain.thresholds)
    np.testing.assert_array_equal(named.cuts, plain.cuts)
    assert (named.f, named.method) == (plain.f, plain.method)
    # one DataFrame is enough, by position or by keyword
    assert method(s_frame, y).classes == tuple(NAMES)
    if name != "tune_cv":
        assert method(scores=s, labels=y_frame).classes == tuple(NAMES)


def test_brute_force_and_etu_are_named_too() -> None:
    s, y = _data(n=12)
    frame = pd.DataFrame(s, columns=NAMES)
    assert brute_force(frame, y).classes == tuple(NAMES)
    probabilities = pd.DataFrame(1 / (1 + np.exp(-s)), columns=NAMES)
    assert etu(probabilities).classes == tuple(NAMES)


def test_scores_and_labels_with_different_columns_are_refused() -> None:
    s, y = _data()
    s_frame, y_frame = pd.DataFrame(s, columns=NAMES), pd.DataFrame(y, columns=NAMES)
    with pytest.raises(ValueError, match="scores and labels are DataFrames with different"):
        tune(s_frame, y_frame[NAMES[::-1]])
    # a renamed column: labels[scores.columns] would raise KeyError, so it is not suggested
    with pytest.raises(ValueError, match="give them the same classes as columns or pass arrays"):
        fixed_point(s_frame, y_frame.rename(columns={"fall": "autumn"}))
    # the same columns in another order: the suggested labels[scores.columns] aligns them
    with pytest.raises(ValueError, match=r"labels\[scores.columns\]"):
        fixed_point(s_frame, y_frame[NAMES[::-1]])


def test_apply_checks_the_columns_of_a_dataframe() -> None:
    s, y = _data()
    result = tune(pd.DataFrame(s, columns=NAMES), pd.DataFrame(y, columns=NAMES))
    new = pd.DataFrame(s[:7], columns=NAMES)
    expected = s[:7] >= np.asarray(result.thresholds)[None, :]
    np.testing.assert_array_equal(result.apply(new), expected)
    np.testing.assert_array_equal(result.apply(s[:7]), expected)  # arrays go by position
    # reordered columns would silently get each other's thresholds: refused
    with pytest.raises(ValueError, match=r"another order; reorder them: scores\[list"):
        result.apply(new[NAMES[::-1]])
    with pytest.raises(ValueError, match=r"missing \['field'\], unknown \['meadow'\]"):
        result.apply(new.rename(columns={"field": "meadow"}))
    # selecting by the result's names puts them right
    shuffled = new[NAMES[::-1]]
    np.testing.assert_array_equal(result.apply(shuffled[list(result.classes or ())]), expected)


def test_a_result_without_names_takes_any_dataframe_by_position() -> None:
    s, y = _data()
    result = tune(s, y)
    frame = pd.DataFrame(s, columns=NAMES[::-1])
    np.testing.assert_array_equal(result.apply(frame), result.apply(s))


def test_evaluate_thresholds_checks_scores_and_labels() -> None:
    s, y = _data()
    s_frame, y_frame = pd.DataFrame(s, columns=NAMES), pd.DataFrame(y, columns=NAMES)
    result = fixed_point(s_frame, y_frame)
    # on the tuning data the evaluation is the search's own F-macro
    assert evaluate_thresholds(s_frame, y_frame, result).f == pytest.approx(result.f, abs=1e-12)
    assert f_macro(s, y, result) == pytest.approx(result.f, abs=1e-12)
    with pytest.raises(ValueError, match="scores has the thresholds' classes"):
        f_macro(s_frame[NAMES[::-1]], y, result)
    with pytest.raises(ValueError, match="labels has the thresholds' classes"):
        evaluate_thresholds(s, y_frame[NAMES[::-1]], result)


def test_integer_column_names_round_trip_through_json(tmp_path: Any) -> None:
    s, y = _data()
    columns = [10, 20, 30, 40]
    result = tune(pd.DataFrame(s, columns=columns), y)
    assert result.classes == (10, 20, 30, 40)  # names keep their kind
    path = tmp_path / "t.json"
    result.save(path)
    loaded = ThresholdResult.load(path)
    assert loaded.classes == result.classes
    np.testing.assert_array_equal(loaded.apply(pd.DataFrame(s, columns=columns)), result.apply(s))
    with pytest.raises(ValueError, match="another order"):
        loaded.apply(pd.DataFrame(s[:, ::-1], columns=columns[::-1]))


def test_the_callers_dataframes_are_not_modified() -> None:
    s, y = _data()
    s_frame, y_frame = pd.DataFrame(s, columns=NAMES), pd.DataFrame(y, columns=NAMES)
    s_copy, y_copy = s_frame.copy(), y_frame.copy()
    tune(s_frame, y_frame).apply(s_frame)
    pd.testing.assert_frame_equal(s_frame, s_copy)
    pd.testing.assert_frame_equal(y_frame, y_copy)


def test_the_classifier_names_its_thresholds() -> None:
    from sklearn.linear_model import LogisticRegression, RidgeClassifier
    from sklearn.multiclass import OneVsRestClassifier

    from fmacro.optimize.sklearn import FMacroThresholdClassifier

    rng = np.random.default_rng(5)
    X = rng.normal(size=(120, 3))
    Y = pd.DataFrame((X @ rng.normal(size=(3, 4)) + rng.normal(size=(120, 4))) > 0.5, columns=NAMES)
    model = OneVsRestClassifier(LogisticRegression())
    multilabel = FMacroThresholdClassifier(model, random_state=0).fit(X, Y)
    assert multilabel.threshold_result_.classes == tuple(NAMES)
    unnamed = FMacroThresholdClassifier(model, random_state=0).fit(X, Y.values)
    assert unnamed.threshold_result_.classes is None
    np.testing.assert_array_equal(unnamed.thresholds_, multilabel.thresholds_)
    y = np.array(["cat", "dog", "eel"])[rng.integers(0, 3, 120)]
    multiclass = FMacroThresholdClassifier(RidgeClassifier()).fit(X, y)
    assert multiclass.threshold_result_.classes == ("cat", "dog", "eel")
    binary = FMacroThresholdClassifier(RidgeClassifier(), objective="f_beta", pos_label="dog")
    assert binary.fit(X, np.where(y == "dog", "dog", "other")).threshold_result_.classes == ("dog",)


def test_scores_and_labels_frames_must_agree_wherever_both_are_taken() -> None:
    s, y = _data()
    s_frame, y_frame = pd.DataFrame(s, columns=NAMES), pd.DataFrame(y, columns=NAMES)
    swapped = y_frame[NAMES[::-1]]
    with pytest.raises(ValueError, match="scores and labels are DataFrames with different"):
        evaluate_thresholds(s_frame, swapped, np.zeros(len(NAMES)))
    with pytest.raises(ValueError, match="scores and labels are DataFrames with different"):
        class_points(s_frame, swapped)
    # the same frames in agreement give the arrays' numbers
    assert f_macro(s_frame, y_frame, np.zeros(len(NAMES))) == f_macro(s, y, np.zeros(len(NAMES)))
