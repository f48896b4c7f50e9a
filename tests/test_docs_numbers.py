"""Numbers docs/f-macro.md states that no other test computes, recomputed so they cannot drift."""

from __future__ import annotations

from pathlib import Path

from sklearn.neighbors import KNeighborsClassifier

from fmacro.optimize.sklearn import FMacroThresholdClassifier
from fmacro.validation.datasets import load_dataset
from fmacro.validation.sklearn import f_macro_score

DOC = Path(__file__).resolve().parents[1] / "docs" / "f-macro.md"


def test_yeast_knn_row_of_the_held_out_table() -> None:
    # tests/data holds yeast (conftest sets FMACRO_DATA); default cv=5: unshuffled folds
    X, Y = load_dataset("yeast", "train")
    X_test, Y_test = load_dataset("yeast", "test")
    baseline = f_macro_score(Y_test, KNeighborsClassifier().fit(X, Y).predict(X_test))
    cells = []
    for method in ("fixed_point", "per_class"):
        clf = FMacroThresholdClassifier(KNeighborsClassifier(), method=method).fit(X, Y)
        cells.append((clf.threshold_result_.f, f_macro_score(Y_test, clf.predict(X_test))))
    (fp_tune, fp_test), (pc_tune, pc_test) = cells
    row = (
        "| yeast, 5-NN via `FMacroThresholdClassifier` | 5-fold out-of-fold scores of 1500 | "
        f"{fp_tune:.3f} / {pc_tune:.3f} | {fp_test:.3f} / {pc_test:.3f} "
        f"(default 0.5 threshold: {baseline:.3f}) |"
    )
    assert row in DOC.read_text(encoding="utf-8")


def test_thresholds_table_excerpt_is_the_command_output() -> None:
    import contextlib
    import io

    from fmacro.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["thresholds", "--method", "fixed_point", "--method", "per_class"]) == 0
    rows = {line.split()[0]: line.split() for line in out.getvalue().splitlines() if line}
    doc = DOC.read_text(encoding="utf-8")
    excerpt = doc.split("The `fmacro thresholds` table shows both numbers", 1)[1]
    excerpt = excerpt.split("```", 2)[1].splitlines()
    for line in excerpt[2:]:
        fields = line.split()
        # every column but the timing (time [s]) is the command's own output
        assert fields[:7] + fields[8:] == rows[fields[0]][:7] + rows[fields[0]][8:], line


def test_readme_first_call_figures_are_the_recorded_benchmark() -> None:
    # timings are not asserted; the README must quote benchmarks/results_startup.md
    root = DOC.parents[1]
    table = (root / "benchmarks" / "results_startup.md").read_text(encoding="utf-8")
    rows = {
        cells[0]: cells[1:]
        for line in table.splitlines()
        if line.startswith("| ")
        and len(cells := [c.strip() for c in line.strip("|").split("|")]) > 3
    }
    tune = rows["tune, 1,000 x 50 (ends at a fixed point)"]
    thresholds = rows["fmacro thresholds"]

    def secs(cell: str, digits: int) -> str:
        return f"{float(cell.removesuffix(' s')):.{digits}f} s"

    readme = (root / "README.md").read_text(encoding="utf-8")
    flat = " ".join(readme.split())
    assert f"1,000 x 50 scores takes {secs(tune[0], 1)} ({secs(tune[1], 1)}" in flat
    assert f"`f1_score` ({secs(tune[5], 1)})" in flat
    assert (
        f"prints its table in {secs(thresholds[0], 1)} instead of {secs(thresholds[1], 1)}" in flat
    )


def test_readme_tune_gains_are_the_recorded_benchmark() -> None:
    # the README's summary of benchmarks/results_tune.md: tune against per_class (summary
    # table), against the in-sample optimum (mean ratio over the 28 seed-averaged cells)
    root = DOC.parents[1]
    results = (root / "benchmarks" / "results_tune.md").read_text(encoding="utf-8")
    summary = {
        cells[0].strip("*"): cells[1:]
        for line in results.split("## Held-out F-macro: summary over the cells", 1)[1]
        .split("\n\n", 2)[1]
        .splitlines()[2:]
        if (cells := [c.strip() for c in line.strip().strip("|").split("|")])
    }
    tune_gain = float(summary["tune"][0].rstrip("%"))
    wins = summary["tune"][3].split(" / ")[0]
    etu_gain = float(summary["etu"][0].rstrip("%"))
    per_cell = results.split("## Held-out F-macro (test, mean over 3 seeds)", 1)[1]
    rows = [
        [c.strip().strip("*") for c in line.strip().strip("|").split("|")]
        for line in per_cell.split("\n\n", 2)[1].splitlines()[2:]
    ]
    over_fixed_point = sum(float(r[2]) / float(r[4]) - 1 for r in rows) / len(rows)
    flat = " ".join((root / "README.md").read_text(encoding="utf-8").split())
    assert len(rows) == 28
    assert (
        f"{tune_gain:.0f}% above `per_class`'s on average ({wins} of {len(rows)} cells) and "
        f"{100 * over_fixed_point:.0f}% above the in-sample optimum's" in flat
    )
    assert f"+{etu_gain:.0f}% over `per_class` with logistic regression" in flat


