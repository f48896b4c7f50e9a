"""Criteria of seed 001: values, analytic gradients, limits (eqs. 16, 23), eq. 19, bad input."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import f1_score, recall_score

from fmacro.optimize.fdelta import (
    OBJECTIVES,
    Problem,
    exact_value,
    is_maximized,
    objective_value,
    train,
    value_and_gradient,
)


def _data(seed: int, n: int = 40, d: int = 3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(rng.random(n) < 0.4, 1, -1)
    y[:2] = [1, -1]  # both classes present
    w = rng.normal(size=d + 1)
    return X, y, w


def _paper_components(X, y, w, gamma):
    """The paper's approximated components written out (eqs. 1, 15, 21)."""
    psi = np.tanh(gamma * (X @ w[1:] - w[0]))
    A, B = y == 1, y == -1
    e_a, e_b = A.sum(), B.sum()
    i_a = 0.25 * np.sum((1 - psi[A]) ** 2)  # eq. 15, y = +1 on A
    i_b = 0.25 * np.sum((-1 - psi[B]) ** 2)
    g_a = 0.25 * np.sum((1 + psi) ** 2)  # eq. 21
    g_b = 0.25 * np.sum((1 - psi) ** 2)
    return psi, e_a, e_b, i_a, i_b, g_a, g_b


seeds = st.integers(0, 2**32 - 1)


@settings(max_examples=25, deadline=None)
@given(seed=seeds, gamma=st.floats(0.1, 20.0))
def test_values_match_the_papers_components(seed, gamma):
    X, y, w = _data(seed)
    psi, e_a, e_b, i_a, i_b, g_a, g_b = _paper_components(X, y, w, gamma)
    A = y == 1
    delta = np.sum((1 - psi[A]) ** 2) / e_a + np.sum((1 + psi[~A]) ** 2) / e_b  # eqs. 9-10
    f_a = 2 * (e_a - i_a) / (e_a + g_a)  # eq. 11 with approximated counts
    f_b = 2 * (e_b - i_b) / (e_b + g_b)
    expected = {
        "delta": delta,
        "recall": (e_a - i_a) / e_a + (e_b - i_b) / e_b,  # eq. 17
        "F": f_a,
        "F_b": f_b,
        "f": f_a + f_b,  # eq. 24
    }
    for name, value in expected.items():
        assert objective_value(name, X, y, w, gamma) == pytest.approx(value, rel=1e-12)


@settings(max_examples=20, deadline=None)
@given(seed=seeds, gamma=st.floats(0.2, 5.0), objective=st.sampled_from(OBJECTIVES))
def test_gradients_match_central_finite_differences(seed, gamma, objective):
    X, y, w = _data(seed)
    _, grad = value_and_gradient(objective, X, y, w, gamma)
    h = 1e-6
    numeric = np.array(
        [
            (
                objective_value(objective, X, y, w + h * e, gamma)
                - objective_value(objective, X, y, w - h * e, gamma)
            )
            / (2 * h)
            for e in np.eye(w.shape[0])
        ]
    )
    scale = max(1.0, float(np.abs(numeric).max()))
    np.testing.assert_allclose(grad, numeric, atol=1e-6 * scale, rtol=1e-5)


def test_gradient_is_accurate_when_tanh_saturates():
    # at gamma = 200 most outputs are +-1 to rounding; 1 -+ psi is still computed exactly
    X, y, w = _data(3, n=30, d=2)
    w = w * 0.01
    _, grad = value_and_gradient("F", X, y, w, 200.0)
    h = 1e-8
    numeric = np.array(
        [
            (
                objective_value("F", X, y, w + h * e, 200.0)
                - objective_value("F", X, y, w - h * e, 200.0)
            )
            / (2 * h)
            for e in np.eye(3)
        ]
    )
    np.testing.assert_allclose(grad, numeric, rtol=1e-4, atol=1e-7)


