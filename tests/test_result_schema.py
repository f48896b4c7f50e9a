"""Issue 26: one schema for a thresholds result, and one rule for class names.

A ThresholdResult is checked against the schema of its JSON record wherever it is built
(constructor, ``attrs.evolve``, ``from_dict``, ``load``); its rule is derived from its fields;
class names keep their kind (``fmacro.validation.names``), so DataFrame columns are paired
with thresholds by name and never by text. Every suggested fix in a refusal is executed on
the frame that produced it.
"""

from __future__ import annotations

import copy
import json
import math
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import attrs
import numpy as np
import pandas as pd
import pytest

from fmacro import optimize
from fmacro.optimize import ThresholdResult, evaluate_thresholds, f_macro
from fmacro.optimize.io import load_rule
from fmacro.optimize.rules import PerClassThresholds, TopK
from fmacro.validation import MultiFValidation, MultiLabelFValidation

RNG = np.random.default_rng(26)
LABELS = (RNG.random((80, 4)) < 0.35).astype(np.uint8)
LABELS[0] = 1
SCORES = LABELS * 0.5 + RNG.random((80, 4))
SWAP = [1, 0, 2, 3]


def _per_class() -> ThresholdResult:
    return optimize.per_class(SCORES, LABELS)


def _fix_of(message: str, marker: str) -> str:
    """The code a refusal suggests: the text after ``marker``.

    A marker ending in ``(`` opens a parenthesis: the code ends where it closes
    ("align them (labels[scores.columns]) or pass arrays").
    """
    code = message.split(marker, 1)[1].strip()
    if marker.endswith("("):
        depth = 0
        for i, char in enumerate(code):
            depth += {"(": 1, ")": -1}.get(char, 0)
            if depth < 0:
                return code[:i]
    return code


def _eval(code: str, **names: Any) -> Any:
    """The value of a suggested expression on ``names``."""
    return eval(code, {}, names)


def _run(code: str, **names: Any) -> dict[str, Any]:
    """Execute a suggested statement on ``names``; the names afterwards."""
    exec(code, {}, names)
    return names


# --------------------------------------------------------------------------- defect 3


def test_columns_1_and_text_1_are_two_classes_and_a_swap_is_refused() -> None:
    columns = [1, "1", 2, 3]
    s_frame = pd.DataFrame(SCORES, columns=columns)
    y_frame = pd.DataFrame(LABELS, columns=columns)
    result = optimize.per_class(s_frame, y_frame)
    assert result.classes == (1, "1", 2, 3)
    assert [type(c) for c in result.classes] == [int, str, int, int]
    swapped = s_frame.iloc[:, SWAP]  # columns "1", 1, 2, 3: the same texts, other order
    with pytest.raises(ValueError, match="another order") as refused:
        result.apply(swapped)
    with pytest.raises(ValueError, match="scores has the thresholds' classes"):
        evaluate_thresholds(swapped, LABELS, result)
    with pytest.raises(ValueError, match="labels has the thresholds' classes"):
        f_macro(SCORES, y_frame.iloc[:, SWAP], result)
    # scores[list(result.classes)]
    fixed = _eval(_fix_of(str(refused.value), "reorder them:"), scores=swapped, result=result)
    np.testing.assert_array_equal(result.apply(fixed), np.greater_equal(SCORES, result.thresholds))
    assert f_macro(fixed, y_frame, result) == f_macro(SCORES, LABELS, result)


REPEATED_COLUMNS: list[tuple[str, Any, bool]] = [
    ("per_class", lambda s, y: optimize.per_class(s, y), True),
    ("top_k", lambda s, y: optimize.top_k(s, y), True),
    ("fixed_point", lambda s, y: optimize.fixed_point(scores=s, labels=y), True),
    ("evaluate", lambda s, y: evaluate_thresholds(s, y, np.zeros(4)), True),
    ("f_macro", lambda s, y: f_macro(s, y, optimize.per_class(SCORES, LABELS)), True),
    ("apply", lambda s, y: optimize.per_class(SCORES, LABELS).apply(s), False),
    (
        "apply_named",
        lambda s, y: optimize.per_class(SCORES, LABELS).with_classes(list("abcd")).apply(s),
        False,
    ),
]


