"""The siblings of issue 26's defects: the same boundary, in the places the first round
did not reach.

Each test pins one refusal (exact error type, the argument named, the true value shown) or
one value that used to come out wrong silently; valid input keeps its results.
"""

from __future__ import annotations

import copy
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from fmacro import crossval, optimize
from fmacro.optimize import fdelta, synthetic
from fmacro.optimize.fdelta import patsi
from fmacro.optimize.fdelta._inputs import as_sample_weight, check_gamma
from fmacro.optimize.fdelta.objectives import Problem
from fmacro.optimize.io import read_rule
from fmacro.validation import ConfusionMatrix, MultiLabelFValidation, SparseConfusionMatrix
from fmacro.validation.checks import as_float_array, check_seed
from fmacro.validation.io import LabelPair, read_label_files, read_label_pair, read_labels
from fmacro.validation.sklearn import f_macro_score, f_macro_scorer

INT64_MAX = 2**63 - 1
SCORES = np.array(
    [[0.9, 0.1, 0.4], [0.8, 0.7, 0.2], [0.3, 0.6, 0.8], [0.2, 0.4, 0.9], [0.6, 0.2, 0.1]]
)
LABELS = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 1], [0, 0, 1], [0, 0, 0]])


# --------------------------------------------------------------------------- 1. LabelPair


def _write_indicators(tmp_path: Path) -> tuple[Path, Path]:
    e, p = tmp_path / "y.csv", tmp_path / "p.csv"
    e.write_text("a,b,c\n1,0,0\n1,1,0\n0,1,1\n0,0,1\n")
    p.write_text("a,b,c\n1,0,1\n0,1,0\n0,1,1\n0,0,0\n")
    return e, p


def test_label_pair_arrays_are_read_only_also_in_copies(tmp_path: Path) -> None:
    pair = read_label_pair(*_write_indicators(tmp_path))
    assert pair.classes == ("a", "b", "c")
    for twin in (pair, pickle.loads(pickle.dumps(pair)), copy.deepcopy(pair)):
        assert twin == pair
        for arr in (twin.expected, twin.predicted):
            with pytest.raises(ValueError, match="read-only"):
                arr[0, 0] = 5
    assert pair.expected.tolist() == [[1, 0, 0], [1, 1, 0], [0, 1, 1], [0, 0, 1]]


def test_label_pair_never_aliases_a_callers_array() -> None:
    owned = np.array([0, 1, 1])
    pair = LabelPair(owned, owned[::-1])
    owned[0] = 7
    assert pair.expected.tolist() == [0, 1, 1]
    assert not np.shares_memory(pair.expected, owned)


def test_the_tuple_readers_still_hand_out_writeable_arrays(tmp_path: Path) -> None:
    e, p = read_label_files(*_write_indicators(tmp_path))
    assert e.flags.writeable and p.flags.writeable  # unchanged: the caller owns them


def test_text_indicator_matrices_are_int64(tmp_path: Path) -> None:
    """uint8 indicators scramble scikit-learn's label_binarize past 256 columns."""
    e_path, _ = _write_indicators(tmp_path)
    assert read_labels(e_path).dtype == np.int64
    assert read_label_pair(*_write_indicators(tmp_path)).expected.dtype == np.int64


def test_read_rule_reads_what_save_wrote(tmp_path: Path) -> None:
    result = optimize.per_class(SCORES, LABELS)
    result.save(tmp_path / "thr.json")
    saved = read_rule(tmp_path / "thr.json")
    assert saved.n_columns == 3
    np.testing.assert_array_equal(saved.rule.thresholds, result.thresholds)  # type: ignore[union-attr]


# --------------------------------------------------------------------------- 2. fdelta


def test_fdelta_weights_pass_the_one_weight_check() -> None:
    with pytest.raises(ValueError, match=r"sample_weight sums to 2e\+308, more than 2\*\*1022"):
        as_sample_weight([1e308, 1e308], 2)
    X, y = fdelta.generate("LS", 1.0, 40, seed=0)
    with pytest.raises(ValueError, match=r"sample_weight sums to 4e\+309"):
        Problem.build("F", X, y, 5.0, sample_weight=np.full(40, 1e308))
    with pytest.raises(TypeError, match="sample_weight must hold numbers, got dtype bool"):
        as_sample_weight(np.ones(2, dtype=bool), 2)
    with pytest.raises(ValueError, match="sample_weight has 3 entries, expected 2"):
        as_sample_weight([1.0, 2.0, 3.0], 2)


