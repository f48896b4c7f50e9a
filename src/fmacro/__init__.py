"""fmacro: classifier evaluation and F-measure optimization.

Three subpackages, imported on first use:

- :mod:`fmacro.validation`: counts (a monoid), measures, immutable ``Validation`` objects;
- :mod:`fmacro.crossval`: seeded splitters and the cross-validation runner;
- :mod:`fmacro.optimize`: F-macro threshold search with certificates, baselines, tuning
  for new data, and the F-score perceptron.

``python -m fmacro`` (or the ``fmacro`` command) runs the command line, :mod:`fmacro.cli`.
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version
from typing import Any

try:
    __version__: str = version("fmacro")
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["__version__", "crossval", "optimize", "validation"]

_SUBPACKAGES = frozenset({"validation", "crossval", "optimize", "cli", "dask"})


def __getattr__(name: str) -> Any:
    # Lazy: ``import fmacro`` stays cheap; numba kernels load with the subpackage that uses them.
    if name in _SUBPACKAGES:
        return importlib.import_module(f"fmacro.{name}")
    raise AttributeError(f"module 'fmacro' has no attribute {name!r}")
