"""Benchmark crossval splitters against scikit-learn, iterative-stratification and a numpy floor.

Run: ``python benchmarks/bench_crossval.py`` (about a minute). Prints a markdown table
(medians of several repeats, all in the same run; every split is fully consumed).

* KFold(10, shuffled) over 10^6 samples.
* StratifiedKFold(10) over 10^6 samples with 100 classes.
* MultilabelStratifiedKFold(10) on 10^4 samples x 100 labels (label frequencies
  0.3 / j^0.7, j = 1..100, independent) and on the real yeast data set; balance is the
  largest (and mean) deviation of a fold's label count from its expected count
  ``n_label / k``, median over seeds.

The numpy floors are the least work that yields the same index arrays: for K-fold a
permutation, then per fold a slice and a concatenation; for the stratified split a
seeded permutation, a stable sort by class and a round-robin deal.
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np
import sklearn
from iterstrat.ml_stratifiers import MultilabelStratifiedKFold as IterstratMSKF
from sklearn import model_selection as skms

from fmacro import crossval

K = 10
REPEATS = 7


def consume(splits: Iterable[tuple[Any, Any]]) -> None:
    for _train, _validation in splits:
        pass


def median_times(runs: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """Median wall time of each run; the runs are interleaved (round-robin) so that load
    from other processes on a shared machine hits every contender alike."""
    for run in runs.values():
        run()  # warm-up (numba compilation / caches) outside the timing
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def numpy_kfold(n: int, seed: int) -> None:
    perm = np.random.default_rng(seed).permutation(n)
    bounds = np.concatenate(([0], np.cumsum(np.full(K, n // K) + (np.arange(K) < n % K))))
    for f in range(K):
        a, b = bounds[f], bounds[f + 1]
        _validation = perm[a:b]
        _train = np.concatenate((perm[:a], perm[b:]))


def numpy_stratified(y: np.ndarray, seed: int) -> None:
    n = y.shape[0]
    perm = np.random.default_rng(seed).permutation(n)
    grouped = perm[np.argsort(y[perm], kind="stable")]
    fold_of = np.empty(n, dtype=np.int64)
    fold_of[grouped] = np.arange(n) % K
    for f in range(K):
        _validation = np.flatnonzero(fold_of == f)
        _train = np.flatnonzero(fold_of != f)


def fold_numbers(splits: Iterable[tuple[Any, Any]], n: int) -> np.ndarray:
    fold_of = np.empty(n, dtype=np.int64)
    for f, (_train, validation) in enumerate(splits):
        fold_of[validation] = f
    return fold_of


def balance(Y: np.ndarray, fold_of: np.ndarray) -> tuple[float, float]:
    counts = np.stack([Y[fold_of == f].sum(0) for f in range(K)])
    deviation = np.abs(counts - Y.sum(0) / K)
    return float(deviation.max()), float(deviation.mean())


def main() -> None:
    rows: list[tuple[str, str, float, str]] = []

    n = 10**6
    X = np.zeros((n, 1))
    t = median_times(
        {
            "crossval": lambda: consume(crossval.KFold(k=K, seed=0).split(X)),
            "scikit-learn": lambda: consume(
                skms.KFold(n_splits=K, shuffle=True, random_state=0).split(X)
            ),
            "numpy floor": lambda: numpy_kfold(n, 0),
        },
        REPEATS,
    )
    rows += [
        ("KFold(10), shuffled, n=10^6", name, t[name], f"{t['scikit-learn'] / t[name]:.1f}x")
        for name in t
    ]

    y = np.random.default_rng(1).integers(0, 100, n)
    t = median_times(
        {
            "crossval": lambda: consume(crossval.StratifiedKFold(k=K, seed=0).split(X, y)),
            "scikit-learn": lambda: consume(
                skms.StratifiedKFold(n_splits=K, shuffle=True, random_state=0).split(X, y)
            ),
            "numpy floor": lambda: numpy_stratified(y, 0),
        },
        REPEATS,
    )
    rows += [
        (
            "StratifiedKFold(10), n=10^6, 100 classes",
            name,
            t[name],
            f"{t['scikit-learn'] / t[name]:.1f}x",
        )
        for name in t
    ]

    rng = np.random.default_rng(2)
    n_ml, L = 10**4, 100
    Y = (rng.random((n_ml, L)) < 0.3 / np.arange(1, L + 1) ** 0.7).astype(np.uint8)
    Xml = np.zeros((n_ml, 1))
    from fmacro.validation.datasets import load_dataset

    # yeast: $FMACRO_DATA when set, else the copy the test suite ships (tests/data).
    tests_data = Path(__file__).resolve().parents[1] / "tests" / "data"
    _, yeast = load_dataset(
        "yeast", "all", path=None if os.environ.get("FMACRO_DATA") else tests_data
    )
    yeast = np.asarray(yeast)
    seeds = range(11)
    contenders: dict[str, Callable[[int], Any]] = {
        "crossval": lambda s: crossval.MultilabelStratifiedKFold(k=K, seed=s),
        "crossval, ties='paper'": lambda s: crossval.MultilabelStratifiedKFold(
            k=K, seed=s, ties="paper"
        ),
        "iterative-stratification": lambda s: IterstratMSKF(
            n_splits=K, shuffle=True, random_state=s
        ),
        "random KFold (crossval)": lambda s: crossval.KFold(k=K, seed=s),
    }
    times = median_times(
        {
            name: lambda make=make: consume(make(0).split(Xml, Y))
            for name, make in contenders.items()
        },
        REPEATS,
    )
    ml_rows = []
    for name, make in contenders.items():
        synthetic = [balance(Y, fold_numbers(make(s).split(Xml, Y), n_ml)) for s in seeds]
        real = [
            balance(yeast, fold_numbers(make(s).split(np.zeros(len(yeast)), yeast), len(yeast)))
            for s in seeds
        ]
        ml_rows.append(
            (
                name,
                times[name],
                times["iterative-stratification"] / times[name],
                statistics.median(m for m, _ in synthetic),
                statistics.median(a for _, a in synthetic),
                statistics.median(m for m, _ in real),
                statistics.median(a for _, a in real),
            )
        )

    print(
        f"Python {sys.version.split()[0]}, numpy {np.__version__}, scikit-learn "
        f"{sklearn.__version__}, {platform.machine()}; medians of {REPEATS} interleaved "
        "repeats, same run.\n"
    )
    print("| task | implementation | median time (s) | speed-up vs peer |")
    print("| --- | --- | ---: | ---: |")
    for task, impl, t, speed in rows:
        print(f"| {task} | {impl} | {t:.4f} | {speed} |")
    print(
        "\nMultilabelStratifiedKFold(10): time on 10^4 x 100 labels; balance = deviation of a "
        "fold's label count from n_label / k, median over 11 seeds (max over folds and "
        "labels / mean).\n"
    )
    print(
        "| implementation | time (s), 10^4 x 100 | speed-up vs iterstrat | "
        "max dev, synthetic | mean dev, synthetic | max dev, yeast | mean dev, yeast |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, t, speed, m_syn, a_syn, m_real, a_real in ml_rows:
        print(
            f"| {name} | {t:.4f} | {speed:.1f}x | {m_syn:.2f} | {a_syn:.3f} | "
            f"{m_real:.2f} | {a_real:.3f} |"
        )


if __name__ == "__main__":
    main()
