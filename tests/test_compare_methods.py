"""``optimize.compare_methods``: several methods' held-out measures side by side, by the code
``fmacro thresholds --test`` runs (``optimize.methods``), equal to ``evaluate_thresholds``."""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from fmacro import optimize
from fmacro.cli import main
from fmacro.optimize.methods import EXTRA_METHODS, METHODS
from fmacro.validation import MultiLabelFValidation

# compare_methods silences the predict-everything warning (its table shows labels per
# object); the direct calls these tests compare it with are silenced too
pytestmark = pytest.mark.filterwarnings(
    "ignore::fmacro.optimize.deployment.PredictEverythingWarning"
)

ALL = METHODS + EXTRA_METHODS
NAMES = ["ant", "bee", "cat", "dog", "eel"]


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    y = (rng.random((400, 5)) < [0.05, 0.1, 0.2, 0.3, 0.5]).astype(np.int64)
    s = y + rng.normal(0.0, 0.8, y.shape)
    return s[:200], y[:200], s[200:], y[200:]


@pytest.fixture(scope="module")
def every_method(data: tuple[np.ndarray, ...]) -> optimize.MethodComparison:
    return optimize.compare_methods(*data, methods=ALL)


def test_held_out_numbers_are_evaluate_thresholds_of_each_result(
    data: tuple[np.ndarray, ...], every_method: optimize.MethodComparison
) -> None:
    _, _, s_test, y_test = data
    frame = every_method.to_pandas()
    assert list(frame.index) == list(ALL)
    for name in ALL:
        result = every_method.result(name)
        if name == "top_k":  # no thresholds: its predictions are evaluated
            predicted = result.apply(s_test).astype(float)
            ev = optimize.evaluate_thresholds(predicted, y_test, np.full(5, 0.5))
        else:
            ev = optimize.evaluate_thresholds(s_test, y_test, result)
        row = frame.loc[name]
        assert row["test_f_macro"] == ev.f == every_method.evaluation(name).f
        assert row["test_precision"] == ev.precision and row["test_recall"] == ev.recall
        assert row["test_macro_f"] == ev.macro_f
        assert row["tuning_f_macro"] == result.f
        # micro-F and labels per object against the validations' own definitions
        predicted = result.apply(s_test)
        validation = MultiLabelFValidation.from_predictions(y_test, predicted)
        assert row["test_micro_f"] == pytest.approx(validation.micro_f, rel=1e-12)
        per_object = np.count_nonzero(predicted) / len(y_test)
        assert row["test_labels_per_object"] == pytest.approx(per_object, rel=1e-12)
        assert row["test_true_labels_per_object"] == y_test.sum() / len(y_test)
        assert row["seconds"] >= 0.0


def test_results_are_the_methods_own(
    data: tuple[np.ndarray, ...], every_method: optimize.MethodComparison
) -> None:
    s, y, _, _ = data
    direct = {
        "tune": optimize.tune(s, y),
        "fixed_point": optimize.fixed_point(s, y),
        "per_class": optimize.per_class(s, y),
        "top_k": optimize.top_k(s, y),
        "micro_macro": optimize.micro_macro(s, y),
        "domain": optimize.domain(s, y),
    }
    for name, expected in direct.items():
        got = every_method.result(name)
        assert np.array_equal(got.thresholds, expected.thresholds, equal_nan=True), name
        assert got.f == expected.f and got.method == expected.method


