"""Issue 28 item 7: the CLI reads scores and labels with class names in CSV, parquet and npz.

``fmacro thresholds SCORES --labels LABELS`` (and ``--test SCORES --test-labels LABELS``)
and ``fmacro apply THR SCORES`` read pandas-written CSV and parquet files, pair labels with
scores by class name, carry the names into the report, ``--json``, ``--save`` and the
predictions, and refuse bad files with exit 2 and one line naming the file (and line).
Right answers are the Python API's on the arrays the files mean, with the columns put in
order by hand.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from fmacro import optimize
from fmacro.cli import main
from fmacro.cli import thresholds as thresholds_cli
from fmacro.optimize import ThresholdResult
from fmacro.optimize.score_files import read_scores

RNG = np.random.default_rng(28)
N_TUNE, N_TEST, M = 90, 60, 4
Y = (RNG.random((N_TUNE + N_TEST, M)) < 0.35).astype(np.int64)
Y[0] = Y[N_TUNE] = 1  # every class has a positive in both parts
S = np.round(Y * 0.45 + RNG.random(Y.shape), 4)
S_TUNE, Y_TUNE, S_TEST, Y_TEST = S[:N_TUNE], Y[:N_TUNE], S[N_TUNE:], Y[N_TUNE:]
# Users' own names: a comma, a quote, unicode, a space, and one that reads as a number.
NAMES = ["a,b", 'say "hi"', "ünïcödé", "7"]
SHUFFLE = [2, 0, 3, 1]  # the labels files list the classes in another order


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def ok(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    return out


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """A command that must exit 2 with one line on stderr and print nothing: that line."""
    code, out, err = run(capsys, *argv)
    assert code == 2, err
    assert "Traceback" not in err
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def frame(values: np.ndarray, names: list[Any], order: list[int] | None = None) -> pd.DataFrame:
    """A DataFrame of ``values`` under ``names``, its columns in ``order``."""
    df = pd.DataFrame(values, columns=names)
    return df if order is None else df.iloc[:, order]


def write(df: pd.DataFrame, path: str) -> str:
    if path.endswith(".parquet"):
        df.to_parquet(path)
    elif path.endswith(".tsv"):
        df.to_csv(path, index=False, sep="\t")
    else:
        df.to_csv(path, index=False)
    return path


def write_pair(
    scores: np.ndarray, labels: np.ndarray, stem: str, kind: str, names: list[Any] = NAMES
) -> tuple[str, str]:
    """Scores in ``names`` order and labels in the SHUFFLE order, as pandas writes them."""
    s = write(frame(scores, names), f"{stem}_scores.{kind}")
    y = write(frame(labels, names, SHUFFLE), f"{stem}_labels.{kind}")
    return s, y


def thresholds_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads(ok(capsys, "thresholds", "--json", *argv))
    return payload


# --------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("kind", ["csv", "tsv", "parquet"])
def test_thresholds_save_apply_evaluate_round_trip(
    capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    s, y = write_pair(S_TUNE, Y_TUNE, "tune", kind)
    ts, ty = write_pair(S_TEST, Y_TEST, "test", kind)
    out = ok(
        capsys, "thresholds", s, "--labels", y, "--method", "tune", "--save", "thr.json",
        "--test", ts, "--test-labels", ty,
    )  # fmt: skip
    expected = optimize.tune(S_TUNE, Y_TUNE)
    saved = ThresholdResult.load("thr.json")
    assert saved.classes == tuple(NAMES)
    np.testing.assert_array_equal(saved.thresholds, expected.thresholds)
    # the report names the classes and the held-out F of the right columns
    assert "'a,b', 'say \"hi\"', 'ünïcödé', '7'" in out
    held = optimize.evaluate_thresholds(S_TEST, Y_TEST, expected)
    tune_row = next(line for line in out.splitlines() if line.startswith("tune "))
    assert tune_row.split()[1] == f"{held.f:.4f}"  # the test F-macro column

    ok(capsys, "apply", "thr.json", ts, "--labels", ty, "-o", "pred.csv")
    pred = pd.read_csv("pred.csv")
    assert list(pred.columns) == NAMES
    np.testing.assert_array_equal(pred.to_numpy(), expected.thresholds <= S_TEST)
    # the predictions file is named, so evaluate pairs it with shuffled labels by name
    write(frame(Y_TEST, NAMES, SHUFFLE), "expected.csv")
    report = json.loads(ok(capsys, "evaluate", "--json", "expected.csv", "pred.csv"))
    assert report["classes"] == [NAMES[j] for j in SHUFFLE]
    assert report["averages"]["f_macro"]["f"] == pytest.approx(held.f, abs=1e-12)


def test_int_names_keep_their_kind_through_npz(capsys: pytest.CaptureFixture[str]) -> None:
    classes = np.asarray(json.dumps([3, 10, 20, 7]))
    np.savez("tune.npz", scores=S_TUNE, labels=Y_TUNE, classes=classes)
    np.savez("test.npz", scores=S_TEST, labels=Y_TEST, classes=classes)
    ok(capsys, "thresholds", "tune.npz", "--method", "fixed_point", "--save", "thr.json")
    assert json.loads(Path("thr.json").read_text())["classes"] == [3, 10, 20, 7]
    expected = optimize.fixed_point(S_TUNE, Y_TUNE)
    np.testing.assert_array_equal(ThresholdResult.load("thr.json").thresholds, expected.thresholds)
    ok(capsys, "apply", "thr.json", "test.npz", "-o", "pred.npz")
    with np.load("pred.npz") as z:
        assert json.loads(str(z["classes"])) == [3, 10, 20, 7]
        np.testing.assert_array_equal(z["predicted"], expected.thresholds <= S_TEST)
    # A CSV header holds text: "3" is compared with 3 as text, in order. Quoted numbers are
    # a header (the documented recipe for names that look like numbers).
    df = pd.DataFrame(S_TEST, columns=[3, 10, 20, 7]).rename(columns=str)
    df.to_csv("test.csv", index=False, quoting=csv.QUOTE_NONNUMERIC)
    ok(capsys, "apply", "thr.json", "test.csv", "-o", "pred.csv")
    np.testing.assert_array_equal(pd.read_csv("pred.csv").to_numpy(), expected.thresholds <= S_TEST)
    df.iloc[:, [1, 0, 2, 3]].to_csv("swapped.csv", index=False, quoting=csv.QUOTE_NONNUMERIC)
    line = refused(capsys, "apply", "thr.json", "swapped.csv", "-o", "p.csv")
    assert line.startswith("fmacro apply: error: swapped.csv names the score columns '10', '3'")


def test_thresholds_reads_npz_names_with_separate_labels(
    capsys: pytest.CaptureFixture[str],
) -> None:
    np.savez("s.npz", scores=S_TUNE, classes=np.asarray(NAMES))  # names as a string array
    write(frame(Y_TUNE, NAMES, SHUFFLE), "y.parquet")
    payload = thresholds_json(capsys, "s.npz", "--labels", "y.parquet", "--method", "tune")
    assert payload["classes"] == NAMES
    record = payload["results"][0]["record"]
    assert record["classes"] == NAMES
    np.testing.assert_array_equal(
        ThresholdResult.from_dict(record).thresholds, optimize.tune(S_TUNE, Y_TUNE).thresholds
    )


def test_csv_and_parquet_read_the_same_matrix() -> None:
    s, y = write_pair(S_TUNE, Y_TUNE, "c", "csv")
    ps, py = write_pair(S_TUNE, Y_TUNE, "p", "parquet")
    from_csv, from_parquet = read_scores(s, y), read_scores(ps, py)
    for read in (from_csv, from_parquet):
        np.testing.assert_array_equal(read.scores, S_TUNE)  # repr floats: exact
        np.testing.assert_array_equal(read.labels, Y_TUNE)  # back in the scores' order
        assert read.classes == tuple(NAMES)
    assert from_parquet.names is not None and from_parquet.names.typed
    assert from_csv.names is not None and not from_csv.names.typed


def test_pandas_index_column_and_nullable_dtypes() -> None:
    df = frame(S_TUNE, NAMES)
    df.index = pd.RangeIndex(N_TUNE)
    df.to_csv("indexed.csv")  # pandas' default: an unnamed index column first
    labels = frame(Y_TUNE, NAMES).astype("Int64")  # nullable integers
    labels.to_parquet("nullable.parquet")
    read = read_scores("indexed.csv", "nullable.parquet")
    np.testing.assert_array_equal(read.scores, S_TUNE)
    np.testing.assert_array_equal(read.labels, Y_TUNE)


# --------------------------------------------------------------------------- --json


def test_json_holds_each_methods_thresholds_as_the_api_finds_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    s, y = write_pair(S_TUNE, Y_TUNE, "tune", "csv")
    payload = thresholds_json(capsys, s, "--labels", y)
    api = {
        "tune": optimize.tune(S_TUNE, Y_TUNE),
        "fixed_point": optimize.fixed_point(S_TUNE, Y_TUNE),
        "per_class": optimize.per_class(S_TUNE, Y_TUNE),
        "global_threshold": optimize.global_threshold(S_TUNE, Y_TUNE),
        "top_k": optimize.top_k(S_TUNE, Y_TUNE),
    }
    rows = {row["method"]: row for row in payload["results"]}
    assert set(api) <= set(rows)
    for method, expected in api.items():
        got = ThresholdResult.from_dict(rows[method]["record"])
        assert got.classes == tuple(NAMES), method
        assert got.method == method
        np.testing.assert_array_equal(got.thresholds, expected.thresholds, err_msg=method)
        np.testing.assert_array_equal(got.apply(S_TEST), expected.apply(S_TEST), err_msg=method)
        assert got.f == expected.f


def test_save_holds_the_first_rows_record(capsys: pytest.CaptureFixture[str]) -> None:
    s, y = write_pair(S_TUNE, Y_TUNE, "tune", "parquet")
    payload = thresholds_json(capsys, s, "--labels", y, "--method", "per_class", "--save", "t.json")
    assert ThresholdResult.load("t.json").to_dict() == payload["results"][0]["record"]


# --------------------------------------------------------------------------- refusals


def test_different_names_are_refused_naming_both_files(
    capsys: pytest.CaptureFixture[str],
) -> None:
    write(frame(S_TUNE, NAMES), "s.csv")
    write(frame(Y_TUNE, ["a,b", 'say "hi"', "ünïcödé", "8"]), "y.csv")
    line = refused(capsys, "thresholds", "s.csv", "--labels", "y.csv")
    assert "s.csv and y.csv name different classes" in line
    assert "only in s.csv: '7'; only in y.csv: '8'" in line


def test_test_files_named_otherwise_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    s, y = write_pair(S_TUNE, Y_TUNE, "tune", "csv")
    write(frame(S_TEST, ["a", "b", "c", "d"]), "ts.csv")
    write(frame(Y_TEST, ["a", "b", "c", "d"]), "ty.csv")
    line = refused(
        capsys, "thresholds", s, "--labels", y, "--test", "ts.csv", "--test-labels", "ty.csv"
    )
    assert f"{s} and ts.csv name different classes" in line


def test_test_columns_in_another_order_are_paired_by_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    s, y = write_pair(S_TUNE, Y_TUNE, "tune", "csv")
    write(frame(S_TEST, NAMES, [3, 1, 0, 2]), "ts.parquet")
    write(frame(Y_TEST, NAMES, SHUFFLE), "ty.csv")
    payload = thresholds_json(
        capsys, s, "--labels", y, "--method", "tune", "--test", "ts.parquet",
        "--test-labels", "ty.csv",
    )  # fmt: skip
    held = optimize.evaluate_thresholds(S_TEST, Y_TEST, optimize.tune(S_TUNE, Y_TUNE))
    assert payload["results"][0]["test_f_macro"] == held.f


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["s.csv"], "s.csv: scores in a .csv file need their 0/1 labels in another file"),
        (["s.csv", "--labels", "missing.csv"], "missing.csv"),
        (["s.csv", "--labels", "short.csv"], "s.csv has 90 rows of scores but short.csv has 89"),
        (["tune.npz", "--labels", "y.csv"], "tune.npz holds labels, and y.csv gives labels too"),
        (["--labels", "y.csv"], "--labels y.csv goes with a scores FILE"),
        (["tune.npz", "--test-labels", "y.csv"], "--test-labels y.csv goes with --test"),
    ],
)
def test_labels_missing_or_misplaced(
    capsys: pytest.CaptureFixture[str], argv: list[str], expected: str
) -> None:
    write(frame(S_TUNE, NAMES), "s.csv")
    write(frame(Y_TUNE, NAMES), "y.csv")
    write(frame(Y_TUNE[1:], NAMES), "short.csv")
    np.savez("tune.npz", scores=S_TUNE, labels=Y_TUNE)
    line = refused(capsys, "thresholds", *argv)
    assert expected in line


def test_ragged_rows_name_the_line(capsys: pytest.CaptureFixture[str]) -> None:
    text = frame(S_TUNE, NAMES).to_csv(index=False).splitlines()
    text[5] += ",0.5"
    Path("ragged.csv").write_text("\n".join(text) + "\n", encoding="utf-8")
    write(frame(Y_TUNE, NAMES), "y.csv")
    line = refused(capsys, "thresholds", "ragged.csv", "--labels", "y.csv")
    assert line == "fmacro thresholds: error: ragged.csv, line 6: 5 field(s), line 1 has 4"


def test_nan_scores_name_the_file_and_line(capsys: pytest.CaptureFixture[str]) -> None:
    df = frame(S_TUNE, NAMES)
    df.iloc[6, 2] = np.nan  # pandas writes an empty field: line 8 (header, then rows 0..6)
    write(df, "nan.csv")
    write(frame(Y_TUNE, NAMES), "y.csv")
    line = refused(capsys, "thresholds", "nan.csv", "--labels", "y.csv")
    assert line.startswith("fmacro thresholds: error: nan.csv, line 8: column 3 ('ünïcödé') is")
    assert "missing score" in line
    write(df, "nan.parquet")
    line = refused(capsys, "thresholds", "nan.parquet", "--labels", "y.csv")
    assert line.startswith("fmacro thresholds: error: nan.parquet, row 7: column 3 ('ünïcödé')")
    assert "NaN" in line
    optimize.tune(S_TUNE[:, :2], Y_TUNE[:, :2]).save("t.json")
    Path("text.csv").write_text("a,b\n0.5,high\n", encoding="utf-8")
    line = refused(capsys, "apply", "t.json", "text.csv", "-o", "p.csv")
    assert "text.csv, line 2: column 2 ('b') holds 'high', not a number" in line


def test_labels_other_than_0_1_name_the_line(capsys: pytest.CaptureFixture[str]) -> None:
    write(frame(S_TUNE, NAMES), "s.csv")
    bad = Y_TUNE.copy()
    bad[3, 1] = 2
    write(frame(bad, NAMES), "y.csv")
    line = refused(capsys, "thresholds", "s.csv", "--labels", "y.csv")
    assert line.startswith("fmacro thresholds: error: y.csv, line 5: field 2 is '2'")
    write(frame(bad, NAMES), "y.parquet")
    line = refused(capsys, "thresholds", "s.csv", "--labels", "y.parquet")
    assert "y.parquet, row 4: column 2 ('say \"hi\"') is 2.0; labels must be 0 or 1" in line


def test_parquet_without_pyarrow_is_one_clear_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    s, y = write_pair(S_TUNE, Y_TUNE, "tune", "parquet")
    read_parquet = pd.read_parquet

    def no_engine(*args: Any, **kwargs: Any) -> None:
        raise ImportError("Unable to find a usable engine; tried using: 'pyarrow', 'fastparquet'")

    monkeypatch.setattr(pd, "read_parquet", no_engine)
    line = refused(capsys, "thresholds", s, "--labels", y)
    assert line == (
        f"fmacro thresholds: error: {s}: reading parquet needs pandas with pyarrow: "
        "pip install pandas pyarrow"
    )
    optimize.tune(S_TUNE, Y_TUNE).save("t.json")
    Path("junk.parquet").write_bytes(b"not parquet")
    monkeypatch.setattr(pd, "read_parquet", read_parquet)
    line = refused(capsys, "apply", "t.json", "junk.parquet", "-o", "p.npy")
    assert line.startswith("fmacro apply: error: junk.parquet: not a readable parquet file")


# --------------------------------------------------------------------------- --save


@pytest.mark.parametrize(
    ("save", "expected"),
    [
        ("nowhere/thr.json", "nowhere/thr.json: the folder nowhere does not exist (--save)"),
        ("folder.json", "folder.json: is a directory; --save needs a file name"),
        ("./y.npy", "./y.npy: --save names the input file y.npy"),
        ("thr.txt", "thr.txt: save thresholds as .json or .npy, got '.txt'"),
    ],
)
def test_bad_save_paths_are_refused_before_the_search(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    save: str,
    expected: str,
) -> None:
    write(frame(S_TUNE, NAMES), "s.csv")
    np.save("y.npy", Y_TUNE)
    Path("folder.json").mkdir()

    def no_search(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the search ran")

    monkeypatch.setattr(thresholds_cli, "load_problem", no_search)
    line = refused(capsys, "thresholds", "s.csv", "--labels", "y.npy", "--save", save)
    assert line == f"fmacro thresholds: error: {expected}" or line.startswith(
        f"fmacro thresholds: error: {expected},"
    )


def test_unwritable_save_path_is_refused(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Tests may run as root, who may write anywhere: the permission check is os.access.
    write(frame(S_TUNE, NAMES), "s.csv")
    write(frame(Y_TUNE, NAMES), "y.csv")
    asked: list[str] = []

    def denied(path: Any, mode: int) -> bool:
        asked.append(str(path))
        return False

    monkeypatch.setattr(thresholds_cli.os, "access", denied)
    line = refused(capsys, "thresholds", "s.csv", "--labels", "y.csv", "--save", "t.json")
    assert line == "fmacro thresholds: error: t.json: --save cannot write there (permission denied)"
    assert asked == ["."]  # t.json does not exist: its folder is asked


# --------------------------------------------------------------------------- progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("cached", "min_elements", "says_compiling"),
    [(True, 0, False), (False, 0, True), (False, thresholds_cli.COMPILE_MIN_ELEMENTS, False)],
)
def test_progress_advances_per_phase_and_says_when_compiling(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    cached: bool,
    min_elements: int,
    says_compiling: bool,
) -> None:
    """The compile note shows on a first run (empty cache) large enough to compile: with
    90 x 4 scores the dispatch interprets every kernel, so the default says nothing."""
    s, y = write_pair(S_TUNE, Y_TUNE, "tune", "csv")
    ts, ty = write_pair(S_TEST, Y_TEST, "test", "csv")
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr(thresholds_cli, "kernels_cached", lambda: cached)
    monkeypatch.setattr(thresholds_cli, "COMPILE_MIN_ELEMENTS", min_elements)
    argv = ["thresholds", s, "--labels", y, "--test", ts, "--test-labels", ty]
    methods = ["--method", "tune", "--method", "per_class"]
    assert main([*argv, *methods]) == 0
    frames = [f.strip() for f in terminal.getvalue().split("\r") if f.strip()]
    # 1 load + 2 methods + 1 test load + 2 held-out evaluations = 6 steps
    counts = [f.split("] ")[1].split()[0] for f in frames]
    assert counts[0] == "0/6" and counts[-1] == "6/6"
    assert counts == sorted(counts, key=lambda c: int(c.split("/")[0]))
    notes = " | ".join(frames)
    # each phase is drawn as it starts, with the steps done before it
    for drawn in (
        "0/6   0%",
        "load tune_scores.csv",
        "1/6  17%  eta 0:00  search: tune",
        "2/6  33%  eta 0:00  search: per_class",
        "3/6  50%  eta 0:00  --test: load test_scores.csv",
        "4/6  67%  eta 0:00  --test: tune",
        "5/6  83%  eta 0:00  --test: per_class",
    ):
        assert drawn in notes
    compiling = "; first run: compiling kernels (cached afterwards)"
    assert (f"search: tune{compiling}" in notes) is says_compiling
    assert compiling not in notes.split("--test")[1]  # the note goes with the searches


def test_kernels_cached_reads_numbas_cache(tmp_path: Path) -> None:
    """An empty cache: False; after the cut-table kernel compiled into it: True."""
    code = (
        "import numpy as np\n"
        "from fmacro.cli.thresholds import kernels_cached\n"
        "from fmacro.optimize.search.cut_tables import sorted_cuts\n"
        "from fmacro.validation.dispatch import forced\n"
        "print(kernels_cached())\n"
        "z = np.zeros(3, np.int64)\n"
        "with forced('compiled'):\n"
        "    sorted_cuts(np.array([1.0, 2.0]), np.array([2.0]), z, z.copy(), np.zeros(3))\n"
        "print(kernels_cached())\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["False", "True"]


@pytest.mark.parametrize("m", [2, 4])
def test_pandas_frames_without_column_names(capsys: pytest.CaptureFixture[str], m: int) -> None:
    """``pd.DataFrame(scores).to_csv(index=False)`` writes the line 0,1,...: a header."""
    pd.DataFrame(S_TUNE[:, :m]).to_csv("s.csv", index=False)
    pd.DataFrame(Y_TUNE[:, :m]).to_csv("y.csv", index=False)
    assert Path("y.csv").read_text().startswith(",".join(map(str, range(m))) + "\n")
    read = read_scores("s.csv", "y.csv")
    np.testing.assert_array_equal(read.scores, S_TUNE[:, :m])
    np.testing.assert_array_equal(read.labels, Y_TUNE[:, :m])
    assert read.classes == tuple(str(j) for j in range(m))
    # a file of integer scores whose first row is 0,1 keeps that row
    Path("ints.csv").write_text("0,1\n1,0\n", encoding="utf-8")
    Path("int_labels.csv").write_text("0,1\n1,0\n", encoding="utf-8")
    read = read_scores("ints.csv", "int_labels.csv")
    np.testing.assert_array_equal(read.scores, [[0, 1], [1, 0]])
    assert read.classes is None


def test_compile_threshold_is_below_every_measured_break_even() -> None:
    """No kernel of benchmarks/results_startup.md compiles below COMPILE_MIN_ELEMENTS."""
    table = (Path(__file__).parents[1] / "benchmarks" / "results_startup.md").read_text()
    rows = [line.split("|") for line in table.splitlines() if line.startswith("| optimize.")]
    break_even = [int(r[5].strip().replace(",", "")) for r in rows if r[5].strip() != "-"]
    assert len(break_even) > 10
    assert thresholds_cli.COMPILE_MIN_ELEMENTS <= min(break_even) == 93_325


def test_a_repeated_class_name_is_refused_naming_the_file(
    capsys: pytest.CaptureFixture[str],
) -> None:
    write(frame(S_TUNE, ["a", "b", "a", "c"]), "s.csv")
    write(frame(Y_TUNE, NAMES), "y.csv")
    line = refused(capsys, "thresholds", "s.csv", "--labels", "y.csv")
    assert line.startswith("fmacro thresholds: error: s.csv (header) names a class more than once")
    np.savez("s.npz", scores=S_TUNE, labels=Y_TUNE, classes=np.asarray(["a", "b", "a", "c"]))
    line = refused(capsys, "thresholds", "s.npz")
    assert line.startswith("fmacro thresholds: error: s.npz[classes] names a class more than once")
