"""``fmacro thresholds --interval``: the interval predicted from the tuning file next to the
F-macro measured on the test file, equal to ``optimize.held_out_interval``'s."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fmacro import optimize
from fmacro.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, tuple]:
    tmp = tmp_path_factory.mktemp("held_out")
    rng = np.random.default_rng(0)
    y = (rng.random((300, 5)) < 0.2).astype(np.uint8)
    s = y + rng.normal(0.0, 0.8, y.shape)
    np.savez(tmp / "tune.npz", scores=s[:120], labels=y[:120])
    np.savez(tmp / "test.npz", scores=s[120:], labels=y[120:])
    return tmp / "tune.npz", tmp / "test.npz", (s, y)


def test_json_rows_carry_the_librarys_interval(
    files: tuple[Path, Path, tuple], capsys: pytest.CaptureFixture[str]
) -> None:
    tune_file, test_file, (s, y) = files
    code, out, _ = run(
        capsys,
        "thresholds",
        str(tune_file),
        "--test",
        str(test_file),
        "--json",
        "--quiet",
        "--method",
        "tune",
        "--method",
        "per_class",
        "--method",
        "top_k",
        "--interval",
        "0.8",
        "--resamples",
        "20",
        "--seed",
        "3",
    )
    assert code == 0
    rows = json.loads(out)["results"]
    assert [r["method"] for r in rows] == ["tune", "per_class", "top_k"]
    assert "interval" not in rows[2]  # top_k has no per-class thresholds
    for row in rows[:2]:
        want = optimize.held_out_interval(
            s[:120], y[:120], level=0.8, n_eval=180, method=row["method"], n_resamples=20, seed=3
        )
        got = row["interval"]
        assert (got["estimate"], got["low"], got["high"]) == (want.estimate, want.low, want.high)
        assert got["n_eval"] == 180 and got["level"] == 0.8
        test_f = optimize.f_macro(s[120:], y[120:], want.result)
        assert row["test_f_macro"] == pytest.approx(test_f)
        assert row["test_in_interval"] == (want.low <= test_f <= want.high)
    # the tune row shows the thresholds the interval is for: tuned for the test size
    assert rows[0]["f_macro"] == pytest.approx(optimize.tune(s[:120], y[:120], n_eval=180).f)


def test_table_shows_the_interval_only_when_asked(
    files: tuple[Path, Path, tuple], capsys: pytest.CaptureFixture[str]
) -> None:
    tune_file, test_file, _ = files
    argv = ["thresholds", str(tune_file), "--test", str(test_file), "--quiet", "--method", "tune"]
    code, plain, _ = run(capsys, *argv)
    assert code == 0 and "interval" not in plain and "predicted F" not in plain
    code, out, _ = run(capsys, *argv, "--interval", "0.95", "--resamples", "20")
    assert code == 0
    header = out.splitlines()[2].split()
    assert header[:4] == ["method", "predicted", "F", "95%"]
    row = out.splitlines()[4].split()
    low, high = (float(v) for v in row[2].split("-"))
    assert low <= float(row[1]) <= high
    assert "new batch of the test file's size (180 objects)" in out


def test_interval_needs_scores_and_a_level_in_0_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "lists.txt").write_text("0 1 0 0 1\n1 0 1 1\n")
    (tmp_path / "sizes.txt").write_text("0 2\n1 2\n")
    code, _, err = run(
        capsys,
        "thresholds",
        str(tmp_path / "lists.txt"),
        "--n-samples",
        "4",
        "--support",
        str(tmp_path / "sizes.txt"),
        "--interval",
        "0.9",
        "--quiet",
    )
    assert code == 2 and "--interval needs scores" in err
    for bad in (["--interval", "1"], ["--interval", "x"], ["--resamples", "5"]):
        with pytest.raises(SystemExit) as exc:
            main(["thresholds", *bad])
        assert exc.value.code == 2
    capsys.readouterr()
