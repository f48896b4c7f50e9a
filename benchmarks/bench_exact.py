"""Benchmarks for fmacro.optimize.search.exact (issue 15): the cost of the proven optimum.

(a) the bundled Corel5k rankings (374 labels, 500 test images), beta 0.5 / 1 / 2;
(b) synthetic extreme classification (100,000 classes, 10^7 retrieved entries, the
    generator of bench_optimize.py part b);
(c) few classes with many objects (5-20 classes, 10^4-10^5 objects; calibrated and
    Gaussian scores), where fixed_point's gap is largest;
(d) ``tune``'s smoothed problem by the linearization alone and with the exact step
    (``fixed_point``'s default, so tune's).

``exact`` and ``fixed_point(..., exact=False)`` (the linearization alone; since 0.2
``fixed_point`` runs the exact step itself by default) are timed interleaved (same
load), medians of repeats;
"from scores" includes building the per-class points, "on points" starts from
prebuilt :class:`~fmacro.optimize.search.points.ClassPoints`. Writes benchmarks/results_exact.md.

Usage::

    PYTHONPATH=. python benchmarks/bench_exact.py [--quick] [--parts abc] [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from fmacro.optimize import exact
from fmacro.optimize.io import load_scores_npz
from fmacro.optimize.search.fixed_point import fixed_point
from fmacro.optimize.search.points import class_points
from fmacro.optimize.synthetic import calibrated_probabilities, dense_scores, extreme_rankings
from fmacro.optimize.tuning.smoothing import smooth_points

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import fmt_ratio, fmt_seconds, machine_facts, measure_interleaved

RESULTS = Path(__file__).with_name("results_exact.md")
COREL = Path(__file__).resolve().parents[1] / "optimize" / "data" / "corel5k_test_scores.npz"


def _diag(res: Any) -> str:
    d = res.diagnostics
    return (
        f"{d['n_points']:,} | {d['n_survivors']:,} | {d['n_multi_classes']} | "
        f"{d['n_nodes']:,} | {d['max_front']:,}"
    )


def warm_up() -> None:
    s, y = calibrated_probabilities(500, 6, seed=0)
    for b in (0.5, 1.0, 2.0):
        exact(s, y, beta=b)
        fixed_point(s, y, beta=b, exact=False)


def part_a(repeats: int) -> list[str]:
    s, y = load_scores_npz(COREL)
    pts = class_points(s, y)
    rows = [
        f"### (a) Corel5k test rankings: {s.shape[0]} images, {s.shape[1]} labels, "
        f"{pts.n_classes} with positives",
        "",
        "| beta | fixed_point (from scores) | exact (from scores) | ratio | on points: "
        "fixed_point / exact | ratio | F fixed_point | F exact | fixed_point gap | "
        "non-dominated cuts | survivors | classes searched | B&B nodes | max front |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for b in (0.5, 1.0, 2.0):
        t = measure_interleaved(
            {
                "fp": lambda b=b: fixed_point(s, y, beta=b, exact=False),
                "ex": lambda b=b: exact(s, y, beta=b),
                "fp_pts": lambda b=b: fixed_point(points=pts, beta=b, exact=False),
                "ex_pts": lambda b=b: exact(points=pts, beta=b),
            },
            repeats=repeats,
        )
        fp = fixed_point(points=pts, beta=b, exact=False)
        ex = exact(points=pts, beta=b)
        rows.append(
            f"| {b:g} | {fmt_seconds(t['fp'].median)} | {fmt_seconds(t['ex'].median)} | "
            f"{fmt_ratio(t['ex'].median / t['fp'].median)} | "
            f"{fmt_seconds(t['fp_pts'].median)} / {fmt_seconds(t['ex_pts'].median)} | "
            f"{fmt_ratio(t['ex_pts'].median / t['fp_pts'].median)} | {fp.f:.6f} | {ex.f:.6f} | "
            f"{fp.gap:.2e} | {_diag(ex)} |"
        )
    rows += ["", f"Medians of {repeats} interleaved runs.", ""]
    return rows


def part_b(n_obj: int, n_cls: int, top: int, repeats: int) -> list[str]:
    scores, labels = extreme_rankings(n_obj, n_cls, top, seed=2)
    pts = class_points(scores, labels)
    rows = [
        f"### (b) extreme classification: {n_obj:,} objects, {n_cls:,} classes, "
        f"{scores.nnz:,} retrieved entries, {pts.n_classes:,} classes with positives",
        "",
        "| beta | fixed_point (from scores) | exact (from scores) | ratio | on points: "
        "fixed_point / exact | ratio | F fixed_point | F exact | fixed_point gap | "
        "non-dominated cuts | survivors | classes searched | B&B nodes | max front |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for b in (1.0,) if repeats < 3 else (0.5, 1.0, 2.0):
        t = measure_interleaved(
            {
                "fp": lambda b=b: fixed_point(scores, labels, beta=b, exact=False),
                "ex": lambda b=b: exact(scores, labels, beta=b),
                "fp_pts": lambda b=b: fixed_point(points=pts, beta=b, exact=False),
                "ex_pts": lambda b=b: exact(points=pts, beta=b),
            },
            repeats={"fp": repeats, "ex": repeats, "fp_pts": 2 * repeats, "ex_pts": 2 * repeats},
            warmup=0,
        )
        fp = fixed_point(points=pts, beta=b, exact=False)
        ex = exact(points=pts, beta=b)
        rows.append(
            f"| {b:g} | {fmt_seconds(t['fp'].median)} | {fmt_seconds(t['ex'].median)} | "
            f"{fmt_ratio(t['ex'].median / t['fp'].median)} | "
            f"{fmt_seconds(t['fp_pts'].median)} / {fmt_seconds(t['ex_pts'].median)} | "
            f"{fmt_ratio(t['ex_pts'].median / t['fp_pts'].median)} | {fp.f:.8f} | {ex.f:.8f} | "
            f"{fp.gap:.2e} | {_diag(ex)} |"
        )
    rows += [
        "",
        f"Medians of {repeats} (from scores) and {2 * repeats} (on points) interleaved runs.",
        "",
    ]
    return rows


def part_c(sizes: list[int], classes: list[int], repeats: int) -> list[str]:
    rows = [
        "### (c) few classes, many objects (dense scores, on prebuilt points)",
        "",
        "| scores | objects | classes | beta | fixed_point | exact | F fixed_point | "
        "fixed_point bound | F exact (proven) | non-dominated cuts | survivors | "
        "classes searched | B&B nodes | max front |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    worst = 0.0
    unfinished = 0
    for gen in ("calibrated", "gaussian"):
        for n_obj in sizes:
            for n_cls in classes:
                if gen == "calibrated":
                    s, y = calibrated_probabilities(n_obj, n_cls, seed=1)
                else:
                    s, y = dense_scores(n_obj, n_cls, seed=1)
                pts = class_points(s, y)
                for b in (0.5, 1.0, 2.0):
                    t = measure_interleaved(
                        {
                            "fp": lambda b=b, pts=pts: fixed_point(points=pts, beta=b, exact=False),
                            "ex": lambda b=b, pts=pts: exact(points=pts, beta=b),
                        },
                        repeats=repeats,
                    )
                    fp = fixed_point(points=pts, beta=b, exact=False)
                    ex = exact(points=pts, beta=b)
                    worst = max(worst, t["ex"].median)
                    unfinished += ex.diagnostics["status"] != "optimal"
                    rows.append(
                        f"| {gen} | {n_obj:,} | {n_cls} | {b:g} | {fmt_seconds(t['fp'].median)} | "
                        f"{fmt_seconds(t['ex'].median)} | {fp.f:.6f} | {fp.upper_bound:.6f} | "
                        f"{ex.f:.6f} | {_diag(ex)} |"
                    )
                    print(rows[-1], flush=True)
    rows += [
        "",
        f"Slowest exact solve: {fmt_seconds(worst)}. Medians of {repeats} interleaved runs. "
        + (
            "Every exact row finished (status optimal, gap 0)."
            if not unfinished
            else f"{unfinished} exact row(s) did not finish."
        ),
        "",
    ]
    return rows


def part_d(repeats: int) -> list[str]:
    """tune's smoothed problem: fixed_point with its exact step (tune's) and without."""
    cases: list[tuple[str, Any, Any]] = []
    s, y = load_scores_npz(COREL)
    cases.append(("Corel5k", s, y))
    for n_obj, n_cls in ((10_000, 5), (10_000, 20), (100_000, 5), (100_000, 20)):
        cs, cy = calibrated_probabilities(n_obj, n_cls, seed=1)
        cases.append((f"calibrated {n_obj:,} x {n_cls}", cs, cy))
    rows = [
        "### (d) tune: the smoothed problem with and without the exact step",
        "",
        "| data | beta | linearization (exact=False) | fixed_point (tune's default) | ratio | "
        "smoothed F linearization | smoothed F proven | linearization gap | proof | "
        "classes searched | B&B nodes |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|",
    ]
    for name, cs, cy in cases:
        smoothed = smooth_points(class_points(cs, cy), 3.0)
        for b in (0.5, 1.0, 2.0):
            t = measure_interleaved(
                {
                    "fp": lambda b=b, sm=smoothed: fixed_point(points=sm, beta=b, exact=False),
                    "ex": lambda b=b, sm=smoothed: fixed_point(points=sm, beta=b),
                },
                repeats=repeats,
            )
            lin = fixed_point(points=smoothed, beta=b, exact=False)
            ex = fixed_point(points=smoothed, beta=b)
            sd = ex.diagnostics.get("exact")
            rows.append(
                f"| {name} | {b:g} | {fmt_seconds(t['fp'].median)} | "
                f"{fmt_seconds(t['ex'].median)} | {fmt_ratio(t['ex'].median / t['fp'].median)} | "
                f"{lin.f:.6f} | {ex.f:.6f} | {lin.gap:.2e} | "
                + (
                    f"{sd['proof']} | {sd['n_multi_classes']} | {sd['n_nodes']:,} |"
                    if sd
                    else "fixed point (no search) | 0 | 0 |"
                )
            )
            print(rows[-1], flush=True)
    rows += [
        "",
        "On tune's smoothed points (prior 3, n_eval = the tuning rows), built once; the "
        f"exact step is what tune's default adds to the linearization. Medians of {repeats} "
        "interleaved runs.",
        "",
    ]
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--quick", action="store_true", help="small problems (seconds)")
    ap.add_argument("--parts", default="abcd", help="which parts to run, e.g. 'ac'")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args(argv)
    warm_up()
    facts = machine_facts(["numpy", "numba"])
    lines = [
        "# exact F-macro optimum (fmacro.optimize.search.exact)"
        + (" (--quick)" if args.quick else ""),
        "",
        "Machine: " + "; ".join(f"{k}: {v}" for k, v in facts.items()) + ". numba kernels "
        "warmed up before timing. *Survivors*: non-dominated cuts left after the "
        "dual-bound reduction; *classes searched*: classes left with more than one "
        "survivor (the others are fixed); *B&B nodes*: partial sums kept by the pruned "
        "Pareto merge, summed over its levels.",
        "",
    ]
    if "a" in args.parts:
        lines += part_a(args.repeats)
    if "b" in args.parts:
        nb = (100_000, 10_000, 10) if args.quick else (1_000_000, 100_000, 10)
        lines += part_b(*nb, repeats=max(1, args.repeats // 2))
    if "c" in args.parts:
        sizes = [10_000] if args.quick else [10_000, 100_000]
        classes = [5, 10] if args.quick else [5, 10, 20]
        lines += part_c(sizes, classes, args.repeats)
    if "d" in args.parts:
        lines += part_d(args.repeats)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    lines += [f"Load average (1, 5, 15 min) at the end of the run: {load}.", ""]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        RESULTS.write_text(text.rstrip("\n") + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
