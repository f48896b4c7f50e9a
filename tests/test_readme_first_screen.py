"""The README's first screen: its opening commands, its claims, and every number in them.

The held-out table against scikit-learn's ``TunedThresholdClassifierCV`` comes from
benchmarks/bench_vs_ttcv.py (results_vs_ttcv.md). Its yeast rows are recomputed here
with the public API and scikit-learn's own measures (yeast is in tests/data, the same
files as ../shared/data); enron's rows and every time are quoted from the recorded run,
which the README must reproduce exactly (times are not asserted, as elsewhere).
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score, precision_recall_fscore_support
from sklearn.model_selection import TunedThresholdClassifierCV
from sklearn.multiclass import OneVsRestClassifier

from fmacro.optimize.sklearn import FMacroThresholdClassifier
from fmacro.validation.datasets import load_dataset

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
FIRST_SCREEN = "\n".join(README.splitlines()[:60])
RECORDED = (ROOT / "benchmarks" / "results_vs_ttcv.md").read_text(encoding="utf-8")

#: (dataset, thresholds) -> [F-macro, macro-F1, micro-F1, labels/object (true), time]
Table = dict[tuple[str, str], list[str]]


def table_rows(text: str) -> Table:
    """The rows of the first markdown table in ``text`` whose header starts ``| data |``."""
    lines = text.split("| data | thresholds |", 1)[1].splitlines()[2:]
    rows: Table = {}
    for line in lines:
        if not line.startswith("| "):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows[cells[0], cells[1]] = cells[2:]
    return rows


README_TABLE = table_rows(FIRST_SCREEN)


def test_the_opening_commands_are_unchanged() -> None:
    # CI (.ci/run) and tests/test_packaging.py read the opening block: install and run the
    # main job with no arguments, then the tests
    assert README.splitlines()[:6] == [
        "# fmacro",
        "",
        "```bash",
        "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/fmacro thresholds",
        '.venv/bin/pip install ".[test]" && .venv/bin/python -m pytest',
        "```",
    ]


def test_the_first_screen_says_what_scikit_learn_does_not_and_how_to_call_it() -> None:
    flat = " ".join(FIRST_SCREEN.split())
    assert "`TunedThresholdClassifierCV` tunes one threshold" in flat
    for claim in ("jointly", "multi-label and multiclass", "F-macro", "macro-F", "certificate"):
        assert claim in flat, claim
    for call in ("optimize.tune(", "FMacroThresholdClassifier(", "fmacro thresholds "):
        assert call in FIRST_SCREEN, call
    for link in ("benchmarks/results_vs_ttcv.md", "docs/f-macro.md"):
        assert f"]({link}" in FIRST_SCREEN, link


def test_the_table_is_the_recorded_run() -> None:
    recorded = table_rows(RECORDED.split("## 5-fold out-of-fold scores", 1)[1])
    assert len(README_TABLE) == 8
    assert recorded == README_TABLE


def logistic() -> LogisticRegression:
    return LogisticRegression(solver="liblinear", random_state=0)


def test_yeast_rows_recomputed() -> None:
    X, Y = load_dataset("yeast", "train")
    X_test, Y_test = load_dataset("yeast", "test")
    predictions = {
        "`tune`": FMacroThresholdClassifier(OneVsRestClassifier(logistic())).fit(X, Y),
        '`tune(method="per_class")`': FMacroThresholdClassifier(
            OneVsRestClassifier(logistic()), objective="macro_f"
        ).fit(X, Y),
        "default 0.5": OneVsRestClassifier(logistic()).fit(X, Y),
    }
    predicted = {name: est.predict(X_test) for name, est in predictions.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # labels with < 5 positives per fold
        predicted["TTCV per label"] = np.column_stack(
            [
                TunedThresholdClassifierCV(logistic(), scoring="f1").fit(X, Y[:, k]).predict(X_test)
                for k in range(Y.shape[1])
            ]
        )
    true_mean = Y_test.sum(1).mean()
    for name, pred in predicted.items():
        # F-macro from scikit-learn's macro precision and recall, not fmacro's own
        p, r, _, _ = precision_recall_fscore_support(Y_test, pred, average="macro", zero_division=0)
        expected = [
            f"{2 * p * r / (p + r):.3f}",
            f"{f1_score(Y_test, pred, average='macro', zero_division=0):.3f}",
            f"{f1_score(Y_test, pred, average='micro', zero_division=0):.3f}",
            f"{pred.sum(1).mean():.1f} ({true_mean:.1f})",
        ]
        assert README_TABLE["yeast", name][:4] == expected, name


def cell(dataset: str, thresholds: str, column: int) -> float:
    """A number of the README's table (column 0-3: F-macro ... labels/object)."""
    return float(README_TABLE[dataset, thresholds][column].split()[0])


