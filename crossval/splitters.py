"""Seeded, immutable cross-validation splitters usable by scikit-learn.

Every splitter is a frozen ``attrs`` class with

* ``split(X, y=None, groups=None)`` yielding ``(train, validation)`` read-only
  ``intp`` index arrays, sorted ascending (so ``cv=`` works in scikit-learn's
  ``cross_val_score``, ``cross_validate`` and ``GridSearchCV``);
* ``folds(X, y=None, groups=None)`` yielding the same splits as :class:`Fold`
  values, which also know their fold number and repeat and can ``take`` rows;
* ``get_n_splits(X=None, y=None, groups=None)``.

Randomness comes from a :class:`numpy.random.Generator` created from the
splitter's ``seed`` at each call of ``split``, so the same splitter always yields
the same folds (as scikit-learn's ``random_state=<int>``). ``seed=None`` draws a
fresh seed when the splitter is built and records it in ``seed`` (shown by
``repr``). The global random state is never used.

The index work runs in numba kernels compiled with ``cache=True``: the very first
call in a fresh environment compiles them (about a second); later calls and
processes reuse the cached machine code.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.crossval._kernels import (
    group_folds,
    shuffle_in_place,
    split_by_fold,
    stratified_folds,
)
from fmacro.crossval._params import check_count, n_samples_of, resolve_seed
from fmacro.crossval.fold import Fold, owned_fold
from fmacro.validation.checks import check_fraction, check_same_length, is_sparse
from fmacro.validation.labels import numpy_from_pandas

__all__ = [
    "GroupKFold",
    "KFold",
    "LeaveOneOut",
    "OneFold",
    "RepeatedKFold",
    "StratificationWarning",
    "StratifiedKFold",
]


class StratificationWarning(UserWarning):
    """A class has fewer members than there are folds, so some folds miss it."""


def _k(value: object) -> int:
    return check_count(value, "k", 2)


def _repeats(value: object) -> int:
    return check_count(value, "repeats", 1)


def _ratio(value: object) -> float:
    return check_fraction(value, "ratio")


class _Splitter:
    """Shared ``split``/``folds`` plumbing; subclasses implement ``_iter_folds``."""

    __slots__ = ()

    def _iter_folds(self, X: Any, y: Any, groups: Any) -> Iterator[Fold]:
        raise NotImplementedError

    def folds(self, X: Any, y: Any = None, groups: Any = None) -> Iterator[Fold]:
        """Yield each split as a frozen :class:`Fold` (read-only index arrays)."""
        return self._iter_folds(X, y, groups)

    def split(
        self, X: Any, y: Any = None, groups: Any = None
    ) -> Iterator[tuple[NDArray[np.intp], NDArray[np.intp]]]:
        """Yield ``(train_indices, validation_indices)`` for each split.

        Parameters
        ----------
        X
            Samples (array, sparse matrix, DataFrame, list); only their number is used.
        y
            Labels, used by the stratified splitters; when given, its length is checked.
        groups
            Group of each sample, used by :class:`GroupKFold`; length checked when given.
        """
        for fold in self._iter_folds(X, y, groups):
            yield fold.train, fold.validation


def _count_and_check(X: Any, y: Any, groups: Any) -> int:
    """Number of samples of ``X``; ``y`` and ``groups`` must have as many."""
    n = n_samples_of(X)
    given = {"X": X}
    if y is not None:
        given["y"] = y
    if groups is not None:
        given["groups"] = groups
    if len(given) > 1:
        check_same_length(**given)
    return n


def _check_k_le_n(k: int, n: int) -> None:
    if k > n:
        raise ValueError(f"k={k} folds need at least k samples, got {n} sample(s) in X")


def _fold_sizes(n: int, k: int) -> NDArray[np.int64]:
    """Sizes of ``k`` near-equal folds of ``n``: the first ``n % k`` are one larger."""
    return np.full(k, n // k, dtype=np.int64) + (np.arange(k) < n % k)


def _fold_dtype(k: int) -> type[np.signedinteger]:
    """Smallest signed integer type for fold numbers 0..k-1 (int16 or int64)."""
    return np.int16 if k <= np.iinfo(np.int16).max else np.int64


def _folds_from_assignment(
    fold_of: NDArray[np.integer], sizes: NDArray[np.int64], repeat: int = 0
) -> Iterator[Fold]:
    """Turn a fold number per sample into ``Fold`` values, one pass per fold."""
    for f in range(sizes.shape[0]):
        train, validation = split_by_fold(fold_of, f, int(sizes[f]))
        yield owned_fold(train, validation, index=f, repeat=repeat)


def _shuffle_keys(seed: int, count: int) -> list[np.uint64]:
    """``count`` independent 64-bit shuffle keys derived from a splitter's seed."""
    return list(np.random.SeedSequence(seed).generate_state(count, dtype=np.uint64))


