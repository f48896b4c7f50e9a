"""The dask plumbing every distributed search shares: worker tasks per block, shapes, merges.

A block holds whole columns: a column chunk of a dask array (its rows merged), or the
rows of the classes a partition of a dask DataFrame of ``(object, class, score, label)``
rows holds after a shuffle by class. :func:`block_tasks` makes one delayed worker task
per block, :func:`input_shape` checks the shape as it does, and the client puts the
blocks' CSR segments back in column order (:func:`column_order`, :func:`concat_ptr`,
:func:`segments`). Used by :mod:`fmacro.dask.thresholds` and :mod:`fmacro.dask.tune`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any, Concatenate, ParamSpec, TypeVar

import numpy as np
from numpy.typing import NDArray

from fmacro.dask._checks import (
    ROW_COLUMNS,
    RowSpec,
    array_inputs,
    is_dask_array,
    row_names,
    row_spec,
)
from fmacro.dask._imports import import_dask, is_dask_collection
from fmacro.optimize.offsets import indptr_from_counts
from fmacro.validation.checks import is_sparse
from fmacro.validation.frames import frame_columns

__all__ = [
    "block_tasks",
    "column_order",
    "concat_ptr",
    "has_positive",
    "input_shape",
    "positions_in",
    "segments",
    "wide_frames",
]


def has_positive(labels: Any) -> bool:
    """Whether ``labels`` (dense or sparse) hold a positive."""
    if is_sparse(labels):
        return bool(labels.count_nonzero() > 0)
    return bool(np.count_nonzero(np.asarray(labels)) > 0)


def segments(indptr: NDArray[np.int64], order: NDArray[np.int64]) -> tuple[Any, Any]:
    """(new indptr, gather index) that put CSR segments in ``order``."""
    lengths = np.diff(indptr)[order]
    new = indptr_from_counts(lengths)
    index = np.repeat(indptr[:-1][order] - new[:-1], lengths) + np.arange(new[-1])
    return new, index


def concat_ptr(ptrs: Sequence[NDArray[np.int64]]) -> NDArray[np.int64]:
    """The offsets of the segments of several CSR offset arrays, one after the other."""
    sizes = np.concatenate([np.diff(p) for p in ptrs]) if ptrs else np.zeros(0, np.int64)
    return indptr_from_counts(sizes)


def column_order(columns: NDArray[np.int64]) -> NDArray[np.int64]:
    """The order that sorts the blocks' classes ``columns`` (concatenated) by column;
    refuses none at all, and a class in two blocks."""
    if columns.size == 0:
        raise ValueError("labels has no class with a positive example")
    order = np.argsort(columns, kind="stable")
    if np.any(np.diff(columns[order]) == 0):
        raise ValueError("a class appears in two blocks; each class's rows must be in one block")
    return order


def _array_blocks(
    scores: Any, labels: Any, task: Callable[..., Any], settings: Any, shape: tuple[Any, Any]
) -> tuple[list[Any], int, int]:
    """One delayed ``task(scores_block, labels_block, first_column, settings)`` per
    column chunk, and the shape (``shape``: the ``n_samples, n_classes`` given)."""
    dask = import_dask()
    da = dask.array
    labels, n_samples, n_classes = array_inputs(scores, labels, *shape)
    # a block holds whole columns: a class's cuts need all its objects
    scores = scores.rechunk({0: -1})
    labels = (
        labels.rechunk(scores.chunks)
        if is_dask_collection(labels)
        else da.from_array(labels, chunks=scores.chunks)
    )
    firsts = np.concatenate(([0], np.cumsum(scores.chunks[1])[:-1]))
    # optimize_graph=False: optimized apart, the two graphs would each inline a source
    # the scores and labels share, computing it twice (dask.compute optimizes the join).
    s_blocks = scores.to_delayed(optimize_graph=False).ravel()
    l_blocks = labels.to_delayed(optimize_graph=False).ravel()
    blocks = [
        dask.delayed(task, pure=True)(sb, lb, int(first), settings)
        for sb, lb, first in zip(s_blocks, l_blocks, firsts, strict=True)
    ]
    return blocks, n_samples, n_classes


def _frame_blocks(
    frame: Any, spec: RowSpec, task: Callable[..., Any], settings: Any
) -> tuple[list[Any], int, int]:
    """One delayed ``task(partition, spec, settings)`` per partition of the rows
    shuffled by class, and the shape."""
    dask = import_dask()
    # every row of a class in one partition: a class's cuts need all its rows, and a
    # repeated (object, class) pair is found there
    by_class = frame[list(spec.names)].shuffle(on=spec.names[1])
    blocks = [
        dask.delayed(task, pure=True)(part, spec, settings)
        for part in by_class.to_delayed(optimize_graph=False)
    ]
    return blocks, spec.n_samples, spec.n_classes


def block_tasks(
    scores: Any,
    labels: Any,
    tasks: tuple[Callable[..., Any], Callable[..., Any]],
    settings: Any,
    *,
    columns: Sequence[str] = ROW_COLUMNS,
    n_samples: int | None = None,
    n_classes: int | None = None,
    scheduler: Any = None,
) -> tuple[list[Any], int, int]:
    """The delayed worker tasks of a dask array of scores with its labels (the first of
    ``tasks``, per column chunk) or of a dask DataFrame of rows (the second, per
    partition, checked there by :func:`~fmacro.dask._checks.partition_columns`), and the
    shape ``(n_samples, n_classes)``."""
    names = _row_names(scores, labels, columns)
    if names is not None:
        spec = row_spec(scores, names, n_samples, n_classes, scheduler)
        return _frame_blocks(scores, spec, tasks[1], settings)
    return _array_blocks(scores, labels, tasks[0], settings, (n_samples, n_classes))


def input_shape(
    scores: Any,
    labels: Any,
    *,
    columns: Sequence[str] = ROW_COLUMNS,
    n_samples: int | None = None,
    n_classes: int | None = None,
    scheduler: Any = None,
) -> tuple[int, int]:
    """``(n_samples, n_classes)`` of the input :func:`block_tasks` takes, checked as it
    checks it (for rows without both given, one pass for the largest ids)."""
    names = _row_names(scores, labels, columns)
    if names is not None:
        spec = row_spec(scores, names, n_samples, n_classes, scheduler)
        return spec.n_samples, spec.n_classes
    _, n, k = array_inputs(scores, labels, n_samples, n_classes)
    return n, k


def _row_names(
    scores: Any, labels: Any, columns: Sequence[str]
) -> tuple[str, str, str, str] | None:
    """The four row columns' names for a dask DataFrame of rows, ``None`` for an array."""
    if not is_dask_collection(scores):
        raise TypeError(
            f"scores must be a dask array or a dask DataFrame of rows, got {type(scores).__name__}"
        )
    if getattr(scores, "ndim", 0) == 2 and hasattr(scores, "divisions"):
        if labels is not None:
            raise ValueError("rows carry their labels: pass labels=None with a DataFrame")
        return row_names(columns)
    if not is_dask_array(scores):
        raise TypeError(
            "scores must be a dask array or a dask DataFrame of rows, got a "
            f"{type(scores).__name__}"
        )
    if labels is None:
        raise TypeError("labels are required with a dask array of scores")
    return None


