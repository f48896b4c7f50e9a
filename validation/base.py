"""The ``Validation`` protocol every validation object satisfies, and the base the three share.

:class:`ValidationBase` carries what the binary, multiclass and multi-label validations
have in common: ``to_dict`` and ``to_pandas`` (one schema, :mod:`fmacro.validation.tables`),
``report`` and ``str``. Each validation class declares its ``kind`` and the two parts of
its report; :mod:`fmacro.validation.tables` reads a validation by its ``kind`` and never
imports the classes, so the imports only go one way: class -> base -> tables.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol, runtime_checkable

from fmacro.validation.tables import ValidationKind, validation_frame, validation_record

__all__ = ["Validation", "ValidationBase", "ValidationKind"]


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


class ValidationBase:
    """Base of the validation classes: their record, DataFrame, report and ``str``.

    Not an attrs class and holds no state (empty ``__slots__``), so a frozen, slotted attrs
    subclass stays as it is. A subclass sets ``kind`` and supplies ``_report_title()``
    and ``_report_body(digits)``.
    """

    __slots__ = ()

    kind: ClassVar[ValidationKind]
    """``"binary"``, ``"multiclass"`` or ``"multilabel"``: the ``kind`` of :meth:`to_dict`."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe record in the schema every validation shares.

        See :mod:`fmacro.validation.tables`: per-class rows, micro/macro/weighted/F-macro
        averages, kind-specific measures; undefined values are ``None``.
        """
        return validation_record(self)

    def to_pandas(self) -> Any:
        """A pandas DataFrame: one row per class, then the averages (needs pandas)."""
        return validation_frame(self)

    def report(self, digits: int = 4) -> str:
        """A readable report: a title line, then the counts and measures as a table.

        Binary: one row per measure. Multiclass and multi-label: one row per class, then
        micro, macro, weighted and F-macro averages and the kind's own measures.
        """
        return self._report_title() + "\n" + self._report_body(digits)

    def __str__(self) -> str:
        return self.report()

    def bootstrap(
        self, n_resamples: int = 1000, *, seed: int | None = None, method: str = "poisson"
    ) -> Any:
        """Resample the objects ``n_resamples`` times: intervals for every measure.

        Returns a :class:`~fmacro.validation.bootstrap.BootstrapResult`; its
        ``interval("f_macro", level=0.95)`` is a percentile interval. ``method``:
        ``"poisson"`` (default: each object drawn Poisson(1) times, keyed on (seed,
        object position), so pooled chunks give the in-memory result bit for bit) or
        ``"multinomial"`` (the classic bootstrap). ``seed=None`` draws a seed, recorded
        on the result. Needs the per-object outcomes a validation keeps when built with
        ``keep_outcomes=True`` (see :mod:`fmacro.validation.bootstrap`,
        docs/uncertainty.md).
        """
        from fmacro.validation.bootstrap import bootstrap

        return bootstrap(self, n_resamples, seed=seed, method=method)

    def _report_title(self) -> str:
        """The first line of :meth:`report`: the class and its settings."""
        raise NotImplementedError

    def _report_body(self, digits: int) -> str:
        """:meth:`report` after its title: the table (and notes) with ``digits`` decimals."""
        raise NotImplementedError
