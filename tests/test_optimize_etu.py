"""Tests for optimize.etu (expected-F-macro decisions from calibrated probabilities)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fmacro.optimize.tuning.etu import etu, expected_points

TOL = 1e-12


def naive_points(eta: np.ndarray) -> list[list[tuple[float, float, float]]]:
    """Per column: (threshold, p, r) of the empty cut and one cut per distinct value."""
    out = []
    for k in range(eta.shape[1]):
        col = eta[:, k]
        m = col.sum()
        pts = [(math.inf, 0.0, 0.0)]
        for v in sorted(set(col.tolist()), reverse=True):
            sel = col >= v
            pts.append((v, col[sel].sum() / sel.sum(), col[sel].sum() / m))
        out.append(pts)
    return out


probs = st.tuples(st.integers(2, 6), st.integers(1, 3)).flatmap(
    lambda shape: hnp.arrays(
        np.float64, shape, elements=st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.9, 1.0])
    )
)


@settings(max_examples=60, deadline=None)
@given(probs)
def test_expected_points_by_definition(eta: np.ndarray) -> None:
    eta[0, :] = np.maximum(eta[0, :], 0.1)  # every column has some mass
    pts = expected_points(eta)
    for k, ref in enumerate(naive_points(eta)):
        sl = pts.class_slice(k)
        np.testing.assert_array_equal(pts.threshold[sl], [t for t, _, _ in ref])
        np.testing.assert_allclose(pts.precision[sl], [p for _, p, _ in ref], atol=TOL)
        np.testing.assert_allclose(pts.recall[sl], [r for _, _, r in ref], atol=TOL)


@settings(max_examples=60, deadline=None)
@given(probs, st.sampled_from([0.5, 1.0, 2.0]))
def test_etu_is_the_certified_optimum_of_the_expected_objective(
    eta: np.ndarray, beta: float
) -> None:
    eta[0, :] = np.maximum(eta[0, :], 0.1)
    ref = naive_points(eta)
    b2 = beta * beta
    best = 0.0
    for combo in itertools.product(*ref):
        p = sum(c[1] for c in combo) / len(combo)
        r = sum(c[2] for c in combo) / len(combo)
        best = max(best, 0.0 if p + r == 0 else (1 + b2) * p * r / (b2 * p + r))
    res = etu(eta, beta=beta)
    assert res.method == "etu"
    assert res.f <= best + TOL and best <= res.upper_bound + TOL
    assert best - res.f <= res.gap + TOL


def test_etu_hand_example_and_inputs() -> None:
    eta = np.array([[0.9, 0.1, 0.0], [0.6, 0.2, 0.0], [0.1, 0.7, 0.0]])
    res = etu(eta)
    # column 0 (mass 1.6): cuts 1, 2 give (0.9, 0.5625), (0.75, 0.9375); column 1 (mass 1):
    # (0.7, 0.7), ...; column 2 has no mass: never predicted
    assert res.apply(eta).astype(int).tolist() == [[1, 0, 0], [1, 0, 0], [0, 1, 0]]
    assert res.thresholds[2] == math.inf
    assert res.f == pytest.approx(2 * 0.725 * 0.81875 / (0.725 + 0.81875), abs=TOL)
    e0 = eta.copy()
    etu(eta)
    np.testing.assert_array_equal(eta, e0)
    with pytest.raises(ValueError, match="probabilities"):
        etu(eta * 2)
    with pytest.raises(ValueError, match="probabilities"):
        etu(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="beta"):
        etu(eta, beta=-1.0)


def test_model_centres_by_definition() -> None:
    from fmacro.optimize.search.points import class_points
    from fmacro.optimize.tuning.etu import model_centres

    rng = np.random.default_rng(0)
    eta = np.round(rng.random((12, 3)), 1)  # ties
    y = (rng.random((12, 3)) < eta).astype(np.uint8)
    y[0] = 1
    pts = class_points(eta, y)
    cp, cr = model_centres(pts, eta)
    for k in range(pts.n_classes):
        col = eta[:, pts.class_index[k]]
        for g in range(pts.indptr[k] + 1, pts.indptr[k + 1]):
            sel = col >= pts.threshold[g]
            assert cp[g] == pytest.approx(col[sel].mean(), abs=TOL)
            assert cr[g] == pytest.approx(col[sel].sum() / col.sum(), abs=TOL)
        assert cp[pts.indptr[k]] == 0.0 and cr[pts.indptr[k]] == 0.0
    with pytest.raises(ValueError, match="scores the points were built from"):
        model_centres(pts, np.round(rng.random((12, 3)), 1))
    with pytest.raises(ValueError, match="shape"):
        model_centres(pts, eta[:, :2])
