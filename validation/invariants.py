"""Reusable checks of the invariants every correct evaluation satisfies.

Each ``check_*`` function raises ``AssertionError`` with a message saying which invariant
failed and by how much; it returns ``None`` otherwise. Use them in your own tests,
together with :mod:`validation.strategies`.

Examples
--------
>>> from fmacro.validation import BinFValidation, Counts
>>> check_f_between_p_and_r(BinFValidation.from_counts(Counts(tp=3, fp=1, fn=2, tn=4)))
>>> check_folds_partition([([2, 3], [0, 1]), ([0, 1], [2, 3])], n_samples=4)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from fmacro.validation.binary import BinFValidation
from fmacro.validation.multiclass import MultiFValidation

__all__ = [
    "check_f_between_p_and_r",
    "check_folds_partition",
    "check_micro_equals_accuracy",
    "check_pooled_counts",
]

_TOL = 1e-9


def check_micro_equals_accuracy(v: MultiFValidation, tol: float = _TOL) -> None:
    """Single-label data: micro precision = micro recall = micro F = accuracy."""
    values = {
        "micro_precision": v.micro_precision,
        "micro_recall": v.micro_recall,
        "micro_f": v.micro_f,
        "accuracy": v.accuracy,
    }
    if max(values.values()) - min(values.values()) > tol:
        raise AssertionError(f"micro measures differ from accuracy: {values}")


def check_f_between_p_and_r(v: Any, tol: float = _TOL) -> None:
    """F_beta lies between min(P, R) and max(P, R) whenever P and R are both defined.

    Works for a :class:`~validation.BinFValidation` (its P, R, F_beta) and for the
    F-macro of multiclass and multi-label validations (macro P, macro R, F-macro).
    """
    if isinstance(v, BinFValidation):
        p, r, f = v.precision, v.recall, v.f_beta
        # with TP = 0 the count form gives 0 even where P or R is a 0/0 convention value
        if v.counts.tp == 0:
            return
    else:
        p, r, f = v.macro_precision, v.macro_recall, v.f_macro
    if any(math.isnan(x) for x in (p, r, f)):
        return
    if not (min(p, r) - tol <= f <= max(p, r) + tol):
        raise AssertionError(f"F = {f} is not between P = {p} and R = {r}")


def _counts_of(v: Any) -> Any:
    for name in ("counts", "confusion", "class_counts"):
        if hasattr(v, name):
            return getattr(v, name)
    raise TypeError(f"{type(v).__name__} has no counts, confusion or class_counts")


def check_pooled_counts(folds: Sequence[Any], pooled: Any) -> None:
    """The pooled validation's counts equal the sum of the folds' counts."""
    if not folds:
        raise AssertionError("no folds to pool")
    parts = [_counts_of(f) for f in folds]
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    if not (total == _counts_of(pooled)):
        raise AssertionError(f"pooled counts {_counts_of(pooled)} != sum of fold counts {total}")


def check_folds_partition(
    folds: Iterable[tuple[Any, Any]], n_samples: int, repeats: int = 1
) -> None:
    """Validation parts are disjoint, cover every index ``repeats`` times, train = complement."""
    seen = np.zeros(n_samples, dtype=np.int64)
    for i, (train, validation) in enumerate(folds):
        train = np.asarray(train, dtype=np.int64)
        validation = np.asarray(validation, dtype=np.int64)
        if validation.size == 0:
            raise AssertionError(f"fold {i} has an empty validation part")
        if np.unique(validation).size != validation.size:
            raise AssertionError(f"fold {i} repeats an index in its validation part")
        if validation.min() < 0 or validation.max() >= n_samples:
            raise AssertionError(f"fold {i} has a validation index outside 0..{n_samples - 1}")
        complement = np.setdiff1d(np.arange(n_samples), validation)
        if not np.array_equal(np.sort(train), complement):
            raise AssertionError(f"fold {i}: train is not the complement of validation")
        seen[validation] += 1
    if not np.all(seen == repeats):
        bad = np.flatnonzero(seen != repeats)[:5].tolist()
        raise AssertionError(
            f"indices {bad} are covered {seen[bad].tolist()} times, expected {repeats}"
        )