@pytest.mark.parametrize("objective", ["recall", "F", "F_b", "f", "delta"])
def test_approximation_tends_to_the_exact_criterion_as_gamma_grows(objective):
    """eqs. 16 and 23: lim_{gamma -> inf} r^_k = r_k and f^_k = f_k."""
    X, y, w = _data(11, n=200, d=4)
    margin = np.abs(X @ w[1:] - w[0]).min()
    assert margin > 1e-4  # no sample on the hyperplane (there psi = 0 for every gamma)
    exact = exact_value(objective, X, y, w)
    gammas = [1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6]
    errors = [abs(objective_value(objective, X, y, w, g) - exact) for g in gammas]
    assert all(b <= a + 1e-15 for a, b in pairwise(errors))
    assert errors[0] > 1e-2
    assert errors[-1] < 1e-12


def test_exact_values_are_the_true_recall_and_f_scores():
    X, y, w = _data(5, n=300, d=4)
    pred = np.where(X @ w[1:] >= w[0], 1, -1)
    assert exact_value("F", X, y, w) == pytest.approx(f1_score(y, pred, pos_label=1))
    assert exact_value("F_b", X, y, w) == pytest.approx(f1_score(y, pred, pos_label=-1))
    r_sum = recall_score(y, pred, pos_label=1) + recall_score(y, pred, pos_label=-1)
    assert exact_value("recall", X, y, w) == pytest.approx(r_sum)
    fn = np.sum((y == 1) & (pred == -1))
    fp = np.sum((y == -1) & (pred == 1))
    assert exact_value("delta", X, y, w) == pytest.approx(
        4 * (fn / np.sum(y == 1) + fp / np.sum(y == -1))
    )


@settings(max_examples=25, deadline=None)
@given(seed=seeds, gamma=st.floats(0.1, 50.0))
def test_eq19_recall_criterion_is_an_affine_image_of_the_delta_rule(seed, gamma):
    """eq. 17: r^_a + r^_b = 2 - delta / 4 for every w and gamma, so the gradients satisfy
    grad(r^_a + r^_b) = -grad(delta) / 4 and both have the same optimizers (eq. 19)."""
    X, y, w = _data(seed)
    r, gr = value_and_gradient("recall", X, y, w, gamma)
    d, gd = value_and_gradient("delta", X, y, w, gamma)
    assert r == pytest.approx(2.0 - d / 4.0, rel=1e-13, abs=1e-13)
    np.testing.assert_allclose(gr, -gd / 4.0, rtol=1e-12, atol=1e-15)


