"""Reading expected/predicted labels from files, and building the right validation.

Every label file goes through one reader, :func:`read_table` (text) or the ``.npy``/``.npz``
loaders, and every label through :func:`fmacro.validation.labels.coerce_labels`. The rules,
with examples, are in docs/glossary.md ("Label files").

Text files (``.csv``, ``.tsv``, ``.txt``, any name)
    UTF-8, with or without a byte-order mark (Excel's "CSV UTF-8"), or UTF-16 with its
    mark (Excel's "Unicode text"); LF, CRLF or CR line ends. The delimiter is sniffed among
    ``,`` ``;`` and tab (a ``.tsv`` prefers tab): the one that splits every line into the
    same number (> 1) of fields; runs of spaces separate the fields of an all-numeric
    matrix; otherwise each line is one label (which may contain spaces). A quoted field is
    kept exactly and may hold delimiters, doubled quotes and line breaks; unquoted fields
    are stripped of spaces. Blank lines before and after the data are skipped; a blank line
    inside it, an empty field or ``nan`` is a missing label and is refused.
Header
    ``--header``/``--no-header`` (``header=True/False``) force it. Otherwise the first line
    is a header when its first field is empty (pandas' index column), when every field is
    quoted above lines of unquoted numbers (how fmacro writes class names, ``"0","1"``
    included), when it holds text above numeric data, or when every field is a column name
    such as ``y_true``, ``y_pred``, ``label`` or ``expected`` (:data:`HEADER_NAMES`). A
    first line of text labels that occur nowhere else in either file is ambiguous (a
    header, or a rare class?) and refused: pass ``--header`` or ``--no-header``.
Index column
    Under a header whose first field is empty, ``Unnamed: 0`` or ``index`` (pandas'
    ``to_csv()`` default), the first column is the index and is dropped; under a header of
    quoted fields only when that column holds the row numbers 0, 1, 2, ...
Labels
    When every label of both text files is a number, the labels are numbers: integers are
    parsed exactly (Python ints; never through float64, so 20-digit IDs stay distinct),
    ``2.0`` is ``2``, a non-integral number is refused. Otherwise every label of both files
    is text, compared as written (``1`` and ``01`` differ). A ``.npy``/``.npz`` array keeps
    its dtype; mixing its numbers with text labels is refused.
Shapes
    One column: one label per line. Several columns of 0/1: an indicator matrix (multi-label
    data), one row per object. A single file of two columns is a pair: expected then
    predicted, or in the order its header names them (``y_true,y_pred``, ``predicted,
    expected``, ...).
Class columns
    Two indicator matrices whose files both name their columns (a header; the ``classes``
    of an npz) are paired by name (as text when either is a CSV header); different names
    are refused. When one file names them, the other is taken to hold the classes in the
    same order (by position, as many columns). :func:`read_label_pair` returns the names.
``.npy``
    A 1-D array of labels, an ``(n, 1)`` column, or a 2-D 0/1 indicator matrix.
``.npz``
    Expected labels from the array ``expected``, ``y_true`` or ``labels``; predicted ones from
    ``predicted`` or ``y_pred`` (what ``fmacro apply -o pred.npz`` writes); a file of one
    array is that array. An optional ``classes`` entry names the columns: a JSON list
    (names keep their kind) or a 1-D array of strings or numbers.
Messages
    Every message about a file's contents names the file (and line, for text;
    ``file[array]`` for an npz).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Literal

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.validation.files import (
    about_file,
    check_numpy_file,
    checked_path,
    load_npy,
    pickled_data,
    read_text,
    reading,
)
from fmacro.validation.values import read_only_copies, value_key
from fmacro.validation.binary import BinFValidation
from fmacro.validation.counts import frozen_array
from fmacro.validation.labels import coerce_label_pair, coerce_labels
from fmacro.validation.multiclass import MultiFValidation
from fmacro.validation.multilabel import MultiLabelFValidation
from fmacro.validation.names import (
    ClassName,
    check_class_names,
    describe_names,
    name_key,
    names_from_json,
    text_names,
)

__all__ = [
    "HEADER_NAMES",
    "Kind",
    "LabelPair",
    "Table",
    "infer_kind",
    "read_label_files",
    "read_label_pair",
    "read_labels",
    "read_prediction_pairs",
    "read_table",
    "validation_for",
]

Kind = Literal["binary", "multiclass", "multilabel"]
PathLike = str | os.PathLike[str]

_TRUE_NAMES = frozenset(
    [
        "y",
        "y_true",
        "ytrue",
        "true",
        "expected",
        "actual",
        "target",
        "truth",
        "gold",
        "label",
        "labels",
        "ground_truth",
        "true_label",
        "true_labels",
        "y_test",
        "class",
    ]
)
_PRED_NAMES = frozenset(
    [
        "y_pred",
        "ypred",
        "pred",
        "preds",
        "predicted",
        "prediction",
        "predictions",
        "y_hat",
        "yhat",
        "predicted_label",
        "pred_label",
        "predicted_labels",
        "output",
    ]
)
#: Column names recognised as a header line (case, spaces, dots and dashes ignored).
HEADER_NAMES = _TRUE_NAMES | _PRED_NAMES
_INDEX_NAMES = frozenset({"", "unnamed: 0", "index"})
_INTEGER = re.compile(r"[+-]?\d+")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?(inf|infinity|nan)", re.I)


def _norm(name: str) -> str:
    return re.sub(r"[\s.\-]+", "_", name.strip().lower())


def _is_number(text: str) -> bool:
    return _NUMBER.fullmatch(text) is not None


def _is_nan(text: str) -> bool:
    return text.strip().lower() in ("nan", "+nan", "-nan")


@attrs.frozen
class Table:
    """The fields of a text file: ``rows[i]`` starts on file line ``lines[i]``.

    ``quoted[i]`` is the number of fields of row ``i`` written in quotes (``()`` when not
    known); a quoted field is kept exactly, an unquoted one is stripped of spaces.
    """

    path: str
    rows: tuple[tuple[str, ...], ...]
    lines: tuple[int, ...]
    delimiter: str | None
    quoted: tuple[int, ...] = ()

    @property
    def n_columns(self) -> int:
        return len(self.rows[0])

    def where(self, i: int) -> str:
        return f"{self.path}, line {self.lines[i]}"

    def all_quoted(self, i: int) -> bool:
        """Whether every field of row ``i`` was written in quotes."""
        return len(self.quoted) == len(self.rows) and self.quoted[i] == len(self.rows[i])


# A quote opens a quoted field at the start of a line or after one of these (csv's rule
# for the delimiters the reader sniffs).
_OPENERS = frozenset(",;\t")


def _open_at_end(line: str, in_quotes: bool) -> bool:
    """Whether a quoted field is still open at the end of ``line`` (open at its start or not)."""
    field_start = not in_quotes
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if in_quotes:
            if c == '"':
                if i + 1 < n and line[i + 1] == '"':
                    i += 2
                    continue
                in_quotes = False
            field_start = False
        else:
            if c == '"' and field_start:
                in_quotes = True
            field_start = c in _OPENERS
        i += 1
    return in_quotes


def _records(path: PathLike, raw: Sequence[str]) -> list[tuple[int, str]]:
    """Logical lines ``(first line number, text)``: a quoted field may hold line breaks."""
    out: list[tuple[int, str]] = []
    i = 0
    while i < len(raw):
        start, line = i + 1, raw[i]
        if '"' in line and _open_at_end(line, False):
            parts = [line]
            while True:
                i += 1
                if i == len(raw):
                    raise ValueError(
                        f"{path}, line {start}: a quoted field opened on this line is never "
                        "closed (a stray '\"'?)"
                    )
                parts.append(raw[i])
                if not _open_at_end(raw[i], True):
                    break
            line = "\n".join(parts)
        out.append((start, line))
        i += 1
    return out


def _fields(record: str, delimiter: str | None) -> tuple[list[str], int]:
    """Fields of one record by csv's rules, and how many of them were quoted.

    A field starting with ``"`` is quoted up to the next lone ``"`` (``""`` is a quote
    inside it) and kept exactly; other fields are stripped of spaces. ``delimiter=None``:
    the record is one field.
    """
    if '"' not in record:
        parts = [record] if delimiter is None else record.split(delimiter)
        return [part.strip() for part in parts], 0
    values: list[str] = []
    quoted = 0
    i, n = 0, len(record)
    while True:
        if i < n and record[i] == '"':
            chunks: list[str] = []
            i += 1
            while i < n:
                j = record.find('"', i)
                if j < 0:
                    chunks.append(record[i:])
                    i = n
                    break
                chunks.append(record[i:j])
                if record[j + 1 : j + 2] == '"':
                    chunks.append('"')
                    i = j + 2
                    continue
                i = j + 1
                break
            end = n if delimiter is None else record.find(delimiter, i)
            end = n if end < 0 else end
            tail = record[i:end]
            if tail.strip():  # '"a"b' is the unquoted field ab, as csv reads it
                values.append(("".join(chunks) + tail).strip())
            else:
                values.append("".join(chunks))
                quoted += 1
        else:
            end = n if delimiter is None else record.find(delimiter, i)
            end = n if end < 0 else end
            values.append(record[i:end].strip())
        i = end
        if i >= n:
            return values, quoted
        i += len(delimiter or "")


def _n_fields(record: str, delimiter: str) -> int:
    return record.count(delimiter) + 1 if '"' not in record else len(_fields(record, delimiter)[0])


def _sniff(path: Path, lines: Sequence[str]) -> str | None:
    order = ["\t", ",", ";"] if path.suffix.lower() == ".tsv" else [",", ";", "\t"]
    counts = {d: [_n_fields(line, d) for line in lines] for d in order}
    present = [d for d in order if max(counts[d]) > 1]
    consistent = [d for d in present if len(set(counts[d])) == 1]
    if consistent:
        return consistent[0]
    if present:  # ragged: the delimiter used on most lines, so the error names a line
        return max(present, key=lambda d: sum(c > 1 for c in counts[d]))
    fields = [line.split() for line in lines]
    widths = {len(f) for f in fields}
    if len(widths) == 1 and widths.pop() > 1 and all(_is_number(c) for f in fields for c in f):
        return " "
    return None


def read_table(path: PathLike) -> Table:
    """Fields of a text label file (encoding, line ends and delimiter as the module says).

    A quoted field may hold delimiters, quotes (doubled) and line breaks; the row is then
    numbered by the line it starts on.

    Raises
    ------
    ValueError
        An unreadable, empty or non-text file, a blank line inside the data, a quoted
        field never closed, or rows of different lengths; the message names the file and
        the line.
    """
    p = checked_path(path)
    text = read_text(p, "label file")
    raw = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    records = _records(path, raw)
    filled = [k for k, (_, record) in enumerate(records) if record.strip()]
    if not filled:
        raise ValueError(f"{path}: the file holds no labels")
    for k in range(filled[0], filled[-1] + 1):
        if not records[k][1].strip():
            raise ValueError(
                f"{path}, line {records[k][0]}: blank line inside the data (a missing label? "
                "pandas writes NaN as an empty field)"
            )
    numbered = [records[k] for k in filled]
    lines = [record for _, record in numbered]
    delimiter = _sniff(p, lines)
    if delimiter == " ":
        parsed = [(line.split(), 0) for line in lines]
    else:
        parsed = [_fields(line, delimiter) for line in lines]
    rows = [tuple(values) for values, _ in parsed]
    for (line_no, _), row in zip(numbered, rows, strict=True):
        if len(row) != len(rows[0]):
            raise ValueError(
                f"{path}, line {line_no}: {len(row)} field(s), line {numbered[0][0]} has "
                f"{len(rows[0])}"
            )
    return Table(
        str(path),
        tuple(rows),
        tuple(i for i, _ in numbered),
        delimiter,
        tuple(q for _, q in parsed),
    )


# --------------------------------------------------------------------------- header


def _header_word(row: Sequence[str]) -> bool:
    return all(_norm(c) in HEADER_NAMES for c in row)


def _quoted_header(t: Table) -> bool:
    """fmacro's header: every field of the first line quoted, unquoted numbers below.

    ``fmacro apply -o pred.csv`` writes class names so, whatever they are (``"0","1"``
    included); pandas reads such a file with the same columns.
    """
    return (
        len(t.rows) > 1
        and t.all_quoted(0)
        and not any(t.quoted[1:])
        and all(_is_number(c) for r in t.rows[1:] for c in r)
    )


def _auto_header(t: Table) -> bool | None:
    """True/False when the table alone decides; None when its first line is a text label."""
    row0 = t.rows[0]
    if len(t.rows) == 1:
        return _header_word(row0)
    if t.n_columns > 1 and _norm(row0[0]) in ("", "unnamed:_0"):
        return True
    if _quoted_header(t) or _header_word(row0):
        return True
    if all(_is_number(c) for c in row0):
        return False
    if all(_is_number(c) for r in t.rows[1:] for c in r):
        return True
    return None


def _decide_headers(tables: Sequence[Table], header: bool | None) -> list[bool]:
    if header is not None:
        return [header] * len(tables)
    auto = [_auto_header(t) for t in tables]
    undecided = [i for i, a in enumerate(auto) if a is None]
    if not undecided:
        return [bool(a) for a in auto]
    rest = {c for t in tables for r in t.rows[1:] for c in r}
    unseen = all(c not in rest for i in undecided for c in tables[i].rows[0])
    if not unseen:
        return [bool(a) for a in auto]
    # A first line seen nowhere else may be a header or a label of a rare class; the same
    # word in both files too (a rare class predicted right). Guessing could drop a row.
    words = ", ".join(repr(",".join(tables[i].rows[0])) for i in undecided)
    raise ValueError(
        f"cannot tell whether the first line of {', '.join(tables[i].path for i in undecided)} "
        f"({words}) is a header or a label seen once: pass --header or --no-header "
        "(header=True/False)"
    )


def _row_numbers(column: Sequence[str]) -> bool:
    return all(_INTEGER.fullmatch(c) is not None and int(c) == i for i, c in enumerate(column))


def _body(t: Table, has_header: bool) -> tuple[Table, tuple[str, ...] | None]:
    """The data rows (index column dropped) and the column names, if any.

    The first column is pandas' index when the header's first field is empty, ``Unnamed:
    0`` or ``index``; under a header of quoted fields (fmacro's, where ``""`` is a class
    without a name) only when that column holds the row numbers 0, 1, 2, ...
    """
    if not has_header:
        return t, None
    if len(t.rows) < 2:
        raise ValueError(f"{t.path}: the file holds a header and no labels")
    names = t.rows[0]
    rows, lines = t.rows[1:], t.lines[1:]
    quoted = t.quoted[1:]
    if (
        len(names) > 1
        and _norm(names[0]) in ("", "unnamed:_0", "index")
        and (not t.all_quoted(0) or _row_numbers([r[0] for r in rows]))
    ):
        names, rows, quoted = names[1:], tuple(r[1:] for r in rows), ()
    return Table(t.path, rows, lines, t.delimiter, quoted), names


# --------------------------------------------------------------------------- cells


def _number(text: str, where: str) -> int:
    if _INTEGER.fullmatch(text):
        return int(text)
    if _is_nan(text):
        raise ValueError(f"{where}: missing label ({text!r})")
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise ValueError(f"{where}: {text!r} is not a number") from None
    if not value.is_finite():
        raise ValueError(f"{where}: the label {text!r} is not finite")
    if value != value.to_integral_value():
        raise ValueError(f"{where}: numeric labels must be integers, got {text!r}")
    if abs(value.adjusted()) > 40:
        raise ValueError(f"{where}: the label {text!r} is too large for a class label")
    return int(value)


def _column(t: Table, j: int, as_text: bool) -> NDArray[Any]:
    cells = [r[j] for r in t.rows]
    for i, c in enumerate(cells):
        if c == "" or _is_nan(c):
            raise ValueError(f"{t.where(i)}: missing label ({c!r})")
    if as_text:
        out = np.empty(len(cells), dtype=object)
        out[:] = cells
        return out
    return coerce_labels([_number(c, t.where(i)) for i, c in enumerate(cells)], name=t.path)


def _indicator(t: Table) -> NDArray[np.int64]:
    """The 0/1 matrix of a text file, int64: scikit-learn's ``label_binarize`` casts the
    class list to the dtype of an integer ``y``, so uint8 scrambles columns past 256
    (docs/f-macro.md)."""
    out = np.empty((len(t.rows), t.n_columns), dtype=np.int64)
    for i, row in enumerate(t.rows):
        for j, c in enumerate(row):
            value = _number(c, t.where(i)) if c else -1
            if value not in (0, 1):
                raise ValueError(
                    f"{t.where(i)}: field {j + 1} is {c!r}; a file with several columns is a "
                    "0/1 indicator matrix (or, alone, an expected,predicted pair)"
                )
            out[i, j] = value
    return out


def _all_numeric(t: Table) -> bool:
    return all(_is_number(c) for r in t.rows for c in r)


# --------------------------------------------------------------------------- arrays

_EXPECTED_ARRAYS = ("expected", "y_true", "labels", "true")
_PREDICTED_ARRAYS = ("predicted", "y_pred", "pred")


def _load_npy(p: Path) -> NDArray[Any]:
    return _checked_array(load_npy(p), str(p))


def _checked_array(arr: NDArray[Any], where: str) -> NDArray[Any]:
    if arr.ndim not in (1, 2) or arr.size == 0:
        raise ValueError(f"{where}: expected a non-empty 1-D or 2-D array, got shape {arr.shape}")
    return arr


@attrs.frozen
class _Names:
    """Column names of one file: from a CSV header (text) or an npz (kinds kept)."""

    names: tuple[ClassName, ...]
    typed: bool
    file: str

    def keys(self, as_text: bool) -> list[Any]:
        """Pairing keys (text of each name, or name and kind); a repeated key is refused."""
        keys: list[Any] = (
            [("text", t) for t in text_names(self.names)]
            if as_text
            else [name_key(n) for n in self.names]
        )
        seen: set[Any] = set()
        for name, key in zip(self.names, keys, strict=True):
            if key in seen:
                raise ValueError(
                    f"{self.file}: the class {describe_names([name])} is named twice; columns "
                    "are paired by name"
                )
            seen.add(key)
        return keys


def npz_classes(z: Any, p: Path) -> _Names | None:
    """The ``classes`` entry of an npz: a JSON list (what ``fmacro apply`` writes) or a
    1-D array of strings (text, as older versions wrote them) or numbers."""
    if "classes" not in z.files:
        return None
    arr = np.asarray(z["classes"])
    where = f"{p}[classes]"
    names: tuple[ClassName, ...] | None
    if arr.ndim == 0 and arr.dtype.kind == "U":
        try:
            values = json.loads(str(arr))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where}: not a JSON list of class names ({exc})") from None
        names, typed = names_from_json(values, where), True
    elif arr.ndim == 1 and arr.dtype.kind == "U":
        names, typed = tuple(str(v) for v in arr.tolist()), False
    elif arr.ndim == 1 and arr.dtype.kind in "biuf":
        names, typed = check_class_names(arr, where), True
    else:
        raise ValueError(
            f"{where}: expected class names (a JSON list, or a 1-D array of strings or "
            f"numbers), got {arr.dtype} of shape {arr.shape}"
        )
    return None if names is None else _Names(names, typed, str(p))


def _load_npz(
    p: Path, roles: Sequence[tuple[str, ...]]
) -> tuple[list[tuple[NDArray[Any], str]], _Names | None]:
    """The arrays of ``roles`` (each with its ``file[name]``) and the file's class names."""
    out = []
    check_numpy_file(p, ".npz")
    with reading(p, ".npz file"):
        try:
            with np.load(p, allow_pickle=False) as z:
                if not hasattr(z, "files"):
                    raise ValueError(f"{p}: a .npy array, not a .npz archive; name it .npy")
                for names in roles:
                    found = [n for n in names if n in z.files]
                    arrays = [f for f in z.files if f != "classes"]
                    if not found and len(arrays) == 1 and len(roles) == 1:
                        found = arrays
                    if not found:
                        raise ValueError(
                            f"{p}: no array named {' or '.join(names)}; found {sorted(z.files)}"
                        )
                    where = f"{p}[{found[0]}]"
                    out.append((_checked_array(np.array(z[found[0]]), where), where))
                classes = npz_classes(z, p)
        except ValueError as exc:
            if "pickle" in str(exc):
                raise pickled_data(p) from None
            raise
    if classes is not None:
        for arr, where in out:
            if arr.ndim == 2 and arr.shape[1] != len(classes.names):
                raise ValueError(
                    f"{where}: {arr.shape[1]} columns but {p}[classes] names "
                    f"{len(classes.names)} classes"
                )
    return out, classes


