"""A label budget per object (issue 30, item 3): the cap's kernels, and whether tuning knows it.

Two parts, each writing one section of benchmarks/results_label_budget.md:

``--kernels``
    :func:`fmacro.optimize.label_budget.cap_labels` (compiled numba kernels, one pass per
    row, a stable sort of the rows over budget) against a vectorized numpy version of the
    same rule (a stable ``argsort`` of the rows over budget, written here), on a dense
    10^5 x 10^3 float64 matrix and on a 10^5 x 10^3 CSR matrix of 50 stored scores per row
    (uniform scores, seed 0; thresholds at each column's 97% quantile (dense) or 0.5
    (sparse), so about 30 (dense) or 25 (sparse) labels predicted per row; ``k = 5``).
    Both give the same predictions (checked). Times: medians of ``--repeats`` interleaved
    runs after a warm-up (the kernels' compilation is reported apart).
``--tuning`` (the default)
    Does choosing thresholds knowing the cap help? Official Mulan train/test splits of
    medical, enron and bibtex, read from ``../shared/data`` beside the checkout (or
    ``--data``). Scorer: one-vs-rest ``LogisticRegression(solver="liblinear",
    random_state=0)`` on an int64 label matrix, scores = ``predict_proba``. Thresholds are
    tuned on 5-fold out-of-fold scores of the training split (``crossval.KFold(5,
    shuffle=True, seed=0)``) and applied to the test scores of the model refitted on the
    whole training split. For k in 1, 3, 5, on the test split:

    (a) ``per_class`` thresholds (each label's own in-sample F1 optimum) + the apply-time
        cap ``apply(S_test, max_labels=k)``;
    (b) ``tune`` thresholds (F-macro) + cap, and ``tune(method="per_class")`` (macro-F1,
        smoothed) + cap;
    (c) plain top-k (each object's k highest-scored labels: ``predict_top_k``);
    (d) xCOLUMNs' block coordinate ascent for macro-F1 at k
        (``predict_optimizing_macro_f1_score_using_bc``, ``init_y_pred="top"``, seed 0,
        its default 100 iterations and tolerance), given the test objects' predicted
        probabilities: its transductive setting (it optimizes the expected macro-F1 of
        exactly k labels per test object under those marginals; logistic regression's
        probabilities stand in for calibrated ones).

    Prototypes, not shipped: (a') (a) with the cap ranking by margin ``score - threshold``
    instead of the raw score (the tie rule's alternative); (e) cap-aware ``per_class``:
    each label's threshold tuned on the out-of-fold scores with every entry outside its
    object's top k masked (a label the cap would drop cannot be predicted there), then the
    cap at test. Measure: macro-F1 on the test split over the labels with a test positive
    (F1 = 2tp / (2tp + fp + fn)), and labels predicted per object. Time: the threshold
    search on the out-of-fold scores plus the capped apply on the test scores ((c): the
    top-k; (d): the whole BCA run); the logistic fits, shared, are reported apart.

Usage::

    python benchmarks/bench_label_budget.py [--kernels] [--tuning] [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import fmt_seconds, machine_facts, markdown_table, measure_interleaved

from fmacro.optimize import per_class, tune
from fmacro.optimize.deployment import PredictEverythingWarning
from fmacro.optimize.label_budget import cap_labels
from fmacro.optimize.rules import predict_top_k

HERE = Path(__file__).resolve().parent
SHARED_DATA = HERE.parent.parent / "shared" / "data"
RESULTS = HERE / "results_label_budget.md"
DATASETS = ("medical", "enron", "bibtex")
KS = (1, 3, 5)


# ---------------------------------------------------------------- numpy versions of the cap


def cap_numpy_dense(scores: NDArray[np.float64], predicted: NDArray[np.bool_], k: int) -> Any:
    """The cap's rule, vectorized: a stable argsort of the rows predicting more than k."""
    out = predicted.copy()
    rows = np.flatnonzero(out.sum(axis=1) > k)
    if rows.size:
        sub = out[rows]
        key = np.where(sub, -scores[rows], np.inf)  # predicted first, higher score first
        drop = np.argsort(key, axis=1, kind="stable")[:, k:]
        np.put_along_axis(sub, drop, False, axis=1)
        out[rows] = sub
    return out


def cap_numpy_csr(scores: sp.csr_matrix, predicted: NDArray[np.bool_], k: int) -> Any:
    """The same on CSR scores: a missing entry ranks below every stored one."""
    out = predicted.copy()
    rows = np.flatnonzero(out.sum(axis=1) > k)
    if rows.size:
        sub = out[rows]
        block = scores[rows]
        key = np.where(sub, np.finfo(np.float64).max, np.inf)
        coo = block.tocoo()
        stored = sub[coo.row, coo.col]
        key[coo.row[stored], coo.col[stored]] = -coo.data[stored]
        drop = np.argsort(key, axis=1, kind="stable")[:, k:]
        np.put_along_axis(sub, drop, False, axis=1)
        out[rows] = sub
    return out


