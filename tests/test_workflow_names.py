"""The whole user workflow with class names of the user's own: tune, save, load, apply, evaluate.

Random class names (unicode, commas, quotes, line breaks, numeric-looking strings,
integers, mixed), random column orders and output formats go through the API
(``tune -> save -> load -> apply -> evaluate_thresholds``) and the CLI (``fmacro apply``,
then ``fmacro evaluate`` against a label file pandas wrote with its columns shuffled). Each
run gives the number of a direct computation on plain arrays, bit for bit, or a clean
refusal: a ``ValueError`` naming the argument, or exit code 2 with one line naming a file.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from fmacro.cli import main
from fmacro.optimize import ThresholdResult, evaluate_thresholds, fixed_point, per_class, tune
from fmacro.optimize.io import save_scores_npz
from fmacro.validation import MultiLabelFValidation
from fmacro.validation.names import name_key, same_names, text_names

METHODS = {"tune": tune, "fixed_point": fixed_point, "per_class": per_class}

_TRICKY = st.sampled_from(
    ["1", "0", "-1", "1.5", "nan", "", " ", "a,b", 'say "hi"', "two\nlines", "é", "标签", "y_true"]
)
_NAME = st.one_of(
    st.integers(-3, 12),
    _TRICKY,
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=6),
)


@st.composite
def workflows(draw: Any) -> dict[str, Any]:
    names = draw(st.lists(_NAME, min_size=2, max_size=5, unique_by=name_key))
    m = len(names)
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n_fit, n_test = draw(st.integers(8, 24)), draw(st.integers(5, 16))
    s_fit, s_test = rng.random((n_fit, m)), rng.random((n_test, m))
    y_fit = (rng.random((n_fit, m)) < 0.4).astype(np.int64)
    y_fit[0] = 1  # every class has a positive to tune on
    y_test = (rng.random((n_test, m)) < 0.4).astype(np.int64)
    y_test[0, 0] = 1  # a positive to score (evaluate_thresholds refuses labels without any)
    return {
        "names": names,
        "fit": (s_fit, y_fit),
        "test": (s_test, y_test),
        "method": draw(st.sampled_from(sorted(METHODS))),
        "order": draw(st.permutations(range(m))),
        "output": draw(st.sampled_from(["pred.csv", "pred.npz"])),
    }


def _frame(values: np.ndarray, names: list[Any]) -> pd.DataFrame:
    return pd.DataFrame(values, columns=pd.Index(names, dtype=object))


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def _refusal_is_clean(code: int, err: str) -> None:
    assert code == 2, err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workflows())
def test_api_workflow_keeps_names_and_numbers(case: dict[str, Any]) -> None:
    names, (s_fit, y_fit), (s_test, y_test) = case["names"], case["fit"], case["test"]
    result = METHODS[case["method"]](_frame(s_fit, names), _frame(y_fit, names))
    assert same_names(result.classes, names)
    plain = METHODS[case["method"]](s_fit, y_fit)
    assert np.array_equal(result.thresholds, plain.thresholds)

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "thr.json"
        result.save(path)
        loaded = ThresholdResult.load(path)
    assert same_names(loaded.classes, names)
    assert [type(c) for c in loaded.classes] == [type(c) for c in names]
    assert np.array_equal(loaded.thresholds, result.thresholds)

    test_scores, test_labels = _frame(s_test, names), _frame(y_test, names)
    direct = s_test >= result.thresholds[None, :]
    assert np.array_equal(loaded.apply(test_scores), direct)
    expected_f = evaluate_thresholds(s_test, y_test, result.thresholds).f
    assert evaluate_thresholds(test_scores, test_labels, loaded).f == expected_f or (
        np.isnan(expected_f)
    )

    order = list(case["order"])
    shuffled = test_scores.iloc[:, order]
    if order != sorted(order):
        with pytest.raises(ValueError, match="scores") as refused:
            loaded.apply(shuffled)
        assert "list(result.classes)" in str(refused.value)
    # the fix the message suggests works on the shuffled frame
    assert np.array_equal(loaded.apply(shuffled[list(loaded.classes)]), direct)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workflows())
def test_cli_workflow_pairs_by_name_or_refuses_cleanly(case: dict[str, Any]) -> None:
    names, (s_fit, y_fit), (s_test, y_test) = case["names"], case["fit"], case["test"]
    result = METHODS[case["method"]](_frame(s_fit, names), _frame(y_fit, names))
    order = list(case["order"])
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        result.save(folder / "thr.json")
        save_scores_npz(folder / "test.npz", s_test, y_test)
        # the user's own label file, written by pandas with the columns shuffled
        _frame(y_test, names).iloc[:, order].to_csv(folder / "labels.csv", index=False)
        out = str(folder / case["output"])

        code, _, err = _cli("apply", str(folder / "thr.json"), str(folder / "test.npz"), "-o", out)
        assert code == 0, err
        code, printed, err = _cli("evaluate", str(folder / "labels.csv"), out, "--json")

    texts = text_names(names)
    event("evaluate exit 0" if code == 0 else "evaluate refused")
    if code != 0:
        # a clean refusal: names that are equal as text (1 and '1'), a header that cannot
        # be told from data (numeric-looking names pandas writes unquoted), ...
        _refusal_is_clean(code, err)
        return
    report = json.loads(printed)
    # the report's classes are the label file's columns, in its order, as text
    assert report["classes"] == [texts[j] for j in order]
    predicted = (s_test >= result.thresholds[None, :]).astype(np.int64)
    direct = MultiLabelFValidation.from_predictions(y_test[:, order], predicted[:, order])
    assert report["averages"]["f_macro"]["f"] == direct.f_macro
    assert report["averages"]["macro"]["f"] == direct.macro_f


def test_cli_workflow_refuses_names_equal_as_text() -> None:
    # 1 and '1' are two classes to the API, one text to a CSV header: refused, not merged
    rng = np.random.default_rng(3)
    names = [1, "1", "b"]
    s, y = rng.random((12, 3)), (rng.random((12, 3)) < 0.5).astype(np.int64)
    y[0] = 1
    result = tune(_frame(s, names), _frame(y, names))
    assert result.classes == (1, "1", "b")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        result.save(folder / "thr.json")
        save_scores_npz(folder / "s.npz", s, y)
        _frame(y, names).to_csv(folder / "labels.csv", index=False)
        code, _, err = _cli(
            "apply", str(folder / "thr.json"), str(folder / "s.npz"), "-o", str(folder / "pred.csv")
        )
        assert code == 0, err
        code, _, err = _cli("evaluate", str(folder / "labels.csv"), str(folder / "pred.csv"))
    _refusal_is_clean(code, err)
    assert "'1'" in err and "named twice" in err
