"""Offsets of consecutive groups (CSR layout): the one home of these helpers in optimize.

Cut tables, hull vertices and sparse matrices all store groups (a class's cuts, a row's
entries) back to back, with ``indptr[g]:indptr[g + 1]`` the entries of group g. Internal
(not user API); its name is public because fmacro.dask builds on it too.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["group_of_entries", "indptr_from_counts", "row_of_entries"]


def indptr_from_counts(counts: Any) -> NDArray[np.int64]:
    """Offsets of consecutive groups of ``counts[g]`` entries: 0 first, the total last.

    >>> indptr_from_counts(np.array([2, 0, 3]))
    array([0, 2, 2, 5])
    """
    counts = np.asarray(counts)
    indptr = np.zeros(counts.size + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return indptr


def group_of_entries(counts: Any) -> NDArray[np.int64]:
    """The group of each entry when group g holds ``counts[g]`` consecutive entries.

    >>> group_of_entries(np.array([2, 0, 3]))
    array([0, 0, 2, 2, 2])
    """
    counts = np.asarray(counts)
    return np.repeat(np.arange(counts.size, dtype=np.int64), counts)


def row_of_entries(indptr: Any) -> NDArray[np.int64]:
    """The row of each stored entry of a CSR matrix with offsets ``indptr``.

    >>> row_of_entries(np.array([0, 2, 2, 3]))
    array([0, 0, 2])
    """
    return group_of_entries(np.diff(np.asarray(indptr)))
