"""fmacro.optimize: F-measure optimization (F-macro threshold search, baselines, F-Delta)."""

from __future__ import annotations

import importlib
from typing import Any

__all__: list[str] = []

# Subpackages with heavier or optional dependencies load on first attribute access.
_LAZY_SUBMODULES = frozenset({"fdelta", "plot", "sklearn", "cli"})


def __getattr__(name: str) -> Any:
    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f"optimize.{name}")
    raise AttributeError(f"module 'optimize' has no attribute {name!r}")
