"""Class names from pandas inputs, carried into threshold results and checked on use (private).

A threshold is tied to a column by its position. With DataFrames the columns have names,
and a new DataFrame whose columns come in another order would silently get the wrong
thresholds. So the threshold methods name their result's classes by the columns of
DataFrame scores or labels, and :meth:`ThresholdResult.apply` and
:func:`fmacro.optimize.evaluate_thresholds` refuse a DataFrame whose columns are not
those names in that order. pandas stays optional: inputs are recognised by duck typing
(two dimensions and a ``columns`` attribute); plain arrays pass through untouched.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, ParamSpec, Protocol, TypeVar

from fmacro.validation._pandas import frame_columns

__all__ = ["check_frame_columns", "common_columns", "names_from_frames"]


class _Nameable(Protocol):
    def with_classes(self, classes: Any) -> Any: ...


P = ParamSpec("P")
R = TypeVar("R", bound=_Nameable)


def _is_frame(x: Any) -> bool:
    return getattr(x, "ndim", None) == 2 and hasattr(x, "columns")


def names_from_frames(*roles: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a threshold method so its result is named by DataFrame columns.

    ``roles`` are the names of the method's leading parameters that may be DataFrames
    (``"scores", "labels"``, or ``"probabilities"``), in their positional order. When
    any of them is a DataFrame, the result comes back ``with_classes(columns)``; two
    DataFrames must have the same columns, else a ``ValueError`` naming both.
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


def _common_columns(inputs: Sequence[Any], roles: Sequence[str]) -> list[Any] | None:
    if len(inputs) == 1:
        return list(inputs[0].columns.tolist()) if _is_frame(inputs[0]) else None
    first, second = roles
    return common_columns(inputs[0], inputs[1], names=(first, second))


def common_columns(
    scores: Any, labels: Any, names: tuple[str, str] = ("scores", "labels")
) -> list[Any] | None:
    """The columns of DataFrame ``scores`` or ``labels``; refuse two that differ."""
    return frame_columns(scores, labels, names=names, remedy=" or pass arrays")


def check_frame_columns(x: Any, classes: Sequence[str] | None, name: str) -> None:
    """Refuse a DataFrame ``x`` whose columns are not ``classes``, in order.

    Plain arrays, and results without class names, are taken by position.
    """
    if classes is None or not _is_frame(x):
        return
    columns = [str(c) for c in x.columns.tolist()]
    expected = list(classes)
    if columns == expected:
        return
    if sorted(columns) == sorted(expected):
        raise ValueError(
            f"{name} has the thresholds' classes as columns but in another order; "
            f"reorder them: {name}[list(result.classes)]"
        )
    missing = [c for c in expected if c not in columns]
    extra = [c for c in columns if c not in expected]
    raise ValueError(
        f"{name}'s columns are not the thresholds' classes: missing {missing[:5]}"
        f"{' ...' if len(missing) > 5 else ''}, unknown {extra[:5]}"
        f"{' ...' if len(extra) > 5 else ''}; select them: {name}[list(result.classes)]"
    )
