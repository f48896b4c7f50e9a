"""Kernels that call a user's numba-jitted ``predict`` inside the loop.

A function argument is part of the compiled signature, so each new ``predict`` compiles
once per process.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fmacro.validation._kernels._common import MultiLabelCounts
from fmacro.validation.dispatch import kernel


@kernel
def binary_counts_predict(predict: Any, observations: Any, expected: Any, positive: Any) -> Any:
    tp = 0
    fp = 0
    fn = 0
    tn = 0
    n_invalid = 0
    neg_seen = False
    neg = np.int64(0)
    for i in range(expected.size):
        pred = np.int64(predict(observations[i]))
        e = expected[i] == positive
        p = pred == positive
        if not e:
            v = np.int64(expected[i])
            if not neg_seen:
                neg = v
                neg_seen = True
            elif v != neg:
                n_invalid += 1
        if not p:
            if not neg_seen:
                neg = pred
                neg_seen = True
            elif pred != neg:
                n_invalid += 1
        if e:
            if p:
                tp += 1
            else:
                fn += 1
        elif p:
            fp += 1
        else:
            tn += 1
    return np.array([tp, fp, fn, tn], dtype=np.int64), n_invalid


@kernel
def confusion_counts_predict(predict: Any, observations: Any, expected: Any, k: int) -> Any:
    table = np.zeros((k, k), dtype=np.int64)
    n_invalid = 0
    for i in range(expected.size):
        e = np.int64(expected[i])
        p = np.int64(predict(observations[i]))
        if e < 0 or e >= k or p < 0 or p >= k:
            n_invalid += 1
        else:
            table[e, p] += 1
    return table, n_invalid


@kernel
def _multilabel_counts_predict(predict: Any, observations: Any, y_true: Any) -> Any:
    n, n_labels = y_true.shape
    tp = np.zeros(n_labels, dtype=np.int64)
    true = np.zeros(n_labels, dtype=np.int64)
    pred = np.zeros(n_labels, dtype=np.int64)
    row_tp = np.zeros(n, dtype=np.int64)
    row_true = np.zeros(n, dtype=np.int64)
    row_pred = np.zeros(n, dtype=np.int64)
    bad_true = 0
    bad_pred = 0
    bad_length = 0
    for i in range(n):
        row = predict(observations[i])
        if row.size != n_labels:
            bad_length += 1
            continue
        for j in range(n_labels):
            t = np.int64(y_true[i, j])
            if t != 0 and t != 1:
                bad_true += 1
                continue
            # Compare the raw value: a float row (0.7) must not be truncated to 0.
            if row[j] != 0 and row[j] != 1:
                bad_pred += 1
                continue
            p = np.int64(row[j])
            both = t & p
            tp[j] += both
            true[j] += t
            pred[j] += p
            row_tp[i] += both
            row_true[i] += t
            row_pred[i] += p
    return tp, true, pred, row_tp, row_true, row_pred, bad_true, bad_pred, bad_length


def multilabel_counts_predict(
    predict: Any, observations: Any, y_true: Any
) -> tuple[MultiLabelCounts, int]:
    """Multi-label counts with a jitted ``predict`` (observation -> 0/1 row) in the loop.

    Returns the counts and the number of rows whose prediction has the wrong length.
    """
    tp, true, pred, row_tp, row_true, row_pred, bad_true, bad_pred, bad_length = (
        _multilabel_counts_predict(predict, observations, y_true)
    )
    counts = MultiLabelCounts(
        tp, true, pred, row_tp, row_true, row_pred, int(bad_true), int(bad_pred), 0
    )
    return counts, int(bad_length)
