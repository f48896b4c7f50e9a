"""Value objects of validation and crossval compare and hash by value.

Arrays compare by contents, NaN settings equal NaN settings, and equal values have equal
hashes (so they work as dict keys and set members).
"""

from __future__ import annotations

import math
import pickle
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp

from fmacro.crossval import CrossValidation, Fold, FoldResult, KFold, cross_validate
from fmacro.validation import (
    BinFValidation,
    ClassCounts,
    ConfusionMatrix,
    Counts,
    MultiFValidation,
    MultiLabelFValidation,
    SampleCounts,
)
from fmacro.validation.datasets import load_arff_data

E = np.array([0, 1, 2, 2, 1, 0, 2, 1])
P = np.array([0, 2, 2, 1, 1, 0, 2, 0])
Y = np.eye(3, dtype=np.uint8)[E]
YP = np.eye(3, dtype=np.uint8)[P]
NANS = (math.nan, float("nan"), np.nan, np.float64("nan"), "nan")


def same_value(a: Any, b: Any) -> None:
    assert a is not b
    assert a == b
    assert (a != b) is False
    assert hash(a) == hash(b)
    assert len({a, b}) == 1


def different(a: Any, b: Any) -> None:
    assert a != b
    assert (a == b) is False


# One builder per public value class: two calls build equal, distinct objects; `other`
# builds a value that differs in one field.
CASES = {
    "Counts": (lambda: Counts(1, 2, 3, 4), lambda: Counts(1, 2, 3, 5)),
    "ClassCounts": (
        lambda: ClassCounts([1, 2], [0, 1], [3, 0], [5, 6]),
        lambda: ClassCounts([1, 2], [0, 1], [3, 0], [5, 7]),
    ),
    "ConfusionMatrix": (
        lambda: ConfusionMatrix([[3, 1], [0, 2]]),
        lambda: ConfusionMatrix([[3, 1], [1, 2]]),
    ),
    "SampleCounts": (
        lambda: SampleCounts([1, 0], [1, 1], [2, 0]),
        lambda: SampleCounts([1, 0], [1, 1], [2, 1]),
    ),
    "BinFValidation": (
        lambda: BinFValidation.from_predictions(E == 2, P == 2, positive=True),
        lambda: BinFValidation.from_predictions(E == 2, P == 2, positive=True, beta=2.0),
    ),
    "MultiFValidation": (
        lambda: MultiFValidation.from_predictions(E, P, 3),
        lambda: MultiFValidation.from_predictions(E, P, [0, 1, 2], beta=0.5),
    ),
    "MultiLabelFValidation": (
        lambda: MultiLabelFValidation.from_predictions(Y, YP),
        lambda: MultiLabelFValidation.from_predictions(Y, Y),
    ),
    "MultiLabelFValidation (sparse input)": (
        lambda: MultiLabelFValidation.from_predictions(sp.csr_matrix(Y), sp.csr_matrix(YP)),
        lambda: MultiLabelFValidation.from_predictions(Y, YP, labels=("x", "y", "z")),
    ),
    "Fold": (
        lambda: Fold(train=[0, 1, 3], validation=[2], index=1),
        lambda: Fold(train=[0, 1, 2], validation=[3], index=1),
    ),
    "FoldResult": (
        lambda: FoldResult(MultiFValidation.from_predictions(E, P, 3), P.copy()),
        lambda: FoldResult(MultiFValidation.from_predictions(E, P, 3), E.copy()),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_value_classes_compare_and_hash_by_value(name: str) -> None:
    build, other = CASES[name]
    same_value(build(), build())
    different(build(), other())
    same_value(build(), pickle.loads(pickle.dumps(build())))


@pytest.mark.parametrize("zero_division", NANS)
def test_nan_zero_division_compares_equal_however_nan_was_spelled(zero_division: Any) -> None:
    reference = BinFValidation.from_counts(Counts(0, 0, 0, 4), zero_division=math.nan)
    same_value(
        BinFValidation.from_counts(Counts(0, 0, 0, 4), zero_division=zero_division), reference
    )
    m = MultiFValidation.from_predictions(E, P, 4, zero_division=zero_division)
    same_value(m, MultiFValidation.from_predictions(E, P, 4, zero_division=math.nan))
    ml = MultiLabelFValidation.from_predictions(Y, YP, zero_division=zero_division)
    same_value(ml, MultiLabelFValidation.from_predictions(Y, YP, zero_division=float("nan")))
    different(ml, MultiLabelFValidation.from_predictions(Y, YP, zero_division=0.0))
    # pooled results too: the sum of equal values is equal
    same_value(ml + ml, MultiLabelFValidation.from_predictions(Y, YP, zero_division="nan") + ml)


def test_measures_computed_or_not_do_not_change_equality() -> None:
    a = MultiLabelFValidation.from_predictions(Y, YP)
    b = MultiLabelFValidation.from_predictions(Y, YP)
    _ = a.f_macro, a.per_class_f, a.samples_f  # cached on a only
    same_value(a, b)


def test_cross_validations_of_the_same_run_are_equal() -> None:
    X = np.arange(30.0)
    y = (X >= 15).astype(int)

    def fit(X_train: np.ndarray, y_train: np.ndarray) -> Any:
        cut = X_train[y_train == 1].min()
        return lambda X_val: (X_val >= cut).astype(int)

    a = cross_validate(fit, X, y, KFold(k=3, seed=4), progress=False)
    b = cross_validate(fit, X, y, KFold(k=3, seed=4), progress=False)
    same_value(a, b)
    different(a, cross_validate(fit, X, y, KFold(k=3, seed=5), progress=False))
    only_validations = CrossValidation(validations=a.validations)
    same_value(only_validations, CrossValidation(validations=b.validations))
    different(only_validations, a)  # a also holds fold indices and predictions


def test_sparse_and_float_array_fields_compare_by_contents() -> None:
    # FoldResult.predicted may be a sparse matrix (multi-label) or hold floats.
    v = MultiLabelFValidation.from_predictions(Y, YP)
    unsorted = sp.csr_matrix((np.array([1, 1]), np.array([2, 0]), np.array([0, 2, 2])), (2, 3))
    same_value(FoldResult(v, unsorted), FoldResult(v, sp.csr_matrix([[1, 0, 1], [0, 0, 0]])))
    same_value(FoldResult(v, np.array([np.nan, -0.0])), FoldResult(v, np.array([np.nan, 0.0])))
    different(FoldResult(v, np.array([1.0, 2.0])), FoldResult(v, np.array([1, 2])))


def test_arff_data_compare_by_value() -> None:
    same_value(load_arff_data("emotions", "test"), load_arff_data("emotions", "test"))