def test_eq19_training_on_recall_follows_the_delta_rule_exactly():
    """Algorithm 1 maximizing r^_a + r^_b with step 4 beta takes exactly the steps of the
    delta rule minimized with step beta (same start, same stops): same optimum."""
    X, y, _ = _data(21, n=120, d=3)
    kw = {"gamma": 3.0, "max_iter": 25, "epsilon": 0.0, "seed": 7, "random_trials": 20}
    by_delta = train(X, y, objective="delta", step=0.01, **kw)
    by_recall = train(X, y, objective="recall", step=0.04, **kw)
    # (25 iterations stay clear of the rounding floor, where ties could go either way)
    assert by_delta.n_iter == by_recall.n_iter == 25
    np.testing.assert_allclose(by_recall.w, by_delta.w, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(by_recall.history, 2.0 - by_delta.history / 4.0, rtol=1e-12)


def test_approximated_f_has_a_spurious_optimum_at_zero_output():
    """Hand-computed: with w = 0, psi = 0 everywhere, so F^_a = (8 e_a - 2 e_a) / (4 e_a + N).
    With |A| = |B| this is 1 although the classifier is useless (documented caveat)."""
    X = np.array([[0.5], [-1.0], [2.0], [0.1]])
    y = np.array([1, 1, -1, -1])
    assert objective_value("F", X, y, [0.0, 0.0], 7.0) == pytest.approx(6 * 2 / (4 * 2 + 4))
    assert objective_value("F", X, y, [0.0, 0.0], 7.0) == pytest.approx(1.0)
    y3 = np.array([1, -1, -1, -1])
    assert objective_value("F", X, y3, [0.0, 0.0], 7.0) == pytest.approx(6 / 8)


def test_approximated_f_exceeds_one_when_class_a_outputs_are_moderate():
    """Hand-computed: psi = 0.5 on A and -1 on B gives F^_a = (8 e - 2 e 0.25) / (4 e + 2.25 e)
    = 7.5 / 6.25 = 1.2 > 1, the exact F-score being 1 (documented caveat)."""
    X = np.array([[1.0], [1.0], [-1e4], [-1e4]])
    y = [1, 1, -1, -1]
    gamma = float(np.arctanh(0.5))
    assert objective_value("F", X, y, [0.0, 1.0], gamma) == pytest.approx(1.2, rel=1e-12)
    assert exact_value("F", X, y, [0.0, 1.0]) == 1.0


def test_hand_example_perfect_separation():
    X = np.array([[1.0], [2.0], [-1.0]])
    y = [1, 1, -1]
    assert objective_value("F", X, y, [0.0, 1.0], 50.0) == pytest.approx(1.0, abs=1e-12)
    assert objective_value("delta", X, y, [0.0, 1.0], 50.0) == pytest.approx(0.0, abs=1e-12)
    # the same with 0/1 labels
    assert objective_value("F", X, [1, 1, 0], [0.0, 1.0], 50.0) == pytest.approx(1.0)


def test_sample_weight_equals_duplicated_rows():
    X, y, w = _data(8, n=20, d=2)
    counts = np.arange(1, 21) % 3  # includes zero weights
    counts[:2] = 1
    Xr, yr = np.repeat(X, counts, axis=0), np.repeat(y, counts)
    for name in OBJECTIVES:
        v1, g1 = value_and_gradient(name, X, y, w, 2.5, sample_weight=counts)
        v2, g2 = value_and_gradient(name, Xr, yr, w, 2.5)
        assert v1 == pytest.approx(v2, rel=1e-12)
        np.testing.assert_allclose(g1, g2, rtol=1e-10, atol=1e-13)


def test_direction_of_each_criterion():
    assert not is_maximized("delta")
    assert all(is_maximized(o) for o in ("recall", "f", "F", "F_b"))


def test_problem_holds_private_read_only_copies():
    X, y, w = _data(1)
    X0, y0 = X.copy(), y.copy()
    p = Problem.build("F", X, y, 2.0)
    assert not p.X.flags.writeable and not p.is_a.flags.writeable
    X[0, 0] = 99.0
    assert p.X[0, 0] == X0[0, 0]
    objective_value("F", X0, y0, w, 2.0)
    np.testing.assert_array_equal(y, y0)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"y": [1, 2, 1, 2]}, ValueError, r"\{-1, \+1\}.*\{0, 1\}.*found values \[1, 2\]"),
        ({"y": [1, 1, 1, 1]}, ValueError, "no examples of class b"),
        ({"y": [-1, -1, -1, -1]}, ValueError, r"no examples of class a \(label 1\)"),
        ({"y": [0, 0, 0, 0]}, ValueError, "no examples of class a"),
        ({"y": ["a", "b", "a", "b"]}, TypeError, "labels in"),
        ({"X": [[1.0], [np.nan], [0.0], [2.0]]}, ValueError, "X contains 1 NaN"),
        ({"gamma": 0.0}, ValueError, "gamma must be a finite number > 0"),
        ({"gamma": -2.0}, ValueError, "gamma"),
        ({"gamma": float("inf")}, ValueError, "gamma"),
        ({"objective": "mse"}, ValueError, r"objective must be one of \['delta'"),
        ({"w": [0.0, 1.0, 2.0]}, ValueError, r"w must have d \+ 1 = 2 entries"),
        ({"y": [1, -1, 1]}, ValueError, "same number of samples"),
    ],
)
def test_bad_input_names_argument_and_expectation(kwargs, error, message):
    args = {
        "objective": "F",
        "X": [[1.0], [0.5], [0.0], [2.0]],
        "y": [1, -1, 1, -1],
        "w": [0.0, 1.0],
        "gamma": 1.0,
    }
    args.update(kwargs)
    with pytest.raises(error, match=message):
        objective_value(args["objective"], args["X"], args["y"], args["w"], args["gamma"])
