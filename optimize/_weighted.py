"""Weighted counts of threshold predictions (private).

With ``sample_weight`` an object counts its weight instead of 1: the true positives, false
positives and class sizes of ``score >= threshold`` are float sums of weights. Objects of
weight 0 add nothing, so integer weights give the counts of the rows repeated that many
times. :func:`fmacro.optimize.evaluate_thresholds` and ``tune(prior="cv")``'s held-out
scorer count this way; the weights are checked before (by
:func:`fmacro.validation.weights.check_sample_weight`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.inputs import LabelRows, sparse_hits
from fmacro.optimize.offsets import row_of_entries
from fmacro.validation.checks import is_sparse

__all__ = ["weighted_class_sizes", "weighted_predicted_counts"]

# Entries of one dense column block counted at a time (the block's bool masks, and their
# float copies in the matrix-vector products, stay within a few tens of MB).
_BLOCK_ENTRIES = 1 << 21


def weighted_class_sizes(
    y: LabelRows, weights: NDArray[np.float64], n_columns: int
) -> NDArray[np.float64]:
    """Total weight of each column's positive objects."""
    rows = row_of_entries(y.indptr)  # one row per weight (checked against the rows)
    sizes = np.bincount(y.indices, weights=weights[rows], minlength=n_columns)
    return np.asarray(sizes, dtype=np.float64)


def weighted_predicted_counts(
    s: Any, y: LabelRows, thr: NDArray[np.float64], weights: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Weighted ``(tp, fp)`` per column of ``s >= thr`` (one threshold per column).

    ``s`` is a checked dense float array or a canonical CSR matrix (retrieved entries
    only: a missing entry is predicted by a ``-inf`` threshold alone), ``y`` the checked
    labels by row, ``weights`` one checked weight per row. The weighted counterpart of
    :func:`fmacro.optimize.evaluation.predicted_counts`.
    """
    n, m = s.shape
    if is_sparse(s):
        row_hit, col_hit, is_pos = sparse_hits(s, y, thr)
        w_hit = weights[row_hit]
        # (bincount of no entries is int64 even with weights: cast before filling in)
        hit_tp = np.bincount(col_hit, weights=np.where(is_pos, w_hit, 0.0), minlength=m)
        hit_fp = np.bincount(col_hit, weights=np.where(is_pos, 0.0, w_hit), minlength=m)
        sparse_tp, sparse_fp = hit_tp.astype(np.float64), hit_fp.astype(np.float64)
        every = np.isneginf(thr)
        if every.any():  # -inf predicts every object, retrieved or not
            sizes = weighted_class_sizes(y, weights, m)
            total = float(weights.sum())
            sparse_tp[every] = sizes[every]
            sparse_fp[every] = np.maximum(total - sizes[every], 0.0)
        return sparse_tp, sparse_fp
    yd = y.to_dense((n, m))
    tp = np.zeros(m)
    fp = np.zeros(m)
    step = max(1, _BLOCK_ENTRIES // max(n, 1))
    for lo in range(0, m, step):
        hi = min(m, lo + step)
        pred = s[:, lo:hi] >= thr[None, lo:hi]
        labels = yd[:, lo:hi]
        tp[lo:hi] = weights @ (pred & labels)
        fp[lo:hi] = weights @ (pred & ~labels)
    return tp, fp
