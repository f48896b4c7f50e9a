"""Issue 26: the command line and the files fmacro reads and writes.

Indicator CSVs are paired by class name, fmacro's own CSV headers are read back as headers
whatever the names, labels copied or read are 0/1, huge integers are refused, outputs never
overwrite inputs, every CSV goes through the csv module, and every message about a file's
contents names the file. Right numbers are scikit-learn's on the labels the files mean.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.metrics import f1_score

from fmacro import optimize
from fmacro.cli import main
from fmacro.optimize import ThresholdResult
from fmacro.optimize.io import load_scores_npz, read_ranked_lists, read_rule, save_scores_npz
from fmacro.validation.io import read_label_files, read_label_pair, read_table
from fmacro.validation.names import names_from_json, same_names

RNG = np.random.default_rng(26)
Y = (RNG.random((40, 3)) < 0.4).astype(np.uint8)
Y[0] = 1
S = np.round(Y * 0.35 + RNG.random((40, 3)), 3)
# Predictions right nine times in ten, so pairing the wrong columns shows.
P = np.where(RNG.random((40, 3)) < 0.9, Y, 1 - Y).astype(np.uint8)


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run a command that must exit 2 with one line on stderr; return that line."""
    code, _, err = run(capsys, *argv)
    assert code == 2, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def option_refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """An option argparse refuses: exit 2, its usage and one error line, no traceback."""
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    _, err = capsys.readouterr()
    assert exc.value.code == 2
    assert "Traceback" not in err
    return err.strip().splitlines()[-1]


def evaluate_json(capsys: pytest.CaptureFixture[str], *files: str) -> dict[str, Any]:
    code, out, err = run(capsys, "evaluate", "--json", *files)
    assert code == 0, err
    payload: dict[str, Any] = json.loads(out)
    return payload


def csv_of(matrix: np.ndarray, header: list[str] | None = None) -> str:
    rows = [",".join(header)] if header is not None else []
    rows += [",".join(str(v) for v in row) for row in matrix.tolist()]
    return "\n".join(rows) + "\n"


def macro_f(y: np.ndarray, p: np.ndarray) -> float:
    return float(f1_score(y, p, average="macro", zero_division=0))


# ----------------------------------------------------------------- defect 1: pair by name


def test_indicator_csvs_with_headers_are_paired_by_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    order = [2, 0, 1]  # p.csv lists the same classes as c, a, b
    Path("e.csv").write_text(csv_of(Y, ["a", "b", "c"]))
    Path("p.csv").write_text(csv_of(P[:, order], ["c", "a", "b"]))
    payload = evaluate_json(capsys, "e.csv", "p.csv")
    assert payload["classes"] == ["a", "b", "c"]
    assert payload["averages"]["macro"]["f"] == pytest.approx(macro_f(Y, P))
    for j, row in enumerate(payload["per_class"]):
        assert row["f"] == pytest.approx(f1_score(Y[:, j], P[:, j], zero_division=0))
    # The position pairing the defect made gives another number.
    assert macro_f(Y, P) - macro_f(Y, P[:, order]) > 0.3
    # The library reader does the same; a new array, in expected's order.
    e, p = read_label_files("e.csv", "p.csv")
    np.testing.assert_array_equal(e, Y)
    np.testing.assert_array_equal(p, P)


def test_pandas_written_indicator_csvs_are_paired_by_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pd.DataFrame(Y, columns=["cat", "dog", "bird"]).to_csv("e.csv", index=False)
    pd.DataFrame(P[:, [1, 2, 0]], columns=["dog", "bird", "cat"]).to_csv("p.csv")  # + index
    payload = evaluate_json(capsys, "e.csv", "p.csv")
    assert payload["classes"] == ["cat", "dog", "bird"]
    assert payload["averages"]["macro"]["f"] == pytest.approx(macro_f(Y, P))
    assert payload["n_samples"] == len(Y)


def test_indicator_csvs_naming_different_classes_are_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    Path("e.csv").write_text(csv_of(Y, ["a", "b", "c"]))
    Path("p.csv").write_text(csv_of(P, ["a", "b", "d"]))
    line = refused(capsys, "evaluate", "e.csv", "p.csv")
    assert "e.csv and p.csv name different classes" in line
    assert "only in e.csv: 'c'" in line and "only in p.csv: 'd'" in line
    with pytest.raises(ValueError, match="name different classes"):
        read_label_files("e.csv", "p.csv")
    Path("twice.csv").write_text(csv_of(P, ["a", "a", "b"]))
    assert "twice.csv: the class 'a' is named twice" in refused(
        capsys, "evaluate", "e.csv", "twice.csv"
    )


