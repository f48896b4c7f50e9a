"""Extra memory and time of ``optimize.tune`` (defaults): before and after the fused walk.

The cases, the matrices and the measurement are bench_memory.py's (traced peak and peak
RSS over the input's bytes, median time of 3 runs), for ``tune(scores, labels)`` and, as
the yardstick, ``fixed_point(scores, labels)`` in the same process. *before* is a checkout
whose ``tune`` smooths every cut (run this script with that checkout's Python); *after*
this code. Each (version, case) runs in its own process.

    python benchmarks/bench_tune_memory.py --json /tmp/tune_after.json
    /path/to/before/python benchmarks/bench_tune_memory.py --json /tmp/tune_before.json
    python benchmarks/bench_tune_memory.py --report /tmp/tune_before.json /tmp/tune_after.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_memory import (  # noqa: E402
    comparison_table,
    make_case,
    measure_one,
    run_cases,
)

METHODS = ("fixed_point", "tune")


def run_case(name: str, repeats: int) -> dict[str, Any]:
    from fmacro.optimize import fixed_point, tune

    scores, labels = make_case(name)
    small = (scores[:60, :8].copy(), labels[:60, :8].copy())
    small[1][0] = True
    fixed_point(*small)  # compile outside the measurements
    tune(*small)
    calls = {
        "fixed_point": lambda: fixed_point(scores, labels),
        "tune": lambda: tune(scores, labels),
    }
    out: dict[str, Any] = {
        "input_bytes": int(scores.nbytes + labels.nbytes),
        "checksum": float(scores[:, :50].astype("float64").sum()) + int(labels.sum()),
        "load": os.getloadavg()[0],
    }
    for method in METHODS:
        out[method] = measure_one(calls[method], repeats)
    out["load_after"] = os.getloadavg()[0]
    return out


def report(before_path: str, after_path: str) -> str:
    before = json.loads(Path(before_path).read_text(encoding="utf-8"))
    after = json.loads(Path(after_path).read_text(encoding="utf-8"))
    lines = [
        "## Memory and time of `tune` (issue 11)",
        "",
        "`python benchmarks/bench_tune_memory.py` (see its docstring): bench_memory.py's",
        "cases and measurement for `tune(scores, labels)` with its defaults, `fixed_point` in",
        "the same process as the yardstick. Extra memory as a ratio to the input's bytes",
        "(scores + bool labels): *traced* is tracemalloc's peak (numpy allocations), *RSS* the",
        "peak resident set above the one before the call (numba's buffers included); time:",
        "median of 3 runs. *before*: `tune` smoothing every cut (commit a555b86); *after*:",
        "one walk keeping the hull cuts (and, at an edge crossing, the cuts the exact step",
        "can use). Same matrices in both (checksums equal); each run in its own process.",
        "RSS counts pages newly resident: memory the process freed after an earlier call",
        "and reuses does not show (hence a near-0 RSS where *traced* is not).",
        "",
    ]
    lines += comparison_table(before, after, METHODS)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json")
    ap.add_argument("--case", help="run one case in this process (internal)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--report", nargs=2, metavar=("BEFORE", "AFTER"))
    args = ap.parse_args(argv)
    if args.report:
        text = report(*args.report)
        (HERE / "results_tune_memory.md").write_text(text, encoding="utf-8")
        print(text)
        return 0
    if args.case:
        print(json.dumps(run_case(args.case, args.repeats)))
        return 0
    results = run_cases(__file__, args.repeats)
    Path(args.json).write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
