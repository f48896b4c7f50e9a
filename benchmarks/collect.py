"""Assemble benchmarks/RESULTS.md from the per-part result files.

Each ``bench_*.py`` script writes its own ``results_<part>.md`` (every table in one file
comes from one run, so its ratios are same-run ratios). This script stitches them
together in a fixed order under a common header; run it after any benchmark:

    python benchmarks/collect.py
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
PARTS = (
    "validation",
    "crossval",
    "optimize",
    "exact",
    "tune",
    "vs_ttcv",
    "vs_libmultilabel",
    "micro_macro",
    "label_budget",
    "small_tuning",
    "seeds",
    "held_out_interval",
    "tune_memory",
    "startup",
    "warm_large",
    "tune_paths",
    "compile_dtypes",
    "weights",
    "many_classes",
    "layouts",
    "memory",
    "fdelta",
    "dask",
    "bootstrap",
    "compare_calibration",
)

HEADER = """# fmacro benchmark results

Every figure below comes from a script in this folder; each table's rows were measured in
the same run (medians of repeats), as ratios against scikit-learn (or the named peer) and
against the cost of reading the input once with numpy (the floor). The machine is a shared
2-core box: absolute times are noisy, ratios within one table are what to compare. Rerun a
part with `python benchmarks/bench_<part>.py`, then `python benchmarks/collect.py`.
"""


def main() -> Path:
    sections = [HEADER]
    for part in PARTS:
        path = HERE / f"results_{part}.md"
        if path.is_file():
            lines = path.read_text(encoding="utf-8").strip().splitlines()
            # demote every heading of the part one level, under the common header
            sections.append("\n".join("#" + ln if ln.startswith("#") else ln for ln in lines))
    out = HERE / "RESULTS.md"
    out.write_text("\n\n".join(sections) + "\n", encoding="utf-8")
    return out


if __name__ == "__main__":
    print("wrote", main())
