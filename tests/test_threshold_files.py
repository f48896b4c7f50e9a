"""Tune, save, apply: ThresholdResult records (JSON/.npy) and the 'fmacro apply' command."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fmacro import optimize
from fmacro.optimize import ThresholdResult
from fmacro.optimize.io import load_rule

RNG = np.random.default_rng(7)
LABELS = (RNG.random((120, 4)) < 0.3).astype(np.uint8)
LABELS[0] = 1
SCORES = LABELS * 0.4 + RNG.random((120, 4))
TUNE, TEST = slice(0, 60), slice(60, 120)


def _same(a: ThresholdResult, b: ThresholdResult) -> None:
    np.testing.assert_array_equal(a.thresholds, b.thresholds)
    np.testing.assert_array_equal(a.cuts, b.cuts)
    for name in ("method", "beta", "f", "precision", "recall", "upper_bound", "gap", "classes"):
        x, y = getattr(a, name), getattr(b, name)
        assert x == y or (isinstance(x, float) and math.isnan(x) and math.isnan(y)), name
    assert a.zero_division == b.zero_division or (
        math.isnan(a.zero_division) and math.isnan(b.zero_division)
    )


@pytest.mark.parametrize("method", ["fixed_point", "exact", "per_class", "global_threshold"])
def test_json_round_trip_keeps_every_field(tmp_path: Path, method: str) -> None:
    result = getattr(optimize, method)(SCORES[TUNE], LABELS[TUNE], zero_division=math.nan)
    named = result.with_classes(["w", "x", "y", "z"])
    again = ThresholdResult.from_dict(json.loads(json.dumps(named.to_dict())))
    _same(named, again)
    named.save(tmp_path / "thr.json")
    loaded = ThresholdResult.load(tmp_path / "thr.json")
    _same(named, loaded)
    np.testing.assert_array_equal(loaded.apply(SCORES[TEST]), result.apply(SCORES[TEST]))


def test_non_finite_values_are_written_as_strings(tmp_path: Path) -> None:
    labels = LABELS[TUNE].copy()
    labels[:, 3] = 0  # a class without positives: threshold +inf (never predicted)
    result = optimize.per_class(SCORES[TUNE], labels)
    record = result.to_dict()
    assert record["thresholds"][3] == "inf" and record["upper_bound"] == "nan"
    json.dumps(record, allow_nan=False)  # strictly valid JSON
    assert ThresholdResult.from_dict(record).thresholds[3] == math.inf


def test_top_k_keeps_its_rule_and_refuses_npy(tmp_path: Path) -> None:
    result = optimize.top_k(SCORES[TUNE], LABELS[TUNE])
    result.save(tmp_path / "k.json")
    rule, classes = load_rule(tmp_path / "k.json")
    assert rule == result.rule and classes is None
    np.testing.assert_array_equal(rule.apply(SCORES[TEST]), result.apply(SCORES[TEST]))
    with pytest.raises(ValueError, match="top_k result has no per-class thresholds"):
        result.save(tmp_path / "k.npy")


def test_npy_holds_the_thresholds(tmp_path: Path) -> None:
    result = optimize.per_class(SCORES[TUNE], LABELS[TUNE])
    result.save(tmp_path / "t.npy")
    np.testing.assert_array_equal(np.load(tmp_path / "t.npy"), result.thresholds)
    rule, _ = load_rule(tmp_path / "t.npy")
    np.testing.assert_array_equal(rule.apply(SCORES[TEST]), result.apply(SCORES[TEST]))


def test_bad_records_are_refused(tmp_path: Path) -> None:
    result = optimize.per_class(SCORES[TUNE], LABELS[TUNE])
    with pytest.raises(ValueError, match="classes must name each of the 4"):
        result.with_classes(["a", "b"])
    with pytest.raises(TypeError, match="classes must be a sequence"):
        result.with_classes("abcd")
    record = result.to_dict()
    with pytest.raises(ValueError, match="not an fmacro thresholds record"):
        ThresholdResult.from_dict({**record, "format": "other"})
    with pytest.raises(ValueError, match="version 99 is not supported"):
        ThresholdResult.from_dict({**record, "version": 99})
    with pytest.raises(ValueError, match="missing or has a bad field"):
        ThresholdResult.from_dict({k: v for k, v in record.items() if k != "cuts"})
    with pytest.raises(ValueError, match="expected a number or 'inf'"):
        ThresholdResult.from_dict({**record, "f": "high"})
    with pytest.raises(ValueError, match=r"save thresholds as \.json or \.npy"):
        result.save(tmp_path / "t.txt")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ValueError, match=r"bad\.json: not a readable thresholds JSON"):
        ThresholdResult.load(tmp_path / "bad.json")
    np.save(tmp_path / "m.npy", np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"m\.npy: expected a 1-D numeric array"):
        load_rule(tmp_path / "m.npy")


def _fmacro(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fmacro", *argv], cwd=cwd, capture_output=True, text=True
    )


def test_tune_save_apply_from_the_command_line(tmp_path: Path) -> None:
    np.savez(tmp_path / "val.npz", scores=SCORES[TUNE], labels=LABELS[TUNE])
    np.savez(tmp_path / "test.npz", scores=SCORES[TEST], labels=LABELS[TEST])
    before = SCORES.copy()
    run = _fmacro(
        "thresholds", "val.npz", "--method", "exact", "--save", "thr.json", "--quiet", cwd=tmp_path
    )
    assert run.returncode == 0, run.stderr
    expected = optimize.exact(SCORES[TUNE], LABELS[TUNE])
    saved = ThresholdResult.load(tmp_path / "thr.json")
    np.testing.assert_array_equal(saved.thresholds, expected.thresholds)
    assert saved.gap == 0.0 and saved.f == expected.f
    for out in ("pred.npz", "pred.npy", "pred.csv"):
        run = _fmacro("apply", "thr.json", "test.npz", "-o", out, cwd=tmp_path)
        assert run.returncode == 0, run.stderr
        assert "60 objects x 4 classes" in run.stdout
    want = expected.apply(SCORES[TEST]).astype(np.uint8)
    with np.load(tmp_path / "pred.npz") as z:
        np.testing.assert_array_equal(z["predicted"], want)
        np.testing.assert_array_equal(z["labels"], LABELS[TEST] != 0)
    np.testing.assert_array_equal(np.load(tmp_path / "pred.npy"), want)
    np.testing.assert_array_equal(np.loadtxt(tmp_path / "pred.csv", delimiter=","), want)
    np.testing.assert_array_equal(SCORES, before)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["apply", "missing.json", "test.npz", "-o", "p.npz"], "missing.json"),
        (["apply", "thr.json", "missing.npz", "-o", "p.npz"], "missing.npz: no such file"),
        (["apply", "thr.json", "test.npz", "-o", "p.txt"], "p.txt: write predictions as"),
        (["apply", "thr.json", "wide.npz", "-o", "p.npz"], "wide.npz: scores must have shape"),
        (["apply", "thr.json", ".", "-o", "p.npz"], ".: is a directory, not a file"),
    ],
)
def test_apply_bad_input_exits_2_with_one_line(
    tmp_path: Path, argv: list[str], message: str
) -> None:
    np.savez(tmp_path / "test.npz", scores=SCORES[TEST], labels=LABELS[TEST])
    np.savez(tmp_path / "wide.npz", scores=np.zeros((3, 7)))
    optimize.per_class(SCORES[TUNE], LABELS[TUNE]).save(tmp_path / "thr.json")
    run = _fmacro(*argv, cwd=tmp_path)
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], run.stderr
