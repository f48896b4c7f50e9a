"""Distributed evaluation: count each chunk on the workers, add the counts in a tree.

``evaluate(expected, predicted)`` takes dask arrays (1-D labels, 2-D indicator matrices
with dense or scipy-sparse chunks) or dask Series/DataFrame columns. Each pair of chunks
is counted where it lives with fmacro's kernels (``*.from_predictions``); the per-chunk
validations are added with ``+`` in a tree of fan-in 8 that keeps chunk order (the
example-based counts of a multi-label validation are per row). Only the counts (and, with
``keep_outcomes=True``, each object's compact outcome, which ``bootstrap`` resamples) reach
the client, and the result equals the in-memory validation of the whole data by value; its
``bootstrap`` equals the in-memory one bit for bit, as chunk order is kept.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, Literal

import attrs
import numpy as np

from fmacro.dask._checks import check_known_chunks, is_dask_array
from fmacro.dask._imports import import_dask, is_dask_collection
from fmacro.validation import BinFValidation, MultiFValidation, MultiLabelFValidation, Validation
from fmacro.validation.checks import check_beta, check_zero_division, is_sparse
from fmacro.validation.frames import frame_columns
from fmacro.validation.multiclass import resolve_classes

__all__ = ["evaluate", "find_classes", "tree_reduce"]

Kind = Literal["binary", "multiclass", "multilabel"]
FAN_IN = 8


# --------------------------------------------------------------------------- chunk pairs


def _is_frame(x: Any) -> bool:
    return is_dask_collection(x) and hasattr(x, "divisions") and hasattr(x, "to_delayed")


def _ndim(x: Any) -> int:
    return int(x.ndim)


def _check_input(x: Any, name: str) -> None:
    if not (is_dask_array(x) or _is_frame(x)):
        raise TypeError(
            f"{name} must be a dask array, Series or DataFrame (or, for predicted, a numpy "
            f"array), got {type(x).__name__}"
        )
    if _ndim(x) not in (1, 2):
        raise ValueError(f"{name} must be 1-D labels or a 2-D indicator matrix, got {x.ndim}-D")


def _as_dask_array(x: Any, name: str) -> Any:
    if is_dask_array(x):
        return x
    if _is_frame(x):
        return x.to_dask_array(lengths=True)
    raise TypeError(f"{name} must be a dask collection, got {type(x).__name__}")


def _chunk_pairs(expected: Any, predicted: Any) -> tuple[list[Any], list[Any]]:
    """Delayed (expected, predicted) chunks that hold the same rows, all columns."""
    da = import_dask().array
    if is_dask_array(expected):
        check_known_chunks(expected, "expected")
    if is_dask_array(predicted):
        check_known_chunks(predicted, "predicted")
    if not is_dask_collection(predicted):
        if not is_dask_array(expected):
            raise TypeError(
                "predicted must be a dask collection when expected is a dask Series/DataFrame, "
                f"got {type(predicted).__name__}"
            )
        arr = predicted if is_sparse(predicted) else np.asarray(predicted)
        if arr.shape[:1] != expected.shape[:1]:
            raise ValueError(
                "expected and predicted must have the same number of rows, got "
                f"{expected.shape[0]} and {arr.shape[0]}"
            )
        predicted = da.from_array(arr, chunks=expected.chunks[:1] + (-1,) * (arr.ndim - 1))
    if _is_frame(expected) and _is_frame(predicted):
        if expected.npartitions != predicted.npartitions:
            raise ValueError(
                "expected and predicted must be split into the same partitions, got "
                f"{expected.npartitions} and {predicted.npartitions} (use columns of one "
                "DataFrame, or repartition one like the other)"
            )
        # optimize_graph=False: each input optimized on its own would inline a source
        # they share (one file, the model's input) into both, computing it twice.
        return list(expected.to_delayed(optimize_graph=False)), list(
            predicted.to_delayed(optimize_graph=False)
        )
    e = _as_dask_array(expected, "expected")
    p = _as_dask_array(predicted, "predicted")
    if e.ndim != p.ndim:
        raise ValueError(
            f"expected and predicted must have the same dimensions, got {e.shape} and {p.shape}"
        )
    if p.shape[0] != e.shape[0]:
        raise ValueError(
            f"expected and predicted must have the same number of rows, got {e.shape[0]} "
            f"and {p.shape[0]}"
        )
    if e.ndim == 2:
        if p.shape[1] != e.shape[1]:
            raise ValueError(
                f"expected and predicted must have the same number of columns, got "
                f"{e.shape[1]} and {p.shape[1]}"
            )
        # a chunk holds whole rows: per-row counts need every column of the row
        e = e.rechunk({1: -1})
        p = p.rechunk((e.chunks[0], (p.shape[1],)))
    else:
        p = p.rechunk(e.chunks)
    # optimize_graph=False: see above (dask.compute optimizes the joined graph once)
    return list(e.to_delayed(optimize_graph=False).ravel()), list(
        p.to_delayed(optimize_graph=False).ravel()
    )


# --------------------------------------------------------------------------- worker side


def _plain(x: Any) -> Any:
    """A chunk as numpy (or scipy sparse): pandas partitions become arrays."""
    if is_sparse(x):
        return x
    to_numpy = getattr(x, "to_numpy", None)
    return to_numpy() if callable(to_numpy) else np.asarray(x)


def _rows(x: Any) -> int:
    return int(x.shape[0])


@attrs.frozen
class _CountChunk:
    """Count one pair of chunks with fmacro's kernels; ``None`` for an empty chunk."""

    kind: str
    classes: tuple[Hashable, ...] | None
    positive: Any
    labels: tuple[Hashable, ...] | None
    beta: float
    zero_division: float
    keep_outcomes: bool = False

    def __call__(self, expected: Any, predicted: Any) -> Validation | None:
        e, p = _plain(expected), _plain(predicted)
        if _rows(e) == 0 and _rows(p) == 0:
            return None
        options: dict[str, Any] = {
            "beta": self.beta,
            "zero_division": self.zero_division,
            "keep_outcomes": self.keep_outcomes,
        }
        if self.kind == "binary":
            return BinFValidation.from_predictions(e, p, positive=self.positive, **options)
        if self.kind == "multiclass":
            return MultiFValidation.from_predictions(e, p, classes=self.classes, **options)
        return MultiLabelFValidation.from_predictions(e, p, labels=self.labels, **options)


