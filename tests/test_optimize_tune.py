"""Tests for optimize.smoothing (smoothed class points) and optimize.tune."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fmacro.optimize.baselines import cyclic, per_class
from fmacro.optimize.evaluation import evaluate_thresholds, f_macro
from fmacro.optimize.search.brute_force import brute_force
from fmacro.optimize.search.domain import domain
from fmacro.optimize.search.exact import _exact_f
from fmacro.optimize.search.fixed_point import fixed_point
from fmacro.optimize.search.hull import class_hulls
from fmacro.optimize.search.points import ClassPoints, class_points
from fmacro.optimize.tuning.smoothing import SmoothedPoints, sharing, smooth_points
from fmacro.optimize.tuning.tune import tune

TOL = 1e-12


def _problem(seed: int, n_obj: int = 120, n_cls: int = 12) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = (rng.random((n_obj, n_cls)) < rng.uniform(0.01, 0.3, n_cls)).astype(np.uint8)
    s = y * rng.normal(1.0, 1.0, (n_obj, n_cls)) + rng.normal(0.0, 1.0, (n_obj, n_cls))
    return s, y


# ------------------------------------------------------------------ exact smoothed points


def exact_smoothed(
    tp: int, j: int, m: int, n_obj: int, a: Fraction, pi: Fraction, n: int | None, z: Fraction
) -> tuple[Fraction, Fraction]:
    """The module formulas in Fraction arithmetic (n None = no finite-sample factor)."""
    if j == 0:
        p = z
    else:
        p = (tp + a * pi) / (j + a)
        if n is not None:
            q = (1 - Fraction(j, n_obj)) ** n
            p = p * (1 - q) + z * q
    r = (tp + a * Fraction(j, n_obj)) / (m + a)
    return p, r


def test_smoothed_points_by_hand() -> None:
    # one class, ranking 1 0 1 0 (N = 4, m = 2), a = 2, pi = 1/2, n = 3
    pts = ClassPoints.from_ranked_lists([[1, 0, 1, 0]], [2], 4)
    sm = smooth_points(pts, 2.0, n_eval=3)
    # cut 1: p~ = (1 + 1)/(1 + 2) * (1 - (3/4)^3) = 2/3 * 37/64 = 37/96; r~ = (1 + 1/2)/4
    assert sm.precision[1] == pytest.approx(37 / 96, abs=TOL)
    assert sm.recall[1] == pytest.approx(3 / 8, abs=TOL)
    # cut 4 (all objects): p~ = (2 + 1)/(4 + 2) * (1 - 0) = 1/2, r~ = (2 + 2)/4 = 1
    assert sm.precision[4] == pytest.approx(0.5, abs=TOL)
    assert sm.recall[4] == pytest.approx(1.0, abs=TOL)
    assert sm.precision[0] == 0.0 and sm.recall[0] == 0.0


@settings(max_examples=60, deadline=None)
@given(
    hnp.arrays(
        np.int64, st.tuples(st.integers(2, 8), st.integers(1, 3)), elements=st.integers(0, 3)
    ),
    st.data(),
    st.sampled_from([Fraction(0), Fraction(1, 2), Fraction(3), Fraction(10)]),
    st.sampled_from([1, 2, 5, None]),
    st.sampled_from([0.0, 1.0]),
    st.booleans(),
)
def test_smoothed_points_equal_fraction_arithmetic(
    scores: np.ndarray, data: st.DataObject, a: Fraction, n: int | None, z: float, given_pi: bool
) -> None:
    labels = data.draw(hnp.arrays(np.uint8, scores.shape, elements=st.integers(0, 1)))
    labels[0, :] = 1
    pts = class_points(scores.astype(float), labels, zero_division=z)
    rates = None
    if given_pi:
        rates = np.array(
            data.draw(
                st.lists(
                    st.sampled_from([0.0, 0.25, 0.5, 1.0]),
                    min_size=scores.shape[1],
                    max_size=scores.shape[1],
                )
            )
        )
    sm = smooth_points(pts, float(a), base_rates=rates, n_eval=math.inf if n is None else n)
    n_obj = pts.n_samples
    for k in range(pts.n_classes):
        m = int(pts.support[k])
        pi = Fraction(rates[k]) if rates is not None else Fraction(m, n_obj)
        for g in range(pts.indptr[k], pts.indptr[k + 1]):
            tp, j = int(pts.tp[g]), int(pts.tp[g] + pts.fp[g])
            p, r = exact_smoothed(tp, j, m, n_obj, a, pi, n, Fraction(z))
            assert sm.precision[g] == pytest.approx(float(p), abs=TOL)
            assert sm.recall[g] == pytest.approx(float(r), abs=TOL)
    if a == 0 and n is None:  # bit for bit the raw points
        assert np.array_equal(sm.precision, pts.precision)
        assert np.array_equal(sm.recall, pts.recall)


# ------------------------------------------------------------------ monotonicity (docs)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 10_000),
    st.floats(0.01, 100.0),
    st.floats(1.0, 1e4),
    st.floats(1.0, 1e4),
)
def test_monotonicity_properties(seed: int, a: float, n1: float, n2: float) -> None:
    s, y = _problem(seed, 40, 4)
    s = np.round(s, 1)  # ties: several cuts share tp
    pts = class_points(s, y)
    sm = smooth_points(pts, a, n_eval=math.inf)
    for k in range(pts.n_classes):
        sl = pts.class_slice(k)
        # (i) r~ strictly increases along the cuts
        assert np.all(np.diff(sm.recall[sl]) > 0)
        # (ii) p~ (no finite-sample factor) lies between the raw precision and pi_k
        pi = pts.support[k] / pts.n_samples
        raw = pts.precision[sl][1:]
        p_s = sm.precision[sl][1:]
        assert np.all(p_s >= np.minimum(raw, pi) - TOL)
        assert np.all(p_s <= np.maximum(raw, pi) + TOL)
    # (iii) with zero_division 0, p~ is non-decreasing in n_eval
    lo, hi = sorted((n1, n2))
    p_lo = smooth_points(pts, a, n_eval=lo).precision
    p_hi = smooth_points(pts, a, n_eval=hi).precision
    assert np.all(p_lo <= p_hi + TOL)


def test_hull_keeps_smoothed_cuts_with_equal_tp() -> None:
    # ranking 0 0 1 (N = 3, m = 1): raw cuts 0..2 share tp = 0, and the raw hull is the
    # all-objects cut alone. Smoothed (a = 3, pi = 0.9), cut 1 has p~ = 2.7/4 = 0.675 and
    # r~ = 1/4 > 0 = r~ of the empty cut: a tie rule on tp would drop it, yet it is the
    # highest-precision vertex.
    pts = ClassPoints.from_ranked_lists([[0, 0, 1]], [1], 3)
    assert class_hulls(pts).vertex_cut.tolist() == [3]
    sm = smooth_points(pts, 3.0, base_rates=[0.9], n_eval=math.inf)
    assert sm.precision[1] == pytest.approx(0.675, abs=TOL)
    assert sm.recall[1] == pytest.approx(0.25, abs=TOL)
    h = class_hulls(sm)
    assert h.vertex_cut.tolist() == [1, 3]
    for phi in np.linspace(0.0, math.pi / 2, 91):
        v = math.cos(phi) * sm.precision + math.sin(phi) * sm.recall
        vh = math.cos(phi) * h.vertex_p + math.sin(phi) * h.vertex_r
        assert vh.max() == pytest.approx(v.max(), abs=TOL)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([0.5, 3.0, 30.0]), st.sampled_from([3, None]))
def test_hull_vertices_are_the_linear_maximizers_of_smoothed_points(
    seed: int, a: float, n: int | None
) -> None:
    s, y = _problem(seed, 30, 3)
    y[0] = 1  # 30 objects at a 1% rate may leave no positive at all (seed 1954)
    pts = smooth_points(class_points(np.round(s, 1), y), a, n_eval=n)
    h = class_hulls(pts)
    for phi in np.linspace(0.0, math.pi / 2, 31):
        w = (math.cos(phi), math.sin(phi))
        for j in range(pts.n_classes):
            sl = pts.class_slice(j)
            best = np.max(w[0] * pts.precision[sl] + w[1] * pts.recall[sl])
            vs = slice(h.vertex_indptr[j], h.vertex_indptr[j + 1])
            assert np.max(w[0] * h.vertex_p[vs] + w[1] * h.vertex_r[vs]) == pytest.approx(
                best, abs=TOL
            )


# ------------------------------------------------------------------ tune


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_prior_zero_reproduces_fixed_point(seed: int) -> None:
    s, y = _problem(seed)
    s = np.round(s, 1)
    fp = fixed_point(s, y)
    t = tune(s, y, prior=0, n_eval=math.inf)
    assert np.array_equal(t.cuts, fp.cuts)
    assert np.array_equal(t.thresholds, fp.thresholds)
    assert t.f == fp.f and t.precision == fp.precision and t.recall == fp.recall
    assert t.diagnostics["smoothed_f"] == fp.f
    assert t.diagnostics["smoothed_upper_bound"] == fp.upper_bound


def test_prior_zero_reproduces_fixed_point_on_corel5k() -> None:
    from pathlib import Path

    d = np.load(Path(__file__).resolve().parents[1] / "optimize/data/corel5k_test_scores.npz")
    s, y = d["scores"], d["labels"]
    fp = fixed_point(s, y)
    t = tune(s, y, prior=0, n_eval=math.inf)
    assert np.array_equal(t.cuts, fp.cuts) and np.array_equal(t.thresholds, fp.thresholds)
    assert t.f == fp.f
    # the default: plain in-sample F below the optimum, smoothed objective certified
    d3 = tune(s, y)
    assert d3.f <= fp.f
    assert d3.diagnostics["certified"] and d3.diagnostics["smoothed_gap"] >= 0.0
    assert math.isnan(d3.upper_bound) and math.isnan(d3.gap)


def tiny_rankings(min_objects: int, n_columns: int, top_score: int) -> st.SearchStrategy[Any]:
    """(integer scores with ties, 0/1 labels) of min_objects..6 objects."""
    return st.integers(min_objects, 6).flatmap(
        lambda n_obj: st.tuples(
            hnp.arrays(np.int64, (n_obj, n_columns), elements=st.integers(0, top_score)),
            hnp.arrays(np.uint8, (n_obj, n_columns), elements=st.integers(0, 1)),
        )
    )


@settings(max_examples=40, deadline=None)
@given(
    tiny_rankings(min_objects=2, n_columns=2, top_score=2),
    st.sampled_from([0.5, 3.0]),
    st.sampled_from([2, None]),
    st.sampled_from([0.5, 1.0, 2.0]),
)
def test_tune_certifies_the_smoothed_objective(
    inst: tuple, a: float, n: int | None, beta: float
) -> None:
    s, y = inst
    y[0, :] = 1
    pts = class_points(s.astype(float), y)
    sm = smooth_points(pts, a, n_eval=n)
    # brute force over all cut combinations of the smoothed objective
    b2 = beta * beta
    best = -1.0
    for combo in itertools.product(*[range(c) for c in pts.n_cuts]):
        idx = pts.indptr[:-1] + np.array(combo)
        p, r = float(np.mean(sm.precision[idx])), float(np.mean(sm.recall[idx]))
        f = 0.0 if p + r == 0 else (1 + b2) * p * r / (b2 * p + r)
        best = max(best, f)
    t = tune(s.astype(float), y, prior=a, n_eval=n, beta=beta)
    sf, ub = t.diagnostics["smoothed_f"], t.diagnostics["smoothed_upper_bound"]
    assert sf <= best + TOL <= ub + 2 * TOL
    assert best - sf <= t.diagnostics["smoothed_gap"] + TOL
    assert brute_force(points=sm, beta=beta).f == pytest.approx(best, abs=TOL)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 5), st.sampled_from(["exp", "affine", "cube"]))
def test_invariant_under_monotone_transform_of_a_class(seed: int, col: int, kind: str) -> None:
    s, y = _problem(seed, 80, 6)
    y[:, 5] = 0  # one class without positives
    t = tune(s, y)
    x = s[:, col]
    s2 = s.copy()
    s2[:, col] = {"exp": np.exp(x), "affine": 3.0 * x - 7.0, "cube": x**3}[kind]
    t2 = tune(s2, y)
    assert np.array_equal(t.cuts, t2.cuts)
    assert t.f == pytest.approx(t2.f, abs=TOL)
    assert np.array_equal(t.apply(s), t2.apply(s2))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.permutations(list(range(6))))
@example(seed=971, perm=[1, 2, 3, 4, 5, 0])  # an exact tie broken by class order
def test_invariant_under_permuting_classes(seed: int, perm: list[int]) -> None:
    s, y = _problem(seed, 80, 6)
    y[:, 2] = 0
    t = tune(s, y)
    tp = tune(s[:, perm], y[:, perm])
    assert tp.f == pytest.approx(t.f, abs=TOL)
    assert tp.diagnostics["smoothed_f"] == pytest.approx(t.diagnostics["smoothed_f"], abs=TOL)
    if not np.array_equal(tp.thresholds, t.thresholds[perm]):
        # Only an exact tie may be broken by class order (seed 971: two cut choices whose
        # smoothed F agree to 1e-16); then the other order's thresholds score the same.
        swapped = t.thresholds.copy()
        swapped[perm] = tp.thresholds
        assert f_macro(s, y, swapped) == pytest.approx(t.f, abs=TOL)


def test_unseen_classes() -> None:
    s, y = _problem(3, 60, 4)
    y[:, 1] = 0
    t = tune(s, y)
    assert t.thresholds[1] == -np.inf and t.diagnostics["n_unseen"] == 1
    assert t.apply(s)[:, 1].all()
    assert tune(s, y, unseen="never").thresholds[1] == np.inf
    assert tune(s, y, prior=0).thresholds[1] == np.inf
    # with a prior centre, the unseen class maximizes cos(phi) p~ + sin(phi) r~ over its cuts
    # (the all-objects cut as -inf); pi = 0.5 still predicts everything, pi = 1 a short cut
    a, n_obj = 3.0, 60
    col = np.sort(s[:, 1])[::-1]
    for pi, inside in ((0.5, False), (1.0, True)):
        tr = tune(s, y, base_rates=np.array([0.1, pi, 0.1, 0.1]))
        phi = tr.diagnostics["phi"]
        cands = [(0.0, math.inf)] + [
            (
                math.cos(phi) * a * pi / (j + a) * (1 - (1 - j / n_obj) ** n_obj)
                + math.sin(phi) * j / n_obj,
                col[j - 1] if j < n_obj else -math.inf,
            )
            for j in range(1, n_obj + 1)
        ]
        assert tr.thresholds[1] == max(cands, key=lambda c: c[0])[1]
        assert np.isfinite(tr.thresholds[1]) == inside


@pytest.mark.parametrize("method", ["per_class", "cyclic", "domain"])
def test_other_methods_run_on_smoothed_points(method: str) -> None:
    s, y = _problem(4)
    sm = smooth_points(class_points(s, y), 3.0)
    ref = {
        "per_class": lambda: per_class(points=sm),
        "cyclic": lambda: cyclic(points=sm),
        "domain": lambda: domain(points=sm, n_angles=None),
    }[method]()
    t = tune(s, y, method=method)
    assert np.array_equal(t.cuts, ref.cuts)
    assert t.diagnostics["smoothed_f"] == ref.f
    assert t.diagnostics["certified"] == (method == "domain")


def test_result_values_are_plain_in_sample_values() -> None:
    s, y = _problem(5)
    t = tune(s, y)
    ev = evaluate_thresholds(s, y, t.thresholds)
    assert t.f == pytest.approx(ev.f, abs=TOL)
    assert t.method == "tune"


def test_sparse_input_matches_dense() -> None:
    s, y = _problem(6)
    s = s - s.min() + 1.0
    td = tune(s, y)
    ts = tune(sp.csr_matrix(s), sp.csr_matrix(y))
    assert np.array_equal(td.thresholds, ts.thresholds)


def _hull_only(sm: SmoothedPoints) -> SmoothedPoints:
    """``sm`` restricted to each class's hull vertices (cut numbers kept)."""
    h = class_hulls(sm)
    owner = np.repeat(np.arange(sm.n_classes), np.diff(h.vertex_indptr))
    at = np.asarray(sm.indptr)[:-1][owner] + h.vertex_cut
    base = ClassPoints(
        h.vertex_indptr,
        np.asarray(sm.tp)[at],
        np.asarray(sm.fp)[at],
        np.asarray(sm.threshold)[at],
        sm.support,
        sm.class_index,
        sm.n_samples,
        sm.n_columns,
        sm.zero_division,
        full_cut=h.vertex_cut,
    )
    empty = np.zeros(0)
    return sharing(
        base,
        pseudo_count=sm.pseudo_count,
        base_rate=sm.base_rate,
        n_eval=sm.n_eval,
        centre_p=empty,
        centre_r=empty,
    )