# --------------------------------------------------------------------------- readers

Source = Table | NDArray[Any]


def _is_text(path: Path) -> bool:
    return path.suffix.lower() not in (".npy", ".npz")


def _finish(sources: Sequence[Source], pair: bool) -> list[NDArray[Any]]:
    """Labels of each source (a body table or an array), typed jointly."""
    tables = [s for s in sources if isinstance(s, Table)]
    arrays = [s for s in sources if not isinstance(s, Table)]
    as_text = any(t.n_columns == 1 or pair for t in tables) and not all(
        _all_numeric(t) for t in tables
    )
    if any(a.dtype.kind in "USO" for a in arrays) and tables:
        as_text = True
    out: list[NDArray[Any]] = []
    for s in sources:
        if not isinstance(s, Table):
            out.append(s)
        elif pair:
            out.extend(_column(s, j, as_text) for j in range(2))
        elif s.n_columns == 1:
            out.append(_column(s, 0, as_text))
        else:
            out.append(_indicator(s))
    return out


def _pair_order(names: tuple[str, ...] | None, path: str) -> tuple[int, int]:
    if names is None:
        return 0, 1
    a, b = (_norm(n) for n in names)
    if a in _PRED_NAMES and b in _TRUE_NAMES:
        return 1, 0
    return 0, 1