def test_one_header_pairs_by_position(capsys: pytest.CaptureFixture[str]) -> None:
    Path("e.csv").write_text(csv_of(Y, ["c", "a", "b"]))
    np.save("p.npy", P)
    Path("p.csv").write_text(csv_of(P))
    for other in ("p.npy", "p.csv"):
        payload = evaluate_json(capsys, "e.csv", other)
        assert payload["classes"] == ["c", "a", "b"]  # the named file's names, its order
        assert payload["averages"]["macro"]["f"] == pytest.approx(macro_f(Y, P))
    np.save("narrow.npy", P[:, :2])
    line = refused(capsys, "evaluate", "e.csv", "narrow.npy")
    assert "e.csv has 3 class columns but narrow.npy has 2" in line


# ----------------------------------------------------------------- defect 2: fmacro's header


def _saved(classes: list[Any] | None, path: str = "thr.json") -> ThresholdResult:
    result = optimize.per_class(S, Y)
    if classes is not None:
        result = result.with_classes(classes)
    result.save(path)
    return result


def test_numeric_class_names_are_read_back_as_a_header(
    capsys: pytest.CaptureFixture[str],
) -> None:
    result = _saved([0, 1, 2])
    np.savez("test.npz", scores=S, labels=Y)
    code, _, err = run(capsys, "apply", "thr.json", "test.npz", "-o", "pred.csv")
    assert code == 0, err
    assert Path("pred.csv").read_text().splitlines()[0] == '"0","1","2"'
    want = result.apply(S).astype(np.uint8)
    payload = evaluate_json(capsys, "test.npz", "pred.csv")
    assert payload["n_samples"] == len(Y)  # not one object too many
    assert payload["classes"] == ["0", "1", "2"]
    assert payload["averages"]["macro"]["f"] == pytest.approx(macro_f(Y, want))
    frame = pd.read_csv("pred.csv")
    assert list(frame.columns) == ["0", "1", "2"]
    np.testing.assert_array_equal(frame.to_numpy(), want)
    table = read_table("pred.csv")
    assert table.rows[0] == ("0", "1", "2") and len(table.rows) == len(Y) + 1


def test_hand_made_headers_are_still_recognised(capsys: pytest.CaptureFixture[str]) -> None:
    import csv

    # pandas with quoting=QUOTE_NONNUMERIC: quoted names over unquoted numbers.
    pd.DataFrame(Y, columns=["a", "b", "c"]).to_csv(
        "e.csv", index=False, quoting=csv.QUOTE_NONNUMERIC
    )
    Path("p.csv").write_text(csv_of(P, ["a", "b", "c"]))  # unquoted text header
    payload = evaluate_json(capsys, "e.csv", "p.csv")
    assert payload["n_samples"] == len(Y)
    assert payload["averages"]["macro"]["f"] == pytest.approx(macro_f(Y, P))
    # A quoted first label over text labels is a label, not a header.
    Path("l1.csv").write_text('"a,b"\nc\nc\n')
    Path("l2.csv").write_text("c\nc\nc\n")
    assert evaluate_json(capsys, "l1.csv", "l2.csv")["n_samples"] == 3


# ----------------------------------------------------------------- defect 18: csv module


NAMES = ["x,y", 'say "hi"', "two\nlines", "café ☕", "007", "1.5", " pad ", ""]


