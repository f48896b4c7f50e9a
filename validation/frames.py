"""Class names carried by pandas inputs: categorical categories and DataFrame columns.

pandas stays optional: nothing here imports it. Inputs are recognised by duck typing
(a categorical dtype has ``categories``; a DataFrame has ``columns`` and two dimensions),
so plain numpy inputs pass through untouched (the helpers return ``None``). DataFrame
column names follow :mod:`fmacro.validation.names`: kinds kept, a NaN name equal to
another NaN name, a repeated name refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fmacro.validation.names import (
    ClassName,
    check_class_names,
    describe_names,
    name_key,
    same_names,
)

__all__ = ["categorical_classes", "frame_columns", "frame_names", "unique_texts"]


def _categories(values: Any) -> list[Any] | None:
    """The categories of a pandas Categorical or categorical Series, in category order."""
    dtype = getattr(values, "dtype", None)
    categories = getattr(dtype, "categories", None)
    if categories is None or not hasattr(dtype, "ordered"):
        return None
    return list(categories.tolist())


def categorical_classes(expected: Any, predicted: Any) -> list[Any] | None:
    """The classes named by categorical labels (categories in their order), else ``None``.

    When both are categorical their categories must be the same list (a class order
    cannot come from two disagreeing sources).

    Raises
    ------
    ValueError
        Both are categorical with different categories.
    """
    e, p = _categories(expected), _categories(predicted)
    if e is not None and p is not None and e != p:
        raise ValueError(
            f"expected and predicted are categoricals with different categories ({e} and {p}); "
            "give them the same categories (Series.cat.set_categories) or pass the classes"
        )
    return e if e is not None else p


def unique_texts(names: Sequence[ClassName]) -> list[str] | None:
    """``str`` of each name, or ``None`` when two names have the same text."""
    texts = [str(n) for n in names]
    return texts if len(set(texts)) == len(texts) else None


def frame_names(x: Any, name: str) -> tuple[ClassName, ...] | None:
    """The column names of a DataFrame ``x`` by the class-name rule, else ``None``.

    Raises
    ------
    TypeError
        A column name is not a str, int, float or bool (e.g. a tuple of a MultiIndex).
    ValueError
        Two columns have the same name (the message names ``name`` and the repeats).
    """
    if getattr(x, "ndim", None) != 2 or not hasattr(x, "columns"):
        return None
    return check_class_names(x.columns.tolist(), f"{name}.columns")


def frame_columns(
    expected: Any,
    predicted: Any,
    *,
    names: tuple[str, str] = ("expected", "predicted"),
    remedy: str = " or pass labels=",
) -> list[ClassName] | None:
    """The column names of DataFrame matrices, else ``None``.

    Names are compared by :func:`fmacro.validation.names.same_names` (kinds kept, NaN
    equal to NaN). ``names`` are the two inputs' argument names in the error message;
    ``remedy`` ends its advice.

    Raises
    ------
    ValueError
        Both are DataFrames with different columns, or one has a repeated column name.
    """
    first, second = names
    e, p = frame_names(expected, first), frame_names(predicted, second)
    if e is not None and p is not None and not same_names(e, p):
        shown = f"({describe_names(e)} and {describe_names(p)})"
        text_e, text_p = unique_texts(e), unique_texts(p)
        if {name_key(c) for c in e} == {name_key(c) for c in p}:
            advice = f"align them ({second}[{first}.columns]){remedy}"
        elif text_e is not None and text_e == text_p:
            advice = (
                "their names are equal only as text (names keep their kind, and a CSV header "
                "turns 0 into '0'); if they are the same classes, name them so "
                f"({second}.columns = {first}.columns){remedy}"
            )
        elif text_e is not None and text_p is not None and set(text_e) == set(text_p):
            advice = (
                "their names are equal only as text, in another order (names keep their "
                "kind, and a CSV header turns 0 into '0'); if they are the same classes, "
                f"select and name them ({second} = {second}.rename(columns=str)"
                f"[[str(c) for c in {first}.columns]].set_axis({first}.columns, axis=1)){remedy}"
            )
        else:
            advice = f"give them the same classes as columns{remedy}"
        raise ValueError(
            f"{first} and {second} are DataFrames with different columns {shown}; {advice}"
        )
    found = e if e is not None else p
    return None if found is None else list(found)
