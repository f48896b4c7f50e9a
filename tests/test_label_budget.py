"""Issue 30 item 3: a label budget per object (``max_labels``).

``ThresholdResult.apply(scores, max_labels=k)``, ``cap_labels``,
``FMacroThresholdClassifier(max_labels=k)`` and ``fmacro apply --max-labels K`` keep in each
object at most its ``k`` highest-scored predicted labels (equal scores: the lower column;
a missing sparse entry ranks below every stored one). Right answers are worked out by hand
or by a plain-Python oracle of the rule.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from fmacro.cli import main
from fmacro.optimize import ThresholdResult, fixed_point, top_k
from fmacro.optimize.label_budget import apply_with_budget, cap_labels, check_max_labels
from fmacro.optimize.rules import PerClassThresholds

SCORES = np.array(
    [
        [0.9, 0.2, 0.7, 0.4],  # predicts 0, 1, 2, 3
        [0.3, 0.3, 0.3, 0.8],  # a three-way tie at 0.3
        [0.0, 0.0, 0.0, 0.0],  # predicts nothing
        [0.5, 0.6, 0.1, 0.2],  # predicts all four
    ]
)
THRESHOLDS = np.array([0.1, 0.1, 0.1, 0.2])


def result(thresholds: Any = THRESHOLDS, classes: Any = None) -> ThresholdResult:
    """A result with the given thresholds (its other fields do not matter to apply)."""
    thr = np.asarray(thresholds, dtype=np.float64)
    res = ThresholdResult(
        thresholds=thr,
        cuts=np.zeros(thr.size, dtype=np.int64),
        precision=0.5,
        recall=0.5,
        f=0.5,
        upper_bound=float("nan"),
        gap=float("nan"),
        method="test",
        beta=1.0,
        zero_division=0.0,
    )
    return res if classes is None else res.with_classes(classes)


def oracle(scores: np.ndarray, predicted: np.ndarray, k: int) -> np.ndarray:
    """The rule, one row at a time in plain Python (dense scores)."""
    out = np.zeros_like(predicted, dtype=bool)
    for i in range(scores.shape[0]):
        cols = [j for j in range(scores.shape[1]) if predicted[i, j]]
        cols.sort(key=lambda j: (-scores[i, j], j))
        out[i, cols[:k]] = True
    return out


# ------------------------------------------------------------------ hand-computed cases


def test_hand_computed_k2() -> None:
    got = result().apply(SCORES, max_labels=2)
    assert got.dtype == bool
    assert got.astype(int).tolist() == [
        [1, 0, 1, 0],  # 0.9 and 0.7
        [1, 0, 0, 1],  # 0.8, then the tie at 0.3 goes to the lowest column, 0
        [0, 0, 0, 0],  # nothing predicted: nothing added
        [1, 1, 0, 0],  # 0.6 and 0.5
    ]


def test_hand_computed_k1_and_ties() -> None:
    got = result().apply(SCORES, max_labels=1)
    assert got.astype(int).tolist() == [[1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0], [0, 1, 0, 0]]
    # the tie alone: [0.3, 0.3, 0.3] with k=2 keeps columns 0 and 1
    tie = np.array([[0.3, 0.3, 0.3]])
    assert cap_labels(tie, np.ones((1, 3), bool), 2).tolist() == [[True, True, False]]


def test_k_at_least_the_number_of_classes_changes_nothing() -> None:
    res = result()
    plain = res.apply(SCORES)
    for k in (4, 5, 1000):
        assert np.array_equal(res.apply(SCORES, max_labels=k), plain)
    assert np.array_equal(res.apply(SCORES, max_labels=None), plain)


def test_the_cap_never_adds_a_label() -> None:
    res = result([0.95, 0.95, 0.95, 0.95])  # nothing reaches these thresholds
    assert not res.apply(SCORES, max_labels=2).any()


def test_sparse_equals_dense() -> None:
    s = sp.csr_matrix(SCORES)  # row 2 stores nothing; all thresholds > 0
    for k in (1, 2, 3):
        assert np.array_equal(result().apply(s, max_labels=k), result().apply(SCORES, max_labels=k))
    csc = sp.csc_matrix(SCORES)
    assert np.array_equal(result().apply(csc, max_labels=2), result().apply(SCORES, max_labels=2))


def test_sparse_missing_entries_rank_last() -> None:
    # a -inf threshold predicts column 2 for every row, stored or not
    s = sp.csr_matrix(np.array([[0.0, 0.2, 0.0, 0.1], [0.5, 0.0, 0.4, 0.0]]))
    res = result([0.1, 0.1, -np.inf, 0.1])
    assert res.apply(s).astype(int).tolist() == [[0, 1, 1, 1], [1, 0, 1, 0]]
    # row 0: stored 0.2 and 0.1 beat the missing entry of column 2
    assert res.apply(s, max_labels=2).astype(int).tolist() == [[0, 1, 0, 1], [1, 0, 1, 0]]
    assert res.apply(s, max_labels=1).astype(int).tolist() == [[0, 1, 0, 0], [1, 0, 0, 0]]
    # two missing predicted entries: the lower column first
    res2 = result([-np.inf, 0.1, -np.inf, 0.1])
    z = sp.csr_matrix((1, 4))
    assert res2.apply(z, max_labels=1).astype(int).tolist() == [[1, 0, 0, 0]]


def test_dataframe_in_dataframe_out() -> None:
    frame = pd.DataFrame(SCORES, index=["w", "x", "y", "z"], columns=["a", "b", "c", "d"])
    got = result(classes=["a", "b", "c", "d"]).apply(frame, max_labels=2)
    assert isinstance(got, pd.DataFrame)
    assert got.index.tolist() == ["w", "x", "y", "z"]
    assert got.columns.tolist() == ["a", "b", "c", "d"]
    assert all(dtype == np.dtype(bool) for dtype in got.dtypes)
    assert np.array_equal(got.to_numpy(), result().apply(SCORES, max_labels=2))
    # its columns are still checked against the result's names
    with pytest.raises(ValueError, match="scores"):
        result(classes=["a", "b", "c", "d"]).apply(frame[["b", "a", "c", "d"]], max_labels=2)


def test_caller_arrays_unchanged() -> None:
    scores = SCORES.copy()
    predicted = result().apply(scores)
    before_pred = predicted.copy()
    cap_labels(scores, predicted, 1)
    result().apply(scores, max_labels=1)
    assert np.array_equal(scores, SCORES)
    assert np.array_equal(predicted, before_pred)
    s = sp.csr_matrix(SCORES)
    data = s.data.copy()
    result().apply(s, max_labels=1)
    assert np.array_equal(s.data, data)
    frame = pd.DataFrame(SCORES)
    result().apply(frame, max_labels=1)
    assert np.array_equal(frame.to_numpy(), SCORES)


def test_top_k_result_with_a_smaller_budget() -> None:
    labels = (SCORES > 0.35).astype(int)
    labels[2, 0] = 1
    res = top_k(SCORES, labels, k_max=3)
    k = res.rule.k
    capped = res.apply(SCORES, max_labels=1)
    assert np.array_equal(capped, res.apply(SCORES) & oracle(SCORES, res.apply(SCORES), 1))
    assert capped.sum(axis=1).max() <= min(1, k)


def test_the_docstring_example_of_fixed_point() -> None:
    scores = np.array([[0.6, 0.9], [0.5, 0.7], [0.4, 0.6], [0.3, 0.4], [0.2, 0.3], [0.1, 0.2]])
    labels = np.array([[1, 1], [1, 0], [0, 1], [1, 0], [0, 0], [1, 1]])
    res = fixed_point(scores, labels)
    new = np.array([[0.55, 0.1], [0.5, 0.2]])
    assert res.apply(new, max_labels=1).tolist() == [[True, False], [True, False]]


@pytest.mark.parametrize(
    ("bad", "error"),
    [(0, ValueError), (-1, ValueError), (2.0, TypeError), (True, TypeError), ("2", TypeError)],
)
def test_bad_max_labels_refused(bad: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match="max_labels"):
        result().apply(SCORES, max_labels=bad)
    with pytest.raises(error, match="max_labels"):
        cap_labels(SCORES, SCORES > 0, bad)
    with pytest.raises(error, match="max_labels"):
        check_max_labels(bad)


def test_numpy_integer_budget_and_shape_mismatch() -> None:
    assert check_max_labels(np.int64(3)) == 3
    assert check_max_labels(None) is None
    with pytest.raises(ValueError, match="shape"):
        cap_labels(SCORES, np.ones((2, 4), bool), 1)
    rule = PerClassThresholds(THRESHOLDS)
    assert np.array_equal(apply_with_budget(rule, SCORES, None), rule.apply(SCORES))


# ------------------------------------------------------------------ the property


@st.composite
def capped_case(draw: Any) -> tuple[np.ndarray, np.ndarray, int]:
    n = draw(st.integers(1, 8))
    m = draw(st.integers(1, 8))
    # few distinct values: ties are common
    values = st.sampled_from([-1.0, 0.0, 0.25, 0.5, 0.75, 1.0])
    scores = draw(arrays(np.float64, (n, m), elements=values))
    thresholds = draw(
        arrays(np.float64, (m,), elements=st.sampled_from([-np.inf, 0.0, 0.25, 0.5, np.inf]))
    )
    k = draw(st.integers(1, m + 2))
    return scores, thresholds, k


@settings(max_examples=200, deadline=None)
@given(capped_case(), st.booleans())
def test_property_budget(case: tuple[np.ndarray, np.ndarray, int], sparse: bool) -> None:
    scores, thresholds, k = case
    res = result(thresholds)
    if sparse:
        # the dense twin of a sparse matrix: its missing entries rank below all stored
        s_in: Any = sp.csr_matrix(scores)
        ranked = np.where(scores != 0.0, scores, -np.inf)
    else:
        s_in, ranked = scores, scores
    plain = res.apply(s_in)
    capped = res.apply(s_in, max_labels=k)
    # every row has at most k labels, and as many as it can
    assert (capped.sum(axis=1) == np.minimum(plain.sum(axis=1), k)).all()
    # each kept label is predicted without the cap
    assert not (capped & ~plain).any()
    # no dropped label outscores a kept one (equal scores: the kept one has the lower column)
    for i in range(scores.shape[0]):
        kept = np.flatnonzero(capped[i])
        dropped = np.flatnonzero(plain[i] & ~capped[i])
        for d in dropped:
            for j in kept:
                assert (ranked[i, j], -j) > (ranked[i, d], -d)
    assert np.array_equal(capped, oracle(ranked, plain, k))


# ------------------------------------------------------------------ the estimator


def _multilabel_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(30)
    Y = (rng.random((120, 6)) < 0.4).astype(np.int64)
    Y[:6] = np.eye(6, dtype=np.int64)
    X = Y * 1.5 + rng.normal(size=Y.shape)
    return X, Y


def test_estimator_applies_the_budget() -> None:
    from sklearn.base import clone
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier

    from fmacro.optimize.sklearn import FMacroThresholdClassifier

    X, Y = _multilabel_data()
    clf = FMacroThresholdClassifier(
        OneVsRestClassifier(LogisticRegression()), method="per_class", cv=3, max_labels=2
    )
    assert clf.get_params()["max_labels"] == 2
    assert clone(clf).get_params()["max_labels"] == 2
    clf.fit(X, Y)
    pred = clf.predict(X)
    assert pred.dtype == Y.dtype
    assert pred.sum(axis=1).max() <= 2
    scores = clf.predict_proba(X)
    assert np.array_equal(pred, clf.threshold_result_.apply(scores, max_labels=2))
    assert np.array_equal(clf.predict_indicator(X), pred.astype(bool))
    # read at predict time: no refit needed
    clf.set_params(max_labels=None)
    uncapped = clf.predict(X)
    assert uncapped.sum(axis=1).max() > 2  # the budget did bind
    assert np.array_equal(uncapped, clf.threshold_result_.apply(scores))
    clf.set_params(max_labels=1)
    assert clf.predict(X).sum(axis=1).max() <= 1
    assert 0.0 <= clf.score(X, Y) <= 1.0


@pytest.mark.parametrize(("bad", "error"), [(0, ValueError), (1.5, TypeError), (True, TypeError)])
def test_estimator_refuses_bad_budgets(bad: Any, error: type[Exception]) -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier

    from fmacro.optimize.sklearn import FMacroThresholdClassifier

    X, Y = _multilabel_data()
    with pytest.raises(error, match="max_labels"):
        FMacroThresholdClassifier(
            OneVsRestClassifier(LogisticRegression()), cv=3, max_labels=bad
        ).fit(X, Y)
    clf = FMacroThresholdClassifier(OneVsRestClassifier(LogisticRegression()), cv=3).fit(X, Y)
    clf.set_params(max_labels=bad)
    with pytest.raises(error, match="max_labels"):
        clf.predict(X)


def test_estimator_multiclass_ignores_the_budget() -> None:
    from sklearn.linear_model import LogisticRegression

    from fmacro.optimize.sklearn import FMacroThresholdClassifier

    rng = np.random.default_rng(3)
    y = rng.integers(0, 4, 100)
    X = np.eye(4)[y] + rng.normal(scale=0.8, size=(100, 4))
    plain = FMacroThresholdClassifier(LogisticRegression(), cv=3).fit(X, y)
    capped = FMacroThresholdClassifier(LogisticRegression(), cv=3, max_labels=1).fit(X, y)
    assert np.array_equal(plain.predict(X), capped.predict(X))
    assert np.array_equal(plain.predict_indicator(X), capped.predict_indicator(X))


# ------------------------------------------------------------------ the command line


def test_cli_apply_max_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result(classes=["a", "b", "c", "d"]).save("thr.json")
    np.savez("test.npz", scores=SCORES)
    assert main(["apply", "thr.json", "test.npz", "-o", "plain.npy"]) == 0
    plain_out = capsys.readouterr().out
    assert "12 positive predictions, 3.0000 labels per object" in plain_out
    assert main(["apply", "thr.json", "test.npz", "-o", "pred.npz", "--max-labels", "2"]) == 0
    out = capsys.readouterr().out
    assert "6 positive predictions, 1.5000 labels per object" in out
    assert "at most 2; the cap dropped 6 predictions" in out
    with np.load("pred.npz") as saved:
        assert np.array_equal(saved["predicted"], result().apply(SCORES, max_labels=2))
    # .npy scores give the same
    np.save("test.npy", SCORES)
    assert main(["apply", "thr.json", "test.npy", "-o", "p.npy", "--max-labels", "1"]) == 0
    capsys.readouterr()
    assert np.array_equal(np.load("p.npy"), result().apply(SCORES, max_labels=1))
    # sparse scores in an npz take the sparse path
    from fmacro.optimize.io import save_scores_npz

    sparse_scores = sp.csr_matrix(SCORES)
    save_scores_npz("sparse.npz", sparse_scores, sp.csr_matrix(SCORES > 0.5))
    assert main(["apply", "thr.json", "sparse.npz", "-o", "ps.npz", "--max-labels", "2"]) == 0
    capsys.readouterr()
    with np.load("ps.npz") as saved:
        assert np.array_equal(saved["predicted"], result().apply(sparse_scores, max_labels=2))
        assert np.array_equal(saved["predicted"], result().apply(SCORES, max_labels=2))


@pytest.mark.parametrize("bad", ["0", "-1", "2.5", "x"])
def test_cli_bad_max_labels_exit_2(
    bad: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result().save("thr.json")
    np.savez("test.npz", scores=SCORES)
    with pytest.raises(SystemExit) as exc:
        main(["apply", "thr.json", "test.npz", "-o", "pred.npy", "--max-labels", bad])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--max-labels" in err
    assert err.strip().splitlines()[-1].startswith("fmacro apply: error: argument --max-labels")