def test_fdelta_all_zero_weights_stay_refused() -> None:
    """fdelta refused them before (class totals of 0); now by the shared check's words."""
    X, y = fdelta.generate("LS", 1.0, 40, seed=0)
    with pytest.raises(ValueError, match="sample_weight is all zero"):
        Problem.build("F", X, y, 5.0, sample_weight=np.zeros(40))


def test_fdelta_valid_weights_keep_their_values() -> None:
    w = np.array([1, 2, 0, 3])
    out = as_sample_weight(w, 4)
    assert out.dtype == np.float64 and out.tolist() == [1.0, 2.0, 0.0, 3.0]
    assert as_sample_weight(None, 3).tolist() == [1.0, 1.0, 1.0]
    assert w.tolist() == [1, 2, 0, 3]


def test_gamma_does_not_inherit_betas_range() -> None:
    assert check_gamma(2.0**300) == 2.0**300  # beta stops at 2**254
    assert check_gamma(1e-100) == 1e-100
    with pytest.raises(ValueError, match="gamma must be a finite number > 0, got 0"):
        check_gamma(0)
    with pytest.raises(ValueError, match="gamma must be a finite number > 0, got inf"):
        check_gamma(float("inf"))
    with pytest.raises(TypeError, match="gamma must be a real number > 0, got bool"):
        check_gamma(True)


# --------------------------------------------------------------------------- 3. sklearn


def _fitted_classifier() -> tuple[Any, np.ndarray, np.ndarray]:
    from sklearn.linear_model import LogisticRegression

    from fmacro.optimize.sklearn import FMacroThresholdClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=60) > 0).astype(int)
    clf = FMacroThresholdClassifier(LogisticRegression(), objective="macro_f", cv=3)
    return clf.fit(X, y), X, y


def test_classifier_score_checks_its_weights() -> None:
    clf, X, y = _fitted_classifier()
    with pytest.raises(ValueError, match=r"sample_weight sums to 6e\+309, more than 2\*\*1022"):
        clf.score(X, y, sample_weight=np.full(60, 1e308))
    with pytest.raises(ValueError, match="sample_weight has 3 entries, expected 60"):
        clf.score(X, y, sample_weight=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="sample_weight is all zero"):
        clf.score(X, y, sample_weight=np.zeros(60))


def test_classifier_score_with_valid_weights_is_scikit_learns() -> None:
    from sklearn.metrics import fbeta_score

    clf, X, y = _fitted_classifier()
    w = np.arange(60) % 3
    want = fbeta_score(y, clf.predict(X), beta=1.0, average="macro", sample_weight=w)
    assert clf.score(X, y, sample_weight=w) == want


# --------------------------------------------------------------------------- 4. sparse


def test_sparse_sum_refuses_a_cell_past_int64_with_its_true_sum() -> None:
    a = SparseConfusionMatrix(3, [1], [2], [INT64_MAX])
    b = SparseConfusionMatrix(3, [0, 1], [0, 2], [4, 1])
    with pytest.raises(ValueError) as info:
        a + b
    message = str(info.value)
    assert "confusion matrix counts[1, 2]" in message
    assert f"{INT64_MAX} + 1 = {INT64_MAX + 1}" in message
    assert "-9223372036854775808" not in message
    # the dense class says the same of the same cell
    dense = ConfusionMatrix(a.to_dense())
    with pytest.raises(ValueError, match=r"counts\[1, 2\] = 9223372036854775807 \+ 1"):
        dense + ConfusionMatrix(b.to_dense())


def test_sparse_sum_of_fitting_cells_past_int64_names_the_total() -> None:
    a = SparseConfusionMatrix(3, [0], [1], [INT64_MAX - 10])
    b = SparseConfusionMatrix(3, [1], [2], [20])
    with pytest.raises(ValueError, match=f"counts sum to {INT64_MAX + 10}, more than 2\\*\\*63"):
        a + b


