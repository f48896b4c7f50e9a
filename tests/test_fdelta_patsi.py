"""PATSI pieces: Jaccard neighbours, threshold tuning, and a small end-to-end run."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse

from fmacro.optimize.fdelta.patsi import (
    METHODS,
    best_threshold,
    jaccard_neighbors,
    load_corel5k,
    one_fold_split,
    patsi_experiment,
)


def _brute_neighbors(Q, R, m, exclude=None):
    out = []
    for i, q in enumerate(Q):
        sims = []
        for j, r in enumerate(R):
            if exclude is not None and exclude[i] == j:
                continue
            inter = np.sum(q & r)
            union = np.sum(q | r)
            sims.append((-(inter / union if union else 0.0), j))
        out.append([j for _, j in sorted(sims)[:m]])
    return np.array(out)


def test_jaccard_neighbors_match_brute_force_with_ties_by_index():
    rng = np.random.default_rng(0)
    R = rng.random((40, 12)) < 0.25
    Q = rng.random((15, 12)) < 0.25
    R[5] = False  # an empty row
    got = jaccard_neighbors(sparse.csr_matrix(Q.astype(float)), R.astype(float), 6, chunk=4)
    np.testing.assert_array_equal(got, _brute_neighbors(Q, R, 6))
    own = jaccard_neighbors(R.astype(float), R.astype(float), 5, exclude_self=np.arange(40))
    np.testing.assert_array_equal(own, _brute_neighbors(R, R, 5, exclude=np.arange(40)))
    assert not np.any(own == np.arange(40)[:, None])


def test_best_threshold_matches_brute_force():
    rng = np.random.default_rng(1)
    for _ in range(20):
        scores = rng.integers(0, 6, size=30) / 2.0
        pos = rng.random(30) < 0.4
        w = rng.integers(1, 4, size=30).astype(float)
        t = best_threshold(scores, pos, w)

        def f1(thr, scores=scores, pos=pos, w=w):
            pred = scores >= thr
            tp = w[pred & pos].sum()
            fp = w[pred & ~pos].sum()
            fn = w[~pred & pos].sum()
            return 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0

        grid = np.concatenate(([scores.min() - 1], np.unique(scores), [scores.max() + 1]))
        assert f1(t) == pytest.approx(max(f1(g) for g in grid))
        assert not np.any(np.isclose(t, scores))  # a midpoint, never on a score


def test_one_fold_split_is_a_partition():
    tr, va = one_fold_split(101, 0.1, seed=3)[0]
    assert va.shape[0] == 10
    np.testing.assert_array_equal(np.sort(np.concatenate([tr, va])), np.arange(101))


def test_patsi_on_a_small_planted_problem():
    """Images with feature j present carry word j: neighbours share words, every method
    should be far above chance, and results are reproducible."""
    rng = np.random.default_rng(2)
    n, d, L = 300, 30, 4
    X = (rng.random((n, d)) < 0.1).astype(float)
    Y = np.zeros((n, L), dtype=np.uint8)
    for k in range(L):
        X[rng.random(n) < 0.25 / (k + 1), k] = 1.0
        Y[:, k] = X[:, k] > 0
    res = patsi_experiment(sparse.csr_matrix(X), Y, m=5, progress=False, max_iter=100)
    assert tuple(res.word_f) == METHODS
    assert res.words.tolist() == list(np.argsort(-Y.sum(axis=0), kind="stable"))
    assert res.subsets == (None,)
    for method in METHODS:
        assert res.score(method, None) > 0.5
    again = patsi_experiment(sparse.csr_matrix(X), Y, m=5, progress=False, max_iter=100)
    for method in METHODS:
        np.testing.assert_array_equal(res.word_f[method], again.word_f[method])
    assert "| F-Delta |" in res.table()


def test_corel5k_loads_and_runs_on_a_few_words():
    X, Y = load_corel5k()
    assert X.shape == (5000, 499) and Y.shape == (5000, 374)
    res = patsi_experiment(X, Y, m=5, max_words=3, subsets=(3, None), progress=False, max_iter=50)
    assert res.words.shape == (3,)
    assert res.words[0] == int(np.argmax(Y.sum(axis=0)))
    assert all(0.0 <= res.score(mth, None) <= 1.0 for mth in METHODS)
