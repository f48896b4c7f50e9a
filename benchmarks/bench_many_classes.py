"""Multiclass validation with very many classes: time and peak memory against scikit-learn.

10^7 labels over k = 10^5 classes (Zipf-skewed, 60 % predicted right): fmacro's
``MultiFValidation.from_predictions(e, p, k)`` (sparse confusion counts, every average)
against scikit-learn's ``precision_recall_fscore_support(average='macro')`` on the same
labels (which counts per class, O(n + k)); scikit-learn's ``confusion_matrix`` would need a
dense k x k table (80 GB of int64) and is not run. Peak extra memory by tracemalloc (numpy
allocations are traced). Floor: reading both label arrays once. Writes
benchmarks/results_many_classes.md.

    python benchmarks/bench_many_classes.py [--quick]
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from _timing import fmt_ratio, fmt_seconds, machine_facts, markdown_table
from sklearn import metrics

from fmacro.validation import MultiFValidation, SparseConfusionMatrix

HERE = Path(__file__).resolve().parent


def timed(fn: Callable[[], Any], repeats: int) -> tuple[float, int]:
    """(median seconds, peak traced bytes of one run)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return float(np.median(times)), peak


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^5 labels, write no file")
    args = parser.parse_args(argv)
    n = 10**5 if args.quick else 10**7
    k = 10**5
    rng = np.random.default_rng(0)
    e = (rng.zipf(1.2, n) - 1) % k
    p = np.where(rng.random(n) < 0.6, e, rng.integers(0, k, n))
    input_bytes = e.nbytes + p.nbytes

    v = MultiFValidation.from_predictions(e, p, k)
    assert isinstance(v.confusion, SparseConfusionMatrix)
    present = np.union1d(e, p)
    _, _, f_sk, _ = metrics.precision_recall_fscore_support(
        e, p, labels=present, average="macro", zero_division=0.0
    )
    assert np.isclose(v.macro_f, f_sk * present.size / k)

    def fmacro() -> None:
        w = MultiFValidation.from_predictions(e, p, k)
        _ = (w.macro_f, w.micro_f, w.weighted_f, w.f_macro)

    def sklearn() -> None:
        metrics.precision_recall_fscore_support(e, p, labels=np.arange(k), average="macro")

    def floor() -> None:
        e.max()
        p.max()

    t_f, m_f = timed(fmacro, 3 if args.quick else 5)
    t_s, m_s = timed(sklearn, 1)
    t_0, _ = timed(floor, 5)
    table = markdown_table(
        ["", "time", "vs floor", "peak extra memory", "memory / input"],
        [
            [
                "fmacro (all averages)",
                fmt_seconds(t_f),
                fmt_ratio(t_f / t_0),
                f"{m_f / 2**20:.0f} MiB",
                fmt_ratio(m_f / input_bytes),
            ],
            [
                "scikit-learn (macro only)",
                fmt_seconds(t_s),
                fmt_ratio(t_s / t_0),
                f"{m_s / 2**20:.0f} MiB",
                fmt_ratio(m_s / input_bytes),
            ],
            ["floor: read both inputs", fmt_seconds(t_0), "1x", "", ""],
        ],
    )
    cells = v.confusion.counts.size
    text = (
        "# Many classes: sparse confusion counts\n\n"
        f"Written by `benchmarks/bench_many_classes.py`: {n:,} int64 labels, k = {k:,} classes "
        f"(Zipf 1.2, 60 % right), {cells:,} occurring cells. A dense int64 confusion matrix "
        f"would take {k * k * 8 / 2**30:.0f} GiB. fmacro is {t_s / t_f:.1f}x faster than "
        "scikit-learn here; its cost is one sort of the n pair keys (O(n log n)), against "
        "scikit-learn's per-class counting.\n\n"
        + table
        + "\n\n"
        + "\n".join(f"- {a}: {b}" for a, b in machine_facts().items())
        + "\n"
    )
    print(text)
    if not args.quick:
        (HERE / "results_many_classes.md").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
