"""Decision rules: how a threshold-search result turns new scores into predictions.

A result carries its rule as data. :class:`PerClassThresholds` predicts ``score >=
threshold`` column by column (every method but RCut); :class:`TopK` predicts each object's
``k`` highest-scored classes (RCut, :func:`fmacro.optimize.top_k`). Each rule knows how many
columns it was made for and refuses score matrices of another width.

Predictions come back in the form the scores came in: a bool array ``(N, n_columns)`` for
an array or a scipy sparse matrix, a DataFrame of bool columns with the scores' index and
columns for a pandas DataFrame (:func:`like_scores`).
"""

from __future__ import annotations

import sys
from typing import Any, overload

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.inputs import matrix_shape, scores_checked
from fmacro.optimize.offsets import row_of_entries
from fmacro.validation.checks import is_sparse
from fmacro.validation.counts import frozen_array
from fmacro.validation.values import read_only_copies

__all__ = [
    "PerClassThresholds",
    "TopK",
    "check_k",
    "check_thresholds",
    "like_scores",
    "predict_top_k",
    "top_entries",
]


def check_thresholds(
    values: Any, name: str = "thresholds", n_columns: int | None = None
) -> NDArray[np.float64]:
    """``values`` as read-only float64 thresholds: one per column, each a number or +-inf.

    ``+inf`` never predicts a column and ``-inf`` predicts every object; NaN is no threshold
    (``score >= nan`` is never true, so the column would silently never be predicted).

    Raises
    ------
    TypeError
        ``values`` are not numbers (booleans, strings, objects, complex numbers).
    ValueError
        ``values`` are not 1-D with ``n_columns`` entries (at least one), or hold NaN.
    """
    arr = np.asarray(values)
    if arr.dtype.kind not in "iuf":
        raise TypeError(
            f"{name} must be real numbers (one threshold per column), got dtype {arr.dtype}"
        )
    if n_columns is not None and arr.shape != (n_columns,):
        raise ValueError(
            f"{name} must have one entry per class column, shape ({n_columns},), got {arr.shape}"
        )
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(
            f"{name} must be a 1-D array with one threshold per column, got shape {arr.shape}"
        )
    out = frozen_array(arr, np.float64)
    nan = np.isnan(out)
    if nan.any():
        where = np.flatnonzero(nan)
        raise ValueError(
            f"{name} contains {where.size} NaN value(s) (column(s) {where[:5].tolist()}"
            f"{' ...' if where.size > 5 else ''}); a threshold is a number, +inf (never "
            "predict the column) or -inf (always)"
        )
    return out


def _is_frame(x: Any) -> bool:
    """Whether ``x`` is a pandas DataFrame (pandas stays optional: never imported here)."""
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(x, pd.DataFrame)


@overload
def like_scores(scores: NDArray[Any], predicted: NDArray[np.bool_]) -> NDArray[np.bool_]: ...
@overload
def like_scores(scores: Any, predicted: NDArray[np.bool_]) -> Any: ...
def like_scores(scores: Any, predicted: NDArray[np.bool_]) -> Any:
    """``predicted`` in the form of ``scores``: for a DataFrame, a DataFrame of bool columns
    with its index and columns (names and kinds kept); else the bool array itself."""
    if not _is_frame(scores):
        return predicted
    import pandas as pd

    return pd.DataFrame(predicted, index=scores.index, columns=scores.columns, copy=False)


def _checked_k(k: object) -> int:
    return check_k(k, "k")


def _checked_width(n_columns: object) -> int | None:
    return None if n_columns is None else check_k(n_columns, "n_columns")


@read_only_copies
@attrs.frozen(eq=False)
class PerClassThresholds:
    """Predict column ``j`` positive iff ``score >= thresholds[j]``.

    ``+inf`` never predicts, ``-inf`` predicts every object (also the entries a sparse
    score matrix does not store).
    """

    thresholds: NDArray[np.float64] = attrs.field(converter=check_thresholds)

    @overload
    def apply(self, scores: NDArray[Any]) -> NDArray[np.bool_]: ...
    @overload
    def apply(self, scores: Any) -> Any: ...
    def apply(self, scores: Any) -> Any:
        """Predictions ``score >= threshold``, shape ``(N, n_columns)``.

        A dense bool array for dense or scipy sparse ``scores``; for a pandas DataFrame, a
        DataFrame of bool columns with the scores' index and columns.
        """
        return like_scores(scores, self._predict(scores))

    def _predict(self, scores: Any) -> NDArray[np.bool_]:
        n_cols = self.thresholds.shape[0]
        shape = getattr(scores, "shape", None) if is_sparse(scores) else np.shape(scores)
        if shape is None or len(shape) != 2 or shape[1] != n_cols:
            raise ValueError(f"scores must have shape (n_samples, {n_cols}), got {shape}")
        s = scores_checked(scores)
        if is_sparse(s):
            out = np.zeros(shape, dtype=bool)
            out[:, np.isneginf(self.thresholds)] = True
            coo = s.tocoo()
            hit = coo.data >= self.thresholds[coo.col] if coo.nnz else np.zeros(0, dtype=bool)
            out[coo.row[hit], coo.col[hit]] = True
            return out
        out_dense: NDArray[np.bool_] = s >= self.thresholds[None, :]
        return out_dense