def _is_matrix(arr: NDArray[Any]) -> bool:
    """An indicator matrix (objects x classes), or a (1, n) row."""
    return arr.ndim == 2 and arr.shape[1] > 1


def _checked_indicator(arr: NDArray[Any], where: str) -> NDArray[Any]:
    n, m = arr.shape
    if n == 1:
        return arr  # a (1, n) row: the caller says whether it is one object or a mistake
    if arr.dtype.kind not in "biuf":
        raise ValueError(
            f"{where}: a {n} x {m} array is a 0/1 indicator matrix (multi-label data); got "
            f"dtype {arr.dtype}"
        )
    bad = (arr != 0) & (arr != 1)
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raise ValueError(
            f"{where}: a {n} x {m} array is a 0/1 indicator matrix (multi-label data); row "
            f"{i + 1}, column {j + 1} holds {arr[i, j].item()!r}"
        )
    return arr


def _checked_labels(
    e: NDArray[Any], p: NDArray[Any], e_where: str, p_where: str
) -> tuple[NDArray[Any], NDArray[Any]]:
    """Each side checked under the label rules, messages naming its file."""
    if _is_matrix(e) or _is_matrix(p):
        out = [
            _checked_indicator(x, w) if _is_matrix(x) else x
            for x, w in ((e, e_where), (p, p_where))
        ]
        return out[0], out[1]
    with about_file(e_where):
        e = coerce_labels(e, name="expected")
    with about_file(p_where):
        p = coerce_labels(p, name="predicted")
    try:
        return coerce_label_pair(e, p)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{e_where} vs {p_where}: {exc}") from None


