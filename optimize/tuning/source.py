"""Where a walk reads a class's cuts: dense scores or the columns of a CSC matrix.

:func:`walk_inputs` checks the scores and labels once (as :func:`optimize.class_points`
does) into :class:`WalkInputs`; :func:`over_classes` runs a kernel over the classes of
some columns, once over the CSC columns or on each dense block, with a :data:`Source`
that :func:`source_cuts` reads: every walk (:mod:`.hulls`, :mod:`.screen`,
:mod:`.empty`) is written once for both layouts. Internal: the names are public for the
sibling modules and fmacro.dask.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.inputs import matching_shapes
from fmacro.optimize.search._blocks import dense_labels, dense_scores, map_blocks, sorted_positives
from fmacro.optimize.search.points import (
    csc_column_cuts,
    longest_column,
    sorted_cuts,
    sparse_labels,
    sparse_scores,
)
from fmacro.validation.checks import is_sparse
from fmacro.validation.dispatch import kernel

__all__ = [
    "Source",
    "WalkInputs",
    "class_cuts",
    "csc_source",
    "dense_source",
    "over_classes",
    "source_classes",
    "source_cuts",
    "walk_inputs",
]

_T = TypeVar("_T")


@kernel(cache=True, nogil=True)
def class_cuts(
    scores: NDArray[np.floating],
    labels: NDArray[np.bool_],
    srt: NDArray[np.floating],
    tp: NDArray[np.int64],
    fp: NDArray[np.int64],
    thr: NDArray[np.float64],
) -> tuple[int, int]:
    """Every cut of one dense class (``srt``: its scores ascending) into ``tp``, ``fp``,
    ``thr``, as :func:`optimize.class_points` makes them; returns (cuts, positives)."""
    pos = sorted_positives(scores, labels)
    return sorted_cuts(srt, pos, tp, fp, thr), pos.size


@attrs.frozen(eq=False)
class WalkInputs:
    """Scores and labels checked once, in the form the walks read.

    Built by :func:`walk_inputs`; a fit and its edge walk, and every half of
    ``prior="cv"``, share one instead of converting the input each time. Dense: ``scores``
    (:func:`dense_scores`, not copied) and ``labels`` (a bool array or a checked CSC
    matrix, :func:`dense_labels`). Sparse scores: ``csc`` (indptr, indices, data of the
    checked CSC scores, NaN/inf refused) and ``label_columns`` (positive rows by column).
    """

    n_obj: int
    n_cols: int
    scores: Any = None
    labels: Any = None
    csc: tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]] | None = None
    label_columns: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None


def walk_inputs(scores: Any, labels: Any) -> WalkInputs:
    """``scores`` (dense, or a scipy sparse matrix of retrieved entries) and 0/1 ``labels``,
    checked as :func:`optimize.class_points` checks them, for the walks below."""
    n_obj, n_cols = matching_shapes(scores, labels)
    if not is_sparse(scores):
        return WalkInputs(n_obj, n_cols, dense_scores(scores), dense_labels(labels))
    csc = sparse_scores(scores)
    arrays = (
        np.asarray(csc.indptr, dtype=np.int64),
        np.asarray(csc.indices, dtype=np.int64),
        np.ascontiguousarray(csc.data, dtype=np.float64),
    )
    return WalkInputs(n_obj, n_cols, csc=arrays, label_columns=sparse_labels(labels))


# One class's cuts come from a dense block (its rows: scores, labels, sorted scores) or
# from the columns ``cols`` of a CSC matrix holding retrieved entries only: the walks
# below read either through source_cuts, so each is written once. A dense source has
# empty CSC arrays, a CSC source empty dense ones.
Source = tuple[
    NDArray[Any],  # dense scores, one class per row
    NDArray[np.bool_],  # dense labels
    NDArray[Any],  # dense scores, each row ascending
    NDArray[np.int64],  # CSC scores: indptr, rows, values
    NDArray[np.int64],
    NDArray[np.float64],
    NDArray[np.int64],  # CSC labels: indptr, positive rows
    NDArray[np.int64],
    NDArray[np.int64],  # the CSC columns walked
    int,  # objects
]


def dense_source(u: NDArray[Any], yb: NDArray[np.bool_], srt: NDArray[Any]) -> Source:
    none = np.zeros(0, dtype=np.int64)
    return (u, yb, srt, none, none, np.zeros(0), none, none, none, int(srt.shape[1]))


def csc_source(inputs: WalkInputs, cols: NDArray[np.int64]) -> Source:
    if inputs.csc is None or inputs.label_columns is None:
        raise AssertionError("a CSC source needs CSC inputs")
    dense = np.zeros((0, 0))
    return (
        dense,
        np.zeros((0, 0), dtype=np.bool_),
        dense,
        *inputs.csc,
        *inputs.label_columns,
        cols,
        inputs.n_obj,
    )


def over_classes(
    inputs: WalkInputs,
    cols: NDArray[np.int64],
    kernel: Callable[[Source, int], _T],
    rows: NDArray[np.int64] | None = None,
) -> Sequence[_T]:
    """``kernel(source, first)`` over the classes ``cols`` of ``inputs``: once over the CSC
    columns, or on each dense block (``first``: the index in ``cols`` of its first class)."""
    if inputs.csc is not None:
        if rows is not None:
            raise ValueError("rows= is for dense scores")
        return [kernel(csc_source(inputs, cols), 0)]
    return map_blocks(
        inputs.scores,
        inputs.labels,
        cols,
        lambda u, yb, srt, first: kernel(dense_source(u, yb, srt), first),
        rows,
    )


@kernel(cache=True, nogil=True)
def source_classes(src: Source) -> tuple[int, int]:
    """(classes of ``src``, room for one class's cuts)."""
    if src[3].size == 0:
        return src[2].shape[0], src[9] + 1
    return src[8].size, longest_column(src[3], src[8]) + 2


@kernel(cache=True, nogil=True)
def source_cuts(
    src: Source,
    i: int,
    tp: NDArray[np.int64],
    fp: NDArray[np.int64],
    thr: NDArray[np.float64],
) -> tuple[int, int]:
    """Every cut of class ``i`` of ``src`` into ``tp``, ``fp``, ``thr``, as
    :func:`optimize.class_points` makes them; returns (cuts, positives)."""
    unsorted, y, srt, s_ptr, s_rows, s_vals, l_ptr, l_rows, cols, n_obj = src
    if s_ptr.size == 0:
        return class_cuts(unsorted[i], y[i], srt[i], tp, fp, thr)
    return csc_column_cuts(s_ptr, s_rows, s_vals, l_ptr, l_rows, cols[i], n_obj, tp, fp, thr)
