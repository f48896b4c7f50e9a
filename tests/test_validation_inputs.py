"""Bad input fails clearly; results are immutable; callers' arrays are never changed."""

from __future__ import annotations

import math

import attrs
import numpy as np
import pytest
import scipy.sparse as sp

from fmacro.validation import (
    BinFValidation,
    ClassCounts,
    ConfusionMatrix,
    Counts,
    MultiFValidation,
    MultiLabelFValidation,
)


@pytest.mark.parametrize(
    ("call", "error", "pattern"),
    [
        (
            lambda: BinFValidation.from_predictions([1, 0], [1]),
            ValueError,
            "same number of samples",
        ),
        (lambda: BinFValidation.from_predictions([], []), ValueError, "empty"),
        (lambda: BinFValidation.from_predictions([0, 1, 2], [0, 1, 1]), ValueError, "two values"),
        (lambda: BinFValidation.from_predictions([0.5, 1], [0, 1]), TypeError, "integer labels"),
        (lambda: BinFValidation.from_predictions([np.nan, 1], [0, 1]), ValueError, "NaN"),
        (
            lambda: BinFValidation.from_predictions([[0, 1], [1, 0]], [[0, 1], [1, 0]]),
            ValueError,
            "1-dimensional",
        ),
        (lambda: BinFValidation.from_counts(Counts(1, 1, 1, 1), beta=0), ValueError, "beta"),
        (lambda: BinFValidation.from_counts(Counts(1, 1, 1, 1), beta=-1.0), ValueError, "beta"),
        (lambda: BinFValidation.from_counts(Counts(1, 1, 1, 1), beta="2"), TypeError, "beta"),
        (
            lambda: BinFValidation.from_counts(Counts(1, 1, 1, 1), zero_division=0.5),
            ValueError,
            "zero_division",
        ),
        (
            lambda: BinFValidation.from_counts(Counts(1, 1, 1, 1), zero_division="x"),
            ValueError,
            "zero_division",
        ),
        (lambda: BinFValidation.from_counts((1, 1, 1, 1)), TypeError, "Counts"),
        (lambda: Counts(-1, 0, 0, 0), ValueError, "tp"),
        (lambda: Counts("1", 0, 0, 0), TypeError, "integers"),
        (lambda: Counts(True, 0, 0, 0), TypeError, "bool"),
        (lambda: Counts(float("nan"), 0, 0, 0), ValueError, "finite"),
        (lambda: Counts(-0.5, 0, 0, 0), ValueError, "non-negative"),
        (
            lambda: MultiFValidation.from_predictions([0, 1, 3], [0, 1, 1], classes=3),
            ValueError,
            "outside the declared classes",
        ),
        (
            lambda: MultiFValidation.from_predictions([0, 1, 1], [0, 5, 1], classes=3),
            ValueError,
            "predicted",
        ),
        (
            lambda: MultiFValidation.from_predictions(["a", "b"], ["a", "c"], classes=["a", "b"]),
            ValueError,
            "'c'",
        ),
        (
            lambda: MultiFValidation.from_predictions(["a", "b"], ["a", "b"], classes=2),
            TypeError,
            "classes=",
        ),
        (
            lambda: MultiFValidation.from_predictions([0, 1], [0, 1], classes=0),
            ValueError,
            "classes",
        ),
        (
            lambda: MultiFValidation.from_predictions([0, 1], [0, 1], classes=[]),
            ValueError,
            "classes",
        ),
        (
            lambda: MultiFValidation.from_predictions([0, 1], [0, 1], classes=[0, 0]),
            ValueError,
            "duplicate",
        ),
        (lambda: MultiFValidation.from_confusion([[1, 2]]), ValueError, "square"),
        (
            lambda: MultiFValidation.from_confusion([[1, 0], [0, 1]], classes=3),
            ValueError,
            "classes",
        ),
        (lambda: ConfusionMatrix([["1", "0"], ["0", "1"]]), TypeError, "integers"),
        (lambda: ConfusionMatrix([[np.inf, 0], [0, 1]]), ValueError, "finite"),
        (
            lambda: MultiLabelFValidation.from_predictions(np.zeros((3, 2)), np.zeros((2, 2))),
            ValueError,
            "same number of samples: expected has 3, predicted has 2",
        ),
        (
            lambda: MultiLabelFValidation.from_predictions(np.zeros((3, 2)), np.zeros((3, 4))),
            ValueError,
            r"^expected has shape \(3, 2\) but predicted has shape \(3, 4\)$",
        ),
        (
            lambda: MultiLabelFValidation.from_predictions(np.zeros(3), np.zeros(3)),
            ValueError,
            "^expected must be a 2-D",
        ),
        (
            lambda: MultiLabelFValidation.from_predictions(
                np.full((2, 2), 2), np.zeros((2, 2), int)
            ),
            ValueError,
            "0 and 1",
        ),
        (
            lambda: MultiLabelFValidation.from_predictions(
                np.full((2, 2), np.nan), np.zeros((2, 2))
            ),
            ValueError,
            "NaN",
        ),
        (
            lambda: MultiLabelFValidation.from_predictions(
                sp.csr_matrix(np.full((2, 2), 3)), sp.csr_matrix(np.eye(2))
            ),
            ValueError,
            "0 and 1",
        ),
        (
            lambda: MultiLabelFValidation.from_predictions(np.zeros((0, 2)), np.zeros((0, 2))),
            ValueError,
            r"^expected is empty \(shape \(0, 2\)\)",
        ),
    ],
)
def test_bad_input_names_the_problem(call, error, pattern) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(error, match=pattern):
        call()