@pytest.mark.parametrize(
    ("call", "takes_labels"),
    [m[1:] for m in REPEATED_COLUMNS],
    ids=[m[0] for m in REPEATED_COLUMNS],
)
def test_a_dataframe_with_a_repeated_column_name_is_refused(call: Any, takes_labels: bool) -> None:
    repeated = pd.DataFrame(SCORES, columns=["a", "b", "a", "d"])
    with pytest.raises(ValueError, match=r"scores\.columns names a class more than once \('a'\)"):
        call(repeated, LABELS)
    if takes_labels:
        with pytest.raises(
            ValueError, match=r"labels\.columns names a class more than once \('b'\)"
        ):
            call(SCORES, pd.DataFrame(LABELS, columns=["a", "b", "c", "b"]))


def test_etu_refuses_repeated_probability_columns() -> None:
    probabilities = pd.DataFrame(1 / (1 + np.exp(-SCORES)), columns=["a", "b", "a", "d"])
    with pytest.raises(ValueError, match=r"probabilities\.columns names a class more than once"):
        optimize.etu(probabilities)


# --------------------------------------------------------------------------- defect 4


def test_evolved_thresholds_are_what_apply_f_macro_and_save_use(tmp_path: Path) -> None:
    result = _per_class()
    new = np.array([0.2, 0.9, math.inf, -math.inf])
    changed = attrs.evolve(result, thresholds=new)
    want = np.greater_equal(SCORES, new)
    np.testing.assert_array_equal(changed.apply(SCORES), want)
    np.testing.assert_array_equal(changed.rule.apply(SCORES), want)
    assert isinstance(changed.rule, PerClassThresholds)
    np.testing.assert_array_equal(changed.rule.thresholds, new)
    assert f_macro(SCORES, LABELS, changed) == f_macro(SCORES, LABELS, new)
    changed.save(tmp_path / "t.json")
    rule, _ = load_rule(tmp_path / "t.json")
    np.testing.assert_array_equal(rule.apply(SCORES), want)
    # the original is untouched
    np.testing.assert_array_equal(result.apply(SCORES), np.greater_equal(SCORES, result.thresholds))


def test_a_rule_that_disagrees_with_the_thresholds_cannot_be_built() -> None:
    result = _per_class()
    other = PerClassThresholds([0.1, 0.2, 0.3, 0.4])
    with pytest.raises(ValueError, match="rule holds other thresholds than thresholds"):
        attrs.evolve(result, rule=other)
    # the same thresholds given as the rule are accepted (optimize.sklearn does so)
    same = attrs.evolve(result, rule=PerClassThresholds(result.thresholds))
    np.testing.assert_array_equal(same.apply(SCORES), result.apply(SCORES))
    with pytest.raises(ValueError, match="a top_k result has no per-class thresholds"):
        attrs.evolve(result, rule=TopK(2))
    top = optimize.top_k(SCORES, LABELS)
    with pytest.raises(ValueError, match="a top_k result has no per-class thresholds"):
        attrs.evolve(top, thresholds=np.zeros(4))
    with pytest.raises(ValueError, match="thresholds contains 4 NaN"):
        attrs.evolve(top, rule=None)  # per-class thresholds from all-NaN values
    with pytest.raises(TypeError, match="rule must be a PerClassThresholds, a TopK or None"):
        attrs.evolve(result, rule="top_k")


def test_pickles_and_copies_keep_the_derived_rule() -> None:
    for result in (_per_class(), optimize.top_k(SCORES, LABELS).with_classes(list("wxyz"))):
        for clone in (pickle.loads(pickle.dumps(result)), copy.deepcopy(result)):
            assert clone.classes == result.classes
            np.testing.assert_array_equal(clone.apply(SCORES), result.apply(SCORES))
            assert type(clone.rule) is type(result.rule)


# --------------------------------------------------------------------------- defect 5


