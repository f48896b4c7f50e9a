"""Calibration of ``fmacro.validation.compare``: false positives under the null, and power.

Writes ``results_compare_calibration.md``. Two parts, one run:

1. **Null** (issue 29, item 5 (b)): two models of the *same* true quality. The truth is
   drawn from a known population and each model's predictions are drawn independently
   from the same conditional distribution given the truth, so the population measures of
   A and B are equal and every rejection of "no difference" at the 5 % level
   (``p_value < 0.05``) is a false positive. Goal: at most 6 %.
2. **Power**: model B's per-class accuracy raised by ``d`` (binary: P(correct | class)
   for both classes; multiclass: P(predicted = expected | class) for every class;
   multi-label: each label's true-positive rate), so B is truly better by the population
   difference given in the table; a rejection is then a true detection.

Each rate comes with its binomial standard error ``sqrt(r (1 - r) / R)`` over ``R``
simulations. Everything is seeded (data: ``numpy.random.default_rng`` keyed on the row;
``compare(seed=simulation index)``).

Run: ``python benchmarks/bench_compare_calibration.py [--quick]``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _timing import machine_facts, markdown_table  # noqa: E402

from fmacro.validation import compare  # noqa: E402

ALPHA = 0.05
N_RESAMPLES = 500

# ----------------------------------------------------------------- populations

# binary: prevalence 0.3; P(correct | positive) = 0.7, P(correct | negative) = 0.9
_BIN_PREVALENCE = 0.3
_BIN_CORRECT = np.array([0.9, 0.7])  # by class: negative, positive

# multiclass: 4 classes, priors 0.4/0.3/0.2/0.1, correct w.p. 0.9/0.7/0.6/0.5, else a wrong
# class uniformly (the population of bench_bootstrap.py)
_K = 4
_PRIORS = np.array([0.4, 0.3, 0.2, 0.1])
_HIT = np.array([0.9, 0.7, 0.6, 0.5])

# multi-label: 10 labels, prevalences 0.05..0.40; TPR 0.7, FPR 0.05 on every label
_L = 10
_PREVALENCES = np.linspace(0.05, 0.40, _L)
_TPR = 0.7
_FPR = 0.05


def _binary_truth(rng: np.random.Generator, n: int) -> np.ndarray:
    return (rng.random(n) < _BIN_PREVALENCE).astype(np.int64)


def _binary_predict(rng: np.random.Generator, y: np.ndarray, d: float) -> np.ndarray:
    correct = rng.random(y.size) < _BIN_CORRECT[y] + d
    return np.where(correct, y, 1 - y)


def _multiclass_truth(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.choice(_K, size=n, p=_PRIORS)


def _multiclass_predict(rng: np.random.Generator, y: np.ndarray, d: float) -> np.ndarray:
    hit = rng.random(y.size) < _HIT[y] + d
    other = (y + rng.integers(1, _K, y.size)) % _K  # a wrong class uniformly
    return np.where(hit, y, other)


def _multilabel_truth(rng: np.random.Generator, n: int) -> np.ndarray:
    return (rng.random((n, _L)) < _PREVALENCES).astype(np.uint8)


def _multilabel_predict(rng: np.random.Generator, y: np.ndarray, d: float) -> np.ndarray:
    u = rng.random(y.shape)
    return np.where(y == 1, u < _TPR + d, u < _FPR).astype(np.uint8)


def _f(precision: np.ndarray, recall: np.ndarray) -> np.ndarray:
    return 2 * precision * recall / (precision + recall)


def population_measure(kind: str, d: float) -> float:
    """The measure ``compare`` tests, of the population's expected counts, for a model
    whose per-class accuracy is raised by ``d`` (binary ``f1``, else ``f_macro``, the F of
    macro precision and macro recall)."""
    if kind == "binary":
        tp = _BIN_PREVALENCE * (_BIN_CORRECT[1] + d)
        fn = _BIN_PREVALENCE - tp
        fp = (1 - _BIN_PREVALENCE) * (1 - _BIN_CORRECT[0] - d)
        return float(2 * tp / (2 * tp + fp + fn))
    if kind == "multiclass":
        hit = _HIT + d
        joint = np.outer(_PRIORS * (1 - hit) / (_K - 1), np.ones(_K))
        np.fill_diagonal(joint, _PRIORS * hit)
        tp = np.diag(joint)
        precision, recall = tp / joint.sum(axis=0), tp / joint.sum(axis=1)
    else:
        tp = _PREVALENCES * (_TPR + d)
        fp = (1 - _PREVALENCES) * _FPR
        precision, recall = tp / (tp + fp), np.full(_L, _TPR + d)
    return float(_f(np.array(precision.mean()), np.array(recall.mean())))


KINDS: dict[str, tuple[Callable[..., Any], Callable[..., Any], str, dict[str, Any]]] = {
    "binary": (_binary_truth, _binary_predict, "f1", {"positive": 1}),
    "multiclass": (_multiclass_truth, _multiclass_predict, "f_macro", {}),
    "multilabel": (_multilabel_truth, _multilabel_predict, "f_macro", {}),
}


def rejection_rate(kind: str, n: int, d: float, reps: int, row_seed: int) -> dict[str, float]:
    """Share of ``reps`` simulations where ``compare`` rejects "no difference" at 5 %."""
    truth, predict, measure, options = KINDS[kind]
    rng = np.random.default_rng(row_seed)
    rejections = 0
    differences = []
    for rep in range(reps):
        y = truth(rng, n)
        a, b = predict(rng, y, 0.0), predict(rng, y, d)
        c = compare(y, b, a, measure=measure, n_resamples=N_RESAMPLES, seed=rep, **options)
        rejections += c.p_value < ALPHA
        differences.append(c.difference)
    rate = rejections / reps
    return {
        "rate": rate,
        "se": math.sqrt(rate * (1 - rate) / reps),
        "rejections": rejections,
        "mean_difference": float(np.mean(differences)),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    null_reps = 100 if args.quick else 1000
    power_reps = 50 if args.quick else 200
    sizes = (200, 1000, 5000)
    t0 = time.time()
    # rows are independent and seeded: two worker processes, same numbers as one
    null_cases = [(kind, n, 0.0, null_reps, 1000 * k + n) for k, kind in enumerate(KINDS)
                  for n in sizes]  # fmt: skip
    power_cases = [
        (kind, n, d, power_reps, 10**6 + 1000 * k + n + int(d * 100))
        for k, kind in enumerate(KINDS)
        for d in (0.02, 0.05, 0.10)
        for n in sizes
    ]
    null_rows: list[list[str]] = []
    power_rows: list[list[str]] = []
    with ProcessPoolExecutor(max_workers=2) as pool:
        null_futures = [pool.submit(rejection_rate, *case) for case in null_cases]
        power_futures = [pool.submit(rejection_rate, *case) for case in power_cases]
        for (kind, n, _, _, _), future in zip(null_cases, null_futures, strict=True):
            r = future.result()
            null_rows.append([
                kind, KINDS[kind][2], f"{n:,}", str(null_reps), str(r["rejections"]),
                f"{r['rate']:.1%}", f"{r['se']:.1%}", f"{r['mean_difference']:+.4f}",
            ])  # fmt: skip
            print("null", kind, n, f"{r['rate']:.3f}", f"{time.time() - t0:.0f}s", flush=True)
        # written now too, so a run stopped during the power part keeps the null table
        write_results(null_rows, power_rows, null_reps, power_reps, t0)
        for (kind, n, d, _, _), future in zip(power_cases, power_futures, strict=True):
            r = future.result()
            true_gap = population_measure(kind, d) - population_measure(kind, 0.0)
            power_rows.append([
                kind, KINDS[kind][2], f"{d:.2f}", f"{true_gap:+.4f}", f"{n:,}",
                str(power_reps), f"{r['rate']:.1%}", f"{r['se']:.1%}",
                f"{r['mean_difference']:+.4f}",
            ])  # fmt: skip
            print("power", kind, d, n, f"{r['rate']:.3f}", f"{time.time() - t0:.0f}s",
                  flush=True)  # fmt: skip
            write_results(null_rows, power_rows, null_reps, power_reps, t0)


def write_results(
    null_rows: list[list[str]],
    power_rows: list[list[str]],
    null_reps: int,
    power_reps: int,
    t0: float,
) -> None:
    """Write ``results_compare_calibration.md`` with the rows measured so far."""
    text = [
        "# `compare`: false-positive rate under the null, and power",
        "",
        "Written by `benchmarks/bench_compare_calibration.py` (one run, seeded). "
        f"`fmacro.validation.compare(expected, B, A, n_resamples={N_RESAMPLES})`, Poisson "
        "paired bootstrap; a rejection is `p_value < 0.05`. SE: binomial standard error "
        "`sqrt(r (1 - r) / R)` of the rate over R simulations.",
        "",
        "Populations. Binary (`f1`, positive = 1): prevalence 0.3, P(correct | negative) "
        "0.9, P(correct | positive) 0.7. Multiclass (`f_macro`): 4 classes, priors "
        "0.4/0.3/0.2/0.1, correct w.p. 0.9/0.7/0.6/0.5, else a wrong class uniformly. "
        f"Multi-label (`f_macro`): {_L} labels, prevalences 0.05 to 0.40 evenly spaced, TPR "
        f"{_TPR}, FPR {_FPR} on every label. Each model's predictions are drawn "
        "independently given the truth.",
        "",
        f"## Null: A and B of the same true quality ({null_reps} simulations per row; goal "
        "at most 6 %)",
        "",
        markdown_table(
            [
                "kind",
                "measure",
                "n",
                "simulations",
                "rejections",
                "false-positive rate",
                "SE",
                "mean observed difference",
            ],
            null_rows,
        ),
        "",
        f"## Power: B's per-class accuracy raised by d ({power_reps} simulations per row)",
        "",
        "Binary: P(correct | class) + d for both classes; multiclass: P(correct | class) + d "
        "for every class; multi-label: every label's TPR + d (FPR unchanged). `true "
        "difference`: the measure of B's population minus A's (expected counts).",
        "",
        markdown_table(
            [
                "kind",
                "measure",
                "d",
                "true difference",
                "n",
                "simulations",
                "power",
                "SE",
                "mean observed difference",
            ],
            power_rows,
        ),
        "",
        *(f"- {key}: {value}" for key, value in machine_facts(["numpy", "numba"]).items()),
        f"- total run time: {time.time() - t0:.0f} s",
    ]
    out = HERE / "results_compare_calibration.md"
    out.write_text("\n".join(text) + "\n", encoding="utf-8")
    print("wrote", out)


if __name__ == "__main__":
    main()
