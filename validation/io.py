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

This module holds the readers of labels and pairs and :func:`validation_for`; the text
tables (:func:`read_table`, the header and cell rules) are
:mod:`fmacro.validation.io_text`, the ``.npy``/``.npz`` loaders
:mod:`fmacro.validation.io_arrays`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.validation.binary import BinFValidation
from fmacro.validation.counts import frozen_array
from fmacro.validation.files import about_file, checked_path
from fmacro.validation.io_arrays import (
    EXPECTED_ARRAYS,
    PREDICTED_ARRAYS,
    ColumnNames,
    load_label_array,
    load_label_arrays,
    npz_classes,  # noqa: F401 - a public name of this module (fmacro.cli reads it here)
)
from fmacro.validation.io_text import (
    HEADER_NAMES,
    PathLike,
    Table,
    all_numeric,
    auto_header,
    column_labels,
    decide_headers,
    indicator_matrix,
    pair_order,
    read_table,
    table_body,
)
from fmacro.validation.labels import coerce_label_pair, coerce_labels
from fmacro.validation.multiclass import MultiFValidation
from fmacro.validation.multilabel import MultiLabelFValidation
from fmacro.validation.names import ClassName, describe_names
from fmacro.validation.values import read_only_copies, value_key

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


# --------------------------------------------------------------------------- readers

Source = Table | NDArray[Any]


def _is_text(path: Path) -> bool:
    return path.suffix.lower() not in (".npy", ".npz")


def _finish(sources: Sequence[Source], pair: bool) -> list[NDArray[Any]]:
    """Labels of each source (a body table or an array), typed jointly."""
    tables = [s for s in sources if isinstance(s, Table)]
    arrays = [s for s in sources if not isinstance(s, Table)]
    as_text = any(t.n_columns == 1 or pair for t in tables) and not all(
        all_numeric(t) for t in tables
    )
    if any(a.dtype.kind in "USO" for a in arrays) and tables:
        as_text = True
    out: list[NDArray[Any]] = []
    for s in sources:
        if not isinstance(s, Table):
            out.append(s)
        elif pair:
            out.extend(column_labels(s, j, as_text) for j in range(2))
        elif s.n_columns == 1:
            out.append(column_labels(s, 0, as_text))
        else:
            out.append(indicator_matrix(s))
    return out


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
    names: tuple[ColumnNames | None, ColumnNames | None],
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
    flags = iter(decide_headers(tables, header))
    sources: list[Source] = []
    names: list[ColumnNames | None] = []
    wheres: list[str] = []
    for p, role in zip(paths, (EXPECTED_ARRAYS, PREDICTED_ARRAYS), strict=True):
        if p.suffix.lower() == ".npy":
            sources.append(load_label_array(p))
            names.append(None)
            wheres.append(str(p))
        elif p.suffix.lower() == ".npz":
            [(arr, where)], classes = load_label_arrays(p, [role])
            sources.append(arr)
            names.append(classes)
            wheres.append(where)
        else:
            body, header_names = table_body(tables.pop(0), next(flags))
            sources.append(body)
            names.append(None if header_names is None else ColumnNames(header_names, False, str(p)))
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
        arr, where = load_label_array(p), str(p)
    elif p.suffix.lower() == ".npz":
        [(arr, where)], _ = load_label_arrays(p, [EXPECTED_ARRAYS])
    else:
        t = read_table(p)
        decided = header if header is not None else bool(auto_header(t))
        arr, where = _finish([table_body(t, decided)[0]], pair=False)[0], str(p)
    if _is_matrix(arr):
        return _checked_indicator(arr, where)
    with about_file(where):
        return coerce_labels(arr, name="labels")


def _read_one_pair(path: PathLike, header: bool | None) -> _Pair:
    p = checked_path(path)
    if p.suffix.lower() == ".npz":
        [(e, e_where), (pr, p_where)], classes = load_label_arrays(
            p, [EXPECTED_ARRAYS, PREDICTED_ARRAYS]
        )
        _check_lengths(e, pr, e_where, p_where)
        e, pr = _checked_labels(e, pr, e_where, p_where)
        if not (_is_matrix(e) and _is_matrix(pr)) or classes is None:
            return e, pr, None
        return e, pr, classes.names
    if p.suffix.lower() == ".npy":
        raise ValueError(f"{path}: a .npy holds one array; give EXPECTED and PREDICTED files")
    t = read_table(p)
    decided = header if header is not None else bool(auto_header(t))
    body, names = table_body(t, decided)
    if body.n_columns != 2:
        raise ValueError(
            f"{path}: a single file must hold two columns, expected and predicted labels; "
            f"found {body.n_columns}"
        )
    i, j = pair_order(names, str(path))
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
    keep_outcomes: bool = False,
) -> BinFValidation | MultiFValidation | MultiLabelFValidation:
    """Build the validation that fits the labels (or the given ``kind``).

    ``classes`` names the columns of multi-label indicator matrices (as
    :attr:`LabelPair.classes`); the other kinds take their classes from the labels.
    ``keep_outcomes=True`` keeps each object's outcome, for ``bootstrap``.
    """
    kind = kind or infer_kind(expected, predicted)
    options: dict[str, Any] = {
        "beta": beta,
        "zero_division": zero_division,
        "keep_outcomes": keep_outcomes,
    }
    if kind == "binary":
        # No reshape: a 2-D indicator matrix is refused, an (n, 1) column accepted.
        return BinFValidation.from_predictions(expected, predicted, positive=positive, **options)
    if kind == "multiclass":
        return MultiFValidation.from_predictions(expected, predicted, **options)
    if kind == "multilabel":
        labels = None if classes is None else list(classes)
        return MultiLabelFValidation.from_predictions(expected, predicted, labels=labels, **options)
    raise ValueError(f"kind must be 'binary', 'multiclass' or 'multilabel', got {kind!r}")
