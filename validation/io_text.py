"""Label files as text: the table reader, header and cell rules of :mod:`fmacro.validation.io`.

:func:`read_table` reads a text file into a :class:`Table` of fields (encodings, line
ends, quoting, the sniffed delimiter); :func:`decide_headers` and :func:`table_body`
apply the header and index-column rules, :func:`column_labels` and
:func:`indicator_matrix` turn cells into labels, and :func:`pair_order` orders the two
columns of a pair by their header names (:data:`HEADER_NAMES`). The rules are documented
once, in :mod:`fmacro.validation.io`; :class:`Table` is shown and pickled as
``fmacro.validation.io.Table``, where it was first defined.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.validation.files import checked_path, read_text
from fmacro.validation.labels import coerce_labels

__all__ = [
    "HEADER_NAMES",
    "PathLike",
    "Table",
    "all_numeric",
    "auto_header",
    "column_labels",
    "decide_headers",
    "indicator_matrix",
    "pair_order",
    "read_table",
    "table_body",
]

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


def auto_header(t: Table) -> bool | None:
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


def decide_headers(tables: Sequence[Table], header: bool | None) -> list[bool]:
    if header is not None:
        return [header] * len(tables)
    auto = [auto_header(t) for t in tables]
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


def table_body(t: Table, has_header: bool) -> tuple[Table, tuple[str, ...] | None]:
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


def column_labels(t: Table, j: int, as_text: bool) -> NDArray[Any]:
    cells = [r[j] for r in t.rows]
    for i, c in enumerate(cells):
        if c == "" or _is_nan(c):
            raise ValueError(f"{t.where(i)}: missing label ({c!r})")
    if as_text:
        out = np.empty(len(cells), dtype=object)
        out[:] = cells
        return out
    return coerce_labels([_number(c, t.where(i)) for i, c in enumerate(cells)], name=t.path)


def indicator_matrix(t: Table) -> NDArray[np.int64]:
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


def all_numeric(t: Table) -> bool:
    return all(_is_number(c) for r in t.rows for c in r)


def pair_order(names: tuple[str, ...] | None, path: str) -> tuple[int, int]:
    if names is None:
        return 0, 1
    a, b = (_norm(n) for n in names)
    if a in _PRED_NAMES and b in _TRUE_NAMES:
        return 1, 0
    return 0, 1


# Defined here, but ``fmacro.validation.io`` is its public home: reprs, pickles and the docs
# name it there, as before this module was split off (io re-exports it).
Table.__module__ = "fmacro.validation.io"