def _pair_columns(
    e: NDArray[Any],
    p: NDArray[Any],
    names: tuple[_Names | None, _Names | None],
    files: tuple[str, str],
) -> tuple[NDArray[Any], tuple[ClassName, ...] | None]:
    """``p``'s columns in ``e``'s order, and the class names, for two indicator matrices.

    Both files name their columns: paired by name (as text when either names come from a
    CSV header); different names are refused. One file names them: paired by position, the
    other file being taken to list the classes in that order. Neither: by position.
    """
    if not (_is_matrix(e) and _is_matrix(p)):
        return p, None
    e_names, p_names = names
    if e_names is None or p_names is None:
        named = e_names or p_names
        if e.shape[1] != p.shape[1]:
            note = "" if named is None else f" ({named.file} names them: a header line?)"
            raise ValueError(
                f"{files[0]} has {e.shape[1]} class columns but {files[1]} has {p.shape[1]}{note}"
            )
        if named is None:
            return p, None
        try:
            named.keys(as_text=not named.typed)
        except ValueError:
            return p, None  # repeated names: no names for the report, columns by position
        return p, named.names
    as_text = not (e_names.typed and p_names.typed)
    e_keys, p_keys = e_names.keys(as_text), p_names.keys(as_text)
    if set(e_keys) != set(p_keys):
        only_e = [n for n, k in zip(e_names.names, e_keys, strict=True) if k not in set(p_keys)]
        only_p = [n for n, k in zip(p_names.names, p_keys, strict=True) if k not in set(e_keys)]
        raise ValueError(
            f"{files[0]} and {files[1]} name different classes: only in {files[0]}: "
            f"{describe_names(only_e) or 'none'}; only in {files[1]}: "
            f"{describe_names(only_p) or 'none'}"
        )
    position = {k: j for j, k in enumerate(p_keys)}
    order = [position[k] for k in e_keys]
    if order != list(range(len(order))):
        p = p[:, order]  # a new array: the caller's is never reordered in place
    if e_names.typed or not p_names.typed:
        return p, e_names.names
    return p, tuple(p_names.names[j] for j in order)


