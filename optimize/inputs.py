"""Checks of the score and label matrices every optimize function takes.

Internal (not user API); its name is public because fmacro.dask builds on it too.

One home for each check: shapes, 0/1 labels, finite scores, and which classes are kept
(averaged) under ``empty_classes``. Everything here imports only :mod:`fmacro.validation`,
so every optimize module can build on it without an import cycle.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.offsets import indptr_from_counts, row_of_entries
from fmacro.validation.checks import as_float_array, check_exact_in_float64, is_sparse
from fmacro.validation.labels import numpy_from_pandas

__all__ = [
    "EMPTY_CLASS_CHOICES",
    "LabelRows",
    "as_binary_labels",
    "check_empty_classes",
    "kept_classes",
    "label_rows",
    "matching_shapes",
    "matrix_shape",
    "scores_checked",
    "sparse_hits",
]

EMPTY_CLASS_CHOICES = ("exclude", "include")


def matrix_shape(x: Any, name: str) -> tuple[int, int]:
    """``(n_samples, n_classes)`` of a dense or sparse matrix; refuse other ranks and empties."""
    shape = getattr(x, "shape", None)
    if shape is None:
        shape = np.shape(x)
    if len(shape) != 2:
        raise ValueError(f"{name} must be 2-dimensional (n_samples, n_classes), got shape {shape}")
    if shape[0] == 0 or shape[1] == 0:
        raise ValueError(f"{name} is empty (shape {shape}); at least one object and class")
    return int(shape[0]), int(shape[1])


def matching_shapes(scores: Any, labels: Any) -> tuple[int, int]:
    """The common shape of ``scores`` and ``labels``, or a ``ValueError`` naming both."""
    s_shape = matrix_shape(scores, "scores")
    l_shape = matrix_shape(labels, "labels")
    if s_shape != l_shape:
        raise ValueError(
            f"scores and labels must have the same shape, got scores {s_shape} and labels {l_shape}"
        )
    return s_shape


def check_empty_classes(empty_classes: str, zd: float) -> None:
    """Check ``empty_classes`` and its combination with the 0/0 policy."""
    if empty_classes not in EMPTY_CLASS_CHOICES:
        raise ValueError(f"empty_classes must be 'exclude' or 'include', got {empty_classes!r}")
    if empty_classes == "include" and math.isnan(zd):
        raise ValueError(
            "empty_classes='include' needs zero_division 0.0 or 1.0 (with nan every class "
            "without positives would be undefined); use empty_classes='exclude'"
        )


def kept_classes(support: NDArray[Any], empty_classes: str) -> NDArray[np.int64]:
    """Columns averaged in P and R: those with a positive, or all with ``"include"``."""
    if empty_classes == "include":
        return np.arange(support.size, dtype=np.int64)
    kept = np.flatnonzero(support > 0).astype(np.int64)
    if kept.size == 0:
        raise ValueError("labels has no class with a positive example")
    return kept


def as_binary_labels(labels: Any, name: str = "labels") -> NDArray[np.bool_]:
    """Return ``labels`` (any shape) as a new boolean array, refusing values other than 0/1.

    Accepts bool, integer and float arrays holding only 0 and 1, and pandas objects of
    such numpy, nullable (``Int64``, ``boolean``, ``Float64``, ...) or pyarrow dtypes; a
    missing entry (``pd.NA``) is refused with its position.
    """
    if is_sparse(labels):
        raise TypeError(f"{name} must be a dense array here, got a sparse matrix")
    arr = np.asarray(numpy_from_pandas(labels, name=name, what="label"))
    if arr.dtype == np.bool_:
        return np.array(arr, dtype=np.bool_, copy=True)
    if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(
            f"{name} must be a 0/1 indicator (bool, integer or float), got dtype {arr.dtype}"
        )
    bad = (arr != 0) & (arr != 1)
    if bad.any():
        found = np.unique(arr[bad])[:5].tolist()
        raise ValueError(f"{name} must hold only 0 and 1, found {found}")
    out: NDArray[np.bool_] = arr == 1
    return out


class LabelRows(NamedTuple):
    """Validated 0/1 labels by row: CSR structure, plus the bool matrix if given dense."""

    indptr: NDArray[np.int64]
    indices: NDArray[np.int64]  # sorted within each row
    dense: NDArray[np.bool_] | None

    @property
    def nnz(self) -> int:
        return int(self.indices.size)

    def to_dense(self, shape: tuple[int, int]) -> NDArray[np.bool_]:
        if self.dense is not None:
            return self.dense
        out = np.zeros(shape, dtype=bool)
        out[row_of_entries(self.indptr), self.indices] = True
        return out


def label_rows(labels: Any) -> LabelRows:
    """Labels (dense or sparse, checked 0/1) by row; dense input needs no scipy."""
    if is_sparse(labels):
        csr = labels.tocsr(copy=True)
        csr.sum_duplicates()
        as_binary_labels(np.asarray(csr.data), "labels")
        csr.eliminate_zeros()
        csr.sort_indices()
        return LabelRows(
            np.asarray(csr.indptr, dtype=np.int64), np.asarray(csr.indices, dtype=np.int64), None
        )
    dense = as_binary_labels(labels, "labels")
    rows, cols = np.nonzero(dense)  # row-major: columns come sorted within each row
    indptr = indptr_from_counts(np.bincount(rows, minlength=dense.shape[0]))
    return LabelRows(indptr, cols.astype(np.int64), dense)


def sparse_hits(
    s: Any, y: LabelRows, thr: NDArray[np.float64]
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.bool_]]:
    """``(row, col, is_positive)`` of the retrieved entries of CSR ``s`` at or above their
    column's threshold (a ``-inf`` threshold is left to the caller: it predicts every
    object, retrieved or not), and whether ``y`` labels each of them positive."""
    m = s.shape[1]
    row = row_of_entries(s.indptr)
    col = np.asarray(s.indices, dtype=np.int64)
    hit = (s.data >= thr[col]) & ~np.isneginf(thr[col])
    keys = row[hit] * m + col[hit]
    label_keys = row_of_entries(y.indptr) * m + y.indices
    if label_keys.size:
        at = np.minimum(np.searchsorted(label_keys, keys), label_keys.size - 1)
        is_pos = label_keys[at] == keys
    else:
        is_pos = np.zeros(keys.size, dtype=bool)
    return row[hit], col[hit], is_pos


def scores_checked(scores: Any) -> Any:
    """Dense float64 array or canonical CSR (finite data), never the caller's object.

    pandas scores of nullable (``Float64``, ``Int64``) or pyarrow dtypes are read as the
    numpy dtype they hold; a missing entry (``pd.NA``) is refused with its position.
    """
    if is_sparse(scores):
        csr = scores.tocsr(copy=True)
        csr.sum_duplicates()
        csr.sort_indices()
        check_exact_in_float64(csr.data, "scores")
        data = np.asarray(csr.data, dtype=np.float64)
        if not np.isfinite(data).all():
            bad = int(data.size - np.count_nonzero(np.isfinite(data)))
            raise ValueError(f"scores contains {bad} NaN or infinite value(s)")
        csr.data = data
        return csr
    return as_float_array(numpy_from_pandas(scores, name="scores", what="score"), "scores", ndim=2)


def check_time_limit(time_limit: Any) -> float | None:
    """Seconds a search may take: a positive finite number, or None (no limit)."""
    if time_limit is None:
        return None
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float, np.number)):
        raise TypeError(f"time_limit must be a number of seconds or None, got {time_limit!r}")
    t = float(time_limit)
    if not t > 0.0 or math.isinf(t):
        raise ValueError(f"time_limit must be a positive finite number of seconds, got {t!r}")
    return t