def test_nan_thresholds_are_refused_everywhere(tmp_path: Path) -> None:
    result = _per_class()
    record = result.to_dict()
    with pytest.raises(
        ValueError, match=r"thresholds contains 1 NaN value\(s\) \(column\(s\) \[2\]"
    ):
        attrs.evolve(result, thresholds=[0.1, 0.2, math.nan, 0.4])
    with pytest.raises(ValueError, match="thresholds contains 1 NaN"):
        PerClassThresholds([0.1, math.nan])
    with pytest.raises(ValueError, match=r"field 'thresholds\[1\]'.*got 'nan'"):
        ThresholdResult.from_dict({**record, "thresholds": [0.1, "nan", 0.3, 0.4]})
    with pytest.raises(ValueError, match="thresholds contains 1 NaN"):
        ThresholdResult.from_dict({**record, "thresholds": [0.1, math.nan, 0.3, 0.4]})
    for text in ('"nan"', "NaN"):  # the string, and the literal Python's json reads
        body = json.dumps({**record, "thresholds": [0.1, "X", 0.3, 0.4]}).replace('"X"', text)
        (tmp_path / "t.json").write_text(body)
        with pytest.raises(ValueError, match=r"t\.json: .*thresholds"):
            ThresholdResult.load(tmp_path / "t.json")
        with pytest.raises(ValueError, match=r"t\.json: .*thresholds"):
            load_rule(tmp_path / "t.json")


def _fmacro(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fmacro", *argv], cwd=cwd, capture_output=True, text=True
    )


