"""The bad-input corpus of the command line (issue 10): odd files get the right numbers or
exit 2 with one line naming the file (and line), never a traceback.

Every file is made here. Right numbers are scikit-learn's on the labels the file means.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, f1_score

CaseFiles = dict[str, bytes | np.ndarray]


def fmacro(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fmacro", *argv], cwd=cwd, capture_output=True, text=True
    )


def write(tmp: Path, files: CaseFiles) -> None:
    for name, content in files.items():
        if isinstance(content, np.ndarray):
            np.save(tmp / name, content)
        else:
            (tmp / name).write_bytes(content)


def lines(*values: Any, end: str = "\n", bom: bool = False) -> bytes:
    text = end.join(str(v) for v in values) + end
    return (b"\xef\xbb\xbf" if bom else b"") + text.encode()


# ----------------------------------------------------------------- right numbers

# (files, argv, true labels, predicted labels)
GOOD: dict[str, tuple[CaseFiles, list[str], list[Any], list[Any]]] = {
    # Item 1: Excel's "CSV UTF-8" (a BOM) kept the first row as a header / glued it to a label.
    "bom numbers": (
        {"e.csv": lines(1, 0, 1, bom=True), "p.csv": lines(1, 0, 0)},
        ["e.csv", "p.csv"],
        [1, 0, 1],
        [1, 0, 0],
    ),
    "bom strings": (
        {"e.csv": lines("cat", "dog", "cat", bom=True), "p.csv": lines("cat", "cat", "cat")},
        ["e.csv", "p.csv"],
        ["cat", "dog", "cat"],
        ["cat", "cat", "cat"],
    ),
    # Item 2: headers, pandas index columns and pair files.
    "series header": (
        {
            "e.csv": lines("y_true", "cat", "dog", "cat"),
            "p.csv": lines("y_pred", "cat", "cat", "dog"),
        },
        ["e.csv", "p.csv"],
        ["cat", "dog", "cat"],
        ["cat", "cat", "dog"],
    ),
    "same unknown header word, --header": (
        {"e.csv": lines("animal", "cat", "dog"), "p.csv": lines("animal", "dog", "dog")},
        ["e.csv", "p.csv", "--header"],
        ["cat", "dog"],
        ["dog", "dog"],
    ),
    "pandas to_csv default (index + header)": (
        {
            "e.csv": lines(",0", "0,cat", "1,dog", "2,cat"),
            "p.csv": lines(",0", "0,cat", "1,cat", "2,cat"),
        },
        ["e.csv", "p.csv"],
        ["cat", "dog", "cat"],
        ["cat", "cat", "cat"],
    ),
    "pair file with index": (
        {"pairs.csv": lines(",y_true,y_pred", "0,a,a", "1,b,a", "2,b,b", "3,c,c")},
        ["pairs.csv"],
        ["a", "b", "b", "c"],
        ["a", "a", "b", "c"],
    ),
    "pair file named the other way round": (
        {"pairs.csv": lines("y_pred,y_true", "a,a", "a,b", "b,b", "b,c")},
        ["pairs.csv"],
        ["a", "b", "b", "c"],
        ["a", "a", "b", "b"],
    ),
    "numeric header over numbers": (
        {"e.csv": lines("label", 2, 1, 2), "p.csv": lines(2, 2, 2)},
        ["e.csv", "p.csv"],
        [2, 1, 2],
        [2, 2, 2],
    ),
    "--header forces pandas' unnamed '0' header": (
        {"e.csv": lines(0, 1, 0, 1), "p.csv": lines(0, 1, 1, 1)},
        ["e.csv", "p.csv", "--header"],
        [1, 0, 1],
        [1, 1, 1],
    ),
    "--no-header keeps a lone first label": (
        {"e.csv": lines("cat", "dog"), "p.csv": lines("bird", "dog")},
        ["e.csv", "p.csv", "--no-header"],
        ["cat", "dog"],
        ["bird", "dog"],
    ),
    # Item 4: integers are exact, never through float64.
    "ids above 2^53": (
        {
            "e.csv": lines(2**53 + 1, 2**53, 2**53 + 2),
            "p.csv": lines(2**53, 2**53 + 1, 2**53 + 2),
        },
        ["e.csv", "p.csv"],
        [2**53 + 1, 2**53, 2**53 + 2],
        [2**53, 2**53 + 1, 2**53 + 2],
    ),
    "20-digit ids": (
        {
            "e.csv": lines(10**19 + 1, 10**19 + 2, 10**19 + 3),
            "p.csv": lines(10**19 + 1, 10**19 + 3, 10**19 + 3),
        },
        ["e.csv", "p.csv"],
        [10**19 + 1, 10**19 + 2, 10**19 + 3],
        [10**19 + 1, 10**19 + 3, 10**19 + 3],
    ),
    # Item 5: one text label makes both files text: '1' and 1 are one label.
    "one text label": (
        {"e.csv": lines(1, 0, 1, "x"), "p.csv": lines(1, 0, 1, 1)},
        ["e.csv", "p.csv"],
        ["1", "0", "1", "x"],
        ["1", "0", "1", "1"],
    ),
    "crlf and tsv": (
        {"e.tsv": lines("a", "b", "a", end="\r\n"), "p.tsv": lines("a", "a", "a", end="\r")},
        ["e.tsv", "p.tsv"],
        ["a", "b", "a"],
        ["a", "a", "a"],
    ),
    "utf-16 (Excel unicode text)": (
        {"e.txt": "é\nb\né\n".encode("utf-16"), "p.txt": lines("é", "é", "b")},
        ["e.txt", "p.txt"],
        ["é", "b", "é"],
        ["é", "é", "b"],
    ),
    "labels with spaces": (
        {
            "e.csv": lines("New York", "Paris", "New York"),
            "p.csv": lines("New York", "New York", "Paris"),
        },
        ["e.csv", "p.csv"],
        ["New York", "Paris", "New York"],
        ["New York", "New York", "Paris"],
    ),
    "npy int with csv numbers": (
        {"e.npy": np.array([3, 1, 3]), "p.csv": lines("3.0", 1, 1)},
        ["e.npy", "p.csv"],
        [3, 1, 3],
        [3, 1, 1],
    ),
    "npy (n, 1) column": (
        {"e.npy": np.array([[2], [1], [2]]), "p.npy": np.array([2, 2, 2])},
        ["e.npy", "p.npy"],
        [2, 1, 2],
        [2, 2, 2],
    ),
    "quoted labels with commas": (
        {"e.csv": lines('"a,b"', '"c"', '"a,b"'), "p.csv": lines('"a,b"', "c", "c")},
        ["e.csv", "p.csv"],
        ["a,b", "c", "a,b"],
        ["a,b", "c", "c"],
    ),
    "blank lines around the data": (
        {"e.csv": b"\n\n1\n0\n1\n\n\n", "p.csv": lines(1, 1, 1)},
        ["e.csv", "p.csv"],
        [1, 0, 1],
        [1, 1, 1],
    ),
}


@pytest.mark.parametrize("case", sorted(GOOD))
def test_odd_files_give_scikit_learns_numbers(tmp_path: Path, case: str) -> None:
    files, argv, y_true, y_pred = GOOD[case]
    write(tmp_path, files)
    run = fmacro(tmp_path, "evaluate", "--json", *argv)
    assert run.returncode == 0, run.stderr
    payload = json.loads(run.stdout)
    if payload["kind"] == "binary":  # labels 0/1, positive 1
        assert payload["per_class"][0]["f"] == pytest.approx(
            f1_score(y_true, y_pred, zero_division=0)
        )
        assert payload["per_class"][0]["tp"] + payload["measures"]["tn"] == round(
            accuracy_score(y_true, y_pred, normalize=False)
        )
        return
    assert payload["measures"]["accuracy"] == pytest.approx(accuracy_score(y_true, y_pred))
    assert payload["averages"]["macro"]["f"] == pytest.approx(
        f1_score(y_true, y_pred, average="macro", zero_division=0)
    )
    assert sorted(payload["classes"]) == sorted({str(v) for v in [*y_true, *y_pred]})


# Item 3: indicator matrices with other delimiters are matrices, not row patterns.
@pytest.mark.parametrize(
    ("name", "sep"), [("m.csv", ";"), ("m.txt", " "), ("m.txt", "\t"), ("m.txt", "  ")]
)
def test_indicator_matrix_delimiters(tmp_path: Path, name: str, sep: str) -> None:
    y = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0]])
    p = np.array([[1, 0, 0], [0, 1, 1], [1, 1, 0]])
    (tmp_path / f"e_{name}").write_text("".join(sep.join(map(str, r)) + "\n" for r in y))
    (tmp_path / f"p_{name}").write_text("".join(sep.join(map(str, r)) + "\n" for r in p))
    run = fmacro(tmp_path, "evaluate", "--json", f"e_{name}", f"p_{name}")
    assert run.returncode == 0, run.stderr
    payload = json.loads(run.stdout)
    assert payload["kind"] == "multilabel"
    assert payload["averages"]["micro"]["f"] == pytest.approx(f1_score(y, p, average="micro"))


def test_positive_for_string_labels_and_npz_pipeline(tmp_path: Path) -> None:
    (tmp_path / "e.csv").write_text("yes\nno\nyes\nyes\n")
    (tmp_path / "p.csv").write_text("yes\nyes\nno\nyes\n")
    run = fmacro(tmp_path, "evaluate", "--json", "e.csv", "p.csv", "--positive", "yes")
    assert run.returncode == 0, run.stderr
    payload = json.loads(run.stdout)
    want = f1_score(["yes", "no", "yes", "yes"], ["yes", "yes", "no", "yes"], pos_label="yes")
    assert payload["kind"] == "binary" and payload["per_class"][0]["f"] == pytest.approx(want)
    # 'fmacro apply -o pred.npz' then 'fmacro evaluate test.npz pred.npz' (documented pipeline).
    y = np.array([[1, 0], [0, 1], [1, 1]], dtype=np.uint8)
    pred = np.array([[1, 0], [1, 1], [0, 1]], dtype=np.uint8)
    np.savez(tmp_path / "test.npz", scores=np.zeros((3, 2)), labels=y)
    np.savez(tmp_path / "pred.npz", predicted=pred, labels=y != 0)
    for argv in (["test.npz", "pred.npz"], ["pred.npz"]):
        run = fmacro(tmp_path, "evaluate", "--json", *argv)
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout)["averages"]["micro"]["f"] == pytest.approx(
            f1_score(y, pred, average="micro")
        )


# ----------------------------------------------------------------- refusals

BAD: dict[str, tuple[CaseFiles, list[str], str]] = {
    "empty": (
        {"e.csv": b"", "p.csv": lines(1)},
        ["evaluate", "e.csv", "p.csv"],
        "e.csv: the file holds no labels",
    ),
    "only a header": (
        {"e.csv": lines("y_true", "1"), "p.csv": lines("y_pred")},
        ["evaluate", "e.csv", "p.csv"],
        "p.csv: the file holds a header and no labels",
    ),
    "non-utf-8": (
        {"e.csv": b"1\n0\n\xff\n", "p.csv": lines(1, 0, 1)},
        ["evaluate", "e.csv", "p.csv"],
        "e.csv, line 3: not UTF-8 text (byte 0xff)",
    ),
    "directory": ({"p.csv": lines(1)}, ["evaluate", ".", "p.csv"], ".: is a directory, not a file"),
    "missing": ({"p.csv": lines(1)}, ["evaluate", "nope.csv", "p.csv"], "nope.csv: no such file"),
    "ragged rows name the file line": (
        {"e.csv": b"\n\n1,0\n0,1\n1\n", "p.csv": lines("1,0", "0,1", "1,1")},
        ["evaluate", "e.csv", "p.csv"],
        "e.csv, line 5: 1 field(s), line 3 has 2",
    ),
    "blank line inside": (
        {"e.csv": b"a\n\nb\n", "p.csv": lines("a", "b", "b")},
        ["evaluate", "e.csv", "p.csv"],
        "e.csv, line 2: blank line inside the data",
    ),
    "nan label": (
        {"e.csv": lines("a", "nan", "a"), "p.csv": lines("a", "b", "a")},
        ["evaluate", "e.csv", "p.csv"],
        "e.csv, line 2: missing label ('nan')",
    ),
    "empty field": (
        {"pairs.csv": lines("y_true,y_pred", "a,", "b,b")},
        ["evaluate", "pairs.csv"],
        "pairs.csv, line 2: missing label ('')",
    ),
    "non-integral number": (
        {"e.csv": lines(1, "0.5"), "p.csv": lines(1, 1)},
        ["evaluate", "e.csv", "p.csv"],
        "e.csv, line 2: numeric labels must be integers",
    ),
    "lengths name the files": (
        {"e.csv": lines(1, 0, 1, 1), "p.csv": lines(1, 0)},
        ["evaluate", "e.csv", "p.csv"],
        "e.csv has 4 labels but p.csv has 2",
    ),
    "same unknown first word": (
        {"e.csv": lines("animal", "cat", "dog"), "p.csv": lines("animal", "dog", "dog")},
        ["evaluate", "e.csv", "p.csv"],
        "('animal', 'animal') is a header or a label seen once",
    ),
    "ambiguous first line": (
        {"e.csv": lines("cat", "dog"), "p.csv": lines("bird", "dog")},
        ["evaluate", "e.csv", "p.csv"],
        "pass --header or --no-header",
    ),
    # Item 6: a matrix is not binary labels; a (1, n) row is not a label vector.
    "binary on a matrix": (
        {"e.csv": lines("1,0,1", "0,1,0"), "p.csv": lines("1,0,0", "0,1,0")},
        ["evaluate", "e.csv", "p.csv", "--kind", "binary"],
        "e.csv: a 2 x 3 indicator matrix is multi-label data, not binary labels",
    ),
    "row npy": (
        {"e.npy": np.array([[1, 0, 1]]), "p.npy": np.array([[1, 0, 0]])},
        ["evaluate", "e.npy", "p.npy", "--kind", "multiclass"],
        "a (1, n) row is not a label vector",
    ),
    "matrix against a vector": (
        {"e.csv": lines("1,0,1", "0,1,0"), "p.csv": lines(1, 0)},
        ["evaluate", "e.csv", "p.csv"],
        "e.csv holds a 2 x 3 indicator matrix but p.csv one label per line",
    ),
    "multilabel on vectors": (
        {"e.csv": lines(1, 0), "p.csv": lines(1, 0)},
        ["evaluate", "e.csv", "p.csv", "--kind", "multilabel"],
        "--kind multilabel needs 0/1 indicator matrices; e.csv holds one label per line",
    ),
    # Item 5: typed array of numbers against text labels.
    "npy numbers vs text": (
        {"e.npy": np.array([1, 2]), "p.csv": lines("1", "two")},
        ["evaluate", "e.npy", "p.csv"],
        "expected holds number labels (such as 1) but predicted holds string labels",
    ),
    # Item 20 (CLI part): --positive never ignored; binary text labels point to --positive.
    "--positive on multiclass": (
        {"e.csv": lines(0, 1, 2), "p.csv": lines(0, 1, 1)},
        ["evaluate", "e.csv", "p.csv", "--positive", "2"],
        "--positive applies to binary data, but the files hold 3 labels",
    ),
    "--positive with --kind multiclass": (
        {"e.csv": lines(0, 1), "p.csv": lines(0, 1)},
        ["evaluate", "e.csv", "p.csv", "--positive", "1", "--kind", "multiclass"],
        "--positive applies to --kind binary only",
    ),
    "binary text labels": (
        {"e.csv": lines("yes", "no"), "p.csv": lines("no", "no")},
        ["evaluate", "e.csv", "p.csv", "--kind", "binary"],
        "set positive= (--positive in the command line)",
    ),
    # Item 14: .npy/.npz troubles.
    "empty npy": (
        {"e.npy": b"", "p.csv": lines(1)},
        ["evaluate", "e.npy", "p.csv"],
        "e.npy: empty .npy file",
    ),
    "npz renamed npy": (
        {"p.csv": lines(1)},
        ["evaluate", "z.npy", "p.csv"],
        "z.npy: a .npz archive, not a .npy array",
    ),
    "pickled npy": (
        {"p.csv": lines(1)},
        ["evaluate", "o.npy", "p.csv"],
        "o.npy: holds Python objects",
    ),
    "truncated npz": (
        {"p.csv": lines(1)},
        ["evaluate", "t.npz", "p.csv"],
        "t.npz: not a valid .npz file",
    ),
    "empty npz": (
        {"e.npz": b"", "p.csv": lines(1)},
        ["evaluate", "e.npz", "p.csv"],
        "e.npz: empty .npz file",
    ),
    "garbage npz": (
        {"g.npz": b"scores,labels\n0.5,1\n", "p.csv": lines(1)},
        ["evaluate", "g.npz", "p.csv"],
        "g.npz: not a .npz file (it starts with b'scores')",
    ),
    "truncated npy": (
        {"p.csv": lines(1, 0)},
        ["evaluate", "tr.npy", "p.csv"],
        "tr.npy: not a readable .npy array",
    ),
    # thresholds and apply readers.
    "ranked list not utf-8": (
        {"l.txt": b"0 1 0\n1 \xfe 1\n", "s.txt": lines("0 1", "1 1")},
        ["thresholds", "l.txt", "--n-samples", "3", "--support", "s.txt"],
        "l.txt, line 2: not UTF-8 text",
    ),
    "support not utf-8": (
        {"l.txt": lines("0 1 0"), "s.txt": b"0 \xe9\n"},
        ["thresholds", "l.txt", "--n-samples", "3", "--support", "s.txt"],
        "s.txt, line 1: not UTF-8 text",
    ),
    "support is a directory": (
        {"l.txt": lines("0 1 0")},
        ["thresholds", "l.txt", "--n-samples", "3", "--support", "."],
        ".: is a directory, not a file",
    ),
    "ranked list 20-digit class id": (
        {"l.txt": lines("99999999999999999999 1 0"), "s.txt": lines("0 1")},
        ["thresholds", "l.txt", "--n-samples", "3", "--support", "s.txt"],
        "l.txt, line 1: the class id (first field) 99999999999999999999 is too large",
    ),
    "ranked list vs support: which file": (
        {"l.txt": lines("0 1 1 1"), "s.txt": lines("0 1")},
        ["thresholds", "l.txt", "--n-samples", "3", "--support", "s.txt"],
        "l.txt, line 1 (class 0): ranked list holds 3 positives",
    ),
    "xc 20-digit header": (
        {"s.xc": lines("99999999999999999999 2 2", "0 0:1")},
        ["thresholds", "s.xc"],
        "s.xc, line 1: a header field 99999999999999999999 is too large",
    ),
    "xc not utf-8": (
        {"s.xc": b"1 2 2\n0 0:\xff\n"},
        ["thresholds", "s.xc"],
        "s.xc, line 2: not UTF-8",
    ),
    "xc nan": (
        {"s.xc": lines("1 2 2", "0 0:nan")},
        ["thresholds", "s.xc"],
        "s.xc, line 2: the value 'nan' is not a finite",
    ),
    "xc 1e400": (
        {"s.xc": lines("1 2 2", "0 0:1e400")},
        ["thresholds", "s.xc"],
        "s.xc, line 2: the value '1e400'",
    ),
    "xc repeated column": (
        {"s.xc": lines("1 2 2", "0 0:0.5 0:0.5")},
        ["thresholds", "s.xc"],
        "s.xc, line 2: column 0 appears twice",
    ),
    "npz complex scores": (
        {},
        ["thresholds", "c.npz"],
        "c.npz[scores]: expected real numbers, got complex",
    ),
    "npz nan scores": ({}, ["thresholds", "n.npz"], "n.npz[scores]: 1 NaN or infinite score(s)"),
    "npz pickled": ({}, ["thresholds", "obj.npz"], "obj.npz: holds Python objects"),
    "npz sparse index out of range": (
        {},
        ["thresholds", "sp.npz"],
        "sp.npz: scores_indices holds column 5",
    ),
    "npz sparse without shape": (
        {},
        ["thresholds", "ns.npz"],
        "ns.npz: sparse 'scores' lacks scores_shape",
    ),
    "thresholds truncated npz": ({}, ["thresholds", "t.npz"], "t.npz: not a valid .npz file"),
    "apply empty npy scores": (
        {"s.npy": b""},
        ["apply", "thr.npy", "s.npy", "-o", "o.npy"],
        "s.npy: empty .npy file",
    ),
    "apply npz renamed npy": (
        {},
        ["apply", "thr.npy", "z.npy", "-o", "o.npy"],
        "z.npy: a .npz archive, not a .npy array",
    ),
    "apply thresholds not npy": (
        {"thr2.npy": b"garbage"},
        ["apply", "thr2.npy", "c.npz", "-o", "o.npy"],
        "thr2.npy: not a .npy file (it starts with b'garbag')",
    ),
}


def _shared_files(tmp: Path) -> None:
    np.savez(tmp / "z.npy.npz", labels=np.array([1]))
    (tmp / "z.npy").write_bytes((tmp / "z.npy.npz").read_bytes())
    np.save(tmp / "o.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    np.savez(tmp / "full.npz", scores=np.ones((4, 2)), labels=np.ones((4, 2)))
    (tmp / "t.npz").write_bytes((tmp / "full.npz").read_bytes()[:60])
    labels = np.array([[1, 0], [0, 1]])
    np.savez(tmp / "c.npz", scores=np.array([[0.5 + 1j, 0.1], [0.2, 0.3]]), labels=labels)
    np.savez(tmp / "n.npz", scores=np.array([[np.nan, 0.1], [0.2, 0.3]]), labels=labels)
    np.savez(tmp / "obj.npz", scores=np.array([{"a": 1}], dtype=object), labels=labels)
    csr = {
        "scores_data": np.array([0.5]),
        "scores_indices": np.array([5]),
        "scores_indptr": np.array([0, 1, 1]),
    }
    np.savez(tmp / "sp.npz", **csr, scores_shape=np.array([2, 2]), labels=labels)
    np.savez(tmp / "ns.npz", **csr, labels=labels)
    np.save(tmp / "thr.npy", np.array([0.5, 0.5]))
    np.save(tmp / "whole.npy", np.arange(100))
    (tmp / "tr.npy").write_bytes((tmp / "whole.npy").read_bytes()[:200])


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_exits_2_with_one_line(tmp_path: Path, case: str) -> None:
    files, argv, message = BAD[case]
    _shared_files(tmp_path)
    write(tmp_path, files)
    run = fmacro(tmp_path, *argv)
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert "Traceback" not in run.stderr
    err = run.stderr.strip().splitlines()
    assert len(err) == 1 and message in err[0], run.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["evaluate", "e.csv", "p.csv"],
        ["evaluate", "e.npy", "p.csv"],
        ["thresholds", "s.npz"],
        ["thresholds", "s.xc"],
        ["thresholds", "l.txt", "--n-samples", "3", "--support", "sizes.txt"],
        ["apply", "thr.json", "s.npz", "-o", "o.npy"],
        ["apply", "thr.npy", "s.npy", "-o", "o.npy"],
    ],
)
def test_unreadable_files_exit_2(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
) -> None:
    # The tests run as root, who may read a chmod-000 file; refuse every open instead.
    from fmacro import optimize
    from fmacro.cli import main

    (tmp_path / "e.csv").write_text("1\n")
    (tmp_path / "p.csv").write_text("1\n")
    np.save(tmp_path / "e.npy", np.array([1]))
    np.savez(tmp_path / "s.npz", scores=np.ones((2, 2)), labels=np.eye(2))
    np.save(tmp_path / "s.npy", np.ones((2, 2)))
    (tmp_path / "s.xc").write_text("1 2 2\n0 0:1\n")
    (tmp_path / "l.txt").write_text("0 1 0\n")
    (tmp_path / "sizes.txt").write_text("0 1\n")
    optimize.per_class(np.ones((2, 2)), np.eye(2)).save(tmp_path / "thr.json")
    np.save(tmp_path / "thr.npy", np.array([0.5, 0.5]))
    monkeypatch.chdir(tmp_path)
    target = argv[1] if argv[0] != "apply" else argv[2]
    real_open = open

    def denied(file: Any, *args: Any, **kwargs: Any) -> Any:
        if Path(str(file)).name == target:
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("builtins.open", denied)
    monkeypatch.setattr("io.open", denied)
    code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert (
        len(err) == 1 and f"{target}: cannot read the" in err[0] and "permission denied" in err[0]
    )
