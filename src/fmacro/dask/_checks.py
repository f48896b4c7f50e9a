"""Checks shared by every fmacro.dask entry point: chunk sizes, array shapes and rows.

One home for each refusal, so ``evaluate``, ``find_classes``, ``reduced_sweep``,
``fixed_point``, ``domain``, ``per_class``, ``global_threshold`` and ``tune`` refuse the
same input the same way:

* :func:`check_known_chunks`: a dask array with chunks of unknown size (from
  ``da.from_delayed`` without a shape, or boolean-mask indexing) cannot be split by rows
  or columns; the remedy is ``x.compute_chunk_sizes()``.
* :func:`array_inputs`: a dask array of scores and its labels (dask, numpy or scipy).
* :func:`row_spec` (client: column names and dtypes, the shape, one pass for the largest
  ids only when ``n_samples`` or ``n_classes`` is not given) and :func:`partition_columns`
  (worker: every row of one partition of the rows shuffled by class, checked and turned
  into sparse columns in one sort). Ids must be integral, finite and non-negative and
  below the shape, labels 0/1, scores finite or NaN (NaN: a positive not retrieved), and
  each (object, class) pair must have one row; all of a class's rows are in one
  partition, so a repeated pair is found where the rows are, without gathering them.
* :func:`check_unread_scores`: a block of columns that a worker skips (no positive) still
  has its scores checked, as ``class_points`` checks every column in memory.
* :func:`computed_sample_weight`: ``tune``'s weights (a dask or numpy vector, one per
  row), computed once on the client and checked as in memory.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.dask._imports import import_dask, is_dask_collection
from fmacro.optimize.offsets import indptr_from_counts
from fmacro.validation.checks import check_exact_in_float64, is_sparse

__all__ = [
    "ROW_COLUMNS",
    "RowSpec",
    "array_inputs",
    "check_known_chunks",
    "check_unread_scores",
    "computed_sample_weight",
    "is_dask_array",
    "partition_columns",
    "row_names",
    "row_spec",
]

ROW_COLUMNS = ("object", "class", "score", "label")
# integral floats above this are not exact (2**53 + 1 reads as 2**53): refused as ids
_EXACT_FLOAT_INT = float(2**53)
_ROLES = ("object", "class")


def is_dask_array(x: Any) -> bool:
    return is_dask_collection(x) and hasattr(x, "chunks") and hasattr(x, "rechunk")


def check_known_chunks(x: Any, name: str) -> None:
    """Refuse a dask array with chunks of unknown size, naming ``name`` and the remedy."""
    if any(math.isnan(c) for dim in x.chunks for c in dim):
        raise ValueError(
            f"{name} has chunks of unknown size (as after boolean-mask indexing or "
            f"da.from_delayed without a shape); call {name}.compute_chunk_sizes() first"
        )


def computed_sample_weight(
    sample_weight: Any, n_samples: int, scheduler: Any = None
) -> NDArray[np.float64]:
    """``sample_weight`` (a dask array or Series, or anything
    :func:`~fmacro.validation.weights.check_sample_weight` takes) as the checked float64
    vector of ``n_samples`` weights: finite, non-negative, not all zero.

    A dask vector is checked for its shape and known chunks first, then computed (one
    float per row: every worker gets the whole vector, as every block holds all rows).
    """
    from fmacro.validation.weights import check_sample_weight

    if is_dask_collection(sample_weight):
        if hasattr(sample_weight, "to_dask_array"):  # a dask Series
            sample_weight = sample_weight.to_dask_array(lengths=True)
        if not is_dask_array(sample_weight):
            raise TypeError(
                "sample_weight must be a dask or numpy array of one weight per row, got "
                f"{type(sample_weight).__name__}"
            )
        if sample_weight.ndim != 1:
            raise ValueError(
                f"sample_weight must be 1-D (one weight per row), got {sample_weight.ndim}-D"
            )
        check_known_chunks(sample_weight, "sample_weight")
        if int(sample_weight.shape[0]) != n_samples:
            raise ValueError(
                f"sample_weight must have one weight per row ({n_samples}), got "
                f"{int(sample_weight.shape[0])}"
            )
        sample_weight = sample_weight.compute(scheduler=scheduler)
    weights = check_sample_weight(sample_weight, n_samples)
    if weights is None:
        raise AssertionError("the caller passes weights")
    return weights


def _check_count(n: Any, name: str) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"{name} must be a positive integer or None, got {n!r}")
    if int(n) < 1:
        raise ValueError(f"{name} must be a positive integer or None, got {n!r}")
    return int(n)


# --------------------------------------------------------------------------- arrays


def array_inputs(
    scores: Any, labels: Any, n_samples: Any = None, n_classes: Any = None
) -> tuple[Any, int, int]:
    """``(labels, n_samples, n_classes)`` of a dask array of scores and its labels.

    ``labels`` comes back as a dask array, or a numpy or scipy array (a sequence is read
    with ``np.asarray``); ``n_samples`` and ``n_classes`` (for rows) must be ``None`` or
    the shape.
    """
    if scores.ndim != 2:
        raise ValueError(f"scores must be a 2-D (n_samples, n_classes) array, got {scores.ndim}-D")
    check_known_chunks(scores, "scores")
    if is_dask_collection(labels):
        if not is_dask_array(labels):
            raise TypeError(
                "labels must be a dask array, or a numpy or scipy array, with a dask array "
                f"of scores, got {type(labels).__name__}"
            )
        check_known_chunks(labels, "labels")
    elif not is_sparse(labels):
        labels = np.asarray(labels)
    shape = (int(scores.shape[0]), int(scores.shape[1]))
    if tuple(labels.shape) != shape:
        raise ValueError(f"labels must have the shape of scores {shape}, got {tuple(labels.shape)}")
    for given, n, name in ((n_samples, shape[0], "n_samples"), (n_classes, shape[1], "n_classes")):
        if given is not None and _check_count(given, name) != n:
            raise ValueError(
                f"{name}={given!r} differs from the shape of scores {shape}; {name} is for "
                "rows (pass None with an array)"
            )
    return labels, shape[0], shape[1]


def check_unread_scores(scores: Any, columns: NDArray[np.int64]) -> None:
    """Refuse NaN/inf in a block of score columns that no kernel will read (a block
    without positives), as ``class_points`` refuses them in every column in memory."""
    data = np.asarray(scores.data if is_sparse(scores) else scores)
    if data.dtype.kind not in "biuf":
        try:
            data = np.asarray(data, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"scores must be numeric, got dtype {data.dtype}") from None
    if data.dtype.kind == "f" and not np.isfinite(data).all():
        bad = int(data.size - np.count_nonzero(np.isfinite(data)))
        where = f" in columns {columns[0]}-{columns[-1]}" if columns.size else ""
        raise ValueError(f"scores contains {bad} NaN or infinite value(s){where}")


# --------------------------------------------------------------------------- rows


@attrs.frozen
class RowSpec:
    """What a worker needs to check and read a partition of rows: the four column names
    (object, class, score, label), the shape, and the argument's name for messages."""

    names: tuple[str, str, str, str]
    n_samples: int
    n_classes: int
    argument: str = "scores"

    def column(self, i: int) -> str:
        return f"{self.argument} column {self.names[i]!r}"


