"""Tests for fmacro.optimize.search: fixed_point, hull and coordinate."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp

from fmacro.optimize.search.brute_force import brute_force
from fmacro.optimize.search.coordinate import coordinate_ascent, per_class_cuts
from fmacro.optimize.search.fixed_point import argv_curve, fixed_point
from fmacro.optimize.search.hull import class_hulls, edge_sweep
from fmacro.optimize.search.points import ClassPoints, class_points
from fmacro.optimize.search.result import evaluate_cuts


def _problem(seed: int, n_obj: int = 200, n_cls: int = 40) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = (rng.random((n_obj, n_cls)) < rng.uniform(0.02, 0.3, n_cls)).astype(np.uint8)
    s = y * rng.normal(1.0, 1.0, (n_obj, n_cls)) + rng.normal(0.0, 1.0, (n_obj, n_cls))
    return np.round(s, 1), y  # rounding makes ties


def test_hull_of_a_hand_example() -> None:
    # class (1,0,1,0): points (0,0) (1,1/2) (1/2,1/2) (2/3,1) (1/2,1)
    pts = ClassPoints.from_ranked_lists([[1, 0, 1, 0]], [2], 4)
    h = class_hulls(pts)
    assert h.vertex_cut.tolist() == [1, 3]  # from max precision to max recall
    np.testing.assert_allclose(h.vertex_p, [1.0, 2 / 3])
    np.testing.assert_allclose(h.vertex_r, [0.5, 1.0])
    np.testing.assert_allclose(h.edge_angle, [math.atan2(1 / 3, 1 / 2)])
    # zero_division=1 makes the empty cut (1, 0) the max-precision tie: the chain
    # starts at the tie with the larger recall
    h1 = class_hulls(ClassPoints.from_ranked_lists([[1, 0, 1, 0]], [2], 4, zero_division=1.0))
    assert h1.vertex_cut.tolist() == [1, 3]


def test_hull_vertices_are_the_linear_maximizers() -> None:
    s, y = _problem(1, 60, 8)
    pts = class_points(s, y)
    h = class_hulls(pts)
    for phi in np.linspace(0.0, math.pi / 2, 37):
        w = np.array([math.cos(phi), math.sin(phi)])
        for j in range(pts.n_classes):
            sl = pts.class_slice(j)
            best = np.max(w[0] * pts.precision[sl] + w[1] * pts.recall[sl])
            vs = slice(h.vertex_indptr[j], h.vertex_indptr[j + 1])
            vbest = np.max(w[0] * h.vertex_p[vs] + w[1] * h.vertex_r[vs])
            assert vbest == pytest.approx(best, abs=1e-12)
        # angles within a class are non-decreasing and in [0, pi/2)
    assert np.all((h.edge_angle >= 0) & (h.edge_angle < math.pi / 2))
    for j in range(pts.n_classes):
        e = h.edge_angle[h.vertex_indptr[j] - j : h.vertex_indptr[j + 1] - j - 1]
        assert np.all(np.diff(e) >= 0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fixed_point_on_medium_problems(seed: int) -> None:
    s, y = _problem(seed)
    res = fixed_point(s, y, beta=1.0)
    assert res.method == "fixed_point"
    assert res.f <= res.upper_bound and res.gap == pytest.approx(res.upper_bound - res.f)
    assert res.gap <= max(res.diagnostics["eps"], 0.0) + 1e-12
    # the bound is tight: no cut vector found by many random coordinate ascents beats it
    pts = class_points(s, y)
    rng = np.random.default_rng(seed)
    for _ in range(10):
        start = rng.integers(0, pts.n_cuts)
        c = coordinate_ascent(pts, start, 1.0)
        assert evaluate_cuts(pts, c, 1.0)[2] <= res.upper_bound + 1e-12
    assert res.f >= evaluate_cuts(pts, per_class_cuts(pts, 1.0), 1.0)[2] - 1e-12
    # P, R, F agree with applying the thresholds
    pred = res.apply(s)
    k = pts.class_index
    tp = (pred[:, k] & (y[:, k] == 1)).sum(axis=0)
    npred = pred[:, k].sum(axis=0)
    prec = np.where(npred > 0, tp / np.maximum(npred, 1), 0)
    assert res.precision == pytest.approx(np.mean(prec))
    assert res.recall == pytest.approx(np.mean(tp / y[:, k].sum(axis=0)))


def test_prebuilt_points_sparse_input_and_polish() -> None:
    s, y = _problem(3, 120, 30)
    pts = class_points(s, y)
    a = fixed_point(s, y, beta=2.0)
    b = fixed_point(points=pts, beta=2.0)
    assert a.f == b.f and a.upper_bound == b.upper_bound
    c = fixed_point(sp.csr_matrix(s + 100.0), sp.csr_matrix(y), beta=2.0)
    assert c.f == pytest.approx(a.f) and c.upper_bound == pytest.approx(a.upper_bound)
    p = fixed_point(points=pts, beta=2.0, polish=True)
    assert p.f >= a.f and p.upper_bound == pytest.approx(a.upper_bound)
    with pytest.raises(ValueError, match="not both"):
        fixed_point(s, y, points=pts)
    with pytest.raises(ValueError, match="zero_division"):
        fixed_point(points=pts, zero_division=1.0)


def test_sweep_and_argv_curve() -> None:
    s, y = _problem(4, 80, 12)
    pts = class_points(s, y)
    sw = edge_sweep(class_hulls(pts))
    assert np.all(np.diff(sw.angle) >= 0)
    # the sweep's states are the mean of the vertices picked by cuts_at
    for idx in (0, sw.n_edges // 2, sw.n_edges):
        p, r, _ = evaluate_cuts(pts, sw.cuts_at(idx), 1.0)
        assert (p, r) == pytest.approx((sw.P[idx], sw.R[idx]), abs=1e-12)
    phi = np.linspace(0, math.pi / 2, 50)
    vp, vr, a = argv_curve(phi, points=pts)
    assert np.all(np.diff(a) <= 1e-12)
    assert np.all(np.diff(vp) <= 1e-12) and np.all(np.diff(vr) >= -1e-12)
    with pytest.raises(ValueError, match="side"):
        sw.state_index(0.3, "middle")


def test_coordinate_ascent_never_lowers_f_and_is_a_coordinate_max() -> None:
    s, y = _problem(5, 50, 6)
    pts = class_points(s, y)
    rng = np.random.default_rng(0)
    start = rng.integers(0, pts.n_cuts)
    start0 = start.copy()
    cuts = coordinate_ascent(pts, start, 0.5)
    np.testing.assert_array_equal(start, start0)  # caller's array untouched
    f = evaluate_cuts(pts, cuts, 0.5)[2]
    assert f >= evaluate_cuts(pts, start, 0.5)[2]
    for j in range(pts.n_classes):
        for c in range(pts.n_cuts[j]):
            alt = cuts.copy()
            alt[j] = c
            assert evaluate_cuts(pts, alt, 0.5)[2] <= f + 1e-12


def test_agrees_with_brute_force_on_a_small_problem() -> None:
    s, y = _problem(6, 12, 3)
    s = np.round(s)  # few distinct scores
    bf = brute_force(s, y, beta=1.0)
    fp = fixed_point(s, y, beta=1.0, polish=True)
    assert fp.f <= bf.f + 1e-12 <= fp.upper_bound + 2e-12


def test_bad_arguments() -> None:
    s, y = _problem(7, 10, 3)
    with pytest.raises(ValueError, match="beta"):
        fixed_point(s, y, beta=0.0)
    with pytest.raises(ValueError, match="beta"):
        fixed_point(s, y, beta=-1.0)
    with pytest.raises(TypeError, match="required"):
        fixed_point(s)
    with pytest.raises(ValueError, match="same shape"):
        fixed_point(s, y[:, :2])
