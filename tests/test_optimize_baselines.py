"""Tests for fmacro.optimize.baselines (per_class, global, top_k, proportional, cyclic), f_macro.

Oracles are independent of the implementation: exact ``Fraction`` arithmetic straight
from the definitions (predict positive iff score >= threshold), brute force over
every candidate threshold / k / scale, validation.MultiLabelFValidation, and the
dissertation's two 2-class instances.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fmacro.optimize.baselines import (
    cuts_for_thresholds,
    cyclic,
    global_threshold,
    per_class,
    proportional,
)
from fmacro.optimize.baselines.top_k import predict_top_k, top_k
from fmacro.optimize.evaluation import evaluate_thresholds, f_macro
from fmacro.optimize.search.brute_force import brute_force
from fmacro.optimize.search.points import ClassPoints, class_points
from fmacro.optimize.search.result import evaluate_cuts
from fmacro.validation.multilabel import MultiLabelFValidation

BETAS = [0.5, 1.0, 2.0]


# --------------------------------------------------------------------------- oracles


def _frac(x: float) -> Fraction:
    return Fraction(x)


def _f(p: Fraction, r: Fraction, beta: float) -> Fraction:
    b2 = _frac(beta) ** 2
    den = b2 * p + r
    return Fraction(0) if den == 0 else (1 + b2) * p * r / den


def _oracle_pr(
    pred: np.ndarray, y: np.ndarray, zd: float
) -> tuple[Fraction | None, Fraction] | None:
    """Exact (P, R) over classes with positives; None if some precision is 0/0 under nan."""
    kept = np.flatnonzero(y.sum(axis=0) > 0)
    ps, rs = [], []
    for k in kept:
        tp = int((pred[:, k] & (y[:, k] == 1)).sum())
        npred = int(pred[:, k].sum())
        m = int(y[:, k].sum())
        if npred == 0:
            if math.isnan(zd):
                return None
            ps.append(_frac(zd))
        else:
            ps.append(Fraction(tp, npred))
        rs.append(Fraction(tp, m))
    n = len(kept)
    return sum(ps, Fraction(0)) / n, sum(rs, Fraction(0)) / n


def _oracle_f(pred: np.ndarray, y: np.ndarray, beta: float, zd: float) -> Fraction | None:
    pr = _oracle_pr(pred, y, zd)
    if pr is None:
        return None
    p, r = pr
    assert p is not None
    return _f(p, r, beta)


def _class_f(pred: np.ndarray, y: np.ndarray, k: int, beta: float, zd: float) -> Fraction:
    b2 = _frac(beta) ** 2
    tp = int((pred[:, k] & (y[:, k] == 1)).sum())
    fp = int((pred[:, k] & (y[:, k] == 0)).sum())
    fn = int(y[:, k].sum()) - tp
    den = (1 + b2) * tp + b2 * fn + fp
    return _frac(zd) if den == 0 else (1 + b2) * tp / den


def _thresholds_of_column(s: np.ndarray) -> list[float]:
    return [math.inf, *sorted(set(s.tolist()), reverse=True)]


# --------------------------------------------------------------------------- strategies


@st.composite
def tiny_problem(draw: Any) -> tuple[np.ndarray, np.ndarray]:
    n_obj = draw(st.integers(4, 7))
    n_cls = draw(st.integers(2, 4))
    scores = draw(hnp.arrays(np.int64, (n_obj, n_cls), elements=st.integers(0, 3)))
    labels = draw(hnp.arrays(np.int64, (n_obj, n_cls), elements=st.integers(0, 1)))
    labels[draw(st.integers(0, n_obj - 1)), 0] = 1  # at least one class with positives
    return scores.astype(float) / 3.0, labels


ZD = st.sampled_from([0.0, 1.0, math.nan])


# ------------------------------------------------------------- the dissertation's instances


def _points_from_ranks(lists: list[list[int]]) -> ClassPoints:
    sizes = [sum(x) for x in lists]
    return ClassPoints.from_ranked_lists(lists, sizes, len(lists[0]))


def test_cyclic_stops_at_three_quarters_while_optimum_is_15_19() -> None:
    # labels by rank (1,0,0,1) and (1,0,1,0), 4 objects
    pts = _points_from_ranks([[1, 0, 0, 1], [1, 0, 1, 0]])
    stuck = cyclic(points=pts, start=[1, 1])
    assert stuck.f == pytest.approx(3 / 4, abs=1e-15)
    assert stuck.cuts.tolist() == [4, 1]
    assert stuck.diagnostics["start_f"] == pytest.approx(2 / 3)
    assert brute_force(points=pts).f == pytest.approx(15 / 19, abs=1e-15)
    # from the T_b start the ascent reaches the optimum here
    assert cyclic(points=pts).f == pytest.approx(15 / 19, abs=1e-15)
    assert per_class(points=pts).f == pytest.approx(15 / 19, abs=1e-15)


def test_per_class_gives_two_thirds_while_optimum_is_12_17() -> None:
    # labels by rank (0,0,1) and (1,0,1), 3 objects
    pts = _points_from_ranks([[0, 0, 1], [1, 0, 1]])
    tb = per_class(points=pts)
    assert tb.cuts.tolist() == [3, 3]
    assert tb.f == pytest.approx(2 / 3, abs=1e-15)
    # macro-F of T_b: F1 = 2*1/(2+2) = 1/2, F2 = 4/5 -> 0.65, the macro-F optimum
    assert tb.diagnostics["macro_f"] == pytest.approx(0.65, abs=1e-15)
    np.testing.assert_allclose(tb.diagnostics["class_f"], [0.5, 0.8])
    assert brute_force(points=pts).f == pytest.approx(12 / 17, abs=1e-15)
    assert math.isnan(tb.upper_bound) and math.isnan(tb.gap) and tb.method == "per_class"


# --------------------------------------------------------------------------- per_class


@settings(max_examples=40, deadline=None)
@given(problem=tiny_problem(), beta=st.sampled_from(BETAS), zd=ZD)
def test_per_class_maximizes_macro_f(
    problem: tuple[np.ndarray, np.ndarray], beta: float, zd: float
) -> None:
    scores, labels = problem
    res = per_class(scores, labels, beta=beta, zero_division=zd)
    kept = np.flatnonzero(labels.sum(axis=0) > 0)
    best_total = Fraction(0)
    for k in kept:
        best_k = Fraction(-1)
        for t in _thresholds_of_column(scores[:, k]):
            pred = np.zeros_like(labels, dtype=bool)
            pred[:, k] = scores[:, k] >= t
            best_k = max(best_k, _class_f(pred, labels, int(k), beta, 0.0))
        best_total += best_k
    assert res.diagnostics["macro_f"] == pytest.approx(float(best_total / len(kept)), abs=1e-12)
    # its F-macro is what its thresholds give, exactly
    pred = scores >= res.thresholds[None, :]
    oracle = _oracle_f(pred, labels, beta, zd)
    assert oracle is not None
    assert res.f == pytest.approx(float(oracle), abs=1e-12)
    # and never above the F-macro optimum
    assert res.f <= brute_force(scores, labels, beta=beta, zero_division=zd).f + 1e-12


@settings(max_examples=40, deadline=None)
@given(
    problem=tiny_problem(),
    beta=st.sampled_from(BETAS),
    zd=ZD,
    include=st.booleans(),
)
def test_per_class_dense_fast_path_equals_points_path(
    problem: tuple[np.ndarray, np.ndarray], beta: float, zd: float, include: bool
) -> None:
    scores, labels = problem
    if include and math.isnan(zd):
        zd = 1.0
    ec = "include" if include else "exclude"
    fast = per_class(scores, labels, beta=beta, zero_division=zd, empty_classes=ec)
    pts = class_points(scores, labels, zero_division=zd, empty_classes=ec)
    slow = per_class(points=pts, beta=beta, zero_division=zd)
    sparse = per_class(
        sp.csr_matrix(scores + 1.0), labels, beta=beta, zero_division=zd, empty_classes=ec
    )
    assert fast.cuts.tolist() == slow.cuts.tolist() == sparse.cuts.tolist()
    np.testing.assert_array_equal(fast.thresholds, slow.thresholds)
    np.testing.assert_allclose(np.asarray(sparse.thresholds) - 1.0, slow.thresholds)
    assert (fast.precision, fast.recall) == (slow.precision, slow.recall)
    assert fast.f == slow.f or (math.isnan(fast.f) and math.isnan(slow.f))
    assert fast.diagnostics["macro_f"] == pytest.approx(slow.diagnostics["macro_f"], abs=0)


# --------------------------------------------------------------------------- global_threshold


@settings(max_examples=40, deadline=None)
@given(problem=tiny_problem(), beta=st.sampled_from(BETAS), zd=ZD)
def test_global_threshold_is_best_shared_threshold(
    problem: tuple[np.ndarray, np.ndarray], beta: float, zd: float
) -> None:
    scores, labels = problem
    res = global_threshold(scores, labels, beta=beta, zero_division=zd)
    best = Fraction(-1)
    for t in [math.inf, *sorted(set(scores.ravel().tolist()), reverse=True)]:
        f = _oracle_f(scores >= t, labels, beta, zd)
        if f is not None:
            best = max(best, f)
    assert res.f == pytest.approx(float(best), abs=1e-12)
    t = res.diagnostics["threshold"]
    kept = labels.sum(axis=0) > 0
    assert np.all(res.thresholds[kept] == t) and np.all(np.isinf(res.thresholds[~kept]))
    oracle = _oracle_f(scores >= t, labels, beta, zd)
    assert oracle is not None and res.f == pytest.approx(float(oracle), abs=1e-12)


def test_global_threshold_hand_example() -> None:
    # two classes, scores shared scale; t = 0.5 predicts rows 0,1 in class 0 and row 0 in 1
    scores = np.array([[0.9, 0.6], [0.5, 0.4], [0.2, 0.1]])
    labels = np.array([[1, 1], [1, 0], [0, 1]])
    res = global_threshold(scores, labels)
    # candidates: t=.9: P=(1+0)/2... class 1 empty p=0: P=.5, R=(.5+0)/2=.25 -> 1/3
    # t=.6: P=1, R=(.5+.5)/2=.5 -> 2/3; t=.5: P=1, R=(1+.5)/2=.75 -> 6/7
    # t=.4: P=(1+.5)/2=.75, R=.75 -> .75; t=.2: P=(2/3+.5)/2, R=.75; t=.1: P=(2/3+2/3)/2, R=1
    # t=.1: P=2/3, R=1 -> 0.8. Best: t=.5, F = 6/7.
    assert res.diagnostics["threshold"] == 0.5
    assert res.f == pytest.approx(6 / 7)
    assert res.cuts.tolist() == [2, 1]


def test_global_threshold_sparse_truncated() -> None:
    rng = np.random.default_rng(5)
    dense = np.round(rng.random((30, 6)), 1) + 0.05
    labels = (rng.random((30, 6)) < 0.3).astype(int)
    labels[0] = 1
    mask = dense >= np.sort(dense, axis=1)[:, [-3]]  # keep each row's top 3
    s = sp.csr_matrix(np.where(mask, dense, 0.0))
    res = global_threshold(s, labels)
    # oracle: missing entries are below every stored score (never predicted unless -inf)
    best = -1.0
    for t in [math.inf, *sorted(set(s.data.tolist()), reverse=True), -math.inf]:
        pred = (np.where(mask, dense, -np.inf) >= t) if t > -math.inf else np.ones_like(mask)
        best = max(best, float(_oracle_f(pred, labels, 1.0, 0.0) or 0))
    assert res.f == pytest.approx(best, abs=1e-12)
    assert f_macro(s, labels, res) == pytest.approx(res.f, abs=1e-12)


# --------------------------------------------------------------------------- top_k


def _top_k_pred(scores: np.ndarray, k: int) -> np.ndarray:
    n, m = scores.shape
    pred = np.zeros((n, m), dtype=bool)
    for i in range(n):
        order = sorted(range(m), key=lambda c: (-scores[i, c], c))
        pred[i, order[:k]] = True
    return pred


@settings(max_examples=30, deadline=None)
@given(problem=tiny_problem(), beta=st.sampled_from(BETAS), zd=st.sampled_from([0.0, 1.0]))
def test_top_k_matches_brute_force_over_k(
    problem: tuple[np.ndarray, np.ndarray], beta: float, zd: float
) -> None:
    scores, labels = problem
    m = scores.shape[1]
    res = top_k(scores, labels, beta=beta, zero_division=zd, k_max=m)
    kept = labels.sum(axis=0) > 0
    fs = []
    for k in range(1, m + 1):
        pred = _top_k_pred(scores, k)
        oracle = _oracle_f(pred, labels, beta, zd)
        assert oracle is not None
        fs.append(float(oracle))
        v = MultiLabelFValidation.from_predictions(
            labels[:, kept], pred[:, kept].astype(int), beta=beta, zero_division=zd
        )
        assert v.f_macro == pytest.approx(float(oracle), abs=1e-12)
    np.testing.assert_allclose(res.diagnostics["f_by_k"], fs, atol=1e-12)
    assert res.diagnostics["k"] == int(np.argmax(fs)) + 1
    assert res.f == pytest.approx(max(fs), abs=1e-12)
    np.testing.assert_array_equal(
        predict_top_k(scores, res.diagnostics["k"]), _top_k_pred(scores, res.diagnostics["k"])
    )


def test_top_k_hand_example_and_sparse() -> None:
    scores = np.array([[0.9, 0.8, 0.1], [0.2, 0.7, 0.6], [0.5, 0.4, 0.3]])
    labels = np.array([[1, 0, 0], [0, 1, 1], [1, 0, 0]])
    res = top_k(scores, labels, k_max=3)
    # k=1: preds (0),(1),(0): class0 tp2 fp0, class1 tp1, class2 none -> P=(1+1+0)/3,
    # R=(1+1+0)/3 -> F = 2/3. k=2: class0 rows {0,2} tp2 fp0; class1 rows {0,1,2} tp1 fp2;
    # class2 row {1} tp1: P=(1+1/3+1)/3=7/9, R=1 -> F = 7/8.
    # k=3: all: P=(2/3+1/3+1/3)/3=4/9, R=1 -> 8/13.
    np.testing.assert_allclose(res.diagnostics["f_by_k"], [2 / 3, 7 / 8, 8 / 13])
    assert res.diagnostics["k"] == 2 and res.f == pytest.approx(7 / 8)
    assert np.isnan(res.thresholds).all() and (res.cuts == -1).all()
    sres = top_k(sp.csr_matrix(scores), sp.csr_matrix(labels), k_max=3)
    np.testing.assert_allclose(sres.diagnostics["f_by_k"], res.diagnostics["f_by_k"])
    with pytest.raises(ValueError, match="top_k"):
        f_macro(scores, labels, res)


# --------------------------------------------------------------------------- proportional


def _pcut_cuts_f(
    scores: np.ndarray, labels: np.ndarray, scale: float, beta: float, zd: float
) -> Fraction | None:
    """Each class predicts its deepest tie-group prefix with count <= scale * m_k."""
    n, m = scores.shape
    pred = np.zeros((n, m), dtype=bool)
    for k in range(m):
        mk = int(labels[:, k].sum())
        if mk == 0:
            continue
        best_t = math.inf
        for t in _thresholds_of_column(scores[:, k]):
            if int((scores[:, k] >= t).sum()) <= scale * mk + 1e-12:
                best_t = t
        pred[:, k] = scores[:, k] >= best_t
    return _oracle_f(pred, labels, beta, zd)


@settings(max_examples=30, deadline=None)
@given(problem=tiny_problem(), beta=st.sampled_from(BETAS), zd=ZD)
def test_proportional_matches_brute_force_over_scale(
    problem: tuple[np.ndarray, np.ndarray], beta: float, zd: float
) -> None:
    scores, labels = problem
    res = proportional(scores, labels, beta=beta, zero_division=zd)
    n = scores.shape[0]
    scales = {0.0}
    for k in range(scores.shape[1]):
        mk = int(labels[:, k].sum())
        if mk:
            scales.update(c / mk for c in range(1, n + 1))
    best = Fraction(-1)
    for a in sorted(scales):
        f = _pcut_cuts_f(scores, labels, a, beta, zd)
        if f is not None:
            best = max(best, f)
    assert res.f == pytest.approx(float(best), abs=1e-12)
    f_at_scale = _pcut_cuts_f(scores, labels, res.diagnostics["scale"], beta, zd)
    assert f_at_scale is not None and res.f == pytest.approx(float(f_at_scale), abs=1e-12)


def test_proportional_with_priors() -> None:
    scores = np.array([[0.9, 0.1], [0.8, 0.7], [0.3, 0.6], [0.2, 0.5]])
    labels = np.array([[1, 0], [1, 1], [0, 1], [0, 0]])
    # prior 0 for class 1: it predicts nothing (precision 0), class 0 tuned alone
    res = proportional(scores, labels, priors=[0.5, 0.0])
    assert res.cuts[1] == 0
    # class 0 best: top 2 (p=1, r=1); class 1 empty (p=0, r=0): P=R=1/2, F=1/2
    assert res.f == pytest.approx(0.5) and res.diagnostics["scale"] == pytest.approx(1.0)
    assert proportional(scores, labels).f == pytest.approx(1.0)  # both at their top 2


# --------------------------------------------------------------------------- cyclic


def _assert_coordinatewise_max(pts: ClassPoints, cuts: np.ndarray, beta: float) -> None:
    f0 = evaluate_cuts(pts, cuts, beta)[2]
    for j in range(pts.n_classes):
        for c in range(int(pts.n_cuts[j])):
            trial = cuts.copy()
            trial[j] = c
            f = evaluate_cuts(pts, trial, beta)[2]
            if not math.isnan(f):
                assert f <= f0 + 1e-12, (j, c, f, f0)


@settings(max_examples=40, deadline=None)
@given(problem=tiny_problem(), beta=st.sampled_from(BETAS), zd=ZD, data=st.data())
def test_cyclic_returns_coordinatewise_maximum(
    problem: tuple[np.ndarray, np.ndarray], beta: float, zd: float, data: Any
) -> None:
    scores, labels = problem
    pts = class_points(scores, labels, zero_division=zd)
    res = cyclic(points=pts, beta=beta, zero_division=zd)
    _assert_coordinatewise_max(pts, np.array(res.cuts), beta)
    tb = per_class(points=pts, beta=beta, zero_division=zd)
    assert res.f >= tb.f - 1e-12
    assert res.diagnostics["start_f"] == pytest.approx(tb.f)
    # from a random start (avoiding undefined empty cuts under nan)
    lo = 1 if math.isnan(zd) else 0
    start = np.array([data.draw(st.integers(lo, int(c) - 1)) for c in pts.n_cuts])
    res2 = cyclic(points=pts, beta=beta, zero_division=zd, start=start)
    _assert_coordinatewise_max(pts, np.array(res2.cuts), beta)
    assert res2.f >= evaluate_cuts(pts, start, beta)[2] - 1e-12
    assert res.f <= brute_force(points=pts, beta=beta, zero_division=zd).f + 1e-12


def test_cyclic_start_thresholds_and_result() -> None:
    pts = _points_from_ranks([[1, 0, 0, 1], [1, 0, 1, 0]])
    # ranked-list thresholds are -rank: threshold 0 keeps the top 1 of each list
    assert cuts_for_thresholds(pts, [0.0, 0.0]).tolist() == [1, 1]
    assert cuts_for_thresholds(pts, [math.inf, -math.inf]).tolist() == [0, 4]
    assert cuts_for_thresholds(pts, [-2.5, -0.5]).tolist() == [3, 1]
    r = cyclic(points=pts, start_thresholds=[0.0, 0.0])
    assert r.f == pytest.approx(0.75)
    r2 = cyclic(points=pts, start=r)
    assert r2.cuts.tolist() == r.cuts.tolist()


# --------------------------------------------------------------------------- f_macro


@settings(max_examples=30, deadline=None)
@given(problem=tiny_problem(), beta=st.sampled_from(BETAS), zd=st.sampled_from([0.0, 1.0]))
def test_f_macro_reproduces_tuning_f_and_validation(
    problem: tuple[np.ndarray, np.ndarray], beta: float, zd: float
) -> None:
    scores, labels = problem
    kept = labels.sum(axis=0) > 0
    for method in (per_class, global_threshold, proportional, cyclic):
        res = method(scores, labels, beta=beta, zero_division=zd)
        assert f_macro(scores, labels, res, beta=beta, zero_division=zd) == pytest.approx(
            res.f, abs=1e-12
        )
        assert f_macro(
            sp.csr_matrix(scores + 1.0),
            sp.csr_matrix(labels),
            np.array(res.thresholds) + 1.0,
            beta=beta,
            zero_division=zd,
        ) == pytest.approx(res.f, abs=1e-12)
        pred = np.asarray(res.apply(scores))
        v = MultiLabelFValidation.from_predictions(
            labels[:, kept], pred[:, kept].astype(int), beta=beta, zero_division=zd
        )
        assert v.f_macro == pytest.approx(res.f, abs=1e-12)


def test_evaluate_thresholds_held_out_and_nan_convention() -> None:
    scores = np.array([[0.9, 0.2, 0.5], [0.4, 0.8, 0.1], [0.1, 0.3, 0.2]])
    labels = np.array([[1, 0, 0], [1, 1, 0], [0, 0, 0]])
    ev = evaluate_thresholds(scores, labels, [0.4, 0.9, 0.0])
    # class 2 has no positives: excluded. class 0: tp 2 fp 0; class 1: none predicted
    assert ev.class_index.tolist() == [0, 1]
    assert ev.tp.tolist() == [2, 0, 0] and ev.fp.tolist() == [0, 0, 3]
    assert ev.precision == pytest.approx(0.5) and ev.recall == pytest.approx(0.5)
    assert ev.f == pytest.approx(0.5)
    assert ev.macro_f == pytest.approx(0.5)  # F0 = 1, F1 = 0
    ev_nan = evaluate_thresholds(scores, labels, [0.4, 0.9, 0.0], zero_division=math.nan)
    # class 1 predicts nothing: left out of P (validation's convention), kept in R
    assert ev_nan.precision == 1.0 and ev_nan.recall == pytest.approx(0.5)
    assert ev_nan.f == pytest.approx(2 / 3)
    ev_inc = evaluate_thresholds(scores, labels, [0.4, 0.9, 0.0], empty_classes="include")
    # class 2 included: p = 0 (3 false positives), r = 0/0 -> 0
    assert ev_inc.precision == pytest.approx(1 / 3) and ev_inc.recall == pytest.approx(1 / 3)
    for arr in (ev.tp, ev.fp, ev.class_precision, ev.class_f):
        assert not arr.flags.writeable


def test_held_out_split_sparse_equals_dense() -> None:
    rng = np.random.default_rng(11)
    scores = rng.random((200, 8))
    labels = (rng.random((200, 8)) < scores * 0.5).astype(np.uint8)
    tune, test = slice(0, 120), slice(120, 200)
    res = per_class(scores[tune], labels[tune])
    dense = f_macro(scores[test], labels[test], res.thresholds)
    sparse = f_macro(sp.csr_matrix(scores[test]), sp.csr_matrix(labels[test]), res.thresholds)
    assert dense == pytest.approx(sparse, abs=1e-15)
    pred = scores[test] >= np.asarray(res.thresholds)[None, :]
    kept = labels[test].sum(axis=0) > 0
    v = MultiLabelFValidation.from_predictions(labels[test][:, kept], pred[:, kept].astype(int))
    assert dense == pytest.approx(v.f_macro, abs=1e-12)


# --------------------------------------------------------------------------- hygiene


def test_results_read_only_and_inputs_unchanged() -> None:
    rng = np.random.default_rng(2)
    scores = np.round(rng.random((20, 5)), 1)
    labels = (rng.random((20, 5)) < 0.4).astype(int)
    labels[0] = 1
    s0, y0 = scores.copy(), labels.copy()
    ssp, ysp = sp.csr_matrix(scores), sp.csr_matrix(labels)
    ssp0, ysp0 = ssp.copy(), ysp.copy()
    priors = np.full(5, 0.3)
    start = np.ones(5, dtype=np.int64)
    results = [
        per_class(scores, labels),
        global_threshold(scores, labels),
        proportional(scores, labels, priors=priors),
        cyclic(scores, labels, start=start),
        top_k(scores, labels),
        per_class(ssp, ysp),
        top_k(ssp, ysp),
    ]
    f_macro(scores, labels, results[0])
    f_macro(ssp, ysp, results[0])
    np.testing.assert_array_equal(scores, s0)
    np.testing.assert_array_equal(labels, y0)
    np.testing.assert_array_equal(priors, 0.3)
    np.testing.assert_array_equal(start, 1)
    assert (ssp != ssp0).nnz == 0 and (ysp != ysp0).nnz == 0
    for r in results:
        assert not r.thresholds.flags.writeable and not r.cuts.flags.writeable
        assert math.isnan(r.upper_bound) and math.isnan(r.gap)


@pytest.mark.parametrize(
    "method", [per_class, global_threshold, proportional, cyclic, top_k], ids=lambda m: m.__name__
)
def test_bad_input(method: Any) -> None:
    s = np.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]])
    y = np.array([[1, 0], [0, 1], [1, 1]])
    with pytest.raises(ValueError, match="same shape"):
        method(s, y[:2])
    with pytest.raises(ValueError, match="NaN or infinite"):
        method(np.where(s > 0.5, np.nan, s), y)
    with pytest.raises(ValueError, match="NaN or infinite"):
        method(np.where(s > 0.5, np.inf, s), y)
    with pytest.raises(ValueError, match="only 0 and 1"):
        method(s, y * 2)
    with pytest.raises(ValueError, match="beta"):
        method(s, y, beta=0.0)
    with pytest.raises(ValueError, match="beta"):
        method(s, y, beta=-2.0)
    with pytest.raises(ValueError, match="zero_division"):
        method(s, y, zero_division=0.5)
    with pytest.raises(ValueError, match="no class with a positive"):
        method(s, np.zeros_like(y))
    with pytest.raises(ValueError, match="empty"):
        method(np.zeros((3, 0)), np.zeros((3, 0)))
    with pytest.raises(ValueError, match="empty_classes"):
        method(s, y, empty_classes="drop")


def test_bad_input_specific() -> None:
    s = np.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]])
    y = np.array([[1, 0], [0, 1], [1, 1]])
    with pytest.raises(ValueError, match="priors must have one entry per class column"):
        proportional(s, y, priors=[0.5])
    with pytest.raises(ValueError, match="priors must be >= 0"):
        proportional(s, y, priors=[0.5, -0.1])
    with pytest.raises(ValueError, match="priors contains"):
        proportional(s, y, priors=[0.5, math.nan])
    with pytest.raises(ValueError, match="cuts must have one entry per kept class"):
        cyclic(s, y, start=[1])
    with pytest.raises(ValueError, match="not both"):
        cyclic(s, y, start=[1, 1], start_thresholds=[0.1, 0.1])
    with pytest.raises(ValueError, match="thresholds contains 1 NaN"):
        cyclic(s, y, start_thresholds=[0.1, math.nan])
    with pytest.raises(ValueError, match="k_max must be a positive integer"):
        top_k(s, y, k_max=0)
    with pytest.raises(ValueError, match="thresholds must have one entry per class column"):
        f_macro(s, y, [0.1])
    with pytest.raises(ValueError, match="thresholds contains 1 NaN"):
        f_macro(s, y, [0.1, math.nan])
    with pytest.raises(ValueError, match="same shape"):
        f_macro(s, y[:2], [0.1, 0.2])
    with pytest.raises(ValueError, match="NaN or infinite"):
        f_macro(np.where(s > 0.5, np.nan, s), y, [0.1, 0.2])
    with pytest.raises(ValueError, match="only 0 and 1"):
        f_macro(s, y + 1, [0.1, 0.2])
    with pytest.raises(ValueError, match="beta"):
        f_macro(s, y, [0.1, 0.2], beta=0)
    with pytest.raises(ValueError, match="no class with a positive"):
        f_macro(s, np.zeros_like(y), [0.1, 0.2])
    with pytest.raises(ValueError, match="pass either scores and labels, or points="):
        per_class(s, y, points=class_points(s, y))


def test_dense_per_class_over_many_blocks_and_threads_matches_points_path() -> None:
    # 2000 objects x 1100 classes spans two ~16 MB column blocks, run on worker threads.
    rng = np.random.default_rng(11)
    scores = np.round(rng.random((2000, 1100)), 3)  # rounding makes ties common
    labels = (rng.random((2000, 1100)) < 0.05).astype(np.uint8)
    fused = per_class(scores, labels)
    general = per_class(points=class_points(scores, labels))
    np.testing.assert_array_equal(fused.cuts, general.cuts)
    np.testing.assert_array_equal(fused.thresholds, general.thresholds)
    assert fused.f == general.f


def test_top_k_ties_go_to_the_smallest_k() -> None:
    # k = 1 and k = 2 give the same F-macro (0.6818...) through different float sums;
    # a Hypothesis run once found the larger k chosen on a last-digit difference.
    scores = np.array(
        [[0.0, 1 / 3, 2 / 3], [1 / 3, 0.0, 1 / 3], [0.0, 0.0, 0.0], [0.0, 1 / 3, 0.0]]
    )
    labels = np.array([[1, 0, 1], [1, 0, 1], [0, 0, 0], [0, 0, 0]])
    res = top_k(scores, labels, beta=0.5, zero_division=0.0, k_max=3)
    f_by_k = res.diagnostics["f_by_k"]
    assert f_by_k[0] == pytest.approx(f_by_k[1], abs=1e-12)
    assert f_by_k[0] == pytest.approx(15 / 22, abs=1e-12)
    assert res.diagnostics["k"] == 1


@pytest.mark.parametrize("order", ["C", "F"])
def test_per_class_float32_and_any_order_match_float64_without_copying(order: str) -> None:
    # predict_proba gives float32/float64, C-ordered, samples x classes; labels bool.
    rng = np.random.default_rng(11)
    scores64 = rng.random((300, 40))
    labels = rng.random((300, 40)) < 0.1
    labels[0] = True
    scores32 = np.array(scores64.astype(np.float32), order=order)
    before = scores32.copy()
    r32 = per_class(scores32, labels)
    r64 = per_class(scores32.astype(np.float64), labels.astype(np.uint8))
    np.testing.assert_array_equal(r32.thresholds, r64.thresholds)
    assert r32.f == r64.f
    np.testing.assert_array_equal(scores32, before)  # sorted in blocks, never in place
    bad = scores32.copy()
    bad[5, 7] = np.nan
    with pytest.raises(ValueError, match="scores contains 1 NaN or infinite value"):
        per_class(bad, labels)


def test_per_class_float32_extra_memory_stays_below_the_input() -> None:
    import tracemalloc

    rng = np.random.default_rng(12)
    scores = rng.random((4000, 4000), dtype=np.float32)
    labels = rng.random((4000, 4000)) < 0.01
    per_class(scores[:50, :50], labels[:50, :50])  # compile outside the measurement
    tracemalloc.start()
    try:
        per_class(scores, labels)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # Was 4.2x (a float64 copy, a label copy and finiteness masks): now a few column
    # blocks per thread.
    assert peak < scores.nbytes