def _add_in_order(*parts: Any) -> Any:
    total = None
    for part in parts:
        if part is not None:
            total = part if total is None else total + part
    return total


def _distinct(expected: Any, predicted: Any) -> np.ndarray:
    e, p = _plain(expected).reshape(-1), _plain(predicted).reshape(-1)
    try:
        return np.unique(np.concatenate([e, p]))
    except TypeError as exc:
        raise TypeError(
            f"labels must be sortable to be found across chunks ({exc}); pass classes="
        ) from None


def _union(*parts: np.ndarray) -> np.ndarray:
    out = parts[0]
    for part in parts[1:]:
        out = np.union1d(out, part)
    return out


def tree_reduce(items: Sequence[Any], combine: Callable[..., Any], fan_in: int = FAN_IN) -> Any:
    """Combine delayed values level by level, ``fan_in`` neighbours at a time (order kept)."""
    delayed = import_dask().delayed
    level = list(items)
    if not level:
        raise ValueError("nothing to reduce: the inputs have no chunks")
    while len(level) > 1:
        level = [
            delayed(combine, pure=True)(*level[i : i + fan_in])
            for i in range(0, len(level), fan_in)
        ]
    return level[0] if is_dask_collection(level[0]) else delayed(level[0])


# --------------------------------------------------------------------------- public


def find_classes(expected: Any, predicted: Any, *, scheduler: Any = None) -> tuple[Hashable, ...]:
    """Sorted distinct labels of two dask label vectors: one pass, merged on the workers.

    The classes ``MultiFValidation.from_predictions`` infers in memory.
    """
    dask = import_dask()
    _check_input(expected, "expected")
    e_chunks, p_chunks = _chunk_pairs(expected, predicted)
    distinct = [
        dask.delayed(_distinct, pure=True)(e, p) for e, p in zip(e_chunks, p_chunks, strict=True)
    ]
    (labels,) = dask.compute(tree_reduce(distinct, _union), scheduler=scheduler)
    if labels.size == 0:
        raise ValueError("expected is empty; at least one label is needed")
    return tuple(labels.tolist())