def test_fmacro_apply_refuses_nan_thresholds_and_a_top_k_rule_of_another_width(
    tmp_path: Path,
) -> None:
    record = _per_class().to_dict()
    (tmp_path / "nan.json").write_text(json.dumps({**record, "thresholds": ["nan"] * 4}))
    optimize.top_k(SCORES, LABELS).save(tmp_path / "k.json")
    np.savez(tmp_path / "wide.npz", scores=np.zeros((3, 7)))
    np.savez(tmp_path / "ok.npz", scores=SCORES[:5])
    for argv, message in (
        (["nan.json", "ok.npz"], "nan.json"),
        (["k.json", "wide.npz"], "scores must have shape (n_samples, 4)"),
    ):
        run = _fmacro("apply", *argv, "-o", "p.npy", cwd=tmp_path)
        assert run.returncode == 2, run.stderr
        assert "Traceback" not in run.stderr and message in run.stderr
    run = _fmacro("apply", "k.json", "ok.npz", "-o", "p.npy", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    k = optimize.top_k(SCORES, LABELS).rule.k
    np.testing.assert_array_equal(
        np.load(tmp_path / "p.npy"), optimize.predict_top_k(SCORES[:5], k)
    )


# --------------------------------------------------------------------------- defect 6


def test_a_top_k_rule_knows_its_width(tmp_path: Path) -> None:
    result = optimize.top_k(SCORES, LABELS)
    k = int(result.diagnostics["k"])
    assert result.rule == TopK(k, 4)
    with pytest.raises(ValueError, match=r"scores must have shape \(n_samples, 4\), got \(80, 3\)"):
        result.apply(SCORES[:, :3])
    with pytest.raises(ValueError, match=r"scores must have shape \(n_samples, 4\), got \(80, 6\)"):
        result.apply(np.hstack([SCORES, SCORES[:, :2]]))
    result.save(tmp_path / "k.json")
    rule, _ = load_rule(tmp_path / "k.json")
    assert rule == TopK(k, 4)
    with pytest.raises(ValueError, match=r"scores must have shape \(n_samples, 4\)"):
        rule.apply(np.zeros((2, 5)))
    np.testing.assert_array_equal(rule.apply(SCORES), optimize.predict_top_k(SCORES, k))
    with pytest.raises(ValueError, match=r"k must be at most n_columns \(4\), got k=5"):
        TopK(5, 4)
    with pytest.raises(ValueError, match="top_k rule for 3 columns, but thresholds has 4"):
        attrs.evolve(result, rule=TopK(1, 3))
    with pytest.raises(ValueError, match=r"k must be at most n_columns \(4\), got k=9"):
        ThresholdResult.from_dict({**result.to_dict(), "rule": {"kind": "top_k", "k": 9}})


# --------------------------------------------------------------------------- defect 13


def _deep(levels: int) -> list[Any]:
    root: list[Any] = []
    node = root
    for _ in range(levels):
        child: list[Any] = []
        node.append(child)
        node = child
    return root


MALFORMED: list[tuple[str, Any, str]] = [
    ("rule_int", {"rule": 3}, r"field 'rule': expected \{'kind'"),
    ("rule_kind", {"rule": {"kind": "all"}}, "unknown decision rule kind 'all'"),
    ("rule_key", {"rule": {"kind": "per_class_thresholds", "k": 2}}, "field 'rule'"),
    ("rule_k", {"rule": {"kind": "top_k", "k": True}}, r"field 'rule\.k'"),
    ("thresholds_int", {"thresholds": 5}, "field 'thresholds': expected a list"),
    ("thresholds_bool", {"thresholds": [True, 0.1, 0.2, 0.3]}, r"field 'thresholds\[0\]'"),
    ("thresholds_text", {"thresholds": ["0.5", 0.1, 0.2, 0.3]}, r"field 'thresholds\[0\]'"),
    ("thresholds_big", {"thresholds": [10**400, 0.1, 0.2, 0.3]}, r"'thresholds\[0\]'.*float range"),
    ("thresholds_length", {"thresholds": [1e999]}, "cuts must hold one cut per kept class"),
    ("cuts_text", {"cuts": ["a", 1, 1, 1]}, r"field 'cuts\[0\]': expected an integer"),
    ("cuts_inf", {"cuts": [1e999, 1, 1, 1]}, r"field 'cuts\[0\]': expected an integer"),
    ("cuts_fraction", {"cuts": [1.5, 1, 1, 1]}, r"field 'cuts\[0\]'"),
    ("cuts_huge", {"cuts": [2**70, 1, 1, 1]}, r"field 'cuts\[0\]'.*70 bits|field 'cuts\[0\]'"),
    ("cuts_negative", {"cuts": [-1, 1, 1, 1]}, "cuts must be non-negative"),
    ("cuts_too_many", {"cuts": [1] * 5}, r"cuts must hold one cut per kept class: 1 to 4"),
    ("cuts_none", {"cuts": []}, "cuts must hold one cut per kept class"),
    ("cuts_object", {"cuts": {"a": 1}}, "field 'cuts': expected a list"),
    ("beta_object", {"beta": {}}, "field 'beta': expected a finite number > 0, got a dict"),
    ("beta_zero", {"beta": 0}, "beta must be a finite number > 0, got 0"),
    ("beta_negative", {"beta": -1.5}, "beta must be a finite number > 0"),
    ("beta_nan", {"beta": "nan"}, "field 'beta'"),
    ("beta_bool", {"beta": True}, "field 'beta'"),
    ("zero_division_half", {"zero_division": 0.5}, "field 'zero_division': expected 0, 1 or 'nan'"),
    ("zero_division_text", {"zero_division": "warn"}, "field 'zero_division'"),
    ("f_text", {"f": "high"}, "field 'f': expected a number or 'inf'"),
    ("f_large", {"f": 1.5}, r"f must be in \[0, 1\] or NaN, got 1\.5"),
    ("precision_negative", {"precision": -0.1}, r"precision must be in \[0, 1\]"),
    ("recall_list", {"recall": [0.5]}, "field 'recall'"),
    ("upper_bound_negative", {"upper_bound": -1, "gap": "nan"}, "upper_bound must be a finite"),
    ("gap_inconsistent", {"gap": 0.25}, "gap must be upper_bound - f"),
    ("method_int", {"method": 5}, "field 'method'"),
    ("method_empty", {"method": ""}, "field 'method'"),
    ("classes_text", {"classes": "abcd"}, "field 'classes'"),
    ("classes_object", {"classes": [{}, "b", "c", "d"]}, "field 'classes'"),
    ("classes_repeat", {"classes": ["a", "b", "a", "d"]}, r"classes names a class more than once"),
    ("classes_count", {"classes": ["a", "b"]}, "classes must name each of the 4"),
    ("diagnostics_list", {"diagnostics": [1]}, "field 'diagnostics': expected an object"),
    ("diagnostics_deep", {"diagnostics": {"x": _deep(10_000)}}, "nested deeper than 32 levels"),
    ("unknown_field", {"comment": "hi"}, r"unknown field\(s\) 'comment'"),
    ("version_bool", {"version": True}, "version True is not supported"),
]


@pytest.mark.parametrize(
    ("change", "message"), [m[1:] for m in MALFORMED], ids=[m[0] for m in MALFORMED]
)
def test_every_malformed_record_is_a_value_error_naming_the_field(
    change: dict[str, Any], message: str
) -> None:
    record = {**_per_class().to_dict(), **change}
    with pytest.raises(ValueError, match=message):
        ThresholdResult.from_dict(record)


def test_malformed_files_are_value_errors_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    record = _per_class().to_dict()
    del record["tuning"]  # its thresholds are edited below: the counts of the old ones go
    for body in (
        "[1, 2]",
        '{"format": "fmacro.thresholds", "version": 1, "x": ' + "[" * 10_000 + "]" * 10_000 + "}",
        json.dumps({**record, "thresholds": [1, 2]}).replace("[1, 2]", "[1e999, -1e999, 0, 1]")
        + "x",
        json.dumps({**record, "cuts": "X"}).replace('"X"', "[1e999, 1, 1, 1]"),
    ):
        path.write_text(body)
        with pytest.raises(ValueError, match=r"t\.json: "):
            ThresholdResult.load(path)
    # without a record, the file is named as such
    path.write_text("[" * 10_000 + "]" * 10_000)
    with pytest.raises(ValueError, match=r"t\.json: not a readable thresholds JSON file"):
        ThresholdResult.load(path)
    # numbers beyond the float range are the infinite thresholds they round to
    path.write_text(
        json.dumps(record).replace(json.dumps(record["thresholds"]), "[1e999, -1e999, 0, 1]")
    )
    np.testing.assert_array_equal(
        ThresholdResult.load(path).thresholds, [math.inf, -math.inf, 0.0, 1.0]
    )


# --------------------------------------------------------------------------- defect 19


def test_integer_columns_stay_integers_and_the_suggested_fixes_work(tmp_path: Path) -> None:
    columns = [0, 1, 2, 3]
    frame = pd.DataFrame(SCORES, columns=columns)
    result = optimize.fixed_point(frame, LABELS)
    assert result.classes == (0, 1, 2, 3)
    want = np.greater_equal(SCORES, result.thresholds)
    result.save(tmp_path / "t.json")
    assert json.loads((tmp_path / "t.json").read_text())["classes"] == [0, 1, 2, 3]
    loaded = ThresholdResult.load(tmp_path / "t.json")
    assert loaded.classes == (0, 1, 2, 3)
    np.testing.assert_array_equal(loaded.apply(frame), want)
    # reordered: scores[list(result.classes)]
    scores = frame[[3, 2, 1, 0]]
    with pytest.raises(ValueError, match="another order") as refused:
        loaded.apply(scores)
    np.testing.assert_array_equal(
        loaded.apply(_eval(_fix_of(str(refused.value), "them:"), scores=scores, result=loaded)),
        want,
    )
    # an extra column: select them
    scores = frame.assign(extra=1.0)
    with pytest.raises(ValueError, match=r"missing \[\], unknown \['extra'\]") as refused:
        loaded.apply(scores)
    np.testing.assert_array_equal(
        loaded.apply(_eval(_fix_of(str(refused.value), "them:"), scores=scores, result=loaded)),
        want,
    )
    # a CSV round trip turns the names into text, in order: rename them
    (tmp_path / "s.csv").write_text(frame.to_csv(index=False))
    scores = pd.read_csv(tmp_path / "s.csv")
    assert scores.columns.tolist() == ["0", "1", "2", "3"]
    with pytest.raises(ValueError, match="only as text") as refused:
        loaded.apply(scores)
    assert "'0', '1', '2', '3'" in str(refused.value) and "the classes 0, 1, 2, 3" in str(
        refused.value
    )
    scores = _run(_fix_of(str(refused.value), "name them so:"), scores=scores, result=loaded)[
        "scores"
    ]
    assert scores.columns.tolist() == [0, 1, 2, 3]
    np.testing.assert_array_equal(loaded.apply(scores), want)
    # text in another order: select by text, then name
    scores = pd.read_csv(tmp_path / "s.csv")[["2", "0", "3", "1"]]
    with pytest.raises(ValueError, match="only as text, and in another order") as refused:
        loaded.apply(scores)
    fix = _fix_of(str(refused.value), "select and name them:")
    scores = _run(fix, scores=scores, result=loaded)["scores"]
    assert scores.columns.tolist() == [0, 1, 2, 3]
    np.testing.assert_array_equal(loaded.apply(scores), want)
    # a missing column: no code is suggested, since none would work
    with pytest.raises(ValueError, match=r"missing \[3\], unknown \[\]; scores needs a column"):
        loaded.apply(frame[[0, 1, 2]])


def test_version_1_files_with_text_names_still_read_and_apply(tmp_path: Path) -> None:
    result = optimize.fixed_point(SCORES, LABELS)
    # what fmacro wrote before names kept their kind: integer columns saved as text
    record = {**result.to_dict(), "classes": ["10", "20", "30", "40"]}
    (tmp_path / "old.json").write_text(json.dumps(record, indent=1))
    old = ThresholdResult.load(tmp_path / "old.json")
    assert old.classes == ("10", "20", "30", "40")
    np.testing.assert_array_equal(old.thresholds, result.thresholds)
    np.testing.assert_array_equal(old.cuts, result.cuts)
    assert (old.f, old.upper_bound, old.gap) == (result.f, result.upper_bound, result.gap)
    scores = pd.DataFrame(SCORES, columns=[10, 20, 30, 40])
    with pytest.raises(ValueError, match="only as text") as refused:
        old.apply(scores)
    scores = _run(_fix_of(str(refused.value), "name them so:"), scores=scores, result=old)["scores"]
    assert scores.columns.tolist() == ["10", "20", "30", "40"]
    np.testing.assert_array_equal(old.apply(scores), np.greater_equal(SCORES, result.thresholds))
    # a top_k record as version 1 wrote it: NaN thresholds, cuts -1
    top = optimize.top_k(SCORES, LABELS)
    written = top.to_dict()
    assert written["thresholds"] == ["nan"] * 4 and written["cuts"] == [-1] * top.cuts.size
    again = ThresholdResult.from_dict(json.loads(json.dumps(written)))
    assert again.rule == top.rule and again.f == top.f


def test_scores_and_labels_frames_equal_only_as_text_get_working_fixes() -> None:
    s_frame = pd.DataFrame(SCORES, columns=[0, 1, 2, 3])
    y_text = pd.DataFrame(LABELS, columns=["0", "1", "2", "3"])
    scores = s_frame
    want = f_macro(SCORES, LABELS, np.full(4, 0.6))
    with pytest.raises(ValueError, match="equal only as text") as refused:
        f_macro(scores, y_text, np.full(4, 0.6))
    fix = _fix_of(str(refused.value), "name them so (")
    labels = _run(fix, scores=scores, labels=y_text.copy())["labels"]
    assert f_macro(scores, labels, np.full(4, 0.6)) == want
    with pytest.raises(ValueError, match="in another order") as refused:
        f_macro(scores, y_text[["3", "1", "2", "0"]], np.full(4, 0.6))
    fix = _fix_of(str(refused.value), "select and name them (")
    labels = _run(fix, scores=scores, labels=y_text[["3", "1", "2", "0"]])["labels"]
    assert labels.columns.tolist() == [0, 1, 2, 3]
    assert f_macro(scores, labels, np.full(4, 0.6)) == want
    with pytest.raises(ValueError, match="align them") as refused:
        f_macro(scores, pd.DataFrame(LABELS, columns=[0, 1, 2, 3])[[2, 3, 0, 1]], np.full(4, 0.6))
    labels = pd.DataFrame(LABELS, columns=[0, 1, 2, 3])[[2, 3, 0, 1]]
    aligned = _eval(_fix_of(str(refused.value), "align them ("), scores=scores, labels=labels)
    assert aligned.columns.tolist() == [0, 1, 2, 3]
    assert f_macro(scores, aligned, np.full(4, 0.6)) == want


# --------------------------------------------------------------------------- defect 20


def test_frames_with_a_nan_column_name_match_each_other() -> None:
    columns = ["a", math.nan, "c", "d"]
    s_frame = pd.DataFrame(SCORES, columns=columns)
    y_frame = pd.DataFrame(LABELS, columns=columns)
    result = optimize.per_class(s_frame, y_frame)
    assert result.classes is not None and math.isnan(result.classes[1])
    np.testing.assert_array_equal(result.thresholds, _per_class().thresholds)
    assert f_macro(s_frame, y_frame, result) == f_macro(SCORES, LABELS, result)
    np.testing.assert_array_equal(
        result.apply(s_frame), np.greater_equal(SCORES, result.thresholds)
    )
    record = result.to_dict()
    assert record["classes"] == ["a", None, "c", "d"]
    again = ThresholdResult.from_dict(json.loads(json.dumps(record, allow_nan=False)))
    np.testing.assert_array_equal(again.apply(s_frame), np.greater_equal(SCORES, result.thresholds))
    scores = s_frame[["d", math.nan, "c", "a"]]
    with pytest.raises(ValueError, match="another order") as refused:
        again.apply(scores)
    fixed = _eval(_fix_of(str(refused.value), "them:"), scores=scores, result=again)
    np.testing.assert_array_equal(again.apply(fixed), np.greater_equal(SCORES, again.thresholds))
    # the validation side: two multi-label frames named with NaN
    v = MultiLabelFValidation.from_predictions(y_frame, y_frame)
    assert v.f_macro == 1.0 and math.isnan(v.labels[1])


# --------------------------------------------------------------------------- the schema


@pytest.mark.parametrize(
    "method", ["per_class", "top_k", "fixed_point", "exact", "tune", "global_threshold", "cyclic"]
)
def test_every_method_result_fits_the_schema_and_round_trips(method: str) -> None:
    result = getattr(optimize, method)(SCORES, LABELS).with_classes([1, "1", 1.5, True])
    text = json.dumps(result.to_dict(), allow_nan=False)
    again = ThresholdResult.from_dict(json.loads(text))
    assert again.classes == (1, "1", 1.5, True)
    assert [type(c) for c in again.classes] == [int, str, float, bool]
    np.testing.assert_array_equal(again.thresholds, result.thresholds)
    np.testing.assert_array_equal(again.cuts, result.cuts)
    for name in ("f", "precision", "recall", "upper_bound", "gap", "beta", "zero_division"):
        a, b = getattr(again, name), getattr(result, name)
        assert a == b or (math.isnan(a) and math.isnan(b)), name
    np.testing.assert_array_equal(again.apply(SCORES), result.apply(SCORES))


def test_excluded_classes_leave_fewer_cuts_than_thresholds() -> None:
    labels = LABELS.copy()
    labels[:, 2] = 0  # no positives: excluded from the average, threshold +inf
    result = optimize.fixed_point(SCORES, labels)
    assert result.thresholds.shape == (4,) and result.cuts.shape == (3,)
    assert result.thresholds[2] == math.inf
    again = ThresholdResult.from_dict(json.loads(json.dumps(result.to_dict())))
    np.testing.assert_array_equal(again.cuts, result.cuts)
    included = optimize.fixed_point(SCORES, labels, empty_classes="include")
    assert included.cuts.shape == (4,)


def test_the_constructor_and_evolve_refuse_what_the_schema_refuses() -> None:
    result = _per_class()
    refused: list[tuple[dict[str, Any], type[Exception], str]] = [
        ({"beta": 0}, ValueError, "beta must be a finite number > 0"),
        ({"beta": math.nan}, ValueError, "beta must be a finite number > 0"),
        ({"beta": "2"}, TypeError, "beta must be a real number"),
        ({"zero_division": 0.5}, ValueError, "zero_division must be"),
        ({"f": 1.5}, ValueError, r"f must be in \[0, 1\]"),
        ({"f": True}, TypeError, "f must be a real number, got bool"),
        ({"precision": "0.5"}, TypeError, "precision must be a real number"),
        ({"upper_bound": 0.9}, ValueError, "gap must be upper_bound - f"),
        ({"cuts": [1, 2, 3, -4]}, ValueError, "cuts must be non-negative"),
        ({"cuts": [1.5, 2, 3, 4]}, ValueError, "cuts must be integers, got 1.5"),
        ({"cuts": [True] * 4}, TypeError, "cuts must be integers"),
        ({"cuts": np.zeros((2, 2), int)}, ValueError, "one cut per kept class"),
        ({"thresholds": ["0.5"] * 4}, TypeError, "thresholds must be real numbers"),
        ({"thresholds": [True, False, True, True]}, TypeError, "thresholds must be real numbers"),
        ({"thresholds": np.zeros((2, 2))}, ValueError, "1-D array"),
        ({"method": ""}, ValueError, "method must name the method"),
        ({"method": None}, TypeError, "method must be a str"),
        ({"classes": ["a", "b", "a", "d"]}, ValueError, "more than once"),
        ({"classes": [(1, 2), "b", "c", "d"]}, TypeError, "got tuple"),
        ({"diagnostics": {"x": object()}}, TypeError, r"diagnostics\['x'\] must be a JSON value"),
        ({"diagnostics": {"x": _deep(100)}}, ValueError, "deeper than 32 levels"),
        ({"diagnostics": [1]}, TypeError, "diagnostics must be a mapping"),
    ]
    for change, error, message in refused:
        with pytest.raises(error, match=message):
            attrs.evolve(result, **change)
    # consistent changes are accepted
    bounded = attrs.evolve(result, upper_bound=0.95, gap=0.95 - result.f)
    assert bounded.gap == 0.95 - result.f
    assert attrs.evolve(result, cuts=[1.0, 2.0, 3.0, 4.0]).cuts.tolist() == [1, 2, 3, 4]


# --------------------------------------------------------------------------- siblings


def test_evaluate_thresholds_refuses_arrays_that_are_no_thresholds() -> None:
    with pytest.raises(
        ValueError, match=r"thresholds contains 1 NaN value\(s\) \(column\(s\) \[3\]"
    ):
        evaluate_thresholds(SCORES, LABELS, [0.1, 0.2, 0.3, math.nan])
    with pytest.raises(TypeError, match="thresholds must be real numbers"):
        f_macro(SCORES, LABELS, [True, False, True, True])
    with pytest.raises(TypeError, match="thresholds must be real numbers"):
        f_macro(SCORES, LABELS, ["0.5", "0.5", "0.5", "0.5"])
    # the same numbers as numbers: accepted, and -inf/+inf predict all/nothing
    ev = evaluate_thresholds(SCORES, LABELS, [-math.inf, math.inf, 0.5, 0.5])
    assert ev.tp[0] == LABELS[:, 0].sum() and ev.fp[0] == (LABELS[:, 0] == 0).sum()
    assert ev.tp[1] == 0 and ev.fp[1] == 0
    with pytest.raises(ValueError, match=r"result\.apply\(scores\)"):
        f_macro(SCORES, LABELS, optimize.top_k(SCORES, LABELS))


def test_validation_frames_keep_names_that_share_a_text() -> None:
    expected = pd.DataFrame(LABELS[:, :2], columns=[1, "1"])
    predicted = pd.DataFrame((SCORES[:, :2] > 0.9).astype(int), columns=[1, "1"])
    v = MultiLabelFValidation.from_predictions(expected, predicted)
    frame = v.to_pandas()
    assert frame.index.tolist()[:2] == [1, "1"] and len(frame) == 6
    tp = ((LABELS[:, :2] == 1) & (SCORES[:, :2] > 0.9)).sum(axis=0)
    assert frame["tp"].iloc[:2].tolist() == tp.tolist()
    assert v.to_dict()["classes"] == ["1", "1"]  # the JSON report holds text, in order
    with pytest.raises(ValueError, match="different columns"):
        MultiLabelFValidation.from_predictions(expected, predicted[["1", 1]])
    m = MultiFValidation.from_predictions([0, 1, 2, 2], [0, 2, 2, 1])
    assert m.to_pandas().index.tolist()[:3] == [0, 1, 2]
    assert m.to_dict()["classes"] == ["0", "1", "2"]