@read_only_copies
@attrs.frozen
class LabelPair:
    """Expected and predicted labels read from files (:func:`read_label_pair`).

    A value: its arrays are read-only copies (also after ``pickle`` and ``copy``), and two
    pairs are equal when they hold the same labels and class names.

    Attributes
    ----------
    expected, predicted : ndarray, read-only
        Label vectors, or 0/1 indicator matrices (objects x classes) whose columns are
        paired: by name when both files name them, else by position.
    classes : tuple of class names, or None
        Names of the indicator columns, in ``expected``'s order, when a file names them: a
        CSV header (text) or the ``classes`` entry of an ``.npz`` (names keep their kind).
    """

    expected: NDArray[Any] = attrs.field(converter=frozen_array, eq=value_key)
    predicted: NDArray[Any] = attrs.field(converter=frozen_array, eq=value_key)
    classes: tuple[ClassName, ...] | None = None


#: ``(expected, predicted, classes)`` as read, before they become a :class:`LabelPair`.
_Pair = tuple[NDArray[Any], NDArray[Any], tuple[ClassName, ...] | None]


def read_label_pair(
    expected: PathLike, predicted: PathLike | None = None, *, header: bool | None = None
) -> LabelPair:
    """Expected and predicted labels from two files, or from one file holding both.

    Two files: see :func:`read_label_files`; one file: :func:`read_prediction_pairs`.
    Indicator matrices are paired by class name when both files name their columns (a CSV
    header, or an npz's ``classes``): the same names in another order are matched by
    name, different names refused. When one file names them, the other (a file without a
    header) is taken to hold the classes in the same order. Every message about a file's
    contents names the file (and line, for text).

    Raises
    ------
    ValueError, TypeError
        A file that cannot be read, a malformed line, labels that break the label rules,
        different numbers of labels, or indicator matrices naming different classes.
    """
    if predicted is None:
        return LabelPair(*_read_one_pair(expected, header))
    return LabelPair(*_read_two_files(expected, predicted, header))


