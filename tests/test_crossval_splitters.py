"""Splitters: partition invariants (Hypothesis), seed examples, scikit-learn parity, bad input."""

from __future__ import annotations

import math
import random
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import model_selection as skms
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.tree import DecisionTreeClassifier

from fmacro.crossval import (
    Fold,
    GroupKFold,
    KFold,
    LeaveOneOut,
    OneFold,
    RepeatedKFold,
    StratificationWarning,
    StratifiedKFold,
)

seeds = st.integers(0, 2**32)


@st.composite
def n_and_k(draw: st.DrawFn, max_n: int = 60) -> tuple[int, int]:
    n = draw(st.integers(2, max_n))
    return n, draw(st.integers(2, n))


def assert_partition(folds: list[Fold], n: int, *, cover: bool = True) -> None:
    """Validation parts disjoint and covering 0..n-1 once; train = complement; sorted, read-only.

    ``cover=False`` (one-fold hold-out) only checks each fold.
    """
    everything = np.arange(n)
    for fold in folds:
        for part in (fold.train, fold.validation):
            assert part.dtype == np.intp
            assert not part.flags.writeable
            assert np.all(np.diff(part) > 0)  # sorted, no duplicates
        assert fold.validation.size > 0
        np.testing.assert_array_equal(fold.train, np.setdiff1d(everything, fold.validation))
    if cover:
        covered = np.sort(np.concatenate([f.validation for f in folds]))
        np.testing.assert_array_equal(covered, everything)


def sizes(folds: list[Fold]) -> list[int]:
    return [f.n_validation for f in folds]


# --------------------------------------------------------------------------- K-fold family


@settings(max_examples=40, deadline=None)
@given(n_and_k(), st.booleans(), seeds)
def test_kfold_partitions_with_near_equal_sizes(
    nk: tuple[int, int], shuffle: bool, seed: int
) -> None:
    n, k = nk
    splitter = KFold(k=k, shuffle=shuffle, seed=seed)
    folds = list(splitter.folds(np.zeros((n, 2))))
    assert len(folds) == k == splitter.get_n_splits()
    assert_partition(folds, n)
    assert max(sizes(folds)) - min(sizes(folds)) <= 1
    assert [f.index for f in folds] == list(range(k))


def test_three_folds_of_ten_have_sizes_4_3_3() -> None:
    # lecture notes C13, example 1
    for splitter in (KFold(k=3, seed=1), KFold(k=3, shuffle=False), StratifiedKFold(k=3, seed=1)):
        folds = list(splitter.folds(np.arange(10), np.arange(10) % 2))
        assert sorted(sizes(folds), reverse=True) == [4, 3, 3]
        assert [f.n_train for f in folds] == [10 - s for s in sizes(folds)]


def test_five_fold_and_loo_training_sizes_on_100() -> None:
    # lecture notes C13, example 2: 5-fold trains on 80 (5 models), LOO on 99 (100 models)
    X = np.zeros(100)
    five = list(KFold(k=5, seed=0).folds(X))
    loo = list(LeaveOneOut().folds(X))
    assert [f.n_train for f in five] == [80] * 5
    assert len(loo) == 100 == LeaveOneOut().get_n_splits(X)
    assert {f.n_train for f in loo} == {99}


def test_unshuffled_kfold_equals_scikit_learn() -> None:
    X = np.zeros((23, 1))
    ours = list(KFold(k=4, shuffle=False).split(X))
    theirs = list(skms.KFold(4).split(X))
    for (a_train, a_val), (b_train, b_val) in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(a_train, b_train)
        np.testing.assert_array_equal(a_val, b_val)


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 30), seeds)
def test_k_equal_n_is_leave_one_out(n: int, seed: int) -> None:
    X = list(range(n))
    loo = list(LeaveOneOut().folds(X))
    assert_partition(loo, n)
    assert [f.validation.tolist() for f in loo] == [[i] for i in range(n)]
    in_order = list(KFold(k=n, shuffle=False).folds(X))
    assert in_order == loo
    shuffled = list(KFold(k=n, seed=seed).folds(X))
    assert sorted(f.validation.tolist() for f in shuffled) == [[i] for i in range(n)]


