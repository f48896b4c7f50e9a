"""Algorithm 1: random search, adaptive gradient steps, stop rules, determinism, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fmacro.optimize.fdelta import Problem, exact_value, generate, objective_value, train
from fmacro.optimize.fdelta.training import random_search


@pytest.fixture(scope="module")
def lns():
    return generate("LNS", 1.0, 400, d=5, seed=4)


@pytest.mark.parametrize("objective", ["F", "delta", "f", "F_b", "recall"])
def test_training_improves_the_criterion_monotonically(lns, objective):
    X, y = lns
    model = train(X, y, objective=objective, gamma=4.0, step=0.05, seed=1)
    h = model.history
    steps = np.diff(h)
    if objective == "delta":
        assert np.all(steps < 0) and h[-1] < h[0]
    else:
        assert np.all(steps > 0) and h[-1] > h[0]
    assert objective_value(objective, X, y, model.w, 4.0) == pytest.approx(h[-1])


def test_separated_clusters():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(2.0, 0.3, (50, 2)), rng.normal(-2.0, 0.3, (150, 2))])
    y = np.r_[np.ones(50), -np.ones(150)]
    assert exact_value("F", X, y, train(X, y, objective="delta", gamma=2.0, seed=0).w) == 1.0
    # F-Delta from a perfect, saturated separator: the approximated F^_a grows past 1
    # (it rewards class-a outputs near psi = 0.24, not +1), so training moves the
    # hyperplane towards class a; exact F stays high but is no longer guaranteed 1.
    start = np.array([0.0, 0.5, 0.5])
    assert exact_value("F", X, y, start) == 1.0
    model = train(X, y, objective="F", gamma=2.0, init=start)
    assert model.history[0] == pytest.approx(1.0, abs=1e-2)
    assert model.history[-1] > 1.1
    assert exact_value("F", X, y, model.w) > 0.8


@settings(max_examples=15, deadline=None)
@given(max_iter=st.integers(0, 30), seed=st.integers(0, 1000))
def test_max_iter_is_respected(lns, max_iter, seed):
    X, y = lns
    model = train(X, y, gamma=4.0, step=0.05, seed=seed, max_iter=max_iter, epsilon=0.0)
    assert model.n_iter <= max_iter
    assert len(model.history) == model.n_iter + 1
    if model.stop_reason == "max_iter":
        assert model.n_iter == max_iter


@settings(max_examples=15, deadline=None)
@given(epsilon=st.floats(0.01, 0.9), seed=st.integers(0, 1000))
def test_epsilon_stop_rule(lns, epsilon, seed):
    """Stops at the first iteration whose gain is below epsilon x the first gain."""
    X, y = lns
    model = train(X, y, gamma=4.0, step=0.05, seed=seed, epsilon=epsilon)
    gains = np.abs(np.diff(model.history))
    if model.stop_reason == "epsilon":
        assert gains[-1] < epsilon * gains[0]
        assert np.all(gains[1:-1] >= epsilon * gains[0])
    else:
        assert np.all(gains[1:] >= epsilon * gains[0])


def test_zero_epsilon_never_stops_on_gains(lns):
    X, y = lns
    model = train(X, y, gamma=4.0, step=0.05, seed=0, epsilon=0.0, max_iter=200)
    assert model.stop_reason in ("max_iter", "no_improvement")


def test_max_iter_zero_returns_the_start(lns):
    X, y = lns
    init = np.linspace(-0.5, 0.5, X.shape[1] + 1)
    model = train(X, y, init=init, max_iter=0)
    np.testing.assert_array_equal(model.w, init)
    assert model.stop_reason == "no_iterations" and model.n_iter == 0


def test_random_search_keeps_the_best_candidate(lns):
    X, y = lns
    problem = Problem.build("F", X, y, 4.0)
    best = random_search(problem, 30, np.random.default_rng(5))
    candidates = np.random.default_rng(5).uniform(-1, 1, size=(30, X.shape[1] + 1))
    values = [problem.value(w) for w in candidates]
    np.testing.assert_array_equal(best, candidates[int(np.argmax(values))])
    model = train(X, y, gamma=4.0, seed=5, random_trials=30, max_iter=0)
    np.testing.assert_array_equal(model.w, best)


def test_seeded_determinism_and_init_skips_search(lns):
    X, y = lns
    a = train(X, y, gamma=4.0, seed=9)
    b = train(X, y, gamma=4.0, seed=9)
    c = train(X, y, gamma=4.0, seed=10)
    np.testing.assert_array_equal(a.w, b.w)
    assert not np.array_equal(a.w, c.w)
    init = a.w
    d = train(X, y, gamma=4.0, init=init, seed=1, random_trials=1)
    e = train(X, y, gamma=4.0, init=a, seed=2, random_trials=500)
    np.testing.assert_array_equal(d.w, e.w)


def test_inputs_are_not_modified(lns):
    X, y = np.array(lns.X), np.array(lns.y)
    X0, y0 = X.copy(), y.copy()
    init = np.zeros(X.shape[1] + 1)
    train(X, y, init=init, max_iter=5)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)
    np.testing.assert_array_equal(init, 0.0)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"step": 0.0}, ValueError, "step must lie in"),
        ({"epsilon": -0.1}, ValueError, "epsilon must lie in"),
        ({"max_iter": -1}, ValueError, "max_iter must be an integer >= 0"),
        ({"random_trials": 0}, ValueError, "random_trials must be an integer >= 1"),
        ({"shrink": 1.0}, ValueError, "shrink"),
        ({"grow": 0.5}, ValueError, "grow"),
        ({"init": [0.0, 1.0]}, ValueError, r"init must have d \+ 1 = 4 entries"),
        ({"objective": "F1"}, ValueError, "objective must be one of"),
        ({"gamma": 0}, ValueError, "gamma must be a finite number > 0"),
    ],
)
def test_bad_training_arguments(kwargs, error, message):
    X = np.random.default_rng(0).normal(size=(20, 3))
    y = np.r_[np.ones(10), -np.ones(10)]
    with pytest.raises(error, match=message):
        train(X, y, **kwargs)


def test_bad_labels_and_features():
    X = np.random.default_rng(0).normal(size=(6, 2))
    with pytest.raises(ValueError, match=r"\{-1, \+1\}.*or \{0, 1\}"):
        train(X, [0, 1, 2, 0, 1, 2])
    with pytest.raises(ValueError, match="no examples of class a"):
        train(X, [-1] * 6)
    X[2, 1] = np.nan
    with pytest.raises(ValueError, match="X contains 1 NaN"):
        train(X, [1, -1] * 3)
