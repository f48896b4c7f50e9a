"""MultilabelStratifiedKFold: exact oracle of the algorithm, partitions, balance on real data."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from iterstrat.ml_stratifiers import MultilabelStratifiedKFold as IterstratMSKF

from fmacro.crossval import KFold, MultilabelStratifiedKFold, label_structure
from fmacro.crossval._kernels import iterative_stratification
from fmacro.validation.datasets import load_dataset

MASK64 = (1 << 64) - 1


class SplitMix64:
    """Pure-Python twin of the kernel's tie-breaking stream."""

    def __init__(self, seed: int) -> None:
        self.state = seed

    def next31(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return (z ^ (z >> 31)) >> 33


def reference(
    Y: np.ndarray, k: int, order: np.ndarray, u: np.ndarray, stream: int, refine: bool
) -> np.ndarray:
    """Sechidis et al. (2011), written plainly: O(L) scans instead of the kernel's heap.

    Desired counts are kept times k (integers). Ties between labels with the fewest
    remaining samples go to the smallest (random key, label), where a label's key is
    redrawn after each step that changed its count; ties between folds go to
    (desired count of the label, [sum of desired counts of the sample's labels],
    desired number of samples, uniform u).
    """
    n, L = Y.shape
    Y = Y.astype(bool)
    rank = np.argsort(order)  # position of each sample in the dealing order
    fold = np.full(n, -1)
    want = np.full(k, n)
    want_l = np.tile(Y.sum(0), (k, 1)).astype(np.int64)  # (k, L)
    remaining = Y.sum(0).astype(np.int64)
    rnd = SplitMix64(stream)
    key = np.zeros(L, dtype=np.int64)
    for i in range(L):
        if remaining[i] > 0:
            key[i] = rnd.next31()

    def pick(*criteria: np.ndarray, u_s: float) -> int:
        rows = list(zip(*criteria, strict=True))
        best = max(rows)
        tied = [f for f in range(k) if rows[f] == best]
        return tied[min(int(u_s * len(tied)), len(tied) - 1)]

    while (remaining > 0).any():
        live = np.flatnonzero(remaining > 0)
        label = min(live, key=lambda i: (remaining[i], key[i], i))
        members = np.flatnonzero(Y[:, label] & (fold < 0))
        touched: list[int] = []
        for s in members[np.argsort(rank[members])]:
            labels = np.flatnonzero(Y[s])
            if refine:
                f = pick(want_l[:, label], want_l[:, labels].sum(1), want, u_s=u[s])
            else:
                f = pick(want_l[:, label], want, u_s=u[s])
            fold[s] = f
            want[f] -= k
            for i in labels:
                want_l[f, i] -= k
                remaining[i] -= 1
                if i not in touched:
                    touched.append(i)
        for i in touched:  # fresh random keys for labels whose count changed
            if remaining[i] > 0:
                key[i] = rnd.next31()
    for s in order:
        if fold[s] < 0:
            f = pick(want, u_s=u[s])
            fold[s] = f
            want[f] -= k
    return fold


@st.composite
def indicator_matrices(draw: st.DrawFn) -> np.ndarray:
    n = draw(st.integers(2, 40))
    L = draw(st.integers(1, 6))
    density = draw(st.floats(0.0, 0.9))
    seed = draw(st.integers(0, 2**32))
    return (np.random.default_rng(seed).random((n, L)) < density).astype(np.uint8)


@settings(max_examples=60, deadline=None)
@given(indicator_matrices(), st.integers(2, 5), st.integers(0, 2**32), st.booleans())
def test_kernel_equals_plain_reference(Y: np.ndarray, k: int, seed: int, refine: bool) -> None:
    rng = np.random.default_rng(seed)
    n = Y.shape[0]
    order = rng.permutation(n).astype(np.int64)
    u = rng.random(n)
    stream = int(rng.integers(0, 2**63, dtype=np.int64))
    indptr, indices, n_labels = label_structure(Y)
    got = iterative_stratification(indptr, indices, n_labels, k, order, u, stream, refine)
    np.testing.assert_array_equal(got, reference(Y, k, order, u, stream, refine))


@settings(max_examples=50, deadline=None)
@given(
    indicator_matrices(),
    st.integers(2, 5),
    st.integers(0, 2**32),
    st.sampled_from(["labels", "paper"]),
)
def test_folds_partition_and_dense_equals_sparse(
    Y: np.ndarray, k: int, seed: int, ties: str
) -> None:
    n = Y.shape[0]
    k = min(k, n)
    splitter = MultilabelStratifiedKFold(k=k, seed=seed, ties=ties)  # type: ignore[arg-type]
    folds = list(splitter.folds(np.zeros(n), Y))
    assert len(folds) == k == splitter.get_n_splits()
    covered = np.sort(np.concatenate([f.validation for f in folds]))
    np.testing.assert_array_equal(covered, np.arange(n))
    for f in folds:
        assert f.n_validation > 0 and not f.validation.flags.writeable
        np.testing.assert_array_equal(f.train, np.setdiff1d(np.arange(n), f.validation))
    assert folds == list(splitter.folds(np.zeros(n), sp.csr_matrix(Y)))
    assert folds == list(splitter.folds(np.zeros(n), Y.astype(bool)))
    assert folds == list(MultilabelStratifiedKFold(k=k, seed=seed, ties=ties).folds(n * [0], Y))  # type: ignore[arg-type]


def test_sparse_input_with_explicit_zeros_and_duplicates() -> None:
    dense = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 0]], dtype=np.uint8)
    coo = sp.coo_matrix(
        ([1, 0, 1, 1, 1, 1], ([0, 1, 0, 1, 2, 2], [0, 0, 2, 1, 0, 1])), shape=(4, 3)
    )
    for structure in (label_structure(dense), label_structure(coo)):
        indptr, indices, n_labels = structure
        assert indptr.tolist() == [0, 2, 3, 5, 5]
        assert indices.tolist() == [0, 2, 1, 0, 1]
        assert n_labels == 3