@settings(max_examples=25, deadline=None)
@given(n_and_k(max_n=40), st.integers(1, 4), seeds)
def test_repeated_kfold_partitions_every_repeat(
    nk: tuple[int, int], repeats: int, seed: int
) -> None:
    n, k = nk
    splitter = RepeatedKFold(k=k, repeats=repeats, seed=seed)
    folds = list(splitter.folds(np.zeros(n)))
    assert len(folds) == k * repeats == splitter.get_n_splits()
    for r in range(repeats):
        part = [f for f in folds if f.repeat == r]
        assert [f.index for f in part] == list(range(k))
        assert_partition(part, n)
        assert max(sizes(part)) - min(sizes(part)) <= 1


def test_repeats_differ_and_are_reproducible() -> None:
    a = list(RepeatedKFold(k=5, repeats=3, seed=7).split(np.zeros(50)))
    b = list(RepeatedKFold(k=5, repeats=3, seed=7).split(np.zeros(50)))
    for (ta, va), (tb, vb) in zip(a, b, strict=True):
        np.testing.assert_array_equal(ta, tb)
        np.testing.assert_array_equal(va, vb)
    assert not np.array_equal(a[0][1], a[5][1])  # first fold of repeat 0 vs repeat 1


# --------------------------------------------------------------------------- stratified


labels_strategy = st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), min_size=2, max_size=80)


@settings(max_examples=40, deadline=None)
@given(labels_strategy, st.integers(2, 6), seeds)
def test_stratified_keeps_class_counts_within_one(labels: list[str], k: int, seed: int) -> None:
    y = np.array(labels)
    n = y.size
    k = min(k, n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StratificationWarning)
        folds = list(StratifiedKFold(k=k, seed=seed).folds(np.zeros(n), y))
    assert_partition(folds, n)
    assert max(sizes(folds)) - min(sizes(folds)) <= 1
    for c in np.unique(y):
        n_c = int(np.count_nonzero(y == c))
        per_fold = [int(np.count_nonzero(y[f.validation] == c)) for f in folds]
        assert set(per_fold) <= {n_c // k, -(-n_c // k)}, (c, per_fold)
        assert sum(per_fold) == n_c


def test_stratified_integer_and_string_labels_give_the_same_folds() -> None:
    y_int = np.random.default_rng(3).integers(0, 4, 200)
    y_str = np.array(["w", "x", "y", "z"])[y_int]
    a = list(StratifiedKFold(k=5, seed=11).folds(np.zeros(200), y_int))
    b = list(StratifiedKFold(k=5, seed=11).folds(np.zeros(200), y_str))
    assert a == b


def test_stratified_warns_with_counts_for_rare_classes() -> None:
    y = np.array([0] * 10 + [1] * 2 + [2])
    with pytest.warns(StratificationWarning, match=r"k=3.*1: 2, 2: 1"):
        folds = list(StratifiedKFold(k=3, seed=0).folds(np.zeros(13), y))
    assert_partition(folds, 13)


def test_stratified_needs_1d_labels() -> None:
    with pytest.raises(ValueError, match="needs the labels y"):
        list(StratifiedKFold(k=2, seed=0).split(np.zeros(4)))
    with pytest.raises(ValueError, match="MultilabelStratifiedKFold"):
        list(StratifiedKFold(k=2, seed=0).split(np.zeros(4), np.zeros((4, 3))))


# --------------------------------------------------------------------------- group and one-fold


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 12), min_size=2, max_size=80), st.integers(2, 5))
def test_group_kfold_keeps_groups_whole_and_matches_scikit_learn(groups: list[int], k: int) -> None:
    g = np.array(groups)
    n_groups = np.unique(g).size
    if k > n_groups:
        with pytest.raises(ValueError, match="distinct groups"):
            list(GroupKFold(k=k).split(np.zeros(g.size), groups=g))
        return
    folds = list(GroupKFold(k=k).folds(np.zeros(g.size), groups=g))
    assert_partition(folds, g.size)
    for f in folds:
        assert not set(g[f.train]) & set(g[f.validation])
    theirs = list(skms.GroupKFold(n_splits=k).split(np.zeros(g.size), groups=g))
    for fold, (b_train, b_val) in zip(folds, theirs, strict=True):
        np.testing.assert_array_equal(fold.train, b_train)
        np.testing.assert_array_equal(fold.validation, b_val)