@attrs.frozen
class TopK:
    """Predict each object's ``k`` highest-scored classes (RCut); see :func:`predict_top_k`.

    ``n_columns`` is the width of the score matrices the rule was tuned on: scores of another
    width are refused (``k`` is at most ``n_columns``). A :class:`ThresholdResult
    <fmacro.optimize.ThresholdResult>` always fills it in; a bare ``TopK(k)`` without it takes
    scores of any width.
    """

    k: int = attrs.field(converter=_checked_k)
    n_columns: int | None = attrs.field(default=None, converter=_checked_width)

    @n_columns.validator
    def _k_fits(self, _attribute: Any, value: int | None) -> None:
        if value is not None and self.k > value:
            raise ValueError(f"k must be at most n_columns ({value}), got k={self.k}")

    @overload
    def apply(self, scores: NDArray[Any]) -> NDArray[np.bool_]: ...
    @overload
    def apply(self, scores: Any) -> Any: ...
    def apply(self, scores: Any) -> Any:
        """Each object's top ``k`` classes, shape ``(N, n_columns)``.

        A dense bool array for dense or scipy sparse ``scores``; for a pandas DataFrame, a
        DataFrame of bool columns with the scores' index and columns.
        """
        if self.n_columns is not None:
            shape = matrix_shape(scores, "scores")
            if shape[1] != self.n_columns:
                raise ValueError(
                    f"scores must have shape (n_samples, {self.n_columns}), got {shape}"
                )
        return like_scores(scores, predict_top_k(scores, self.k))


def check_k(k: object, name: str) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"{name} must be a positive integer, got {type(k).__name__}")
    if int(k) < 1:
        raise ValueError(f"{name} must be a positive integer, got {k!r}")
    return int(k)


def top_entries(scores: Any, k_max: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(rows, cols) of each object's top-``k_max`` classes, rank-major.

    Returns ``cols`` of shape (N, k_max) with -1 where an object has fewer stored
    entries; ties broken by the lower column index.
    """
    if is_sparse(scores):
        n, _ = scores.shape
        row = row_of_entries(scores.indptr)
        order = np.lexsort((scores.indices, -scores.data, row))
        row_o = row[order]
        starts = np.asarray(scores.indptr[:-1])
        rank = np.arange(order.size) - starts[row_o]
        keep = rank < k_max
        cols = np.full((n, k_max), -1, dtype=np.int64)
        cols[row_o[keep], rank[keep]] = np.asarray(scores.indices)[order[keep]]
        return np.arange(n), cols
    n, m = scores.shape
    if k_max < m:
        part = np.argpartition(-scores, k_max - 1, axis=1)[:, :k_max]
        # argpartition may cut through a tie at the k-th value: widen to all columns
        # holding that value, then order by (-score, column).
        kth = np.take_along_axis(scores, part, axis=1).min(axis=1)
        cand_mask = scores >= kth[:, None]
        if int(cand_mask.sum(axis=1).max()) > k_max:
            rows_c, cols_c = np.nonzero(cand_mask)
            vals = scores[rows_c, cols_c]
            order = np.lexsort((cols_c, -vals, rows_c))
            rows_o, cols_o = rows_c[order], cols_c[order]
            starts = np.searchsorted(rows_o, np.arange(n))
            rank = np.arange(rows_o.size) - starts[rows_o]
            keep = rank < k_max
            out = np.full((n, k_max), -1, dtype=np.int64)
            out[rows_o[keep], rank[keep]] = cols_o[keep]
            return np.arange(n), out
        cand = part
    else:
        cand = np.broadcast_to(np.arange(m), (n, m))
    vals = np.take_along_axis(scores, cand, axis=1)
    order = np.lexsort((cand, -vals), axis=1)
    cols = np.take_along_axis(cand, order, axis=1)[:, :k_max].astype(np.int64)
    return np.arange(n), cols


def predict_top_k(scores: Any, k: int) -> NDArray[np.bool_]:
    """RCut predictions: each object's ``k`` highest-scored classes (dense bool).

    Ties at the k-th place go to the lower column index. For sparse scores only
    stored entries can be predicted (an object with fewer than ``k`` gets all of
    them).
    """
    matrix_shape(scores, "scores")
    s = scores_checked(scores)
    kk = check_k(k, "k")
    n, m = s.shape
    _, cols = top_entries(s, min(kk, m))
    out = np.zeros((n, m), dtype=bool)
    rows = np.repeat(np.arange(n), cols.shape[1])
    flat = cols.reshape(-1)
    ok = flat >= 0
    out[rows[ok], flat[ok]] = True
    return out
