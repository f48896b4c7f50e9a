"""Class names from pandas inputs, carried into threshold results and checked on use (private).

A threshold is tied to a column by its position. With DataFrames the columns have names,
and a new DataFrame whose columns come in another order would silently get the wrong
thresholds. So the threshold methods name their result's classes by the columns of
DataFrame scores or labels, and :meth:`ThresholdResult.apply` and
:func:`fmacro.optimize.evaluate_thresholds` refuse a DataFrame whose columns are not
those names in that order. Names follow :mod:`fmacro.validation.names`: they keep their
kind (``1`` and ``"1"`` are different columns, never paired by text), and a DataFrame with
a repeated column name is refused wherever it is given. pandas stays optional: inputs are
recognised by duck typing (two dimensions and a ``columns`` attribute); plain arrays pass
through untouched.

Every refusal that suggests a fix suggests one that works on the refused frame (tested).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, ParamSpec, Protocol, TypeVar

from fmacro.validation.frames import frame_columns, frame_names, unique_texts
from fmacro.validation.names import (
    ClassName,
    check_class_names,
    describe_names,
    name_key,
    same_names,
)

__all__ = ["check_frame_columns", "common_columns", "names_from_frames"]


class _Nameable(Protocol):
    def with_classes(self, classes: Any) -> Any: ...


P = ParamSpec("P")
R = TypeVar("R", bound=_Nameable)


def names_from_frames(*roles: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a threshold method so its result is named by DataFrame columns.

    ``roles`` are the names of the method's leading parameters that may be DataFrames
    (``"scores", "labels"``, or ``"probabilities"``), in their positional order. When
    any of them is a DataFrame, the result comes back ``with_classes(columns)``; two
    DataFrames must have the same columns, else a ``ValueError`` naming both. A DataFrame
    with a repeated column name is refused before the search runs.
    """

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(func)
        def named(*args: P.args, **kwargs: P.kwargs) -> R:
            given = [args[i] if i < len(args) else kwargs.get(role) for i, role in enumerate(roles)]
            names = _common_columns(given, roles)
            result = func(*args, **kwargs)
            return result if names is None else result.with_classes(names)

        return named

    return decorate


def _common_columns(inputs: Sequence[Any], roles: Sequence[str]) -> list[ClassName] | None:
    if len(inputs) == 1:
        names = frame_names(inputs[0], roles[0])
        return None if names is None else list(names)
    first, second = roles
    return common_columns(inputs[0], inputs[1], names=(first, second))


def common_columns(
    scores: Any, labels: Any, names: tuple[str, str] = ("scores", "labels")
) -> list[ClassName] | None:
    """The columns of DataFrame ``scores`` or ``labels``; refuse two that differ.

    Also refuses a DataFrame with a repeated column name (naming the argument).
    """
    return frame_columns(scores, labels, names=names, remedy=" or pass arrays")


def check_frame_columns(x: Any, classes: Sequence[ClassName] | None, name: str) -> None:
    """Refuse a DataFrame ``x`` whose columns are not ``classes``, in order.

    Plain arrays, and results without class names, are taken by position. A DataFrame with
    a repeated column name is refused in any case. Names are compared by the rule of
    :mod:`fmacro.validation.names` (kinds kept, NaN equal to NaN). The message suggests a
    fix that works on ``x`` when there is one: reordering (``x[list(result.classes)]``),
    selecting (columns beyond the classes), or renaming when the columns are the classes only
    as text (a CSV header turns ``0`` into ``"0"``).
    """
    columns = frame_names(x, name)
    if columns is None or classes is None:
        return
    expected = check_class_names(classes, "classes")
    assert expected is not None
    if same_names(columns, expected):
        return
    have = {name_key(c) for c in columns}
    want = {name_key(c) for c in expected}
    if have == want:
        raise ValueError(
            f"{name} has the thresholds' classes as columns but in another order; "
            f"reorder them: {name}[list(result.classes)]"
        )
    text_columns, text_classes = unique_texts(columns), unique_texts(expected)
    if text_columns is not None and text_columns == text_classes:
        raise ValueError(
            f"{name}'s columns are the thresholds' classes only as text: the columns are "
            f"{describe_names(columns)}, the classes {describe_names(expected)} (names keep "
            "their kind, and a CSV header turns 0 into '0'); if they are those classes, "
            f"name them so: {name}.columns = list(result.classes)"
        )
    if (
        text_columns is not None
        and text_classes is not None
        and set(text_columns) == set(text_classes)
    ):
        raise ValueError(
            f"{name}'s columns are the thresholds' classes only as text, and in another "
            f"order: the columns are {describe_names(columns)}, the classes "
            f"{describe_names(expected)} (names keep their kind, and a CSV header turns 0 "
            f"into '0'); if they are those classes, select and name them: {name} = "
            f"{name}.rename(columns=str)[[str(c) for c in result.classes]]"
            ".set_axis(list(result.classes), axis=1)"
        )
    missing = [c for c in expected if name_key(c) not in have]
    extra = [c for c in columns if name_key(c) not in want]
    message = (
        f"{name}'s columns are not the thresholds' classes: missing {missing[:5]}"
        f"{' ...' if len(missing) > 5 else ''}, unknown {extra[:5]}"
        f"{' ...' if len(extra) > 5 else ''}"
    )
    if not missing:
        message += f"; select them: {name}[list(result.classes)]"
    else:
        message += f"; {name} needs a column for each of the thresholds' classes"
    raise ValueError(message)