def _read_two_files(expected: PathLike, predicted: PathLike, header: bool | None) -> _Pair:
    """Labels and class names of two files (see :func:`read_label_pair`)."""
    paths = [checked_path(expected), checked_path(predicted)]
    tables = [read_table(p) for p in paths if _is_text(p)]
    flags = iter(_decide_headers(tables, header))
    sources: list[Source] = []
    names: list[_Names | None] = []
    wheres: list[str] = []
    for p, role in zip(paths, (_EXPECTED_ARRAYS, _PREDICTED_ARRAYS), strict=True):
        if p.suffix.lower() == ".npy":
            sources.append(_load_npy(p))
            names.append(None)
            wheres.append(str(p))
        elif p.suffix.lower() == ".npz":
            [(arr, where)], classes = _load_npz(p, [role])
            sources.append(arr)
            names.append(classes)
            wheres.append(where)
        else:
            body, header_names = _body(tables.pop(0), next(flags))
            sources.append(body)
            names.append(None if header_names is None else _Names(header_names, False, str(p)))
            wheres.append(str(p))
    e, pr = _finish(sources, pair=False)
    _check_lengths(e, pr, wheres[0], wheres[1])
    e, pr = _checked_labels(e, pr, wheres[0], wheres[1])
    pr, class_names = _pair_columns(e, pr, (names[0], names[1]), (str(expected), str(predicted)))
    return e, pr, class_names