def test_rows_equal_the_commands_test_columns(
    data: tuple[np.ndarray, ...],
    every_method: optimize.MethodComparison,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    s, y, s_test, y_test = data
    np.savez(tmp_path / "tune.npz", scores=s, labels=y)
    np.savez(tmp_path / "test.npz", scores=s_test, labels=y_test)
    argv = ["thresholds", str(tmp_path / "tune.npz"), "--test", str(tmp_path / "test.npz")]
    assert main([*argv, "--json", "--quiet"]) == 0
    rows = json.loads(capsys.readouterr().out)["results"]
    assert [r["method"] for r in rows] == list(METHODS)
    for row in rows:
        ev = every_method.evaluation(row["method"])
        assert row["test_f_macro"] == ev.f and row["test_macro_f"] == ev.macro_f
        assert row["f_macro"] == every_method.result(row["method"]).f


def test_dataframes_keep_their_names(data: tuple[np.ndarray, ...]) -> None:
    s, y, s_test, y_test = (pd.DataFrame(a, columns=NAMES) for a in data)
    table = optimize.compare_methods(s, y, s_test, y_test, methods=("tune", "top_k", "cyclic"))
    assert table.classes == tuple(NAMES)
    for name in table.methods:
        assert table.result(name).classes == tuple(NAMES)
        assert table.evaluation(name).classes == tuple(NAMES)
        per_class = table.evaluation(name).to_pandas()
        assert list(per_class.index[:5]) == NAMES
    arrays = optimize.compare_methods(*data, methods=("tune", "top_k", "cyclic"))
    assert arrays.classes is None
    assert (
        table.to_pandas().drop(columns="seconds").equals(arrays.to_pandas().drop(columns="seconds"))
    )
    # a test frame whose columns come in another order is refused, not misread
    with pytest.raises(ValueError, match="another order"):
        optimize.compare_methods(s, y, s_test[NAMES[::-1]], y_test[NAMES[::-1]])
    with pytest.raises(ValueError, match="columns"):
        optimize.compare_methods(s, y.set_axis(list("vwxyz"), axis=1), s_test, y_test)


def test_bad_method_names_list_the_valid_ones(data: tuple[np.ndarray, ...]) -> None:
    with pytest.raises(ValueError, match="unknown method 'tuen'") as info:
        optimize.compare_methods(*data, methods=("tune", "tuen"))
    assert all(name in str(info.value) for name in ALL)
    with pytest.raises(ValueError, match="repeated: tune"):
        optimize.compare_methods(*data, methods=("tune", "fixed_point", "tune"))
    with pytest.raises(ValueError, match="empty"):
        optimize.compare_methods(*data, methods=())
    with pytest.raises(TypeError, match="name or a"):
        optimize.compare_methods(*data, methods=(optimize.tune,))
    with pytest.raises(TypeError, match="unknown options n_angle;"):
        optimize.compare_methods(*data, n_angle=8)


def test_options_reach_the_methods_that_take_them(data: tuple[np.ndarray, ...]) -> None:
    s, y, _, _ = data
    table = optimize.compare_methods(
        *data, methods=("tune", "fixed_point", "domain"), prior=0.0, min_precision=0.3, n_angles=8
    )
    expected = {
        "tune": optimize.tune(s, y, prior=0.0, min_precision=0.3),
        "fixed_point": optimize.fixed_point(s, y, min_precision=0.3),
        "domain": optimize.domain(s, y, n_angles=8, min_precision=0.3),
    }
    for name, result in expected.items():
        assert np.array_equal(table.result(name).thresholds, result.thresholds), name
    with pytest.raises(ValueError, match="top_k cannot take per-class constraints"):
        optimize.compare_methods(*data, methods=("tune", "top_k"), min_precision=0.3)


def test_callables_run_with_the_comparisons_settings(data: tuple[np.ndarray, ...]) -> None:
    s, y, s_test, y_test = data
    cv = functools.partial(optimize.tune, prior="cv")
    table = optimize.compare_methods(
        *data, methods=("tune", ("tune cv", cv)), beta=2.0, zero_division=1.0
    )
    expected = optimize.tune(s, y, prior="cv", beta=2.0, zero_division=1.0)
    assert table.methods == ("tune", "tune cv")
    assert np.array_equal(table.result("tune cv").thresholds, expected.thresholds)
    ev = optimize.evaluate_thresholds(s_test, y_test, expected, beta=2.0, zero_division=1.0)
    assert table.evaluation("tune cv").f == ev.f
    assert table.result("tune").beta == 2.0 and table.evaluation("tune").beta == 2.0
    # one pair alone is one method
    single = optimize.compare_methods(*data, methods=("cv", cv))
    assert single.methods == ("cv",)

    def ignores_beta(scores: Any, labels: Any, **_: Any) -> optimize.ThresholdResult:
        return optimize.per_class(scores, labels)

    with pytest.raises(
        ValueError, match=r"beta=1, zero_division=0\.0; the comparison is for beta=2"
    ):
        optimize.compare_methods(*data, methods=(("mine", ignores_beta),), beta=2.0)
    with pytest.raises(TypeError, match="returned ndarray"):
        optimize.compare_methods(*data, methods=(("bad", lambda s, y, **kw: s),))


def test_report_and_table_columns(every_method: optimize.MethodComparison) -> None:
    text = every_method.report()
    assert str(every_method) == text
    lines = text.splitlines()
    assert lines[0].split()[:4] == ["method", "tuning", "F-macro", "test"]
    assert [line.split()[0] for line in lines[2 : 2 + len(ALL)]] == list(ALL)
    assert "200 objects" in text and "beta=1, zero_division=0.0" in text
    assert list(every_method.to_pandas().columns) == [
        "tuning_f_macro",
        "test_f_macro",
        "test_precision",
        "test_recall",
        "test_macro_f",
        "test_micro_f",
        "test_labels_per_object",
        "test_true_labels_per_object",
        "seconds",
    ]
    assert every_method.to_pandas().index.name == "method"
    assert "tune" in repr(every_method) and "ThresholdResult" not in repr(every_method)
    with pytest.raises(KeyError, match="no method 'nope'"):
        every_method.result("nope")


def test_micro_f_of_an_evaluation_pools_every_column() -> None:
    scores = np.array([[0.9, 0.1, 0.0], [0.8, 0.7, 0.0], [0.2, 0.6, 0.9]])
    labels = np.array([[1, 0, 0], [1, 1, 0], [0, 0, 0]])
    ev = optimize.evaluate_thresholds(scores, labels, [0.5, 0.5, 0.5])
    # tp 3 (2 + 1), fp 2 (class 1 row 2; class 2, no positives, row 2), fn 0
    assert ev.micro_f == pytest.approx(2 * 3 / (2 * 3 + 2))
    # no positive and nothing predicted: 0/0, which is zero_division
    for zd in (0.0, 1.0):
        nothing = optimize.evaluate_thresholds(
            scores, 0 * labels, [2.0] * 3, zero_division=zd, empty_classes="include"
        )
        assert nothing.micro_f == zd
    only_misses = optimize.evaluate_thresholds(scores, labels, [2.0] * 3, zero_division=math.nan)
    assert only_misses.micro_f == 0.0  # tp = fp = 0 < fn: F is 0, not undefined