def test_from_predictions_takes_expected_then_predicted_in_every_validation() -> None:
    # One convention: from_predictions(expected, predicted), by position or by keyword.
    e, p = np.array([1, 1, 0, 0]), np.array([1, 0, 1, 0])
    assert BinFValidation.from_predictions(expected=e, predicted=p) == (
        BinFValidation.from_predictions(e, p)
    )
    assert MultiFValidation.from_predictions(expected=e, predicted=p, classes=2) == (
        MultiFValidation.from_predictions(e, p, 2)
    )
    Y, P = e.reshape(2, 2), p.reshape(2, 2)
    by_keyword = MultiLabelFValidation.from_predictions(expected=Y, predicted=P)
    assert by_keyword.class_counts.tp.tolist() == [1, 0]  # column-wise: (1,0)&(1,1), (1,0)&(0,0)
    assert by_keyword.class_counts.fn.tolist() == [0, 1]
    assert by_keyword.class_counts.fp.tolist() == [1, 0]
    with pytest.raises(TypeError):
        MultiLabelFValidation.from_predictions(Y_true=Y, Y_pred=P)  # type: ignore[call-arg]


def test_predict_returning_a_non_label_is_refused() -> None:
    X = np.array([[1.0], [2.0]])
    with pytest.raises(TypeError, match="predict must return an integer label"):
        BinFValidation([0, 1], X, lambda x: "yes")
    with pytest.raises(TypeError, match="predict must return an integer label"):
        MultiFValidation([0, 1], X, 2, lambda x: 0.5)
    with pytest.raises(ValueError, match="returned 1 predictions for 2"):
        BinFValidation([0, 1], X, lambda Z: np.array([1]), batched=True)
    with pytest.raises(TypeError, match="callable"):
        BinFValidation([0, 1], X, 3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="same number of samples"):
        BinFValidation([0, 1, 1], X, lambda x: 1)


def test_arbitrary_labels_through_a_mapping() -> None:
    X = np.array([[0.0], [1.0], [2.0]])
    m = MultiFValidation(
        ["cat", "dog", "eel"], X, ["cat", "dog", "eel"], lambda x: ["cat", "dog", "eel"][int(x[0])]
    )
    assert m.accuracy == 1.0
    with pytest.raises(ValueError, match="'fox'"):
        MultiFValidation(["cat", "dog", "eel"], X, ["cat", "dog", "eel"], lambda x: "fox")


def test_results_are_immutable() -> None:
    v = BinFValidation.from_counts(Counts(1, 2, 3, 4))
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        v.beta = 2.0  # type: ignore[misc]
    m = MultiFValidation.from_predictions([0, 1, 1], [0, 1, 0], classes=2)
    for arr in (
        m.confusion.matrix,
        m.per_class_f,
        m.per_class_precision,
        m.class_counts.tp,
        m.support,
    ):
        assert not arr.flags.writeable
        with pytest.raises(ValueError):
            arr[0] = 7
    ml = MultiLabelFValidation.from_predictions(np.eye(2, dtype=int), np.eye(2, dtype=int))
    assert not ml.per_sample_f.flags.writeable
    assert not ml.sample_counts.tp.flags.writeable


def test_caller_arrays_are_not_modified_or_aliased() -> None:
    matrix = np.array([[3, 1], [2, 4]])
    cm = ConfusionMatrix(matrix)
    matrix[0, 0] = 100
    assert cm.matrix[0, 0] == 3
    tp = np.array([1, 2])
    cc = ClassCounts(tp, tp, tp, tp)
    tp[0] = 9
    assert cc.tp[0] == 1
    e = np.array([0, 1, 1, 0, 2])
    p = np.array([0, 1, 0, 0, 2])
    e0, p0 = e.copy(), p.copy()
    MultiFValidation.from_predictions(e, p, classes=3).report()
    BinFValidation.from_predictions(e == 1, p == 1).report()
    assert np.array_equal(e, e0) and np.array_equal(p, p0)
    Y = np.array([[1, 0], [1, 1]], dtype=np.uint8)
    Y0 = Y.copy()
    MultiLabelFValidation.from_predictions(Y, Y[::-1]).report()
    assert np.array_equal(Y, Y0)


