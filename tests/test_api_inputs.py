"""Regression tests of issue 10 (API half): odd arrays give the right number or a clear error.

Each test names the issue item it guards. Expected numbers are computed by hand or by
scikit-learn on the same labels.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numba
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.metrics import f1_score, precision_recall_curve

from fmacro import optimize
from fmacro.crossval import KFold, cross_validate, vectorized
from fmacro.validation import (
    BinFValidation,
    ClassCounts,
    ConfusionMatrix,
    Counts,
    MultiFValidation,
    MultiLabelFValidation,
    SampleCounts,
)
from fmacro.validation._kernels import SERIAL_BELOW


# ----------------------------------------------------------------- item 7: jitted predict
@numba.njit
def _probability(x):  # type: ignore[no-untyped-def]
    return x[0]


@numba.njit
def _label(x):  # type: ignore[no-untyped-def]
    return np.int64(x[0] > 0.5)


@numba.njit
def _float_row(x):  # type: ignore[no-untyped-def]
    return x * 0.7


@numba.njit
def _float_01_row(x):  # type: ignore[no-untyped-def]
    return (x > 0.5) * 1.0


X1 = np.array([[0.7], [0.2], [0.9], [0.4]])
Y1 = np.array([1, 0, 1, 1])


@pytest.mark.parametrize(
    "build",
    [
        lambda: BinFValidation(Y1, X1, _probability),
        lambda: MultiFValidation(Y1, X1, 2, _probability),
    ],
    ids=["binary", "multiclass"],
)
def test_a_jitted_predict_returning_a_probability_is_refused(build) -> None:  # type: ignore[no-untyped-def]
    # As with a plain Python predict: no silent truncation of 0.7 to label 0.
    with pytest.raises(TypeError, match=r"integer label.*gave 0\.7 of type float"):
        build()


def test_a_plain_predict_returning_a_probability_is_refused_alike() -> None:
    with pytest.raises(TypeError, match=r"integer label.*0\.7\) of type float64"):
        BinFValidation(Y1, X1, _probability.py_func)


def test_a_jitted_multilabel_predict_returning_fractions_is_refused() -> None:
    Y = np.array([[1, 0], [0, 1], [1, 1]])
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    with pytest.raises(ValueError, match="other than 0 and 1"):
        MultiLabelFValidation(Y, X, _float_row)
    # 0.0/1.0 floats are indicators: same counts as the Python predict
    jitted = MultiLabelFValidation(Y, X, _float_01_row)
    plain = MultiLabelFValidation(Y, X, _float_01_row.py_func)
    assert jitted == plain
    assert jitted.micro_f == 1.0


def test_a_jitted_predict_needs_an_integer_positive_label() -> None:
    with pytest.raises(TypeError, match=r"positive must be an integer, got 1.5"):
        BinFValidation(Y1, X1, _label, positive=1.5)
    v = BinFValidation(Y1, X1, _label)
    # predictions 1, 0, 1, 0 against 1, 0, 1, 1: tp 2, fn 1
    assert v.counts == Counts(tp=2, fp=0, fn=1, tn=1)
    assert v.f1 == pytest.approx(f1_score(Y1, [1, 0, 1, 0]))


# ----------------------------------------------------------------- item 8: one row type
def _first_column_above_half(row):  # type: ignore[no-untyped-def]
    return int(row[0] > 0.5)


def test_validations_and_vectorized_hand_predict_the_same_rows() -> None:
    # Integer column labels in another order: row[0] must mean "the first column" in both.
    frame = pd.DataFrame({1: [0.1, 0.9, 0.2, 0.8], 0: [0.9, 0.1, 0.8, 0.2]})
    y = np.array([0, 1, 0, 1])
    direct = BinFValidation(y, frame, _first_column_above_half)
    batched = vectorized(_first_column_above_half)(frame)
    assert batched.tolist() == [0, 1, 0, 1]
    assert direct.f1 == 1.0
    assert BinFValidation.from_predictions(y, batched).f1 == direct.f1

    def fit(X, y):  # type: ignore[no-untyped-def]
        return vectorized(_first_column_above_half)

    cv = cross_validate(fit, frame, y, KFold(2, seed=0), progress=False)
    assert cv.pooled.counts == direct.counts


# ----------------------------------------------------------------- item 9: wide integers
def test_integer_scores_float64_cannot_tell_apart_are_refused() -> None:
    big = 2**60
    scores = np.array([big + 1, big + 2, big + 3], dtype=np.int64)
    labels = np.array([0, 1, 1])
    p, r, _ = precision_recall_curve(labels, scores)
    assert max(2 * p * r / np.maximum(p + r, 1e-300)) == 1.0  # scikit-learn ranks exactly
    for call in (
        lambda: optimize.best_threshold(scores, labels),
        lambda: optimize.per_class(scores[:, None], labels[:, None]),
        lambda: optimize.class_points(scores[:, None], labels[:, None]),
        lambda: optimize.class_points(sp.csr_matrix(scores[:, None]), labels[:, None]),
        lambda: optimize.top_k(sp.csr_matrix(scores[:, None]), labels[:, None]),
    ):
        with pytest.raises(ValueError, match="float64 cannot represent exactly"):
            call()


def test_wide_integer_scores_float64_represents_exactly_are_ranked() -> None:
    scores = np.array([2**60, 2**61, 2**62, -(2**62)], dtype=np.int64)
    labels = np.array([0, 1, 1, 0])
    result = optimize.best_threshold(scores, labels)
    assert result.f == 1.0
    assert result.threshold == float(2**61)


def test_uint64_labels_above_int64_do_not_wrap_to_negative() -> None:
    huge = np.array([2**64 - 1, 0, 0], dtype=np.uint64)
    for call in (
        lambda: BinFValidation.from_predictions(huge, huge, positive=-1),
        lambda: MultiFValidation.from_predictions(huge, np.zeros(3, dtype=np.int64), classes=2),
    ):
        with pytest.raises(ValueError, match="above 2\\*\\*63 - 1"):
            call()
    fits = np.array([2**63 - 1, 0, 0], dtype=np.uint64)
    v = BinFValidation.from_predictions(fits, fits, positive=0)
    assert v.counts == Counts(tp=2, fp=0, fn=0, tn=1)


@pytest.mark.parametrize(
    "build",
    [
        lambda c: ConfusionMatrix(np.array([[c, 0], [0, 0]], dtype=np.uint64)),
        lambda c: ClassCounts(np.array([c], dtype=np.uint64), [0], [0], [0]),
        lambda c: SampleCounts(np.array([c], dtype=np.uint64), [c], [c]),
    ],
    ids=["ConfusionMatrix", "ClassCounts", "SampleCounts"],
)
def test_counts_are_checked_before_the_cast_to_int64(build) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="fit in int64"):
        build(2**63)
    assert build(2**63 - 1) == build(np.int64(2**63 - 1))


def test_sample_counts_refuse_negative_and_inconsistent_counts() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        SampleCounts([-1], [0], [0])
    with pytest.raises(ValueError, match="one entry per sample"):
        SampleCounts([1, 0], [1], [1])
    with pytest.raises(ValueError, match="cannot exceed"):
        SampleCounts([2], [1], [2])


# ----------------------------------------------------------------- item 13: memory layouts
def test_multilabel_takes_fortran_ordered_floats_and_float_frames() -> None:
    Y = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    P = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 1.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    expected = f1_score(Y, P, average="micro")
    reference = MultiLabelFValidation.from_predictions(Y.astype(int), P.astype(int))
    assert reference.micro_f == pytest.approx(expected)
    for t, p in (
        (np.asfortranarray(Y), np.asfortranarray(P)),
        (Y.T.copy().T, P.T.copy().T),
        (pd.DataFrame(Y), pd.DataFrame(P)),
        (Y[:, ::-1][:, ::-1], P[:, ::-1][:, ::-1]),
    ):
        v = MultiLabelFValidation.from_predictions(t, p)
        # (a DataFrame also names the labels by its columns, 0, 1, 2)
        assert (v.class_counts, v.sample_counts) == (
            reference.class_counts,
            reference.sample_counts,
        )
    frame = pd.DataFrame(Y)
    assert frame.to_numpy().flags.f_contiguous  # the layout that used to fail

    def predict(rows):  # type: ignore[no-untyped-def]
        return pd.DataFrame(np.asarray(rows)[:, :3] > 0.5).astype(float)

    batched = MultiLabelFValidation(frame, pd.DataFrame(P), predict, batched=True)
    assert batched == reference


# ----------------------------------------------------------------- item 15: sparse, +
def test_a_one_dimensional_sparse_array_is_refused_clearly() -> None:
    vector = sp.coo_array(np.array([1, 0, 1]))
    with pytest.raises(ValueError, match=r"2-D.*1-D sparse array of shape \(3,\)"):
        MultiLabelFValidation.from_predictions(vector, np.array([[1], [0], [1]]))
    with pytest.raises(ValueError, match=r"2-D.*1-D sparse array"):
        MultiLabelFValidation.from_predictions(vector, vector)


@pytest.mark.parametrize(
    "value",
    [
        Counts(1, 0, 0, 1),
        ClassCounts([1], [0], [0], [1]),
        ConfusionMatrix([[1, 0], [0, 1]]),
        SampleCounts([1], [1], [1]),
        BinFValidation.from_predictions([1, 0], [1, 0]),
        MultiFValidation.from_predictions([1, 0], [1, 0]),
        MultiLabelFValidation.from_predictions([[1, 0]], [[1, 0]]),
    ],
    ids=lambda v: type(v).__name__,
)
def test_adding_a_wrong_operand_raises_type_error(value) -> None:  # type: ignore[no-untyped-def]
    for other in (1, 1.0, "x", None, np.int64(1)):
        with pytest.raises(TypeError):
            value + other
    if not hasattr(value, "score"):
        # counts pool with sum(): the int 0 that sum() starts from is the identity
        assert sum([value, value]) == value + value
        with pytest.raises(TypeError):
            False + value


# ----------------------------------------------------------------- item 20: messages
def test_a_zero_dimensional_input_is_named() -> None:
    for call in (
        lambda: BinFValidation.from_predictions(np.int64(1), np.int64(1)),
        lambda: MultiFValidation.from_predictions(np.int64(1), np.int64(1)),
        lambda: MultiLabelFValidation.from_predictions(np.int64(1), np.int64(1)),
        lambda: BinFValidation(np.array(1), [[0.0]], _first_column_above_half),
    ):
        with pytest.raises(TypeError, match="expected must be a sequence with one entry per"):
            call()


def test_a_sparse_matrix_to_multiclass_points_to_the_multilabel_validation() -> None:
    m = sp.csr_matrix(np.eye(2))
    for classes in (None, 2):
        with pytest.raises(TypeError, match=r"sparse matrix; .* use MultiLabelFValidation"):
            MultiFValidation.from_predictions(m, m, classes)


def test_duplicate_csr_entries_are_explained() -> None:
    # Row 0 stores column 1 twice (1 and 1): scipy's sum is 2, the data holds only 1s.
    dup = sp.csr_matrix(
        (np.array([1, 1, 1]), np.array([1, 1, 0]), np.array([0, 2, 3])), shape=(2, 2)
    )
    assert set(dup.data.tolist()) == {1}
    with pytest.raises(ValueError, match="stores 1 position\\(s\\) more than once"):
        MultiLabelFValidation.from_predictions(dup, dup)
    # duplicates that add up to 1 are scipy's own semantics: accepted
    fine = sp.csr_matrix(
        (np.array([1, 0, 1]), np.array([1, 1, 0]), np.array([0, 2, 3])), shape=(2, 2)
    )
    assert MultiLabelFValidation.from_predictions(fine, fine).micro_f == 1.0


def test_a_bool_array_with_raw_bytes_other_than_0_1_names_them() -> None:
    raw = np.array([[2, 0], [1, 1]], dtype=np.uint8).view(bool)
    with pytest.raises(ValueError, match=r"raw byte values other than 0 and 1 \(such as \[2\]\)"):
        MultiLabelFValidation.from_predictions(raw, raw)
    vector = np.array([1, 0, 2], dtype=np.uint8).view(bool)
    for call in (
        lambda: BinFValidation.from_predictions(vector, vector, positive=True),
        lambda: MultiFValidation.from_predictions(vector, vector, classes=2),
    ):
        with pytest.raises(ValueError, match="raw byte values"):
            call()


def test_multiclass_without_classes_says_classes_come_before_predict() -> None:
    with pytest.raises(TypeError, match=r"needs classes before predict.*is a function"):
        MultiFValidation(Y1, X1, _label)  # type: ignore[call-arg]


def test_a_column_vector_is_read_alike_with_and_without_classes() -> None:
    e = np.array([[0], [1], [2], [2]])
    p = np.array([[0], [2], [2], [2]])
    inferred = MultiFValidation.from_predictions(e, p)
    declared = MultiFValidation.from_predictions(e, p, classes=3)
    assert inferred == declared
    assert inferred.macro_f == pytest.approx(f1_score(e.ravel(), p.ravel(), average="macro"))


# ----------------------------------------------------------------- item 18: fork safety
_N_BIG = SERIAL_BELOW * 2


def _f1_in_child(seed: int) -> float:
    rng = np.random.default_rng(seed)
    e, p = rng.integers(0, 2, _N_BIG), rng.integers(0, 2, _N_BIG)
    return BinFValidation.from_predictions(e, p).f1


def test_a_forked_pool_survives_a_parallel_kernel_in_the_parent() -> None:
    parent = _f1_in_child(0)  # a parallel kernel (>= 2**18 entries) runs in this process
    assert numba.threading_layer() != "omp" or "NUMBA_THREADING_LAYER" in __import__("os").environ
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=2, mp_context=context) as pool:
        assert list(pool.map(_f1_in_child, [0, 1])) == [parent, _f1_in_child(1)]


def test_parallel_kernels_from_several_threads_agree() -> None:
    # workqueue is not thread-safe on its own; fmacro runs its parallel kernels one at a time
    rng = np.random.default_rng(3)
    e, p = rng.integers(0, 5, _N_BIG), rng.integers(0, 5, _N_BIG)
    Y = rng.integers(0, 2, (_N_BIG // 8, 8)).astype(np.uint8)

    def job(_: int) -> tuple[float, float]:
        return (
            MultiFValidation.from_predictions(e, p, classes=5).f_macro,
            MultiLabelFValidation.from_predictions(Y, Y[::-1]).micro_f,
        )

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = set(pool.map(job, range(8)))
    assert results == {job(0)}
    assert job(0)[1] == pytest.approx(f1_score(Y, Y[::-1], average="micro"))


def test_weighted_parallel_kernels_from_several_threads_agree() -> None:
    # the weighted kernels are parallel too and must take the same one-at-a-time path
    rng = np.random.default_rng(4)
    e, p = rng.integers(0, 2, _N_BIG), rng.integers(0, 2, _N_BIG)
    w = rng.random(_N_BIG)
    Y = rng.integers(0, 2, (_N_BIG // 8, 8)).astype(np.uint8)
    wy = rng.random(_N_BIG // 8)

    def job(_: int) -> tuple[float, float]:
        return (
            BinFValidation.from_predictions(e, p, sample_weight=w).f1,
            MultiLabelFValidation.from_predictions(Y, Y[::-1], sample_weight=wy).micro_f,
        )

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(job, range(8)))
    assert all(r == pytest.approx(results[0]) for r in results)
    assert results[0][0] == pytest.approx(f1_score(e, p, sample_weight=w))
    assert results[0][1] == pytest.approx(f1_score(Y, Y[::-1], average="micro", sample_weight=wy))