def seconds(dataset: str, thresholds: str) -> float:
    value, unit = README_TABLE[dataset, thresholds][4].split()
    return float(value) / (1000 if unit == "ms" else 1)


def test_the_prose_quotes_the_table() -> None:
    flat = " ".join(FIRST_SCREEN.split())
    tune, ttcv, per_class = "`tune`", "TTCV per label", '`tune(method="per_class")`'
    gains = [cell(d, tune, 0) - cell(d, ttcv, 0) for d in ("yeast", "enron")]
    assert f"(+{gains[0]:.3f} on yeast, +{gains[1]:.3f} on enron)" in flat
    worst = max(abs(cell(d, per_class, 1) - cell(d, ttcv, 1)) for d in ("yeast", "enron"))
    assert f"within {worst:.3f} of" in flat
    speedups = [seconds(d, ttcv) / seconds(d, per_class) for d in ("yeast", "enron")]
    assert f"{min(speedups):.0f}-{max(speedups):.0f}x less time" in flat
    for d, noun in (("yeast", "yeast object"), ("enron", "enron e-mail")):
        many = README_TABLE[d, tune][3].replace(" (", " per " + noun + " (true ")
        assert many in flat, many
    assert f"micro-F1 falls to {cell('enron', tune, 2):.3f} on enron" in flat


def test_the_validation_split_times_are_the_recorded_run() -> None:
    val = table_rows(RECORDED.split("## Seeded 25% validation split", 1)[1])

    def secs(cell: str) -> float:
        value, unit = cell.split()
        return float(value) / (1000 if unit == "ms" else 1)

    ratios = [
        secs(val[d, "TTCV per label"][4]) / secs(val[d, '`tune(method="per_class")`'][4])
        for d in ("yeast", "enron")
    ]
    flat = " ".join(FIRST_SCREEN.split())
    assert f"{min(ratios):.0f}-{max(ratios):.0f}x faster" in flat


def test_the_command_lines_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from fmacro.cli import main

    flat = " ".join(README.split("## What is in it", 1)[0].split())
    commands = [c.split() for c in re.findall(r"`(fmacro (?:thresholds|apply) [^`]*)`", flat)]
    assert [c[:2] for c in commands] == [["fmacro", "thresholds"], ["fmacro", "apply"]]
    assert any(c[:2] == ["fmacro", "thresholds"] for c in commands if " ".join(c) in FIRST_SCREEN)
    rng = np.random.default_rng(0)
    for name, n in (("val.npz", 200), ("test.npz", 100), ("new.npz", 50)):
        labels = rng.random((n, 4)) < 0.3
        np.savez(tmp_path / name, scores=labels + rng.normal(size=(n, 4)), labels=labels)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        assert main([*commands[0][1:], "--quiet"]) == 0
        assert main(commands[1][1:]) == 0
    out = capsys.readouterr().out
    assert "saved the tune thresholds to thr.json" in out
    assert "wrote pred.npz: 50 objects x 4 classes" in out


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a markdown heading (lower case, punctuation dropped)."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_the_first_screen_links_land() -> None:
    section = README.split("## What is in it", 1)[0]
    links = re.findall(r"\]\(([^)\s]+)\)", section)
    assert len(links) >= 3
    for link in links:
        path, _, anchor = link.partition("#")
        assert not path or (ROOT / path).is_file(), link
        if anchor:
            text = (ROOT / path).read_text(encoding="utf-8") if path else README
            headings = re.findall(r"^#+ (.+)$", text, flags=re.MULTILINE)
            assert anchor in {github_anchor(h) for h in headings}, link