def test_group_kfold_needs_groups() -> None:
    with pytest.raises(ValueError, match="needs groups"):
        list(GroupKFold(k=2).split(np.zeros(4)))
    with pytest.raises(ValueError, match="same number of samples"):
        list(GroupKFold(k=2).split(np.zeros(4), groups=[0, 1, 2]))


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 200), st.floats(0.01, 0.99), seeds)
def test_one_fold_sizes_and_partition(n: int, ratio: float, seed: int) -> None:
    splitter = OneFold(ratio=ratio, seed=seed)
    (fold,) = list(splitter.folds(range(n)))
    assert_partition([fold], n, cover=False)
    assert fold.n_train == min(max(math.floor(ratio * n + 0.5), 1), n - 1)
    assert fold.n_train >= 1 and fold.n_validation >= 1
    if ratio >= 0.5:
        assert fold.n_validation <= fold.n_train
    assert splitter.get_n_splits() == 1


def test_one_fold_half_ratio_on_odd_n_trains_on_the_larger_part() -> None:
    # round() would give 2 of 5 (half to even); the training part must be the larger.
    (fold,) = list(OneFold(ratio=0.5, seed=0).folds(range(5)))
    assert (fold.n_train, fold.n_validation) == (3, 2)


def test_one_fold_has_none_of_the_scala_bugs() -> None:
    # OneFoldXValidation: validationSet returned the training set; drop(1) lost a row and
    # shifted every label by one. Here: validation is the smaller, disjoint part, and every
    # sample keeps its own label.
    X = np.arange(10) * 10
    y = np.array(list("abcdefghij"))
    (fold,) = list(OneFold(ratio=0.8, seed=5).folds(X, y))
    (X_train, y_train), (X_val, y_val) = fold.take(X, y)
    assert (len(X_train), len(X_val)) == (8, 2)
    assert not set(X_train.tolist()) & set(X_val.tolist())
    assert sorted(X_train.tolist() + X_val.tolist()) == X.tolist()
    for xs, ys in ((X_train, y_train), (X_val, y_val)):
        np.testing.assert_array_equal(ys, y[xs // 10])


# --------------------------------------------------------------------------- seeds


def all_seeded(seed: int | None) -> list[object]:
    return [
        OneFold(seed=seed),
        KFold(k=3, seed=seed),
        StratifiedKFold(k=3, seed=seed),
        RepeatedKFold(k=3, repeats=2, seed=seed),
    ]


def test_same_seed_same_folds_and_repeated_calls_agree() -> None:
    X = np.zeros(30)
    y = np.arange(30) % 3
    for a, b in zip(all_seeded(42), all_seeded(42), strict=True):
        first = list(a.folds(X, y))  # type: ignore[attr-defined]
        assert first == list(b.folds(X, y))  # type: ignore[attr-defined]
        assert first == list(a.folds(X, y))  # type: ignore[attr-defined]
    assert list(KFold(k=3, seed=1).folds(X)) != list(KFold(k=3, seed=2).folds(X))


def test_seed_none_is_recorded_and_reproducible() -> None:
    X = np.zeros(40)
    drawn = KFold(k=4)
    assert isinstance(drawn.seed, int) and f"seed={drawn.seed}" in repr(drawn)
    assert list(drawn.folds(X)) == list(KFold(k=4, seed=drawn.seed).folds(X))
    assert KFold(k=4).seed != drawn.seed  # fresh entropy each time


def test_global_random_state_is_neither_used_nor_changed() -> None:
    # the legacy global state is used on purpose: it must stay untouched
    np.random.seed(123)  # noqa: NPY002
    random.seed(123)
    np_state = np.random.get_state()[1].copy()  # noqa: NPY002
    py_state = random.getstate()
    X = np.zeros(30)
    y = np.arange(30) % 3
    for splitter in [*all_seeded(9), *all_seeded(None)]:
        list(splitter.split(X, y))  # type: ignore[attr-defined]
    np.testing.assert_array_equal(np.random.get_state()[1], np_state)  # noqa: NPY002
    assert random.getstate() == py_state
    np.random.seed(0)  # noqa: NPY002
    a = list(KFold(k=3, seed=9).folds(X))
    np.random.seed(1)  # noqa: NPY002
    assert a == list(KFold(k=3, seed=9).folds(X))


# --------------------------------------------------------------------------- scikit-learn


def test_usable_as_cv_in_cross_val_score_and_grid_search() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=90) > 0).astype(int)
    groups = np.arange(90) // 9
    model = DecisionTreeClassifier(max_depth=2, random_state=0)
    for cv in (
        KFold(k=5, seed=0),
        StratifiedKFold(k=5, seed=0),
        RepeatedKFold(k=3, repeats=2, seed=0),
        OneFold(ratio=0.75, seed=0),
        GroupKFold(k=5),
        LeaveOneOut(),
    ):
        scores = cross_val_score(model, X, y, cv=cv, groups=groups)
        expected = [
            model.fit(X[train], y[train]).score(X[val], y[val])
            for train, val in cv.split(X, y, groups)
        ]
        np.testing.assert_allclose(scores, expected)
        assert len(scores) == cv.get_n_splits(X, y, groups)
    search = GridSearchCV(model, {"max_depth": [1, 2, 3]}, cv=StratifiedKFold(k=4, seed=3))
    search.fit(X, y)
    assert search.n_splits_ == 4
    manual = np.mean(
        [
            DecisionTreeClassifier(max_depth=search.best_params_["max_depth"], random_state=0)
            .fit(X[t], y[t])
            .score(X[v], y[v])
            for t, v in StratifiedKFold(k=4, seed=3).split(X, y)
        ]
    )
    assert search.best_score_ == pytest.approx(manual)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (lambda: KFold(k=1), ValueError, "k must be an integer >= 2, got 1"),
        (lambda: KFold(k=2.5), TypeError, "k must be an integer"),
        (lambda: KFold(k=True), TypeError, "k must be an integer"),
        (lambda: StratifiedKFold(k=0), ValueError, "k must be"),
        (lambda: RepeatedKFold(k=3, repeats=0), ValueError, "repeats must be"),
        (lambda: OneFold(ratio=0.0), ValueError, "ratio must lie strictly between 0 and 1"),
        (lambda: OneFold(ratio=1.0), ValueError, "ratio must lie"),
        (lambda: OneFold(ratio=1.5), ValueError, "ratio must lie"),
        (lambda: OneFold(ratio="0.5"), TypeError, "ratio must be a number"),
        (lambda: KFold(seed=-1), ValueError, "seed must be None or a non-negative integer"),
        (lambda: KFold(seed=1.5), TypeError, "seed must be None or a non-negative integer"),
        (lambda: KFold(shuffle=1), TypeError, "shuffle"),
    ],
)
def test_bad_parameters_are_refused(make: object, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        make()  # type: ignore[operator]


def test_bad_data_is_refused_with_named_arguments() -> None:
    X = np.zeros(5)
    with pytest.raises(ValueError, match="k=6 folds need at least k samples, got 5"):
        list(KFold(k=6, seed=0).split(X))
    with pytest.raises(ValueError, match="k=6 folds need at least k samples"):
        list(StratifiedKFold(k=6, seed=0).split(X, np.zeros(5)))
    with pytest.raises(ValueError, match="X has 5, y has 4"):
        list(KFold(k=2, seed=0).split(X, np.zeros(4)))
    with pytest.raises(ValueError, match="X has 5, y has 6"):
        list(StratifiedKFold(k=2, seed=0).split(X, np.zeros(6)))
    with pytest.raises(ValueError, match="at least 2 samples"):
        list(OneFold(seed=0).split(np.zeros(1)))
    with pytest.raises(ValueError, match="needs X"):
        LeaveOneOut().get_n_splits()
    with pytest.raises(TypeError, match="X must be array-like"):
        list(KFold(k=2, seed=0).split(42))


# --------------------------------------------------------------------------- seeded shuffle


def test_shuffle_kernel_is_a_seeded_permutation() -> None:
    from fmacro.crossval._kernels import shuffle_in_place

    values = np.arange(1000, dtype=np.int64)
    once, again, other = values.copy(), values.copy(), values.copy()
    shuffle_in_place(once, np.uint64(7))
    shuffle_in_place(again, np.uint64(7))
    shuffle_in_place(other, np.uint64(8))
    np.testing.assert_array_equal(np.sort(once), values)
    np.testing.assert_array_equal(once, again)
    assert not np.array_equal(once, other)


def test_shuffle_kernel_draws_every_order_equally_often() -> None:
    # all 24 orders of 4 items over 24,000 keys: a chi-square test at the 0.1% level
    # (23 degrees of freedom: critical value 49.7) catches a biased index draw
    from fmacro.crossval._kernels import shuffle_in_place

    counts: dict[tuple[int, ...], int] = {}
    for key in range(24_000):
        order = np.arange(4, dtype=np.int16)
        shuffle_in_place(order, np.uint64(key * 0x9E3779B97F4A7C15 % 2**64))
        counts[tuple(order.tolist())] = counts.get(tuple(order.tolist()), 0) + 1
    assert len(counts) == 24
    observed = np.array(list(counts.values()), dtype=float)
    assert float(((observed - 1000.0) ** 2 / 1000.0).sum()) < 49.7
