"""Score and label matrices with class names: CSV, parquet, ``.npz`` and ``.npy`` files.

What ``fmacro thresholds`` and ``fmacro apply`` read (objects x classes, one column per
class):

CSV (``.csv``, ``.tsv``)
    Read by the label files' table reader (:func:`fmacro.validation.io.read_table`): the
    same encodings, sniffed delimiter, quoting and header rule. A first line of text above
    numbers is a header of class names, and so is a first line whose every field is quoted
    (how fmacro writes names, ``"0","1"`` included); a first line of unquoted numbers is
    data. pandas' index column (an empty, ``Unnamed: 0`` or ``index`` first header field)
    is dropped. So ``df.to_csv(index=False)`` is read with its column names. Names that all
    look like numbers, unquoted, are a row of data, except pandas' names of a frame built
    without any, ``0,1,...,m-1``: a header when there are 3 or more columns (such a row is
    neither scores nor labels), and for 2 columns over scores that are not all integers
    (and then over their labels too). Other numeric names are read as names when quoted:
    ``df.rename(columns=str).to_csv(index=False, quoting=csv.QUOTE_NONNUMERIC)``. Header
    names are text.
parquet (``.parquet``, ``.pq``)
    Read with pandas (needs pandas with pyarrow or fastparquet); the columns are the
    classes, named as the file names them.
``.npz``
    Scores from ``scores`` (dense or the sparse parts :func:`~fmacro.optimize.io.save_scores_npz`
    writes), labels from ``labels``; an optional ``classes`` entry names the columns (a JSON
    list keeping each name's kind, as ``fmacro apply`` writes, or an array of strings or
    numbers).
``.npy``
    A matrix without names.

Scores must be finite real numbers and labels 0 or 1. A scores file and a labels file are
two files; their columns are paired as ``fmacro evaluate`` pairs indicator files: by name
when both name their columns (as text when either names come from a CSV header; the same
names in another order are matched, different names refused naming both files), by
position when one or neither does (then they must have as many columns). Every message
about a file's contents names the file, and the line (CSV) or row (parquet).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.validation.files import checked_path, reading
from fmacro.validation.io_arrays import (
    EXPECTED_ARRAYS,
    ColumnNames,
    load_label_array,
    load_label_arrays,
    npz_classes,
)
from fmacro.validation.io_text import Table, auto_header, indicator_matrix, read_table, table_body
from fmacro.validation.names import ClassName, check_class_names, describe_names, text_names

__all__ = [
    "CSV_SUFFIXES",
    "NAMED_SUFFIXES",
    "PARQUET_SUFFIXES",
    "column_order",
    "pair_columns",
    "read_label_matrix",
    "read_score_matrix",
    "read_scores",
]

PathLike = str | os.PathLike[str]

CSV_SUFFIXES = (".csv", ".tsv")
PARQUET_SUFFIXES = (".parquet", ".pq")
#: Suffixes of the files this module reads (scores, or labels given apart from scores).
NAMED_SUFFIXES = (*CSV_SUFFIXES, *PARQUET_SUFFIXES, ".npz", ".npy")

PARQUET_HINT = "reading parquet needs pandas with pyarrow: pip install pandas pyarrow"


@attrs.frozen(eq=False)
class NamedMatrix:
    """One file's matrix (objects x classes) and the names of its columns, if it has them.

    Attributes
    ----------
    values : ndarray or scipy.sparse matrix
        Scores (float64 for text and parquet) or 0/1 labels (int64 for text and parquet).
    names : ColumnNames or None
        Column names with their origin (``typed=False``: a CSV header, text).
    file : str
        The file, for messages.
    """

    values: Any
    names: ColumnNames | None
    file: str


@attrs.frozen(eq=False)
class ScoreFile:
    """Scores, their labels (or None) and the class names, read by :func:`read_scores`.

    ``names`` names the score columns (and the labels', paired to them) when a file names
    them, with the file and whether the names kept their kind (``typed``; a CSV header
    gives text); ``labels`` has the scores' columns in the scores' order.
    """

    scores: Any
    labels: Any
    names: ColumnNames | None

    @property
    def classes(self) -> tuple[ClassName, ...] | None:
        """The class names, or None when no file names the columns."""
        return None if self.names is None else self.names.names


def _suffix(path: PathLike) -> str:
    return Path(path).suffix.lower()


# --------------------------------------------------------------------------- CSV


def _is_position_row(row: tuple[str, ...]) -> bool:
    """``0,1,...,m-1``: the column names pandas gives a frame built without names."""
    return row == tuple(str(j) for j in range(len(row)))


def _csv_table(
    path: PathLike, what: str, positions_header: bool = False
) -> tuple[Table, tuple[str, ...] | None]:
    """The body rows of a CSV and its header names (None without a header).

    ``positions_header``: a first line ``0,1`` is a header (the scores file had one).
    """
    table = read_table(path)
    # A first line of text is a header: either names over numbers, or (auto_header None) a
    # line over cells that are not numbers, which the cell parsers then name by line.
    has_header = auto_header(table) is not False
    if not has_header and len(table.rows) > 1 and _is_position_row(table.rows[0]):
        # pandas writes a frame without column names under the unquoted line 0,1,...,m-1.
        # With 3 or more columns it cannot be data (no score row is 0,1,2,... and 2 is no
        # label); a 2-column "0,1" is a header over scores that are not all integers, or
        # over labels whose scores file began so.
        rest = (c for row in table.rows[1:] for c in row)
        has_header = (
            table.n_columns > 2
            or positions_header
            or (what == "scores" and not all(_is_integer(c) for c in rest))
        )
    if has_header and len(table.rows) < 2:
        raise ValueError(f"{path}: the file holds a header line and no {what}")
    return table_body(table, has_header)


def _is_integer(cell: str) -> bool:
    try:
        return float(cell).is_integer()
    except ValueError:
        return False


def _csv_names(header: tuple[str, ...] | None, path: PathLike) -> ColumnNames | None:
    if header is None:
        return None
    # a repeated name is refused here, naming the file, not when results get the names
    return ColumnNames(check_class_names(header, f"{path} (header)") or (), False, str(path))


def _column(names: ColumnNames | None, j: int) -> str:
    if names is None:
        return f"column {j + 1}"
    return f"column {j + 1} ({describe_names([names.names[j]])})"


def _csv_scores(path: PathLike) -> NamedMatrix:
    body, header = _csv_table(path, "scores")
    names = _csv_names(header, path)
    try:
        values = np.array(body.rows, dtype=np.float64)
    except ValueError:
        values = None
    if values is None:  # find the first cell that is not a number, to name its line
        for i, row in enumerate(body.rows):
            for j, cell in enumerate(row):
                if cell == "":
                    raise ValueError(
                        f"{body.where(i)}: {_column(names, j)} is empty (a missing score: "
                        "pandas writes NaN so); scores must be finite numbers"
                    )
                try:
                    float(cell)
                except ValueError:
                    raise ValueError(
                        f"{body.where(i)}: {_column(names, j)} holds {cell!r}, not a number "
                        "(scores must be finite numbers)"
                    ) from None
        raise ValueError(f"{path}: not a table of numbers")  # pragma: no cover - found above
    _check_finite(values, names, lambda i: body.where(i))
    return NamedMatrix(values, names, str(path))


def _check_finite(values: NDArray[np.float64], names: ColumnNames | None, where: Any) -> None:
    bad = ~np.isfinite(values)
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        kind = "NaN (a missing score)" if np.isnan(values[i, j]) else "infinite"
        raise ValueError(
            f"{where(i)}: {_column(names, j)} is {kind}; scores must be finite numbers "
            f"({int(bad.sum())} such cell(s) in the file)"
        )


def _csv_labels(path: PathLike, positions_header: bool = False) -> NamedMatrix:
    body, header = _csv_table(path, "labels", positions_header)
    try:  # numpy parses a table of 0/1 integers about 10x faster than the cell rules
        values = np.array(body.rows, dtype=np.int64)
        fast = bool(((values == 0) | (values == 1)).all())
    except (ValueError, OverflowError):
        fast = False
    if not fast:  # "1.0", or a bad cell, which the label rules name by line
        values = indicator_matrix(body)
    return NamedMatrix(values, _csv_names(header, path), str(path))


# --------------------------------------------------------------------------- parquet


def _parquet_frame(path: PathLike) -> Any:
    checked_path(path)
    try:
        import pandas as pd

        return pd.read_parquet(path)
    except ImportError:
        raise ValueError(f"{path}: {PARQUET_HINT}") from None
    except OSError:
        with reading(path, "parquet file"):
            raise
    except Exception as exc:  # pyarrow's errors for a file that is not parquet
        message = " ".join(str(exc).split())
        raise ValueError(f"{path}: not a readable parquet file ({message})") from None


def _parquet_matrix(path: PathLike, what: str) -> tuple[NDArray[np.float64], ColumnNames]:
    frame = _parquet_frame(path)
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise ValueError(f"{path}: no {what} (shape {frame.shape})")
    where = f"{path} (columns)"
    names = ColumnNames(check_class_names(list(frame.columns), where) or (), True, str(path))
    for j, dtype in enumerate(frame.dtypes):
        if getattr(dtype, "kind", "O") not in "biuf":
            raise ValueError(
                f"{path}: {_column(names, j)} has dtype {dtype}; {what} must be numbers"
            )
    values = frame.to_numpy(dtype=np.float64, na_value=np.nan)
    return values, names


def _row(path: PathLike) -> Any:
    return lambda i: f"{path}, row {i + 1}"


def _parquet_scores(path: PathLike) -> NamedMatrix:
    values, names = _parquet_matrix(path, "scores")
    _check_finite(values, names, _row(path))
    return NamedMatrix(values, names, str(path))


def _parquet_labels(path: PathLike) -> NamedMatrix:
    values, names = _parquet_matrix(path, "labels")
    bad = (values != 0) & (values != 1)
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raise ValueError(
            f"{_row(path)(i)}: {_column(names, j)} is {values[i, j].item()!r}; labels must be "
            "0 or 1"
        )
    return NamedMatrix(values.astype(np.int64), names, str(path))


# --------------------------------------------------------------------------- readers


def read_score_matrix(path: PathLike) -> NamedMatrix:
    """Scores from a CSV or parquet file (see the module), with the header's names.

    Raises
    ------
    ValueError
        Naming the file and line (CSV) or row (parquet): an unreadable file, ragged rows,
        a cell that is not a number, a NaN or infinite score; parquet without pandas and
        pyarrow.
    """
    suffix = _suffix(path)
    if suffix in CSV_SUFFIXES:
        return _csv_scores(path)
    if suffix in PARQUET_SUFFIXES:
        return _parquet_scores(path)
    raise ValueError(f"{path}: scores are read from {', '.join(NAMED_SUFFIXES)} files")


def read_label_matrix(path: PathLike, *, positions_header: bool = False) -> NamedMatrix:
    """0/1 labels (objects x classes) from CSV, parquet, ``.npy`` or ``.npz`` (``labels``).

    ``positions_header``: a CSV whose first line is ``0,1`` (pandas' names of a frame
    without column names) has a header; :func:`read_scores` says so when the scores file
    began with that line. With three or more columns, ``0,1,2,...`` is always a header.

    Raises
    ------
    ValueError
        Naming the file (and line or row): unreadable, a value other than 0 or 1.
    """
    suffix = _suffix(path)
    if suffix in CSV_SUFFIXES:
        return _csv_labels(path, positions_header)
    if suffix in PARQUET_SUFFIXES:
        return _parquet_labels(path)
    if suffix == ".npz":
        [(arr, where)], names = load_label_arrays(checked_path(path), [EXPECTED_ARRAYS])
        return NamedMatrix(_zero_one(arr, where), names, str(path))
    if suffix == ".npy":
        arr = load_label_array(checked_path(path))
        return NamedMatrix(_zero_one(arr, str(path)), None, str(path))
    raise ValueError(f"{path}: labels are read from {', '.join(NAMED_SUFFIXES)} files")


def _zero_one(arr: NDArray[Any], where: str) -> NDArray[Any]:
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"{where}: labels must be 0 or 1, got dtype {arr.dtype}")
    bad = (arr != 0) & (arr != 1)
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raise ValueError(
            f"{where}: labels must be 0 or 1; row {i + 1}, column {j + 1} holds "
            f"{arr[i, j].item()!r}"
        )
    return arr


def _npz_scores(path: PathLike, require_labels: bool) -> tuple[Any, Any, ColumnNames | None]:
    from fmacro.optimize.io import load_scores_npz

    scores, labels = load_scores_npz(path, require_labels=require_labels)
    with reading(path, ".npz file"), np.load(checked_path(path), allow_pickle=False) as z:
        names = npz_classes(z, Path(path))
    if names is not None:
        check_class_names(names.names, f"{path}[classes]")  # a string array may repeat one
    if names is not None and len(names.names) != scores.shape[1]:
        raise ValueError(
            f"{path}[classes] names {len(names.names)} classes, the scores have "
            f"{scores.shape[1]} columns"
        )
    return scores, labels, names


def column_order(target: ColumnNames, source: ColumnNames) -> list[int]:
    """For each of ``target``'s names, the position of that name among ``source``'s.

    Names are compared with their kind when both keep it, else as text (a CSV header).

    Raises
    ------
    ValueError
        A name repeated in one file, or the two naming different classes (both files and
        the names found in only one are named).
    """
    as_text = not (target.typed and source.typed)
    t_keys, s_keys = target.keys(as_text), source.keys(as_text)
    if set(t_keys) != set(s_keys):
        only_t = [n for n, k in zip(target.names, t_keys, strict=True) if k not in set(s_keys)]
        only_s = [n for n, k in zip(source.names, s_keys, strict=True) if k not in set(t_keys)]
        raise ValueError(
            f"{target.file} and {source.file} name different classes: only in {target.file}: "
            f"{describe_names(only_t) or 'none'}; only in {source.file}: "
            f"{describe_names(only_s) or 'none'}"
        )
    position = {k: j for j, k in enumerate(s_keys)}
    return [position[k] for k in t_keys]


def pair_columns(scores: NamedMatrix, labels: NamedMatrix) -> tuple[Any, ColumnNames | None]:
    """``labels``' columns in the order of ``scores``', and the names of the classes.

    Both name their columns: paired by name (as text when either is a CSV header); other
    names are refused naming both files. Otherwise by position (as many columns needed);
    the names are those of the file that has them.
    """
    s_names, l_names = scores.names, labels.names
    y = labels.values
    if scores.values.shape[0] != y.shape[0]:
        raise ValueError(
            f"{scores.file} has {scores.values.shape[0]} rows of scores but {labels.file} has "
            f"{y.shape[0]} rows of labels (a header line read as data?)"
        )
    if not (s_names and l_names):
        if scores.values.shape[1] != y.shape[1]:
            named = s_names or l_names
            note = f" ({named.file} names its columns: a header line?)" if named else ""
            raise ValueError(
                f"{scores.file} has {scores.values.shape[1]} class columns but {labels.file} "
                f"has {y.shape[1]}{note}"
            )
        return y, s_names or l_names
    order = column_order(s_names, l_names)
    if order != list(range(len(order))):
        y = y[:, order]  # a new matrix: the labels are taken in the scores' column order
    if s_names.typed or not l_names.typed:
        return y, s_names
    return y, ColumnNames(tuple(l_names.names[j] for j in order), True, l_names.file)


def read_scores(
    path: PathLike, labels: PathLike | None = None, *, require_labels: bool = True
) -> ScoreFile:
    """Scores (and labels) with class names, from one file or a scores and a labels file.

    Parameters
    ----------
    path
        Scores: ``.csv``/``.tsv``, ``.parquet``/``.pq``, ``.npz`` or ``.npy`` (see the module).
    labels
        A file of 0/1 labels for them (any of those formats); needed with CSV, parquet and
        ``.npy`` scores unless ``require_labels=False``. An ``.npz`` holding labels takes
        none.
    require_labels
        Whether labels must be found.

    Raises
    ------
    ValueError
        The readers' errors (file and line or row named), labels missing or given twice,
        different numbers of rows, or columns naming different classes (both files named).
    """
    suffix = _suffix(path)
    if suffix == ".npz":
        s, y, names = _npz_scores(path, require_labels and labels is None)
        if labels is not None and y is not None:
            raise ValueError(f"{path} holds labels, and {labels} gives labels too: drop one")
        scores = NamedMatrix(s, names, str(path))
        if y is not None:
            return ScoreFile(s, y, names)
    elif suffix == ".npy":
        from fmacro.validation.checks import as_float_array
        from fmacro.validation.files import load_npy

        with reading(path, ".npy file"):
            arr = load_npy(path)
        try:
            s = as_float_array(arr, "scores", ndim=2)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{path}: {exc}") from None
        scores = NamedMatrix(s, None, str(path))
    else:
        scores = read_score_matrix(path)
    if labels is None:
        if require_labels:
            raise ValueError(
                f"{path}: scores in a {suffix or 'text'} file need their 0/1 labels in another "
                "file: --labels FILE (objects x classes)"
            )
        return ScoreFile(scores.values, None, scores.names)
    positions = scores.names is not None and _is_position_row(tuple(text_names(scores.names.names)))
    y, names = pair_columns(scores, read_label_matrix(labels, positions_header=positions))
    return ScoreFile(scores.values, y, names)
