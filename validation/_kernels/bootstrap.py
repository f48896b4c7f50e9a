"""The compiled resampling pass of the bootstrap: B resampled count tables in one pass.

Every object adds ``w_b(i) * weight_i`` to each of its *slots* (a slot is one cell of a
count table: a binary outcome, a class's TP, FP or FN, a label's TP, FP or FN) and to a
few per-object sums (``extras``: the multi-label example-based measures), for each
resample ``b``. ``w_b(i)`` is the number of times object ``i`` is drawn in resample ``b``:

* Poisson method: ``w_b(i) ~ Poisson(1)``, drawn from a counter-based generator keyed on
  ``(key_b, i)``: :func:`draw_bits` hashes the resample's key and the object's position
  with splitmix64, and the inverse CDF of Poisson(1) turns the top 53 bits into a count by
  integer comparisons (:data:`POISSON_THRESHOLDS`). An object's weights depend only on the
  seed and its position, never on the other objects, which is what makes pooled and
  chunked bootstraps equal the in-memory one bit for bit.
* multinomial method: ``n`` positions drawn uniformly with replacement per resample
  (position ``floor(u * n)`` of draw ``j``'s uniform ``u``), the classic bootstrap; the
  weights of an object depend on ``n``, so it is not chunk-exact.

Sums are float64 in object order; for unweighted counts every partial sum is an integer
below 2**53, so the tables are exact integers.
"""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np

from fmacro.validation._kernels._common import _PRANGE_ONLY, run_parallel
from fmacro.validation.dispatch import kernel

__all__ = [
    "GOLDEN",
    "POISSON_THRESHOLDS",
    "binary_outcome_codes",
    "label_outcome_entries",
    "mix64",
    "resample_keys",
    "resampled_tables",
]

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S11 = np.uint64(11)
_S27 = np.uint64(27)
_S30 = np.uint64(30)
_S31 = np.uint64(31)
_ONE = np.uint64(1)
_TWO53 = float(2**53)


def _poisson_thresholds() -> np.ndarray:
    """``T[k] = floor(P(X <= k) * 2**53)`` for X ~ Poisson(1), k = 0, 1, ... while it grows.

    A draw of 53 uniform bits ``u`` has weight ``k`` = the number of thresholds ``<= u``;
    computed once with exact rationals so the table does not depend on float rounding.
    """
    from fractions import Fraction

    # e^-1 to far more than 53 bits: the series sum_{j} (-1)^j / j!
    inv_e = sum((Fraction((-1) ** j, math.factorial(j)) for j in range(60)), Fraction(0))
    out: list[int] = []
    cdf = Fraction(0)
    k = 0
    while k < 40:  # P(X > 18) < 2**-53: the table ends long before
        cdf += inv_e / math.factorial(k)
        t = math.floor(cdf * 2**53)
        if t >= 2**53 or (out and t == out[-1]):
            break  # no 53-bit draw reaches a further count
        out.append(t)
        k += 1
    return np.array(out, dtype=np.uint64)


#: Inverse-CDF table of Poisson(1) on 53-bit integers (see :func:`_poisson_thresholds`).
POISSON_THRESHOLDS = _poisson_thresholds()


@kernel(inline="always")
def mix64(z: Any) -> Any:
    """splitmix64's finalizer: a bijection of uint64 whose outputs look independent."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@kernel(inline="always")
def draw_bits(key: Any, position: Any) -> Any:
    """53 uniform bits for (resample key, object position), as a uint64."""
    return mix64(key + (np.uint64(position) + _ONE) * GOLDEN) >> _S11


@kernel(inline="always")
def _poisson_one(bits: Any, thresholds: Any) -> Any:
    k = 0
    while k < thresholds.size and bits >= thresholds[k]:
        k += 1
    return k


def _mix64_numpy(z: np.ndarray) -> np.ndarray:
    # mix64 on a uint64 array (wrapping arithmetic, as in the kernel)
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return np.asarray(z ^ (z >> _S31), dtype=np.uint64)


def resample_keys(seed: int, n_resamples: int) -> np.ndarray:
    """One uint64 key per resample: ``mix64(mix64(seed) + (b + 1) * GOLDEN)``, b = 0..B-1."""
    with np.errstate(over="ignore"):
        base = _mix64_numpy(np.array([seed], dtype=np.uint64))
        b = np.arange(1, n_resamples + 1, dtype=np.uint64)
        return _mix64_numpy(base + b * GOLDEN)


def _work(keys: Any, method: int, indptr: Any, slots: Any, *rest: Any) -> float:
    # every resample reads every object and its slots
    return float(keys.size) * float(rest[1].shape[0] + slots.size)


@kernel(inline="always")
def _one_resample(
    key: Any,
    method: int,
    indptr: Any,
    slots: Any,
    weights: Any,
    extras: Any,
    thresholds: Any,
    table: Any,
    extra_sums: Any,
    drawn: Any,
) -> float:
    """Fill one resample's ``table`` and ``extra_sums``; return its total weight."""
    n = extras.shape[0]
    m = extras.shape[1]
    one_slot = indptr.size == 0
    weighted = weights.size > 0
    if method == 1:  # multinomial: n uniform draws with replacement
        for i in range(n):
            drawn[i] = 0
        for j in range(n):
            u = float(draw_bits(key, j)) / _TWO53
            pick = int(u * n)
            if pick >= n:  # pragma: no cover - u < 1 always
                pick = n - 1
            drawn[pick] += 1
    total = 0.0
    for i in range(n):
        k = drawn[i] if method == 1 else _poisson_one(draw_bits(key, i), thresholds)
        if k == 0:
            continue
        w = float(k) * weights[i] if weighted else float(k)
        total += w
        if one_slot:
            table[slots[i]] += w
        else:
            for s in range(indptr[i], indptr[i + 1]):
                table[slots[s]] += w
        for c in range(m):
            extra_sums[c] += w * extras[i, c]
    return total