def test_any_class_name_round_trips_through_the_csv_header(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import csv

    m = len(NAMES)
    y = (RNG.random((30, m)) < 0.4).astype(np.uint8)
    y[0] = 1
    s = y * 0.3 + RNG.random((30, m))
    result = optimize.per_class(s, y).with_classes(NAMES)
    result.save("thr.json")
    np.savez("test.npz", scores=s, labels=y)
    for out in ("pred.csv", "pred.npz"):
        code, _, err = run(capsys, "apply", "thr.json", "test.npz", "-o", out, "--quiet")
        assert code == 0, err
    want = result.apply(s).astype(np.uint8)
    frame = pd.read_csv("pred.csv", keep_default_na=False)
    assert list(frame.columns) == [n if n else "Unnamed: 7" for n in NAMES]
    np.testing.assert_array_equal(frame.to_numpy(), want)
    table = read_table("pred.csv")
    assert list(table.rows[0]) == NAMES
    assert table.lines[1] == 3  # the header spans two lines: one name holds a line break
    # fmacro pairs the CSV with the npz (which also names the columns) by name, and a
    # pandas-written copy in another column order too.
    pair = read_label_pair("pred.npz", "pred.csv")
    np.testing.assert_array_equal(pair.predicted, want)
    assert pair.classes is not None and list(pair.classes) == NAMES
    reordered = frame[frame.columns[::-1]]
    reordered.columns = NAMES[::-1]
    # Quoted names (pandas' QUOTE_NONNUMERIC): ' pad ' keeps its spaces, "" is a name.
    reordered.to_csv("pandas.csv", index=False, quoting=csv.QUOTE_NONNUMERIC)
    payload = evaluate_json(capsys, "pred.csv", "pandas.csv")
    assert payload["averages"]["micro"]["f"] == 1.0
    payload = evaluate_json(capsys, "test.npz", "pred.csv")
    assert payload["averages"]["macro"]["f"] == pytest.approx(macro_f(y, want))


def test_npz_class_names_keep_their_kind(capsys: pytest.CaptureFixture[str]) -> None:
    result = _saved(["a", "b", "c"])
    np.savez("test.npz", scores=S, labels=Y)
    code, _, err = run(capsys, "apply", "thr.json", "test.npz", "-o", "pred.npz", "--quiet")
    assert code == 0, err
    with np.load("pred.npz") as z:
        assert z["classes"].dtype.kind == "U" and z["classes"].ndim == 0
        names = names_from_json(json.loads(str(z["classes"])))
        assert z["labels"].dtype == np.uint8
        np.testing.assert_array_equal(z["labels"], Y)
    assert names is not None and result.classes is not None
    assert same_names(names, tuple(result.classes))
    # Hand-made npz files with typed names: 1 and "1" are different names.
    np.savez("ints.npz", labels=Y, predicted=P, classes=np.asarray(json.dumps([1, 2, 3])))
    np.savez("strs.npz", labels=Y, predicted=P, classes=np.asarray(json.dumps(["1", "2", "3"])))
    line = refused(capsys, "evaluate", "ints.npz", "strs.npz")
    assert "name different classes" in line and "only in ints.npz: 1, 2, 3" in line
    # Against a CSV header (text) the same names match as text.
    Path("p.csv").write_text(csv_of(P[:, [2, 1, 0]], ['"3"', '"2"', '"1"']))
    payload = evaluate_json(capsys, "ints.npz", "p.csv")
    assert payload["averages"]["macro"]["f"] == pytest.approx(macro_f(Y, P))


def test_write_predictions_keeps_kinds_in_npz_and_text_in_csv(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from fmacro.cli.apply import write_predictions

    names = [1, math.nan, "b"]
    before = P.copy()
    write_predictions("p.npz", P.astype(bool), names, Y)
    write_predictions("p.csv", P.astype(bool), names)
    np.testing.assert_array_equal(P, before)
    with np.load("p.npz") as z:
        assert json.loads(str(z["classes"])) == [1, None, "b"]
        loaded = names_from_json(json.loads(str(z["classes"])))
    assert loaded is not None and same_names(loaded, (1, math.nan, "b"))
    assert Path("p.csv").read_text().splitlines()[0] == '"1","","b"'
    assert list(pd.read_csv("p.csv").columns) == ["1", "Unnamed: 1", "b"]
    # The npz (kinds) and the CSV (text) name the same classes: paired by their text.
    pair = read_label_pair("p.npz", "p.csv")
    np.testing.assert_array_equal(pair.predicted, P)
    assert pair.classes is not None and same_names(pair.classes, (1, math.nan, "b"))
    payload = evaluate_json(capsys, "p.npz")
    assert payload["classes"] == ["1", "nan", "b"]
    assert payload["averages"]["macro"]["f"] == pytest.approx(macro_f(Y, P))
    with pytest.raises(ValueError, match="2 class names for 3 prediction columns"):
        write_predictions("q.csv", P.astype(bool), ["a", "b"])


def test_apply_checks_the_names_of_score_columns(capsys: pytest.CaptureFixture[str]) -> None:
    result = _saved(["a", "b", "c"])
    np.savez("same.npz", scores=S, labels=Y, classes=np.asarray(json.dumps(["a", "b", "c"])))
    code, _, err = run(capsys, "apply", "thr.json", "same.npz", "-o", "pred.npz", "--quiet")
    assert code == 0, err
    with np.load("pred.npz") as z:
        np.testing.assert_array_equal(z["predicted"], result.apply(S))
    np.savez("other.npz", scores=S, labels=Y, classes=np.asarray(json.dumps(["c", "a", "b"])))
    line = refused(capsys, "apply", "thr.json", "other.npz", "-o", "pred.npz")
    assert "other.npz[classes] names the score columns 'c', 'a', 'b'" in line


def test_output_suffix_is_kept_as_given(capsys: pytest.CaptureFixture[str]) -> None:
    _saved(None)
    np.savez("test.npz", scores=S, labels=Y)
    for out in ("pred.NPZ", "pred.NPY"):
        code, _, err = run(capsys, "apply", "thr.json", "test.npz", "-o", out, "--quiet")
        assert code == 0, err
        assert Path(out).exists() and not Path(out + out[-4:].lower()).exists()
    save_scores_npz("r.NPZ", S, Y)
    assert not Path("r.NPZ.npz").exists()
    scores, labels = load_scores_npz("r.NPZ")
    np.testing.assert_array_equal(scores, S)
    np.testing.assert_array_equal(labels, Y)


# ----------------------------------------------------------------- defect 7: 0/1 labels


@pytest.mark.parametrize("bad", [2.0, 0.5, math.nan])
def test_labels_other_than_0_1_are_refused(capsys: pytest.CaptureFixture[str], bad: float) -> None:
    _saved(None)
    labels = Y.astype(np.float64)
    labels[3, 1] = bad
    np.savez("s.npz", scores=S, labels=labels)
    line = refused(capsys, "apply", "thr.json", "s.npz", "-o", "pred.npz")
    assert line.startswith("fmacro apply: error: s.npz[labels]: labels must be 0 or 1")
    assert not Path("pred.npz").exists()
    assert "s.npz" in refused(capsys, "thresholds", "s.npz", "--method", "per_class", "--quiet")
    with pytest.raises(ValueError, match=r"s\.npz\[labels\]: labels must be 0 or 1"):
        load_scores_npz("s.npz")
    # evaluate reads labels from any npz: the same refusal, the file named.
    np.savez("pred.npz", predicted=Y, labels=labels)
    line = refused(capsys, "evaluate", "pred.npz")
    assert "pred.npz[labels]" in line and "row 4, column 2" in line
    line = refused(capsys, "evaluate", "s.npz", "pred.npz")
    assert "s.npz[labels]" in line


def test_sparse_labels_and_shapes_are_checked() -> None:
    labels = sp.csr_matrix(Y * 2)
    save_scores_npz("sparse.npz", sp.csr_matrix(S), labels)
    with pytest.raises(ValueError, match=r"sparse\.npz\[labels_data\]: labels must be 0 or 1"):
        load_scores_npz("sparse.npz")
    np.savez("wide.npz", scores=S, labels=Y[:, :2])
    with pytest.raises(ValueError, match=r"wide\.npz: labels of shape \(40, 2\) do not match"):
        load_scores_npz("wide.npz")
    before = Y.copy()
    save_scores_npz("ok.npz", S, Y)
    _, labels_ok = load_scores_npz("ok.npz")
    np.testing.assert_array_equal(labels_ok, Y)
    np.testing.assert_array_equal(Y, before)


def test_messages_name_the_file(capsys: pytest.CaptureFixture[str]) -> None:
    np.save("nan.npy", np.array([1.0, np.nan, 0.0]))
    Path("e.csv").write_text("1\n0\n0\n")
    line = refused(capsys, "evaluate", "nan.npy", "e.csv")
    assert "nan.npy: expected has a missing label (NaN) at position 1" in line
    line = refused(capsys, "evaluate", "e.csv", "nan.npy")
    assert "nan.npy: predicted has a missing label (NaN) at position 1" in line
    np.savez("pairs.npz", expected=np.array([1.0, 0.0, np.nan]), predicted=np.array([1, 0, 1]))
    assert "pairs.npz[expected]: expected has a missing label" in refused(
        capsys, "evaluate", "pairs.npz"
    )
    np.save("ints.npy", np.array([1, 0, 1]))
    Path("text.csv").write_text("1\n0\nx\n")
    line = refused(capsys, "evaluate", "ints.npy", "text.csv")
    assert line.startswith("fmacro evaluate: error: ints.npy vs text.csv: expected holds")


# ----------------------------------------------------------------- malformed thresholds


def _record() -> dict[str, Any]:
    record: dict[str, Any] = optimize.per_class(S, Y).to_dict()
    return record


MALFORMED: dict[str, Any] = {
    "rule is a number": lambda: {**_record(), "rule": 3},
    "thresholds is a number": lambda: {**_record(), "thresholds": 5},
    "top-level list": lambda: [_record()],
    "NaN thresholds": lambda: {**_record(), "thresholds": ["nan", "nan", "nan"]},
    "cuts are text": lambda: {**_record(), "cuts": "abc"},
    "not JSON": None,
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_thresholds_exit_2_naming_the_file(
    capsys: pytest.CaptureFixture[str], case: str
) -> None:
    make = MALFORMED[case]
    text = "{not json" if make is None else json.dumps(make())
    Path("thr.json").write_text(text)
    np.savez("test.npz", scores=S, labels=Y)
    line = refused(capsys, "apply", "thr.json", "test.npz", "-o", "pred.npz")
    assert line.startswith("fmacro apply: error: thr.json")
    with pytest.raises(ValueError, match=r"^thr\.json"):
        read_rule("thr.json")


def test_top_k_rule_on_scores_of_another_width(capsys: pytest.CaptureFixture[str]) -> None:
    optimize.top_k(S, Y).save("k.json")
    np.savez("wide.npz", scores=np.hstack([S, S]), labels=np.hstack([Y, Y]))
    line = refused(capsys, "apply", "k.json", "wide.npz", "-o", "pred.npz")
    assert "wide.npz" in line and "k.json" in line and "(n_samples, 3)" in line
    assert read_rule("k.json").n_columns == 3


# ----------------------------------------------------------------- defect 15: huge integers

BIG = str(2**70)


def test_huge_integers_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    Path("lists.txt").write_text("0 1 0 1\n1 1 1\n")
    Path("sizes.txt").write_text("0 2\n1 2\n")
    line = option_refused(
        capsys, "thresholds", "lists.txt", "--n-samples", BIG, "--support", "sizes.txt"
    )
    assert "--n-samples" in line and "too large (at most 2^63 - 1)" in line
    Path("big_sizes.txt").write_text(f"0 2\n1 {BIG}\n")
    line = refused(
        capsys, "thresholds", "lists.txt", "--n-samples", "5", "--support", "big_sizes.txt"
    )
    assert "big_sizes.txt, line 2: the class size" in line and "too large" in line
    Path("big_ids.txt").write_text(f"0 1 0\n{BIG} 1 1\n")
    line = refused(
        capsys, "thresholds", "big_ids.txt", "--n-samples", "5", "--support", "sizes.txt"
    )
    assert "big_ids.txt, line 2" in line and "too large" in line
    assert "--n-angles" in option_refused(capsys, "thresholds", "--n-angles", BIG)
    assert "--n" in option_refused(capsys, "fdelta", "--n", BIG)
    # The largest int64 is accepted and gives the right numbers: 2 of 2**63 - 1 objects.
    code, out, err = run(
        capsys,
        "thresholds",
        "lists.txt",
        "--n-samples",
        str(2**63 - 1),
        "--support",
        "sizes.txt",
        "--method",
        "exact",
        "--json",
        "--quiet",
    )
    assert code == 0, err
    (row,) = json.loads(out)["results"]
    # Class 0 ranks [1, 0, 1] (2 positives), class 1 [1, 1]: every pair of cuts, directly.
    best = 0.0
    for c0 in range(4):
        for c1 in range(3):
            p0 = sum([1, 0, 1][:c0]) / c0 if c0 else 0.0
            p1 = 1.0 if c1 else 0.0
            r0, r1 = sum([1, 0, 1][:c0]) / 2, c1 / 2
            mp, mr = (p0 + p1) / 2, (r0 + r1) / 2
            best = max(best, 2 * mp * mr / (mp + mr) if mp + mr else 0.0)
    assert row["f_macro"] == pytest.approx(best) == pytest.approx(10 / 11)


def test_library_refuses_huge_n_samples_and_sizes() -> None:
    Path("lists.txt").write_text("0 1 0 1\n")
    with pytest.raises(ValueError, match=r"n_samples \d+ is too large"):
        read_ranked_lists("lists.txt", n_samples=2**70, support={0: 2})
    with pytest.raises(ValueError, match=r"support\[0\] = \d+ is too large"):
        read_ranked_lists("lists.txt", n_samples=5, support={0: 2**70})
    with pytest.raises(TypeError, match=r"support\[0\] must be an integer"):
        read_ranked_lists("lists.txt", n_samples=5, support={0: 2.5})
    with pytest.raises(ValueError, match="too large"):
        read_ranked_lists("lists.txt", n_samples=5, support=np.array([2**64 - 1], np.uint64))
    points = read_ranked_lists("lists.txt", n_samples=5, support={0: 2.0})
    assert points.tp.tolist() == [0, 1, 1, 2, 2]  # cuts 0..3, then every object


# ----------------------------------------------------------------- defect 17: outputs


def test_output_may_not_be_an_input(capsys: pytest.CaptureFixture[str]) -> None:
    _saved(None)
    np.savez("s.npz", scores=S, labels=Y)
    before = Path("s.npz").read_bytes()
    line = refused(capsys, "apply", "thr.json", "s.npz", "-o", "s.npz")
    assert "s.npz: -o/--output names the input file s.npz" in line
    os.symlink("s.npz", "link.npz")
    os.link("s.npz", "hard.npz")
    for other in ("link.npz", "hard.npz", "./sub/../s.npz"):
        Path("sub").mkdir(exist_ok=True)
        assert "names the input file" in refused(capsys, "apply", "thr.json", "s.npz", "-o", other)
    assert Path("s.npz").read_bytes() == before
    np.save("thr.npy", optimize.per_class(S, Y).thresholds)
    assert "names the input file thr.npy" in refused(
        capsys, "apply", "thr.npy", "s.npz", "-o", "thr.npy"
    )
    Path("dir.npz").mkdir()
    assert "is a directory" in refused(capsys, "apply", "thr.json", "s.npz", "-o", "dir.npz")
    assert "does not exist" in refused(capsys, "apply", "thr.json", "s.npz", "-o", "nowhere/p.npz")


def test_thresholds_save_and_fdelta_output_are_checked_first(
    capsys: pytest.CaptureFixture[str],
) -> None:
    Path("lists.json").write_text("0 1 0 1\n")
    Path("sizes.txt").write_text("0 2\n")
    before = Path("lists.json").read_text()
    line = refused(
        capsys,
        "thresholds",
        "lists.json",
        "--n-samples",
        "5",
        "--support",
        "sizes.txt",
        "--save",
        "lists.json",
        "--quiet",
    )
    assert "lists.json: --save names the input file lists.json" in line
    assert Path("lists.json").read_text() == before
    np.savez("s.npz", scores=S, labels=Y)
    assert "save thresholds as .json or .npy" in refused(
        capsys, "thresholds", "s.npz", "--save", "t.txt", "--quiet"
    )
    assert "--plot needs a folder" in refused(
        capsys, "thresholds", "s.npz", "--plot", "s.npz", "--quiet"
    )
    Path("out").mkdir()
    code, _, err = run(capsys, "fdelta", "-o", "out", "--quiet")
    assert code == 2 and "out: is a directory" in err and len(err.strip().splitlines()) == 1


# ----------------------------------------------------------------- the csv reader itself


def test_quoted_fields_span_lines_and_an_open_quote_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    Path("e.csv").write_text('"a\n\nb",c\n1,0\n0,1\n')
    table = read_table("e.csv")
    assert table.rows == (("a\n\nb", "c"), ("1", "0"), ("0", "1"))
    assert table.lines == (1, 4, 5) and table.quoted == (1, 0, 0)
    Path("open.csv").write_text('1\n"0\n1\n')
    assert "open.csv, line 2: a quoted field opened on this line is never closed" in refused(
        capsys, "evaluate", "open.csv", "open.csv"
    )
