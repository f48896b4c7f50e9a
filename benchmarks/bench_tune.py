"""Held-out F-macro of ``optimize.tune`` against the other threshold rules and xcolumns.

For each Mulan dataset (official train/test split), scorer (ridge one-vs-rest with a
closed-form solve, alpha by GCV; L2 logistic one-vs-rest, all labels in one L-BFGS),
protocol (``val``: seeded 25% validation split of the training set, scorer fitted on
the rest; ``oof``: 5-fold out-of-fold scores of the whole training set, scorer refitted
on all training rows for the test scores) and seed (0, 1, 2), every method tunes its
thresholds on the tuning scores; the test set is only scored. Test F-macro =
F1(mean p, mean r) and macro-F1 = mean F1 over the classes with a test positive
(precision of a class predicting nothing = 0).

Fitted scores are cached in benchmarks/out/ (gitignored), as are the per-cell results;
``--force`` recomputes the results (not the scores). Writes benchmarks/results_tune.md.

Usage::

    FMACRO_DATA=/work/shared/data python benchmarks/bench_tune.py [--datasets a,b] [--force]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from _timing import machine_facts, measure_interleaved  # noqa: E402

from fmacro.optimize.baselines import global_threshold, per_class  # noqa: E402
from fmacro.optimize.baselines.top_k import top_k  # noqa: E402
from fmacro.optimize.search.fixed_point import fixed_point  # noqa: E402
from fmacro.optimize.tuning.etu import etu  # noqa: E402
from fmacro.optimize.tuning.tune import tune  # noqa: E402
from fmacro.validation.datasets import load_dataset  # noqa: E402

OUT = HERE / "out"
RESULTS = HERE / "results_tune.md"
DATASETS = ("emotions", "scene", "yeast", "enron", "medical", "bibtex", "corel5k")
SCORERS = ("ridge", "logreg")
PROTOCOLS = ("val", "oof")
SEEDS = (0, 1, 2)
N_BOOT = 1000
LOG_LAMBDAS = (1.0, 10.0, 100.0)
SPARSE_DENSITY = 0.05


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- scorers


def standardize(x_fit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mu = x_fit.mean(axis=0)
    sd = x_fit.std(axis=0)
    sd[sd == 0] = 1.0
    return mu, sd


def ridge_fit(x: np.ndarray, y: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """Ridge one-vs-rest, alpha by generalized cross-validation (one eigendecomposition)."""
    mu, sd = standardize(x)
    xc = (x - mu) / sd
    ym = y.mean(axis=0)
    yc = y - ym
    n, d = xc.shape
    if n >= d:
        s, v = np.linalg.eigh(xc.T @ xc)
        s = np.clip(s, 0.0, None)
        b = v.T @ (xc.T @ yc)  # = sqrt(s) * c
        c2 = np.where(s[:, None] > 1e-12, b**2 / np.maximum(s[:, None], 1e-300), 0.0).sum(1)
    else:
        s, u = np.linalg.eigh(xc @ xc.T)
        s = np.clip(s, 0.0, None)
        c = u.T @ yc
        c2 = (c**2).sum(1)
    total = float((yc**2).sum())
    best = (math.inf, 1.0)
    for alpha in 10.0 ** np.arange(-1, 5):
        dd = s / (s + alpha)
        rss = total - float(((2 * dd - dd**2) * c2).sum())
        gcv = rss / (n * (1 - dd.sum() / n) ** 2)
        best = min(best, (gcv, alpha))
    alpha = best[1]
    w = v @ (b / (s + alpha)[:, None]) if n >= d else xc.T @ (u @ (c / (s + alpha)[:, None]))
    return lambda z: ((z - mu) / sd) @ w + ym


def _logreg_weights(
    x: Any, y: np.ndarray, lam: float, maxiter: int
) -> tuple[np.ndarray, np.ndarray]:
    """L-BFGS on the summed logistic loss of every label; bias not penalized."""
    d, n_lab = x.shape[1], y.shape[1]
    rate = np.clip(y.mean(axis=0), 1e-4, 1 - 1e-4)
    w0 = np.zeros((d + 1, n_lab))
    w0[-1] = np.log(rate / (1 - rate))

    def fg(flat: np.ndarray) -> tuple[float, np.ndarray]:
        wb = flat.reshape(d + 1, n_lab)
        w, b = wb[:-1], wb[-1]
        z = np.asarray(x @ w) + b
        loss = float(np.logaddexp(0.0, z).sum() - (y * z).sum() + 0.5 * lam * (w**2).sum())
        r = 1.0 / (1.0 + np.exp(-z)) - y
        g = np.vstack([np.asarray(x.T @ r) + lam * w, r.sum(axis=0)])
        return loss, g.ravel()

    res = minimize(fg, w0.ravel(), jac=True, method="L-BFGS-B", options={"maxiter": maxiter})
    wb = np.asarray(res.x).reshape(d + 1, n_lab)
    return wb[:-1], wb[-1]


def logreg_fit(
    x: np.ndarray, y: np.ndarray, lam: float, maxiter: int = 200
) -> Callable[[np.ndarray], np.ndarray]:
    """L2 logistic regression one-vs-rest: every label in one L-BFGS; returns probabilities.

    Dense features are standardized; sparse ones (under 5% non-zero: bag-of-words) stay
    sparse and are scaled by their column RMS.
    """
    if (x != 0).mean() < SPARSE_DENSITY:
        rms = np.sqrt((x**2).mean(axis=0))
        rms[rms == 0] = 1.0

        def prep(z: np.ndarray) -> Any:
            return sp.csr_matrix(z / rms)

    else:
        mu, sd = standardize(x)

        def prep(z: np.ndarray) -> Any:
            return (z - mu) / sd

    w, b = _logreg_weights(prep(x), y.astype(np.float64), lam, maxiter)
    return lambda z: 1.0 / (1.0 + np.exp(-(np.asarray(prep(z) @ w) + b)))


def choose_lambda(x: np.ndarray, y: np.ndarray) -> float:
    """lambda by validation log-loss on the seed-0 split of the training set."""
    fit_rows, val_rows = val_split(x.shape[0], 0)
    best = (math.inf, LOG_LAMBDAS[0])
    for lam in LOG_LAMBDAS:
        p = np.clip(logreg_fit(x[fit_rows], y[fit_rows], lam)(x[val_rows]), 1e-12, 1 - 1e-12)
        yv = y[val_rows]
        ll = float(-(yv * np.log(p) + (1 - yv) * np.log(1 - p)).mean())
        best = min(best, (ll, lam))
    return best[1]


def val_split(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    perm = np.random.default_rng(seed).permutation(n)
    n_val = n // 4
    return np.sort(perm[n_val:]), np.sort(perm[:n_val])


def oof_folds(n: int, seed: int, k: int = 5) -> list[np.ndarray]:
    perm = np.random.default_rng(1000 + seed).permutation(n)
    return [np.sort(perm[i::k]) for i in range(k)]


def load(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    x_tr, y_tr = load_dataset(name, "train")
    x_te, y_te = load_dataset(name, "test")
    return (
        np.asarray(x_tr, dtype=np.float64),
        np.asarray(y_tr, dtype=np.uint8),
        np.asarray(x_te, dtype=np.float64),
        np.asarray(y_te, dtype=np.uint8),
    )


def cached_scores(name: str, scorer: str, protocol: str, seed: int, data: Any) -> dict[str, Any]:
    """Tuning scores/labels, test scores and the fitting rows' label rates (cached)."""
    path = OUT / f"scores_{name}_{scorer}_{protocol}_{seed}.npz"
    if path.is_file():
        with np.load(path) as z:
            return {k: z[k] for k in z.files}
    x_tr, y_tr, x_te, _ = data
    if scorer == "ridge":
        fit: Callable[[np.ndarray, np.ndarray], Callable[[np.ndarray], np.ndarray]] = ridge_fit
    else:
        lam = cached_lambda(name, x_tr, y_tr)

        def fit(x: np.ndarray, y: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
            return logreg_fit(x, y, lam)

    t0 = time.perf_counter()
    if protocol == "val":
        fit_rows, val_rows = val_split(x_tr.shape[0], seed)
        model = fit(x_tr[fit_rows], y_tr[fit_rows])
        out = {
            "s_tune": model(x_tr[val_rows]),
            "y_tune": y_tr[val_rows],
            "s_test": model(x_te),
            "train_rates": y_tr[fit_rows].mean(axis=0),
        }
    else:
        s_oof = np.empty(y_tr.shape)
        for rows in oof_folds(x_tr.shape[0], seed):
            rest = np.setdiff1d(np.arange(x_tr.shape[0]), rows)
            s_oof[rows] = fit(x_tr[rest], y_tr[rest])(x_tr[rows])
        full = OUT / f"scores_{name}_{scorer}_full.npy"
        if full.is_file():
            s_test = np.load(full)
        else:
            s_test = fit(x_tr, y_tr)(x_te)
            np.save(full, s_test)
        out = {
            "s_tune": s_oof,
            "y_tune": y_tr,
            "s_test": s_test,
            "train_rates": y_tr.mean(axis=0),
        }
    log(f"fitted {name}/{scorer}/{protocol}/{seed} in {time.perf_counter() - t0:.1f} s")
    np.savez_compressed(path, **out)
    return out


def cached_lambda(name: str, x: np.ndarray, y: np.ndarray) -> float:
    path = OUT / f"lambda_{name}.json"
    if path.is_file():
        return float(json.loads(path.read_text())["lambda"])
    lam = choose_lambda(x, y)
    path.write_text(json.dumps({"lambda": lam}))
    log(f"{name}: logistic lambda = {lam}")
    return lam


# --------------------------------------------------------------------------- metrics


def class_counts(pred: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> tuple[Any, ...]:
    """(tp, fp, m) per class; ``w`` an optional (B, N) matrix of row weights (bootstrap)."""
    pb = pred.astype(np.float64)
    yb = y.astype(np.float64)
    tpm = pb * yb
    if w is None:
        return tpm.sum(0), pb.sum(0) - tpm.sum(0), yb.sum(0)
    tp = w @ tpm
    return tp, w @ pb - tp, w @ yb


def scores_from_counts(tp: Any, fp: Any, m: Any) -> tuple[Any, Any]:
    """(F-macro, macro-F1) over the classes with m > 0 (0/0 precision = 0); last axis = classes."""
    kept = m > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(tp + fp > 0, tp / np.maximum(tp + fp, 1e-300), 0.0)
        r = np.where(kept, tp / np.maximum(m, 1e-300), 0.0)
        f1 = np.where(kept, 2 * tp / np.maximum(2 * tp + fp + (m - tp), 1e-300), 0.0)
    nk = kept.sum(-1)
    mp = (p * kept).sum(-1) / nk
    mr = r.sum(-1) / nk
    with np.errstate(divide="ignore", invalid="ignore"):
        fm = np.where(mp + mr > 0, 2 * mp * mr / (mp + mr), 0.0)
    return fm, f1.sum(-1) / nk


def test_scores(pred: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    fm, mf = scores_from_counts(*class_counts(pred, y))
    return float(fm), float(mf)


def bootstrap_diff(
    pred_a: np.ndarray, pred_b: np.ndarray, y: np.ndarray, seed: int = 0
) -> tuple[float, float, float, float]:
    """Paired bootstrap over test objects of F-macro(a) - F-macro(b): mean, 2.5%, 97.5%, P(<=0)."""
    rng = np.random.default_rng(seed)
    n = y.shape[0]
    diffs = []
    for chunk in range(0, N_BOOT, 250):
        b = min(250, N_BOOT - chunk)
        idx = rng.integers(0, n, size=(b, n))
        w = np.zeros((b, n))
        np.add.at(w, (np.repeat(np.arange(b), n), idx.ravel()), 1.0)
        fa, _ = scores_from_counts(*class_counts(pred_a, y, w))
        fb, _ = scores_from_counts(*class_counts(pred_b, y, w))
        diffs.append(fa - fb)
    d = np.concatenate(diffs)
    return (
        float(d.mean()),
        float(np.quantile(d, 0.025)),
        float(np.quantile(d, 0.975)),
        float((d <= 0).mean()),
    )


# --------------------------------------------------------------------------- one cell


def xcolumns_predictions(
    s_tune: np.ndarray, y_tune: np.ndarray, s_test: np.ndarray
) -> dict[str, tuple[np.ndarray, float]]:
    """Test predictions (bool) and seconds of the xcolumns peers on probabilities: BCA*
    for macro-F1 on the test probabilities (transductive), and Frank-Wolfe for macro-F1
    fitted on the tuning rows' classes with a positive (the others never predicted);
    both k=0, seed 0."""
    from xcolumns.block_coordinate import predict_optimizing_macro_f1_score_using_bc
    from xcolumns.frank_wolfe import find_classifier_using_fw
    from xcolumns.metrics import macro_f1_score_on_conf_matrix

    t0 = time.perf_counter()
    bca = np.asarray(predict_optimizing_macro_f1_score_using_bc(s_test, k=0, seed=0))
    out = {"xc_bca": (bca.astype(bool), time.perf_counter() - t0)}
    kept = y_tune.sum(0) > 0
    t0 = time.perf_counter()
    clf = find_classifier_using_fw(
        y_tune[:, kept].astype(np.float64),
        s_tune[:, kept],
        macro_f1_score_on_conf_matrix,
        k=0,
        skip_tn=True,
        seed=0,
    )
    fw = np.zeros(s_test.shape, dtype=bool)
    fw[:, kept] = np.asarray(clf.predict(s_test[:, kept], seed=0)).astype(bool)
    out["xc_fw"] = (fw, time.perf_counter() - t0)
    return out


def run_cell(
    name: str, scorer: str, protocol: str, seed: int, sc: dict[str, Any], y_test: np.ndarray
) -> dict[str, Any]:
    s_tune, y_tune, s_test = sc["s_tune"], sc["y_tune"], sc["s_test"]
    n_test = y_test.shape[0]
    methods: dict[str, Callable[[], Any]] = {
        "tune": lambda: tune(s_tune, y_tune),
        "tune_never": lambda: tune(s_tune, y_tune, unseen="never"),
        "tune_ntest": lambda: tune(s_tune, y_tune, n_eval=n_test),
        "tune_cv": lambda: tune(s_tune, y_tune, prior="cv"),
        "tune_trainrates": lambda: tune(s_tune, y_tune, base_rates=sc["train_rates"]),
        "tune_a1": lambda: tune(s_tune, y_tune, prior=1.0),
        "tune_a10": lambda: tune(s_tune, y_tune, prior=10.0),
        "tune_per_class": lambda: tune(s_tune, y_tune, method="per_class"),
        "fixed_point": lambda: fixed_point(s_tune, y_tune),
        "per_class": lambda: per_class(s_tune, y_tune),
        "global_threshold": lambda: global_threshold(s_tune, y_tune),
        "top_k": lambda: top_k(s_tune, y_tune),
    }
    out: dict[str, Any] = {"n_tune": int(y_tune.shape[0]), "n_test": n_test, "methods": {}}
    preds: dict[str, np.ndarray] = {}
    for key, fn in methods.items():
        t0 = time.perf_counter()
        res = fn()
        dt = time.perf_counter() - t0
        pred = res.apply(s_test)
        preds[key] = pred
        fm, mf = test_scores(pred, y_test)
        never = int(((pred.sum(0) == 0) & (y_test.sum(0) > 0)).sum())
        out["methods"][key] = {
            "test_f": fm,
            "test_macro_f1": mf,
            "tune_f": float(res.f),
            "seconds": dt,
            "never_predicted_test_classes": never,
            "prior": res.diagnostics.get("prior") if key.startswith("tune") else None,
        }
    # alternative rules for the classes without tuning positives, on tune's thresholds
    unseen_cols = np.flatnonzero(y_tune.sum(0) == 0)
    if unseen_cols.size:
        base = tune(s_tune, y_tune, unseen="never")
        seen = np.setdiff1d(np.arange(y_tune.shape[1]), unseen_cols)
        share = float(base.apply(s_tune)[:, seen].mean())
        rules = {
            # the top `share` of the tuning scores: the mean predicted share of the seen classes
            "tune_unseen_quantile": np.quantile(s_tune[:, unseen_cols], 1.0 - share, axis=0),
            # the shared threshold of global_threshold
            "tune_unseen_global": np.full(
                unseen_cols.size, global_threshold(s_tune, y_tune).diagnostics["threshold"]
            ),
        }
        for key, thr_unseen in rules.items():
            thr = np.array(base.thresholds)
            thr[unseen_cols] = thr_unseen
            pred = s_test >= thr
            fm, mf = test_scores(pred, y_test)
            out["methods"][key] = {"test_f": fm, "test_macro_f1": mf}
    if scorer == "logreg":
        for key, kw in (
            ("tune_calibrated", {}),
            ("tune_calibrated_ntest", {"n_eval": n_test}),
        ):
            res = tune(s_tune, y_tune, calibrated=True, **kw)
            fm, mf = test_scores(res.apply(s_test), y_test)
            out["methods"][key] = {"test_f": fm, "test_macro_f1": mf}
        t0 = time.perf_counter()
        pred = etu(s_test).apply(s_test)
        dt = time.perf_counter() - t0
        fm, mf = test_scores(pred, y_test)
        out["methods"]["etu"] = {"test_f": fm, "test_macro_f1": mf, "seconds": dt}
        for key, (pred, dt) in xcolumns_predictions(s_tune, y_tune, s_test).items():
            preds[key] = pred
            fm, mf = test_scores(pred, y_test)
            out["methods"][key] = {"test_f": fm, "test_macro_f1": mf, "seconds": dt}
    if seed == 0:
        out["bootstrap"] = {
            "tune-per_class": bootstrap_diff(preds["tune"], preds["per_class"], y_test),
            "tune-fixed_point": bootstrap_diff(preds["tune"], preds["fixed_point"], y_test),
        }
        if "xc_bca" in preds:
            out["bootstrap"]["tune-xc_bca"] = bootstrap_diff(preds["tune"], preds["xc_bca"], y_test)
    return out


def cached_json(path: Path, force: bool, compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """``compute()``, cached as JSON at ``path`` (recomputed when ``force``)."""
    if path.is_file() and not force:
        return dict(json.loads(path.read_text()))
    res = compute()
    path.write_text(json.dumps(res))
    return res


def cached_cell(
    name: str, scorer: str, protocol: str, seed: int, data: Any, force: bool
) -> dict[str, Any]:
    def compute() -> dict[str, Any]:
        sc = cached_scores(name, scorer, protocol, seed, data)
        return run_cell(name, scorer, protocol, seed, sc, data[3])

    return cached_json(OUT / f"eval_{name}_{scorer}_{protocol}_{seed}.json", force, compute)


# --------------------------------------------------------------------------- report

MAIN = ("tune", "per_class", "fixed_point", "global_threshold", "top_k")
XC = ("xc_bca", "xc_fw")
PROB = ("etu",)
LABEL = {
    "tune": "**tune**",
    "per_class": "per_class",
    "fixed_point": "fixed_point",
    "global_threshold": "global",
    "top_k": "top_k",
    "xc_bca": "xc BCA*",
    "xc_fw": "xc FW",
    "etu": "etu*",
    "tune_never": "tune, unseen=never",
    "tune_calibrated": "tune, calibrated=True (model prior)",
    "tune_calibrated_ntest": "tune, calibrated=True, n_eval=test size",
    "tune_unseen_quantile": "tune, unseen: top share of seen classes",
    "tune_unseen_global": "tune, unseen: global threshold",
    "tune_ntest": "tune, n_eval=test size",
    "tune_cv": "tune, prior=cv",
    "tune_trainrates": "tune, base_rates=train",
    "tune_a1": "tune, prior=1",
    "tune_a10": "tune, prior=10",
    "tune_per_class": "tune, method=per_class",
}


def seed_mean(
    cells: dict[tuple[str, ...], Any], key: tuple[str, str, str], m: str, f: str
) -> float:
    vals = [
        c["methods"][m][f]
        for s in SEEDS
        if (c := cells.get((*key, str(s)))) is not None and m in c["methods"]
    ]
    return float(np.mean(vals)) if vals else math.nan


def report(cells: dict[tuple[str, ...], Any], datasets: list[str], timing: list[str]) -> str:
    keys = [
        (d, sc, p)
        for d in datasets
        for sc in SCORERS
        for p in PROTOCOLS
        if (d, sc, p, "0") in cells
    ]
    lines = [
        "# optimize.tune: held-out F-macro",
        "",
        "Written by `benchmarks/bench_tune.py` (one run; fitted scores cached in "
        "benchmarks/out/). Mulan datasets, official train/test split; scorers ridge "
        "one-vs-rest (closed form, alpha by GCV) and L2 logistic one-vs-rest (one L-BFGS for "
        "all labels, at most 200 iterations, lambda in {1, 10, 100} by validation log-loss on "
        "the seed-0 split; dense features standardized, sparse bag-of-words features (under 5% "
        "non-zero: medical, bibtex, Corel5k) kept sparse and scaled "
        "by column RMS); protocols `val` (seeded 25% validation split, scorer fitted on the "
        "other 75%) and `oof` (5-fold out-of-fold scores of the whole training set, scorer "
        "refitted on all of it for the test scores); seeds 0, 1, 2 (the split / folds). "
        "Thresholds are tuned on the tuning scores only; the test set is only scored. "
        "F-macro = F1(mean p, mean r), macro-F1 = mean F1, both over the classes with a test "
        "positive; a class predicting nothing has precision 0. `tune` = `optimize.tune` with "
        "its defaults (prior=3, n_eval = tuning rows, unseen='prior'). xcolumns 0.0.2 on the "
        "logistic probabilities only: BCA* = block coordinate ascent for macro-F1 on the test "
        "probabilities (transductive), FW = Frank-Wolfe for macro-F1 trained on the tuning "
        "scores (classes with tuning positives), both k=0, seed 0. etu* = `optimize.etu` on the "
        "test probabilities (transductive, no labels; logistic cells only). The mean rank pool "
        "does not include etu*. delicious is left out "
        "(its logistic fits take minutes each on this shared 2-core machine).",
        "",
    ]

    def cell_table(metric: str, title: str) -> None:
        cols = [*MAIN, *XC, *PROB]
        lines.extend([f"## {title} (test, mean over 3 seeds)", ""])
        head = ["dataset / scorer / protocol", "fixed_point (tuning F)"] + [LABEL[c] for c in cols]
        lines.append("| " + " | ".join(head) + " |")
        lines.append("| --- |" + " ---: |" * (len(head) - 1))
        for k in keys:
            row = [
                f"{k[0]} / {k[1]} / {k[2]}",
                f"{seed_mean(cells, k, 'fixed_point', 'tune_f'):.3f}",
            ]
            vals = {c: seed_mean(cells, k, c, metric) for c in cols}
            best = max(v for v in vals.values() if not math.isnan(v))
            for c in cols:
                v = vals[c]
                s = "" if math.isnan(v) else f"{v:.3f}"
                row.append(f"**{s}**" if v == best else s)
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")

    def rel(k: tuple[str, str, str], m: str, base: str, metric: str = "test_f") -> float:
        b = seed_mean(cells, k, base, metric)
        return seed_mean(cells, k, m, metric) / b - 1.0 if b > 0 else math.nan

    def summary(metric: str, methods: list[str], title: str) -> None:
        lines.extend([f"## {title}", ""])
        lines.append(
            "| method | mean rel. gain vs per_class (all) | ridge | "
            "logistic | wins / ties / losses "
            "vs per_class | mean rank | cells |"
        )
        lines.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        ranked = [*MAIN, *XC]
        for m in methods:
            ks = [k for k in keys if m in cells[(*k, "0")]["methods"]]
            g = [rel(k, m, "per_class", metric) for k in ks]
            gr = [rel(k, m, "per_class", metric) for k in ks if k[1] == "ridge"]
            gl = [rel(k, m, "per_class", metric) for k in ks if k[1] == "logreg"]
            d = [
                seed_mean(cells, k, m, metric) - seed_mean(cells, k, "per_class", metric)
                for k in ks
            ]
            w = sum(x > 0.0005 for x in d)
            t = sum(abs(x) <= 0.0005 for x in d)
            lo = sum(x < -0.0005 for x in d)
            ranks = []
            for k in ks:
                pool = [c for c in ranked if c in cells[(*k, "0")]["methods"]]
                if m not in pool:
                    pool = [*pool, m]
                vals = {c: seed_mean(cells, k, c, metric) for c in pool}
                ranks.append(1 + sum(vals[c] > vals[m] for c in pool if c != m))
            fmt = lambda xs: f"{100 * np.mean(xs):+.1f}%" if xs else "-"  # noqa: E731
            lines.append(
                f"| {LABEL[m]} | {fmt(g)} | {fmt(gr)} | {fmt(gl)} | {w} / {t} / {lo} | "
                f"{np.mean(ranks):.2f} | {len(ks)} |"
            )
        lines.append("")
        lines.append(
            "Relative gain: mean over the cells (dataset x scorer x protocol, seed-averaged) of "
            "F(method) / F(per_class) - 1; ties within 0.0005. Mean rank among per_class, tune, "
            "fixed_point, global, top_k and (logistic cells) the two xcolumns methods; "
            "variants are ranked against that same pool."
        )
        lines.append("")

    cell_table("test_f", "Held-out F-macro")
    summary(
        "test_f",
        [
            *MAIN,
            *XC,
            *PROB,
            "tune_never",
            "tune_calibrated",
            "tune_calibrated_ntest",
            "tune_unseen_quantile",
            "tune_unseen_global",
            "tune_ntest",
            "tune_cv",
            "tune_trainrates",
            "tune_a1",
            "tune_a10",
            "tune_per_class",
        ],
        "Held-out F-macro: summary over the cells",
    )
    # goals per dataset
    lines.extend(
        ["## Goals per dataset (held-out F-macro, mean over scorers, protocols, seeds)", ""]
    )
    lines.append(
        "| dataset | tune vs per_class (rel.) | worst cell | tune - fixed_point | "
        "tune - xc BCA* | tune - xc FW | never-predicted test "
        "classes: tune / per_class / fixed_point |"
    )
    lines.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    goal_rel, goal_fp, goal_xc = [], [], []
    for dname in datasets:
        ks = [k for k in keys if k[0] == dname]
        if not ks:
            continue
        r = [rel(k, "tune", "per_class") for k in ks]
        dfp_cells = [
            seed_mean(cells, k, "tune", "test_f") - seed_mean(cells, k, "fixed_point", "test_f")
            for k in ks
        ]
        dfp = np.mean(dfp_cells)
        kl = [k for k in ks if k[1] == "logreg"]
        dx = [
            np.mean(
                [
                    seed_mean(cells, k, "tune", "test_f") - seed_mean(cells, k, x, "test_f")
                    for k in kl
                ]
            )
            for x in XC
        ]
        nv = [
            np.mean([seed_mean(cells, k, m, "never_predicted_test_classes") for k in ks])
            for m in ("tune", "per_class", "fixed_point")
        ]
        goal_rel.append(np.mean(r))
        goal_fp.append(dfp)
        goal_xc.append(min(dx))
        lines.append(
            f"| {dname} | {100 * np.mean(r):+.1f}% | {100 * min(r):+.1f}% | {dfp:+.4f} "
            f"(worst cell {min(dfp_cells):+.4f}) | "
            f"{dx[0]:+.4f} | {dx[1]:+.4f} | {nv[0]:.1f} / {nv[1]:.1f} / {nv[2]:.1f} |"
        )
    allrel = [rel(k, "tune", "per_class") for k in keys]
    lines.extend(
        [
            "",
            f"* mean relative gain of tune over per_class, all {len(keys)} cells: "
            f"{100 * np.mean(allrel):+.1f}% "
            f"(goal >= +12%: {'met' if np.mean(allrel) >= 0.12 else 'NOT met'})",
            f"* never more than 3% below per_class on any dataset (dataset means): "
            f"{'met' if min(goal_rel) >= -0.03 else 'NOT met'} (worst "
            f"dataset {100 * min(goal_rel):+.1f}%)",
            f"* never below the in-sample optimum (fixed_point) by more than 0.005 on any dataset: "
            f"{'met' if min(goal_fp) >= -0.005 else 'NOT met'} (worst {min(goal_fp):+.4f})",
            f"* ahead of xcolumns (BCA* and FW) on every dataset: "
            f"{'met' if min(goal_xc) > 0 else 'NOT met'} (worst margin {min(goal_xc):+.4f})",
            "",
        ]
    )
    unseen_section(cells, lines)
    cell_table("test_macro_f1", "Held-out macro-F1")
    summary(
        "test_macro_f1",
        [*MAIN, *XC, *PROB, "tune_per_class"],
        "Held-out macro-F1: summary over the cells",
    )
    # bootstrap
    lines.extend(
        [
            "## Paired bootstrap over test objects (seed 0)",
            "",
            f"{N_BOOT} resamples of the test rows; the difference of test F-macro on each "
            "resample (classes with a positive in the resample); mean and 95% percentile interval.",
            "",
            "| dataset / scorer / protocol | tune - per_class | tune - "
            "fixed_point | tune - xc BCA* |",
            "| --- | ---: | ---: | ---: |",
        ]
    )
    for k in keys:
        bs = cells[(*k, "0")].get("bootstrap", {})

        def fmt_b(v: Any) -> str:
            return "" if v is None else f"{v[0]:+.3f} [{v[1]:+.3f}, {v[2]:+.3f}]"

        lines.append(
            f"| {k[0]} / {k[1]} / {k[2]} | {fmt_b(bs.get('tune-per_class'))} | "
            f"{fmt_b(bs.get('tune-fixed_point'))} | {fmt_b(bs.get('tune-xc_bca'))} |"
        )
    lines.append("")
    lines.extend(timing)
    facts = machine_facts(["numpy", "numba", "scipy", "xcolumns"])
    lines.extend(["## Machine", ""] + [f"* {k}: {v}" for k, v in facts.items()] + [""])
    return "\n".join(lines)


def unseen_section(cells: dict[tuple[str, ...], Any], lines: list[str]) -> None:
    """The rules for classes without tuning positives, on the runs that have such classes."""
    rules = ("tune", "tune_never", "tune_unseen_quantile", "tune_unseen_global")
    runs = [c for c in cells.values() if "tune_unseen_quantile" in c["methods"]]
    if not runs:
        return
    names = {
        "tune": "prior (default: the linearization at the solution; here every object)",
        "tune_never": "never (+inf)",
        "tune_unseen_quantile": "top share of the tuning scores (the seen classes' mean share)",
        "tune_unseen_global": "global_threshold's shared threshold",
    }
    lines.extend(
        [
            "## Classes without tuning positives: the rules compared",
            "",
            f"The {len(runs)} runs (cell x seed) whose tuning labels leave some class without a "
            "positive (enron, medical, Corel5k); tune's thresholds for the other classes, "
            "each rule for these. Held-out F-macro, mean relative gain over per_class and "
            "mean test F-macro.",
            "",
            "| rule | mean rel. gain vs per_class | mean test F-macro |",
            "| --- | ---: | ---: |",
        ]
    )
    for m in rules:
        g = [c["methods"][m]["test_f"] / c["methods"]["per_class"]["test_f"] - 1 for c in runs]
        f = [c["methods"][m]["test_f"] for c in runs]
        lines.append(f"| {names[m]} | {100 * np.mean(g):+.1f}% | {np.mean(f):.4f} |")
    lines.append("")


def timing_section() -> list[str]:
    """tune (defaults) and prior='cv' against fixed_point on the bundled Corel5k rankings,
    and on a tuning set of the benchmark's size (Corel5k out-of-fold ridge scores)."""
    d = np.load(HERE.parent / "optimize" / "data" / "corel5k_test_scores.npz")
    rows = _timing_table(
        d["scores"],
        d["labels"],
        "## Run time on the bundled Corel5k rankings (500 x 374)",
        {"tune": 1.5, "tune_cv": 10.0},
    )
    big = OUT / "scores_corel5k_ridge_oof_0.npz"
    if big.is_file():
        with np.load(big) as z:
            s, y = z["s_tune"], z["y_tune"]
        title = f"### The same on Corel5k's out-of-fold ridge scores ({s.shape[0]} x {s.shape[1]})"
        rows += _timing_table(s, y, title, {})
    return rows + _sparse_section() + _cost_over_tuning_sets()


def _cost_over_tuning_sets() -> list[str]:
    """tune and prior='cv' against fixed_point on each of the benchmark's seed-0 tuning
    sets (the fitted scores cached in out/), with where tune's linearization ended: at a
    fixed point (one walk) or on an edge (a second walk and the exact step)."""
    found = []
    for name in DATASETS:
        for scorer in SCORERS:
            for protocol in PROTOCOLS:
                path = OUT / f"scores_{name}_{scorer}_{protocol}_0.npz"
                if path.is_file():
                    found.append((f"{name} / {scorer} / {protocol}", path))
    if not found:
        return []
    rows = [
        "### Over the benchmark's tuning sets (seed 0)",
        "",
        "Each tuning set of the held-out runs above (seed 0), interleaved medians of 7 runs. "
        "*ended*: where the linearization of tune's default fit ended: at a fixed point "
        "(one walk of the scores) or on an edge (a second walk keeps the cuts the exact "
        "step can use, then the exact step runs; *nodes*: its merge's partial sums, 0 "
        "when the reduction alone proves the optimum). Small sets take about a "
        "millisecond, where fixed per-call costs weigh most.",
        "",
        "| tuning set | rows x labels | fixed_point | tune | ended (nodes) | tune(prior='cv') |",
        "| --- | --- | ---: | ---: | --- | ---: |",
    ]
    ratios: dict[str, list[float]] = {"fixed_point": [], "edge": []}
    cv_ratios = []
    for label, path in found:
        with np.load(path) as z:
            s, y = z["s_tune"], z["y_tune"]
        fns = {
            "fixed_point": lambda s=s, y=y: fixed_point(s, y),
            "tune": lambda s=s, y=y: tune(s, y),
            "tune_cv": lambda s=s, y=y: tune(s, y, prior="cv"),
        }
        t = measure_interleaved(fns, repeats=7, warmup=1)
        base = t["fixed_point"].median
        search = tune(s, y).diagnostics["search_diagnostics"]
        status = str(search["status"])
        nodes = search["exact"]["n_nodes"] if "exact" in search else 0
        ratio, cv_ratio = t["tune"].median / base, t["tune_cv"].median / base
        ratios["edge" if status == "edge" else "fixed_point"].append(ratio)
        cv_ratios.append(cv_ratio)
        ended = f"edge ({nodes})" if status == "edge" else "fixed point"
        rows.append(
            f"| {label} | {s.shape[0]} x {s.shape[1]} | {base * 1000:.1f} ms | {ratio:.2f}x "
            f"| {ended} | {cv_ratio:.2f}x |"
        )
    rows.append("")
    for status, vals in ratios.items():
        if vals:
            rows.append(
                f"- tune, ended at {'a fixed point' if status == 'fixed_point' else 'an edge'}: "
                f"{len(vals)} sets, median {np.median(vals):.2f}x, at most {max(vals):.2f}x "
                "fixed_point."
            )
    rows.append(
        f"- tune(prior='cv'): median {np.median(cv_ratios):.2f}x, at most "
        f"{max(cv_ratios):.2f}x fixed_point."
    )
    rows.append("")
    return rows


def _every_cut_tune(s: Any, y: Any, pi: np.ndarray | None) -> Any:
    """tune's every-cut path (what it runs for other methods, calibrated, points=): the
    problem of every cut, smoothed whole, then the same solve. tune has no public switch
    for it; given base rates took it up to commit 9e67a45."""
    from fmacro.optimize.tuning._solve import build_problem, solve

    problem = build_problem(s, y, 0.0, pi, float(y.shape[0]), 1.0, "fixed_point", "prior")
    return solve(problem, 3.0, {})


def _sparse_section() -> list[str]:
    """tune's walk on sparse scores against fixed_point and tune smoothing every cut, with
    its own base rates and given ones (the population rates the labels are drawn with)."""
    import tracemalloc

    rng = np.random.default_rng(0)
    n_obj, n_cls, density = 20_000, 5_000, 0.02
    s = sp.random(
        n_obj,
        n_cls,
        density=density,
        format="csr",
        random_state=1,
        data_rvs=lambda k: np.round(rng.random(k), 3) + 0.001,  # ties, as rounded outputs
    )
    rates = np.minimum(0.2, 0.05 / np.arange(1, n_cls + 1) ** 0.5)
    y = sp.csr_matrix(rng.random((n_obj, n_cls)) < rates)
    fns = {
        "fixed_point": lambda: fixed_point(s, y),
        "tune": lambda: tune(s, y),
        "tune, every cut": lambda: _every_cut_tune(s, y, None),
        "tune(base_rates=rates)": lambda: tune(s, y, base_rates=rates),
        "tune(base_rates=rates), every cut": lambda: _every_cut_tune(s, y, rates),
    }
    t = measure_interleaved(fns, repeats=7, warmup=1)
    size = s.data.nbytes + s.indices.nbytes + s.indptr.nbytes
    rows = [
        f"### Sparse scores ({n_obj} x {n_cls}, {density:.0%} retrieved, CSR)",
        "",
        "Interleaved medians of 7 runs; traced peak (tracemalloc) of one call over the CSR "
        f"scores' {size / 2**20:.0f} MB. *every cut*: the path that builds and smooths every "
        "cut (tune's for other methods; given base rates took it up to commit 9e67a45), "
        "run through its private entry; `rates`: the population rates the labels are "
        f"drawn with (positive for all {n_cls} classes, as training label rates would be).",
        "",
        "| method | median | ratio to fixed_point | traced peak / scores |",
        "| --- | ---: | ---: | ---: |",
    ]
    for k, fn in fns.items():
        tracemalloc.start()
        start = tracemalloc.get_traced_memory()[0]
        fn()
        peak = tracemalloc.get_traced_memory()[1] - start
        tracemalloc.stop()
        ratio = t[k].median / t["fixed_point"].median
        rows.append(f"| {k} | {t[k].median * 1000:.0f} ms | {ratio:.2f}x | {peak / size:.2f}x |")
    rows.append("")
    return rows


def _timing_table(s: np.ndarray, y: np.ndarray, title: str, goals: dict[str, float]) -> list[str]:
    """Interleaved medians of fixed_point, tune, tune(prior='cv') with own and given prior
    centres, per_class; ``goals``: the issue's ratio goals (for the bundled rankings only)."""
    # given prior centres (as from training labels): the labels' rates, floored at 0.001
    # so that the classes without positives have a positive centre (their rule then walks)
    rates = np.maximum(np.asarray(y).mean(axis=0), 1e-3)
    fns = {
        "fixed_point": lambda: fixed_point(s, y),
        "tune": lambda: tune(s, y),
        "tune_cv": lambda: tune(s, y, prior="cv"),
        "tune_cv_given_rates": lambda: tune(s, y, prior="cv", base_rates=rates),
        "per_class": lambda: per_class(s, y),
    }
    t = measure_interleaved(fns, repeats=31, warmup=3)
    base = t["fixed_point"].median
    rows = [
        title,
        "",
        "Interleaved medians of 31 runs (after 3 warm-up runs), same process; the machine "
        "is shared, so absolute times vary between runs, the ratios less.",
        "",
        "| method | median | ratio to fixed_point | goal |",
        "| --- | ---: | ---: | --- |",
    ]
    for k, v in t.items():
        ratio = v.median / base
        goal = ""
        if k in goals:
            goal = f"<= {goals[k]}x: {'met' if ratio <= goals[k] else 'NOT met'}"
        rows.append(f"| {k} | {v.median * 1000:.1f} ms | {ratio:.2f}x | {goal} |")
    rows.append("")
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--force", action="store_true", help="recompute the per-cell results")
    ap.add_argument("--report-only", action="store_true")
    args = ap.parse_args()
    OUT.mkdir(exist_ok=True)
    datasets = [d for d in args.datasets.split(",") if d]
    cells: dict[tuple[str, ...], Any] = {}
    for name in datasets:
        data = None if args.report_only else load(name)
        for scorer in SCORERS:
            for protocol in PROTOCOLS:
                for seed in SEEDS:
                    path = OUT / f"eval_{name}_{scorer}_{protocol}_{seed}.json"
                    if args.report_only:
                        if path.is_file():
                            cells[(name, scorer, protocol, str(seed))] = json.loads(
                                path.read_text()
                            )
                        continue
                    t0 = time.perf_counter()
                    cells[(name, scorer, protocol, str(seed))] = cached_cell(
                        name, scorer, protocol, seed, data, args.force
                    )
                    log(f"{name}/{scorer}/{protocol}/{seed}: {time.perf_counter() - t0:.1f} s")
    timing = timing_section()
    RESULTS.write_text(report(cells, datasets, timing) + "\n", encoding="utf-8")
    log(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
