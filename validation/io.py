"""Reading expected/predicted labels from files, and building the right validation.

Every label file goes through one reader, :func:`read_table` (text) or the ``.npy``/``.npz``
loaders, and every label through :func:`fmacro.validation.labels.coerce_labels`. The rules,
with examples, are in docs/glossary.md ("Label files").

Text files (``.csv``, ``.tsv``, ``.txt``, any name)
    UTF-8, with or without a byte-order mark (Excel's "CSV UTF-8"), or UTF-16 with its
    mark (Excel's "Unicode text"); LF, CRLF or CR line ends. The delimiter is sniffed among
    ``,`` ``;`` and tab (a ``.tsv`` prefers tab): the one that splits every line into the
    same number (> 1) of fields; runs of spaces separate the fields of an all-numeric
    matrix; otherwise each line is one label (which may contain spaces). Blank lines
    before and after the data are skipped; a blank line inside it, an empty field or
    ``nan`` is a missing label and is refused.
Header
    ``--header``/``--no-header`` (``header=True/False``) force it. Otherwise the first line
    is a header when its first field is empty (pandas' index column), when it holds text
    above numeric data, when every field is a column name such as ``y_true``, ``y_pred``,
    ``label`` or ``expected`` (:data:`HEADER_NAMES`). A first line of text labels that
    occur nowhere else in either file is ambiguous (a header, or a rare class?) and
    refused: pass ``--header`` or ``--no-header``.
Index column
    Under a header whose first field is empty or ``Unnamed: 0`` (pandas' ``to_csv()``
    default), the first column is the index and is dropped.
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
``.npy``
    A 1-D array of labels, an ``(n, 1)`` column, or a 2-D 0/1 indicator matrix.
``.npz``
    Expected labels from the array ``expected``, ``y_true`` or ``labels``; predicted ones from
    ``predicted`` or ``y_pred`` (what ``fmacro apply -o pred.npz`` writes); a file of one
    array is that array.
"""

from __future__ import annotations

import csv
import os
import re
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Literal

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.validation._files import (
    check_numpy_file,
    checked_path,
    load_npy,
    pickled_data,
    read_text,
    reading,
)
from fmacro.validation.binary import BinFValidation
from fmacro.validation.labels import coerce_labels
from fmacro.validation.multiclass import MultiFValidation
from fmacro.validation.multilabel import MultiLabelFValidation

