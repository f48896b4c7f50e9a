"""Can ``optimize.tune`` do better on tiny tuning sets? Variants measured on cached scores.

Issue 11's last unmet goal: ``tune`` ahead of xcolumns (BCA* and FW) on every dataset. It
fails on emotions only, from one cell (emotions / logistic / val: 97 tuning rows). This
script evaluates principled variants of ``tune`` on the 84 cached runs of
``bench_tune.py`` (7 datasets x ridge/logistic x val/oof x seeds 0-2; the fitted scores in
benchmarks/out/, read only) and writes benchmarks/results_small_tuning.md. Per-run test
F-macro values are cached in benchmarks/out_gap/ (``--force`` recomputes them).

Variants of tune, on all 28 cells (each returns one threshold per column, applied to
the test scores as ``score >= threshold``; test F-macro exactly as in bench_tune.py):

* ``midpoint``: tune's cuts, each finite threshold moved from the lowest predicted
  tuning score to the middle of the gap below it (same tuning predictions).
* ``bag_*`` (B bootstrap resamples of the tuning rows, tune with its defaults on each,
  n_eval = N): per class, over the resamples with a positive of it, the median
  threshold, or the mean / median predicted share of the full tuning rows mapped back to
  a threshold there (the top ``round(share N)`` objects), or the median angle phi
  (each class then at its argmax on the full data's smoothed points). Classes without
  a tuning positive keep tune's threshold. ``subag_share``: half-samples, no replacement.
* ``rank_kernel``: counts smoothed along the ranking (``rank_kernel``), then tune's
  smoothing and exact optimum.
* ``phi_cv``: tune's linearization angle chosen by 2 x 2-fold held-out F-macro.
* ``expected_f``: tune's angle family scored by Monte Carlo posterior-predictive F-macro.
* ``a_sqrt_m``, ``a_m_frac``: per-class pseudo-counts a_k = sqrt(m_k), max(3, m_k / 10).

Variants other than the bagging and the angle rules put their per-cut (p, r) into
``fixed_point`` through ``solve_points`` (it reproduces tune bit for bit with a = 3).

On the logistic cells only (they read the scores as calibrated probabilities):
xcolumns FW on tune's smoothed F-macro, the macro-F1 plug-in eta >= F*_k / 2 and an
F-macro plug-in at tune's solution (``plugin_fmacro``), next to xcolumns FW (macro-F1)
and BCA*. The report ends with diagnostics of the emotions / logistic cells (a grid of
pseudo-counts, FW's own seed, a paired bootstrap of the gap over the test rows).

Usage::

    FMACRO_DATA=/work/shared/data python benchmarks/explore_small_tuning.py [--force]
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

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from bench_tune import (  # noqa: E402
    DATASETS,
    PROTOCOLS,
    SCORERS,
    SEEDS,
    load,
    test_scores,
    xcolumns_predictions,
)

from fmacro.optimize.baselines import per_class  # noqa: E402
from fmacro.optimize.search.fixed_point import fixed_point  # noqa: E402
from fmacro.optimize.tuning.tune import tune  # noqa: E402

SCORES = HERE / "out"  # bench_tune's cache: read only
OUT = HERE / "out_gap"
RESULTS = HERE / "results_small_tuning.md"
N_BAG = 25


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- variants


def midpoint(s: np.ndarray, thr: np.ndarray) -> np.ndarray:
    """Move each finite threshold to the middle of the gap below it in the tuning scores."""
    out = np.array(thr, dtype=np.float64)
    for c in np.flatnonzero(np.isfinite(out)):
        below = s[:, c][s[:, c] < out[c]]
        if below.size:
            out[c] = 0.5 * (out[c] + below.max())
    return out


def share_threshold(s_col: np.ndarray, share: float) -> float:
    """Threshold predicting the top ``round(share N)`` objects of ``s_col`` (ties kept whole)."""
    n = s_col.size
    j = round(share * n)
    if j <= 0:
        return math.inf
    if j >= n:
        return -math.inf
    return float(np.sort(s_col)[::-1][j - 1])


def bagged(
    s: np.ndarray,
    y: np.ndarray,
    *,
    n_bag: int = N_BAG,
    replace: bool = True,
    aggregate: str = "share",
    seed: int = 0,
    **tune_kw: Any,
) -> np.ndarray:
    """tune on resamples of the rows, aggregated per class (module docstring)."""
    n, k = y.shape
    rng = np.random.default_rng(seed)
    size = n if replace else n // 2
    shares = np.full((n_bag, k), np.nan)
    thrs = np.full((n_bag, k), np.nan)
    phis = np.full(n_bag, np.nan)
    for b in range(n_bag):
        rows = rng.choice(n, size=size, replace=replace)
        yb = y[rows]
        if not yb.any():
            continue
        res = tune(s[rows], yb, n_eval=float(n), **tune_kw)
        seen = yb.sum(0) > 0
        phis[b] = res.diagnostics["phi"]
        t = np.asarray(res.thresholds)
        thrs[b, seen] = t[seen]
        shares[b, seen] = (s[:, seen] >= t[seen]).mean(0)
    if aggregate == "phi":
        return at_angle(s, y, float(np.nanmedian(phis)))
    full = np.array(tune(s, y, **tune_kw).thresholds)
    out = full.copy()
    for c in range(k):
        ok = ~np.isnan(shares[:, c])
        if not ok.any() or y[:, c].sum() == 0:
            continue
        if aggregate == "median":
            out[c] = float(np.median(thrs[ok, c]))
        elif aggregate == "median_share":
            out[c] = share_threshold(s[:, c], float(np.median(shares[ok, c])))
        else:
            out[c] = share_threshold(s[:, c], float(shares[ok, c].mean()))
    return out


def solve_points(s: np.ndarray, y: np.ndarray, p: np.ndarray, r: np.ndarray) -> np.ndarray:
    """The exact F-macro optimum (fixed_point) of per-cut (p, r) on the cuts of class_points(s, y).

    The public ``tune`` takes one scalar pseudo-count; these experiments need other
    per-cut values, so a SmoothedPoints whose ``precision``/``recall`` are replaced is
    handed to ``fixed_point`` (it reads only those and the counts). Classes without
    tuning positives keep tune's default rule.
    """
    from fmacro.optimize.search.points import class_points
    from fmacro.optimize.tuning.smoothing import SmoothedPoints

    raw = class_points(s, y)

    class _Pts(SmoothedPoints):
        @property
        def precision(self) -> np.ndarray:  # type: ignore[override]
            return p

        @property
        def recall(self) -> np.ndarray:  # type: ignore[override]
            return r

    m = np.asarray(raw.support, dtype=np.float64)
    base = SmoothedPoints(
        raw.indptr,
        raw.tp,
        raw.fp,
        raw.threshold,
        raw.support,
        raw.class_index,
        raw.n_samples,
        raw.n_columns,
        raw.zero_division,
        pseudo_count=3.0,
        base_rate=m / raw.n_samples,
        n_eval=float(raw.n_samples),
    )
    pts = object.__new__(_Pts)
    for field in base.__attrs_attrs__:
        object.__setattr__(pts, field.name, getattr(base, field.name))
    res = fixed_point(points=pts)
    out = np.array(tune(s, y).thresholds)
    out[raw.class_index] = np.asarray(res.thresholds)[raw.class_index]
    return out


def cut_table(s: np.ndarray, y: np.ndarray) -> dict[str, np.ndarray]:
    """Per cut of class_points(s, y): tp, j, the class's m, N, and the owner class."""
    from fmacro.optimize.search.points import class_points

    raw = class_points(s, y)
    indptr = np.asarray(raw.indptr)
    owner = np.repeat(np.arange(raw.n_classes), np.diff(indptr))
    tp = np.asarray(raw.tp, dtype=np.float64)
    j = tp + np.asarray(raw.fp, dtype=np.float64)
    m = np.asarray(raw.support, dtype=np.float64)
    return {
        "tp": tp,
        "j": j,
        "m": m[owner],
        "n": float(raw.n_samples),
        "owner": owner,
        "indptr": indptr,
        "class_index": np.asarray(raw.class_index),
    }


