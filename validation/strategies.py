"""Hypothesis strategies for property-testing code built on fmacro.

Each strategy draws the inputs fmacro's own invariants are tested on, so a user can
property-test a pipeline (a custom ``predict``, a threshold rule, a splitter wrapper)
the same way.

Examples
--------
>>> from hypothesis import given
>>> from fmacro.validation import MultiFValidation
>>> from fmacro.validation.invariants import check_micro_equals_accuracy
>>> @given(multiclass_labels())
... def test_my_pipeline(data):
...     expected, predicted, k = data
...     check_micro_equals_accuracy(MultiFValidation.from_predictions(expected, predicted, k))
>>> test_my_pipeline()
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fmacro.validation.counts import Counts

__all__ = [
    "binary_labels",
    "counts",
    "multiclass_labels",
    "multilabel_indicators",
    "score_matrices",
    "splitter_inputs",
]


def counts(max_count: int = 10_000) -> st.SearchStrategy[Counts]:
    """Binary :class:`~validation.Counts` with each entry in ``[0, max_count]``."""
    c = st.integers(0, max_count)
    return st.builds(Counts, c, c, c, c)


@st.composite
def binary_labels(
    draw: st.DrawFn, min_samples: int = 1, max_samples: int = 200
) -> tuple[np.ndarray, np.ndarray]:
    """``(expected, predicted)`` 0/1 int vectors of equal length (all-0 and all-1 included)."""
    n = draw(st.integers(min_samples, max_samples))
    bits = hnp.arrays(np.int64, n, elements=st.integers(0, 1))
    return draw(bits), draw(bits)


@st.composite
def multiclass_labels(
    draw: st.DrawFn,
    min_classes: int = 2,
    max_classes: int = 8,
    min_samples: int = 1,
    max_samples: int = 200,
    absent_classes: bool = True,
) -> tuple[np.ndarray, np.ndarray, int]:
    """``(expected, predicted, k)``: int labels in ``0..k-1``.

    With ``absent_classes`` (default) some classes may never occur in either vector,
    the case where averaging conventions differ most.
    """
    k = draw(st.integers(min_classes, max_classes))
    n = draw(st.integers(max(min_samples, 0 if absent_classes else k), max(max_samples, k)))
    # Labels drawn from the first `used` classes: classes used..k-1 never occur.
    used = draw(st.integers(1, k)) if absent_classes else k
    labels = hnp.arrays(np.int64, n, elements=st.integers(0, used - 1))
    expected = draw(labels)
    predicted = draw(labels)
    if not absent_classes:
        expected[:k] = np.arange(k)  # every class occurs at least once
    return expected, predicted, k


@st.composite
def multilabel_indicators(
    draw: st.DrawFn,
    max_samples: int = 40,
    max_labels: int = 12,
    sparse: bool = False,
) -> tuple[Any, Any]:
    """``(expected, predicted)``: (n_samples, n_labels) 0/1 matrices; CSR if ``sparse``.

    ``sparse=True`` needs scipy.

    Rows without labels and labels without members occur.
    """
    n = draw(st.integers(1, max_samples))
    n_labels = draw(st.integers(2, max_labels))
    density = draw(st.sampled_from([0.0, 0.05, 0.3, 0.7, 1.0]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    y_true = (rng.random((n, n_labels)) < density).astype(np.uint8)
    y_pred = (rng.random((n, n_labels)) < density).astype(np.uint8)
    if sparse:
        from scipy import sparse as sp

        return sp.csr_matrix(y_true), sp.csr_matrix(y_pred)
    return y_true, y_pred


@st.composite
def score_matrices(
    draw: st.DrawFn,
    min_samples: int = 2,
    max_samples: int = 30,
    min_classes: int = 1,
    max_classes: int = 6,
    ties: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """``(scores, labels)``: (n_samples, n_classes) float scores and their 0/1 labels.

    With ``ties`` scores come from a few distinct values, so equal scores are common;
    every class has at least one positive.
    """
    n = draw(st.integers(min_samples, max_samples))
    k = draw(st.integers(min_classes, max_classes))
    values = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]) if ties else st.floats(-10, 10)
    scores = draw(hnp.arrays(np.float64, (n, k), elements=values))
    labels = draw(hnp.arrays(np.uint8, (n, k), elements=st.integers(0, 1)))
    rows = draw(hnp.arrays(np.int64, k, elements=st.integers(0, n - 1)))
    labels[rows, np.arange(k)] = 1
    return scores, labels


@st.composite
def splitter_inputs(
    draw: st.DrawFn, max_samples: int = 60, max_classes: int = 4, max_k: int = 10
) -> tuple[np.ndarray, np.ndarray, int]:
    """``(X, y, k)`` with ``2 <= k <= len(y)``: features, class labels and a fold count."""
    n = draw(st.integers(2, max_samples))
    k = draw(st.integers(2, min(max_k, n)))
    n_classes = draw(st.integers(1, max_classes))
    y = draw(hnp.arrays(np.int64, n, elements=st.integers(0, n_classes - 1)))
    X = np.arange(n, dtype=np.float64).reshape(n, 1)
    return X, y, k
