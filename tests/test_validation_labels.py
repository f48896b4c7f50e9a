"""The one label rule (validation.labels, issue 10 items 5, 6, 11): lists, numpy and pandas
alike; mixed str/int refused as scikit-learn refuses it; NaN refused; rows are not vectors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score, f1_score

from fmacro.validation import BinFValidation, MultiFValidation
from fmacro.validation.labels import coerce_label_pair, coerce_labels


def test_mixed_str_int_in_one_vector_is_refused() -> None:
    # numpy turns 1 into '1' next to a string: scikit-learn then reports accuracy 1.0.
    e, p = ["cat", 1, "1"], ["cat", "1", 1]
    assert accuracy_score(e, p) == 1.0
    for call in (
        lambda: MultiFValidation.from_predictions(e, p),
        lambda: MultiFValidation.from_predictions(e, p, classes=["cat", "1", 1]),
        lambda: BinFValidation.from_predictions(e, p, positive="cat"),
    ):
        with pytest.raises(TypeError, match=r"expected mixes label types: 'cat' \(string"):
            call()


@pytest.mark.parametrize(
    ("expected", "predicted"),
    [
        ([2, 1, 2], ["2", "1", "2"]),  # 2 and '2' merged into one class
        (np.array([1, 2]), np.array(["1", "2"])),
        (pd.Series([1, 2]), pd.Series(["1", "2"])),
    ],
)
def test_str_against_int_is_refused_like_scikit_learn(expected, predicted) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="Mix of label input types"):
        accuracy_score(list(expected), list(predicted))
    with pytest.raises(TypeError, match=r"expected holds number labels .* predicted holds string"):
        MultiFValidation.from_predictions(expected, predicted)
    # Declared classes map by equality: '2' is never the class 2 (distinct, not merged).
    v = MultiFValidation.from_predictions(expected, predicted, classes=[1, 2, "1", "2"])
    assert v.accuracy == 0.0


@pytest.mark.parametrize(
    "labels",
    [
        np.array(["a", np.nan, "b"], dtype=object),
        pd.Series(["a", None, "b"]),
        [1.0, float("nan"), 2.0],
        pd.Series([1, None, 2], dtype="Int64"),
    ],
)
def test_nan_label_is_refused_never_a_class(labels) -> None:  # type: ignore[no-untyped-def]
    other = ["a", "a", "b"] if isinstance(labels[0], str) else [1, 1, 2]
    with pytest.raises(ValueError, match=r"missing label \(NaN.*position 1"):
        MultiFValidation.from_predictions(labels, other)
    with pytest.raises(ValueError, match=r"missing label \(NaN.*position 1"):
        MultiFValidation.from_predictions(other, labels, classes=[1.0, 2.0, "a", "b"])


def test_rows_are_not_label_vectors_columns_are() -> None:
    row, col = np.array([[0, 1, 1]]), np.array([[0], [1], [1]])
    for call in (
        lambda: MultiFValidation.from_predictions(row, row),
        lambda: MultiFValidation.from_predictions(row, row, classes=2),
        lambda: BinFValidation.from_predictions(row, row),
    ):
        with pytest.raises(ValueError, match=r"\(1, n\) row is not a label vector"):
            call()
    v = MultiFValidation.from_predictions(col, np.array([0, 1, 0]))
    assert v.accuracy == pytest.approx(2 / 3)
    b = BinFValidation.from_predictions(col, col.ravel())
    assert b.f1 == 1.0


def test_same_label_rule_across_inputs() -> None:
    y, p = [3, 1, 3, 2], [3, 3, 3, 2]
    want = f1_score(y, p, average="macro")
    for e, q in [
        (y, p),
        (np.array(y, dtype=np.float32), np.array(p, dtype=np.int8)),
        (pd.Series(y), pd.Series(p, dtype="Int64")),
        ([float(v) for v in y], p),
        (np.array(y, dtype=object), np.array(p, dtype=np.uint64)),
    ]:
        assert MultiFValidation.from_predictions(e, q).macro_f == pytest.approx(want)
    big = [2**64 + 1, 2**64, 2**64 + 1]
    v = MultiFValidation.from_predictions(big, [2**64 + 1, 2**64 + 1, 2**64 + 1])
    assert v.classes == (2**64, 2**64 + 1) and v.accuracy == pytest.approx(2 / 3)


def test_coerce_labels_rule() -> None:
    assert coerce_labels([1.0, 2.0, True], name="y").tolist() == [1, 2, 1]
    assert coerce_labels(np.array(["a", "b"]), name="y").dtype.kind == "U"  # as given, read-only
    assert coerce_labels(np.array([b"a"]), name="y").tolist() == ["a"]
    arr = np.array([1, 2])
    out = coerce_labels(arr, name="y")
    assert out is not arr and not out.flags.writeable and arr.flags.writeable
    with pytest.raises(TypeError, match=r"non-integral label 0\.5"):
        coerce_labels([0.5, 1.0], name="y")
    with pytest.raises(TypeError, match="complex"):
        coerce_labels(np.array([1j]), name="y")
    with pytest.raises(ValueError, match="single value"):
        coerce_labels(np.int64(3), name="y")
    with pytest.raises(TypeError, match=r"y holds number labels .* z holds string labels"):
        coerce_label_pair([1], ["1"], names=("y", "z"))


def test_binary_string_labels_point_to_positive() -> None:
    with pytest.raises(ValueError, match=r"set positive= \(--positive"):
        BinFValidation.from_predictions(["yes", "no"], ["no", "no"])
    b = BinFValidation.from_predictions(["yes", "no"], ["no", "no"], positive="yes")
    assert (b.counts.tp, b.counts.fn, b.counts.tn) == (0, 1, 1)


def test_complex_scores_are_refused() -> None:
    from fmacro.optimize import per_class

    with pytest.raises(TypeError, match="complex"):
        per_class(np.array([[0.5 + 1j], [0.1]]), np.array([[1], [0]]))
