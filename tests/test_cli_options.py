"""Every option of every subcommand runs at least once (issue 10 item 12).

``test_every_option_is_exercised`` fails when a subcommand gains an option that no run
below uses, so a new flag cannot ship untested.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fmacro import optimize
from fmacro.cli import build_parser, main

RNG = np.random.default_rng(11)
LABELS = (RNG.random((40, 3)) < 0.4).astype(np.uint8)
LABELS[0] = 1
SCORES = np.round(LABELS * 0.3 + RNG.random((40, 3)), 2)

# Runs per subcommand; each is checked for exit code 0 and, where given, a value.
RUNS: list[list[str]] = [
    ["evaluate", "e.csv", "p.csv", "--json", "--beta", "2", "--zero-division", "1"],
    ["evaluate", "e.csv", "p.csv", "--kind", "multiclass", "--zero-division", "nan"],
    ["evaluate", "yn_e.csv", "yn_p.csv", "--positive", "no", "--json"],
    ["evaluate", "h_e.csv", "h_p.csv", "--header", "--json"],
    ["evaluate", "h_e.csv", "h_p.csv", "--no-header", "--json"],
    ["thresholds", "r.npz", "--json", "--method", "exact", "--time-limit", "10"],
    ["thresholds", "r.npz", "--json", "--method", "domain", "--n-angles", "16"],
    ["thresholds", "r.npz", "--json", "--method", "tune", "--prior", "0", "--test", "t.npz"],
    ["thresholds", "r.npz", "--quiet", "--method", "per_class", "--save", "thr.json"],
    ["thresholds", "r.npz", "--quiet", "--method", "fixed_point", "--plot", "plots"],
    ["thresholds", "r.npz", "--json", "--beta", "0.5", "--zero-division", "1"],
    ["thresholds", "r.npz", "--json", "--min-precision", "0.3", "--max-predicted-rate", "0.6"],
    ["thresholds", "r.npz", "--json", "--method", "tune", "--max-rate-factor", "2"],
    ["thresholds", "r.npz", "--json", "--method", "micro_macro", "--mix", "0.25"],
    ["evaluate", "e.csv", "p.csv", "--ci", "0.9", "--resamples", "50", "--seed", "1", "--json"],
    [
        "compare",
        "e.csv",
        "p.csv",
        "e.csv",
        "--no-header",
        "--measure",
        "macro_f",
        "--level",
        "0.9",
        "--resamples",
        "50",
        "--seed",
        "1",
        "--beta",
        "2",
        "--zero-division",
        "1",
        "--json",
    ],
    [
        "compare",
        "h_e.csv",
        "h_p.csv",
        "h_e.csv",
        "--header",
        "--kind",
        "binary",
        "--positive",
        "1",
        "--measure",
        "f1",
    ],
    ["thresholds", "lists.txt", "--n-samples", "4", "--support", "sizes.txt", "--json"],
    ["apply", "thr.json", "t.npz", "-o", "pred.npy", "--quiet"],
    ["apply", "thr.json", "t.npz", "--output", "pred.csv"],
    ["apply", "thr.json", "t.npz", "-o", "pred_capped.npy", "--max-labels", "1"],
    ["apply", "thr.json", "t.csv", "--labels", "ty.csv", "-o", "pred_named.npz"],
    [
        "thresholds",
        "s.csv",
        "--labels",
        "y.csv",
        "--json",
        "--method",
        "tune",
        "--test",
        "t.csv",
        "--test-labels",
        "ty.csv",
    ],
    ["evaluate", "--help"],
    [
        "fdelta",
        "--full",
        "--datasets",
        "1",
        "--repetitions",
        "1",
        "--types",
        "RND",
        "--ratios",
        "1",
        "--n",
        "100",
        "--max-iter",
        "5",
        "--epsilon",
        "0",
        "--random-trials",
        "3",
        "--seed",
        "2",
        "--jobs",
        "2",
        "--quiet",
        "--json",
        "-o",
        "fd.json",
    ],
    [
        "fdelta",
        "--patsi",
        "--folds",
        "1",
        "--m",
        "3",
        "--max-words",
        "2",
        "--max-iter",
        "5",
        "--quiet",
        "--output",
        "patsi.json",
    ],
    [
        "thresholds",
        "r.npz",
        "--json",
        "--method",
        "tune",
        "--test",
        "t.npz",
        "--interval",
        "0.9",
        "--resamples",
        "20",
        "--seed",
        "1",
    ],
]


def _files(tmp: Path) -> None:
    (tmp / "e.csv").write_text("0\n1\n2\n2\n1\n")
    (tmp / "p.csv").write_text("0\n2\n2\n2\n0\n")
    (tmp / "yn_e.csv").write_text("yes\nno\nno\nyes\n")
    (tmp / "yn_p.csv").write_text("no\nno\nyes\nyes\n")
    (tmp / "h_e.csv").write_text("7\n1\n2\n")  # '7' is a header only with --header
    (tmp / "h_p.csv").write_text("7\n1\n1\n")
    np.savez(tmp / "r.npz", scores=SCORES[:20], labels=LABELS[:20])
    np.savez(tmp / "t.npz", scores=SCORES[20:], labels=LABELS[20:])
    (tmp / "lists.txt").write_text("0 1 0 0 1\n1 0 1 1\n")
    for name, values in (
        ("s", SCORES[:20]),
        ("y", LABELS[:20]),
        ("t", SCORES[20:]),
        ("ty", LABELS[20:]),
    ):
        lines = ["a,b,c"] + [",".join(map(str, row)) for row in values.tolist()]
        (tmp / f"{name}.csv").write_text("\n".join(lines) + "\n")
    (tmp / "sizes.txt").write_text("0 2\n1 2\n")


def _run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            code = main(argv)
        except SystemExit as exc:  # --help
            code = int(exc.code or 0)
    return code, out.getvalue()


def _options(parser: argparse.ArgumentParser) -> dict[str, set[str]]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {
        name: {o for a in p._actions for o in a.option_strings if o not in ("-h",)}
        for name, p in sub.choices.items()
    }


def test_every_option_is_exercised() -> None:
    used: dict[str, set[str]] = {}
    for argv in RUNS:
        used.setdefault(argv[0], set()).update(a for a in argv[1:] if a.startswith("-"))
    for command, options in _options(build_parser()).items():
        missing = options - used.get(command, set()) - {"--help"}
        assert not missing, f"fmacro {command}: no test runs {sorted(missing)}"


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, str, Path]]:
    tmp = tmp_path_factory.mktemp("options")
    _files(tmp)
    results = {}
    with contextlib.chdir(tmp):
        for argv in RUNS:
            code, out = _run(argv)
            results[" ".join(argv)] = (code, out, tmp)
    return results


@pytest.mark.parametrize("argv", RUNS, ids=lambda a: " ".join(a)[:60])
def test_each_run_succeeds(outputs: dict[str, tuple[int, str, Path]], argv: list[str]) -> None:
    code, _, _ = outputs[" ".join(argv)]
    assert code == 0


def test_values_of_the_options(outputs: dict[str, tuple[int, str, Path]]) -> None:
    from sklearn.metrics import f1_score, fbeta_score

    def payload(argv: list[str]) -> Any:
        return json.loads(outputs[" ".join(argv)][1])

    e, p = [0, 1, 2, 2, 1], [0, 2, 2, 2, 0]
    got = payload(RUNS[0])
    assert got["beta"] == 2.0 and got["zero_division"] == 1.0
    assert got["averages"]["macro"]["f"] == pytest.approx(
        fbeta_score(e, p, beta=2, average="macro", zero_division=1)
    )
    got = payload(RUNS[2])
    want = f1_score(["yes", "no", "no", "yes"], ["no", "no", "yes", "yes"], pos_label="no")
    assert got["kind"] == "binary" and got["classes"] == ["no"]
    assert got["per_class"][0]["f"] == pytest.approx(want)
    assert payload(RUNS[3])["measures"]["accuracy"] == 0.5
    assert payload(RUNS[4])["measures"]["accuracy"] == 2 / 3
    (row,) = payload(RUNS[5])["results"]
    assert row["status"] == "optimal"
    assert row["f_macro"] == pytest.approx(optimize.exact(SCORES[:20], LABELS[:20]).f)
    (row,) = payload(RUNS[6])["results"]
    assert row["f_macro"] == pytest.approx(optimize.domain(SCORES[:20], LABELS[:20], n_angles=16).f)
    (row,) = payload(RUNS[7])["results"]
    assert row["prior"] == 0.0 and not math.isnan(row["test_f_macro"])
    got = payload(RUNS[10])
    assert got["beta"] == 0.5 and got["zero_division"] == 1.0
    for row in got["results"]:
        kwargs = {"n_angles": 64} if row["method"] == "domain" else {}
        ref = getattr(optimize, row["method"])(
            SCORES[:20], LABELS[:20], beta=0.5, zero_division=1.0, **kwargs
        )
        assert row["f_macro"] == pytest.approx(ref.f), row["method"]
    tmp = outputs[" ".join(RUNS[0])][2]
    saved = optimize.ThresholdResult.load(tmp / "thr.json")
    assert saved.method == "per_class"
    want_pred = saved.apply(SCORES[20:]).astype(np.uint8)
    np.testing.assert_array_equal(np.load(tmp / "pred.npy"), want_pred)
    np.testing.assert_array_equal(np.loadtxt(tmp / "pred.csv", delimiter=","), want_pred)
    capped = saved.apply(SCORES[20:], max_labels=1).astype(np.uint8)
    np.testing.assert_array_equal(np.load(tmp / "pred_capped.npy"), capped)
    assert any((tmp / "plots").iterdir())
    assert json.loads((tmp / "fd.json").read_text())["config"]["repetitions"] == 1
    assert json.loads((tmp / "patsi.json").read_text())["config"]["n_words"] == 2
    (row,) = payload(RUNS[-1])["results"]
    assert row["interval"]["level"] == 0.9 and row["interval"]["n_resamples"] == 20
    assert row["interval"]["low"] <= row["interval"]["estimate"] <= row["interval"]["high"]