def positions_in(wanted: NDArray[np.int64], columns: NDArray[np.int64]) -> NDArray[np.int64]:
    """For each of a block's ``columns``, its index in ``wanted`` (increasing), or -1."""
    if wanted.size == 0:
        return np.full(columns.size, -1, dtype=np.int64)
    at = np.minimum(np.searchsorted(wanted, columns), wanted.size - 1)
    return np.where(wanted[at] == columns, at, -1).astype(np.int64)


P = ParamSpec("P")
R = TypeVar("R")


def wide_frames(
    func: Callable[Concatenate[Any, Any, P], R],
) -> Callable[Concatenate[Any, Any, P], R]:
    """Decorate a dask entry point so that it also takes wide dask DataFrames.

    A dask DataFrame of ``scores`` given *with* ``labels`` (a dask DataFrame or array) is
    one column per class, not the ``(object, class, score, label)`` rows (which carry
    their labels): both become dask arrays of whole rows, cut into about as many column
    blocks as the scores have partitions, and the result is named by the columns (two
    DataFrames must have the same ones, as in memory). Computing the arrays' row counts
    costs one pass over the partitions.
    """

    @functools.wraps(func)
    def entry(scores: Any, labels: Any = None, *args: P.args, **kwargs: P.kwargs) -> R:
        if labels is None or not _is_dask_frame(scores):
            return func(scores, labels, *args, **kwargs)
        names = frame_columns(scores, labels, names=("scores", "labels"), remedy="")
        width = len(scores.columns)
        step = max(1, math.ceil(width / max(1, scores.npartitions)))
        s, y = (_whole_rows(x, step) for x in (scores, labels))
        result = func(s, y, *args, **kwargs)
        return result if names is None else result.with_classes(names)  # type: ignore[attr-defined]

    return entry


def _is_dask_frame(x: Any) -> bool:
    return is_dask_collection(x) and getattr(x, "ndim", 0) == 2 and hasattr(x, "divisions")


def _whole_rows(x: Any, step: int) -> Any:
    """A dask DataFrame or array as a dask array of whole rows in column blocks of ``step``."""
    arr = x.to_dask_array(lengths=True) if _is_dask_frame(x) else x
    return arr.rechunk((arr.shape[0], step))
