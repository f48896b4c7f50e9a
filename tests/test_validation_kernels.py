"""The compiled counting kernels of validation._kernels, cross-checked against plain numpy.

Covers the serial and parallel paths (forced, and at sizes just below / above the switch),
the 0/1 binary fast path and the general one, int32 multiclass tables, the SWAR dense
multi-label kernel (odd widths, byte-lane flushes, invalid bytes), the stamp-based CSR
kernel (unsorted indices, duplicates, stored zeros, bad values), and that no caller's
array is modified.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from fmacro.validation import (
    BinFValidation,
    Counts,
    MultiFValidation,
    MultiLabelFValidation,
    _kernels,
)
from fmacro.validation._kernels import SERIAL_BELOW
from fmacro.validation._kernels._common import _int32_chunks

PATHS = [False, True]  # serial, parallel


# ----------------------------------------------------------------------------------------
# numpy references
# ----------------------------------------------------------------------------------------


def ref_binary(e: np.ndarray, p: np.ndarray, positive: int) -> tuple[list[int], bool]:
    ep = e == positive
    pp = p == positive
    counts = [int(np.sum(ep & pp)), int(np.sum(~ep & pp)), int(np.sum(ep & ~pp))]
    counts.append(len(e) - sum(counts))
    negatives = set(e[~ep].tolist()) | set(p[~pp].tolist())
    return counts, len(negatives) > 1


def as_list(c: Counts) -> list[int]:
    return [c.tp, c.fp, c.fn, c.tn]


def ref_confusion(e: np.ndarray, p: np.ndarray, k: int) -> tuple[np.ndarray, int]:
    ok = (e >= 0) & (e < k) & (p >= 0) & (p < k)
    table = np.zeros((k, k), dtype=np.int64)
    np.add.at(table, (e[ok], p[ok]), 1)
    return table, int(np.count_nonzero(~ok))


def ref_multilabel(t: Any, p: Any) -> list[np.ndarray]:
    """Per-label tp/true/predicted and per-row tp/true/predicted of 0/1 matrices."""
    t = np.asarray(t, dtype=np.int64)
    p = np.asarray(p, dtype=np.int64)
    both = t & p
    return [both.sum(0), t.sum(0), p.sum(0), both.sum(1), t.sum(1), p.sum(1)]


def assert_multilabel(got: Any, t: Any, p: Any) -> None:
    assert got.bad_true == got.bad_pred == got.bad_index == 0
    for name, have, want in zip(
        ("tp", "true", "predicted", "row_tp", "row_true", "row_pred"),
        got[:6],
        ref_multilabel(t, p),
        strict=True,
    ):
        assert have.dtype == np.int64, name
        np.testing.assert_array_equal(have, want, err_msg=name)


def random_indicator(rng: np.random.Generator, shape: tuple[int, int], dtype: Any) -> np.ndarray:
    return (rng.random(shape) < 0.3).astype(dtype)


# ----------------------------------------------------------------------------------------
# Threading policy
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("preset", "expected"), [(None, "passive"), ("active", "active")])
def test_omp_wait_policy_default_respects_the_user(preset: str | None, expected: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if preset is not None:
        env["OMP_WAIT_POLICY"] = preset
    code = "import os, validation._kernels; print(os.environ['OMP_WAIT_POLICY'])"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == expected


# ----------------------------------------------------------------------------------------
# Binary
# ----------------------------------------------------------------------------------------

LABEL_SETS = [(0, 1), (-1, 1), (1, 2), (0, 1, 2)]


@pytest.mark.slow
@pytest.mark.parametrize("parallel", PATHS)
@pytest.mark.parametrize("labels", LABEL_SETS)
@pytest.mark.parametrize("positive", [0, 1, -1, 2])
@pytest.mark.parametrize("n", [1, 7, 1000])
def test_binary_kernel_matches_numpy(
    parallel: bool, labels: tuple[int, ...], positive: int, n: int
) -> None:
    rng = np.random.default_rng(n * 31 + positive + 7 * len(labels))
    e = rng.choice(labels, n)
    p = rng.choice(labels, n)
    raw, too_many = _kernels.binary_counts(e, p, positive, parallel=parallel)
    want, want_too_many = ref_binary(e, p, positive)
    assert too_many == want_too_many
    assert raw.tolist() == want


@pytest.mark.parametrize("labels", LABEL_SETS)
@pytest.mark.parametrize("positive", [0, 1, -1, 2])
def test_binary_validation_label_sets(labels: tuple[int, ...], positive: int) -> None:
    rng = np.random.default_rng(3)
    n = 500  # every label of the set occurs
    e = rng.choice(labels, n)
    p = rng.choice(labels, n)
    want, too_many = ref_binary(e, p, positive)
    if too_many:
        with pytest.raises(ValueError, match="two values"):
            BinFValidation.from_predictions(e, p, positive=positive)
    else:
        v = BinFValidation.from_predictions(e, p, positive=positive)
        assert as_list(v.counts) == want
    # Which cases fail is fixed by the label set: check the reference agrees with it.
    negatives = set(labels) - {positive}
    assert too_many == (len(negatives) > 1)


@pytest.mark.parametrize("n", [SERIAL_BELOW - 1, SERIAL_BELOW])
@pytest.mark.parametrize("labels", [(0, 1), (-1, 1)])
def test_binary_at_the_serial_parallel_switch(n: int, labels: tuple[int, int]) -> None:
    rng = np.random.default_rng(n)
    e = rng.choice(labels, n)
    p = np.where(rng.random(n) < 0.8, e, labels[0] + labels[1] - e)
    for positive in labels:
        want, _ = ref_binary(e, p, positive)
        assert as_list(BinFValidation.from_predictions(e, p, positive=positive).counts) == want
        for parallel in PATHS:
            assert _kernels.binary_counts(e, p, positive, parallel=parallel)[0].tolist() == want


@pytest.mark.parametrize("parallel", PATHS)
@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8, np.int64])
def test_binary_dtypes_and_positive_zero(parallel: bool, dtype: Any) -> None:
    rng = np.random.default_rng(11)
    e = (rng.random(999) < 0.4).astype(dtype)
    p = (rng.random(999) < 0.5).astype(dtype)
    before = (e.copy(), p.copy())
    for positive in (0, 1):
        raw, too_many = _kernels.binary_counts(e, p, positive, parallel=parallel)
        assert not too_many
        assert raw.tolist() == ref_binary(e.astype(np.int64), p.astype(np.int64), positive)[0]
    np.testing.assert_array_equal(e, before[0])
    np.testing.assert_array_equal(p, before[1])


@pytest.mark.parametrize("parallel", PATHS)
def test_binary_fast_path_falls_back_on_other_values(parallel: bool) -> None:
    # Starts with 0/1 (so the 0/1 pass is tried) but holds a 5 / a -1 later on.
    for bad in (5, -1):
        e = np.array([0, 1, 1, 0, bad, 1, 0], dtype=np.int64)
        p = np.array([1, 1, 0, 0, 1, 1, 0], dtype=np.int64)
        for positive in (0, 1):
            raw, too_many = _kernels.binary_counts(e, p, positive, parallel=parallel)
            want, want_too_many = ref_binary(e, p, positive)
            assert raw.tolist() == want
            assert too_many == want_too_many


def test_binary_one_element() -> None:
    for e0, p0, positive in [(1, 1, 1), (0, 1, 1), (0, 0, 0), (2, 2, 1), (-1, 1, 1)]:
        e, p = np.array([e0]), np.array([p0])
        for parallel in PATHS:
            raw, too_many = _kernels.binary_counts(e, p, positive, parallel=parallel)
            assert (raw.tolist(), too_many) == ref_binary(e, p, positive)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(-2, 3), st.integers(-2, 3)), min_size=1, max_size=60),
    st.integers(-2, 3),
    st.booleans(),
)
def test_binary_kernel_property(
    pairs: list[tuple[int, int]], positive: int, parallel: bool
) -> None:
    e = np.array([a for a, _ in pairs], dtype=np.int64)
    p = np.array([b for _, b in pairs], dtype=np.int64)
    raw, too_many = _kernels.binary_counts(e, p, positive, parallel=parallel)
    want, want_too_many = ref_binary(e, p, positive)
    assert too_many == want_too_many
    assert raw.tolist() == want


# ----------------------------------------------------------------------------------------
# Multiclass
# ----------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("parallel", PATHS)
@pytest.mark.parametrize("k", [1, 3, 50, 301])
@pytest.mark.parametrize("n", [1, 10, 5000])
def test_confusion_kernel_matches_numpy(parallel: bool, k: int, n: int) -> None:
    rng = np.random.default_rng(k * 1000 + n)
    e = rng.integers(0, k, n)
    p = rng.integers(0, k, n)
    table, n_bad = _kernels.confusion_counts(e, p, k, parallel=parallel)
    want, want_bad = ref_confusion(e, p, k)
    assert table.dtype == np.int64
    np.testing.assert_array_equal(table, want)
    assert n_bad == want_bad == 0
    m = MultiFValidation.from_predictions(e, p, classes=k)
    np.testing.assert_array_equal(m.confusion.matrix, want)


@pytest.mark.parametrize("parallel", PATHS)
@pytest.mark.parametrize("k", [1, 3, 50])
def test_confusion_kernel_counts_out_of_range(parallel: bool, k: int) -> None:
    rng = np.random.default_rng(k)
    e = rng.integers(0, k, 400)
    p = rng.integers(0, k, 400)
    e[[3, 100]] = [k, -1]
    p[[100, 250]] = [k + 7, -5]
    table, n_bad = _kernels.confusion_counts(e, p, k, parallel=parallel)
    want, want_bad = ref_confusion(e, p, k)
    assert n_bad == want_bad == 3
    np.testing.assert_array_equal(table, want)
    with pytest.raises(ValueError, match=rf"expected has label\(s\) outside .*0\.\.{k - 1}"):
        MultiFValidation.from_predictions(e, p, classes=k)
    with pytest.raises(ValueError, match=r"predicted has label\(s\) outside .*\[-5, "):
        MultiFValidation.from_predictions(p * 0, p, classes=k)


@pytest.mark.parametrize("n", [SERIAL_BELOW - 1, SERIAL_BELOW])
def test_confusion_at_the_serial_parallel_switch(n: int) -> None:
    rng = np.random.default_rng(n)
    e = rng.integers(0, 7, n, dtype=np.int32)
    p = np.where(rng.random(n) < 0.6, e, rng.integers(0, 7, n, dtype=np.int32))
    want, _ = ref_confusion(e, p, 7)
    np.testing.assert_array_equal(MultiFValidation.from_predictions(e, p, 7).confusion.matrix, want)
    for parallel in PATHS:
        np.testing.assert_array_equal(
            _kernels.confusion_counts(e, p, 7, parallel=parallel)[0], want
        )


def test_int32_chunk_count_keeps_tables_exact() -> None:
    assert _int32_chunks(10, 4) == 4
    assert _int32_chunks(2**31 - 1, 1) == 1
    assert _int32_chunks(2**31, 1) == 2
    assert _int32_chunks(5 * (2**31 - 1), 4) == 5
    assert _int32_chunks(5 * 2**31, 4) == 6


# ----------------------------------------------------------------------------------------
# Multi-label, dense
# ----------------------------------------------------------------------------------------

DENSE_DTYPES = [np.bool_, np.int8, np.uint8, np.int64]


@pytest.mark.slow
@pytest.mark.parametrize("parallel", PATHS)
@pytest.mark.parametrize("dtype", DENSE_DTYPES)
@pytest.mark.parametrize(
    "shape", [(1, 1), (1, 13), (3, 8), (600, 13), (300, 1003), (40, 2041), (520, 16)]
)
def test_dense_kernel_matches_numpy(parallel: bool, dtype: Any, shape: tuple[int, int]) -> None:
    # 600 / 520 rows cross the 255-row byte-lane flushes; 2041 labels = 256 words, past the
    # 255-word fold of the row sums; widths not a multiple of 8 use the padded-row path.
    rng = np.random.default_rng(shape[0] * 7 + shape[1])
    t = random_indicator(rng, shape, dtype)
    p = random_indicator(rng, shape, dtype)
    before = (t.copy(), p.copy())
    assert_multilabel(_kernels.multilabel_counts_dense(t, p, parallel=parallel), t, p)
    np.testing.assert_array_equal(t, before[0])
    np.testing.assert_array_equal(p, before[1])


@pytest.mark.parametrize("parallel", PATHS)
@pytest.mark.parametrize("dtype", [np.bool_, np.uint8])
@pytest.mark.parametrize("width", [21, 2041, 4100])
def test_dense_all_ones_saturate_no_byte_lane(parallel: bool, dtype: Any, width: int) -> None:
    # Columns of ones over 600 rows and rows of up to 513 words of ones: a byte lane would
    # overflow without the 255-row flushes of the column counts and the 255-word folds of
    # the row sums.
    t = np.ones((600, width), dtype=dtype)
    p = np.ones((600, width), dtype=dtype)
    p[::3, 5] = 0
    assert_multilabel(_kernels.multilabel_counts_dense(t, p, parallel=parallel), t, p)


@pytest.mark.parametrize("parallel", PATHS)
def test_dense_mixed_dtypes(parallel: bool) -> None:
    rng = np.random.default_rng(2)
    for dt, dp in [(np.bool_, np.int8), (np.uint8, np.bool_), (np.bool_, np.int64)]:
        t = random_indicator(rng, (300, 19), dt)
        p = random_indicator(rng, (300, 19), dp)
        assert_multilabel(_kernels.multilabel_counts_dense(t, p, parallel=parallel), t, p)


def test_dense_misaligned_and_non_contiguous_inputs() -> None:
    rng = np.random.default_rng(4)
    # A C-contiguous uint8 matrix starting one byte into its buffer (not word-aligned).
    buf = np.zeros(300 * 16 + 1, dtype=np.uint8)
    t = buf[1:].reshape(300, 16)
    t[...] = random_indicator(rng, (300, 16), np.uint8)
    assert t.ctypes.data % 8 != 0
    p = random_indicator(rng, (300, 16), np.uint8)
    before = buf.copy()
    for parallel in PATHS:
        assert_multilabel(_kernels.multilabel_counts_dense(t, p, parallel=parallel), t, p)
    np.testing.assert_array_equal(buf, before)
    # Fortran order and strided views go through validation's contiguous copy.
    tf = np.asfortranarray(random_indicator(rng, (50, 9), np.bool_))
    pf = random_indicator(rng, (50, 18), np.bool_)[:, ::2]
    v = MultiLabelFValidation.from_predictions(tf, pf)
    tp, nt, npred, *_ = ref_multilabel(tf, pf)
    assert v.class_counts.tp.tolist() == tp.tolist()
    assert v.class_counts.fn.tolist() == (nt - tp).tolist()
    assert v.class_counts.fp.tolist() == (npred - tp).tolist()


@pytest.mark.parametrize("shape", [(64, SERIAL_BELOW // 64), (64, SERIAL_BELOW // 64 + 1)])
@pytest.mark.parametrize("dtype", [np.uint8, np.int64])
def test_dense_at_the_serial_parallel_switch(shape: tuple[int, int], dtype: Any) -> None:
    # 64 x 4096 = 2**18 elements: just at the switch; 64 x 4097 just above; and forced paths.
    rng = np.random.default_rng(shape[1])
    t = random_indicator(rng, shape, dtype)
    p = random_indicator(rng, shape, dtype)
    assert_multilabel(_kernels.multilabel_counts_dense(t, p), t, p)
    for parallel in PATHS:
        assert_multilabel(_kernels.multilabel_counts_dense(t, p, parallel=parallel), t, p)
    t_small, p_small = t[:, :-2], p[:, :-2]  # just below
    t_small = np.ascontiguousarray(t_small)
    p_small = np.ascontiguousarray(p_small)
    assert t_small.size < SERIAL_BELOW
    assert_multilabel(_kernels.multilabel_counts_dense(t_small, p_small), t_small, p_small)


BAD_VALUES = [(np.int8, -1), (np.int8, 7), (np.uint8, 7), (np.uint8, 255), (np.int64, -1)]
BAD_VALUES += [(np.int64, 7), (np.int64, 255)]


@pytest.mark.parametrize("parallel", PATHS)
@pytest.mark.parametrize(("dtype", "bad"), BAD_VALUES)
@pytest.mark.parametrize("width", [13, 1003, 2041])
def test_dense_kernel_counts_bad_values(parallel: bool, dtype: Any, bad: int, width: int) -> None:
    rng = np.random.default_rng(width)
    t = random_indicator(rng, (300, width), dtype)
    p = random_indicator(rng, (300, width), dtype)
    t[[0, 299, 299], [0, width - 1, width // 2]] = bad
    p[[0, 150], [0, 1]] = bad  # one bad entry shares a row with bad ones of t
    got = _kernels.multilabel_counts_dense(t, p, parallel=parallel)
    assert (got.bad_true, got.bad_pred) == (3, 2)


@pytest.mark.parametrize(("dtype", "bad"), BAD_VALUES)
def test_dense_bad_values_name_the_argument(dtype: Any, bad: int) -> None:
    rng = np.random.default_rng(0)
    t = random_indicator(rng, (40, 13), dtype)
    p = random_indicator(rng, (40, 13), dtype)
    bad_t = t.copy()
    bad_t[5, 3] = bad
    with pytest.raises(
        ValueError, match=rf"^expected must hold only 0 and 1; 1 entries .*\[{bad}\]"
    ):
        MultiLabelFValidation.from_predictions(bad_t, p)
    bad_p = p.copy()
    bad_p[[1, 2], [0, 12]] = bad
    with pytest.raises(
        ValueError, match=rf"^predicted must hold only 0 and 1; 2 entries .*\[{bad}\]"
    ):
        MultiLabelFValidation.from_predictions(t, bad_p)


@settings(max_examples=30, deadline=None)
@given(
    st.integers(1, 40),
    st.integers(1, 40),
    st.sampled_from(DENSE_DTYPES),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_dense_kernel_property(rows: int, cols: int, dtype: Any, parallel: bool, seed: int) -> None:
    rng = np.random.default_rng(seed)
    t = random_indicator(rng, (rows, cols), dtype)
    p = random_indicator(rng, (rows, cols), dtype)
    assert_multilabel(_kernels.multilabel_counts_dense(t, p, parallel=parallel), t, p)


# ----------------------------------------------------------------------------------------
# Multi-label, CSR
# ----------------------------------------------------------------------------------------


def snapshot(m: Any) -> tuple[np.ndarray, ...]:
    return (m.data.copy(), m.indices.copy(), m.indptr.copy())


def assert_unchanged(m: Any, snap: tuple[np.ndarray, ...]) -> None:
    for have, want in zip((m.data, m.indices, m.indptr), snap, strict=True):
        np.testing.assert_array_equal(have, want)


@pytest.mark.parametrize("parallel", PATHS)
@pytest.mark.parametrize("shape", [(1, 1), (30, 13), (600, 1003), (50, 2041)])
@pytest.mark.parametrize("data_dtype", [np.uint8, np.float64])
def test_csr_kernel_matches_numpy(parallel: bool, shape: tuple[int, int], data_dtype: Any) -> None:
    rng = np.random.default_rng(shape[1])
    td = random_indicator(rng, shape, np.uint8)
    pd = random_indicator(rng, shape, np.uint8)
    t = sp.csr_matrix(td, dtype=data_dtype)
    p = sp.csr_matrix(pd, dtype=data_dtype)
    assert_multilabel(_kernels.multilabel_counts_csr(t, p, parallel=parallel), td, pd)


def messy_csr(rng: np.random.Generator, shape: tuple[int, int]) -> tuple[Any, np.ndarray]:
    """A CSR with unsorted indices, stored zeros and duplicates (1 + 0, 0 + 0): 0/1 valued."""
    dense = random_indicator(rng, shape, np.int64)
    rows, cols = np.nonzero(dense)
    zr, zc = np.nonzero(dense == 0)
    pick = rng.random(zr.size) < 0.05
    # every 1 once, some of them again as a stored 0, and some stored zeros (twice).
    dup = rng.random(rows.size) < 0.2
    dup[:1] = True
    r = np.concatenate([rows, rows[dup], zr[pick], zr[pick]])
    c = np.concatenate([cols, cols[dup], zc[pick], zc[pick]])
    v = np.concatenate([np.ones(rows.size), np.zeros(dup.sum()), np.zeros(2 * pick.sum())])
    # Rows in order, entries within a row shuffled.
    order = np.lexsort((rng.random(r.size), r))
    indptr = np.concatenate([[0], np.cumsum(np.bincount(r, minlength=shape[0]))])
    m = sp.csr_matrix((v[order].astype(np.uint8), c[order], indptr), shape=shape)
    return m, dense


@pytest.mark.parametrize("shape", [(4, 5), (40, 13), (700, 1003)])
def test_csr_unsorted_duplicates_and_stored_zeros(shape: tuple[int, int]) -> None:
    rng = np.random.default_rng(shape[0])
    t, td = messy_csr(rng, shape)
    p, pd = messy_csr(rng, shape)
    assert not t.has_canonical_format
    np.testing.assert_array_equal(t.toarray(), td)
    snaps = (snapshot(t), snapshot(p))
    v = MultiLabelFValidation.from_predictions(t, p)
    tp, nt, npred, row_tp, row_true, row_pred = ref_multilabel(td, pd)
    assert v.class_counts.tp.tolist() == tp.tolist()
    assert v.class_counts.fn.tolist() == (nt - tp).tolist()
    assert v.class_counts.fp.tolist() == (npred - tp).tolist()
    assert v.sample_counts.tp.tolist() == row_tp.tolist()
    assert v.sample_counts.true.tolist() == row_true.tolist()
    assert v.sample_counts.predicted.tolist() == row_pred.tolist()
    assert_unchanged(t, snaps[0])
    assert_unchanged(p, snaps[1])
    # Unsorted but duplicate-free input goes straight to the kernel (any index order).
    t2 = sp.csr_matrix(td)
    for i in range(shape[0]):
        a, b = t2.indptr[i], t2.indptr[i + 1]
        t2.indices[a:b] = t2.indices[a:b][::-1].copy()
        t2.data[a:b] = t2.data[a:b][::-1].copy()
    t2.has_sorted_indices = False
    for parallel in PATHS:
        assert_multilabel(
            _kernels.multilabel_counts_csr(t2, sp.csr_matrix(pd), parallel=parallel), td, pd
        )


@pytest.mark.parametrize("parallel", PATHS)
def test_csr_kernel_counts_bad_values(parallel: bool) -> None:
    t = sp.csr_matrix(np.array([[1, 2, 0], [0, 1, 3], [1, 0, 0]], dtype=np.int64))
    p = sp.csr_matrix(np.array([[1, 0, 0], [-1, 1, 0], [1, 1, 1]], dtype=np.int64))
    got = _kernels.multilabel_counts_csr(t, p, parallel=parallel)
    assert (got.bad_true, got.bad_pred, got.bad_index) == (2, 1, 0)


def test_csr_bad_values_name_the_argument_and_leave_the_caller_alone() -> None:
    good = sp.csr_matrix(np.eye(3, dtype=np.uint8))
    two = sp.csr_matrix(np.array([[2, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=np.uint8))
    with pytest.raises(ValueError, match=r"^expected must hold only 0 and 1; 1 stored .*\[2\]"):
        MultiLabelFValidation.from_predictions(two, good)
    with pytest.raises(ValueError, match=r"^predicted must hold only 0 and 1; 1 stored .*\[2\]"):
        MultiLabelFValidation.from_predictions(good, two)
    # Two stored ones at one position add up to 2: the message says so (issue 10, item 20).
    dup = sp.csr_matrix(
        (np.ones(4, dtype=np.uint8), np.array([0, 0, 1, 2]), np.array([0, 2, 3, 4])), shape=(3, 3)
    )
    snap = snapshot(dup)
    with pytest.raises(
        ValueError, match=r"^predicted stores 1 position\(s\) more than once.*\[2\]"
    ):
        MultiLabelFValidation.from_predictions(good, dup)
    assert_unchanged(dup, snap)


def test_csr_out_of_range_column_index_is_an_error() -> None:
    # scipy accepts this hand-built matrix; the kernel must not write outside its tables.
    bad = sp.csr_matrix(
        (np.ones(2, dtype=np.uint8), np.array([0, 5]), np.array([0, 2, 2])), shape=(2, 3)
    )
    good = sp.csr_matrix(np.zeros((2, 3), dtype=np.uint8))
    for parallel in PATHS:
        assert _kernels.multilabel_counts_csr(bad, good, parallel=parallel).bad_index == 1
    with pytest.raises(ValueError, match=r"column indices outside 0\.\.2"):
        MultiLabelFValidation.from_predictions(bad, good)


@pytest.mark.parametrize("rows", [SERIAL_BELOW // 64 - 1, SERIAL_BELOW // 64])
def test_csr_at_the_serial_parallel_switch(rows: int) -> None:
    # Work = stored entries of both + rows: 32 + 31 + 1 = 64 per row, so 4096 rows are
    # exactly at the switch (parallel) and 4095 just below (serial).
    rng = np.random.default_rng(rows)
    td = np.zeros((rows, 64), dtype=np.uint8)
    pd = np.zeros((rows, 64), dtype=np.uint8)
    for i in range(rows):
        td[i, rng.permutation(64)[:32]] = 1
        pd[i, rng.permutation(64)[:31]] = 1
    t = sp.csr_matrix(td)
    p = sp.csr_matrix(pd)
    assert t.nnz + p.nnz + rows == 64 * rows
    assert_multilabel(_kernels.multilabel_counts_csr(t, p), td, pd)
    for parallel in PATHS:
        assert_multilabel(_kernels.multilabel_counts_csr(t, p, parallel=parallel), td, pd)


def test_csr_and_dense_paths_agree_through_validation() -> None:
    rng = np.random.default_rng(12)
    td = random_indicator(rng, (500, 37), np.uint8)
    pd = random_indicator(rng, (500, 37), np.uint8)
    a = MultiLabelFValidation.from_predictions(td, pd)
    b = MultiLabelFValidation.from_predictions(sp.csr_matrix(td), sp.csc_matrix(pd))
    c = MultiLabelFValidation.from_predictions(td.astype(np.int64), pd.astype(bool))
    assert a.class_counts == b.class_counts == c.class_counts
    for x in (b, c):
        np.testing.assert_array_equal(a.sample_counts.tp, x.sample_counts.tp)
        np.testing.assert_array_equal(a.sample_counts.true, x.sample_counts.true)
        np.testing.assert_array_equal(a.sample_counts.predicted, x.sample_counts.predicted)
