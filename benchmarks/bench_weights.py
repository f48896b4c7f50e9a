"""What sample_weight costs: weighted vs unweighted fmacro vs weighted scikit-learn, one run.

Cases (medians of interleaved repeats; scikit-learn fewer repeats, spread over the same
rounds): binary 10^7 int64 0/1 labels; multiclass 10^7 labels over 100 classes; multi-label
dense bool 10^5 x 10^3 at 1 % density; best_threshold on 10^6 scores. Weights are uniform
on [0, 2). Every case checks that fmacro's weighted F equals scikit-learn's (outside the
timings). Writes benchmarks/results_weights.md.

    python benchmarks/bench_weights.py [--quick]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from _timing import fmt_ratio, fmt_seconds, machine_facts, markdown_table, measure_interleaved
from sklearn import metrics

from fmacro.optimize import best_threshold
from fmacro.validation import BinFValidation, MultiFValidation, MultiLabelFValidation

HERE = Path(__file__).resolve().parent


def _case(
    name: str,
    plain: Callable[[], Any],
    weighted: Callable[[], Any],
    sklearn: Callable[[], Any],
    repeats: int,
) -> list[str]:
    t = measure_interleaved(
        {"plain": plain, "weighted": weighted, "sklearn": sklearn},
        repeats={"plain": repeats, "weighted": repeats, "sklearn": max(1, repeats // 3)},
    )
    p, w, s = t["plain"].median, t["weighted"].median, t["sklearn"].median
    return [
        name,
        fmt_seconds(p),
        fmt_seconds(w),
        fmt_ratio(w / p),
        fmt_seconds(s),
        fmt_ratio(s / w),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, write no file")
    args = parser.parse_args(argv)
    scale = 100 if args.quick else 1
    repeats = 3 if args.quick else 7
    rng = np.random.default_rng(0)
    rows = []

    n = 10**7 // scale
    e, p = rng.integers(0, 2, n), rng.integers(0, 2, n)
    w = rng.random(n) * 2
    v = BinFValidation.from_predictions(e, p, sample_weight=w)
    assert np.isclose(v.f1, metrics.f1_score(e, p, sample_weight=w))
    rows.append(
        _case(
            f"binary, {n:,} labels",
            lambda: BinFValidation.from_predictions(e, p).f1,
            lambda: BinFValidation.from_predictions(e, p, sample_weight=w).f1,
            lambda: metrics.f1_score(e, p, sample_weight=w),
            repeats,
        )
    )

    k = 100
    e, p = rng.integers(0, k, n), rng.integers(0, k, n)
    m = MultiFValidation.from_predictions(e, p, k, sample_weight=w)
    assert np.isclose(m.macro_f, metrics.f1_score(e, p, average="macro", sample_weight=w))
    rows.append(
        _case(
            f"multiclass, {n:,} labels, {k} classes",
            lambda: MultiFValidation.from_predictions(e, p, k).macro_f,
            lambda: MultiFValidation.from_predictions(e, p, k, sample_weight=w).macro_f,
            lambda: metrics.f1_score(e, p, average="macro", sample_weight=w),
            repeats,
        )
    )

    rows_ml, labels = 10**5 // scale, 1000
    Y = rng.random((rows_ml, labels)) < 0.01
    P = rng.random((rows_ml, labels)) < 0.01
    wl = rng.random(rows_ml) * 2
    ml = MultiLabelFValidation.from_predictions(Y, P, sample_weight=wl)
    assert np.isclose(ml.macro_f, metrics.f1_score(Y, P, average="macro", sample_weight=wl))
    rows.append(
        _case(
            f"multi-label dense bool, {rows_ml:,} x {labels}",
            lambda: MultiLabelFValidation.from_predictions(Y, P).macro_f,
            lambda: MultiLabelFValidation.from_predictions(Y, P, sample_weight=wl).macro_f,
            lambda: metrics.f1_score(Y, P, average="macro", sample_weight=wl),
            repeats,
        )
    )

    n_s = 10**6 // scale
    s = rng.normal(size=n_s)
    y = (s + rng.normal(size=n_s) > 1).astype(int)
    ws = rng.random(n_s) * 2
    r = best_threshold(s, y, sample_weight=ws)
    assert np.isclose(r.f, metrics.f1_score(y, s >= r.threshold, sample_weight=ws))

    def sklearn_best() -> float:
        prec, rec, _ = metrics.precision_recall_curve(y, s, sample_weight=ws)
        f = np.divide(2 * prec * rec, prec + rec, out=np.zeros_like(prec), where=prec + rec > 0)
        return float(f.max())

    rows.append(
        _case(
            f"best_threshold, {n_s:,} scores (scikit-learn: precision_recall_curve + argmax)",
            lambda: best_threshold(s, y).f,
            lambda: best_threshold(s, y, sample_weight=ws).f,
            sklearn_best,
            repeats,
        )
    )

    table = markdown_table(
        [
            "case",
            "fmacro",
            "fmacro weighted",
            "weighted / unweighted",
            "scikit-learn weighted",
            "scikit-learn / fmacro weighted",
        ],
        rows,
    )
    facts = "\n".join(f"- {key}: {value}" for key, value in machine_facts().items())
    text = (
        "# sample_weight: what weighting costs\n\n"
        "Written by `benchmarks/bench_weights.py` (medians, one interleaved run; weights "
        "uniform on [0, 2); fmacro's weighted F checked equal to scikit-learn's). Weighted "
        "counts take their own path (numba kernels for binary and dense multi-label counts, a "
        "weighted `bincount` for the confusion matrix, sparse products for CSR), so the "
        "unweighted kernels are unchanged.\n\n" + table + "\n\n" + facts + "\n"
    )
    print(text)
    if not args.quick:
        (HERE / "results_weights.md").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
