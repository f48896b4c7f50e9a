"""Tests for fmacro.optimize.search.localize (extended linearization, reference estimate_grid)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fmacro.optimize.search.brute_force import brute_force_exact
from fmacro.optimize.search.coordinate import coordinate_ascent
from fmacro.optimize.search.fixed_point import fixed_point
from fmacro.optimize.search.localize import localize
from fmacro.optimize.search.points import class_points
from fmacro.optimize.search.result import evaluate_cuts


@st.composite
def tiny(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, float, float]:
    n_obj = draw(st.integers(4, 7))
    n_cls = draw(st.integers(2, 4))
    s = draw(hnp.arrays(np.int64, (n_obj, n_cls), elements=st.integers(0, 3))).astype(float)
    y = draw(hnp.arrays(np.int64, (n_obj, n_cls), elements=st.integers(0, 1)))
    y[0, :] = 1
    return s, y, draw(st.sampled_from([0.5, 1.0, 2.0])), draw(st.sampled_from([0.0, 1.0]))


@settings(max_examples=40, deadline=None)
@given(tiny(), st.integers(0, 2**31 - 1))
def test_candidate_cells_hold_every_coordinate_wise_maximum(inst: tuple, seed: int) -> None:
    s, y, beta, zd = inst
    pts = class_points(s, y, zero_division=zd)
    loc = localize(points=pts, beta=beta, zero_division=zd, grid=7)
    opt = brute_force_exact(pts, beta)
    assert loc.contains(float(opt.precision), float(opt.recall))
    rng = np.random.default_rng(seed)
    for _ in range(5):
        c = coordinate_ascent(pts, rng.integers(0, pts.n_cuts), beta)
        p, r, _ = evaluate_cuts(pts, c, beta)
        assert loc.contains(p, r)


def _problem(seed: int, n_obj: int, n_cls: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = (rng.random((n_obj, n_cls)) < rng.uniform(0.05, 0.3, n_cls)).astype(np.uint8)
    s = y * rng.normal(1.5, 1.0, (n_obj, n_cls)) + rng.normal(0.0, 1.0, (n_obj, n_cls))
    return s, y


def test_many_classes_localize_the_optimum_sharply() -> None:
    s, y = _problem(0, 300, 400)
    pts = class_points(s, y)
    loc = localize(points=pts, grid=40)
    fp = fixed_point(points=pts)
    up, ur = fp.diagnostics["ub_point"]
    assert loc.contains(fp.precision, fp.recall) and loc.contains(up, ur)
    # V depends only on the gradient angle, so the candidates form a thin band along
    # the ray through the optimum (its width shrinks with the grid) plus the corner
    # near (0, 0) where the eps bound is undefined
    assert loc.mask.mean() < 0.06
    c = loc.candidate_cells()
    cp, cr = (c[:, 0] + c[:, 1]) / 2, (c[:, 2] + c[:, 3]) / 2
    far = cp + cr > 0.3
    assert np.all(np.abs(np.arctan2(cp[far], cr[far]) - np.arctan2(fp.precision, fp.recall)) < 0.1)
    # inside every cell the plain map V at the middle direction lies in the box
    assert np.all(loc.p_box[..., 0] <= loc.v_center[..., 0] + 1e-12)
    assert np.all(loc.v_center[..., 0] <= loc.p_box[..., 1] + 1e-12)
    assert np.all(loc.r_box[..., 0] <= loc.v_center[..., 1] + 1e-12)
    assert np.all(loc.v_center[..., 1] <= loc.r_box[..., 1] + 1e-12)


def test_shapes_read_only_and_bad_grid() -> None:
    s, y = _problem(1, 40, 5)
    loc = localize(s, y, grid=6, beta=2.0)
    assert loc.p_edges.shape == (7,) and loc.p_box.shape == (6, 6, 2)
    assert loc.mask.shape == (6, 6) and loc.mask.dtype == bool
    assert loc.spread.shape == (6, 6) and np.all(loc.spread >= 0)
    assert loc.candidate_cells().shape == (int(loc.mask.sum()), 4)
    for arr in (loc.p_box, loc.r_box, loc.mask, loc.v_center, loc.slack, loc.p_edges):
        assert not arr.flags.writeable
    with pytest.raises(ValueError, match="grid must be >= 1"):
        localize(s, y, grid=0)
    with pytest.raises(TypeError, match="grid"):
        localize(s, y, grid=2.5)  # type: ignore[arg-type]
