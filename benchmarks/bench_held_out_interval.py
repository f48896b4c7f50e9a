"""Coverage of ``optimize.held_out_interval`` on Mulan sets: does the measured test F-macro
of tuned thresholds fall in the interval predicted from the tuning rows?

Protocol. For each dataset (all its rows, official train and test stacked) and seed, a
random split: 50% fitting rows, 25% tuning rows, 25% test rows. Two closed-form scorers
fitted on the fitting rows: ridge one-vs-rest (standardized features, alpha = 10, as in
``same_results.py``) and a centroid scorer (per label: the standardized features' dot
product with the mean of its positives minus the mean of its negatives; Rocchio). Then
``held_out_interval(tuning scores, tuning labels, n_eval=test size, method="tune",
n_resamples=B, seed)`` and ``f_macro`` of ``.result`` on the test rows. One interval run
gives every level (``.interval(level)``) and the variants compared:

* ``632`` (the default for ``tune``), ``632+``, ``oob``, ``optimism`` (the apparent F
  minus the mean bootstrap optimism, tuned F on the resample minus F on all rows): the
  centre's correction (same draws, re-centred);
* ``naive``: percentile interval of the tuned F over the resamples (each resample's
  thresholds scored on the resample itself);
* ``prototype``: each resample's out-of-bag F plus the batch noise of ``n_eval`` rows
  (the issue's prototype).

The same splits and scores also get ``method="fixed_point"`` (the in-sample optimum; its
default centre is ``.632+``), in a table of their own.

Writes ``results_held_out_interval.md`` (``--raw FILE``: every interval's row as JSON).
The recorded run (about 7 minutes on the shared 2-core machine)::

    python benchmarks/bench_held_out_interval.py --seeds 17 --resamples 100
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("FMACRO_DATA", HERE.parent.parent / "shared" / "data"))
DATASETS = ("emotions", "scene", "yeast", "birds", "enron", "medical")
SCORERS = ("ridge", "centroid")
METHODS = ("tune", "fixed_point")
LEVELS = (0.95, 0.8)
VARIANTS = ("632", "632+", "oob", "optimism", "naive", "prototype")
RESULTS = HERE / "results_held_out_interval.md"


def standardize(x_fit: np.ndarray, *others: np.ndarray) -> list[np.ndarray]:
    mu = x_fit.mean(axis=0)
    sd = x_fit.std(axis=0)
    sd[sd == 0] = 1.0
    return [(x - mu) / sd for x in (x_fit, *others)]


def ridge_scores(x_fit: np.ndarray, y_fit: np.ndarray, *others: np.ndarray) -> list[np.ndarray]:
    xs = standardize(x_fit, *others)
    xc, rest = xs[0], xs[1:]
    ym = y_fit.mean(axis=0)
    n, d = xc.shape
    alpha = 10.0
    if n >= d:
        w = np.linalg.solve(xc.T @ xc + alpha * np.eye(d), xc.T @ (y_fit - ym))
    else:
        w = xc.T @ np.linalg.solve(xc @ xc.T + alpha * np.eye(n), y_fit - ym)
    return [x @ w + ym for x in rest]


def centroid_scores(x_fit: np.ndarray, y_fit: np.ndarray, *others: np.ndarray) -> list[np.ndarray]:
    xs = standardize(x_fit, *others)
    xc, rest = xs[0], xs[1:]
    pos = y_fit.sum(axis=0)
    neg = y_fit.shape[0] - pos
    mean_pos = (xc.T @ y_fit) / np.maximum(pos, 1)
    mean_neg = (xc.T @ (1 - y_fit)) / np.maximum(neg, 1)
    w = mean_pos - mean_neg
    return [x @ w for x in rest]


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    from fmacro.validation.datasets import load_dataset

    x, y = load_dataset(name, "all", path=DATA)
    return np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)


def one_split(name: str, x: np.ndarray, y: np.ndarray, seed: int, resamples: int) -> list[dict]:
    n = x.shape[0]
    perm = np.random.default_rng(1000 + seed).permutation(n)
    fit, tune_rows, test = perm[: n // 2], perm[n // 2 : 3 * n // 4], perm[3 * n // 4 :]
    rows = []
    for scorer in SCORERS:
        score = ridge_scores if scorer == "ridge" else centroid_scores
        s_tune, s_test = score(x[fit], y[fit], x[tune_rows], x[test])
        y_tune, y_test = y[tune_rows].astype(np.uint8), y[test].astype(np.uint8)
        for method in METHODS:
            rows.append(
                one_interval(name, scorer, seed, method, s_tune, y_tune, s_test, y_test, resamples)
            )
    return rows


def one_interval(
    name: str,
    scorer: str,
    seed: int,
    method: str,
    s_tune: np.ndarray,
    y_tune: np.ndarray,
    s_test: np.ndarray,
    y_test: np.ndarray,
    resamples: int,
) -> dict[str, Any]:
    from fmacro import optimize

    n_test = s_test.shape[0]
    start = time.perf_counter()
    h = optimize.held_out_interval(
        s_tune, y_tune, n_eval=n_test, method=method, n_resamples=resamples, seed=seed
    )
    seconds = time.perf_counter() - start
    fit = getattr(optimize, method)
    options = {"n_eval": n_test} if method == "tune" else {}
    start = time.perf_counter()
    fit(s_tune, y_tune, **options)
    method_seconds = time.perf_counter() - start
    test_f = optimize.f_macro(s_test, y_test, h.result)
    row: dict[str, Any] = {
        "dataset": name,
        "scorer": scorer,
        "seed": seed,
        "method": method,
        "n_tune": int(s_tune.shape[0]),
        "n_test": n_test,
        "n_classes": int(y_tune.shape[1]),
        "tuned_f": h.result.f,
        "test_f": test_f,
        "estimate": h.estimate,
        "correction": h.correction,
        "f_apparent": h.f_apparent,
        "f_out_of_bag": h.f_out_of_bag,
        "weight": h.weight,
        "seconds": seconds,
        "method_seconds": method_seconds,
    }
    centres = {
        "632": (1 - 0.632) * h.f_apparent + 0.632 * h.f_out_of_bag + h.batch_shift,
        "632+": blend_632_plus(h.f_apparent, h.f_out_of_bag, h.f_no_information) + h.batch_shift,
        "oob": h.f_out_of_bag + h.batch_shift,
        "optimism": h.f_apparent
        - float(np.mean(h.resample_tuned - h.resample_all_rows))
        + h.batch_shift,
    }
    centres[h.correction] = h.estimate  # the default, exactly as returned
    # the prototype's batch spread is drawn here (the interval's draws hold a sum)
    rng = np.random.default_rng(seed)
    proto = h.resample_out_of_bag[rng.integers(0, resamples, h.draws.size)]
    for level in LEVELS:
        tail = (1 - level) / 2
        for variant in VARIANTS:
            if variant in centres:
                low, high = h.interval(level)
                shift = centres[variant] - h.estimate
                low, high = low + shift, high + shift
            elif variant == "naive":
                low, high = np.quantile(h.resample_tuned, [tail, 1 - tail])
            else:
                low, high = np.quantile(
                    proto + _batch_noise(h, s_tune, y_tune, n_test, rng), [tail, 1 - tail]
                )
            row[f"{variant}@{level}"] = [float(low), float(high)]
    return row


def blend_632_plus(f_app: float, f_oob: float, f_none: float) -> float:
    """Efron and Tibshirani's .632+ value for a measure where higher is better."""
    w0 = 1 - np.exp(-1)
    floor = max(f_oob, min(f_none, f_app))
    rate = 0.0
    if f_app > floor and f_app > f_none:
        rate = min(max((f_app - floor) / (f_app - f_none), 0.0), 1.0)
    weight = w0 / (1 - (1 - w0) * rate)
    return (1 - weight) * f_app + weight * floor