def row_names(columns: Sequence[str]) -> tuple[str, str, str, str]:
    """The four distinct names of the (object, class, score, label) columns."""
    if isinstance(columns, str):
        raise TypeError(f"columns must be a sequence of 4 column names, got the string {columns!r}")
    names = tuple(columns)
    if len(names) != 4 or len(set(names)) != 4:
        raise ValueError(
            f"columns must name 4 distinct columns (object, class, score, label), got {names}"
        )
    return names[0], names[1], names[2], names[3]


def row_spec(
    frame: Any,
    names: tuple[str, str, str, str],
    n_samples: Any,
    n_classes: Any,
    scheduler: Any,
    argument: str = "scores",
) -> RowSpec:
    """Check a dask DataFrame of rows on the client and find its shape.

    Column names and dtypes are read from the frame's meta (no work); ``n_samples`` and
    ``n_classes`` default to the largest object and class ids + 1, found in one pass (the
    only one on the client, and only when one of them is not given), which also checks a
    given one against the largest id. The workers check every row.
    """
    import pandas as pd

    missing = [c for c in names if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{argument} must have the columns {list(names)} (object, class, score, label); "
            f"missing {missing}"
        )
    for i, name in enumerate(names):
        dtype = frame[name].dtype
        numeric = pd.api.types.is_numeric_dtype(dtype)
        if not numeric or (i < 2 and pd.api.types.is_bool_dtype(dtype)):
            wanted = "integer (or integral float) ids" if i < 2 else "numbers"
            raise TypeError(f"{argument} column {name!r} must hold {wanted}, got dtype {dtype}")
    given = [
        None if n is None else _check_count(n, field)
        for n, field in ((n_samples, "n_samples"), (n_classes, "n_classes"))
    ]
    shape = [n or 0 for n in given]  # filled below where not given
    tops = (
        import_dask().compute(frame[names[0]].max(), frame[names[1]].max(), scheduler=scheduler)
        if None in given
        else (None, None)
    )
    for i, (n, top) in enumerate(zip(given, tops, strict=True)):
        what = f"{argument} column {names[i]!r}"
        field = ("n_samples", "n_classes")[i]
        if top is None:  # both given: no pass
            continue
        if pd.isna(top):
            raise ValueError(
                f"{what} has no id to take {field} from: the rows are empty or their "
                f"{_ROLES[i]} ids are all NaN"
            )
        largest = int(_ids(np.asarray([top]), what, _ROLES[i])[0])
        if n is None:
            shape[i] = largest + 1
        else:
            _check_limit(largest, n, what, field, _ROLES[i])
    return RowSpec(names, shape[0], shape[1], argument)