def _shuffled(values: NDArray[Any], key: np.uint64) -> NDArray[Any]:
    """``values`` (a private array) permuted in place by the seeded kernel, and returned."""
    if values.shape[0] >= 2**32:  # the kernel draws 32-bit indices
        rng = np.random.default_rng(int(key))
        rng.shuffle(values)
    else:
        shuffle_in_place(values, key)
    return values


def _kfold_assignment(n: int, k: int, key: np.uint64 | None) -> NDArray[np.integer]:
    """Fold number of each sample: contiguous blocks, shuffled when a key is given."""
    labels = np.repeat(np.arange(k, dtype=_fold_dtype(k)), _fold_sizes(n, k))
    return labels if key is None else _shuffled(labels, key)


@attrs.frozen
class OneFold(_Splitter):
    """A single random train/validation split (hold-out).

    Parameters
    ----------
    ratio
        Fraction of the samples used for training, ``0 < ratio < 1``. The training
        part has ``floor(ratio * n + 1/2)`` samples (halves round up, so ``ratio=0.5``
        on an odd ``n`` never leaves the validation part the larger one), clipped so that
        both parts are non-empty (``n >= 2`` is required); the validation part has the rest.
    seed
        Seed of the shuffle; ``None`` draws one and records it.

    Examples
    --------
    >>> train, validation = next(OneFold(ratio=0.8, seed=0).split(range(10)))
    >>> len(train), len(validation)
    (8, 2)
    """

    ratio: float = attrs.field(default=0.8, converter=_ratio)
    seed: int = attrs.field(default=None, converter=resolve_seed)

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        """Always 1."""
        return 1

    def _iter_folds(self, X: Any, y: Any, groups: Any) -> Iterator[Fold]:
        n = _count_and_check(X, y, groups)
        if n < 2:
            raise ValueError(f"OneFold needs at least 2 samples in X, got {n}")
        n_train = min(max(math.floor(self.ratio * n + 0.5), 1), n - 1)
        perm = _shuffled(np.arange(n, dtype=np.intp), _shuffle_keys(self.seed, 1)[0])
        yield owned_fold(np.sort(perm[:n_train]), np.sort(perm[n_train:]))


@attrs.frozen
class KFold(_Splitter):
    """K near-equal folds; each sample is validated exactly once.

    Fold sizes differ by at most one (the first ``n % k`` folds are one larger).
    ``shuffle=False`` gives contiguous blocks, identical to scikit-learn's
    ``KFold(k)``; ``k = n`` gives leave-one-out.

    Parameters
    ----------
    k
        Number of folds, ``2 <= k <= n``.
    shuffle
        Assign samples to folds at random (seeded); otherwise in order.
    seed
        Seed of the shuffle; ``None`` draws one and records it. Ignored when
        ``shuffle=False``.
    """

    k: int = attrs.field(default=5, converter=_k)
    shuffle: bool = attrs.field(default=True, validator=attrs.validators.instance_of(bool))
    seed: int = attrs.field(default=None, converter=resolve_seed)

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        """Number of folds, ``k``."""
        return self.k

    def _iter_folds(self, X: Any, y: Any, groups: Any) -> Iterator[Fold]:
        n = _count_and_check(X, y, groups)
        _check_k_le_n(self.k, n)
        key = _shuffle_keys(self.seed, 1)[0] if self.shuffle else None
        return _folds_from_assignment(_kfold_assignment(n, self.k, key), _fold_sizes(n, self.k))


