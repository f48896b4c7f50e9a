"""Class names: one rule wherever names cross into or out of fmacro.

Class names come from DataFrame columns, categorical categories, a ``classes=`` argument, a
thresholds JSON file or a CSV header, and go out to JSON, CSV headers, npz files and
DataFrames. One rule serves every such boundary:

- **Kept as given.** A name is a ``str``, an ``int``, a ``float`` or a ``bool`` (numpy
  scalars become the Python scalar of the same kind). ``1`` and ``"1"`` are different names
  (nothing is passed through ``str()``), so a frame with columns ``[1, "1"]`` is paired by
  name and never by text. ``None`` and NaN are one *missing* name, stored as NaN; it equals
  itself, so two frames that both have a NaN column name match.
- **Unique.** Thresholds are paired with columns by name, so a list of class names with a
  repeat (or two missing names) is refused where it is given, naming the repeats.
- **Round trips.** In JSON (:func:`names_to_json`, :func:`names_from_json`) a name keeps its
  kind (a missing name is ``null``); text formats that only hold strings (CSV headers) are
  compared as text with :func:`text_names`.

Everything here is pure Python: pandas is not imported.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

__all__ = [
    "ClassName",
    "check_class_names",
    "describe_names",
    "name_key",
    "names_from_json",
    "names_to_json",
    "same_names",
    "text_names",
]

ClassName = str | int | float | bool


def _scalar(name: Any, argument: str) -> ClassName:
    """One name as a Python scalar of its own kind (missing -> NaN)."""
    if name is None or type(name).__name__ in ("NAType", "NaTType"):
        return math.nan
    if isinstance(name, np.generic):
        name = name.item()
    if isinstance(name, (str, bool, int)):
        return name
    if isinstance(name, float):
        return math.nan if math.isnan(name) else name
    raise TypeError(
        f"{argument} must hold class names that are str, int, float or bool, got "
        f"{type(name).__name__} {name!r}; rename the columns (for a DataFrame: "
        "df.columns = [str(c) for c in df.columns])"
    )


def name_key(name: ClassName) -> tuple[str, Any]:
    """A hashable key under which two names are the same name.

    The kind is part of the key (``1``, ``1.0``, ``True`` and ``"1"`` are four names) and
    every missing name (NaN) shares one key.
    """
    if name is None or (isinstance(name, float) and math.isnan(name)):
        return ("missing", None)
    return (type(name).__name__, name)


def check_class_names(values: Any, argument: str = "classes") -> tuple[ClassName, ...] | None:
    """``values`` as a tuple of class names by the module's rule, or ``None`` for ``None``.

    Raises
    ------
    TypeError
        ``values`` is a single string, or a name is not a str, int, float or bool.
    ValueError
        A name occurs twice (the repeats are named).
    """
    if values is None:
        return None
    if isinstance(values, (str, bytes)):
        raise TypeError(
            f"{argument} must be a sequence of names, got a single {type(values).__name__}"
        )
    if hasattr(values, "tolist"):
        values = values.tolist()
    names = tuple(_scalar(v, argument) for v in values)
    seen: set[tuple[str, Any]] = set()
    repeats: list[ClassName] = []
    for name in names:
        key = name_key(name)
        if key in seen and name not in repeats:
            repeats.append(name)
        seen.add(key)
    if repeats:
        raise ValueError(
            f"{argument} names a class more than once ({describe_names(repeats)}); class "
            "names must be unique, since columns (and thresholds) are paired by name"
        )
    return names


def same_names(first: Sequence[ClassName], second: Sequence[ClassName]) -> bool:
    """Whether two name lists are the same names in the same order (NaN equals NaN)."""
    return len(first) == len(second) and all(
        name_key(a) == name_key(b) for a, b in zip(first, second, strict=True)
    )


def text_names(names: Iterable[ClassName]) -> list[str]:
    """The names as a text format writes them: ``str`` of each, ``""`` for a missing one."""
    return ["" if name_key(n) == ("missing", None) else str(n) for n in names]


def names_to_json(names: Sequence[ClassName]) -> list[Any]:
    """JSON values of the names: each keeps its kind; a missing name is ``null``."""
    return [None if name_key(n) == ("missing", None) else n for n in names]


def names_from_json(values: Any, argument: str = "classes") -> tuple[ClassName, ...] | None:
    """Inverse of :func:`names_to_json`, checked like :func:`check_class_names`."""
    if values is None:
        return None
    if not isinstance(values, list):
        raise ValueError(f"{argument} must be a list of names or null, got {type(values).__name__}")
    for v in values:
        if v is not None and not isinstance(v, (str, int, float, bool)):
            raise ValueError(
                f"{argument} must hold names that are strings, numbers, booleans or null, "
                f"got {type(v).__name__}"
            )
    return check_class_names(values, argument)


def describe_names(names: Sequence[ClassName], limit: int = 5) -> str:
    """A short, unambiguous rendering of some names for an error message."""
    missing = ("missing", None)
    shown = ", ".join("NaN" if name_key(n) == missing else repr(n) for n in names[:limit])
    return shown + (", ..." if len(names) > limit else "")