def evaluate(
    expected: Any,
    predicted: Any,
    *,
    kind: Kind | None = None,
    classes: int | Sequence[Hashable] | None = None,
    positive: Any = 1,
    labels: Sequence[Hashable] | None = None,
    beta: float = 1.0,
    zero_division: float = 0.0,
    scheduler: Any = None,
    keep_outcomes: bool = False,
) -> Validation:
    """Validation of dask-held predictions, counted on the workers.

    Parameters
    ----------
    expected
        A dask array (1-D labels, or a 2-D 0/1 indicator matrix whose chunks are dense or
        scipy sparse), a dask Series (labels) or a dask DataFrame (indicator columns).
        A dask array must have known chunk sizes (else a ``ValueError`` names the remedy,
        ``expected.compute_chunk_sizes()``; the same for ``predicted``).
    predicted
        The same layout as ``expected`` (rechunked to its rows when chunked differently),
        e.g. the output of a dask-backed model's ``predict``; a numpy array is split like
        ``expected``. Columns of one dask DataFrame share its partitions.
    kind
        ``"binary"``, ``"multiclass"`` or ``"multilabel"``; ``None``: ``"multilabel"`` for
        2-D inputs, ``"multiclass"`` for 1-D ones.
    classes
        Multiclass only: number of classes or class labels, as in
        ``MultiFValidation.from_predictions``; ``None`` finds them in a first pass (the
        sorted distinct labels of both inputs, merged across chunks).
    positive
        Binary only: the positive label.
    labels
        Multi-label only: names of the label columns. ``None``: the columns of a
        DataFrame input (dask or pandas; read from its metadata, nothing is computed),
        as ``MultiLabelFValidation.from_predictions`` names them in memory; two
        DataFrames with different columns (other names or another order) are refused
        with a ``ValueError``; without a DataFrame, ``0..L-1``. (A dask array made with
        ``DataFrame.to_dask_array`` has no column names: keep the DataFrame on one side,
        or pass ``labels=list(frame.columns)``.)
    beta, zero_division
        As in the validations.
    keep_outcomes
        ``True``: the workers also send each object's compact outcome, so that the
        result's ``bootstrap`` works (and equals the in-memory one bit for bit); default
        ``False``: counts only, as ``from_predictions``.
    scheduler
        Passed to ``dask.compute``; ``None`` uses dask's current scheduler (the default
        ``distributed.Client`` once one exists).

    Returns
    -------
    BinFValidation, MultiFValidation or MultiLabelFValidation
        Equal by value to the in-memory validation of the whole data.

    Examples
    --------
    >>> import dask.array as da
    >>> expected = da.from_array(np.array([0, 1, 2, 2, 1, 0]), chunks=2)
    >>> predicted = da.from_array(np.array([0, 2, 2, 2, 1, 0]), chunks=3)
    >>> v = evaluate(expected, predicted, scheduler="sync")
    >>> v.confusion.matrix.tolist(), v.classes
    ([[2, 0, 0], [0, 1, 1], [0, 0, 2]], (0, 1, 2))

    A multi-label DataFrame's columns name the labels, as in memory:

    >>> import dask.dataframe as dd
    >>> import pandas as pd
    >>> Y = pd.DataFrame({"cat": [1, 0, 1, 1], "dog": [0, 1, 1, 0]})
    >>> P = pd.DataFrame({"cat": [1, 1, 0, 1], "dog": [0, 1, 1, 1]})
    >>> v = evaluate(dd.from_pandas(Y, npartitions=2), dd.from_pandas(P, npartitions=2),
    ...              scheduler="sync")
    >>> v.labels, v.class_counts.tp.tolist()
    (('cat', 'dog'), [2, 2])
    """
    dask = import_dask()
    _check_input(expected, "expected")
    b = check_beta(beta)
    zd = check_zero_division(zero_division)
    ndim = _ndim(expected)
    if kind is None:
        kind = "multilabel" if ndim == 2 else "multiclass"
    if kind not in ("binary", "multiclass", "multilabel"):
        raise ValueError(f"kind must be 'binary', 'multiclass', 'multilabel' or None, got {kind!r}")
    if (kind == "multilabel") != (ndim == 2):
        raise ValueError(
            f"kind={kind!r} needs "
            + ("a 2-D indicator matrix" if kind == "multilabel" else "1-D labels")
            + f", got a {ndim}-D expected"
        )
    class_labels: tuple[Hashable, ...] | None = None
    if kind == "multilabel" and labels is None:
        # the in-memory rule (from_predictions): a DataFrame's columns name the labels
        labels = frame_columns(expected, predicted)
    if kind == "multiclass":
        found = find_classes(expected, predicted, scheduler=scheduler) if classes is None else None
        class_labels, _ = resolve_classes(found if classes is None else classes)
    count = _CountChunk(
        kind,
        class_labels,
        positive,
        None if labels is None else tuple(labels),
        b,
        zd,
        bool(keep_outcomes),
    )
    e_chunks, p_chunks = _chunk_pairs(expected, predicted)
    per_chunk = [
        dask.delayed(count, pure=True)(e, p) for e, p in zip(e_chunks, p_chunks, strict=True)
    ]
    (total,) = dask.compute(tree_reduce(per_chunk, _add_in_order), scheduler=scheduler)
    if total is None:
        raise ValueError("expected is empty; at least one label is needed")
    return total  # type: ignore[no-any-return]