def test_sparse_sums_keep_their_values() -> None:
    a = SparseConfusionMatrix.from_dense([[3, 1, 0], [0, 2, 5], [1, 0, 4]])
    b = SparseConfusionMatrix.from_dense([[0, 2, 0], [1, 0, 0], [0, 0, 7]])
    total = a + b
    assert total.to_dense().tolist() == [[3, 3, 0], [1, 2, 5], [1, 0, 11]]
    assert total.counts.dtype == np.int64
    weighted = SparseConfusionMatrix(3, [0, 1], [0, 2], [1.5, 2.0])
    mixed = weighted + a
    assert mixed.counts.dtype == np.float64
    assert mixed.to_dense().tolist() == [[4.5, 1, 0], [0, 2, 7], [1, 0, 4]]


def test_sparse_class_counts_are_exact_past_2_53() -> None:
    big = 2**53 + 1  # float64 rounds it to 2**53
    m = SparseConfusionMatrix(3, [0, 1, 2], [0, 2, 2], [big, 1, big])
    c = m.class_counts()
    assert c.tp.dtype == np.int64
    assert c.tp.tolist() == [big, 0, big]
    assert c.fp.tolist() == [0, 0, 1]
    assert c.fn.tolist() == [0, 1, 0]
    assert c.tn.tolist() == [big + 1, 2 * big, big]
    dense = ConfusionMatrix(m.to_dense()).class_counts()
    for name in ("tp", "fp", "fn", "tn"):
        assert getattr(c, name).tolist() == getattr(dense, name).tolist()


def test_sparse_total_past_int64_is_refused_at_construction() -> None:
    with pytest.raises(ValueError, match=f"counts sum to {INT64_MAX + 1}, more than 2\\*\\*63"):
        SparseConfusionMatrix(3, [0, 1], [0, 2], [INT64_MAX, 1])
    with pytest.raises(ValueError, match=r"counts sum to 8e\+307, more than 2\*\*1022"):
        SparseConfusionMatrix(2, [0, 1], [0, 1], [4e307, 4e307])
    m = SparseConfusionMatrix(3, [0, 1], [0, 2], [INT64_MAX - 1, 1])
    assert m.n_samples == INT64_MAX


# --------------------------------------------------------------------------- 5. seeds


SEEDED = {
    "dense_scores": lambda seed: synthetic.dense_scores(10, 3, seed=seed),
    "calibrated_probabilities": lambda seed: synthetic.calibrated_probabilities(10, 3, seed=seed),
    "extreme_rankings": lambda seed: synthetic.extreme_rankings(10, 5, 2, seed=seed),
    "fdelta.generate": lambda seed: fdelta.generate("LS", 1.0, 40, seed=seed),
    "fdelta.train": lambda seed: fdelta.train(
        *fdelta.generate("LS", 1.0, 40, seed=0), gamma=5.0, seed=seed, max_iter=2
    ),
    "one_fold_split": lambda seed: patsi.one_fold_split(10, seed=seed),
    "patsi_experiment": lambda seed: fdelta.patsi_experiment(
        np.eye(6), np.eye(6)[:, :2], m=2, seed=seed, progress=False
    ),
}


@pytest.mark.parametrize("name", sorted(SEEDED))
def test_a_negative_seed_is_refused_by_name(name: str) -> None:
    with pytest.raises(ValueError, match="seed must be None, a non-negative integer or a numpy"):
        SEEDED[name](-1)
    with pytest.raises(TypeError, match=r"seed must be .*, got the bool True"):
        SEEDED[name](True)


@pytest.mark.parametrize("name", sorted(set(SEEDED) - {"patsi_experiment"}))
def test_seeds_numpy_accepts_give_the_same_draws(name: str) -> None:
    first, again = SEEDED[name](3), SEEDED[name](np.random.default_rng(3))
    a = first if isinstance(first, tuple) else (first,)
    b = again if isinstance(again, tuple) else (again,)
    for x, y in zip(a, b, strict=True):
        x = x.toarray() if hasattr(x, "toarray") else x
        y = y.toarray() if hasattr(y, "toarray") else y
        if isinstance(x, np.ndarray):
            np.testing.assert_array_equal(x, y)


def test_the_plots_check_their_seed() -> None:
    pytest.importorskip("matplotlib")
    from fmacro.optimize.plot.domain import DomainDisplay
    from fmacro.optimize.plot.points import ClassPointsDisplay

    points = optimize.class_points(SCORES, LABELS)
    with pytest.raises(ValueError, match="seed must be None, a non-negative integer"):
        ClassPointsDisplay.from_points(points, seed=-1)
    with pytest.raises(ValueError, match="seed must be None, a non-negative integer"):
        DomainDisplay.from_points(points, seed=-1)


