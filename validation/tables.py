"""Validations as plain records and tables: one schema for every kind.

:func:`validation_record` gives a JSON-safe dict (the ``to_dict`` of every validation and the
JSON of ``fmacro evaluate``); :func:`validation_frame` a pandas DataFrame with one row per
class and one per average (pandas stays optional: imported on call).

The record::

    kind             "binary" | "multiclass" | "multilabel"
    beta, n_samples  (n_samples: the total weight when weighted)
    weighted         true when the counts are sums of sample weights (floats)
    zero_division    0.0, 1.0, or the string "nan" (the policy)
    classes          class names as text, str() of each (binary: the positive label);
                     the per_class rows come in the same order, so position tells apart
                     two names with the same text (multi-label columns 1 and "1")
    per_class        [{class, precision, recall, f, support, tp, fp, fn}, ...]
    averages         {micro, macro, weighted, f_macro: {precision, recall, f}}
                     (f_macro: macro precision, macro recall and F of the two)
    measures         accuracy / specificity / g (binary), accuracy (multiclass),
                     samples_f / subset_accuracy / hamming_loss (multi-label)
    confusion_matrix rows = expected class, columns = predicted (multiclass; else null);
                     for many classes counted sparsely, {n_classes, expected, predicted,
                     count}: the occurring cells as parallel lists of class indices

An *undefined value* (a 0/0 measure under ``zero_division=nan``, or an average over no
defined class) is ``null``; the policy itself is written ``"nan"``, so the two never mix.

The record is a report (the JSON of ``fmacro evaluate``): class names are written as text.
The DataFrame keeps them as the validation holds them (``1`` and ``"1"`` are two rows), as
:mod:`fmacro.validation.names` has it for DataFrames.

The validations reach this module through their shared base
(:class:`fmacro.validation.base.ValidationBase`: ``to_dict`` and ``to_pandas``), and this
module never imports them: it dispatches on the ``kind`` a validation class declares and
reads what that kind exposes:

``"binary"``      ``counts``, ``positive``, ``precision``, ``recall``, ``f_beta``,
                  ``accuracy``, ``specificity``, ``g``
``"multiclass"``  the :class:`~fmacro.validation.averages.ClassAverages` measures,
                  ``classes``, ``confusion``, ``accuracy``
``"multilabel"``  the :class:`~fmacro.validation.averages.ClassAverages` measures,
                  ``labels``, ``n_labels``, ``n_samples``, ``sample_counts``, ``samples_f``,
                  ``subset_accuracy``, ``hamming_loss``

(every kind: ``beta`` and ``zero_division``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, cast

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

    from fmacro.validation.averages import ClassAverages

__all__ = ["ValidationKind", "validation_frame", "validation_record"]

ValidationKind = Literal["binary", "multiclass", "multilabel"]
"""The ``kind`` of a validation: the record's first field, and what this module reads."""

_AVERAGES = ("micro", "macro", "weighted")


def _value(x: Any) -> Any:
    """A JSON-safe number: NaN (undefined) becomes None."""
    if isinstance(x, (np.integer, int)) and not isinstance(x, bool):
        return int(x)
    x = float(x)
    return None if math.isnan(x) else x


def _policy(zero_division: float) -> float | str:
    return "nan" if math.isnan(zero_division) else float(zero_division)


def _class_rows(v: ClassAverages, names: list[str]) -> list[dict[str, Any]]:
    c = v.class_counts
    columns = {
        "precision": v.per_class_precision,
        "recall": v.per_class_recall,
        "f": v.per_class_f,
        "support": c.support,
        "tp": c.tp,
        "fp": c.fp,
        "fn": c.fn,
    }
    return [
        {"class": name, **{key: _value(col[k]) for key, col in columns.items()}}
        for k, name in enumerate(names)
    ]


def _averages(v: ClassAverages) -> dict[str, dict[str, Any]]:
    out = {
        avg: {m: _value(getattr(v, f"{avg}_{m}")) for m in ("precision", "recall", "f")}
        for avg in _AVERAGES
    }
    out["f_macro"] = {
        "precision": _value(v.macro_precision),
        "recall": _value(v.macro_recall),
        "f": _value(v.f_macro),
    }
    return out


def _binary_record(v: Any) -> dict[str, Any]:
    c = v.counts
    row = {
        "class": str(v.positive),
        "precision": _value(v.precision),
        "recall": _value(v.recall),
        "f": _value(v.f_beta),
        "support": c.tp + c.fn,
        "tp": c.tp,
        "fp": c.fp,
        "fn": c.fn,
    }
    pr = {"precision": row["precision"], "recall": row["recall"], "f": row["f"]}
    return {
        "kind": "binary",
        "beta": v.beta,
        "zero_division": _policy(v.zero_division),
        "n_samples": c.n_samples,
        "weighted": c.weighted,
        "classes": [str(v.positive)],
        "per_class": [row],
        # One class: every average is the positive class's own measure.
        "averages": {name: dict(pr) for name in (*_AVERAGES, "f_macro")},
        "measures": {
            "accuracy": _value(v.accuracy),
            "specificity": _value(v.specificity),
            "g": _value(v.g),
            "tn": c.tn,
        },
        "confusion_matrix": None,
    }


