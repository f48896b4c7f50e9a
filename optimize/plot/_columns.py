"""Which column a display draws: a class name or an index, and a fitted estimator's scores.

The rule for ``column=`` (:func:`column_index`), shared by every display that draws one
class or a chosen set of labels:

* When the columns have names (``result.classes``, a DataFrame's columns, an estimator's
  ``classes_``) and **some name is an int**, an int ``column`` is a *name*, never a
  position: with classes ``[1, 2, 3]``, ``column=1`` is class ``1`` (the first column), as
  ``Series[k]`` on an integer index in pandas and ``pos_label`` in scikit-learn. An int
  that is not a name is refused, naming the valid ones.
* When no name is an int (str names, or no names at all), an int is a position
  ``0 .. n-1`` as before, and a str (float, bool) is looked up among the names.

Names keep their kind (:mod:`fmacro.validation.names`): ``1`` and ``"1"`` are different
names. Unknown names and out-of-range positions raise a ``ValueError`` that lists a few
valid names.

:func:`estimator_column` scores ``X`` with a fitted classifier and returns one column's
scores, labels and operating point (the tuned threshold of a
:class:`~fmacro.optimize.sklearn.FMacroThresholdClassifier`); scikit-learn is imported
only there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.validation.names import ClassName, check_class_names, describe_names, name_key

__all__ = ["EstimatorColumn", "column_index", "estimator_column"]


def _scalar(column: Any) -> Any:
    return column.item() if isinstance(column, np.generic) else column


def column_index(
    column: Any, names: Sequence[ClassName] | None, n_columns: int, what: str = "the result"
) -> int:
    """The position of ``column`` (a class name or an index) among ``n_columns`` columns.

    ``names`` are the columns' names (``None``: unnamed); ``what`` names their owner in
    error messages. See the module docstring for the rule.

    Raises
    ------
    TypeError
        ``column`` is neither an int nor a class name (str, float, bool).
    ValueError
        An unknown name, or a position outside ``0 .. n_columns - 1``.
    """
    column = _scalar(column)
    if not isinstance(column, (str, int, float)):  # bool is an int
        raise TypeError(f"column must be an int or a class name, got {type(column).__name__}")
    is_int = isinstance(column, int) and not isinstance(column, bool)
    if names is not None:
        names = list(names)
        ints_are_names = any(isinstance(n, int) and not isinstance(n, bool) for n in names)
        if not is_int or ints_are_names:
            keys = [name_key(n) for n in names]
            if name_key(column) in keys:
                return keys.index(name_key(column))
            raise ValueError(
                f"column {column!r} is not a class name of {what}; its names are "
                f"{describe_names(names)} ({len(names)} in all)"
                + (
                    " (its names are ints, so an int column is a name, not a position)"
                    if is_int
                    else ""
                )
            )
    elif not is_int:
        raise ValueError(
            f"column {column!r} is a name, but {what} has no class names; pass a position "
            f"0 .. {n_columns - 1} (or DataFrame scores / a result with classes)"
        )
    position = int(column)
    if not 0 <= position < n_columns:
        shown = describe_names(names) if names is not None else f"0 .. {n_columns - 1}"
        raise ValueError(
            f"column {column} is out of range: {what} has {n_columns} columns ({shown})"
        )
    return position


@attrs.frozen(eq=False)
class EstimatorColumn:
    """One class's scores and 0/1 labels from a fitted estimator, and its operating point."""

    scores: NDArray[np.float64]
    labels: NDArray[np.bool_]
    name: str
    threshold: float | None  # None: the class's own F_beta-optimal cut
    beta: float
    estimator_name: str


def _response(est: Any, response_method: str) -> tuple[Any, str]:
    names: tuple[str, ...]
    if response_method == "auto":
        names = ("predict_proba", "decision_function")
    elif response_method in ("predict_proba", "decision_function"):
        names = (response_method,)
    else:
        raise ValueError(
            "response_method must be 'auto', 'predict_proba' or 'decision_function', "
            f"got {response_method!r}"
        )
    for name in names:
        if hasattr(est, name):
            return getattr(est, name), name
    raise TypeError(
        f"{type(est).__name__} has no {' or '.join(names)}; a display needs a classifier "
        "that scores its classes"
    )


