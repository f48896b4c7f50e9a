"""A confusion matrix that stores only the (expected, predicted) pairs that occur.

With k classes a dense confusion matrix holds k^2 counts: 800 MB at k = 10^4, 80 GB at
k = 10^5, whatever the number of labels n. At most n cells are non-zero, so when k^2 is
large against n, :class:`SparseConfusionMatrix` keeps those cells only (memory O(n + k))
and derives the one-vs-rest counts from them. It behaves as :class:`ConfusionMatrix` does
(``+``, ``class_counts``, ``n_samples``, ``weighted``) and converts on demand
(``to_dense()`` for moderate k, ``to_scipy()`` for any k).

``MultiFValidation`` picks the sparse form by itself when the dense table would be large
(see :func:`prefer_sparse`); ``MultiFValidation.from_confusion`` accepts either form.
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.validation.checks import INT64_MAX, WEIGHTED_TOTAL_MAX, describe_total
from fmacro.validation.counts import (
    ClassCounts,
    ConfusionMatrix,
    add_counts,
    count_array,
    count_scalar,
    exact_total,
    frozen_array,
    sum_start,
)
from fmacro.validation.values import read_only_copies, value_key

__all__ = ["SparseConfusionMatrix", "count_pairs", "prefer_sparse"]

#: Dense tables up to this many cells are always used (128 MiB of int64 counts).
DENSE_CELLS_MAX = 1 << 24
#: Cells a ``.matrix`` / ``to_dense()`` call may allocate before it refuses.
MATERIALIZE_CELLS_MAX = 1 << 27


def prefer_sparse(n_classes: int, n_samples: int) -> bool:
    """Whether to count pairs sparsely: the dense table is large and mostly empty."""
    cells = n_classes * n_classes
    return cells > DENSE_CELLS_MAX and cells > 8 * n_samples


def count_pairs(
    expected: NDArray[np.integer],
    predicted: NDArray[np.integer],
    n_classes: int,
    weights: NDArray[np.float64] | None = None,
) -> SparseConfusionMatrix:
    """Sparse confusion counts of class codes in ``0..n_classes-1`` (checked by the caller).

    One sort of the n pair keys (O(n log n) time, O(n) memory); with ``weights`` each pair
    adds its weight.
    """
    keys = expected.astype(np.int64) * n_classes + predicted.astype(np.int64)
    order = np.argsort(keys, kind="stable") if weights is not None else None
    if order is None:
        keys.sort()
    else:
        keys = keys[order]
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    cells = keys[starts]
    if weights is None:
        counts: NDArray[Any] = np.diff(np.append(starts, keys.size)).astype(np.int64)
    else:
        assert order is not None
        counts = np.add.reduceat(weights[order], starts) if keys.size else np.zeros(0)
    return SparseConfusionMatrix(n_classes, cells // n_classes, cells % n_classes, counts)


def _confusion_counts(values: Any) -> NDArray[Any]:
    return count_array(values, "confusion counts", ndim=1)


def _index_vector(values: Any) -> NDArray[np.int64]:
    return frozen_array(np.asarray(values).reshape(-1), np.int64)


@read_only_copies
@attrs.frozen
class SparseConfusionMatrix:
    """Confusion counts of the cells that occur: ``counts[i]`` at ``(expected[i], predicted[i])``.

    Cells are unique and sorted by (expected, predicted), so equal matrices compare equal.

    Examples
    --------
    >>> m = SparseConfusionMatrix.from_dense([[3, 0, 1], [0, 2, 0], [0, 0, 0]])
    >>> m.expected.tolist(), m.predicted.tolist(), m.counts.tolist()
    ([0, 0, 1], [0, 2, 1], [3, 1, 2])
    >>> m.class_counts().fp.tolist(), m.n_samples
    ([0, 0, 1], 6)
    """

    n_classes: int = attrs.field(converter=int)
    expected: NDArray[np.int64] = attrs.field(converter=_index_vector, eq=value_key)
    predicted: NDArray[np.int64] = attrs.field(converter=_index_vector, eq=value_key)
    counts: NDArray[Any] = attrs.field(converter=_confusion_counts, eq=value_key)

    def __attrs_post_init__(self) -> None:
        k = self.n_classes
        if k < 1:
            raise ValueError(f"n_classes must be at least 1, got {k}")
        if not self.expected.size == self.predicted.size == self.counts.size:
            raise ValueError("expected, predicted and counts must have one entry per cell")
        for name, idx in (("expected", self.expected), ("predicted", self.predicted)):
            if idx.size and (idx.min() < 0 or idx.max() >= k):
                raise ValueError(f"{name} cell indices must lie in 0..{k - 1}")
        keys = self.expected * k + self.predicted
        if keys.size > 1 and not (np.diff(keys) > 0).all():
            raise ValueError("cells must be unique and sorted by (expected, predicted)")
        # The rule of ConfusionMatrix: the total (n_samples) must fit, so that no sum of
        # counts (a row, a column, the total) wraps around int64 or overflows float64.
        total = exact_total(self.counts)
        if self.weighted and not total <= WEIGHTED_TOTAL_MAX:
            raise ValueError(
                f"the confusion matrix counts sum to {describe_total(self.counts)}, more than "
                "2**1022 (about 4.5e307), beyond which weighted counts overflow float64"
            )
        if not self.weighted and total > INT64_MAX:
            raise ValueError(
                f"the confusion matrix counts sum to {total}, more than 2**63 - 1, the largest "
                "int64: integer counts and their total must fit in int64"
            )

    @classmethod
    def from_dense(cls, matrix: Any) -> SparseConfusionMatrix:
        """The non-zero cells of a square count matrix (or a ``ConfusionMatrix``)."""
        arr = (matrix if isinstance(matrix, ConfusionMatrix) else ConfusionMatrix(matrix)).matrix
        rows, cols = np.nonzero(arr)
        return cls(arr.shape[0], rows, cols, arr[rows, cols])

    @classmethod
    def zero(cls, n_classes: int) -> SparseConfusionMatrix:
        """The identity of ``+`` for ``n_classes`` classes."""
        empty = np.zeros(0, dtype=np.int64)
        return cls(n_classes, empty, empty, empty)

    @property
    def weighted(self) -> bool:
        """Whether the counts are sums of sample weights (floats)."""
        return bool(self.counts.dtype == np.float64)

    @property
    def n_samples(self) -> int | float:
        """Number of samples counted (their total weight when weighted)."""
        return count_scalar(self.counts.sum())

    def class_counts(self) -> ClassCounts:
        """One-vs-rest counts: TP on the diagonal, FP by column, FN by row, in O(cells + k)."""
        k = self.n_classes
        diagonal = self.expected == self.predicted
        if self.weighted:
            w = self.counts
            tp = np.bincount(self.expected[diagonal], weights=w[diagonal], minlength=k)
            by_row = np.bincount(self.expected, weights=w, minlength=k)
            by_col = np.bincount(self.predicted, weights=w, minlength=k)
        else:
            # Integers are summed in int64: exact, as the total (checked at construction)
            # bounds every row and column sum. (A float bincount rounds past 2**53.)
            tp = np.zeros(k, dtype=np.int64)
            tp[self.expected[diagonal]] = self.counts[diagonal]  # one cell per class
            by_row = np.zeros(k, dtype=np.int64)
            np.add.at(by_row, self.expected, self.counts)
            by_col = np.zeros(k, dtype=np.int64)
            np.add.at(by_col, self.predicted, self.counts)
        fp = by_col - tp
        fn = by_row - tp
        tn = self.n_samples - tp - fp - fn
        if self.weighted:
            fp, fn, tn = (np.maximum(a, 0.0) for a in (fp, fn, tn))
        return ClassCounts(tp, fp, fn, tn)

    @property
    def matrix(self) -> NDArray[Any]:
        """The dense k x k matrix (refused when it would exceed 2^27 cells)."""
        return self.to_dense()

    def to_dense(self) -> NDArray[Any]:
        """The dense k x k matrix, rows expected and columns predicted."""
        k = self.n_classes
        if k * k > MATERIALIZE_CELLS_MAX:
            raise ValueError(
                f"a dense confusion matrix of {k} classes has {k * k:,} cells; "
                "use to_scipy() for a sparse matrix, or class_counts() for per-class counts"
            )
        out = np.zeros((k, k), dtype=self.counts.dtype)
        out[self.expected, self.predicted] = self.counts
        out.flags.writeable = False
        return out

    def to_scipy(self) -> Any:
        """A ``scipy.sparse.csr_array`` (needs scipy)."""
        from scipy import sparse

        k = self.n_classes
        return sparse.csr_array((self.counts, (self.expected, self.predicted)), shape=(k, k))

    def __add__(self, other: object) -> SparseConfusionMatrix:
        if isinstance(other, ConfusionMatrix):
            other = SparseConfusionMatrix.from_dense(other)
        if not isinstance(other, SparseConfusionMatrix):
            return NotImplemented
        if other.n_classes != self.n_classes:
            raise ValueError(
                f"cannot add confusion matrices of {self.n_classes} and {other.n_classes} classes"
            )
        k = self.n_classes
        keys = np.concatenate(
            [self.expected * k + self.predicted, other.expected * k + other.predicted]
        )
        cells, inverse = np.unique(keys, return_inverse=True)
        mine = np.zeros(cells.size, dtype=self.counts.dtype)
        mine[inverse[: self.counts.size]] = self.counts
        theirs = np.zeros(cells.size, dtype=other.counts.dtype)
        theirs[inverse[self.counts.size :]] = other.counts
        # Exact, refusing a cell past int64 (or 2**1022 weighted) with its true sum, as
        # ConfusionMatrix does; the cell is named by its (expected, predicted) classes.
        summed = add_counts(
            mine,
            theirs,
            "confusion matrix counts",
            where=lambda at: f"[{int(cells[at[0]]) // k}, {int(cells[at[0]]) % k}]",
        )
        return SparseConfusionMatrix(k, cells // k, cells % k, summed)

    def __radd__(self, other: object) -> SparseConfusionMatrix:
        if isinstance(other, ConfusionMatrix):
            return self + other
        return sum_start(other, self)
