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
