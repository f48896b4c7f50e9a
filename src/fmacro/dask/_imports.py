"""Import dask on first use, with an error that says how to install it."""

from __future__ import annotations

from types import ModuleType
from typing import Any

__all__ = ["import_dask", "is_dask_collection"]

_INSTALL = (
    "fmacro.dask needs dask with its distributed scheduler: "
    'pip install "dask[distributed,array,dataframe]" (or pip install "fmacro[dask]")'
)


def import_dask() -> ModuleType:
    """``dask`` itself, or an ImportError naming the extra to install."""
    try:
        import dask
    except ImportError as exc:  # pragma: no cover - exercised only without dask
        raise ImportError(_INSTALL) from exc
    return dask


def is_dask_collection(x: Any) -> bool:
    """True for a dask array, DataFrame, Series or delayed value (without importing dask)."""
    return hasattr(x, "__dask_graph__") and callable(x.__dask_graph__)
