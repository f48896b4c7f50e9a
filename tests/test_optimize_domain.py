"""Tests for fmacro.optimize.search.domain (domain analysis, Appendix A.4 estimate_DV)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fmacro.optimize.search.domain import domain
from fmacro.optimize.search.fixed_point import fixed_point
from fmacro.optimize.search.points import ClassPoints, class_points
from fmacro.optimize.search.result import evaluate_cuts


def _problem(seed: int, n_obj: int = 150, n_cls: int = 25) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = (rng.random((n_obj, n_cls)) < rng.uniform(0.05, 0.3, n_cls)).astype(np.uint8)
    s = y * rng.normal(1.0, 1.0, (n_obj, n_cls)) + rng.normal(0.0, 1.0, (n_obj, n_cls))
    return s, y


def test_hand_example_two_classes() -> None:
    pts = ClassPoints.from_ranked_lists([[1, 0, 0, 1], [1, 0, 1, 0]], [2, 2], 4)
    exact = domain(points=pts, n_angles=None)
    # conv D's upper-right boundary: (1, 1/2) -> (5/6, 3/4) -> (7/12, 1)
    np.testing.assert_allclose(
        exact.diagnostics["outer_polygon"], [[1, 0.5], [5 / 6, 0.75], [7 / 12, 1.0]]
    )
    assert exact.f == pytest.approx(15 / 19) and exact.upper_bound == pytest.approx(19 / 24)
    # three directions 0, pi/4, pi/2: support points (1, 1/2), (7/12, 1) [the tie at
    # pi/4 takes the higher-recall end] and (7/12, 1)
    d3 = domain(points=pts, n_angles=3)
    np.testing.assert_allclose(
        d3.diagnostics["support_points"], [[1, 0.5], [7 / 12, 1], [7 / 12, 1]]
    )
    assert d3.f == pytest.approx(14 / 19)  # F(1, 1/2) = 2/3 < F(7/12, 1) = 14/19
    # outer polygon: P <= 1, P + R <= 19/12, R <= 1 -> chain (1,0) (1,7/12) (7/12,1) (0,1);
    # F is maximal on the middle edge at P = R = 19/24
    np.testing.assert_allclose(
        d3.diagnostics["outer_polygon"], [[1, 0], [1, 7 / 12], [7 / 12, 1], [0, 1]], atol=1e-12
    )
    assert d3.upper_bound == pytest.approx(19 / 24)


@pytest.mark.parametrize("seed", [0, 1])
def test_bounds_tighten_on_nested_angle_sets(seed: int) -> None:
    s, y = _problem(seed)
    pts = class_points(s, y)
    fp = fixed_point(points=pts, exact=False)  # its bound: the max of F over conv D
    lows, ups = [], []
    for k in range(1, 8):
        d = domain(points=pts, n_angles=2**k + 1)  # each angle set contains the previous
        assert d.f <= fp.upper_bound + 1e-12 and d.upper_bound >= fp.upper_bound - 1e-12
        assert evaluate_cuts(pts, d.cuts)[2] == pytest.approx(d.f)
        lows.append(d.f)
        ups.append(d.upper_bound)
    assert np.all(np.diff(lows) >= -1e-12) and np.all(np.diff(ups) <= 1e-12)
    exact = domain(points=pts, n_angles=None)
    assert exact.upper_bound == pytest.approx(fp.upper_bound, abs=1e-12)
    assert exact.f <= fp.upper_bound + 1e-12
    assert ups[-1] - exact.upper_bound < 1e-3


def test_diagnostics_shapes_and_read_only() -> None:
    s, y = _problem(2, 60, 10)
    d = domain(s, y, n_angles=12, beta=0.5)
    diag = d.diagnostics
    assert diag["angles"].shape == (12,) and diag["support_points"].shape == (12, 2)
    assert diag["outer_polygon"].shape == (13, 2) and diag["n_angles"] == 12
    assert diag["angles"][0] == 0.0 and diag["angles"][-1] == pytest.approx(math.pi / 2)
    assert not diag["support_points"].flags.writeable
    assert d.method == "domain" and d.beta == 0.5
    assert d.gap == pytest.approx(d.upper_bound - d.f)


@pytest.mark.parametrize("bad", [0, 1, 2, -5])
def test_n_angles_below_three_is_refused(bad: int) -> None:
    s, y = _problem(3, 20, 3)
    with pytest.raises(ValueError, match="n_angles must be >= 3"):
        domain(s, y, n_angles=bad)
    with pytest.raises(TypeError, match="n_angles"):
        domain(s, y, n_angles=4.5)  # type: ignore[arg-type]
