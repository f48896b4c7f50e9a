"""Benchmarks for optimize: per-class thresholds, extreme scale, and xcolumns.

(a) dense N x L scores: ``per_class`` vs the numpy floor ``np.sort(scores, axis=0)``
    vs looping scikit-learn's ``precision_recall_curve`` over the classes (timed on
    a subset of classes and extrapolated linearly; the table says so).
(b) synthetic extreme classification (power-law class sizes, top-k retrieved
    entries per object in CSR): ``class_points``, ``per_class`` and
    ``fixed_point`` (with its certificate) on the same input.
(c) calibrated probabilities: F reached and time of our threshold methods vs
    xcolumns' block coordinate ascent and Frank-Wolfe macro-F1 optimizers.

Medians of repeats, all in the same run. ``--quick`` shrinks every problem.
Writes each part's markdown table to benchmarks/results_optimize.md between its own
markers (other parts and the Corel5k example's table in the same file are kept), so
the parts can be run one at a time.

Usage::

    python benchmarks/bench_optimize.py [--quick] [--parts abc] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from fmacro.optimize.baselines import global_threshold, per_class, proportional
from fmacro.optimize.evaluation import evaluate_thresholds
from fmacro.optimize.search.points import class_points
from fmacro.optimize.synthetic import calibrated_probabilities, dense_scores, extreme_rankings
from fmacro.validation.multilabel import MultiLabelFValidation

RESULTS = Path(__file__).with_name("results_optimize.md")


def _fixed_point() -> Callable[..., Any] | None:
    try:
        from fmacro.optimize.search.fixed_point import fixed_point
    except ImportError:  # the colleague's module is not there yet
        return None
    return fixed_point


def median_time(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    times = []
    out = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def warm_up() -> None:
    """Compile (or load cached) numba kernels outside the timed region."""
    s, y = dense_scores(50, 6, seed=0)
    per_class(s, y)
    per_class(points=class_points(s, y))
    global_threshold(s, y)
    fp = _fixed_point()
    if fp is not None:
        fp(s, y)
    ss, yy = extreme_rankings(200, 50, 5, seed=0)
    per_class(ss, yy)
    if fp is not None:
        fp(ss, yy)


# --------------------------------------------------------------------------- (a)


def sklearn_per_class(scores: np.ndarray, labels: np.ndarray, cols: np.ndarray) -> np.ndarray:
    from sklearn.metrics import precision_recall_curve

    out = np.empty(cols.size)
    for i, k in enumerate(cols):
        p, r, t = precision_recall_curve(labels[:, k], scores[:, k])
        with np.errstate(invalid="ignore", divide="ignore"):
            f = np.nan_to_num(2 * p * r / (p + r))
        out[i] = t[min(int(np.argmax(f[:-1])), t.size - 1)]
    return out


def part_a(n_obj: int, n_cls: int, repeats: int, n_sk: int) -> list[str]:
    scores, labels = dense_scores(n_obj, n_cls, seed=1)
    t_sort, _ = median_time(lambda: np.sort(scores, axis=0), repeats)
    t_tsort, _ = median_time(lambda: np.sort(np.ascontiguousarray(scores.T), axis=1), repeats)
    t_ours, res = median_time(lambda: per_class(scores, labels), repeats)
    cols = np.arange(min(n_sk, n_cls))
    t_sub, thr_sk = median_time(lambda: sklearn_per_class(scores, labels, cols), repeats)
    t_sk = t_sub * n_cls / cols.size
    # same thresholds as scikit-learn on the subset (sanity, not timed)
    agree = float(np.mean(np.asarray(res.thresholds)[cols] == thr_sk))
    return [
        f"### (a) per-class F1-optimal thresholds, dense {n_obj:,} x {n_cls:,}",
        "",
        "| method | time (s) | vs np.sort |",
        "| --- | ---: | ---: |",
        f"| numpy floor: `np.sort(scores, axis=0)` | {t_sort:.3f} | 1.00x |",
        f"| numpy: transpose + contiguous sort `np.sort(scores.T.copy(), axis=1)` | "
        f"{t_tsort:.3f} | {t_tsort / t_sort:.2f}x |",
        f"| fmacro `per_class` (T_b) | {t_ours:.3f} | {t_ours / t_sort:.2f}x |",
        f"| scikit-learn `precision_recall_curve` loop (extrapolated from "
        f"{cols.size} classes: {t_sub:.3f} s) | {t_sk:.1f} | {t_sk / t_sort:.1f}x |",
        "",
        f"per_class is {t_sk / t_ours:.0f}x faster than the scikit-learn loop; "
        f"thresholds agree with scikit-learn's argmax on {agree:.0%} of the timed classes. "
        f"Median of {repeats} runs.",
        "",
    ]


# --------------------------------------------------------------------------- (b)


def part_b(n_obj: int, n_cls: int, top: int, repeats: int) -> list[str]:
    t0 = time.perf_counter()
    scores, labels = extreme_rankings(n_obj, n_cls, top, seed=2)
    t_gen = time.perf_counter() - t0
    t_pts, pts = median_time(lambda: class_points(scores, labels), repeats)
    t_pc_pts, res_pc = median_time(lambda: per_class(points=pts), repeats)
    t_pc, _ = median_time(lambda: per_class(scores, labels), repeats)
    rows = [
        f"### (b) extreme classification: {n_obj:,} objects, {n_cls:,} classes, "
        f"{scores.nnz:,} retrieved entries (top {top}), {pts.n_classes:,} classes with "
        "support",
        "",
        "| step | time (s) | vs per_class | F-macro | upper bound | gap |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
        f"| `class_points` (CSR -> per-class points) | {t_pts:.3f} | | | | |",
        f"| `per_class` on prebuilt points | {t_pc_pts:.3f} | | | | |",
        f"| `per_class` from scores (incl. points) | {t_pc:.3f} | 1.00x | {res_pc.f:.5f} | - | - |",
    ]
    fp = _fixed_point()
    if fp is None:
        rows.append("| `fixed_point` | not available | | | | |")
    else:
        t_fp_pts, res_fp = median_time(lambda: fp(points=pts), repeats)
        t_fp, _ = median_time(lambda: fp(scores, labels), repeats)
        rows += [
            f"| `fixed_point` on prebuilt points | {t_fp_pts:.3f} | | | | |",
            f"| `fixed_point` from scores (incl. points, certificate) | {t_fp:.3f} | "
            f"{t_fp / t_pc:.2f}x | {res_fp.f:.5f} | {res_fp.upper_bound:.5f} | "
            f"{res_fp.gap:.2e} |",
        ]
    rows += [
        "",
        f"Generator time (not timed above): {t_gen:.1f} s. Median of {repeats} runs.",
        "",
    ]
    return rows


# --------------------------------------------------------------------------- (c)


def _scores_of(labels: np.ndarray, pred: np.ndarray) -> tuple[float, float]:
    kept = labels.sum(axis=0) > 0
    v = MultiLabelFValidation.from_predictions(labels[:, kept], pred[:, kept].astype(np.uint8))
    return v.macro_f, v.f_macro


def part_c(n_obj: int, n_cls: int, repeats: int) -> list[str]:
    from xcolumns.block_coordinate import predict_optimizing_macro_f1_score_using_bc
    from xcolumns.frank_wolfe import find_classifier_using_fw
    from xcolumns.metrics import macro_f1_score_on_conf_matrix

    probs, labels = calibrated_probabilities(2 * n_obj, n_cls, seed=3)
    p_tune, y_tune = probs[:n_obj], labels[:n_obj]
    p_test, y_test = probs[n_obj:], labels[n_obj:]
    rows = [
        f"### (c) calibrated probabilities, {n_obj:,} x {n_cls:,} test problem",
        "",
        "Thresholds are tuned on a separate tuning sample of the same size (as Frank-Wolfe "
        "is trained); block coordinate ascent works on the test probabilities alone "
        "(expected-utility inference); the oracle tunes per-class thresholds on the test "
        "labels themselves. macro-F1 = mean of per-class F1 (what xcolumns optimizes); "
        "F-macro = F1(macro P, macro R). Classes with positives in the test sample.",
        "",
        "| method | time (s) | macro-F1 (test) | F-macro (test) |",
        "| --- | ---: | ---: | ---: |",
    ]

    def thr_row(name: str, fn: Callable[[], Any]) -> None:
        t, res = median_time(fn, repeats)
        ev = evaluate_thresholds(p_test, y_test, res)
        rows.append(f"| {name} | {t:.3f} | {ev.macro_f:.4f} | {ev.f:.4f} |")

    thr_row("fmacro `per_class` (T_b, tuned)", lambda: per_class(p_tune, y_tune))
    thr_row("fmacro `global_threshold` (tuned)", lambda: global_threshold(p_tune, y_tune))
    thr_row("fmacro `proportional` (tuned)", lambda: proportional(p_tune, y_tune))
    fp = _fixed_point()
    if fp is not None:
        thr_row("fmacro `fixed_point` (tuned, F-macro optimum)", lambda: fp(p_tune, y_tune))
    t, oracle = median_time(lambda: per_class(p_test, y_test), repeats)
    ev = evaluate_thresholds(p_test, y_test, oracle)
    rows.append(
        f"| fmacro `per_class` oracle (tuned on test) | {t:.3f} | {ev.macro_f:.4f} | {ev.f:.4f} |"
    )
    t_bc, pred_bc = median_time(
        lambda: predict_optimizing_macro_f1_score_using_bc(p_test, k=0, seed=0), 1
    )
    mf, fm = _scores_of(y_test, np.asarray(pred_bc))
    rows.append(
        f"| xcolumns block coordinate ascent (macro-F1, k=0) | {t_bc:.3f} | {mf:.4f} | {fm:.4f} |"
    )

    def fw() -> Any:
        clf = find_classifier_using_fw(
            y_tune.astype(np.float64),
            p_tune,
            macro_f1_score_on_conf_matrix,
            k=0,
            skip_tn=True,
            seed=0,
        )
        return clf.predict(p_test, seed=0)

    t_fw, pred_fw = median_time(fw, 1)
    mf, fm = _scores_of(y_test, np.asarray(pred_fw))
    rows.append(
        f"| xcolumns Frank-Wolfe (macro-F1, k=0, train + predict) | {t_fw:.3f} | "
        f"{mf:.4f} | {fm:.4f} |"
    )
    rows += ["", f"fmacro rows: median of {repeats} runs; xcolumns rows: one run each.", ""]
    return rows


# --------------------------------------------------------------------------- main


def write_section(key: str, lines: list[str]) -> None:
    """Replace (or append) the block between this key's markers in the results file."""
    begin, end = f"<!-- bench_optimize:{key}:begin -->", f"<!-- bench_optimize:{key}:end -->"
    block = "\n".join([begin, *lines, end])
    text = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else "# optimize benchmarks\n"
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        text = head + block + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    RESULTS.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--quick", action="store_true", help="small problems (seconds)")
    ap.add_argument("--parts", default="abc", help="which parts to run, e.g. 'ab'")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args(argv)
    warm_up()
    head = [
        "## optimize: thresholds at scale" + (" (--quick)" if args.quick else ""),
        "",
        f"Machine: shared 2-core box (other jobs running: expect noise); numpy "
        f"{np.__version__}; numba kernels warmed up before timing. Each part is a separate "
        "invocation (`--parts a`, `b`, `c`); ratios are within one invocation.",
        "",
    ]
    parts: list[tuple[str, Callable[[], list[str]]]] = []
    if "a" in args.parts:
        na = (2_000, 2_000) if args.quick else (10_000, 10_000)
        parts.append(
            ("a", lambda: part_a(*na, repeats=args.repeats, n_sk=100 if args.quick else 200))
        )
    if "b" in args.parts:
        nb = (100_000, 10_000, 10) if args.quick else (1_000_000, 100_000, 10)
        parts.append(("b", lambda: part_b(*nb, repeats=args.repeats)))
    if "c" in args.parts:
        nc = (2_000, 200) if args.quick else (10_000, 1_000)
        parts.append(("c", lambda: part_c(*nc, repeats=args.repeats)))
    print("\n".join(head), flush=True)
    if not args.no_write:
        write_section("header", head)
    for key, run in parts:
        lines = run()
        print("\n".join(lines), flush=True)
        if not args.no_write:
            write_section(key, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
