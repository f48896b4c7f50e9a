"""The ``Validation`` protocol every validation object satisfies."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["Validation"]


@runtime_checkable
class Validation(Protocol):
    """A scored, immutable evaluation of a classifier.

    ``score`` is the one number a model search maximizes (F_beta for binary problems,
    F-macro for multiclass and multi-label ones); ``beta`` and ``zero_division`` record
    how it was computed; ``report()`` renders the full table.
    """

    @property
    def score(self) -> float: ...

    @property
    def beta(self) -> float: ...

    @property
    def zero_division(self) -> float: ...

    def report(self, digits: int = 4) -> str: ...
