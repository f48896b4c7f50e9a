"""The columns of :class:`~fmacro.optimize.sklearn.FMacroThresholdClassifier`'s data.

An estimator's ``predict_proba`` or ``decision_function`` output as one float64 score
column per class (:func:`multilabel_scores`, :func:`multiclass_scores`), and the label
columns of a DataFrame ``y`` (:func:`frame_columns`), checked against the fitted ones by
:mod:`fmacro.validation.names` (:func:`check_label_columns`). Internal:
:mod:`fmacro.optimize.sklearn` and the displays' ``from_estimator``
(:mod:`fmacro.optimize.plot._columns`) are its only users.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from fmacro.validation.checks import is_sparse
from fmacro.validation.names import ClassName, describe_names, name_key

__all__ = ["check_label_columns", "frame_columns", "multiclass_scores", "multilabel_scores"]


def multilabel_scores(est: Any, raw: Any, name: str, n_cols: int) -> NDArray[np.float64]:
    """Scores of a multi-label estimator (an array, or one array per label), one column
    per label."""
    if isinstance(raw, list):
        if len(raw) != n_cols:
            raise ValueError(
                f"{type(est).__name__}.{name} returned a list of {len(raw)} arrays, "
                f"expected one per label ({n_cols})"
            )
        est_classes = getattr(est, "classes_", None)
        cols = []
        for k, part in enumerate(raw):
            arr = np.asarray(part, dtype=np.float64)
            if arr.ndim == 1:
                cols.append(arr)
                continue
            ck = (
                np.asarray(est_classes[k])
                if isinstance(est_classes, list)
                else np.arange(arr.shape[1])
            )
            hit = np.flatnonzero(ck == 1)
            if hit.size:
                cols.append(arr[:, hit[0]])
            else:  # label constant 0 in this training part: never positive
                cols.append(
                    np.zeros(arr.shape[0])
                    if name == "predict_proba"
                    else np.full(arr.shape[0], -1.0)
                )
        return np.ascontiguousarray(np.column_stack(cols), dtype=np.float64)
    arr = np.asarray(raw.toarray() if is_sparse(raw) else raw, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[1] != n_cols:
        raise ValueError(
            f"{type(est).__name__}.{name} returned shape {arr.shape}; a multi-label "
            f"estimator must score each of the {n_cols} labels (an (n_samples, "
            f"{n_cols}) array or a list of {n_cols} per-label arrays)"
        )
    return np.ascontiguousarray(arr)


def multiclass_scores(
    est: Any, raw: Any, name: str, classes: NDArray[Any], n_cols: int
) -> NDArray[np.float64]:
    """Scores of a binary or multiclass estimator, one column per class of ``classes``.

    A class missing from the estimator's training part gets a score below every other.
    """
    arr = np.asarray(raw, dtype=np.float64)
    est_classes = np.asarray(getattr(est, "classes_", classes))
    if arr.ndim == 1:  # binary decision_function: score of est_classes[1]
        if est_classes.shape[0] != 2:
            raise ValueError(
                f"{type(est).__name__}.{name} returned 1-D scores but the estimator "
                f"has {est_classes.shape[0]} classes"
            )
        arr = np.column_stack([-arr, arr])
    if arr.ndim != 2 or arr.shape[1] != est_classes.shape[0]:
        raise ValueError(
            f"{type(est).__name__}.{name} returned shape {arr.shape}, expected "
            f"(n_samples, {est_classes.shape[0]}) for its classes"
        )
    if est_classes.shape[0] == n_cols and np.array_equal(est_classes, classes):
        return np.ascontiguousarray(arr)
    pos = np.searchsorted(classes, est_classes)
    pos = np.minimum(pos, n_cols - 1)
    if not np.array_equal(classes[pos], est_classes):
        raise ValueError(
            f"{type(est).__name__} has classes {est_classes.tolist()} not among the "
            f"classes of y {classes.tolist()}"
        )
    # a class missing from a training part is never scored: fill below every score
    fill = 0.0 if name == "predict_proba" else (float(arr.min()) - 1.0 if arr.size else 0.0)
    out = np.full((arr.shape[0], n_cols), fill)
    out[:, pos] = arr
    return out


def frame_columns(y: Any) -> list[Any] | None:
    """The column names of a DataFrame ``y`` (two dimensions and ``columns``), else None."""
    if getattr(y, "ndim", None) != 2 or not hasattr(y, "columns"):
        return None
    return list(y.columns.tolist())


def check_label_columns(given: tuple[ClassName, ...], fitted: tuple[ClassName, ...]) -> None:
    """Refuse DataFrame columns of ``y`` that are not the fitted label columns, in order.

    Names are compared by :mod:`fmacro.validation.names` (``1`` and ``"1"`` differ, NaN
    equals NaN).
    """
    keys = [name_key(n) for n in given]
    fitted_keys = [name_key(n) for n in fitted]
    if keys == fitted_keys:
        return
    fix = "y[clf.label_names_in_]"
    if set(keys) == set(fitted_keys):  # both lists hold unique names
        raise ValueError(
            "y has the label columns the classifier was fitted with, but in another order "
            f"({describe_names(given)} instead of {describe_names(fitted)}); as scikit-learn "
            "requires of X's feature names, they must come in the order seen at fit: "
            f"pass {fix}"
        )
    known, present = set(fitted_keys), set(keys)
    unseen = [n for n, k in zip(given, keys, strict=True) if k not in known]
    missing = [n for n, k in zip(fitted, fitted_keys, strict=True) if k not in present]
    parts = []
    if unseen:
        parts.append(f"unseen at fit: {describe_names(unseen)}")
    if missing:
        parts.append(f"seen at fit, yet now missing: {describe_names(missing)}")
    remedy = (
        f"select them: {fix}"
        if not missing
        else f"rename or add them so that {fix} selects the fitted labels"
    )
    raise ValueError(
        "y's columns must be the label columns the classifier was fitted with "
        f"({'; '.join(parts)}); {remedy}"
    )