def _linearized_tune(s: np.ndarray, y: np.ndarray, a: float, n_eval: int) -> np.ndarray:
    """tune's thresholds with fixed_point(exact=False) on the hull cuts of the smoothed
    points (at an edge its per-class candidate is then a hull vertex)."""
    raw = class_points(s, y)
    sm = smooth_points(raw, a, n_eval=n_eval)
    hull = _hull_only(sm)
    res = fixed_point(points=hull, exact=False)
    th = raw.thresholds_for(sm.local_cuts(res.cuts))
    unseen = np.setdiff1d(np.arange(y.shape[1]), raw.class_index)
    # classes without tuning positives (zero_division 0, own rates): every object
    th[unseen] = -np.inf if a > 0 else np.inf
    return th


def test_cv_is_seeded_reproducible_and_matches_a_manual_run() -> None:
    s, y = _problem(7, 200, 10)
    grid = (0.0, 3.0, 30.0)
    t1 = tune(s, y, prior="cv", cv_grid=grid, random_state=5)
    t2 = tune(s, y, prior="cv", cv_grid=grid, random_state=5)
    assert np.array_equal(t1.thresholds, t2.thresholds)
    assert np.array_equal(t1.diagnostics["cv_scores"], t2.diagnostics["cv_scores"])
    cv = np.asarray(t1.diagnostics["cv_scores"])
    assert t1.diagnostics["prior"] == grid[int(np.argmax(cv))]
    # manual: 2 repeats x 2 folds from the same generator, scored by evaluate_thresholds;
    # the inner fits are the linearization on the smoothed points (no exact step)
    rng = np.random.default_rng(5)
    manual = np.zeros(len(grid))
    for _ in range(2):
        perm = rng.permutation(200)
        h = (np.sort(perm[:100]), np.sort(perm[100:]))
        for fit, ev in (h, h[::-1]):
            for i, a in enumerate(grid):
                th = _linearized_tune(s[fit], y[fit], a, ev.size)
                manual[i] += evaluate_thresholds(s[ev], y[ev], th).f / 4
    np.testing.assert_allclose(cv, manual, atol=1e-12)
    final = tune(s, y, prior=t1.diagnostics["prior"])
    assert np.array_equal(final.thresholds, t1.thresholds)