@attrs.frozen
class RepeatedKFold(_Splitter):
    """``repeats`` independent shuffled K-fold partitions (``k * repeats`` splits).

    Every sample is validated exactly once per repeat. Folds carry their
    ``repeat`` number. One generator seeded with ``seed`` draws all the repeats.

    Parameters
    ----------
    k
        Number of folds per repeat, ``2 <= k <= n``.
    repeats
        Number of repeats, at least 1.
    seed
        Seed; ``None`` draws one and records it.
    """

    k: int = attrs.field(default=5, converter=_k)
    repeats: int = attrs.field(default=10, converter=_repeats)
    seed: int = attrs.field(default=None, converter=resolve_seed)

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        """Number of splits, ``k * repeats``."""
        return self.k * self.repeats

    def _iter_folds(self, X: Any, y: Any, groups: Any) -> Iterator[Fold]:
        n = _count_and_check(X, y, groups)
        _check_k_le_n(self.k, n)
        sizes = _fold_sizes(n, self.k)
        for r, key in enumerate(_shuffle_keys(self.seed, self.repeats)):
            yield from _folds_from_assignment(_kfold_assignment(n, self.k, key), sizes, r)


@attrs.frozen
class LeaveOneOut(_Splitter):
    """Leave-one-out: ``n`` splits, each validating one sample, in sample order.

    Deterministic (no seed). Costs ``n`` trainings; ``KFold(k=n)`` yields the same
    splits (in shuffled order unless ``shuffle=False``).
    """

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        """Number of samples of ``X`` (``X`` is required)."""
        if X is None:
            raise ValueError("LeaveOneOut.get_n_splits needs X to count the samples, got None")
        return n_samples_of(X)

    def _iter_folds(self, X: Any, y: Any, groups: Any) -> Iterator[Fold]:
        n = _count_and_check(X, y, groups)
        _check_k_le_n(2, n)
        every = np.arange(n, dtype=np.intp)
        for i in range(n):
            train = np.concatenate((every[:i], every[i + 1 :]))
            validation = np.array([i], dtype=np.intp)
            yield owned_fold(train, validation, index=i)


def _class_codes(y: Any) -> tuple[NDArray[np.int64], NDArray[Any], NDArray[np.int64]]:
    """``(codes, classes, counts)`` of a 1-D label vector (classes sorted)."""
    if is_sparse(y):
        raise TypeError("y must be a 1-D label vector for StratifiedKFold, got a sparse matrix")
    # nullable/pyarrow pandas labels: their numpy dtype; a missing one refused with its
    # position (numpy would read it as a NaN class)
    arr = np.asarray(numpy_from_pandas(y, name="y", what="label"))
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.reshape(-1)
    if arr.ndim != 1:
        raise ValueError(
            f"y must be a 1-D label vector for StratifiedKFold, got shape {arr.shape}; "
            "use MultilabelStratifiedKFold for indicator matrices"
        )
    if arr.size and (np.issubdtype(arr.dtype, np.integer) or arr.dtype == np.bool_):
        ints = arr.astype(np.int64, copy=False)
        low = int(ints.min())
        span = int(ints.max()) - low + 1
        if span <= 4 * arr.size + 1024:  # counting, no sort
            counts = np.bincount(ints - low, minlength=span)
            present = counts > 0
            code_of = np.cumsum(present) - 1
            classes = (np.flatnonzero(present) + low).astype(arr.dtype)
            return code_of[ints - low], classes, counts[present]
    try:
        classes, codes = np.unique(arr, return_inverse=True)
    except TypeError as exc:
        raise TypeError(f"y must hold sortable labels, got {arr.dtype}: {exc}") from None
    codes = codes.reshape(-1).astype(np.int64, copy=False)
    return codes, classes, np.bincount(codes, minlength=classes.shape[0])