def test_the_experiment_and_splitter_seeds_use_the_same_check() -> None:
    with pytest.raises(ValueError, match="seed must be None or a non-negative integer, got -1"):
        fdelta.experiment(seed=-1, datasets=1, repetitions=1, n=40, progress=False)
    with pytest.raises(ValueError, match="seed must be None or a non-negative integer, got -1"):
        crossval.KFold(seed=-1)
    with pytest.raises(TypeError, match="seed must be None or a non-negative integer"):
        crossval.KFold(seed=np.random.default_rng(0))  # a splitter records an int


def test_check_seed_accepts_what_numpy_accepts() -> None:
    for seed in (None, 0, np.uint64(5), 2**70, [1, 2], np.array([3, 4])):
        assert check_seed(seed) is seed
    rng = np.random.default_rng(0)
    assert check_seed(rng) is rng
    with pytest.raises(ValueError, match=r"my_seed must be .*; the sequence holds -2"):
        check_seed([1, -2], "my_seed")
    with pytest.raises(TypeError, match=r"my_seed must be .*, got float 1.5"):
        check_seed(1.5, "my_seed")


@pytest.mark.parametrize(
    "make",
    [
        lambda: synthetic.dense_scores(20, 300, seed=0)[1],
        lambda: synthetic.calibrated_probabilities(20, 300, seed=0)[1],
        lambda: synthetic.extreme_rankings(20, 300, 5, seed=0)[1].data,
    ],
)
def test_synthetic_labels_are_int64(make: Any) -> None:
    assert make().dtype == np.int64


def test_int64_labels_survive_scikit_learns_label_binarize() -> None:
    from sklearn.preprocessing import label_binarize

    _, y = synthetic.dense_scores(30, 300, seed=0)
    # what OneVsRestClassifier does to a multi-label y: it must be the identity
    back = label_binarize(y, classes=np.arange(300))
    np.testing.assert_array_equal(np.asarray(back), y)


def test_synthetic_draws_are_unchanged_by_the_label_dtype() -> None:
    s, y = synthetic.dense_scores(50, 4, seed=1)
    rng = np.random.default_rng(1)
    labels = (rng.random((50, 4)) < 0.05).astype(np.uint8)
    labels[rng.integers(0, 50, size=4), np.arange(4)] = 1
    np.testing.assert_array_equal(y, labels)
    np.testing.assert_array_equal(s, rng.standard_normal((50, 4)) + 1.0 * labels)


# --------------------------------------------------------------------------- 6. pandas


def _frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    y = pd.DataFrame({"a": [1, 0, 1, 0, 1, 0], "b": [0, 1, 1, 0, 0, 1]}, dtype="Int64")
    p = pd.DataFrame({"a": [1, 1, 1, 0, 0, 0], "b": [0, 1, 0, 0, 1, 1]}, dtype="Int64")
    return y, p


@pytest.mark.parametrize("dtype", ["Int64", "boolean", "Float64", "int8[pyarrow]"])
def test_multilabel_validation_reads_nullable_frames(dtype: str) -> None:
    if "pyarrow" in dtype:
        pytest.importorskip("pyarrow")
    y, p = _frames()
    want = MultiLabelFValidation.from_predictions(y.to_numpy(int), p.to_numpy(int))
    got = MultiLabelFValidation.from_predictions(y.astype(dtype), p.astype(dtype))
    assert got.f_macro == want.f_macro
    assert got.labels == ("a", "b")
    assert f_macro_score(y.astype(dtype), p.astype(dtype)) == want.f_macro


def test_multilabel_scorer_reads_nullable_frames() -> None:
    from sklearn.base import BaseEstimator

    y, p = _frames()

    class Fixed(BaseEstimator):  # type: ignore[misc]
        def predict(self, X: Any) -> Any:
            return p

    scorer = f_macro_scorer()
    assert scorer(Fixed(), np.zeros((6, 1)), y) == f_macro_score(y.to_numpy(int), p.to_numpy(int))


def test_a_missing_multilabel_entry_is_refused_with_its_place() -> None:
    y, p = _frames()
    y.iloc[2, 1] = pd.NA
    with pytest.raises(ValueError, match=r"expected has a missing label .* at row 2, column 'b'"):
        MultiLabelFValidation.from_predictions(y, p)


