"""The exact F-macro solver (issue 15) against rational brute force.

The oracle enumerates every cut combination: in float64 (vectorized, chunked) to find
the best value, then in exact rational arithmetic (``fractions.Fraction``) over every
combination within 1e-9 of it, so it is exact. On the smallest instances the
library's ``brute_force_exact`` (pure Fractions) is used directly.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fmacro.optimize import exact
from fmacro.optimize.io import load_scores_npz
from fmacro.optimize.search._exact_kernels import (
    best_completion,
    cap_ends,
    class_pareto,
    coordinate_polish,
    crossing_u,
    front_support,
    neumaier_sum,
    reduce_points,
    reduce_rounds,
    screen_cuts,
    suffix_sums,
    support,
    support_all,
)
from fmacro.optimize.search.brute_force import brute_force_exact, exact_f_of_cuts
from fmacro.optimize.search.exact import class_best_values, exact_float_sum, gradient_directions
from fmacro.optimize.search.fixed_point import fixed_point
from fmacro.optimize.search.hull import class_hulls
from fmacro.optimize.search.points import ClassPoints, class_points
from fmacro.optimize.synthetic import calibrated_probabilities, dense_scores
from fmacro.validation.measures import f_beta_from_pr

TOL = 1e-12
COREL = Path(__file__).resolve().parents[1] / "optimize" / "data" / "corel5k_test_scores.npz"


def _oracle(pts: ClassPoints, beta: float) -> Fraction:
    """The exact optimum of F-macro over all cut combinations."""
    n_combos = math.prod(int(c) for c in pts.n_cuts)
    if n_combos <= 2_000:
        return brute_force_exact(pts, Fraction(beta)).f
    n = pts.n_classes
    b2 = beta * beta
    cols_p = [np.asarray(pts.precision[pts.class_slice(j)]) for j in range(n)]
    cols_r = [np.asarray(pts.recall[pts.class_slice(j)]) for j in range(n)]
    # all combinations of classes 1..n-1 at once, the first class in a loop
    tail_p, tail_r = np.zeros(1), np.zeros(1)
    for j in range(1, n):
        tail_p = (tail_p[:, None] + cols_p[j][None, :]).ravel()
        tail_r = (tail_r[:, None] + cols_r[j][None, :]).ravel()
    best = -np.inf
    near: list[tuple[int, int]] = []
    for c0 in range(cols_p[0].size):
        big_p = (cols_p[0][c0] + tail_p) / n
        big_r = (cols_r[0][c0] + tail_r) / n
        den = b2 * big_p + big_r
        with np.errstate(divide="ignore", invalid="ignore"):
            f = np.where(den == 0, 0.0, (1 + b2) * big_p * big_r / np.where(den == 0, 1, den))
        f = np.where(np.isnan(f), -np.inf, f)
        top = float(f.max())
        if top > best + 1e-9:
            near = []
        best = max(best, top)
        near += [(c0, int(t)) for t in np.flatnonzero(f >= best - 1e-9)]
    near = near[:5_000]
    tail_shape = tuple(int(c) for c in pts.n_cuts[1:])
    out = Fraction(-1)
    for c0, t in near:
        cuts = [c0, *np.unravel_index(t, tail_shape)]
        out = max(out, exact_f_of_cuts(pts, np.array(cuts), Fraction(beta)))
    return out


def _check_exact(pts: ClassPoints, beta: float) -> None:
    res = exact(points=pts, beta=beta, zero_division=pts.zero_division, empty_classes=_ec(pts))
    opt = _oracle(pts, beta)
    assert exact_f_of_cuts(pts, res.cuts, Fraction(beta)) == opt
    assert res.upper_bound == res.f and res.gap == 0.0
    assert res.diagnostics["status"] == "optimal"
    assert res.method == "exact"
    assert res.f == pytest.approx(float(opt), abs=TOL)


def _ec(pts: ClassPoints) -> str:
    return "include" if bool((pts.support == 0).any()) else "exclude"


@st.composite
def tiny(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, float, float, str]:
    n_cls = draw(st.integers(2, 8))
    n_obj = draw(st.integers(1, 10))
    # fewer distinct scores when there are many classes keeps the enumeration small
    levels = {2: 9, 3: 9, 4: 5, 5: 3, 6: 2, 7: 2, 8: 1}[n_cls]
    scores = draw(hnp.arrays(np.int64, (n_obj, n_cls), elements=st.integers(0, levels)))
    labels = draw(hnp.arrays(np.int64, (n_obj, n_cls), elements=st.integers(0, 1)))
    if draw(st.booleans()):
        labels[draw(st.integers(0, n_obj - 1)), :] = 1
    labels[:, 0] = np.maximum(labels[:, 0], np.arange(n_obj) == 0)  # one positive somewhere
    beta = draw(st.sampled_from([0.5, 1.0, 2.0]))
    zd = draw(st.sampled_from([0.0, 1.0, math.nan]))
    ec = "exclude" if math.isnan(zd) else draw(st.sampled_from(["exclude", "include"]))
    return scores.astype(float), labels, beta, zd, ec


@settings(max_examples=400, deadline=None)
@given(tiny())
def test_exact_equals_rational_brute_force_on_tiny_instances(inst: tuple) -> None:
    s, y, beta, zd, ec = inst
    pts = class_points(s, y, zero_division=zd, empty_classes=ec)
    res = exact(points=pts, beta=beta, zero_division=zd, empty_classes=ec)
    opt = _oracle(pts, beta)
    assert exact_f_of_cuts(pts, res.cuts, Fraction(beta)) == opt
    assert res.gap == 0.0 and res.upper_bound == res.f
    if math.isnan(zd):
        assert np.all(res.cuts >= 1)  # never the undefined empty cut
    # never below fixed_point, whose bound still holds
    fp = fixed_point(points=pts, beta=beta, zero_division=zd, empty_classes=ec, exact=False)
    assert res.f >= fp.f - TOL
    assert fp.upper_bound >= float(opt) - TOL
    if res.diagnostics["proof"] == "reduction":  # proven without a search
        assert res.diagnostics["n_nodes"] == 0
    if res.diagnostics["source"] == "fixed_point":
        np.testing.assert_array_equal(res.cuts, fp.cuts)


@settings(max_examples=200, deadline=None)
@given(tiny())
def test_fixed_point_by_default_is_the_rational_optimum(inst: tuple) -> None:
    # exact=True (the default) closes the linearization's gap with the exact search
    s, y, beta, zd, ec = inst
    pts = class_points(s, y, zero_division=zd, empty_classes=ec)
    res = fixed_point(points=pts, beta=beta, zero_division=zd, empty_classes=ec)
    assert res.method == "fixed_point"
    assert exact_f_of_cuts(pts, res.cuts, Fraction(beta)) == _oracle(pts, beta)
    assert res.gap == 0.0 and res.upper_bound == res.f
    linear = fixed_point(points=pts, beta=beta, zero_division=zd, empty_classes=ec, exact=False)
    if linear.diagnostics["status"] == "edge":
        assert res.diagnostics["linearization_f"] == linear.f
        assert res.diagnostics["linearization_bound"] == linear.upper_bound
        assert res.diagnostics["exact"]["status"] == "optimal"
    else:  # an exact fixed point: nothing to close
        assert "exact" not in res.diagnostics
        np.testing.assert_array_equal(res.cuts, linear.cuts)


def test_fixed_point_time_limit_keeps_a_valid_bound_and_the_linear_answer() -> None:
    s, y = dense_scores(10_000, 10, seed=1)
    pts = class_points(s, y)
    linear = fixed_point(points=pts, exact=False)
    assert linear.diagnostics["status"] == "edge"
    cut = fixed_point(points=pts, time_limit=1e-9)
    assert cut.diagnostics["exact"]["status"] == "time_limit"
    assert cut.f >= linear.f
    assert linear.f <= cut.upper_bound <= linear.upper_bound
    full = fixed_point(points=pts)
    assert full.gap == 0.0 and full.f >= cut.f
    assert cut.upper_bound >= full.f - TOL


def _medium(seed: int, n_cls: int, levels: int | None) -> ClassPoints:
    rng = np.random.default_rng(seed)
    n_obj = int(rng.integers(20, 41))
    y = (rng.random((n_obj, n_cls)) < rng.uniform(0.1, 0.5, n_cls)).astype(int)
    y[rng.integers(0, n_obj, n_cls), np.arange(n_cls)] = 1
    s = rng.normal(size=(n_obj, n_cls)) + 1.2 * y
    if levels is not None:  # ties: fewer cuts, and a smaller enumeration
        s = np.round((s - s.min()) / (s.max() - s.min()) * levels)
    return class_points(s, y)


@pytest.mark.parametrize(
    ("seed", "n_cls", "levels", "beta"),
    [
        (0, 3, None, 1.0),
        (1, 3, None, 2.0),
        (2, 4, 14, 0.5),
        (3, 4, 20, 1.0),
        (4, 5, 10, 1.0),
        (5, 6, 7, 2.0),
    ],
)
def test_exact_equals_brute_force_on_medium_instances(
    seed: int, n_cls: int, levels: int | None, beta: float
) -> None:
    pts = _medium(seed, n_cls, levels)
    assert 1e4 <= math.prod(int(c) for c in pts.n_cuts) <= 5e6
    _check_exact(pts, beta)


def _ranked(lists: list[list[int]]) -> ClassPoints:
    return ClassPoints.from_ranked_lists(lists, [sum(x) for x in lists], len(lists[0]))


def test_exact_where_fixed_point_is_not() -> None:
    # the optimum 15/19 lies strictly inside an edge of conv D
    pts = _ranked([[1, 0, 0, 1], [1, 0, 1, 0]])
    fp = fixed_point(points=pts, exact=False)
    res = exact(points=pts)
    assert exact_f_of_cuts(pts, res.cuts) == Fraction(15, 19)
    assert res.gap == 0.0 and fp.gap > 0.0
    # fixed_point misses the optimum here; exact finds it
    rng = np.random.default_rng(7)
    found = 0
    for _ in range(200):
        s = rng.integers(0, 3, size=(6, 4)).astype(float)
        y = (rng.random((6, 4)) < 0.5).astype(int)
        y[0] = 1
        p = class_points(s, y)
        opt = brute_force_exact(p, 1).f
        if exact_f_of_cuts(p, fixed_point(points=p, exact=False).cuts) < opt:
            found += 1
            assert exact_f_of_cuts(p, exact(points=p).cuts) == opt
    assert found > 0


@settings(max_examples=60, deadline=None)
@given(tiny(), st.data())
def test_invariant_under_monotone_transforms_and_class_permutations(
    inst: tuple, data: st.DataObject
) -> None:
    s, y, beta, zd, ec = inst
    kw = {"beta": beta, "zero_division": zd, "empty_classes": ec}
    base = exact(s, y, **kw)
    base_pts = class_points(s, y, zero_division=zd, empty_classes=ec)
    f0 = exact_f_of_cuts(base_pts, base.cuts, Fraction(beta))
    t = s.copy()
    t[:, 0] = np.exp(s[:, 0])
    t[:, 1] = 3.0 * s[:, 1] - 7.0
    if s.shape[1] > 2:
        t[:, 2] = s[:, 2] ** 3 + 0.5
    moved = exact(t, y, **kw)
    np.testing.assert_array_equal(moved.cuts, base.cuts)
    np.testing.assert_array_equal(moved.apply(t), base.apply(s))
    assert moved.f == base.f
    perm = np.array(data.draw(st.permutations(range(s.shape[1]))))
    pr = exact(s[:, perm], y[:, perm], **kw)
    pr_pts = class_points(s[:, perm], y[:, perm], zero_division=zd, empty_classes=ec)
    assert exact_f_of_cuts(pr_pts, pr.cuts, Fraction(beta)) == f0
    assert base_pts.n_classes == pr_pts.n_classes


def test_sparse_scores_give_the_dense_optimum() -> None:
    rng = np.random.default_rng(3)
    s = rng.random((30, 4))
    s[s < 0.4] = 0.0
    y = (rng.random((30, 4)) < 0.3).astype(int)
    y[0] = 1
    dense = exact(s, y)
    sparse = exact(sp.csr_matrix(s), sp.csr_matrix(y))
    pts = class_points(sp.csr_matrix(s), sp.csr_matrix(y))
    assert exact_f_of_cuts(pts, sparse.cuts) == _oracle(pts, 1.0)
    assert dense.f == pytest.approx(sparse.f, abs=TOL)  # zeros are the lowest scores either way


def _screen(pts: ClassPoints, ga: np.ndarray, gc: np.ndarray, target: float) -> tuple:
    h = class_hulls(pts)
    return screen_cuts(
        pts.indptr, pts.precision, pts.recall, h.vertex_indptr, h.vertex_p, h.vertex_r,
        ga, gc, target, 1e-12,
    )  # fmt: skip


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_screen_cuts_is_the_pareto_filter_then_the_reduction(seed: int) -> None:
    rng = np.random.default_rng(seed)
    s, y = calibrated_probabilities(400, 6, seed=seed)
    s = np.round(s * 40) / 40  # ties: runs of equal recall and equal points
    pts = class_points(s, y, zero_division=[0.0, 1.0, math.nan][seed])
    ptr0, idx0 = class_pareto(pts.indptr, pts.tp, pts.precision, pts.recall)
    fp = fixed_point(points=pts)
    big_p, big_r = fp.diagnostics["ub_point"]
    u_star = big_p / (big_p + big_r)  # the direction of the relaxation optimum (beta 1)
    ga, gc = gradient_directions(u_star + np.array([0.0, -0.02, 0.02, 0.3 * rng.random()]), 1.0)
    # nothing removed by the loss test: exactly the Pareto filter
    ptr, idx, n_nd = _screen(pts, ga, gc, -math.inf)
    np.testing.assert_array_equal(ptr, ptr0)
    np.testing.assert_array_equal(idx, idx0)
    assert n_nd == idx0.size
    # against an incumbent: the Pareto filter, then one reduction round per direction
    # with supports over the non-dominated cuts (the kernel reads them off the hulls)
    target = pts.n_classes * fp.f
    p0, r0 = pts.precision[idx0], pts.recall[idx0]
    alive = np.ones(idx0.size, dtype=bool)
    every = np.ones(idx0.size, dtype=bool)
    for i in range(ga.size):
        h, _ = support(ptr0, p0, r0, every, float(ga[i]), float(gc[i]))
        slack = max(float(np.sum(h)) - target, 0.0) + 1e-12
        reduce_points(ptr0, p0, r0, alive, float(ga[i]), float(gc[i]), h, slack)
    ptr, idx, n_nd = _screen(pts, ga, gc, target)
    np.testing.assert_array_equal(idx, idx0[alive])
    kept = [int(alive[a:b].sum()) for a, b in itertools.pairwise(ptr0)]
    np.testing.assert_array_equal(np.diff(ptr), kept)
    assert n_nd == idx0.size
    assert 0 < idx.size < idx0.size


def test_search_kernels_agree_with_numpy() -> None:
    rng = np.random.default_rng(5)
    b2 = 4.0
    big_p, big_r = rng.random(50), rng.random(50)
    f = f_beta_from_pr(big_p, big_r, 2.0)
    lb = float(np.quantile(f, 0.7))
    inside = np.flatnonzero(f >= lb)
    assert cap_ends(big_p, big_r, b2, lb) == (inside[0], inside[-1], int(np.argmax(f)))
    assert cap_ends(big_p, big_r, b2, 2.0)[:2] == (-1, -1)
    # the crossing: F reaches lb there, and u is the direction of the point reached
    u = crossing_u(0.9, 0.1, 0.3, 0.8, 0.4, b2)
    t = np.linspace(0.0, 1.0, 100_001)
    walk = f_beta_from_pr(0.9 + t * (0.3 - 0.9), 0.1 + t * (0.8 - 0.1), 2.0)
    t0 = t[np.argmax(walk >= 0.4)]
    pp, rr = 0.9 + t0 * (0.3 - 0.9), 0.1 + t0 * (0.8 - 0.1)
    assert u == pytest.approx(b2 * pp / (b2 * pp + rr), abs=1e-4)
    front_p, front_r = np.sort(rng.random(30))[::-1].copy(), np.sort(rng.random(30))
    ps, rs = rng.random(3), rng.random(3)
    f_all = f_beta_from_pr(
        (1.5 + front_p[None, :] + ps[:, None]) / 7, (2.5 + front_r[None, :] + rs[:, None]) / 7, 2.0
    )
    best, i, a = best_completion(front_p, front_r, 1.5, 2.5, ps, rs, 7, b2)
    assert best == pytest.approx(f_all.max(), rel=1e-14)
    assert (i, a) == np.unravel_index(np.argmax(f_all), f_all.shape)
    ga, gc = gradient_directions(np.array([0.1, 0.5, 0.9]), b2)
    np.testing.assert_array_equal(
        front_support(front_p, front_r, ga, gc),
        np.max(ga[:, None] * front_p + gc[:, None] * front_r, axis=1),
    )


def test_fused_kernels_equal_their_per_direction_steps() -> None:
    """support_all, suffix_sums and reduce_rounds (one call for every direction) give
    bit for bit what the per-direction kernels give, including a class left without
    an alive candidate (support -inf, counted 0 in the slack)."""
    rng = np.random.default_rng(12)
    sizes = rng.integers(1, 7, 9)
    ptr = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    p, r = rng.random(ptr[-1]), rng.random(ptr[-1])
    alive = rng.random(ptr[-1]) < 0.8
    alive[ptr[2] : ptr[3]] = False  # class 2 has nothing alive
    ga, gc = gradient_directions(np.array([0.2, 0.45, 0.7]), 1.0)
    h, arg = support_all(ptr, p, r, alive, ga, gc)
    for i in range(ga.size):
        h_i, arg_i = support(ptr, p, r, alive, float(ga[i]), float(gc[i]))
        np.testing.assert_array_equal(h[i], h_i)
        np.testing.assert_array_equal(arg[i], arg_i)
    assert h[0, 2] == -math.inf and arg[0, 2] == -1
    live = np.flatnonzero(arg[0] >= 0)
    hs, ps, rs = suffix_sums(h[:, live], p, r, arg[:, live], 3)
    for i in range(ga.size):
        picks = arg[i, live[3:]]
        assert hs[i] == neumaier_sum(h[i, live[3:]])
        assert (ps[i], rs[i]) == (neumaier_sum(p[picks]), neumaier_sum(r[picks]))
    # reduce_rounds against the rounds written out with the per-direction kernels
    fixed = rng.random(ga.size)
    target = float(np.sum(h[0, live])) + fixed[0] - 0.05
    expected = alive.copy()
    for _ in range(3):
        killed = 0
        for i in range(ga.size):
            h_i, _ = support(ptr, p, r, expected, float(ga[i]), float(gc[i]))
            total = neumaier_sum(np.where(np.isfinite(h_i), h_i, 0.0)) + fixed[i]
            slack = max(total - target, 0.0) + 1e-12
            killed += reduce_points(ptr, p, r, expected, float(ga[i]), float(gc[i]), h_i, slack)
        if killed == 0:
            break
    got = alive.copy()
    reduce_rounds(ptr, p, r, got, ga, gc, target, 1e-12, fixed, 3)
    np.testing.assert_array_equal(got, expected)
    assert 0 < got.sum() < alive.sum()  # the test kills some candidates, not all


def test_class_best_values_by_hand() -> None:
    # classes: two points; none; a NaN point and one other; one NaN point only
    p = np.array([0.5, 0.2, math.nan, 0.1, math.nan])
    r = np.array([0.1, 0.6, 0.9, 0.3, 0.4])
    indptr = np.array([0, 2, 2, 4, 5])
    got = class_best_values(2.0, 1.0, p, r, indptr)
    # 2 * 0.5 + 0.1 = 1.1 beats 2 * 0.2 + 0.6 = 1.0; 2 * 0.1 + 0.3 = 0.5
    np.testing.assert_array_equal(got, [1.1, -math.inf, 0.5, -math.inf])


def test_coordinate_polish_ends_where_no_single_class_move_helps() -> None:
    rng = np.random.default_rng(11)
    sizes = rng.integers(1, 9, 6)
    ptr = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    p, r = rng.random(ptr[-1]), rng.random(ptr[-1])
    alive = rng.random(ptr[-1]) < 0.8
    alive[ptr[:-1]] = True  # every class keeps a candidate
    start = ptr[:-1].copy()
    choice = coordinate_polish(ptr, p, r, alive, start, 4.0, 50)

    def f(ch: np.ndarray) -> float:
        return float(f_beta_from_pr(p[ch].sum(), r[ch].sum(), 2.0))

    assert f(choice) >= f(start)
    for j in range(sizes.size):
        assert ptr[j] <= choice[j] < ptr[j + 1] and alive[choice[j]]
        for c in np.flatnonzero(alive[ptr[j] : ptr[j + 1]]) + ptr[j]:
            moved = choice.copy()
            moved[j] = c
            assert f(moved) <= f(choice) + 1e-12


def test_reduction_alone_proves_fixed_point_on_corel5k() -> None:
    s, y = load_scores_npz(COREL)
    pts = class_points(s, y)
    for beta in (0.5, 1.0, 2.0):
        fp = fixed_point(points=pts, beta=beta)
        res = exact(points=pts, beta=beta)
        assert res.diagnostics["proof"] == "reduction"
        assert res.diagnostics["n_multi_classes"] == 0 and res.diagnostics["n_nodes"] == 0
        assert res.diagnostics["source"] == "fixed_point"
        np.testing.assert_array_equal(res.cuts, fp.cuts)
        np.testing.assert_array_equal(res.thresholds, fp.thresholds)
        assert res.f == fp.f == res.upper_bound and res.method == "exact"
        # fixed_point is exact here (a vertex crossing), so the claim is checkable
        assert fp.gap == 0.0
    # coordinate ascent finds the optimum and the reduction proves it, no search
    polished = exact(*calibrated_probabilities(10_000, 5, seed=1))
    assert polished.diagnostics["source"] == "coordinate_ascent"
    assert polished.diagnostics["proof"] == "reduction"
    assert polished.f > polished.diagnostics["fixed_point_f"]
    searched = exact(*calibrated_probabilities(2_000, 5, seed=1))
    assert searched.diagnostics["proof"] == "search"
    assert searched.diagnostics["n_multi_classes"] > 0


def test_time_limit_returns_best_found_and_a_valid_bound() -> None:
    # Gaussian scores: fixed_point's incumbent is near the optimum but its bound is not,
    # so a search remains after the reduction
    s, y = dense_scores(10_000, 10, seed=1)
    pts = class_points(s, y)
    full = exact(points=pts)
    assert full.diagnostics["status"] == "optimal"
    assert full.diagnostics["n_multi_classes"] > 0  # a real search happened
    cut = exact(points=pts, time_limit=1e-9)
    assert cut.diagnostics["status"] == "time_limit"
    assert cut.f <= full.f + TOL
    assert cut.upper_bound >= full.f - TOL
    assert cut.gap == pytest.approx(cut.upper_bound - cut.f)
    linear = fixed_point(points=pts, exact=False)
    assert cut.f >= linear.f - TOL
    assert cut.upper_bound <= linear.upper_bound + TOL
    # and on a medium instance against the brute-force optimum
    med = _medium(4, 5, 10)
    opt = float(_oracle(med, 1.0))
    res = exact(points=med, time_limit=1e-9)
    assert res.f <= opt + TOL <= res.upper_bound + 2 * TOL


def test_fixed_point_checks_exact_and_time_limit_even_without_a_search() -> None:
    s = np.array([[0.2, 0.9], [0.8, 0.1], [0.5, 0.5]])
    y = np.array([[0, 1], [1, 0], [1, 1]])
    assert fixed_point(s, y).diagnostics["status"] == "fixed_point"  # no search would run
    for bad in (0, -1.0, math.nan, math.inf):
        with pytest.raises(ValueError, match="time_limit"):
            fixed_point(s, y, time_limit=bad)
    for bad_t in ("1", True, [1.0]):
        with pytest.raises(TypeError, match="time_limit"):
            fixed_point(s, y, time_limit=bad_t)  # type: ignore[arg-type]
    for bad_flag in ("no", 1, None):
        with pytest.raises(TypeError, match="exact"):
            fixed_point(s, y, exact=bad_flag)  # type: ignore[arg-type]
    s0, y0 = s.copy(), y.copy()
    fixed_point(s, y, time_limit=5.0)
    np.testing.assert_array_equal(s, s0)
    np.testing.assert_array_equal(y, y0)


def test_bad_inputs_name_the_argument() -> None:
    s = np.array([[0.2, 0.9], [0.8, 0.1], [0.5, 0.5]])
    y = np.array([[0, 1], [1, 0], [1, 1]])
    for bad in (0, -1.0, math.nan, math.inf):
        with pytest.raises(ValueError, match="time_limit"):
            exact(s, y, time_limit=bad)
    for bad_t in ("1", True, [1.0]):
        with pytest.raises(TypeError, match="time_limit"):
            exact(s, y, time_limit=bad_t)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="beta"):
        exact(s, y, beta=0.0)
    with pytest.raises(ValueError, match="empty_classes"):
        exact(s, y, empty_classes="drop")
    with pytest.raises(ValueError, match="zero_division"):
        exact(s, y, zero_division=0.5)
    with pytest.raises(ValueError, match="same shape"):
        exact(s, y[:2])
    assert exact(s, y, time_limit=10).gap == 0.0


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), max_size=60))
def test_exact_float_sum_is_the_rational_sum(values: list[float]) -> None:
    assert exact_float_sum(values) == sum((Fraction(v) for v in values), Fraction(0))