def _values(series: Any) -> NDArray[Any]:
    """A pandas column as numpy; a nullable column's missing values as NaN."""
    if isinstance(series.dtype, np.dtype):
        return np.asarray(series.to_numpy())
    if bool(series.isna().any()):
        return np.asarray(series.to_numpy(dtype=np.float64, na_value=np.nan))
    return np.asarray(series.to_numpy(dtype=getattr(series.dtype, "numpy_dtype", None)))


def _ids(values: NDArray[Any], what: str, role: str) -> NDArray[np.int64]:
    """Ids as int64: integers >= 0, or floats with integral, finite, non-negative values
    (exact in float64); anything else a ValueError showing an offending value."""
    kind = values.dtype.kind
    if kind in "iu":
        bad = values < 0 if kind == "i" else values > np.iinfo(np.int64).max
    elif kind == "f":
        with np.errstate(invalid="ignore"):
            bad = ~(np.isfinite(values) & (values >= 0) & (values <= _EXACT_FLOAT_INT))
            bad |= values != np.floor(values)
    else:
        raise TypeError(
            f"{what} must hold integer (or integral float) ids, got dtype {values.dtype}"
        )
    if bad.any():
        found = values[np.argmax(bad)].item()
        raise ValueError(
            f"{what} must hold {role} ids that are non-negative integers (integer dtype or "
            f"floats with integral values), found {found!r}"
        )
    return values.astype(np.int64, copy=False)


def _check_limit(largest: int, limit: int, what: str, field: str, role: str) -> None:
    if largest >= limit:
        raise ValueError(
            f"{field}={limit} is too small: {what} holds {role} id {largest}, so {field} must "
            f"be at least the largest {role} id + 1 ({largest + 1})"
        )


def _labels(values: NDArray[Any], what: str) -> NDArray[np.bool_]:
    if values.dtype.kind == "b":
        return values
    if values.dtype.kind not in "iuf":
        raise TypeError(f"{what} must hold 0/1 labels (bool, integer or float), got {values.dtype}")
    bad = (values != 0) & (values != 1)
    if bad.any():
        found = np.unique(values[bad])[:5].tolist()
        raise ValueError(f"{what} must hold only 0 and 1, found {found}")
    out: NDArray[np.bool_] = values == 1
    return out


def _scores(values: NDArray[Any], what: str) -> NDArray[np.float64]:
    if values.dtype.kind not in "biuf":
        raise TypeError(f"{what} must hold numbers, got dtype {values.dtype}")
    check_exact_in_float64(values, what)
    out = values.astype(np.float64, copy=False)
    infinite = np.isinf(out)
    if infinite.any():
        raise ValueError(
            f"{what} holds {int(np.count_nonzero(infinite))} infinite value(s) such as "
            f"{out[np.argmax(infinite)].item()!r}; scores must be finite (NaN marks a "
            "positive that was not retrieved)"
        )
    return out


def partition_columns(frame: Any, spec: RowSpec) -> tuple[Any, Any, NDArray[np.int64]]:
    """(CSC scores, CSC labels, column of each) of the classes a non-empty partition of
    checked rows holds (worker side: every row of each of its classes).

    One sort of (class, object) keys both finds a repeated pair and lays out the columns.
    """
    import scipy.sparse as sp

    obj_name, cls_name, score_name, label_name = spec.names
    obj = _ids(_values(frame[obj_name]), spec.column(0), "object")
    cls = _ids(_values(frame[cls_name]), spec.column(1), "class")
    _check_limit(int(obj.max()), spec.n_samples, spec.column(0), "n_samples", "object")
    _check_limit(int(cls.max()), spec.n_classes, spec.column(1), "n_classes", "class")
    score = _scores(_values(frame[score_name]), spec.column(2))
    label = _labels(_values(frame[label_name]), spec.column(3))
    n = spec.n_samples
    if spec.n_classes <= np.iinfo(np.int64).max // n:
        order = np.argsort(cls * n + obj)
    else:  # pragma: no cover - a key would overflow int64
        order = np.lexsort((obj, cls))
    obj, cls, score, label = obj[order], cls[order], score[order], label[order]
    repeated = (obj[1:] == obj[:-1]) & (cls[1:] == cls[:-1])
    if repeated.any():
        i = int(np.argmax(repeated))
        raise ValueError(
            f"{spec.argument} has more than one row for the (object, class) pair "
            f"({obj[i]}, {cls[i]}); each pair must have one row (repeated rows would be summed)"
        )
    starts = np.flatnonzero(np.concatenate(([True], cls[1:] != cls[:-1])))
    columns = cls[starts]
    local = np.cumsum(np.concatenate(([0], (cls[1:] != cls[:-1]).astype(np.int64))))
    shape = (n, int(columns.size))

    def csc(keep: NDArray[np.bool_], data: NDArray[Any]) -> Any:
        indptr = indptr_from_counts(np.bincount(local[keep], minlength=columns.size))
        return sp.csc_matrix((data, obj[keep], indptr), shape=shape)

    retrieved = ~np.isnan(score)
    scores = csc(retrieved, score[retrieved])
    labels = csc(label, np.ones(int(np.count_nonzero(label)), dtype=np.bool_))
    return scores, labels, columns