def estimator_column(
    estimator: Any, X: Any, y: Any, column: Any, response_method: str, beta: float | None
) -> EstimatorColumn:
    """Scores of ``X`` by a fitted ``estimator`` and the labels ``y`` of one class column.

    ``column=None`` is the positive class of a binary target (``pos_label_`` of an
    ``FMacroThresholdClassifier`` tuned for it, else ``classes_[1]``), else the first column.
    """
    from sklearn.utils.multiclass import type_of_target
    from sklearn.utils.validation import check_is_fitted

    from fmacro.optimize._sklearn_columns import multiclass_scores, multilabel_scores
    from fmacro.optimize.inputs import as_binary_labels
    from fmacro.optimize.sklearn import FMacroThresholdClassifier
    from fmacro.validation.checks import check_beta
    from fmacro.validation.frames import frame_names

    check_is_fitted(estimator)
    est_name = type(estimator).__name__
    names: tuple[ClassName, ...] | None
    k: int
    if isinstance(estimator, FMacroThresholdClassifier):
        if response_method != "auto":
            raise ValueError(
                "response_method must be 'auto' for an FMacroThresholdClassifier: its "
                "thresholds hold for its own scores"
            )
        scores = estimator._scores(estimator.estimator_, X)
        y_arr = estimator._target_checked(y)
        classes = estimator.classes_
        multilabel = bool(estimator._multilabel)
        if multilabel:
            given = getattr(estimator, "label_names_in_", None)
            names = None if given is None else check_class_names(given)
        else:
            names = check_class_names(classes)
        f_beta = estimator.objective_ == "f_beta"
        pos = estimator._pos if f_beta else None
        default = pos if pos is not None else int(classes.size == 2 and not multilabel)
        k = default if column is None else column_index(column, names, scores.shape[1], est_name)
        if pos is not None and k != pos:
            raise ValueError(
                f"{est_name} was tuned for one class, pos_label_={estimator.pos_label_!r} "
                f"(objective_='f_beta'): column {column!r} has no threshold of its own; "
                "draw the positive class (column=None)"
            )
        threshold = float(estimator.thresholds_[0 if f_beta else k])
        b = check_beta(estimator.beta if beta is None else beta)
    else:
        y_np = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
        multilabel = type_of_target(y_np, input_name="y") == "multilabel-indicator"
        fn, rname = _response(estimator, response_method)
        raw = fn(X)
        if multilabel:
            y_arr = as_binary_labels(y_np, "y")
            names = frame_names(y, "y")
            scores = multilabel_scores(estimator, raw, rname, y_arr.shape[1])
            classes = np.arange(y_arr.shape[1])
        else:
            if not hasattr(estimator, "classes_"):
                raise TypeError(f"{est_name} has no classes_; is it a fitted classifier?")
            classes = np.asarray(estimator.classes_)
            y_arr = y_np.reshape(-1)
            names = check_class_names(classes)
            scores = multiclass_scores(estimator, raw, rname, classes, classes.shape[0])
        default = int(classes.size == 2 and not multilabel)
        k = default if column is None else column_index(column, names, scores.shape[1], est_name)
        threshold = None
        b = check_beta(1.0 if beta is None else beta)
    name: Any
    if multilabel:
        labels = np.asarray(y_arr)[:, k] != 0
        name = names[k] if names is not None else k
    else:
        labels = np.asarray(y_arr) == classes[k]
        name = _scalar(classes[k])
    if labels.shape[0] != scores.shape[0]:
        raise ValueError(f"X has {scores.shape[0]} rows but y has {labels.shape[0]}")
    return EstimatorColumn(
        np.ascontiguousarray(scores[:, k]), labels, str(name), threshold, b, est_name
    )