def fold_label_counts(Y: np.ndarray, fold_of: np.ndarray, k: int) -> np.ndarray:
    return np.stack([Y[fold_of == f].sum(0) for f in range(k)])


def fold_numbers(splitter: object, Y: np.ndarray) -> np.ndarray:
    fold_of = np.empty(Y.shape[0], dtype=int)
    for i, (_, val) in enumerate(splitter.split(np.zeros(Y.shape[0]), Y)):  # type: ignore[attr-defined]
        fold_of[val] = i
    return fold_of


@pytest.mark.parametrize(("name", "k"), [("yeast", 5), ("yeast", 10), ("emotions", 10)])
def test_more_balanced_than_random_kfold_on_real_data(name: str, k: int) -> None:
    _, Y = load_dataset(name, "all")
    Y = np.asarray(Y)
    share = Y.mean(0)
    for seed in range(3):
        ours = fold_numbers(MultilabelStratifiedKFold(k=k, seed=seed), Y)
        rand = fold_numbers(KFold(k=k, seed=seed), Y)
        dev = {}
        for which, fold_of in (("ours", ours), ("random", rand)):
            sizes = np.bincount(fold_of, minlength=k)[:, None]
            proportion = fold_label_counts(Y, fold_of, k) / sizes
            dev[which] = np.abs(proportion - share).max()
        assert dev["ours"] <= dev["random"], (seed, dev)
        # every label whose count allows it appears in every fold
        counts = fold_label_counts(Y, ours, k)
        assert (counts[:, Y.sum(0) >= k] > 0).all()


def test_at_least_as_balanced_as_iterative_stratification_package() -> None:
    _, Y = load_dataset("yeast", "all")
    Y = np.asarray(Y)
    k = 10
    expected = Y.sum(0) / k
    ours, theirs = [], []
    for seed in range(5):
        a = fold_numbers(MultilabelStratifiedKFold(k=k, seed=seed), Y)
        b = fold_numbers(IterstratMSKF(n_splits=k, shuffle=True, random_state=seed), Y)
        ours.append(np.abs(fold_label_counts(Y, a, k) - expected).max())
        theirs.append(np.abs(fold_label_counts(Y, b, k) - expected).max())
    assert np.median(ours) <= np.median(theirs), (ours, theirs)


def test_seed_recorded_and_deterministic() -> None:
    Y = (np.random.default_rng(0).random((50, 4)) < 0.3).astype(int)
    drawn = MultilabelStratifiedKFold(k=3)
    assert f"seed={drawn.seed}" in repr(drawn)
    again = MultilabelStratifiedKFold(k=3, seed=drawn.seed)
    np.testing.assert_array_equal(drawn.assign(Y), again.assign(Y))
    assert not drawn.assign(Y).flags.writeable


def test_bad_input() -> None:
    X = np.zeros(4)
    with pytest.raises(ValueError, match="needs y"):
        list(MultilabelStratifiedKFold(k=2, seed=0).split(X))
    with pytest.raises(ValueError, match="2-D"):
        list(MultilabelStratifiedKFold(k=2, seed=0).split(X, np.zeros(4)))
    with pytest.raises(ValueError, match="0/1 indicator"):
        list(MultilabelStratifiedKFold(k=2, seed=0).split(X, np.full((4, 2), 2)))
    with pytest.raises(ValueError, match="0/1 indicator"):
        list(MultilabelStratifiedKFold(k=2, seed=0).split(X, sp.csr_matrix(np.full((4, 2), 3))))
    with pytest.raises(ValueError, match="k=5 folds need at least k samples, got 4"):
        list(MultilabelStratifiedKFold(k=5, seed=0).split(X, np.zeros((4, 2))))
    with pytest.raises(ValueError, match="X has 4, y has 3"):
        list(MultilabelStratifiedKFold(k=2, seed=0).split(X, np.zeros((3, 2))))
    with pytest.raises(ValueError, match="ties must be"):
        MultilabelStratifiedKFold(ties="random")  # type: ignore[arg-type]