def smoothed_pr(
    tp: np.ndarray, j: np.ndarray, m: np.ndarray, n: float, a: np.ndarray | float
) -> tuple[np.ndarray, np.ndarray]:
    """tune's smoothed (p~, r~) with pseudo-count(s) a, centre m/N, n_eval = N (smoothing.py)."""
    pi = m / n
    with np.errstate(divide="ignore", invalid="ignore"):
        p = (tp + a * pi) / (j + a)
        q = np.where(j > 0, (1.0 - j / n) ** n, 1.0)
        p = np.where(j > 0, p * (1.0 - q), 0.0)
        r = (tp + a * j / n) / (m + a)
    return p, r


def per_class_prior(
    s: np.ndarray, y: np.ndarray, a_of_m: Callable[[np.ndarray], np.ndarray]
) -> np.ndarray:
    """tune with a per-class pseudo-count a_k = a_of_m(m_k)."""
    c = cut_table(s, y)
    p, r = smoothed_pr(c["tp"], c["j"], c["m"], c["n"], a_of_m(c["m"]))
    return solve_points(s, y, p, r)


def at_angle(s: np.ndarray, y: np.ndarray, phi: float) -> np.ndarray:
    """Each class at the cut maximizing cos(phi) p~ + sin(phi) r~ of tune's smoothed points."""
    from fmacro.optimize.search.points import class_points

    c = cut_table(s, y)
    p, r = smoothed_pr(c["tp"], c["j"], c["m"], c["n"], 3.0)
    v = math.cos(phi) * p + math.sin(phi) * r
    raw = class_points(s, y)
    out = np.array(tune(s, y).thresholds)
    thr = np.asarray(raw.threshold)
    for k in range(raw.n_classes):
        lo, hi = c["indptr"][k], c["indptr"][k + 1]
        out[c["class_index"][k]] = thr[lo + int(np.argmax(v[lo:hi]))]
    return out


def angle_thresholds(s: np.ndarray, y: np.ndarray, phis: np.ndarray) -> np.ndarray:
    """Thresholds (len(phis), n_columns): each seen class at argmax cos(phi) p~ + sin(phi) r~."""
    from fmacro.optimize.search.points import class_points

    c = cut_table(s, y)
    thr = np.asarray(class_points(s, y).threshold)
    p, r = smoothed_pr(c["tp"], c["j"], c["m"], c["n"], 3.0)
    out = np.full((len(phis), y.shape[1]), np.inf)
    for i, phi in enumerate(phis):
        v = math.cos(phi) * p + math.sin(phi) * r
        for k, col in enumerate(c["class_index"]):
            lo, hi = c["indptr"][k], c["indptr"][k + 1]
            out[i, col] = thr[lo + int(np.argmax(v[lo:hi]))]
    return out