def test_readme_bibtex_gains_are_the_block_differences() -> None:
    # tests/test_examples.py checks the block against the example's output; the prose's
    # differences must be the block's
    readme = (DOC.parents[1] / "README.md").read_text(encoding="utf-8")
    block = readme.split("$ python examples/bibtex_workflow.py --data ../shared/data\n", 1)[1]
    rows = {
        line[:28].strip(): float(line[28:].split()[0])
        for line in block.split("```", 1)[0].splitlines()[4:7]
    }
    tune = rows["tune (saved, loaded)"]
    over_fixed_point = tune - rows["fixed_point (in-sample opt)"]
    over_per_class = tune - rows["per_class (T_b)"]
    flat = " ".join(readme.split())
    assert (
        f"(+{over_fixed_point:.3f} over the in-sample optimum, +{over_per_class:.3f} over "
        "`per_class`)" in flat
    )


def _deployable_section() -> str:
    doc = DOC.read_text(encoding="utf-8")
    return doc.split("## Thresholds people can deploy", 1)[1].split("\n## ", 1)[0]


def _lml_results() -> tuple[str, dict]:
    import json

    bench = DOC.parents[1] / "benchmarks"
    md = (bench / "results_vs_libmultilabel.md").read_text(encoding="utf-8")
    record = json.loads((bench / "results_vs_libmultilabel.json").read_text(encoding="utf-8"))
    return md, record


def test_deployable_table_rows_are_the_libmultilabel_benchmark() -> None:
    md, _ = _lml_results()
    measured = {}
    for line in md.split("## Test measures", 1)[1].splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) >= 6:
            measured[(cells[0], cells[1])] = cells[2:6]
    rows = [ln for ln in _deployable_section().splitlines() if ln.startswith("| ")][1:]
    assert len(rows) == 20
    for line in rows:
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] == "---":
            continue
        assert measured[(cells[0], cells[1])] == cells[2:6], line


def test_deployable_claims_are_the_recorded_goal_check_and_bootstrap() -> None:
    import numpy as np

    _, record = _lml_results()
    text = _deployable_section()
    goal = record["goal_check"]
    # "labels per object at most 1.5x the true mean on all seven datasets, micro-F1
    # within 0.04 of LibMultiLabel's default"
    assert len(goal) == 7 and "all seven datasets" in text.replace("\n", " ")
    assert max(g["deployable_ratio"] for g in goal.values()) <= 1.5
    assert min(g["deployable_micro_minus_default"] for g in goal.values()) >= -0.04
    # "the most: 72% on yeast, at c = 10, with micro-F1 0.13 below"
    assert "72% on yeast, at c = 10" in text.replace("\n", " ")
    tables = _lml_results()[0]
    assert "| yeast | +0.054 | -26% | 1.43 | +0.005 | no | 10 | .532 | 72% | -0.132 |" in tables
    sig = [s for s in record["significance"] if s["a"].startswith("tune(per_class)")]
    macro = [s for s in sig if s["measure"] == "macro_f"]
    micro = {s["dataset"]: s for s in sig if s["measure"] == "micro_f"}
    # "no dataset significantly behind on macro-F1, none behind on both at once"
    assert len(macro) == 7 and all(s["high"] >= 0 for s in macro)
    assert not any(s["high"] < 0 and micro[s["dataset"]]["high"] < 0 for s in macro)
    ahead = [s["dataset"] for s in macro if s["low"] > 0]
    assert ahead == ["bibtex"]
    # "F-macro above that default's on all seven (significantly on six)"
    fm = [
        s
        for s in record["significance"]
        if s["a"] == "tune, rate <= 2x base" and s["measure"] == "f_macro"
    ]
    assert len(fm) == 7 and all(s["difference"] > 0 for s in fm)
    assert int(np.sum([s["low"] > 0 for s in fm])) == 6


def test_label_budget_table_is_the_recorded_benchmark() -> None:
    bench = (DOC.parents[1] / "benchmarks" / "results_label_budget.md").read_text(encoding="utf-8")
    recorded = {}
    for line in bench.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 6 and cells[1] in ("1", "3", "5"):
            recorded[(cells[0], cells[1], cells[2])] = cells[3]
    columns = (
        "(a) `per_class` + cap",
        '(b) `tune(method="per_class")` + cap',
        "(b) `tune` + cap",
        "(c) top-k",
        "(d) xCOLUMNs BCA macro-F1@k (test probabilities)",
    )
    section = DOC.read_text(encoding="utf-8").split("**Does tuning knowing the cap help?**")[1]
    rows = [ln for ln in section.split("\n\n")[1].splitlines() if ln.startswith("| ")][1:]
    assert len(rows) == 9
    for line in rows:
        data, k, *values = (c.strip() for c in line.strip("|").split("|"))
        assert values == [recorded[(data, k, name)] for name in columns], line
