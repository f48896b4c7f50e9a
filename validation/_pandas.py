"""Class names carried by pandas inputs: categorical categories and DataFrame columns.

pandas stays optional: nothing here imports it. Inputs are recognised by duck typing
(a categorical dtype has ``categories``; a DataFrame has ``columns`` and two dimensions),
so plain numpy inputs pass through untouched (both helpers return ``None``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["categorical_classes", "frame_columns"]


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


def frame_columns(
    expected: Any,
    predicted: Any,
    *,
    names: tuple[str, str] = ("expected", "predicted"),
    remedy: str = " or pass labels=",
) -> list[Any] | None:
    """The column names of DataFrame matrices, else ``None``.

    ``names`` are the two inputs' argument names in the error message; ``remedy`` ends
    its advice (after "align them (...)").

    Raises
    ------
    ValueError
        Both are DataFrames with different columns.
    """

    def columns(y: Any) -> list[Any] | None:
        if getattr(y, "ndim", None) != 2 or not hasattr(y, "columns"):
            return None
        return list(y.columns.tolist())

    e, p = columns(expected), columns(predicted)
    if e is not None and p is not None and e != p:
        first, second = names
        raise ValueError(
            f"{first} and {second} are DataFrames with different columns ({e} and {p}); "
            f"align them ({second}[{first}.columns]){remedy}"
        )
    return e if e is not None else p