def kernels_section(repeats: int) -> list[str]:
    rng = np.random.default_rng(0)
    k = 5
    lines = ["## The cap: numba kernels against vectorized numpy", ""]
    rows_out = []
    # dense
    n, m = 100_000, 1_000
    dense = rng.random((n, m))
    pred_dense = dense >= np.quantile(dense[:2000], 0.97, axis=0)[None, :]
    # sparse
    ms, per_row = 1_000, 50
    # one column in each of 50 bands of 20: sorted and distinct
    cols = np.arange(per_row) * (ms // per_row) + rng.integers(0, ms // per_row, (n, per_row))
    csr = sp.csr_matrix(
        (rng.random(n * per_row), cols.reshape(-1), np.arange(0, n * per_row + 1, per_row)),
        shape=(n, ms),
    )
    pred_csr = np.zeros((n, ms), dtype=bool)
    coo = csr.tocoo()
    hit = coo.data >= 0.5
    pred_csr[coo.row[hit], coo.col[hit]] = True
    cases: list[tuple[str, Any, NDArray[np.bool_], Callable[..., Any]]] = [
        (f"dense {n} x {m} float64", dense, pred_dense, cap_numpy_dense),
        (f"CSR {n} x {ms}, {per_row} stored per row", csr, pred_csr, cap_numpy_csr),
    ]
    for name, s, pred, numpy_cap in cases:
        start = time.perf_counter()
        first = cap_labels(s, pred, k)
        first_call = time.perf_counter() - start
        assert np.array_equal(first, numpy_cap(s, pred, k)), name
        timings = measure_interleaved(
            {
                "numba": lambda s=s, p=pred: cap_labels(s, p, k),
                "numpy": lambda s=s, p=pred, f=numpy_cap: f(s, p, k),
            },
            repeats=repeats,
            warmup=0,
        )
        per = float(pred.sum()) / pred.shape[0]
        rows_out.append(
            [
                name,
                f"{per:.1f}",
                fmt_seconds(timings["numba"].median),
                fmt_seconds(timings["numpy"].median),
                f"{timings['numpy'].median / timings['numba'].median:.1f}x",
                fmt_seconds(first_call),
            ]
        )
        print(rows_out[-1], flush=True)
    lines.append(
        f"`cap_labels(scores, predicted, {k})` (numba, as shipped) against the same rule in "
        "vectorized numpy (`cap_numpy_*` in the script: a stable `argsort` of the rows over "
        "budget); identical outputs (checked). Times include the input checks and the copy "
        f"of `predicted`; median of {repeats} interleaved runs. First call: the shipped "
        "function's first call in the process (compiling or loading the kernel from numba's "
        "disk cache, plus one run)."
    )
    lines.append("")
    lines.append(
        markdown_table(
            ["scores", "labels predicted / row", "numba", "numpy", "numpy / numba", "first call"],
            rows_out,
        )
    )
    lines.append("")
    return lines


# ---------------------------------------------------------------- the tuning question


def macro_f1(y: NDArray[Any], pred: NDArray[Any]) -> float:
    """Mean F1 over the labels with a positive in ``y``."""
    yb, pb = np.asarray(y, dtype=bool), np.asarray(pred, dtype=bool)
    tp = (yb & pb).sum(axis=0)
    fp = (~yb & pb).sum(axis=0)
    fn = (yb & ~pb).sum(axis=0)
    keep = yb.sum(axis=0) > 0
    return float(np.mean(2 * tp[keep] / (2 * tp[keep] + fp[keep] + fn[keep])))


def topk_masked(scores: NDArray[np.float64], k: int) -> sp.csr_matrix:
    """Each row's top-k scores kept (ties: lower column), the rest missing (CSR)."""
    r, c = np.nonzero(predict_top_k(scores, k))
    return sp.csr_matrix((scores[r, c], (r, c)), shape=scores.shape)


def scores_of(name: str, data: Path) -> dict[str, Any]:
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier

    from fmacro.crossval import KFold
    from fmacro.validation.datasets import load_dataset

    X, Y = load_dataset(name, "train", path=data)
    X_test, Y_test = load_dataset(name, "test", path=data)
    Y = np.asarray(Y, dtype=np.int64)
    start = time.perf_counter()

    def model() -> Any:
        return OneVsRestClassifier(LogisticRegression(solver="liblinear", random_state=0))

    oof = np.zeros(Y.shape, dtype=np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a label constant in a fold: OVR warns
        for train, test in KFold(5, shuffle=True, seed=0).split(X, Y):
            oof[test] = model().fit(X[train], Y[train]).predict_proba(X[test])
        S_test = model().fit(X, Y).predict_proba(X_test)
    fit_time = time.perf_counter() - start
    return {
        "Y": Y,
        "oof": oof,
        "S_test": S_test,
        "Y_test": np.asarray(Y_test, dtype=np.int64),
        "fit_time": fit_time,
    }


def timed(f: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    out = f()
    return out, time.perf_counter() - start


def tuning_rows(name: str, d: dict[str, Any]) -> list[list[str]]:
    from xcolumns.block_coordinate import predict_optimizing_macro_f1_score_using_bc

    Y, oof, S, Yt = d["Y"], d["oof"], d["S_test"], d["Y_test"]
    rows: list[list[str]] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredictEverythingWarning)
        pc, t_pc = timed(lambda: per_class(oof, Y))
        tu, t_tu = timed(lambda: tune(oof, Y))
        tpc, t_tpc = timed(lambda: tune(oof, Y, method="per_class"))
    true_card = Yt.sum(axis=1).mean()

    def add(k: Any, method: str, pred: Any, seconds: float) -> None:
        p = np.asarray(pred, dtype=bool)
        rows.append(
            [
                name,
                str(k),
                method,
                f"{macro_f1(Yt, p):.3f}",
                f"{p.sum(axis=1).mean():.2f} ({true_card:.2f})",
                fmt_seconds(seconds),
            ]
        )
        print(rows[-1], flush=True)

    add("-", "(a) `per_class`, no cap", pc.apply(S), t_pc)
    add("-", "(b) `tune`, no cap", tu.apply(S), t_tu)
    add("-", '(b) `tune(method="per_class")`, no cap', tpc.apply(S), t_tpc)
    for k in KS:
        p, t = timed(lambda k=k: pc.apply(S, max_labels=k))
        add(k, "(a) `per_class` + cap", p, t_pc + t)
        # a -inf threshold (always predicted) ranks first; +inf columns are never predicted
        margin = S - np.clip(pc.thresholds, -1.0, 2.0)[None, :]
        p, t = timed(lambda k=k, mg=margin: cap_labels(mg, pc.apply(S), k))
        add(k, "(a') `per_class` + cap by margin (prototype)", p, t_pc + t)
        p, t = timed(lambda k=k: tu.apply(S, max_labels=k))
        add(k, "(b) `tune` + cap", p, t_tu + t)
        p, t = timed(lambda k=k: tpc.apply(S, max_labels=k))
        add(k, '(b) `tune(method="per_class")` + cap', p, t_tpc + t)
        p, t = timed(lambda k=k: predict_top_k(S, k))
        add(k, "(c) top-k", p, t)

        def aware(k: int = k) -> Any:
            res = per_class(topk_masked(oof, k), Y)
            return res.apply(S, max_labels=k)

        p, t = timed(aware)
        add(k, "(e) cap-aware `per_class` + cap (prototype)", p, t)
        p, t = timed(
            lambda k=k: predict_optimizing_macro_f1_score_using_bc(S, k, init_y_pred="top", seed=0)
        )
        add(k, "(d) xCOLUMNs BCA macro-F1@k (test probabilities)", p, t)
    return rows


def tuning_section(data: Path) -> list[str]:
    lines = ["## Does tuning knowing the cap help?", ""]
    rows: list[list[str]] = []
    fits = []
    for name in DATASETS:
        d = scores_of(name, data)
        fits.append(f"{name} {fmt_seconds(d['fit_time'])}")
        print(name, "fits", fmt_seconds(d["fit_time"]), flush=True)
        rows += tuning_rows(name, d)
    lines.append(
        'Official Mulan train/test splits; one-vs-rest `LogisticRegression(solver="liblinear", '
        "random_state=0)`; thresholds tuned on 5-fold out-of-fold scores of the training split "
        "(`crossval.KFold(5, shuffle=True, seed=0)`), applied to the test scores of the model "
        "refitted on the whole training split. Macro-F1 on the test split over the labels with "
        "a test positive; labels/object = labels predicted per test object (true mean in "
        "brackets). Time: the threshold search plus the capped apply ((c): the top-k; (d): the "
        "whole BCA run on the test probabilities, its transductive setting: it sees the test "
        "objects, not their labels); one run. The logistic fits (5 folds and a refit), shared: "
        + ", ".join(fits)
        + ". (a') and (e) are prototypes, not shipped (see the script's docstring)."
    )
    lines.append("")
    lines.append(
        markdown_table(["data", "k", "method", "macro-F1@k", "labels/object (true)", "time"], rows)
    )
    lines.append("")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kernels", action="store_true", help="time the cap's kernels")
    parser.add_argument("--tuning", action="store_true", help="the tuning question (default)")
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    if not args.kernels and not args.tuning:
        args.tuning = True
    lines = [
        "# A label budget per object: at most k labels (issue 30, item 3)",
        "",
        "Written by `benchmarks/bench_label_budget.py` on a shared machine ({}).".format(
            ", ".join(f"{k}: {v}" for k, v in machine_facts(("numpy", "numba", "xcolumns")).items())
        ),
        "",
    ]
    if args.kernels:
        lines += kernels_section(args.repeats)
    if args.tuning:
        lines += tuning_section(args.data)
    args.out.write_text("\n".join(lines))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
