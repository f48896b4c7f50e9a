"""The Perceptron: decisions, label encodings, read-only state, BinFValidation plumbing."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import f1_score

from fmacro.optimize.fdelta import Perceptron, generate, train
from fmacro.validation import BinFValidation


def test_decision_function_and_predict_follow_eqs_1_to_6():
    model = Perceptron(weights=[2.0, -1.0], bias=0.5, gamma=3.0)
    X = np.array([[1.0, 0.0], [0.0, 1.0], [0.25, 0.0], [1.0, 1.5]])
    act = 3.0 * (X @ np.array([2.0, -1.0]) - 0.5)  # [4.5, -4.5, 0, 0]
    np.testing.assert_allclose(model.activation(X), act)
    np.testing.assert_allclose(model.decision_function(X), np.tanh(act))
    # psi >= 0 is class a (+1): the two points on the hyperplane go to class a
    np.testing.assert_array_equal(model.predict(X), [1, -1, 1, 1])
    assert model.predict(X[1]) == -1 and isinstance(model.predict(X[1]), int)
    assert model.decision_function(X[0]) == pytest.approx(np.tanh(4.5))
    np.testing.assert_array_equal(model.w, [0.5, 2.0, -1.0])


def test_predict_answers_in_the_training_encoding():
    X, y = generate("LS", 1.0, 200, d=3, seed=1)
    y01 = (y == 1).astype(int)
    m_pm = train(X, y, gamma=5.0, seed=0, max_iter=20)
    m_01 = train(X, y01, gamma=5.0, seed=0, max_iter=20)
    assert m_pm.labels == (1, -1) and m_01.labels == (1, 0)
    assert set(np.unique(m_01.predict(X))) <= {0, 1}
    np.testing.assert_array_equal(m_01.predict(X), (m_pm.predict(X) == 1).astype(int))


def test_state_is_read_only_and_private():
    w = np.array([1.0, 2.0])
    model = Perceptron(weights=w, bias=0.0, history=[0.1, 0.2])
    w[0] = 100.0
    assert model.weights[0] == 1.0
    assert not model.weights.flags.writeable and not model.history.flags.writeable
    with pytest.raises(AttributeError):
        model.bias = 3.0  # type: ignore[misc]


def test_bad_shapes_are_refused():
    model = Perceptron(weights=[1.0, 2.0], bias=0.0)
    with pytest.raises(ValueError, match=r"X must have shape \(n, 2\)"):
        model.predict(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="one observation must have 2 features"):
        model.predict([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="NaN"):
        model.predict([[np.nan, 1.0]])


def test_plugs_into_bin_f_validation_three_ways():
    X, y = generate("LNS", 0.5, 300, d=4, seed=2)
    model = train(X, y, objective="F", gamma=8.0, seed=3)
    pred = model.predict(X)
    expected_f = f1_score(y, pred, pos_label=1)
    per_obs = BinFValidation(y, X, model.predict)  # per-observation callable, as in the book
    batched = BinFValidation(y, X, model.predict, batched=True)
    direct = BinFValidation.from_predictions(y, pred)
    for v in (per_obs, batched, direct):
        assert v.f1 == pytest.approx(expected_f)
    assert per_obs.counts == batched.counts == direct.counts
    # 0/1 encoding with positive=1 works the same way
    model01 = train(X, (y == 1).astype(int), objective="F", gamma=8.0, seed=3)
    v01 = BinFValidation(np.asarray(y == 1, dtype=int), X, model01.predict, batched=True)
    assert v01.f1 == pytest.approx(expected_f)
