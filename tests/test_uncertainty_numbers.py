"""The numbers docs/uncertainty.md quotes from the benchmark results files, checked against them.

Timings and rates are not recomputed here (that is the benchmarks' job, minutes long); the
doc must quote what ``benchmarks/results_compare_calibration.md`` recorded, so the two
cannot drift apart.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "uncertainty.md"
RESULTS = ROOT / "benchmarks"


def _flat(text: str) -> str:
    return " ".join(text.split())


def _table(text: str, heading: str) -> list[list[str]]:
    """The body rows of the first markdown table after ``heading``, as stripped cells."""
    after = text.split(heading, 1)[1]
    block: list[str] = []
    for line in after.splitlines():
        if line.startswith("|"):
            block.append(line)
        elif block:
            break
    assert block, heading
    return [[c.strip() for c in line.strip().strip("|").split("|")] for line in block[2:]]


def _percent(cell: str) -> float:
    return float(cell.rstrip("%"))


def test_compare_null_rates_quoted_are_the_recorded_range() -> None:
    results = (RESULTS / "results_compare_calibration.md").read_text(encoding="utf-8")
    rows = _table(results, "## Null")
    # 3 kinds x 3 sizes, 1000 simulations each
    assert len(rows) == 9
    assert {r[3] for r in rows} == {"1000"}
    rates = [_percent(r[5]) for r in rows]
    ses = [_percent(r[6]) for r in rows]
    # the rate is rejections / simulations, and the SE its binomial standard error
    for r in rows:
        rate = int(r[4]) / int(r[3])
        assert f"{rate:.1%}" == r[5]
        assert f"{(rate * (1 - rate) / int(r[3])) ** 0.5:.1%}" == r[6]
    doc = _flat(DOC.read_text(encoding="utf-8"))
    assert (
        f'rejected "no difference" at the 5 % level in {min(rates):.1f} % to '
        f"{max(rates):.1f} % of 1,000 null simulations per row" in doc
    )
    assert f"binomial standard errors {min(ses):.1f} to {max(ses):.1f} points" in doc


def test_compare_power_quoted_is_the_recorded_row() -> None:
    results = (RESULTS / "results_compare_calibration.md").read_text(encoding="utf-8")
    rows = _table(results, "## Power")
    power = {(r[0], r[2], r[4]): (r[3], r[6]) for r in rows}
    gap = power[("multiclass", "0.05", "200")][0]
    cells = [power[("multiclass", "0.05", n)][1] for n in ("200", "1,000", "5,000")]
    doc = _flat(DOC.read_text(encoding="utf-8"))
    assert (
        f"multiclass F-macro difference {gap}) was detected in {cells[0].replace('%', ' %')}, "
        f"{cells[1].replace('%', ' %')} and {cells[2].replace('%', ' %')} of the simulations "
        "at n = 200, 1,000 and 5,000" in doc
    )


def test_torchmetrics_speed_quoted_is_the_recorded_run() -> None:
    results = (RESULTS / "results_bootstrap.md").read_text(encoding="utf-8")
    rows = _table(results, "## Against torchmetrics' real `BootStrapper`")
    times = {r[0]: r[1].split(" (")[0] for r in rows}
    torchmetrics = next(t for case, t in times.items() if "torchmetrics `BootStrapper" in case)
    fmacro = next(t for case, t in times.items() if "fmacro `from_predictions` +" in case)
    ratio = _flat(results).split("**fmacro total is ", 1)[1].split("x faster")[0]
    doc = _flat(DOC.read_text(encoding="utf-8"))
    assert (
        f"1000 resamples and interval took {fmacro} and torchmetrics {torchmetrics}: "
        f"{ratio}x faster" in doc
    )
    assert float(ratio) >= 10  # the goal