def read_label_files(
    expected: PathLike, predicted: PathLike, *, header: bool | None = None
) -> tuple[NDArray[Any], NDArray[Any]]:
    """Expected and predicted labels from two files, read by the module's rules.

    ``header`` forces (True) or forbids (False) a header line in the text files; ``None``
    recognises it. Text labels of the two files are typed together (numbers only when
    both are all numbers). Indicator matrices whose files both name their columns are
    paired by name (see :func:`read_label_pair`, which also returns the names).

    Raises
    ------
    ValueError, TypeError
        A file that cannot be read, a malformed line (file and line named), a mix of number
        and text labels between an array and a text file, different numbers of labels, or
        indicator matrices naming different classes.
    """
    e, p, _ = _read_two_files(expected, predicted, header)
    return e, p


def _check_lengths(e: NDArray[Any], p: NDArray[Any], e_name: str, p_name: str) -> None:
    if len(e) != len(p):
        raise ValueError(
            f"{e_name} has {len(e)} labels but {p_name} has {len(p)} (a header line counted "
            "as a label? see --header/--no-header)"
        )


def read_labels(path: PathLike, *, header: bool | None = None) -> NDArray[Any]:
    """Read a label vector or an indicator matrix from one ``.npy``, ``.npz`` or text file."""
    p = checked_path(path)
    if p.suffix.lower() == ".npy":
        arr, where = _load_npy(p), str(p)
    elif p.suffix.lower() == ".npz":
        [(arr, where)], _ = _load_npz(p, [_EXPECTED_ARRAYS])
    else:
        t = read_table(p)
        decided = header if header is not None else bool(_auto_header(t))
        arr, where = _finish([_body(t, decided)[0]], pair=False)[0], str(p)
    if _is_matrix(arr):
        return _checked_indicator(arr, where)
    with about_file(where):
        return coerce_labels(arr, name="labels")


