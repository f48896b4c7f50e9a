"""Reading expected/predicted labels from files, and building the right validation.

Formats
-------
``.npy``
    A 1-D array of labels or a 2-D (samples, labels) 0/1 indicator matrix.
``.csv`` / ``.tsv`` / ``.txt``
    One column: one label per line (numbers or names). Several columns of 0/1: an
    indicator matrix, one row per sample. A first line that is not data (a header)
    is skipped.
A two-column CSV with header ``expected,predicted`` holds both vectors at once
(:func:`read_prediction_pairs`).
"""

from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import Any, Literal

import numpy as np

from fmacro.validation.binary import BinFValidation
from fmacro.validation.multiclass import MultiFValidation
from fmacro.validation.multilabel import MultiLabelFValidation

__all__ = ["Kind", "infer_kind", "read_labels", "read_prediction_pairs", "validation_for"]

Kind = Literal["binary", "multiclass", "multilabel"]


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _read_rows(path: Path) -> list[list[str]]:
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    with path.open(newline="", encoding="utf-8") as handle:
        rows = [
            [cell.strip() for cell in row]
            for row in csv.reader(handle, delimiter=delimiter)
            if row and any(cell.strip() for cell in row)
        ]
    if not rows:
        raise ValueError(f"{path}: the file holds no labels")
    widths = {len(r) for r in rows}
    if len(widths) != 1:
        for line_no, row in enumerate(rows, start=1):
            if len(row) != len(rows[0]):
                raise ValueError(
                    f"{path}: row {line_no} has {len(row)} column(s), the first has {len(rows[0])}"
                )
    # A header: first row not numeric while the second row is.
    if len(rows) > 1 and not all(map(_is_number, rows[0])) and all(map(_is_number, rows[1])):
        rows = rows[1:]
    return rows


def _labels_from_cells(cells: list[str]) -> np.ndarray:
    if all(map(_is_number, cells)):
        values = np.array([float(c) for c in cells])
        if not np.isfinite(values).all():
            raise ValueError("labels contain NaN or infinite values")
        if np.all(values == np.round(values)):
            return values.astype(np.int64)
        raise ValueError("numeric labels must be integers")
    return np.array(cells, dtype=object)


def read_labels(path: str | os.PathLike[str]) -> np.ndarray:
    """Read a label vector or an indicator matrix from ``.npy``, CSV or TSV.

    Raises
    ------
    ValueError
        If the file is empty, ragged, or a multi-column file holds values other than 0/1.
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such file")
    if path.suffix.lower() == ".npy":
        try:
            arr: np.ndarray = np.load(path, allow_pickle=False)
        except ValueError as exc:
            raise ValueError(f"{path}: not a readable .npy array ({exc})") from None
        if arr.ndim not in (1, 2) or arr.size == 0:
            raise ValueError(
                f"{path}: expected a non-empty 1-D or 2-D array, got shape {arr.shape}"
            )
        return arr
    try:
        rows = _read_rows(path)
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a text file (use .npy for binary arrays)") from None
    if len(rows[0]) == 1:
        try:
            return _labels_from_cells([r[0] for r in rows])
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None
    try:
        matrix = np.array([[float(c) for c in r] for r in rows])
    except ValueError:
        raise ValueError(
            f"{path}: a file with several columns must be a 0/1 indicator matrix"
        ) from None
    if not np.isin(matrix, (0.0, 1.0)).all():
        raise ValueError(f"{path}: an indicator matrix must hold only 0 and 1")
    return matrix.astype(np.uint8)


def read_prediction_pairs(path: str | os.PathLike[str]) -> tuple[np.ndarray, np.ndarray]:
    """Read a two-column ``expected,predicted`` CSV (with or without header)."""
    path = Path(path)
    rows = _read_rows(path)
    if rows and [c.lower() for c in rows[0]] == ["expected", "predicted"]:
        rows = rows[1:]
    if not rows or len(rows[0]) != 2:
        raise ValueError(f"{path}: expected two columns, expected and predicted labels")
    return _labels_from_cells([r[0] for r in rows]), _labels_from_cells([r[1] for r in rows])


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
        return BinFValidation.from_predictions(
            np.asarray(expected).reshape(-1),
            np.asarray(predicted).reshape(-1),
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