def test_caller_arrays_unchanged() -> None:
    s, y = _problem(8)
    rates = y.mean(axis=0)
    s0, y0, r0 = s.copy(), y.copy(), rates.copy()
    tune(s, y, base_rates=rates, prior="cv", cv_grid=(1.0, 3.0))
    assert np.array_equal(s, s0) and np.array_equal(y, y0) and np.array_equal(rates, r0)


@pytest.mark.parametrize(
    ("kwargs", "exc", "name"),
    [
        ({"prior": -1.0}, ValueError, "prior"),
        ({"prior": math.nan}, ValueError, "prior"),
        ({"prior": "auto"}, ValueError, "prior"),
        ({"prior": [3.0]}, TypeError, "prior"),
        ({"prior": True}, TypeError, "prior"),
        ({"n_eval": 0}, ValueError, "n_eval"),
        ({"n_eval": -5}, ValueError, "n_eval"),
        ({"n_eval": math.nan}, ValueError, "n_eval"),
        ({"n_eval": "10"}, TypeError, "n_eval"),
        ({"base_rates": np.full(3, 0.1)}, ValueError, "base_rates"),
        ({"base_rates": np.full(12, 1.5)}, ValueError, "base_rates"),
        ({"base_rates": np.full(12, -0.1)}, ValueError, "base_rates"),
        ({"base_rates": np.full(12, math.nan)}, ValueError, "base_rates"),
        ({"base_rates": ["a"] * 12}, TypeError, "base_rates"),
        ({"beta": 0.0}, ValueError, "beta"),
        ({"zero_division": 0.5}, ValueError, "zero_division"),
        ({"method": "nope"}, ValueError, "method"),
        ({"unseen": "nope"}, ValueError, "unseen"),
        ({"prior": "cv", "cv_grid": (1.0, -2.0)}, ValueError, "cv_grid"),
        ({"prior": "cv", "cv_grid": ()}, ValueError, "cv_grid"),
        ({"prior": "cv", "cv_repeats": 0}, ValueError, "cv_repeats"),
        ({"prior": "cv", "random_state": 1.5}, TypeError, "random_state"),
    ],
)
def test_bad_arguments_are_named(kwargs: dict, exc: type, name: str) -> None:
    s, y = _problem(9)
    with pytest.raises(exc, match=name):
        tune(s, y, **kwargs)


