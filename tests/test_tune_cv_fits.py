"""The inner fits of ``tune(prior="cv")``: the linearization on bare arrays.

``linearized_cuts`` runs the same hull kernel, sweep, crossing, edge walk and
candidates as ``fixed_point(..., exact=False)`` without building objects; it must give
the same cuts and the same (P, R) bit for bit, on raw and on smoothed points, with
ties.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fmacro.optimize.search.fixed_point import fixed_point, linearized_cuts
from fmacro.optimize.search.points import class_points
from fmacro.optimize.tuning.smoothing import smooth_points


def _problem(
    seed: int, n_obj: int, n_cls: int, levels: int | None
) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = (rng.random((n_obj, n_cls)) < rng.uniform(0.02, 0.5, n_cls)).astype(np.uint8)
    y[rng.integers(0, n_obj), :] = 1
    s = y * rng.normal(1.0, 1.0, (n_obj, n_cls)) + rng.normal(0.0, 1.0, (n_obj, n_cls))
    if levels is not None:
        s = np.round(s * levels) / levels  # many tied scores, equal edges
    return s, y


problems = st.tuples(
    st.integers(0, 10_000),
    st.integers(2, 120),
    st.integers(1, 12),
    st.sampled_from([None, 1, 4]),
)


@settings(max_examples=150, deadline=None)
@given(
    problems,
    st.sampled_from([None, 0.0, 1.0, 3.0, 30.0]),
    st.sampled_from([0.5, 1.0, 2.0]),
    st.sampled_from([0.0, 1.0, math.nan]),
)
def test_linearized_cuts_equal_fixed_point_without_the_exact_step(
    problem: tuple[int, int, int, int | None], a: float | None, beta: float, zd: float
) -> None:
    s, y = _problem(*problem)
    pts = class_points(s, y, zero_division=zd)
    if a is not None:
        pts = smooth_points(pts, a)
    ref = fixed_point(points=pts, beta=beta, exact=False)
    cuts, big_p, big_r = linearized_cuts(
        np.asarray(pts.indptr), np.asarray(pts.precision), np.asarray(pts.recall), beta
    )
    np.testing.assert_array_equal(pts.full_cuts(cuts), ref.cuts)
    np.testing.assert_array_equal(pts.thresholds_for(cuts), ref.thresholds)
    assert (big_p, big_r) == (ref.precision, ref.recall) or math.isnan(ref.precision)