def _confusion_record(confusion: Any) -> Any:
    """Dense rows, or for a sparse matrix its occurring cells as three parallel lists."""
    from fmacro.validation.sparse_confusion import SparseConfusionMatrix

    if isinstance(confusion, SparseConfusionMatrix):
        return {
            "n_classes": confusion.n_classes,
            "expected": confusion.expected.tolist(),
            "predicted": confusion.predicted.tolist(),
            "count": confusion.counts.tolist(),
        }
    return confusion.matrix.tolist()


def _multiclass_record(v: Any) -> dict[str, Any]:
    names = [str(c) for c in v.classes]
    return {
        "kind": "multiclass",
        "beta": v.beta,
        "zero_division": _policy(v.zero_division),
        "n_samples": v.confusion.n_samples,
        "weighted": v.confusion.weighted,
        "classes": names,
        "per_class": _class_rows(v, names),
        "averages": _averages(v),
        "measures": {"accuracy": _value(v.accuracy)},
        "confusion_matrix": _confusion_record(v.confusion),
    }


def _multilabel_record(v: Any) -> dict[str, Any]:
    names = [str(c) for c in _held_names(v)]
    return {
        "kind": "multilabel",
        "beta": v.beta,
        "zero_division": _policy(v.zero_division),
        "n_samples": (
            float(v.sample_counts.row_weights().sum()) if v.class_counts.weighted else v.n_samples
        ),
        "weighted": v.class_counts.weighted,
        "classes": names,
        "per_class": _class_rows(v, names),
        "averages": _averages(v),
        "measures": {
            "samples_f": _value(v.samples_f),
            "subset_accuracy": _value(v.subset_accuracy),
            "hamming_loss": _value(v.hamming_loss),
        },
        "confusion_matrix": None,
    }


_RECORDS: dict[str, Callable[[Any], dict[str, Any]]] = {
    "binary": _binary_record,
    "multiclass": _multiclass_record,
    "multilabel": _multilabel_record,
}


def _kind(v: Any) -> ValidationKind:
    """The ``kind`` ``v`` declares; ``TypeError`` for anything but a fmacro validation."""
    kind = getattr(v, "kind", None)
    if not (isinstance(kind, str) and kind in _RECORDS):
        raise TypeError(f"v must be a fmacro validation, got {type(v).__name__}")
    return cast(ValidationKind, kind)


def validation_record(v: Any) -> dict[str, Any]:
    """The JSON-safe record of a binary, multiclass or multi-label validation (schema above)."""
    return _RECORDS[_kind(v)](v)


def _held_names(v: Any) -> Sequence[Any]:
    """The class names as ``v`` holds them: the positive label, the classes or the labels."""
    kind = _kind(v)
    names: Sequence[Any]
    if kind == "binary":
        names = [v.positive]
    elif kind == "multiclass":
        names = v.classes
    else:
        names = v.labels if v.labels is not None else range(v.n_labels)
    return names


def _class_names(v: Any) -> list[Any]:
    """The class names of a validation, as it holds them (numpy scalars as Python ones)."""
    return [c.item() if isinstance(c, np.generic) else c for c in _held_names(v)]


def validation_frame(v: Any) -> pd.DataFrame:
    """Per-class rows, then ``micro avg``, ``macro avg``, ``weighted avg`` and ``F-macro``.

    Columns ``precision, recall, f`` (float, undefined = NaN) and ``support, tp, fp, fn``
    (nullable integers; the ``micro avg`` row holds the pooled counts, the other averages
    none). The ``F-macro`` row holds macro precision, macro recall and F of the two (not the
    mean of the per-class F, which is the ``macro avg`` row's ``f``). Needs pandas.
    """
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - pandas is in the test extra
        raise ImportError("to_pandas needs pandas: pip install pandas") from exc
    record = validation_record(v)
    support = sum(row["support"] for row in record["per_class"])
    # Rows by position, named by the validation's own class names: keyed by the record's
    # text, two names with the same text (1 and "1") would merge into one row.
    index: list[Any] = list(_class_names(v))
    rows = [{k: row[k] for k in row if k != "class"} for row in record["per_class"]]
    labels = {"micro": "micro avg", "macro": "macro avg", "weighted": "weighted avg"}
    labels["f_macro"] = "F-macro"
    pooled = {k: sum(row[k] for row in record["per_class"]) for k in ("tp", "fp", "fn")}
    for key, label in labels.items():
        # micro pools the counts, so its row carries them; other averages have none.
        counts = pooled if key == "micro" else {}
        rows.append({**record["averages"][key], "support": support, **counts})
        index.append(label)
    frame = pd.DataFrame(rows, index=pd.Index(index, dtype=object))
    frame = frame[["precision", "recall", "f", "support", "tp", "fp", "fn"]]
    floats = dict.fromkeys(("precision", "recall", "f"), "float64")
    # Weighted counts are sums of weights (floats); only integer counts make Int64 columns.
    count_dtype = "Float64" if record["weighted"] else "Int64"
    return frame.astype({**floats, **dict.fromkeys(("support", "tp", "fp", "fn"), count_dtype)})