def test_bad_data_is_named() -> None:
    s, y = _problem(10)
    bad = s.copy()
    bad[0, 0] = math.nan
    with pytest.raises(ValueError, match="scores"):
        tune(bad, y)
    with pytest.raises(ValueError, match="labels"):
        tune(s, y * 2)
    with pytest.raises(ValueError, match="shape"):
        tune(s, y[:, :3])
    with pytest.raises(TypeError, match="points"):
        smooth_points(s, 3.0)  # type: ignore[arg-type]


def test_smoothing_a_smoothed_set_uses_the_raw_counts() -> None:
    pts = class_points(*_problem(11))
    once = smooth_points(pts, 3.0)
    twice = smooth_points(once, 3.0)
    assert isinstance(twice, SmoothedPoints)
    assert np.array_equal(once.precision, twice.precision)
    assert np.array_equal(twice.raw().precision, pts.precision)


def test_public_names() -> None:
    from fmacro import optimize

    assert optimize.tune is tune and optimize.smooth_points is smooth_points


def test_points_input() -> None:
    s, y = _problem(13)
    y[:, 0] = 0
    pts = class_points(s, y)
    t = tune(points=pts)
    ref = tune(s, y, unseen="never")
    assert np.array_equal(t.thresholds, ref.thresholds) and t.f == ref.f
    assert np.array_equal(tune(points=smooth_points(pts, 10.0)).thresholds, ref.thresholds)
    with pytest.raises(ValueError, match="prior='cv'"):
        tune(points=pts, prior="cv")
    with pytest.raises(ValueError, match="not both"):
        tune(s, y, points=pts)
    with pytest.raises(ValueError, match="zero_division"):
        tune(points=pts, zero_division=1.0)