def phi_cv(
    s: np.ndarray, y: np.ndarray, seed: int, n_grid: int = 45, repeats: int = 2
) -> np.ndarray:
    """The linearization angle phi (the trade between P and R) chosen by held-out F-macro.

    2 x 2-fold inside the tuning rows (as tune's prior='cv'): on each fitting half every
    phi of a grid over (0, pi/2) gives each class its argmax of the smoothed points; the
    phi with the best mean held-out F-macro is then applied to the full tuning rows.
    """
    from bench_tune import class_counts, scores_from_counts

    phis = np.linspace(0.0, math.pi / 2, n_grid + 2)[1:-1]
    rng = np.random.default_rng(seed)
    n = y.shape[0]
    total = np.zeros(phis.size)
    for _ in range(repeats):
        perm = rng.permutation(n)
        halves = (np.sort(perm[: n // 2]), np.sort(perm[n // 2 :]))
        for fit, ev in (halves, halves[::-1]):
            if not y[fit].any() or not y[ev].any():
                continue
            th = angle_thresholds(s[fit], y[fit], phis)
            for i in range(phis.size):
                total[i] += scores_from_counts(*class_counts(s[ev] >= th[i], y[ev]))[0]
    full = angle_thresholds(s, y, phis[[int(np.argmax(total))]])[0]
    return np.where(y.sum(0) > 0, full, np.asarray(tune(s, y).thresholds))


def expected_f_choice(s: np.ndarray, y: np.ndarray, seed: int, draws: int = 1000) -> np.ndarray:
    """Among tune's linearization family, the cut vector of highest posterior-predictive F-macro.

    Candidates: for 180 angles phi in (0, pi/2), each class at its argmax of the smoothed
    points (a=3). Each is scored by Monte Carlo over ``draws`` new batches of N objects:
    true precision and recall of each class's cut from their Beta posteriors (tune's
    priors), the batch's cut size j' ~ Bin(N, j/N) and positives m' ~ Bin(N, m/N),
    tp' ~ Bin(j', precision) for P and Bin(m', recall) for R (sampled apart: a variance
    approximation), F_1 of the means. So the choice pays for the spread of small cuts
    and small classes, which the plug-in F(mean p~, mean r~) does not (Jensen).
    """
    from fmacro.optimize.search.points import class_points

    rng = np.random.default_rng(seed)
    c = cut_table(s, y)
    n = c["n"]
    a = 3.0
    thr = np.asarray(class_points(s, y).threshold)
    p, r = smoothed_pr(c["tp"], c["j"], c["m"], n, a)
    k_cls = c["class_index"].size
    cands = set()
    for phi in np.linspace(0.0, math.pi / 2, 182)[1:-1]:
        v = math.cos(phi) * p + math.sin(phi) * r
        cands.add(
            tuple(
                int(c["indptr"][k] + np.argmax(v[c["indptr"][k] : c["indptr"][k + 1]]))
                for k in range(k_cls)
            )
        )
    best, best_f = None, -1.0
    for cand in sorted(cands):
        g = np.asarray(cand)
        tp, j, m = c["tp"][g], c["j"][g], c["m"][g]
        pi = m / n
        eps = 1e-9  # Beta parameters must be > 0 (the empty cut: tp = j = 0)
        th_p = rng.beta(tp + a * pi + eps, j - tp + a * (1 - pi) + eps, size=(draws, k_cls))
        th_r = rng.beta(tp + a * j / n + eps, m - tp + a * (1 - j / n) + eps, size=(draws, k_cls))
        j_new = rng.binomial(int(n), np.minimum(j / n, 1.0), size=(draws, k_cls))
        m_new = rng.binomial(int(n), pi, size=(draws, k_cls))
        prec = np.where(j_new > 0, rng.binomial(j_new, th_p) / np.maximum(j_new, 1), 0.0)
        rec = np.where(m_new > 0, rng.binomial(m_new, th_r) / np.maximum(m_new, 1), np.nan)
        pm = prec.mean(1)
        rm = np.nanmean(rec, 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            f = float(np.where(pm + rm > 0, 2 * pm * rm / (pm + rm), 0.0).mean())
        if f > best_f:
            best, best_f = g, f
    out = np.asarray(tune(s, y).thresholds).copy()
    out[c["class_index"]] = thr[best]
    return out


def rank_kernel(s: np.ndarray, y: np.ndarray, a: float = 3.0) -> np.ndarray:
    """tune on rank-kernel-smoothed counts (the 'score axis' smoothing).

    tp of a cut of size j becomes sum over the class's positives of
    Phi((j + 1/2 - rank_i) / h_j), h_j = sqrt(j (N - j) / N): the expected tp when the
    cut's size fluctuates like the count of a new sample of N above a fixed population
    quantile j/N (binomial sd). Then tune's Beta smoothing on these counts.
    """
    from scipy.special import ndtr

    c = cut_table(s, y)
    n = c["n"]
    tp_s = c["tp"].copy()
    for k, col in enumerate(c["class_index"]):
        lo, hi = c["indptr"][k], c["indptr"][k + 1]
        sc = s[:, col]
        order = np.argsort(-sc, kind="stable")
        # average rank (1-based) within tie groups
        ranks = np.empty(sc.size)
        srt = sc[order]
        _, first, counts = np.unique(-srt, return_index=True, return_counts=True)
        avg = first + (counts + 1) / 2.0
        ranks[order] = np.repeat(avg, counts)
        rpos = ranks[y[:, col] > 0]
        j = c["j"][lo:hi]
        h = np.sqrt(j * (n - j) / n)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = (j[:, None] + 0.5 - rpos[None, :]) / h[:, None]
        ind = (rpos[None, :] <= j[:, None]).astype(np.float64)
        val = np.where(h[:, None] > 0, ndtr(z), ind).sum(1)
        tp_s[lo:hi] = np.clip(val, 0.0, np.minimum(j, c["m"][lo]))
    p, r = smoothed_pr(tp_s, c["j"], c["m"], n, a)
    return solve_points(s, y, p, r)


def variants(s: np.ndarray, y: np.ndarray, seed: int) -> dict[str, Callable[[], np.ndarray]]:
    def t(**kw: Any) -> Callable[[], np.ndarray]:
        return lambda: np.asarray(tune(s, y, **kw).thresholds)

    return {
        "tune": t(),
        "midpoint": lambda: midpoint(s, np.asarray(tune(s, y).thresholds)),
        "bag_median": lambda: bagged(s, y, aggregate="median", seed=seed),
        "bag_share": lambda: bagged(s, y, aggregate="share", seed=seed),
        "subag_share": lambda: bagged(s, y, replace=False, aggregate="share", seed=seed),
        "bag_median50": lambda: bagged(s, y, n_bag=50, aggregate="median", seed=seed),
        "bag_median_share": lambda: bagged(s, y, aggregate="median_share", seed=seed),
        "bag_phi": lambda: bagged(s, y, aggregate="phi", seed=seed),
        "rank_kernel": lambda: rank_kernel(s, y),
        "phi_cv": lambda: phi_cv(s, y, seed),
        "expected_f": lambda: expected_f_choice(s, y, seed),
        "bag_share+midpoint": lambda: midpoint(s, bagged(s, y, aggregate="share", seed=seed)),
        "a_sqrt_m": lambda: per_class_prior(s, y, lambda m: np.sqrt(m)),
        "a_m_frac": lambda: per_class_prior(s, y, lambda m: np.maximum(3.0, m / 10.0)),
        "per_class": lambda: np.asarray(per_class(s, y).thresholds),
        "fixed_point": lambda: np.asarray(fixed_point(s, y).thresholds),
    }


def xcolumns_preds(s: np.ndarray, y: np.ndarray, st: np.ndarray) -> dict[str, np.ndarray]:
    """xcolumns FW (fitted on the tuning scores) and BCA* (test probabilities), as bench_tune."""
    return {key: pred for key, (pred, _) in xcolumns_predictions(s, y, st).items()}


def smoothed_fmacro_metric(a: float, n: int) -> Callable[..., Any]:
    """tune's smoothed F-macro (a, centre m/N, n_eval = N) on xcolumns' normalized counts."""
    import autograd.numpy as anp

    an = a / n

    def metric(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
        m = tp + fn  # the class's rate
        j = tp + fp  # the predicted share
        p = (tp + an * m) / (j + an) * (1.0 - (1.0 - j) ** n)
        r = (tp + an * j) / (m + an)
        pm, rm = anp.mean(p), anp.mean(r)
        return 2.0 * pm * rm / (pm + rm)

    return metric


def fw_smoothed(s: np.ndarray, y: np.ndarray, st: np.ndarray) -> np.ndarray:
    """xcolumns Frank-Wolfe (k=0, seed 0, as xc FW) on tune's smoothed F-macro, not macro-F1."""
    from xcolumns.frank_wolfe import find_classifier_using_fw

    kept = y.sum(0) > 0
    clf = find_classifier_using_fw(
        y[:, kept].astype(np.float64),
        s[:, kept],
        smoothed_fmacro_metric(3.0, y.shape[0]),
        k=0,
        skip_tn=True,
        seed=0,
    )
    pred = np.zeros(st.shape, dtype=bool)
    pred[:, kept] = np.asarray(clf.predict(st[:, kept], seed=0)).astype(bool)
    return pred


def plugin_macro_f1(s: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Calibrated plug-in for macro-F1 (Lipton et al. 2014): eta >= F*_k / 2.

    F*_k: the class's tuning F1 at per_class's cut.
    """
    res = per_class(s, y)
    pred = res.apply(s)
    tp = (pred & (y > 0)).sum(0)
    fp = (pred & (y == 0)).sum(0)
    m = y.sum(0)
    f1 = 2 * tp / np.maximum(tp + fp + m, 1)
    return np.where(m > 0, f1 / 2.0, np.inf)


def plugin_fmacro(s: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Calibrated plug-in for F-macro at tune's solution.

    With calibrated eta, adding an object of probability eta to class k's cut changes the
    linearized objective F_P p_k + F_R r_k by (F_P (eta - p_k) / j_k + F_R eta / m_k); it
    pays iff eta >= F_P p_k^2 / (F_P p_k + F_R r_k) (using j_k / m_k = r_k / p_k). The
    (p_k, r_k) and the gradient (F_P, F_R) of F_1 are tune's smoothed values at its
    solution. With one class this is Lipton's F/2.
    """
    from fmacro.optimize.search.points import class_points
    from fmacro.optimize.tuning.smoothing import smooth_points

    res = tune(s, y)
    raw = class_points(s, y)
    sm = smooth_points(raw, 3.0)
    idx = np.asarray(raw.indptr[:-1]) + np.asarray(res.cuts)
    p = np.asarray(sm.precision)[idx]
    r = np.asarray(sm.recall)[idx]
    pm, rm = p.mean(), r.mean()
    f_p = 2 * rm**2 / (pm + rm) ** 2
    f_r = 2 * pm**2 / (pm + rm) ** 2
    out = np.array(res.thresholds)
    out[np.asarray(raw.class_index)] = f_p * p**2 / (f_p * p + f_r * r)
    return out


# --------------------------------------------------------------------------- runs


def run(
    name: str, scorer: str, protocol: str, seed: int, y_test: np.ndarray, force: bool
) -> dict[str, Any]:
    path = OUT / f"run_{name}_{scorer}_{protocol}_{seed}.json"
    done: dict[str, Any] = {} if force or not path.is_file() else json.loads(path.read_text())
    with np.load(SCORES / f"scores_{name}_{scorer}_{protocol}_{seed}.npz") as z:
        s, y, st = z["s_tune"], z["y_tune"], z["s_test"]
    todo = {k: f for k, f in variants(s, y, seed).items() if k not in done}
    for key, fn in todo.items():
        t0 = time.perf_counter()
        thr = fn()
        dt = time.perf_counter() - t0
        done[key] = {"test_f": test_scores(st >= thr, y_test)[0], "seconds": dt}
    if scorer == "logreg" and "xc_fw" not in done:
        for key, pred in xcolumns_preds(s, y, st).items():
            done[key] = {"test_f": test_scores(pred, y_test)[0]}
    if scorer == "logreg":
        for key, fn in (("plugin_mf1", plugin_macro_f1), ("plugin_fmacro", plugin_fmacro)):
            if key not in done:
                done[key] = {"test_f": test_scores(st >= fn(s, y), y_test)[0]}
    if scorer == "logreg" and "fw_smoothed" not in done:
        with np.errstate(all="ignore"):
            done["fw_smoothed"] = {"test_f": test_scores(fw_smoothed(s, y, st), y_test)[0]}
    done["n_tune"] = int(y.shape[0])
    path.write_text(json.dumps(done))
    return done


LABELS = {
    "tune": "tune (default)",
    "per_class": "per_class",
    "fixed_point": "fixed_point (in-sample optimum)",
    "midpoint": "tune, midpoint thresholds",
    "bag_median": f"bagged tune ({N_BAG}), median threshold",
    "bag_share": f"bagged tune ({N_BAG}), mean share",
    "subag_share": f"subagged tune ({N_BAG} half-samples), mean share",
    "bag_median50": "bagged tune (50), median threshold",
    "bag_median_share": f"bagged tune ({N_BAG}), median share",
    "bag_phi": f"bagged tune ({N_BAG}), median angle phi",
    "rank_kernel": "tune on rank-kernel-smoothed counts",
    "phi_cv": "tune's angle phi chosen by 2 x 2-fold CV",
    "expected_f": "posterior-predictive expected F-macro over tune's angle family",
    "bag_share+midpoint": "bagged mean share + midpoint",
    "a_sqrt_m": "tune, a_k = sqrt(m_k)",
    "a_m_frac": "tune, a_k = max(3, m_k / 10)",
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--datasets", default=",".join(DATASETS))
    args = ap.parse_args()
    OUT.mkdir(exist_ok=True)
    cells: dict[tuple[str, str, str, int], dict[str, Any]] = {}
    for name in args.datasets.split(","):
        y_test = load(name)[3]
        for scorer in SCORERS:
            for protocol in PROTOCOLS:
                for seed in SEEDS:
                    t0 = time.perf_counter()
                    cells[(name, scorer, protocol, seed)] = run(
                        name, scorer, protocol, seed, y_test, args.force
                    )
                    log(f"{name}/{scorer}/{protocol}/{seed}: {time.perf_counter() - t0:.1f} s")
    RESULTS.write_text(report(cells, LABELS) + "\n", encoding="utf-8")
    log(f"wrote {RESULTS}")


# --------------------------------------------------------------------------- report

LOGISTIC_ONLY = {
    "fw_smoothed": "xcolumns FW on tune's smoothed F-macro (a=3)",
    "plugin_mf1": "calibrated plug-in for macro-F1: eta >= F*_k / 2",
    "plugin_fmacro": "calibrated plug-in for F-macro at tune's solution",
    "xc_fw": "xc FW (macro-F1; the peer)",
    "xc_bca": "xc BCA* (transductive; the peer)",
}
Key = tuple[str, str, str]


def cell_mean(cells: dict[Any, Any], key: Key, m: str, f: str = "test_f") -> float:
    vals = [cells[(*key, s)][m][f] for s in SEEDS if m in cells.get((*key, s), {})]
    return float(np.mean(vals)) if vals else math.nan


def summary_rows(
    cells: dict[Any, Any], keys: list[Key], datasets: list[str], methods: dict[str, str]
) -> tuple[list[str], dict[str, dict[str, tuple[float, float, float, float]]]]:
    """One summary row per method (over ``keys``) and its per-dataset figures."""

    def rel(k: Key, m: str) -> float:
        return cell_mean(cells, k, m) / cell_mean(cells, k, "per_class") - 1.0

    rows, per_method = [], {}
    for m, label in methods.items():
        ks = [k for k in keys if not math.isnan(cell_mean(cells, k, m))]
        g = [rel(k, m) for k in ks]
        gr = [rel(k, m) for k in ks if k[1] == "ridge"]
        gl = [rel(k, m) for k in ks if k[1] == "logreg"]
        d = [cell_mean(cells, k, m) - cell_mean(cells, k, "per_class") for k in ks]
        w = sum(x > 0.0005 for x in d)
        t = sum(abs(x) <= 0.0005 for x in d)
        lo = sum(x < -0.0005 for x in d)
        per_ds = {}
        for ds in datasets:
            kd = [k for k in ks if k[0] == ds]
            kl = [k for k in kd if k[1] == "logreg"]
            per_ds[ds] = (
                float(np.mean([rel(k, m) for k in kd])),
                float(
                    np.mean(
                        [cell_mean(cells, k, m) - cell_mean(cells, k, "fixed_point") for k in kd]
                    )
                ),
                float(np.mean([cell_mean(cells, k, m) - cell_mean(cells, k, "xc_fw") for k in kl])),
                float(
                    np.mean([cell_mean(cells, k, m) - cell_mean(cells, k, "xc_bca") for k in kl])
                ),
            )
        per_method[m] = per_ds
        worst = [min(per_ds.items(), key=lambda kv: kv[1][i]) for i in range(4)]
        secs = [
            cells[k][m]["seconds"] / cells[k]["tune"]["seconds"]
            for k in cells
            if "seconds" in cells[k].get(m, {})
        ]
        fmt = lambda xs: f"{100 * np.mean(xs):+.1f}%" if xs else "-"  # noqa: E731
        rows.append(
            f"| {label} | {fmt(g)} | {fmt(gr)} | {fmt(gl)} | {w} / {t} / {lo} | "
            f"{worst[0][0]} {100 * worst[0][1][0]:+.1f}% | {worst[1][0]} {worst[1][1][1]:+.4f} | "
            f"{worst[2][0]} {worst[2][1][2]:+.4f} | {worst[3][0]} {worst[3][1][3]:+.4f} | "
            f"{cell_mean(cells, ('emotions', 'logreg', 'val'), m):.3f} | "
            + (f"{np.median(secs):.1f}x |" if secs else "- |")
        )
    return rows, per_method


SUMMARY_HEAD = [
    "| variant | mean rel. gain vs per_class | ridge | logistic | wins / ties / losses vs "
    "per_class | worst dataset vs per_class | worst dataset vs fixed_point | worst "
    "dataset vs xc FW | worst dataset vs xc BCA* | emotions / logistic / val | cost vs "
    "tune (median) |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
]


def goals(
    cells: dict[Any, Any],
    keys: list[Key],
    per_ds: dict[str, tuple[float, float, float, float]],
    m: str,
) -> tuple[bool, bool, bool, bool]:
    """The bar for tune's default: mean gain >= tune's, the per-dataset goals, xcolumns beaten."""
    g = np.mean([cell_mean(cells, k, m) / cell_mean(cells, k, "per_class") - 1 for k in keys])
    g_tune = np.mean(
        [cell_mean(cells, k, "tune") / cell_mean(cells, k, "per_class") - 1 for k in keys]
    )
    return (
        bool(g >= g_tune - 1e-12),
        all(v[0] >= -0.03 for v in per_ds.values()),
        all(v[1] >= -0.005 for v in per_ds.values()),
        all(v[2] > 0 and v[3] > 0 for v in per_ds.values()),
    )


def emotions_diagnostics() -> list[str]:
    """Why the emotions gap: pseudo-count grid, FW's own seed, paired bootstrap of the gap."""
    from bench_tune import class_counts, scores_from_counts
    from xcolumns.frank_wolfe import find_classifier_using_fw
    from xcolumns.metrics import macro_f1_score_on_conf_matrix

    y_test = load("emotions")[3]
    runs = {}
    for protocol in PROTOCOLS:
        for seed in SEEDS:
            with np.load(SCORES / f"scores_emotions_logreg_{protocol}_{seed}.npz") as z:
                runs[(protocol, seed)] = (z["s_tune"], z["y_tune"], z["s_test"])
    lines = [
        "## emotions, logistic: where the gap comes from",
        "",
        "### Every pseudo-count falls short of FW on the val cell",
        "",
        "Held-out F-macro (mean over 3 seeds) of `tune(prior=a)` with its default search "
        "(F-macro target) and with `method='per_class'` (smoothed macro-F target).",
        "",
        "| protocol / search | " + " | ".join(f"a={a:g}" for a in (0, 1, 3, 10, 30, 100)) + " |",
        "| --- |" + " ---: |" * 6,
    ]
    for protocol in PROTOCOLS:
        for method in ("fixed_point", "per_class"):
            vals = []
            for a in (0.0, 1.0, 3.0, 10.0, 30.0, 100.0):
                f = [
                    test_scores(tune(s, y, prior=a, method=method).apply(st), y_test)[0]
                    for (p, _), (s, y, st) in runs.items()
                    if p == protocol
                ]
                vals.append(f"{np.mean(f):.3f}")
            lines.append(f"| {protocol} / {method} | " + " | ".join(vals) + " |")
    # FW's own randomness (initial classifier and sampling), 5 seeds
    lines.extend(
        [
            "",
            "### xcolumns FW is not a lucky draw of its own seed",
            "",
            "| protocol | FW seed 0 | 1 | 2 | 3 | 4 |",
            "| --- | ---: | ---: | ---: | ---: | ---: |",
        ]
    )
    fw_preds: dict[tuple[str, int], np.ndarray] = {}
    for protocol in PROTOCOLS:
        row = []
        for fw_seed in range(5):
            f = []
            for seed in SEEDS:
                s, y, st = runs[(protocol, seed)]
                clf = find_classifier_using_fw(
                    y.astype(np.float64),
                    s,
                    macro_f1_score_on_conf_matrix,
                    k=0,
                    skip_tn=True,
                    seed=fw_seed,
                )
                pred = np.asarray(clf.predict(st, seed=fw_seed)).astype(bool)
                if fw_seed == 0:
                    fw_preds[(protocol, seed)] = pred
                f.append(test_scores(pred, y_test)[0])
            row.append(f"{np.mean(f):.3f}")
        lines.append(f"| {protocol} | " + " | ".join(row) + " |")
    # paired bootstrap over the test rows, the same resample for all six runs
    rng = np.random.default_rng(0)
    n, n_boot = y_test.shape[0], 2000
    idx = rng.integers(0, n, size=(n_boot, n))
    w = np.zeros((n_boot, n))
    np.add.at(w, (np.repeat(np.arange(n_boot), n), idx.ravel()), 1.0)
    diffs = {}
    for key, (s, y, st) in runs.items():
        ft = scores_from_counts(*class_counts(tune(s, y).apply(st), y_test, w))[0]
        ff = scores_from_counts(*class_counts(fw_preds[key], y_test, w))[0]
        diffs[key] = ft - ff
    lines.extend(
        [
            "",
            "### The gap under a paired bootstrap of the test rows",
            "",
            f"{n_boot} resamples of the {n} test rows (the same resample for every run); "
            "tune - xc FW test F-macro, averaged over the runs of the row; mean and 95% "
            "percentile interval. Only the test sample varies here, not the tuning split.",
            "",
            "| runs | tune - xc FW | 95% interval | share of resamples with tune ahead |",
            "| --- | ---: | ---: | ---: |",
        ]
    )
    for label, sel in (
        ("emotions / logistic / val (3 seeds)", [k for k in diffs if k[0] == "val"]),
        ("emotions / logistic / oof (3 seeds)", [k for k in diffs if k[0] == "oof"]),
        ("emotions logistic, the goal's dataset mean (6 runs)", list(diffs)),
    ):
        d = np.mean([diffs[k] for k in sel], axis=0)
        lo, hi = np.quantile(d, [0.025, 0.975])
        lines.append(
            f"| {label} | {d.mean():+.4f} | [{lo:+.4f}, {hi:+.4f}] | {(d > 0).mean():.2f} |"
        )
    lines.append("")
    return lines


def conclusion(
    cells: dict[Any, Any],
    keys: list[Key],
    methods: dict[str, str],
    per_method: dict[str, dict[str, tuple[float, float, float, float]]],
    per_logistic: dict[str, dict[str, tuple[float, float, float, float]]],
) -> list[str]:
    """The findings, with this run's numbers."""
    if "emotions" not in per_method["tune"]:
        return []
    variants_ = [m for m in methods if m not in ("tune", "per_class", "fixed_point")]
    passing = [m for m in variants_ if all(goals(cells, keys, per_method[m], m))]
    top = max(per_method[m]["emotions"][2] for m in variants_)
    closest = [m for m in variants_ if per_method[m]["emotions"][2] >= top - 0.0005]

    def gain(m: str, ks: list[Key]) -> float:
        return 100 * float(
            np.mean([cell_mean(cells, k, m) / cell_mean(cells, k, "per_class") - 1 for k in ks])
        )

    kl = [k for k in keys if k[1] == "logreg"]
    cell = ("emotions", "logreg", "val")
    return [
        "## Conclusion",
        "",
        "* Variants meeting the bar (mean gain >= tune's, the per-dataset goals, ahead of "
        f"both xcolumns methods on every dataset): {', '.join(passing) if passing else 'none'}.",
        "* The closest on emotions (within 0.0005 of the best): "
        + "; ".join(
            f"{methods[m]}: emotions - xc FW {per_method[m]['emotions'][2]:+.4f}, mean gain "
            f"{gain(m, keys):+.1f}%"
            for m in closest
        )
        + f" (tune: {per_method['tune']['emotions'][2]:+.4f}, {gain('tune', keys):+.1f}%). "
        "Bagging is no "
        "systematic fix: the same median rule with 50 resamples instead of 25 gives "
        f"{per_method['bag_median50']['emotions'][2]:+.4f}, i.e. the small moves are the "
        "bagging's own noise; it costs about 25x tune and loses mean gain.",
        "* The data-dependent pseudo-count a_k = sqrt(m_k) keeps the mean gain "
        f"({gain('a_sqrt_m', keys):+.1f}%) and has no loss against per_class, but leaves "
        f"emotions at {per_method['a_sqrt_m']['emotions'][2]:+.4f}; no fixed pseudo-count "
        "reaches FW's value on the val cell (the grid in the next section). Choosing "
        "tune's angle phi by cross-validation inside the tuning rows "
        f"({gain('phi_cv', keys):+.1f}%, emotions {per_method['phi_cv']['emotions'][2]:+.4f}) "
        "does worse: the held-out halves are too small to rank the trades. Scoring tune's "
        "angle family by posterior-predictive expected F-macro instead of the plug-in "
        f"({gain('expected_f', keys):+.1f}%, emotions "
        f"{per_method['expected_f']['emotions'][2]:+.4f}) lands next to the plug-in "
        f"({gain('tune', keys):+.1f}%, {per_method['tune']['emotions'][2]:+.4f}) at about "
        "100x its cost: Jensen's penalty does not decide which trade holds up.",
        "* What FW does differently on emotions is its target with calibrated plug-in "
        "thresholds, not a better estimate of the F-macro optimum: the deterministic "
        f"macro-F1 plug-in eta >= F*_k / 2 reaches {cell_mean(cells, cell, 'plugin_mf1'):.3f} on "
        f"emotions / logistic / val (FW {cell_mean(cells, cell, 'xc_fw'):.3f}) but "
        f"{gain('plugin_mf1', kl):+.1f}% vs per_class over the 14 logistic cells; FW run on "
        f"tune's own smoothed F-macro gets {cell_mean(cells, cell, 'fw_smoothed'):.3f} there. "
        "The calibrated F-macro plug-in at tune's solution is at "
        f"{per_logistic['plugin_fmacro']['emotions'][2]:+.4f} against FW on emotions but loses to "
        f"tune on the logistic cells ({gain('plugin_fmacro', kl):+.1f}% vs tune's "
        f"{gain('tune', kl):+.1f}%; yeast, medical, bibtex) and needs calibrated scores, so it "
        "cannot be tune's default either.",
        "* The emotions shortfall is real on the val cell for these three splits (the test "
        "bootstrap below excludes 0), but the goal's dataset mean (-0.0070) is within the "
        "test sample's noise (its 95% interval includes 0). With 97 tuning rows and 6 "
        "classes of similar base rates, F-macro's optimum trades classes against each other "
        "(some classes at high-precision cuts, one at predict-almost-all) and which trade "
        "holds up on test is not identifiable from the tuning rows; no variant of the "
        "estimator tried here recovers it.",
        "",
    ]


def report(cells: dict[Any, Any], methods: dict[str, str], diagnostics: bool = True) -> str:
    keys: list[Key] = sorted(
        {k[:3] for k in cells},
        key=lambda k: (DATASETS.index(k[0]), SCORERS.index(k[1]), PROTOCOLS.index(k[2])),
    )
    datasets = [d for d in DATASETS if any(k[0] == d for k in keys)]
    lines = [
        "# optimize.tune on small tuning sets: variants measured",
        "",
        "Written by `benchmarks/explore_small_tuning.py` from the fitted scores cached by "
        "`benchmarks/bench_tune.py` (the same 84 runs: 7 datasets x ridge/logistic x val/oof "
        "x seeds 0-2, and the same test F-macro as results_tune.md, whose tune, per_class, "
        "fixed_point and xcolumns values this reproduces). Every variant tunes on the tuning "
        "rows only; BCA* is transductive (test probabilities). Cells are seed means.",
        "",
        "Why: issue 11's goal 'tune ahead of xcolumns (BCA* and FW) on every dataset' fails "
        "on emotions only, from the cell emotions / logistic / val (97 tuning rows, 6 labels, "
        "base rates 0.13-0.43).",
        "",
        "## Variants of tune (all 28 cells)",
        "",
        "* midpoint: tune's cuts, each finite threshold moved to the middle of the gap "
        "below it in the tuning scores (same tuning predictions).",
        f"* bagged: tune (defaults, n_eval = N) on {N_BAG} bootstrap resamples (50 in one "
        "row) of the tuning rows, aggregated per class over the resamples with a positive of "
        "it: the median threshold; the mean or median predicted share of the full tuning "
        "rows mapped back to a threshold there; or the median angle phi of the "
        "linearization, each class then at its argmax on the full data's smoothed points. "
        "Subagged: half-samples without replacement.",
        "* phi by CV: the linearization angle (the P/R trade shared by all classes) chosen "
        "from 45 values by 2 x 2-fold held-out F-macro inside the tuning rows, each class "
        "then at its argmax on the full data's smoothed points.",
        "* rank-kernel: the counts smoothed along the ranking, tp(j) = sum over the "
        "positives of Phi((j + 1/2 - rank_i) / h_j), h_j = sqrt(j (N - j) / N) (the binomial "
        "spread of how many of N new objects fall above a fixed quantile), then tune's "
        "Beta smoothing and exact optimum.",
        "* posterior-predictive expected F-macro: among the cut vectors of tune's "
        "linearization family (180 angles), the one with the highest Monte Carlo mean "
        "F-macro on 1000 simulated new batches of N objects (true precision and recall "
        "from tune's Beta posteriors, binomial cut sizes and counts): Jensen's penalty "
        "on the spread of small cuts that the plug-in F(mean p~, mean r~) ignores.",
        "* per-class pseudo-counts: a_k = sqrt(m_k), or max(3, m_k / 10), in tune's "
        "formulas, then the exact optimum.",
        "",
        *SUMMARY_HEAD,
    ]
    rows, per_method = summary_rows(cells, keys, datasets, methods)
    lines.extend(rows)
    lines.extend(
        [
            "",
            "Relative gain: mean over the cells of F(variant) / F(per_class) - 1; ties within "
            "0.0005. Per dataset: the mean over its cells (against xcolumns: its 2 logistic "
            "cells); the worst dataset is shown. emotions / logistic / val for reference: xc "
            f"FW {cell_mean(cells, ('emotions', 'logreg', 'val'), 'xc_fw'):.3f}, xc BCA* "
            f"{cell_mean(cells, ('emotions', 'logreg', 'val'), 'xc_bca'):.3f}. Cost: median "
            "over the runs of the variant's time / tune's time in the same run (one process, "
            "not interleaved: rough).",
            "",
            "## The bar for replacing tune's default",
            "",
            "| variant | mean gain >= tune's | no dataset < -3% vs per_class | no dataset < "
            "-0.005 vs fixed_point | ahead of xc FW and BCA* on every dataset | emotions - "
            "xc FW |",
            "| --- | --- | --- | --- | --- | ---: |",
        ]
    )
    for m, label in methods.items():
        if m in ("per_class", "fixed_point"):
            continue
        ok = goals(cells, keys, per_method[m], m)
        lines.append(
            f"| {label} | "
            + " | ".join("yes" if x else "NO" for x in ok)
            + f" | {per_method[m]['emotions'][2]:+.4f} |"
        )
    lines.extend(
        [
            "",
            "## Per dataset: variant - xc FW (mean of the 2 logistic cells)",
            "",
            "| variant | " + " | ".join(datasets) + " |",
            "| --- |" + " ---: |" * len(datasets),
        ]
    )
    for m, label in methods.items():
        lines.append(
            f"| {label} | " + " | ".join(f"{per_method[m][d][2]:+.4f}" for d in datasets) + " |"
        )
    # logistic-only methods: what FW does differently
    kl = [k for k in keys if k[1] == "logreg"]
    lines.extend(
        [
            "",
            "## Logistic cells only: is it FW's classifier family or its target?",
            "",
            "xcolumns FW thresholds the calibrated probabilities eta (a mixture of rules "
            "a eta + b > 0 set from the metric's gradient) and targets macro-F1. Three "
            "probability-based rules separate the two: FW on tune's smoothed F-macro (same "
            "family, tune's target); the deterministic plug-in for macro-F1 (eta >= F*_k / 2, "
            "F*_k the class's tuning F1 at per_class's cut: Lipton et al. 2014); and the "
            "plug-in for F-macro at tune's solution (eta >= F_P p_k^2 / (F_P p_k + F_R r_k), "
            "tune's smoothed p_k, r_k and the gradient of F_1 at their means: the rule under "
            "which adding an object of probability eta to class k raises the linearized "
            "objective; with one class it is F/2). 14 cells.",
            "",
            *SUMMARY_HEAD,
        ]
    )
    rows, per_logistic = summary_rows(
        cells, kl, datasets, {"tune": methods["tune"], **LOGISTIC_ONLY}
    )
    lines.extend(rows)
    lines.extend(
        [
            "",
            "| rule | " + " | ".join(datasets) + " |",
            "| --- |" + " ---: |" * len(datasets),
        ]
    )
    for m, label in {"tune": methods["tune"], **LOGISTIC_ONLY}.items():
        lines.append(
            f"| {label}: - xc FW | "
            + " | ".join(f"{per_logistic[m][d][2]:+.4f}" for d in datasets)
            + " |"
        )
    lines.append("")
    lines.extend(conclusion(cells, keys, methods, per_method, per_logistic))
    if diagnostics and "emotions" in datasets:
        lines.extend(emotions_diagnostics())
    lines.extend(["## Held-out F-macro per cell (mean over 3 seeds)", ""])
    cols = {**methods, **LOGISTIC_ONLY}
    lines.append("| cell | " + " | ".join(cols.values()) + " |")
    lines.append("| --- |" + " ---: |" * len(cols))
    for k in keys:
        vals = [cell_mean(cells, k, m) for m in cols]
        lines.append(
            f"| {' / '.join(k)} | "
            + " | ".join("" if math.isnan(v) else f"{v:.3f}" for v in vals)
            + " |"
        )
    lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
