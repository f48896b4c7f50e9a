"""ThresholdResult: pickling, deep copies, and applying a top-k rule."""

from __future__ import annotations

import copy
import pickle

import numpy as np

from fmacro import optimize

SCORES = np.array([[0.9, 0.1, 0.5], [0.2, 0.8, 0.7], [0.3, 0.2, 0.9], [0.6, 0.4, 0.1]])
LABELS = np.array([[1, 0, 1], [0, 1, 0], [0, 0, 1], [1, 0, 0]])


def test_results_pickle_and_deepcopy_stay_read_only() -> None:
    result = optimize.fixed_point(SCORES, LABELS)
    for clone in (pickle.loads(pickle.dumps(result)), copy.deepcopy(result)):
        assert clone.f == result.f and clone.upper_bound == result.upper_bound
        assert np.array_equal(clone.thresholds, result.thresholds)
        assert not clone.thresholds.flags.writeable
        assert set(clone.diagnostics) == set(result.diagnostics)
        assert np.array_equal(clone.apply(SCORES), result.apply(SCORES))


def test_top_k_result_applies_its_per_object_rule() -> None:
    result = optimize.top_k(SCORES, LABELS)
    k = int(result.diagnostics["k"])
    predicted = result.apply(SCORES)
    assert (predicted.sum(axis=1) == k).all()
    assert np.array_equal(predicted, optimize.predict_top_k(SCORES, k))
    # each object's k highest scores are the predicted ones
    top = np.argsort(-SCORES, axis=1, kind="stable")[:, :k]
    assert all(set(np.flatnonzero(row)) == set(t) for row, t in zip(predicted, top, strict=True))