@pytest.mark.parametrize("zd", [0.0, 1.0, math.nan])
def test_unseen_rule_under_each_zero_division(zd: float) -> None:
    # pi = 0: the unseen class's points are p~ = z q (j >= 1; q = (1 - j/N)^N, no factor
    # under nan), r~ = j / N, and the empty cut (z, 0), unusable under nan
    s, y = _problem(14, 100, 8)
    y[:, 3] = 0
    t = tune(s, y, zero_division=zd)
    phi = t.diagnostics["phi"]
    n_obj = 100
    col = np.sort(s[:, 3])[::-1]
    z = 0.0 if math.isnan(zd) else zd
    cands = [] if math.isnan(zd) else [(math.cos(phi) * zd, math.inf)]
    for j in range(1, n_obj + 1):
        q = (1 - j / n_obj) ** n_obj
        v = math.cos(phi) * z * q + math.sin(phi) * j / n_obj
        cands.append((v, col[j - 1] if j < n_obj else -math.inf))
    assert t.thresholds[3] == max(cands, key=lambda c: c[0])[1]


def test_calibrated_prior_centres() -> None:
    from fmacro.optimize.tuning.etu import model_centres

    rng = np.random.default_rng(15)
    eta = rng.random((80, 5)) ** 3
    y = (rng.random(eta.shape) < eta).astype(np.uint8)
    y[:, 4] = 0
    pts = class_points(eta, y)
    cp, cr = model_centres(pts, eta)
    sm = smooth_points(pts, 3.0, centres=(cp, cr))
    # the formulas with the model's centres in place of pi_k and j/N
    j = (pts.tp + pts.fp).astype(float)
    m = np.repeat(pts.support, pts.n_cuts)
    q = (1 - j / 80) ** 80
    p_ref = np.where(j == 0, 0.0, (pts.tp + 3 * cp) / np.maximum(j + 3, 1) * (1 - q))
    np.testing.assert_allclose(sm.precision, p_ref, atol=1e-12)
    np.testing.assert_allclose(sm.recall, (pts.tp + 3 * cr) / (m + 3), atol=1e-12)
    t = tune(eta, y, calibrated=True)
    ref = fixed_point(points=sm)
    assert np.array_equal(t.cuts, ref.cuts) and t.diagnostics["calibrated"]
    # a = 0, n = inf: the centres do not matter
    t0 = tune(eta, y, calibrated=True, prior=0, n_eval=math.inf)
    assert np.array_equal(t0.thresholds, fixed_point(eta, y).thresholds)
    # the unseen class takes the model-centred linearization (here a finite cut or -inf)
    assert t.thresholds[4] < math.inf
    with pytest.raises(ValueError, match="calibrated"):
        tune(points=pts, calibrated=True)
    with pytest.raises(TypeError, match="calibrated"):
        tune(eta, y, calibrated="yes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="probabilities"):
        tune(eta * 3, y, calibrated=True)
    with pytest.raises(ValueError, match="centres"):
        smooth_points(pts, 3.0, centres=(cp[:-1], cr))
    with pytest.raises(ValueError, match="centres"):
        smooth_points(pts, 3.0, centres=(cp + 2, cr))


def test_smoothed_points_share_the_raw_arrays_read_only() -> None:
    pts = class_points(*_problem(16))
    sm = smooth_points(pts, 3.0, n_eval=50)
    assert sm.tp is pts.tp and sm.threshold is pts.threshold  # no copy of the cut table
    for arr in (sm.tp, sm.fp, sm.threshold, sm.base_rate, sm.precision, sm.recall):
        assert not arr.flags.writeable
    assert (sm.pseudo_count, sm.n_eval) == (3.0, 50.0)
    # attrs' own constructor (copies) gives the same points
    twin = SmoothedPoints(
        pts.indptr,
        pts.tp,
        pts.fp,
        pts.threshold,
        pts.support,
        pts.class_index,
        pts.n_samples,
        pts.n_columns,
        pts.zero_division,
        pseudo_count=3.0,
        base_rate=pts.support / pts.n_samples,
        n_eval=50,
    )
    assert np.array_equal(twin.precision, sm.precision)
    assert np.array_equal(twin.recall, sm.recall)


@settings(max_examples=150, deadline=None)
@given(
    tiny_rankings(min_objects=1, n_columns=3, top_score=3),
    st.sampled_from([0.5, 3.0]),
    st.sampled_from([2, None]),
    st.sampled_from([0.5, 1.0, 2.0]),
    st.sampled_from([0.0, 1.0]),
)
def test_tune_exact_is_the_rational_optimum_of_the_smoothed_objective(
    inst: tuple, a: float, n: int | None, beta: float, zd: float
) -> None:
    s, y = inst
    y[0, :] = 1
    pts = class_points(s.astype(float), y, zero_division=zd)
    sm = smooth_points(pts, a, n_eval=n)
    # the smoothed objective in rational arithmetic: each float p~, r~ is a rational
    b2 = Fraction(beta) ** 2

    def f_exact(combo: tuple[int, ...]) -> Fraction:
        idx = (pts.indptr[:-1] + np.array(combo)).tolist()
        p = sum(Fraction(float(sm.precision[i])) for i in idx) / pts.n_classes
        r = sum(Fraction(float(sm.recall[i])) for i in idx) / pts.n_classes
        return Fraction(0) if b2 * p + r == 0 else (1 + b2) * p * r / (b2 * p + r)

    best = max(f_exact(c) for c in itertools.product(*[range(c) for c in pts.n_cuts]))
    t = tune(s.astype(float), y, prior=a, n_eval=n, beta=beta, zero_division=zd, method="exact")
    d = t.diagnostics
    assert f_exact(tuple(t.cuts)) == best
    # the tie-break of exact compares these same rational values on smoothed points
    assert _exact_f(sm, np.asarray(t.cuts), Fraction(beta)) == best
    assert d["smoothed_gap"] == 0.0 and d["certified"]
    assert d["search_diagnostics"]["status"] == "optimal"
    fp = tune(s.astype(float), y, prior=a, n_eval=n, beta=beta, zero_division=zd)
    assert d["smoothed_f"] >= fp.diagnostics["smoothed_f"] - TOL
