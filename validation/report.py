"""Plain-text tables for ``.report()`` and the settings check behind ``+``."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

__all__ = ["format_table", "same_settings"]


def _cell(value: Any, digits: int) -> str:
    if isinstance(value, (float, np.floating)):
        return "nan" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def format_table(
    header: Sequence[str], rows: Iterable[Sequence[Any]], digits: int = 4, gap: int = 2
) -> str:
    """Format rows as a fixed-width text table: first column left-aligned, others right."""
    cells = [[_cell(v, digits) for v in row] for row in rows]
    widths = [len(h) for h in header]
    for row in cells:
        for j, text in enumerate(row):
            widths[j] = max(widths[j], len(text))
    sep = " " * gap

    def line(row: Sequence[str]) -> str:
        first = row[0].ljust(widths[0])
        rest = [text.rjust(widths[j + 1]) for j, text in enumerate(row[1:])]
        return sep.join([first, *rest]).rstrip()

    out = [line(list(header)), line(["-" * w for w in widths])]
    out.extend(line(row) for row in cells)
    return "\n".join(out)


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(np.asarray(a), np.asarray(b)))
    return bool(a == b)


def same_settings(a: object, b: object, names: Sequence[str]) -> None:
    """Raise ``ValueError`` unless ``a`` and ``b`` agree on every attribute in ``names``."""
    for name in names:
        va, vb = getattr(a, name), getattr(b, name)
        if not _equal(va, vb):
            raise ValueError(
                f"cannot pool {type(a).__name__} objects with different {name}: {va!r} vs {vb!r}"
            )