def _read_one_pair(path: PathLike, header: bool | None) -> _Pair:
    p = checked_path(path)
    if p.suffix.lower() == ".npz":
        [(e, e_where), (pr, p_where)], classes = _load_npz(p, [_EXPECTED_ARRAYS, _PREDICTED_ARRAYS])
        _check_lengths(e, pr, e_where, p_where)
        e, pr = _checked_labels(e, pr, e_where, p_where)
        if not (_is_matrix(e) and _is_matrix(pr)) or classes is None:
            return e, pr, None
        return e, pr, classes.names
    if p.suffix.lower() == ".npy":
        raise ValueError(f"{path}: a .npy holds one array; give EXPECTED and PREDICTED files")
    t = read_table(p)
    decided = header if header is not None else bool(_auto_header(t))
    body, names = _body(t, decided)
    if body.n_columns != 2:
        raise ValueError(
            f"{path}: a single file must hold two columns, expected and predicted labels; "
            f"found {body.n_columns}"
        )
    i, j = _pair_order(names, str(path))
    cols = _finish([body], pair=True)
    return cols[i], cols[j], None


def read_prediction_pairs(
    path: PathLike, *, header: bool | None = None
) -> tuple[NDArray[Any], NDArray[Any]]:
    """Expected and predicted labels from one file holding both.

    A text file of two columns (after pandas' index column): expected then predicted, or in
    the order the header names them (``y_pred,y_true`` is read the right way round). A
    ``.npz`` with arrays ``expected``/``labels`` and ``predicted`` (and, optionally, the
    ``classes`` that ``fmacro apply`` writes; :func:`read_label_pair` returns them).
    """
    e, p, _ = _read_one_pair(path, header)
    return e, p


def infer_kind(expected: Any, predicted: Any) -> Kind:
    """``multilabel`` for 2-D input, ``binary`` for labels within {0, 1}, else ``multiclass``."""
    e, p = np.asarray(expected), np.asarray(predicted)
    if e.ndim == 2 and e.shape[1] > 1:
        return "multilabel"
    if e.dtype != object and p.dtype != object:
        values = set(np.unique(e).tolist()) | set(np.unique(p).tolist())
        if values <= {0, 1}:
            return "binary"
    return "multiclass"


def validation_for(
    expected: Any,
    predicted: Any,
    kind: Kind | None = None,
    *,
    beta: float = 1.0,
    zero_division: float = 0.0,
    positive: Any = 1,
    classes: Sequence[ClassName] | None = None,
) -> BinFValidation | MultiFValidation | MultiLabelFValidation:
    """Build the validation that fits the labels (or the given ``kind``).

    ``classes`` names the columns of multi-label indicator matrices (as
    :attr:`LabelPair.classes`); the other kinds take their classes from the labels.
    """
    kind = kind or infer_kind(expected, predicted)
    if kind == "binary":
        # No reshape: a 2-D indicator matrix is refused, an (n, 1) column accepted.
        return BinFValidation.from_predictions(
            expected,
            predicted,
            positive=positive,
            beta=beta,
            zero_division=zero_division,
        )
    if kind == "multiclass":
        return MultiFValidation.from_predictions(
            expected, predicted, beta=beta, zero_division=zero_division
        )
    if kind == "multilabel":
        return MultiLabelFValidation.from_predictions(
            expected,
            predicted,
            labels=None if classes is None else list(classes),
            beta=beta,
            zero_division=zero_division,
        )
    raise ValueError(f"kind must be 'binary', 'multiclass' or 'multilabel', got {kind!r}")
