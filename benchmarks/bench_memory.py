"""Extra memory and time of the class-points stage and the methods built on it (issue 12, 6).

Cases (one seed, the same matrices for every version):

dense64   500 x 10^5 float64 scores, multi-label labels at ~1 % density with power-law
          class sizes (rate of class k proportional to k^-0.8), bool labels.
dense32   the same matrix in float32.
proba32   10^4 x 10^4 float32 C-ordered scores (a model's ``predict_proba``), bool labels
          at ~1 % density, power-law class sizes.

For each case and each of ``class_points`` (as each method builds it: all cuts before,
``dominated="drop"`` after), ``fixed_point``, ``domain`` and ``per_class``: the traced
peak (tracemalloc: numpy's allocations; numba's own are not traced), the peak RSS above
the RSS before the call (``/proc/self/clear_refs`` resets the high-water mark: this counts
numba's allocations too), both as a ratio to the input's bytes (scores + labels), and the
median time of 3 runs. "before" runs the same script on the main checkout's code (pass
``--label before`` with that checkout's Python); "after" on this branch. Each (version,
case) runs in its own process. Writes results_memory.md from the two JSON files.

    python benchmarks/bench_memory.py --label after --json /tmp/mem_after.json
    /path/to/main/python benchmarks/bench_memory.py --label before --json /tmp/mem_before.json
    python benchmarks/bench_memory.py --report /tmp/mem_before.json /tmp/mem_after.json

``--case proba32 --time-only per_class --repeats 5`` prints one method's median time: run
it alternately with both versions' Python for an interleaved time comparison.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
CASES = {"dense64": (500, 100_000, np.float64), "dense32": (500, 100_000, np.float32)}
CASES["proba32"] = (10_000, 10_000, np.float32)
METHODS = ("class_points", "fixed_point", "domain", "per_class")


def make_case(name: str) -> tuple[np.ndarray, np.ndarray]:
    n_obj, n_cls, dtype = CASES[name]
    rng = np.random.default_rng(12)
    rates = np.arange(1, n_cls + 1, dtype=np.float64) ** -0.8
    rates *= 0.01 * n_cls / rates.sum()
    rates = np.minimum(rates, 0.5)
    labels = np.empty((n_obj, n_cls), dtype=bool)
    scores = np.empty((n_obj, n_cls), dtype=dtype)
    for a in range(0, n_obj, 100):  # rows in chunks: no float64 temporary of the matrix
        u = rng.random((min(100, n_obj - a), n_cls), dtype=np.float32)
        labels[a : a + u.shape[0]] = u < rates
        noise = rng.random(u.shape, dtype=np.float32)
        # 4 decimals: ties, as in rounded model outputs
        scores[a : a + u.shape[0]] = np.round(0.7 * noise + 0.3 * labels[a : a + u.shape[0]], 4)
    return scores, labels


def _status(field: str) -> int:
    """A memory field of /proc/self/status (VmRSS: now, VmHWM: peak), in bytes."""
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def _reset_hwm() -> None:
    with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
        fh.write("5")


def measure_one(fn: Callable[[], Any], repeats: int) -> dict[str, float]:
    _reset_hwm()
    base = _status("VmRSS")
    fn()
    rss = _status("VmHWM") - base
    tracemalloc.start()
    tracemalloc.reset_peak()
    start_traced = tracemalloc.get_traced_memory()[0]
    fn()
    traced = tracemalloc.get_traced_memory()[1] - start_traced
    tracemalloc.stop()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return {"rss": float(rss), "traced": float(traced), "seconds": float(np.median(times))}


def run_case(name: str, repeats: int) -> dict[str, Any]:
    from fmacro.optimize import domain, fixed_point, per_class
    from fmacro.optimize.search.points import class_points

    scores, labels = make_case(name)
    prune = "dominated" in inspect.signature(class_points).parameters
    kw = {"dominated": "drop"} if prune else {}
    small = (scores[:60, :8].copy(), labels[:60, :8].copy())
    small[1][0] = True
    for f in (fixed_point, domain, per_class):  # compile outside the measurements
        f(*small)
    class_points(*small, **kw)
    calls = {
        "class_points": lambda: class_points(scores, labels, **kw),
        "fixed_point": lambda: fixed_point(scores, labels),
        "domain": lambda: domain(scores, labels),
        "per_class": lambda: per_class(scores, labels),
    }
    out: dict[str, Any] = {
        "input_bytes": int(scores.nbytes + labels.nbytes),
        "score_bytes": int(scores.nbytes),
        "checksum": float(scores[:, :50].astype(np.float64).sum()) + int(labels.sum()),
        "n_positives": int(labels.sum()),
        "load": os.getloadavg()[0],
    }
    for method in METHODS:
        out[method] = measure_one(calls[method], repeats)
    out["load_after"] = os.getloadavg()[0]
    return out


def time_only(case: str, method: str, repeats: int) -> float:
    """Median seconds of ``method`` on ``case`` in this interpreter (for interleaved runs)."""
    import fmacro.optimize as fo

    scores, labels = make_case(case)
    fn = getattr(fo, method)
    fn(scores[:60, :8], labels[:60, :8])
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(scores, labels)
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def _fmt_mb(x: float) -> str:
    return f"{x / 2**20:,.0f} MB"


def report(before_path: str, after_path: str) -> str:
    before = json.loads(Path(before_path).read_text(encoding="utf-8"))
    after = json.loads(Path(after_path).read_text(encoding="utf-8"))
    lines = [
        "## Memory of the class-points stage (issue 12, item 6)",
        "",
        "`python benchmarks/bench_memory.py` (see its docstring). Extra memory of one call",
        "as a ratio to the input's bytes (scores + bool labels): *traced* is tracemalloc's",
        "peak (numpy allocations; numba's are not traced), *RSS* the peak resident set above",
        "the one before the call (everything, numba's buffers included). Time: median of 3",
        "runs. *before* is main's code (every cut kept, a float64 copy and a full",
        "`np.sort(axis=0)` copy), *after* this branch (dominated cuts dropped, streamed in",
        "column blocks in the scores' own dtype). Same matrices in both (checksums equal).",
        "Load average (1 min) at the start of each run is listed: the 2-core machine is shared",
        "and another session ran beside these runs, so the *times* of before and after (two",
        "runs at different loads) are indicative only; the memory ratios do not depend on load.",
        "",
    ]
    lines += comparison_table(before, after, METHODS)
    return "\n".join(lines) + "\n"


def comparison_table(
    before: dict[str, Any], after: dict[str, Any], methods: tuple[str, ...]
) -> list[str]:
    """The before/after table of ``methods`` over the cases both runs measured, then the
    load averages of each run; refuses runs that did not measure the same matrices."""
    lines = [
        "| case | input | method | traced before | traced after | RSS before | RSS after "
        "| time before | time after |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for case in CASES:
        if case not in before or case not in after:
            continue
        b, a = before[case], after[case]
        if b["checksum"] != a["checksum"]:
            raise SystemExit(f"{case}: the two runs did not measure the same matrices")
        size = a["input_bytes"]
        for method in methods:
            mb, ma = b[method], a[method]
            lines.append(
                f"| {case} | {_fmt_mb(size)} | {method} "
                f"| {mb['traced'] / size:.2f}x | {ma['traced'] / size:.2f}x "
                f"| {mb['rss'] / size:.2f}x | {ma['rss'] / size:.2f}x "
                f"| {mb['seconds']:.2f} s | {ma['seconds']:.2f} s |"
            )
    lines += ["", "Load average (1 min) at start/end of each run:", ""]
    for case in CASES:
        if case in before and case in after:
            b, a = before[case], after[case]
            positives = f"; {a['n_positives']:,} positive labels" if "n_positives" in a else ""
            lines.append(
                f"- {case}: before {b['load']:.2f}/{b['load_after']:.2f}, "
                f"after {a['load']:.2f}/{a['load_after']:.2f}{positives}"
            )
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--label")
    ap.add_argument("--json")
    ap.add_argument("--case", help="run one case in this process (internal)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--report", nargs=2, metavar=("BEFORE", "AFTER"))
    ap.add_argument("--time-only", metavar="METHOD", help="with --case: print its median time")
    args = ap.parse_args(argv)
    if args.time_only:
        print(f"{args.time_only} {time_only(args.case, args.time_only, args.repeats):.3f} s")
        return 0
    if args.report:
        text = report(*args.report)
        (HERE / "results_memory.md").write_text(text, encoding="utf-8")
        print(text)
        return 0
    if args.case:
        print(json.dumps(run_case(args.case, args.repeats)))
        return 0
    results: dict[str, Any] = {"label": args.label, **run_cases(__file__, args.repeats)}
    Path(args.json).write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


def run_cases(script: str, repeats: int) -> dict[str, Any]:
    """``script --case C`` for every case, one process each (no memory carried over)."""
    results: dict[str, Any] = {}
    for case in CASES:
        proc = subprocess.run(
            [sys.executable, script, "--case", case, "--repeats", str(repeats)],
            check=True,
            capture_output=True,
            text=True,
        )
        results[case] = json.loads(proc.stdout.strip().splitlines()[-1])
        print(case, json.dumps(results[case]), flush=True)
    return results


if __name__ == "__main__":
    sys.exit(main())