def test_multilabel_stratified_folds_read_nullable_frames() -> None:
    y, _ = _frames()
    X = np.zeros((6, 1))
    splitter = crossval.MultilabelStratifiedKFold(2, seed=0)
    want = [f.validation.tolist() for f in splitter.folds(X, y.to_numpy(int))]
    assert [f.validation.tolist() for f in splitter.folds(X, y)] == want
    y.iloc[3, 0] = pd.NA
    with pytest.raises(ValueError, match=r"y has a missing label .* at row 3, column 'a'"):
        list(splitter.folds(X, y))


def test_stratified_folds_refuse_a_missing_label_by_position() -> None:
    y = pd.Series([0, 1, 0, 1, None, 1], dtype="Int64")
    with pytest.raises(ValueError, match=r"y has a missing label \(NaN/NA\) at position 4"):
        list(crossval.StratifiedKFold(2, seed=0).folds(np.zeros((6, 1)), y))
    full = pd.Series([0, 1, 0, 1, 0, 1], dtype="Int64")
    splitter = crossval.StratifiedKFold(2, seed=0)
    want = [f.validation.tolist() for f in splitter.folds(full, [0, 1] * 3)]
    got = [f.validation.tolist() for f in splitter.folds(full, full)]
    assert got == want


def test_cross_validate_refuses_a_missing_label_instead_of_a_nan_class() -> None:
    y = pd.Series([0, 2, 1, None, 0, 2], dtype="Int64")

    def fit(X: Any, y: Any) -> Any:
        return lambda rows: np.zeros(len(rows), dtype=int)

    with pytest.raises(ValueError, match=r"y has a missing label \(NaN/NA\) at position 3"):
        crossval.cross_validate(fit, np.zeros((6, 1)), y, crossval.KFold(2, seed=0))


def test_integer_scores_float64_would_round_are_refused_from_a_frame() -> None:
    scores = pd.DataFrame({"a": [2**53 + 1, 2**53, 1, 0], "b": [1, 0, 3, 2]}, dtype="Int64")
    labels = np.array([[1, 0], [0, 1], [1, 0], [0, 1]])
    for search in (optimize.per_class, optimize.class_points, optimize.fixed_point):
        with pytest.raises(ValueError, match=r"scores holds 1 integer.* 9007199254740993"):
            search(scores, labels)
    with pytest.raises(ValueError, match=r"scores holds 1 integer.* 9007199254740993"):
        as_float_array(scores, "scores", ndim=2)


def test_nullable_scores_keep_their_results() -> None:
    frame = pd.DataFrame(SCORES, columns=["a", "b", "c"]).astype("Float64")
    assert optimize.per_class(frame, LABELS).f == optimize.per_class(SCORES, LABELS).f
    np.testing.assert_array_equal(as_float_array(frame, "scores"), SCORES)
    ints = pd.DataFrame({"a": [3, 1, 2, 0], "b": [0, 2, 1, 3]}, dtype="Int64")
    labels = np.array([[1, 0], [0, 1], [1, 0], [0, 1]])
    want = optimize.per_class(ints.to_numpy(np.int64), labels)
    assert optimize.per_class(ints, labels).thresholds.tolist() == want.thresholds.tolist()


def test_a_missing_score_is_refused_with_its_position() -> None:
    frame = pd.DataFrame(SCORES, columns=["a", "b", "c"]).astype("Float64")
    frame.iloc[1, 0] = pd.NA
    for search in (optimize.per_class, optimize.class_points):
        with pytest.raises(ValueError, match=r"scores has a missing score .* at row 1, column 'a'"):
            search(frame, LABELS)
    with pytest.raises(ValueError, match=r"X has a missing value .* at row 1, column 'a'"):
        as_float_array(frame, "X")


# --------------------------------------------------------------------------- 7. save


@pytest.mark.parametrize("name", ["thr.NPY", "thr.npy", "thr.Npy"])
def test_save_keeps_the_name_given(tmp_path: Path, name: str) -> None:
    result = optimize.per_class(SCORES, LABELS)
    result.save(tmp_path / name)
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]
    np.testing.assert_array_equal(np.load(tmp_path / name), result.thresholds)
    assert read_rule(tmp_path / name).n_columns == 3