def _batch_noise(h: Any, s: np.ndarray, y: np.ndarray, n_eval: int, rng: Any) -> np.ndarray:
    """Centred F of the final thresholds on batches of n_eval rows (the prototype's spread)."""
    from fmacro.optimize.uncertainty import measure_of_counts

    hits = s >= h.result.thresholds[None, :]
    w = rng.multinomial(n_eval, np.full(s.shape[0], 1 / s.shape[0]), size=h.draws.size)
    yb = y.astype(bool)
    f = measure_of_counts(
        w @ (hits & yb).astype(float), w @ hits.astype(float), w @ yb.astype(float)
    )
    return f - np.nanmean(f)


def _cover(rs: list[dict], key: str) -> tuple[float, float, int]:
    hit = [r[key][0] <= r["test_f"] <= r[key][1] for r in rs]
    widths = [r[key][1] - r[key][0] for r in rs]
    return float(np.mean(hit)), float(np.median(widths)), int(np.sum(hit))


def _variant_table(rows: list[dict], names: dict[str, str]) -> list[str]:
    n = len(rows)
    lines = [
        "| interval | coverage at 0.95 | median width at 0.95 | coverage at 0.8 | "
        "median width at 0.8 |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for variant, label in names.items():
        c95, w95, k95 = _cover(rows, f"{variant}@0.95")
        c80, w80, k80 = _cover(rows, f"{variant}@0.8")
        lines.append(
            f"| {label} | {c95:.3f} ({k95}/{n}) | {w95:.4f} | {c80:.3f} ({k80}/{n}) | {w80:.4f} |"
        )
    return lines


def _footer(rows: list[dict], method: str, resamples: int) -> str:
    err = np.array([r["estimate"] - r["test_f"] for r in rows])
    opt = np.array([r["tuned_f"] - r["test_f"] for r in rows])
    cost = np.median([r["seconds"] / r["method_seconds"] for r in rows])
    return (
        f"Estimate minus test F: mean {err.mean():+.4f}, mean absolute {np.abs(err).mean():.4f}; "
        f"the tuned (in-sample) F minus test F: mean {opt.mean():+.4f}. "
        f"Cost: median {cost:.0f}x one `{method}` call ({resamples} resamples)."
    )


def summarize(rows: list[dict], resamples: int, seeds: int, minutes: float) -> str:
    tuned = [r for r in rows if r["method"] == "tune"]
    n = len(tuned)
    lines = [
        "# held_out_interval: coverage of the held-out F-macro of tuned thresholds",
        "",
        f"Written by `benchmarks/bench_held_out_interval.py` ({n} intervals: "
        f"{len(DATASETS)} Mulan sets ({', '.join(DATASETS)}) x {len(SCORERS)} scorers "
        f"(ridge, centroid) x {seeds} seeds; each seed a random 50/25/25 split of all rows "
        f"into fitting, tuning and test rows; `tune` defaults, n_eval = test size, "
        f"{resamples} resamples; {minutes:.1f} minutes in all, `fixed_point` below "
        "included). Coverage: share of the intervals holding the test F-macro of "
        "`.result`; width: median of high - low.",
        "",
        *_variant_table(
            tuned,
            {
                "632": "held_out_interval (default for tune: .632 centre)",
                "632+": "same draws, .632+ centre",
                "oob": "same draws, out-of-bag centre",
                "optimism": "same draws, optimism-corrected centre",
                "naive": "naive: percentiles of the tuned F over resamples",
                "prototype": "prototype: out-of-bag F per resample + batch noise",
            },
        ),
        "",
        "## Per dataset (default interval)",
        "",
        "| dataset | tuning rows | classes | intervals | coverage at 0.95 | coverage at 0.8 | "
        "median width at 0.95 | mean test F | mean estimate | mean tuned F |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name in DATASETS:
        rs = [r for r in tuned if r["dataset"] == name]
        c95, w95, _ = _cover(rs, "632@0.95")
        c80, _, _ = _cover(rs, "632@0.8")
        lines.append(
            f"| {name} | {rs[0]['n_tune']} | {rs[0]['n_classes']} | {len(rs)} | {c95:.3f} | "
            f"{c80:.3f} | {w95:.4f} | {np.mean([r['test_f'] for r in rs]):.4f} | "
            f"{np.mean([r['estimate'] for r in rs]):.4f} | "
            f"{np.mean([r['tuned_f'] for r in rs]):.4f} |"
        )
    lines += ["", _footer(tuned, "tune", resamples), ""]
    fixed = [r for r in rows if r["method"] == "fixed_point"]
    if fixed:
        lines += [
            "## fixed_point (the in-sample optimum), same splits and scores",
            "",
            *_variant_table(
                fixed,
                {
                    "632+": "held_out_interval (default for fixed_point: .632+ centre)",
                    "632": "same draws, .632 centre",
                    "oob": "same draws, out-of-bag centre",
                    "naive": "naive: percentiles of the tuned F over resamples",
                    "prototype": "prototype: out-of-bag F per resample + batch noise",
                },
            ),
            "",
            _footer(fixed, "fixed_point", resamples),
            "",
        ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=17)
    parser.add_argument("--resamples", type=int, default=100)
    parser.add_argument("--raw", metavar="FILE", help="also write every interval's row as JSON")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    rows: list[dict] = []
    for name in DATASETS:
        x, y = load(name)
        for seed in range(args.seeds):
            rows.extend(one_split(name, x, y, seed, args.resamples))
            print(name, seed, f"{time.perf_counter() - start:.0f}s", file=sys.stderr, flush=True)
    minutes = (time.perf_counter() - start) / 60
    if args.raw:
        Path(args.raw).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    RESULTS.write_text(summarize(rows, args.resamples, args.seeds, minutes), encoding="utf-8")
    print(RESULTS.read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