@attrs.frozen
class StratifiedKFold(_Splitter):
    """K folds that keep every class's proportion.

    Samples are grouped by class (in random order within a class) and dealt to
    the folds round-robin, so every fold holds ``floor`` or ``ceil`` of
    ``n_c / k`` members of each class ``c`` and fold sizes differ by at most one.
    A class with fewer than ``k`` members cannot appear in every fold: a
    :class:`StratificationWarning` lists such classes and their counts.

    Parameters
    ----------
    k
        Number of folds, ``2 <= k <= n``.
    seed
        Seed of the within-class shuffle; ``None`` draws one and records it.
    """

    k: int = attrs.field(default=5, converter=_k)
    seed: int = attrs.field(default=None, converter=resolve_seed)

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        """Number of folds, ``k``."""
        return self.k

    def _iter_folds(self, X: Any, y: Any, groups: Any) -> Iterator[Fold]:
        if y is None:
            raise ValueError("StratifiedKFold.split needs the labels y, got None")
        n = _count_and_check(X, y, groups)
        _check_k_le_n(self.k, n)
        codes, classes, counts = _class_codes(y)
        rare = np.flatnonzero(counts < self.k)
        if rare.size:
            shown = ", ".join(f"{classes[c].item()!r}: {int(counts[c])}" for c in rare[:10])
            more = f" and {rare.size - 10} more" if rare.size > 10 else ""
            warnings.warn(
                f"{rare.size} class(es) of y have fewer members than k={self.k}, so some "
                f"folds will not contain them (class: members) {shown}{more}",
                StratificationWarning,
                stacklevel=3,
            )
        order = _shuffled(np.arange(n, dtype=np.int64), _shuffle_keys(self.seed, 1)[0])
        fold_of = np.empty(n, dtype=_fold_dtype(self.k))
        stratified_folds(codes, int(classes.shape[0]), order, self.k, fold_of)
        return _folds_from_assignment(fold_of, _fold_sizes(n, self.k))


@attrs.frozen
class GroupKFold(_Splitter):
    """K folds that never split a group: all samples of a group share one fold.

    Deterministic: groups are placed largest first, each into the fold with the
    fewest samples so far (the same folds as scikit-learn's
    ``GroupKFold(k, shuffle=False)``). Fold sizes are as equal as the group
    sizes allow.

    Parameters
    ----------
    k
        Number of folds, ``2 <= k <=`` number of distinct groups.
    """

    k: int = attrs.field(default=5, converter=_k)

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        """Number of folds, ``k``."""
        return self.k

    def _iter_folds(self, X: Any, y: Any, groups: Any) -> Iterator[Fold]:
        if groups is None:
            raise ValueError("GroupKFold.split needs groups (one group label per sample), got None")
        _count_and_check(X, y, groups)
        arr = np.asarray(groups)
        if arr.ndim != 1:
            raise ValueError(f"groups must be 1-dimensional, got shape {arr.shape}")
        try:
            unique, codes = np.unique(arr, return_inverse=True)
        except TypeError as exc:
            raise TypeError(f"groups must hold sortable labels, got {arr.dtype}: {exc}") from None
        if self.k > unique.shape[0]:
            raise ValueError(
                f"k={self.k} folds need at least k distinct groups, got {unique.shape[0]}"
            )
        codes = codes.reshape(-1).astype(np.int64, copy=False)
        sizes = np.bincount(codes, minlength=unique.shape[0]).astype(np.int64)
        by_size = np.argsort(sizes, kind="stable")[::-1].astype(np.int64)
        fold_of = group_folds(sizes, np.ascontiguousarray(by_size), self.k)[codes]
        return _folds_from_assignment(fold_of, np.bincount(fold_of, minlength=self.k))
