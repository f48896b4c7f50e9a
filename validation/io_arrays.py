"""Label files as numpy arrays: the ``.npy``/``.npz`` loaders of :mod:`fmacro.validation.io`.

:func:`load_label_array` reads a ``.npy`` file and :func:`load_label_arrays` the arrays of
an ``.npz`` by role (expected: :data:`EXPECTED_ARRAYS`, predicted:
:data:`PREDICTED_ARRAYS`) with its optional ``classes`` entry (:func:`npz_classes`), as
:class:`ColumnNames`, which also holds a CSV header's names. The rules are documented
once, in :mod:`fmacro.validation.io`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.validation.files import check_numpy_file, load_npy, pickled_data, reading
from fmacro.validation.names import (
    ClassName,
    check_class_names,
    describe_names,
    name_key,
    names_from_json,
    text_names,
)

# ColumnNames is left out of __all__: a helper of the readers, not a value they return.
__all__ = [
    "EXPECTED_ARRAYS",
    "PREDICTED_ARRAYS",
    "load_label_array",
    "load_label_arrays",
    "npz_classes",
]

EXPECTED_ARRAYS = ("expected", "y_true", "labels", "true")
PREDICTED_ARRAYS = ("predicted", "y_pred", "pred")


def load_label_array(p: Path) -> NDArray[Any]:
    return _checked_array(load_npy(p), str(p))


def _checked_array(arr: NDArray[Any], where: str) -> NDArray[Any]:
    if arr.ndim not in (1, 2) or arr.size == 0:
        raise ValueError(f"{where}: expected a non-empty 1-D or 2-D array, got shape {arr.shape}")
    return arr


@attrs.frozen
class ColumnNames:
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


def npz_classes(z: Any, p: Path) -> ColumnNames | None:
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
    return None if names is None else ColumnNames(names, typed, str(p))


def load_label_arrays(
    p: Path, roles: Sequence[tuple[str, ...]]
) -> tuple[list[tuple[NDArray[Any], str]], ColumnNames | None]:
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
