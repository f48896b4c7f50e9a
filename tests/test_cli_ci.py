"""``fmacro evaluate --ci`` and ``fmacro compare``: intervals printed and in JSON, exit 2
on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fmacro.cli import main
from fmacro.validation import MultiFValidation, MultiLabelFValidation
from fmacro.validation.compare import compare


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _labels(tmp_path: Path) -> tuple[Path, Path, Path, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 200)
    a = np.where(rng.random(200) < 0.85, y, rng.integers(0, 3, 200))
    b = np.where(rng.random(200) < 0.6, y, rng.integers(0, 3, 200))
    paths = []
    for name, labels in (("y", y), ("a", a), ("b", b)):
        path = tmp_path / f"{name}.txt"
        path.write_text("\n".join(map(str, labels.tolist())) + "\n")
        paths.append(path)
    return paths[0], paths[1], paths[2], y, a, b


def test_evaluate_ci_json_holds_the_intervals_of_the_api(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fy, fa, _, y, a, _ = _labels(tmp_path)
    code, out, _ = run(
        capsys,
        "evaluate",
        str(fy),
        str(fa),
        "--ci",
        "0.9",
        "--seed",
        "5",
        "--resamples",
        "300",
        "--json",
    )
    assert code == 0
    payload = json.loads(out)
    boot = MultiFValidation.from_predictions(y, a, keep_outcomes=True).bootstrap(300, seed=5)
    intervals = payload["intervals"]
    assert intervals["level"] == 0.9 and intervals["seed"] == 5 and intervals["n_resamples"] == 300
    assert tuple(intervals["measures"]["f_macro"][k] for k in ("low", "high")) == boot.interval(
        "f_macro", 0.9
    )
    assert payload["averages"]["f_macro"]["f"] == intervals["measures"]["f_macro"]["estimate"]


def test_evaluate_ci_prints_each_measure_with_its_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fy, fa, _, y, a, _ = _labels(tmp_path)
    code, out, _ = run(capsys, "evaluate", str(fy), str(fa), "--ci", "0.95", "--seed", "1")
    assert code == 0
    boot = MultiFValidation.from_predictions(y, a, keep_outcomes=True).bootstrap(1000, seed=1)
    low, high = boot.interval("f_macro")
    line = next(s for s in out.splitlines() if s.startswith("f_macro "))
    assert line.split()[1:] == [f"{boot.estimate('f_macro'):.4f}", f"{low:.4f}", f"{high:.4f}"]
    assert "1000 poisson resamples, seed 1" in out and "F of 2" in out


def test_evaluate_without_ci_has_no_intervals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fy, fa, *_ = _labels(tmp_path)
    code, out, _ = run(capsys, "evaluate", str(fy), str(fa), "--json")
    assert code == 0 and "intervals" not in json.loads(out)


def test_compare_json_equals_the_api(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fy, fa, fb, y, a, b = _labels(tmp_path)
    code, out, _ = run(capsys, "compare", str(fy), str(fa), str(fb), "--seed", "3", "--json")
    assert code == 0
    payload = json.loads(out)
    expected = compare(y, a, b, seed=3).to_dict()
    assert {k: payload[k] for k in expected} == expected
    assert payload["difference"] > 0


def test_compare_text_and_multilabel(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, (120, 3))
    a = y ^ (rng.random((120, 3)) < 0.1)
    names = []
    for name, m in (("y", y), ("a", a)):
        path = tmp_path / f"{name}.csv"
        np.savetxt(path, m, fmt="%d", delimiter=",")
        names.append(str(path))
    code, out, _ = run(capsys, "compare", names[0], names[1], names[1], "--seed", "0")
    assert code == 0
    v = MultiLabelFValidation.from_predictions(y, a)
    rows = {line[:19].strip(): line[19:].split() for line in out.splitlines()[4:]}
    assert rows["f_macro of A"] == [f"{v.f_macro:.4f}"] == rows["f_macro of B"]
    assert rows["difference A - B"] == ["0.0000"] and rows["p-value (two-sided)"] == ["1.0000"]


@pytest.mark.parametrize(
    "argv",
    [
        ["compare", "{y}", "{a}", "{missing}"],
        ["compare", "{y}", "{a}", "{short}"],
        ["compare", "{y}", "{a}", "{b}", "--measure", "per_class_f"],
        ["evaluate", "{y}", "{short}", "--ci", "0.95"],
    ],
)
def test_bad_input_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    fy, fa, fb, *_ = _labels(tmp_path)
    short = tmp_path / "short.txt"
    short.write_text("0\n1\n")
    files = {"y": fy, "a": fa, "b": fb, "missing": tmp_path / "missing.txt", "short": short}
    code, _, err = run(capsys, *(s.format(**files) for s in argv))
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and err.startswith(f"fmacro {argv[0]}: error:")
    if "{missing}" in argv:
        assert "missing.txt" in err
    if "{short}" in argv:
        assert "short.txt" in err


@pytest.mark.parametrize("value", ["0", "1", "95", "x"])
def test_ci_level_outside_0_1_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    fy, fa, *_ = _labels(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        main(["evaluate", str(fy), str(fa), "--ci", value])
    assert exit_info.value.code == 2
    assert "--ci" in capsys.readouterr().err
