"""Results as records and tables: validations, cross-validations and threshold results."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from sklearn.metrics import classification_report, multilabel_confusion_matrix

from fmacro import optimize
from fmacro.crossval import KFold, cross_validate
from fmacro.validation import BinFValidation, MultiFValidation, MultiLabelFValidation

EXPECTED = ["cat", "cat", "dog", "eel", "eel", "dog", "cat"]
PREDICTED = ["cat", "dog", "dog", "eel", "cat", "dog", "eel"]


def test_multiclass_record_and_frame_agree_with_scikit_learn() -> None:
    v = MultiFValidation.from_predictions(EXPECTED, PREDICTED)
    sk = classification_report(EXPECTED, PREDICTED, output_dict=True, zero_division=0)
    record = v.to_dict()
    assert record["kind"] == "multiclass" and record["classes"] == ["cat", "dog", "eel"]
    for row in record["per_class"]:
        ref = sk[row["class"]]
        assert row["precision"] == pytest.approx(ref["precision"])
        assert row["recall"] == pytest.approx(ref["recall"])
        assert row["f"] == pytest.approx(ref["f1-score"])
        assert row["support"] == ref["support"]
    assert record["averages"]["macro"]["f"] == pytest.approx(sk["macro avg"]["f1-score"])
    assert record["averages"]["weighted"]["f"] == pytest.approx(sk["weighted avg"]["f1-score"])
    assert record["measures"]["accuracy"] == pytest.approx(sk["accuracy"])
    assert record["confusion_matrix"] == v.confusion.matrix.tolist()
    assert record["averages"]["f_macro"]["f"] == pytest.approx(v.f_macro)
    frame = v.to_pandas()
    assert list(frame.index) == [
        "cat",
        "dog",
        "eel",
        "micro avg",
        "macro avg",
        "weighted avg",
        "F-macro",
    ]
    assert frame.loc["macro avg", "f"] == pytest.approx(sk["macro avg"]["f1-score"])
    assert frame.loc["F-macro", "f"] == pytest.approx(v.f_macro)
    assert frame.loc["micro avg", "tp"] == sum(
        a == b for a, b in zip(EXPECTED, PREDICTED, strict=True)
    )


def test_one_schema_for_every_kind_and_strict_json() -> None:
    rng = np.random.default_rng(2)
    y_true = (rng.random((30, 4)) < 0.3).astype(int)
    y_pred = (rng.random((30, 4)) < 0.3).astype(int)
    y_true[:, 3] = 0
    y_pred[:, 3] = 0  # a label that is never true nor predicted: undefined under nan
    validations = [
        BinFValidation.from_predictions([1, 0, 1, 1], [1, 1, 0, 1], zero_division=math.nan),
        MultiFValidation.from_predictions(EXPECTED, PREDICTED, zero_division=math.nan),
        MultiLabelFValidation.from_predictions(y_true, y_pred, zero_division=math.nan),
    ]
    keys = None
    for v in validations:
        record = v.to_dict()
        text = json.dumps(record, allow_nan=False)  # undefined values are null, not NaN
        assert record["zero_division"] == "nan"
        keys = keys or set(record)
        assert set(record) == keys
        assert set(record["per_class"][0]) == {
            "class",
            "precision",
            "recall",
            "f",
            "support",
            "tp",
            "fp",
            "fn",
        }
        assert json.loads(text) == record
    ml = validations[2].to_dict()
    assert ml["per_class"][3]["precision"] is None and ml["per_class"][3]["recall"] is None
    mcm = multilabel_confusion_matrix(y_true, y_pred)
    assert [r["tp"] for r in ml["per_class"]] == mcm[:, 1, 1].tolist()
    assert validations[0].to_dict()["per_class"][0]["tp"] == 2


def test_record_table_and_report_are_written_once_on_the_shared_base() -> None:
    from fmacro.validation.base import ValidationBase
    from fmacro.validation.tables import validation_frame, validation_record

    classes = (BinFValidation, MultiFValidation, MultiLabelFValidation)
    assert [cls.kind for cls in classes] == ["binary", "multiclass", "multilabel"]
    for cls in classes:
        for name in ("to_dict", "to_pandas", "report", "__str__"):
            assert getattr(cls, name) is getattr(ValidationBase, name), (cls, name)
    # tables reads a validation by its kind, never by its class: anything else is refused
    for bad in (object(), 42, EXPECTED):
        with pytest.raises(TypeError, match="must be a fmacro validation"):
            validation_record(bad)
        with pytest.raises(TypeError, match="must be a fmacro validation"):
            validation_frame(bad)


def test_cross_validation_table_has_folds_pooled_mean_std() -> None:
    rng = np.random.default_rng(3)
    X = rng.random((60, 3))
    y = (X[:, 0] > 0.5).astype(int)

    def fit(X_train, y_train):  # type: ignore[no-untyped-def]
        return lambda X_val: (X_val[:, 0] > 0.4).astype(int)

    cv = cross_validate(fit, X, y, KFold(k=4, seed=0))
    frame = cv.to_pandas()
    assert list(frame.index) == ["fold 0", "fold 1", "fold 2", "fold 3", "pooled", "mean", "std"]
    np.testing.assert_allclose(frame["score"].iloc[:4], cv.fold_scores)
    assert frame.loc["pooled", "score"] == pytest.approx(cv.pooled.score)
    assert frame.loc["mean", "score"] == pytest.approx(cv.mean)
    record = cv.to_dict()
    json.dumps(record, allow_nan=False)
    assert record["pooled"] == cv.pooled.to_dict()
    assert sum(f["n_validation"] for f in record["folds"]) == 60


def test_threshold_result_table_counts_match_its_predictions() -> None:
    rng = np.random.default_rng(4)
    labels = (rng.random((50, 5)) < 0.3).astype(int)
    labels[:, 4] = 0  # no positives: not kept, threshold +inf
    scores = labels * 0.3 + rng.random((50, 5))
    points = optimize.class_points(scores, labels)
    result = optimize.fixed_point(points=points).with_classes(list("abcde"))
    frame = result.to_pandas(points)
    assert list(frame.index) == list("abcde")
    predicted = result.apply(scores)
    kept = frame["kept"].to_numpy()
    np.testing.assert_array_equal(frame["predicted"].to_numpy()[kept], predicted.sum(0)[kept])
    np.testing.assert_array_equal(
        frame["tp"].to_numpy()[kept], (predicted & (labels == 1)).sum(0)[kept]
    )
    assert frame.loc["e", "threshold"] == math.inf and not frame.loc["e", "kept"]
    with pytest.raises(ValueError, match="do not match"):
        result.to_pandas(optimize.class_points(scores[:, :3], labels[:, :3]))


def test_to_pandas_of_fractional_weights_has_float_counts() -> None:
    # weighted counts are sums of weights: 0.5 is a count, not a failed cast to Int64
    w = [1, 2, 1, 0.5]
    frames = [
        MultiFValidation.from_predictions([0, 1, 2, 2], [0, 2, 2, 1], sample_weight=w).to_pandas(),
        BinFValidation.from_predictions([1, 0, 1, 1], [1, 1, 1, 0], sample_weight=w).to_pandas(),
        MultiLabelFValidation.from_predictions(
            np.array([[1, 0], [0, 1], [1, 1], [0, 1]]),
            np.array([[1, 1], [0, 1], [0, 1], [1, 0]]),
            sample_weight=w,
        ).to_pandas(),
    ]
    for frame in frames:
        assert str(frame["tp"].dtype) == "Float64"
    multiclass = frames[0]
    assert multiclass.loc[2, "fp"] == 2.0 and multiclass.loc[1, "fp"] == 0.5
    assert multiclass.loc["micro avg", "support"] == 4.5
