"""One train/validation split as an immutable value, and positional row selection."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.validation.checks import is_sparse
from fmacro.validation.values import read_only_copies, value_key

__all__ = ["Fold", "owned_fold", "take_rows"]


def _readonly_indices(value: Any) -> NDArray[np.intp]:
    """A read-only 1-D ``intp`` copy of ``value`` that no caller can change.

    Always a copy: even a read-only array may be turned writeable again by whoever owns
    it. The splitters, whose arrays are private, build folds with :func:`owned_fold`.
    """
    arr = np.array(value, dtype=np.intp, copy=True)
    if arr.ndim != 1:
        raise ValueError(f"fold indices must be 1-dimensional, got shape {arr.shape}")
    arr.flags.writeable = False
    return arr


def take_rows(data: Any, indices: NDArray[np.intp]) -> Any:
    """Select rows of ``data`` by position.

    Works for numpy arrays (a copy, along the first axis), scipy.sparse matrices
    and arrays (COO/DIA/... are converted to CSR first), pandas objects
    (``.iloc``, so the index labels are ignored), lists/tuples and other
    sequences (a list). ``None`` stays ``None``.
    """
    if data is None:
        return None
    if is_sparse(data):
        if getattr(data, "format", None) not in ("csr", "csc", "lil"):
            data = data.tocsr()
        return data[indices]
    iloc = getattr(data, "iloc", None)
    if iloc is not None:
        return iloc[indices]
    if isinstance(data, np.ndarray):
        return data[indices]
    if hasattr(data, "__array__") and hasattr(data, "shape"):
        return np.asarray(data)[indices]
    try:
        return [data[i] for i in indices.tolist()]
    except TypeError:
        raise TypeError(
            "data must support positional row access (array, sparse matrix, pandas object, "
            f"list or sequence), got {type(data).__name__}"
        ) from None


@read_only_copies
@attrs.frozen
class Fold:
    """One split of the samples: read-only ``train`` and ``validation`` index arrays.

    Parameters
    ----------
    train, validation
        Positions (0-based) of the training and validation samples. Stored as
        read-only ``intp`` arrays (copied unless already private and read-only).
    index
        Number of the fold within its repeat, from 0.
    repeat
        Number of the repeat (``RepeatedKFold``), from 0; 0 for single-pass splitters.

    Examples
    --------
    >>> fold = Fold(train=[0, 1, 3], validation=[2])
    >>> (X_train, y_train), (X_val, y_val) = fold.take([10, 11, 12, 13], ["a", "b", "c", "d"])
    >>> X_val, y_val
    ([12], ['c'])
    >>> train, validation = fold  # a Fold unpacks like scikit-learn's index pairs
    """

    train: NDArray[np.intp] = attrs.field(converter=_readonly_indices, eq=value_key)
    validation: NDArray[np.intp] = attrs.field(converter=_readonly_indices, eq=value_key)
    index: int = 0
    repeat: int = 0

    def __iter__(self) -> Iterator[NDArray[np.intp]]:
        """Yield ``train`` then ``validation``."""
        yield self.train
        yield self.validation

    @property
    def n_train(self) -> int:
        """Number of training samples."""
        return int(self.train.shape[0])

    @property
    def n_validation(self) -> int:
        """Number of validation samples."""
        return int(self.validation.shape[0])

    def take(self, X: Any, y: Any = None) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
        """Materialize ``((X_train, y_train), (X_validation, y_validation))``.

        Rows are selected by position (see :func:`take_rows`); ``y=None`` gives
        ``None`` labels. The inputs are never modified.
        """
        return (
            (take_rows(X, self.train), take_rows(y, self.train)),
            (take_rows(X, self.validation), take_rows(y, self.validation)),
        )


def owned_fold(
    train: NDArray[np.intp], validation: NDArray[np.intp], index: int = 0, repeat: int = 0
) -> Fold:
    """A :class:`Fold` that takes ``train`` and ``validation`` without copying them.

    For the splitters only: the arrays must be 1-D ``intp`` arrays that nothing else
    references; they are made read-only here.
    """
    for arr in (train, validation):
        if arr.dtype != np.intp or arr.ndim != 1:
            raise ValueError(f"fold indices must be 1-D intp arrays, got {arr.dtype} {arr.shape}")
        arr.flags.writeable = False
    fold = Fold.__new__(Fold)
    for name, value in (
        ("train", train),
        ("validation", validation),
        ("index", int(index)),
        ("repeat", int(repeat)),
    ):
        object.__setattr__(fold, name, value)
    return fold