@kernel(cache=True, work=_work)
def _tables_serial(
    keys: Any,
    method: int,
    indptr: Any,
    slots: Any,
    n_slots: int,
    weights: Any,
    extras: Any,
    thresholds: Any,
) -> Any:  # pragma: no cover - compiled
    n_resamples = keys.size
    tables = np.zeros((n_resamples, n_slots))
    totals = np.zeros(n_resamples)
    extra_sums = np.zeros((n_resamples, extras.shape[1]))
    drawn = np.zeros(extras.shape[0] if method == 1 else 0, dtype=np.int64)
    for b in range(n_resamples):
        totals[b] = _one_resample(
            keys[b], method, indptr, slots, weights, extras, thresholds,
            tables[b], extra_sums[b], drawn,
        )  # fmt: skip
    return tables, totals, extra_sums


@kernel(cache=True, parallel=_PRANGE_ONLY, work=_work)
def _tables_parallel(
    keys: Any,
    method: int,
    indptr: Any,
    slots: Any,
    n_slots: int,
    weights: Any,
    extras: Any,
    thresholds: Any,
) -> Any:  # pragma: no cover - compiled
    n_resamples = keys.size
    tables = np.zeros((n_resamples, n_slots))
    totals = np.zeros(n_resamples)
    extra_sums = np.zeros((n_resamples, extras.shape[1]))
    for b in numba.prange(n_resamples):
        drawn = np.zeros(extras.shape[0] if method == 1 else 0, dtype=np.int64)
        totals[b] = _one_resample(
            keys[b], method, indptr, slots, weights, extras, thresholds,
            tables[b], extra_sums[b], drawn,
        )  # fmt: skip
    return tables, totals, extra_sums


#: Below this many (object, resample) pairs the serial kernel runs (no threads woken).
SERIAL_BELOW = 2**18


def resampled_tables(
    keys: np.ndarray,
    method: int,
    indptr: np.ndarray,
    slots: np.ndarray,
    n_slots: int,
    weights: np.ndarray,
    extras: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(tables (B, n_slots), totals (B,), extra_sums (B, m))`` of the B resamples.

    ``keys``: one uint64 per resample (:func:`resample_keys`); ``method`` 0 Poisson,
    1 multinomial; ``indptr``: CSR offsets of each object's slots, or empty when object
    ``i`` has exactly the one slot ``slots[i]``; ``weights``: one per object or empty
    (all 1); ``extras``: (n, m) per-object values summed with the same weights.
    Each resample is computed independently, so serial and parallel runs agree bit for bit.
    """
    args = (keys, method, indptr, slots, n_slots, weights, extras, POISSON_THRESHOLDS)
    if keys.size * extras.shape[0] >= SERIAL_BELOW:
        return run_parallel(_tables_parallel, *args)  # type: ignore[no-any-return]
    return _tables_serial(*args)  # type: ignore[no-any-return]


# ----------------------------------------------------------------- outcome records


@kernel(cache=True)
def binary_outcome_codes(e: Any, p: Any, positive: Any) -> Any:  # pragma: no cover - compiled
    """Each object's outcome code, one pass: 0 TP, 1 FP, 2 FN, 3 TN."""
    out = np.empty(e.size, dtype=np.uint8)
    for i in range(e.size):
        out[i] = 2 * (p[i] != positive) + (e[i] != positive)
    return out


@kernel(cache=True)
def label_outcome_entries(t: Any, p: Any, indptr: Any) -> Any:  # pragma: no cover - compiled
    """The TP, FP and FN entries of two dense 0/1 matrices (checked), CSR by row.

    ``indptr``: each row's offset, from the entries per row (true + predicted - TP) the
    counting pass already knows, so one pass fills the entries. Entry ``kind * L +
    label``: kind 0 TP, 1 FP, 2 FN; labels ascending within a row.
    """
    n, n_labels = t.shape
    entries = np.empty(indptr[n], dtype=np.int32)
    for i in range(n):
        at = indptr[i]
        for j in range(n_labels):
            ti = t[i, j] != 0
            pi = p[i, j] != 0
            if ti or pi:
                kind = 0 if (ti and pi) else (1 if pi else 2)
                entries[at] = kind * n_labels + j
                at += 1
    return entries


@kernel(cache=True)
def label_outcome_entries_csr(
    t_indptr: Any,
    t_indices: Any,
    t_data: Any,
    p_indptr: Any,
    p_indices: Any,
    p_data: Any,
    indptr: Any,
    n_labels: Any,
) -> Any:  # pragma: no cover - compiled
    """:func:`label_outcome_entries` of two checked CSR 0/1 matrices with sorted indices
    (stored zeros skipped): one merge of each row's two index lists, the same entries in
    the same order (labels ascending within a row)."""
    n = indptr.size - 1
    entries = np.empty(indptr[n], dtype=np.int32)
    for i in range(n):
        at = indptr[i]
        a, a_end = t_indptr[i], t_indptr[i + 1]
        b, b_end = p_indptr[i], p_indptr[i + 1]
        while a < a_end or b < b_end:
            if a < a_end and t_data[a] == 0:
                a += 1
                continue
            if b < b_end and p_data[b] == 0:
                b += 1
                continue
            ja = t_indices[a] if a < a_end else n_labels
            jb = p_indices[b] if b < b_end else n_labels
            if ja == jb:  # TP
                entries[at] = ja
                a += 1
                b += 1
            elif ja < jb:  # FN: expected only
                entries[at] = 2 * n_labels + ja
                a += 1
            else:  # FP: predicted only
                entries[at] = n_labels + jb
                b += 1
            at += 1
    return entries
