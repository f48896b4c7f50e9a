"""The fmacro command line: bundled demos, files, JSON, and exit code 2 on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fmacro.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_evaluate_bundled_report(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "evaluate")
    assert code == 0
    for word in ("Beach", "Urban", "micro", "macro", "weighted", "F-macro", "accuracy: 0.6560"):
        assert word in out


def test_evaluate_json_matches_validation(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib import resources

    from fmacro.validation import MultiFValidation
    from fmacro.validation.io import read_prediction_pairs

    code, out, _ = run(capsys, "evaluate", "--json", "--beta", "2")
    assert code == 0
    payload = json.loads(out)
    with resources.as_file(
        resources.files("fmacro.validation") / "data" / "scene_predictions.csv"
    ) as p:
        e, pr = read_prediction_pairs(p)
    v = MultiFValidation.from_predictions(e, pr, beta=2.0)
    assert payload["averages"]["f_macro"]["f"] == pytest.approx(v.f_macro)
    assert payload["kind"] == "multiclass" and payload["beta"] == 2.0
    # one schema for every kind (validation.tables): the confusion matrix for multiclass
    assert payload["confusion_matrix"] == v.confusion.matrix.tolist()
    assert payload["classes"] == [str(c) for c in v.classes]


def test_evaluate_files_of_each_kind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "e.csv").write_text("label\n1\n0\n1\n1\n")
    (tmp_path / "p.csv").write_text("label\n1\n1\n0\n1\n")
    code, out, _ = run(
        capsys, "evaluate", str(tmp_path / "e.csv"), str(tmp_path / "p.csv"), "--json"
    )
    payload = json.loads(out)
    assert code == 0 and payload["kind"] == "binary"
    (row,) = payload["per_class"]
    assert row["tp"] == 2 and row["fp"] == 1 and row["fn"] == 1
    np.save(tmp_path / "Y.npy", np.array([[1, 0, 1], [0, 1, 0]]))
    np.save(tmp_path / "P.npy", np.array([[1, 0, 0], [0, 1, 1]]))
    code, out, _ = run(
        capsys, "evaluate", str(tmp_path / "Y.npy"), str(tmp_path / "P.npy"), "--json"
    )
    payload = json.loads(out)
    assert code == 0 and payload["kind"] == "multilabel"
    assert payload["averages"]["micro"]["f"] == pytest.approx(2 / 3)
    (tmp_path / "a.tsv").write_text("cat\ndog\n")
    (tmp_path / "b.tsv").write_text("cat\ncat\n")
    code, out, _ = run(capsys, "evaluate", str(tmp_path / "a.tsv"), str(tmp_path / "b.tsv"))
    assert code == 0 and "dog" in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("1,0\n0\n", "line 2: 1 field(s)"),
        ("", "no labels"),
        ("1,2\n0,1\n", "line 1: field 2 is '2'; a file with several columns is a 0/1"),
        ("0.5\n1\n", "integers"),
    ],
)
def test_evaluate_bad_files_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    (tmp_path / "bad.csv").write_text(content)
    (tmp_path / "ok.csv").write_text("1\n0\n")
    code, _, err = run(capsys, "evaluate", str(tmp_path / "bad.csv"), str(tmp_path / "ok.csv"))
    assert code == 2
    assert message in err and "bad.csv" in err


def test_evaluate_needs_both_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "evaluate", str(tmp_path / "x.csv"))
    assert code == 2 and "both" in err
    code, _, err = run(capsys, "evaluate", str(tmp_path / "x.csv"), str(tmp_path / "y.csv"))
    assert code == 2 and "no such file" in err


def test_thresholds_bundled_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "thresholds", "--quiet")
    assert code == 0
    for method in ("fixed_point", "domain", "per_class", "cyclic", "global_threshold", "top_k"):
        assert method in out
    assert "upper bound" in out and "macro-F" in out
    exact_row = next(line for line in out.splitlines() if line.startswith("exact "))
    assert "optimal" in exact_row


def test_thresholds_exact_status_and_time_limit(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "thresholds", "--json", "--method", "exact")
    assert code == 0
    (row,) = json.loads(out)["results"]
    assert row["method"] == "exact" and row["status"] == "optimal" and row["gap"] == 0.0
    assert row["upper_bound"] == row["f_macro"]
    code, out, _ = run(capsys, "thresholds", "--json", "--method", "exact", "--time-limit", "1e-9")
    (row,) = json.loads(out)["results"]
    assert row["status"] in ("optimal", "time_limit")  # Corel5k needs no search at all
    assert row["upper_bound"] >= row["f_macro"]


def test_thresholds_json_certificate(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "thresholds", "--json", "--method", "fixed_point", "--method", "per_class"
    )
    assert code == 0
    payload = json.loads(out)
    fp, pc = payload["results"]
    assert fp["method"] == "fixed_point" and pc["method"] == "per_class"
    assert fp["f_macro"] >= pc["f_macro"]
    assert fp["upper_bound"] >= fp["f_macro"] - 1e-12
    assert pc["macro_f"] >= fp["macro_f"] - 1e-12  # per_class is the macro-F optimum


def test_thresholds_npz_and_ranked_lists(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scores = np.array([[0.9, 0.1], [0.8, 0.7], [0.2, 0.6], [0.1, 0.3]])
    labels = np.array([[1, 0], [0, 1], [0, 1], [1, 0]])
    np.savez(tmp_path / "r.npz", scores=scores, labels=labels)
    code, out, _ = run(capsys, "thresholds", str(tmp_path / "r.npz"), "--json")
    assert code == 0 and len(json.loads(out)["results"]) == 9  # tune, exact and the rest
    (tmp_path / "lists.txt").write_text("0 1 0 0 1\n1 0 1 1\n")
    (tmp_path / "sizes.txt").write_text("0 2\n1 2\n")
    code, out, _ = run(
        capsys,
        "thresholds",
        str(tmp_path / "lists.txt"),
        "--n-samples",
        "4",
        "--support",
        str(tmp_path / "sizes.txt"),
        "--json",
    )
    payload = json.loads(out)
    assert code == 0 and payload["skipped"] == ["global_threshold", "top_k"]
    code, _, err = run(capsys, "thresholds", str(tmp_path / "lists.txt"))
    assert code == 2 and "--n-samples" in err


@pytest.mark.parametrize("zero_division", ["0", "1", "nan"])
def test_thresholds_zero_division_reaches_every_method(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], zero_division: str
) -> None:
    # Regression: every method but global_threshold and top_k ignored --zero-division and
    # the command exited 2 ("zero_division=0.0 differs from the points' ...").
    from fmacro import optimize

    rng = np.random.default_rng(3)
    scores = np.round(rng.random((30, 4)), 1)  # ties
    labels = (rng.random((30, 4)) < 0.3).astype(np.uint8)
    labels[0] = 1
    np.savez(tmp_path / "r.npz", scores=scores, labels=labels)
    code, out, err = run(
        capsys, "thresholds", str(tmp_path / "r.npz"), "--json", "--zero-division", zero_division
    )
    assert code == 0, err
    zd = float(zero_division)
    payload = json.loads(out)
    assert payload["zero_division"] == (None if zd != zd else zd)  # JSON has no NaN
    for row in payload["results"]:
        method = row["method"]
        kwargs = {"n_angles": 64} if method == "domain" else {}
        expected = getattr(optimize, method)(scores, labels, zero_division=zd, **kwargs)
        assert row["f_macro"] == pytest.approx(expected.f, nan_ok=True), method
    (tmp_path / "lists.txt").write_text("0 1 0 0 1\n1 0 1 1\n")
    (tmp_path / "sizes.txt").write_text("0 2\n1 2\n")
    code, out, err = run(
        capsys,
        "thresholds",
        str(tmp_path / "lists.txt"),
        "--n-samples",
        "4",
        "--support",
        str(tmp_path / "sizes.txt"),
        "--json",
        "--zero-division",
        zero_division,
    )
    assert code == 0, err


def test_thresholds_tune_row_and_held_out_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from fmacro.optimize import fixed_point, tune
    from fmacro.optimize.evaluation import evaluate_thresholds

    rng = np.random.default_rng(0)
    y = (rng.random((400, 6)) < 0.1).astype(np.uint8)
    s = y + rng.normal(0.0, 0.8, y.shape)
    np.savez(tmp_path / "tune.npz", scores=s[:200], labels=y[:200])
    np.savez(tmp_path / "test.npz", scores=s[200:], labels=y[200:])
    code, out, _ = run(capsys, "thresholds", str(tmp_path / "tune.npz"), "--quiet")
    assert code == 0 and out.splitlines()[4].startswith("tune ")  # first row of the table
    code, out, _ = run(
        capsys,
        "thresholds",
        str(tmp_path / "tune.npz"),
        "--test",
        str(tmp_path / "test.npz"),
        "--json",
        "--method",
        "tune",
        "--method",
        "fixed_point",
        "--method",
        "top_k",
    )
    rows = json.loads(out)["results"]
    assert [r["method"] for r in rows] == ["tune", "fixed_point", "top_k"]
    for r, ref in zip(
        rows[:2], (tune(s[:200], y[:200]), fixed_point(s[:200], y[:200])), strict=True
    ):
        ev = evaluate_thresholds(s[200:], y[200:], ref)
        assert r["test_f_macro"] == pytest.approx(ev.f) and r["f_macro"] == pytest.approx(ref.f)
        assert r["test_macro_f"] == pytest.approx(ev.macro_f)
    assert rows[0]["prior"] == 3.0 and rows[0]["smoothed_gap"] >= 0.0
    code, out, _ = run(
        capsys, "thresholds", str(tmp_path / "tune.npz"), "--test", str(tmp_path / "test.npz")
    )
    assert code == 0 and "test F-macro" in out
    code, _, err = run(capsys, "thresholds", "--test", str(tmp_path / "tune.npz"))
    assert code == 2 and "class columns" in err
    with pytest.raises(SystemExit):
        main(["thresholds", "--prior", "-1"])
    capsys.readouterr()


def test_bad_options_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["evaluate", "--beta", "0"], ["evaluate", "--zero-division", "0.5"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
    capsys.readouterr()