__all__ = [
    "HEADER_NAMES",
    "Kind",
    "Table",
    "infer_kind",
    "read_label_files",
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
    """The fields of a text file: ``rows[i]`` is on file line ``lines[i]``."""

    path: str
    rows: tuple[tuple[str, ...], ...]
    lines: tuple[int, ...]
    delimiter: str | None

    @property
    def n_columns(self) -> int:
        return len(self.rows[0])

    def where(self, i: int) -> str:
        return f"{self.path}, line {self.lines[i]}"


def _split(line: str, delimiter: str) -> list[str]:
    return next(csv.reader([line], delimiter=delimiter))


def _sniff(path: Path, lines: Sequence[str]) -> str | None:
    order = ["\t", ",", ";"] if path.suffix.lower() == ".tsv" else [",", ";", "\t"]
    counts = {d: [len(_split(line, d)) for line in lines] for d in order}
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

    Raises
    ------
    ValueError
        An unreadable, empty or non-text file, a blank line inside the data, or rows of
        different lengths; the message names the file and the line.
    """
    p = checked_path(path)
    text = read_text(p, "label file")
    raw = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    numbered = [(i, line) for i, line in enumerate(raw, start=1) if line.strip()]
    if not numbered:
        raise ValueError(f"{path}: the file holds no labels")
    first, last = numbered[0][0], numbered[-1][0]
    if last - first + 1 != len(numbered):
        gap = next(i for i in range(first, last + 1) if not raw[i - 1].strip())
        raise ValueError(
            f"{path}, line {gap}: blank line inside the data (a missing label? pandas writes "
            "NaN as an empty field)"
        )
    lines = [line for _, line in numbered]
    delimiter = _sniff(p, lines)
    if delimiter is None:
        # One field per line; csv still unquotes it ('"a,b"' is the label a,b).
        rows: list[tuple[str, ...]] = [(_split(line, ",")[0].strip(),) for line in lines]
    elif delimiter == " ":
        rows = [tuple(line.split()) for line in lines]
    else:
        rows = [tuple(c.strip() for c in _split(line, delimiter)) for line in lines]
    for (line_no, _), row in zip(numbered, rows, strict=True):
        if len(row) != len(rows[0]):
            raise ValueError(
                f"{path}, line {line_no}: {len(row)} field(s), line {first} has {len(rows[0])}"
            )
    return Table(str(path), tuple(rows), tuple(i for i, _ in numbered), delimiter)


# --------------------------------------------------------------------------- header


def _header_word(row: Sequence[str]) -> bool:
    return all(_norm(c) in HEADER_NAMES for c in row)


def _auto_header(t: Table) -> bool | None:
    """True/False when the table alone decides; None when its first line is a text label."""
    row0 = t.rows[0]
    if len(t.rows) == 1:
        return _header_word(row0)
    if t.n_columns > 1 and _norm(row0[0]) in ("", "unnamed:_0"):
        return True
    if _header_word(row0):
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


def _body(t: Table, has_header: bool) -> tuple[Table, tuple[str, ...] | None]:
    """The data rows (index column dropped) and the column names, if any."""
    if not has_header:
        return t, None
    if len(t.rows) < 2:
        raise ValueError(f"{t.path}: the file holds a header and no labels")
    names = t.rows[0]
    rows, lines = t.rows[1:], t.lines[1:]
    if len(names) > 1 and _norm(names[0]) in ("", "unnamed:_0", "index"):
        names, rows = names[1:], tuple(r[1:] for r in rows)
    return Table(t.path, rows, lines, t.delimiter), names


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


def _indicator(t: Table) -> NDArray[np.uint8]:
    out = np.empty((len(t.rows), t.n_columns), dtype=np.uint8)
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


def _load_npz(p: Path, roles: Sequence[tuple[str, ...]]) -> list[NDArray[Any]]:
    out = []
    check_numpy_file(p, ".npz")
    with reading(p, ".npz file"):
        try:
            with np.load(p, allow_pickle=False) as z:
                if not hasattr(z, "files"):
                    raise ValueError(f"{p}: a .npy array, not a .npz archive; name it .npy")
                for names in roles:
                    found = [n for n in names if n in z.files]
                    if not found and len(z.files) == 1 and len(roles) == 1:
                        found = list(z.files)
                    if not found:
                        raise ValueError(
                            f"{p}: no array named {' or '.join(names)}; found {sorted(z.files)}"
                        )
                    out.append(_checked_array(np.array(z[found[0]]), f"{p}[{found[0]}]"))
        except ValueError as exc:
            if "pickle" in str(exc):
                raise pickled_data(p) from None
            raise
    return out


# --------------------------------------------------------------------------- readers

Source = Table | NDArray[Any]


def _is_text(path: Path) -> bool:
    return path.suffix.lower() not in (".npy", ".npz")


def _finish(sources: list[tuple[Source, tuple[str, ...] | None]], pair: bool) -> list[NDArray[Any]]:
    """Labels of each source (a body table or an array), typed jointly."""
    tables = [s for s, _ in sources if isinstance(s, Table)]
    arrays = [s for s, _ in sources if not isinstance(s, Table)]
    as_text = any(t.n_columns == 1 or pair for t in tables) and not all(
        _all_numeric(t) for t in tables
    )
    if any(a.dtype.kind in "USO" for a in arrays) and tables:
        as_text = True
    out: list[NDArray[Any]] = []
    for s, _ in sources:
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


def read_label_files(
    expected: PathLike, predicted: PathLike, *, header: bool | None = None
) -> tuple[NDArray[Any], NDArray[Any]]:
    """Expected and predicted labels from two files, read by the module's rules.

    ``header`` forces (True) or forbids (False) a header line in the text files; ``None``
    recognises it. Text labels of the two files are typed together (numbers only when
    both are all numbers).

    Raises
    ------
    ValueError, TypeError
        A file that cannot be read, a malformed line (file and line named), a mix of number
        and text labels between an array and a text file, or different numbers of labels.
    """
    paths = [checked_path(expected), checked_path(predicted)]
    tables = [read_table(p) for p in paths if _is_text(p)]
    flags = iter(_decide_headers(tables, header))
    sources: list[tuple[Source, tuple[str, ...] | None]] = []
    for p, role in zip(paths, (_EXPECTED_ARRAYS, _PREDICTED_ARRAYS), strict=True):
        if p.suffix.lower() == ".npy":
            sources.append((_load_npy(p), None))
        elif p.suffix.lower() == ".npz":
            sources.append((_load_npz(p, [role])[0], None))
        else:
            sources.append(_body(tables.pop(0), next(flags)))
    e, pr = _finish(sources, pair=False)
    _check_lengths(e, pr, str(expected), str(predicted))
    return e, pr


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
        return _load_npy(p)
    if p.suffix.lower() == ".npz":
        return _load_npz(p, [_EXPECTED_ARRAYS])[0]
    t = read_table(p)
    decided = header if header is not None else bool(_auto_header(t))
    return _finish([_body(t, decided)], pair=False)[0]


def read_prediction_pairs(
    path: PathLike, *, header: bool | None = None
) -> tuple[NDArray[Any], NDArray[Any]]:
    """Expected and predicted labels from one file holding both.

    A text file of two columns (after pandas' index column): expected then predicted, or in
    the order the header names them (``y_pred,y_true`` is read the right way round). A
    ``.npz`` with arrays ``expected``/``labels`` and ``predicted``.
    """
    p = checked_path(path)
    if p.suffix.lower() == ".npz":
        e, pr = _load_npz(p, [_EXPECTED_ARRAYS, _PREDICTED_ARRAYS])
        _check_lengths(e, pr, f"{path}[expected]", f"{path}[predicted]")
        return e, pr
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
    cols = _finish([(body, names)], pair=True)
    return cols[i], cols[j]


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
) -> BinFValidation | MultiFValidation | MultiLabelFValidation:
    """Build the validation that fits the labels (or the given ``kind``)."""
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
            expected, predicted, beta=beta, zero_division=zero_division
        )
    raise ValueError(f"kind must be 'binary', 'multiclass' or 'multilabel', got {kind!r}")