def test_zero_division_choices_are_recorded() -> None:
    for zd, expected in ((0.0, 0.0), (1.0, 1.0), ("warn", 0.0)):
        v = BinFValidation.from_counts(Counts(0, 0, 0, 5), zero_division=zd)
        assert v.zero_division == expected
        assert v.precision == expected
    v = BinFValidation.from_counts(Counts(0, 0, 0, 5), zero_division=math.nan)
    assert math.isnan(v.zero_division) and math.isnan(v.precision) and math.isnan(v.f1)


def test_input_types_lists_pandas_bool() -> None:
    pd = pytest.importorskip("pandas")
    e = pd.Series([1, 0, 1, 1])
    p = pd.Series([True, False, False, True])
    v = BinFValidation.from_predictions(e, p)
    assert v.counts == Counts(tp=2, fp=0, fn=1, tn=1)
    m = MultiFValidation.from_predictions(pd.Series(["x", "y"]), pd.Series(["x", "x"]))
    assert m.classes == ("x", "y")
    ml = MultiLabelFValidation.from_predictions(
        pd.DataFrame([[1, 0], [0, 1]]), pd.DataFrame([[1, 1], [0, 1]])
    )
    assert ml.class_counts.fp.tolist() == [0, 1]


@pytest.fixture
def length_checks(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """Record every call of check_same_length made by the validation modules."""
    from fmacro.validation import binary, checks, multiclass, multilabel, plumbing

    calls: list[tuple[str, ...]] = []
    real = checks.check_same_length

    def counting(**arrays):  # type: ignore[no-untyped-def]
        calls.append(tuple(arrays))
        return real(**arrays)

    for module in (plumbing, binary, multiclass, multilabel):
        monkeypatch.setattr(module, "check_same_length", counting)
    return calls


def _jitted_parity():  # type: ignore[no-untyped-def]
    import numba

    @numba.njit
    def parity(x):  # type: ignore[no-untyped-def]
        return np.int64(x[0]) % 2

    return parity


@pytest.mark.parametrize(
    "build",
    [
        lambda X, e: BinFValidation(e, X, lambda x: int(x[0]) % 2),
        lambda X, e: BinFValidation(e, X, lambda Z: Z[:, 0].astype(int) % 2, batched=True),
        lambda X, e: BinFValidation(e, X, _jitted_parity()),
        lambda X, e: BinFValidation.from_predictions(e, X[:, 0].astype(int) % 2),
        lambda X, e: MultiFValidation(e, X, 2, lambda x: int(x[0]) % 2),
        lambda X, e: MultiFValidation(e, X, 2, _jitted_parity()),
        lambda X, e: MultiFValidation.from_predictions(e, X[:, 0].astype(int) % 2),
        lambda X, e: MultiFValidation.from_predictions(e, X[:, 0].astype(int) % 2, 2),
        lambda X, e: MultiLabelFValidation(
            np.eye(2, dtype=int)[e], X, lambda x: np.eye(2, dtype=int)[int(x[0]) % 2]
        ),
        lambda X, e: MultiLabelFValidation.from_predictions(
            np.eye(2, dtype=int)[e], np.eye(2, dtype=int)[X[:, 0].astype(int) % 2]
        ),
    ],
)
def test_each_input_length_is_checked_once_per_call(build, length_checks) -> None:  # type: ignore[no-untyped-def]
    X = np.arange(6.0).reshape(6, 1)
    e = np.array([0, 1, 0, 1, 1, 1])
    v = build(X, e)
    assert float(v.score) >= 0.0
    assert len(length_checks) == 1, length_checks


def test_a_length_mismatch_is_still_reported_with_the_same_message() -> None:
    X = np.arange(3.0).reshape(3, 1)
    message = r"^inputs must have the same number of samples: expected has 2, observations has 3$"
    with pytest.raises(ValueError, match=message):
        BinFValidation([0, 1], X, lambda x: 1)
    with pytest.raises(ValueError, match=message):
        BinFValidation([0, 1], X, lambda Z: np.ones(3, int), batched=True)
    with pytest.raises(ValueError, match=message):
        MultiFValidation([0, 1], X, 2, lambda x: 1)
    with pytest.raises(ValueError, match=r"^predict \(batched=True\) returned 2 predictions for 3"):
        BinFValidation([0, 1, 1], X, lambda Z: np.ones(2, int), batched=True)
    with pytest.raises(ValueError, match=r"expected has 3, predicted has 2$"):
        MultiFValidation.from_predictions([0, 1, 1], [0, 1])
