"""The frozen result every threshold-search method returns, and its saved record.

A :class:`ThresholdResult` always satisfies the schema of its JSON record
(:meth:`ThresholdResult.to_dict` documents it field by field): the constructor, hence
:func:`attrs.evolve`, :meth:`ThresholdResult.from_dict` and :meth:`ThresholdResult.load`
refuse anything else, so a result read from a file or changed by ``evolve`` predicts exactly
what its fields say. Class names follow :mod:`fmacro.validation.names`.

This module holds :class:`ThresholdResult` and the macro P/R of cuts it is built from
(:func:`macro_pr`, :func:`evaluate_cuts`); the record's converters, writers and readers
are :mod:`fmacro.optimize.search.result_record`, and the per-column counts it carries
(:class:`TuningCounts`, re-exported here, its public home) with their table are
:mod:`fmacro.optimize.search.tuning_counts`.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, overload

import attrs
import numpy as np
from numpy.typing import ArrayLike, NDArray

from fmacro.optimize._frames import check_frame_columns
from fmacro.optimize.label_budget import apply_with_budget
from fmacro.optimize.rules import PerClassThresholds, TopK
from fmacro.optimize.search.points import ClassPoints, check_cuts
from fmacro.optimize.search.result_record import (
    FORMAT,
    VERSION,
    cut_values,
    diagnostics_mapping,
    freeze_mapping,
    json_float,
    json_value,
    method_name,
    read_record,
    real_number,
    thaw_mapping,
    threshold_values,
    tuning_from_json,
    tuning_to_json,
)
from fmacro.optimize.search.tuning_counts import ROUNDING, TuningCounts, class_table
from fmacro.validation.checks import check_beta, check_zero_division
from fmacro.validation.measures import f_beta_from_pr, macro_mean
from fmacro.validation.names import ClassName, check_class_names, names_to_json

__all__ = ["ThresholdResult", "TuningCounts", "evaluate_cuts", "freeze_mapping", "macro_pr"]


# One named converter per field (mypy's attrs plugin takes named functions only).
def _precision(value: Any) -> float:
    return real_number(value, "precision")


def _recall(value: Any) -> float:
    return real_number(value, "recall")


def _f(value: Any) -> float:
    return real_number(value, "f")


def _upper_bound(value: Any) -> float:
    return real_number(value, "upper_bound")


def _gap(value: Any) -> float:
    return real_number(value, "gap")


def _rebuild_result(fields: dict[str, Any]) -> ThresholdResult:
    return ThresholdResult(**fields)


def _macro_pr_at(points: ClassPoints, cuts: NDArray[np.int64]) -> tuple[float, float]:
    """The searches' plain means (``undefined="propagate"``) of the points at ``cuts``."""
    idx = points.indptr[:-1] + cuts
    p = macro_mean(points.precision[idx], undefined="propagate")
    r = macro_mean(points.recall[idx], undefined="propagate")
    return float(p), float(r)


def macro_pr(points: ClassPoints, cuts: ArrayLike) -> tuple[float, float]:
    """Macro precision P and macro recall R of local ``cuts`` (one per kept class)."""
    return _macro_pr_at(points, check_cuts(points, cuts))


def evaluate_cuts(
    points: ClassPoints, cuts: ArrayLike, beta: float = 1.0
) -> tuple[float, float, float]:
    """(P, R, F_beta(P, R)) of local ``cuts``.

    P and R are plain means over the kept classes; a NaN precision (empty cut under
    ``zero_division=nan``) makes P and F NaN: the searches' objective, which
    :func:`~fmacro.optimize.evaluate_thresholds` (the 0/0 rule, undefined classes left
    out) matches on every cut vector without an empty cut under ``nan``, hence on every
    search's answer (:mod:`fmacro.validation.measures` states the relation).
    """
    b = check_beta(beta)
    p, r = macro_pr(points, cuts)
    return p, r, float(f_beta_from_pr(p, r, b))


@attrs.frozen(eq=False)
class ThresholdResult:
    """Thresholds found by one method, with their F-macro and (maybe) a certificate.

    Every result satisfies the schema of :meth:`to_dict` (checked on construction, so also
    by :func:`attrs.evolve`); in particular its :attr:`rule` is derived from its fields and
    can never disagree with ``thresholds``.

    Attributes
    ----------
    thresholds : ndarray of float64, shape (n_columns,)
        One per ORIGINAL class column, in score space: predict positive iff
        ``score >= threshold``. Columns excluded from the optimization (no positives)
        get ``+inf`` (never predicted); ``-inf`` predicts every object. Never NaN, except in
        a ``top_k`` result, which has no per-class thresholds (all NaN).
    cuts : ndarray of int64, shape (n_classes,)
        Chosen cut of each kept class: its number among ALL cuts of the class's ranking
        (0 = empty), also when the search ran on points built with ``dominated="drop"``;
        :meth:`ClassPoints.local_cuts` maps it to an index into any points of the data.
        ``n_classes <= n_columns``; a ``top_k`` result cuts no ranking (all -1).
    precision, recall, f : float
        Macro precision P, macro recall R and F_beta(P, R) on the data searched.
    upper_bound : float
        A proven upper bound on the best F-macro any thresholds reach on these
        rankings (``nan`` when the method has none).
    gap : float
        ``upper_bound - f`` (``nan`` without a bound).
    method : str
    beta : float
    zero_division : float
    diagnostics : Mapping
        Read-only method-specific extras (arrays are read-only), JSON values only.
    rule : PerClassThresholds or TopK
        How :meth:`apply` predicts new data: per-class ``score >= threshold`` (built from
        ``thresholds``; the default), or each object's top ``k`` classes (RCut, given as
        ``rule=TopK(k)``). Both know the number of columns and refuse scores of another
        width. Passing ``rule=PerClassThresholds(t)`` is allowed only with ``t`` equal to
        ``thresholds``; ``attrs.evolve(result, thresholds=new)`` gives a result that
        predicts with ``new``.
    classes : tuple of str, int, float or bool, or None
        Name of each threshold column, by the class-name rule of
        :mod:`fmacro.validation.names` (kinds kept: ``1`` and ``"1"`` are different
        names; unique): the columns of DataFrame scores or labels the method was given
        (:meth:`with_classes` sets them otherwise). When known, :meth:`apply` and
        :func:`~fmacro.optimize.evaluate_thresholds` check a DataFrame's columns against
        them, and :meth:`save` keeps them.
    tuning : TuningCounts or None
        What the thresholds predict on the tuning rows, per column (support, tp,
        predicted; :meth:`to_pandas` tables them). The methods that search class points
        attach them (``tune``, ``fixed_point``, ``exact``, ``domain``, ``per_class``,
        ``cyclic``, ``proportional``, ``global_threshold``, ...); ``None`` (unknown) for
        results built otherwise: ``top_k``, :mod:`fmacro.optimize.sklearn`'s, ``etu``
        (no labels), ``fmacro.dask``'s ``tune`` when a class without tuning positives has
        a finite threshold, files saved without them, and any result whose thresholds
        are no longer the counted ones (``attrs.evolve(result, thresholds=new)``).
    labels_per_object, true_labels_per_object : float
        Mean number of labels per tuning row that the thresholds predict (every column,
        classes without tuning positives included), and the true mean; NaN when
        :attr:`tuning` is unknown.
    """

    thresholds: NDArray[np.float64] = attrs.field(converter=threshold_values)
    cuts: NDArray[np.int64] = attrs.field(converter=cut_values)
    precision: float = attrs.field(converter=_precision)
    recall: float = attrs.field(converter=_recall)
    f: float = attrs.field(converter=_f)
    upper_bound: float = attrs.field(converter=_upper_bound)
    gap: float = attrs.field(converter=_gap)
    method: str = attrs.field(converter=method_name)
    beta: float = attrs.field(converter=check_beta)
    zero_division: float = attrs.field(converter=check_zero_division)
    diagnostics: Mapping[str, Any] = attrs.field(converter=diagnostics_mapping, factory=dict)
    # The rule as given (``rule=``), normalized: None for per-class thresholds (derived from
    # ``thresholds``, so ``evolve`` carries no stale copy of them), a TopK with its width.
    _rule: PerClassThresholds | TopK | None = attrs.field(default=None, alias="rule", repr=False)
    rule: PerClassThresholds | TopK = attrs.field(init=False)
    classes: tuple[ClassName, ...] | None = attrs.field(default=None, converter=check_class_names)
    tuning: TuningCounts | None = attrs.field(default=None)

    def __attrs_post_init__(self) -> None:
        n = self._check_thresholds_and_rule()
        self._check_cuts(n)
        self._check_scores()
        if self.classes is not None and len(self.classes) != n:
            raise ValueError(
                f"classes must name each of the {n} threshold columns, "
                f"got {len(self.classes)} names"
            )
        self._check_tuning()

    def _check_tuning(self) -> None:
        counts = self.tuning
        if counts is None:
            return
        if not isinstance(counts, TuningCounts):
            raise TypeError(f"tuning must be a TuningCounts or None, got {type(counts).__name__}")
        if not np.array_equal(counts.thresholds, self.thresholds, equal_nan=True):
            # counts of other thresholds (attrs.evolve(result, thresholds=new)): unknown now
            object.__setattr__(self, "tuning", None)
            return
        if counts.class_index.shape[0] != self.cuts.shape[0]:
            raise ValueError(
                f"tuning counts keep {counts.class_index.shape[0]} columns, but cuts has "
                f"{self.cuts.shape[0]} entries (one per kept class)"
            )

    @property
    def labels_per_object(self) -> float:
        """Mean number of labels per tuning row that the thresholds predict (NaN: unknown).

        ``sum(tuning.predicted) / tuning.n_samples``: every column counts, a class without
        tuning positives too when its threshold predicts (``+inf`` predicts nothing).
        Weighted points give the weighted mean.
        """
        return math.nan if self.tuning is None else self.tuning.labels_per_object

    @property
    def true_labels_per_object(self) -> float:
        """Mean number of true labels per tuning row (NaN: unknown)."""
        return math.nan if self.tuning is None else self.tuning.true_labels_per_object

    def _check_thresholds_and_rule(self) -> int:
        """Check ``thresholds`` against the rule; set ``rule``; return the number of columns."""
        shape = self.thresholds.shape
        if len(shape) != 1 or shape[0] == 0:
            raise ValueError(
                f"thresholds must be a 1-D array with one entry per class column, got shape {shape}"
            )
        n = int(shape[0])
        given = self._rule
        applied: PerClassThresholds | TopK
        if given is None or isinstance(given, PerClassThresholds):
            # refuses NaN: a NaN column would silently never be predicted
            applied = PerClassThresholds(self.thresholds)
            if given is not None and not np.array_equal(given.thresholds, self.thresholds):
                raise ValueError(
                    "rule holds other thresholds than thresholds; a per-class result predicts "
                    "with its own thresholds: leave rule out"
                )
            spec: TopK | None = None
        elif isinstance(given, TopK):
            if given.n_columns is None:
                given = TopK(given.k, n)  # refuses k > n
            elif given.n_columns != n:
                raise ValueError(
                    f"rule is a top_k rule for {given.n_columns} columns, but thresholds has "
                    f"{n} entries"
                )
            if not np.isnan(self.thresholds).all():
                raise ValueError(
                    "a top_k result has no per-class thresholds: its thresholds must all be "
                    "NaN (it predicts each object's top k classes: result.apply)"
                )
            spec = applied = given
        else:
            raise TypeError(
                f"rule must be a PerClassThresholds, a TopK or None, got {type(given).__name__}"
            )
        object.__setattr__(self, "_rule", spec)
        object.__setattr__(self, "rule", applied)
        return n

    def _check_cuts(self, n: int) -> None:
        cuts = self.cuts
        if cuts.ndim != 1 or not 1 <= cuts.shape[0] <= n:
            raise ValueError(
                f"cuts must hold one cut per kept class: 1 to {n} (the number of columns) "
                f"entries, got shape {cuts.shape}"
            )
        if isinstance(self.rule, TopK):
            if (cuts != -1).any():
                raise ValueError(
                    f"cuts of a top_k result must all be -1 (it cuts no ranking), got "
                    f"{int(cuts[cuts != -1][0])}"
                )
        elif (cuts < 0).any():
            raise ValueError(
                f"cuts must be non-negative (0 = the empty cut), got {int(cuts[cuts < 0][0])}"
            )

    def _check_scores(self) -> None:
        for name in ("precision", "recall", "f"):
            value = getattr(self, name)
            if not (math.isnan(value) or 0.0 <= value <= 1.0 + ROUNDING):
                raise ValueError(f"{name} must be in [0, 1] or NaN, got {value!r}")
        ub = self.upper_bound
        if not (math.isnan(ub) or (math.isfinite(ub) and ub >= 0.0)):
            raise ValueError(
                f"upper_bound must be a finite number >= 0, or NaN (no bound), got {ub!r}"
            )
        gap = ub - self.f
        if not (self.gap == gap or (math.isnan(self.gap) and math.isnan(gap))):
            raise ValueError(
                f"gap must be upper_bound - f ({gap!r}), got {self.gap!r}; change them together"
            )

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the result: ``.json`` (everything, :meth:`to_dict`) or ``.npy`` (thresholds).

        ``.npy`` holds only the per-class thresholds (positive iff ``score >= threshold``);
        a ``top_k`` result has none and needs ``.json``. The file is written under exactly
        the given name (numpy would turn ``thr.NPY`` into ``thr.NPY.npy``).

        Examples
        --------
        >>> import pathlib, tempfile
        >>> import numpy as np
        >>> from fmacro.optimize import fixed_point
        >>> scores = np.array(
        ...     [[0.6, 0.9], [0.5, 0.7], [0.4, 0.6], [0.3, 0.4], [0.2, 0.3], [0.1, 0.2]]
        ... )
        >>> labels = np.array([[1, 1], [1, 0], [0, 1], [1, 0], [0, 0], [1, 1]])
        >>> res = fixed_point(scores, labels)
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> res.save(folder / "thresholds.json")
        >>> back = ThresholdResult.load(folder / "thresholds.json")
        >>> back.to_dict() == res.to_dict()  # every field
        True
        >>> res.save(folder / "thresholds.npy")  # the thresholds only
        >>> np.load(folder / "thresholds.npy").tolist()
        [0.5, 0.2]
        """
        target = Path(path)
        suffix = target.suffix.lower()
        if suffix == ".json":
            target.write_text(json.dumps(self.to_dict(), indent=1), encoding="utf-8")
        elif suffix == ".npy":
            if isinstance(self.rule, TopK):
                raise ValueError(f"{path}: a top_k result has no per-class thresholds; use .json")
            with open(target, "wb") as fh:  # a handle: np.save adds ".npy" to a name
                np.save(fh, np.asarray(self.thresholds))
        else:
            raise ValueError(f"{path}: save thresholds as .json or .npy, got {suffix!r}")

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> ThresholdResult:
        """Read a result written by :meth:`save` as ``.json``, checked as :meth:`to_dict` says.

        Raises
        ------
        ValueError
            An unreadable file, or a record that breaks the schema (the message names the
            file and the field).

        Examples
        --------
        A saved result reads back with :meth:`save` (see there); other JSON is refused:

        >>> import pathlib, tempfile
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "other.json"
        >>> _ = path.write_text('{"thresholds": [0.5]}')
        >>> ThresholdResult.load(path)
        Traceback (most recent call last):
        ...
        ValueError: ...other.json: not an fmacro thresholds record (expected format ...)
        """
        source = Path(path)
        try:
            data = json.loads(source.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:  # JSONDecodeError and UnicodeDecodeError too
            raise ValueError(f"{path}: not a readable thresholds JSON file ({exc})") from None
        except RecursionError:
            raise ValueError(
                f"{path}: not a readable thresholds JSON file (nested too deeply)"
            ) from None
        try:
            return cls.from_dict(data)
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None

    def to_pandas(self, points: ClassPoints | None = None) -> Any:
        """A DataFrame with one row per class column (needs pandas).

        Rows are named by :attr:`classes` when known, else numbered by position. Columns:

        ``threshold``
            Predict ``score >= threshold`` (NaN for a ``top_k`` result).
        ``cut``, ``kept``
            The chosen cut's number among all cuts of the class's ranking (:attr:`cuts`;
            NA for a column that is not kept) and whether the class is averaged in P and R.
        ``precision``, ``recall``, ``f``
            The class's precision, recall and F_beta on the tuning rows (0/0 gives
            ``zero_division``; NaN when undefined or unknown).
        ``support``, ``tp``, ``fp``, ``predicted``, ``predicted_rate``
            Positives, true and false positives and predicted objects (``tp + fp``) on the
            tuning rows (nullable integers; nullable floats when the counts are sums of
            weights), and ``predicted / n_samples``.

        They come from :attr:`tuning`. A result without it (``top_k``, sklearn's, a file
        saved without it: see :attr:`tuning`) has NA there, and ``kept`` is NA unless
        every class is kept. Given the :class:`ClassPoints` the result was computed on,
        the kept classes' values are read from them instead; a column that is not kept
        and has a finite threshold then needs :attr:`tuning` (else NA).

        Examples
        --------
        >>> import numpy as np
        >>> from fmacro.optimize import class_points, fixed_point
        >>> scores = np.array(
        ...     [[0.6, 0.9], [0.5, 0.7], [0.4, 0.6], [0.3, 0.4], [0.2, 0.3], [0.1, 0.2]]
        ... )
        >>> labels = np.array([[1, 1], [1, 0], [0, 1], [1, 0], [0, 0], [1, 1]])
        >>> table = fixed_point(scores, labels).to_pandas()
        >>> table[["threshold", "cut", "precision", "recall", "support", "predicted"]]
           threshold  cut  precision  recall  support  predicted
        0        0.5    2        1.0     0.5        4          2
        1        0.2    6        0.5     1.0        3          6
        """
        n_cols = self.thresholds.shape[0]
        thr = np.asarray(self.thresholds)
        unknown = np.full(n_cols, np.nan)
        support, tp, predicted = unknown, unknown, unknown
        n_samples, weighted = math.nan, False
        kept: NDArray[np.int64] | None = None
        counts = self.tuning
        if counts is not None:
            kept = counts.class_index
            support, tp, predicted = (
                np.asarray(a, dtype=np.float64)
                for a in (counts.support, counts.tp, counts.predicted)
            )
            n_samples, weighted = float(counts.n_samples), counts.weighted
        if points is not None:
            if points.n_columns != n_cols or points.n_classes != self.cuts.shape[0]:
                raise ValueError(
                    f"points ({points.n_columns} columns, {points.n_classes} kept) do not "
                    f"match this result ({n_cols} columns, {self.cuts.shape[0]} cuts)"
                )
            at = points.indptr[:-1] + points.local_cuts(self.cuts)
            kept = np.asarray(points.class_index, dtype=np.int64)
            n_samples, weighted = float(points.n_samples), points.weighted
            # a column that is not kept has no positives; what it predicts shows in its
            # threshold at +-inf, else only in the counts the result carries
            others = np.where(np.isposinf(thr), 0.0, np.where(np.isneginf(thr), n_samples, np.nan))
            if counts is not None:
                others = np.asarray(counts.predicted, dtype=np.float64)
            support, tp, predicted = np.zeros(n_cols), np.zeros(n_cols), others.copy()
            support[kept] = points.support
            tp[kept] = points.tp[at]
            predicted[kept] = points.tp[at] + points.fp[at]
        elif kept is None and self.cuts.shape[0] == n_cols:
            kept = np.arange(n_cols, dtype=np.int64)
        return class_table(
            list(self.classes) if self.classes is not None else None,
            threshold=thr,
            cut=None if kept is None or isinstance(self.rule, TopK) else (kept, self.cuts),
            kept=kept,
            support=support,
            tp=tp,
            predicted=predicted,
            n_samples=n_samples,
            weighted=weighted,
            beta=self.beta,
            zero_division=self.zero_division,
        )

    def with_classes(self, classes: Any) -> ThresholdResult:
        """The same result with column names (one per threshold), kept when saved.

        Names follow :func:`fmacro.validation.names.check_class_names`: kinds kept, unique.
        """
        return attrs.evolve(self, classes=classes)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict of the result: the record :meth:`save` writes (version 1).

        Non-finite floats (``+inf`` = never predict, ``-inf`` = always, ``nan``) are written
        as the strings ``"inf"``, ``"-inf"`` and ``"nan"``: JSON has no such numbers.

        The schema, field by field (:meth:`from_dict`, :meth:`load` and the constructor
        refuse a record or result that breaks it, with a ``ValueError`` naming the field):

        ``format``
            ``"fmacro.thresholds"``.
        ``version``
            ``1``.
        ``method``
            A non-empty string: the method that found the thresholds.
        ``rule``
            ``{"kind": "per_class_thresholds"}`` (predict ``score >= threshold``) or
            ``{"kind": "top_k", "k": K}`` (each object's ``K`` highest-scored classes), ``K``
            an integer from 1 to the number of columns. No other keys.
        ``classes``
            ``null``, or one name per threshold column, unique, each a string, number or
            boolean (``null`` for a missing name): names keep their kind, so ``1`` and
            ``"1"`` are different classes (:mod:`fmacro.validation.names`). Optional
            (absent = ``null``).
        ``thresholds``
            A list, one entry per class column (at least one). Per-class rule: each a
            finite number, ``"inf"`` (never predict the column) or ``"-inf"`` (always);
            no NaN, booleans or other strings (a number beyond the float range, such as
            ``1e999``, reads as ``+-inf``, which predicts the same). ``top_k`` rule: all
            ``"nan"`` (it has no per-class thresholds).
        ``cuts``
            A list of integers, one per kept class (the classes averaged: those with a
            positive, or all of them with ``empty_classes="include"``), so 1 to
            ``len(thresholds)`` entries. Per-class rule: each ``>= 0``, the chosen cut's
            number among all cuts of the class's ranking (0 = the empty cut). ``top_k``
            rule: all ``-1``.
        ``beta``
            A finite number ``> 0``.
        ``zero_division``
            ``0``, ``1`` or ``"nan"``.
        ``precision``, ``recall``, ``f``
            Numbers in ``[0, 1]`` (``f`` may exceed 1 by rounding, at most ``1e-9``) or
            ``"nan"``.
        ``upper_bound``
            A finite number ``>= 0``, or ``"nan"`` (no bound).
        ``gap``
            ``upper_bound - f`` exactly, ``"nan"`` when either is NaN.
        ``diagnostics``
            A JSON object of method-specific extras, nested at most 32 levels; lists of
            numbers are read back as numpy arrays. Optional (absent = ``{}``).
        ``tuning``
            What the thresholds predict on the tuning rows (:class:`TuningCounts`): an
            object with exactly the keys ``n_samples`` (the number of tuning rows, or
            their total weight), ``weighted`` (``true`` when the counts are sums of sample
            weights), ``class_index`` (the kept columns: one increasing column number
            per cut), and ``support``, ``tp`` and ``predicted``: one count per threshold
            column (positives, true positives, predicted objects). Counts are integers
            ``>= 0`` (integral numbers such as ``3.0`` read as integers), or finite
            numbers ``>= 0`` when weighted. They must fit: ``tp`` at most ``support`` and
            ``predicted``, these at most ``n_samples`` (within ``1e-9 * n_samples`` when
            weighted), no positives off the kept columns, nothing predicted at an
            ``"inf"`` threshold and ``n_samples`` at ``"-inf"``. Optional, written only
            when known (absent = unknown: :attr:`ThresholdResult.tuning` is ``None``).

        No other fields are allowed. Version-1 files written by earlier fmacro releases,
        whose class names are all strings, read unchanged.
        """
        rule: dict[str, Any] = (
            {"kind": "top_k", "k": self.rule.k}
            if isinstance(self.rule, TopK)
            else {"kind": "per_class_thresholds"}
        )
        record: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "method": self.method,
            "rule": rule,
            "classes": None if self.classes is None else names_to_json(self.classes),
            "thresholds": [json_float(t) for t in self.thresholds.tolist()],
            "cuts": self.cuts.tolist(),
            "beta": self.beta,
            "zero_division": json_float(self.zero_division),
            "f": json_float(self.f),
            "precision": json_float(self.precision),
            "recall": json_float(self.recall),
            "upper_bound": json_float(self.upper_bound),
            "gap": json_float(self.gap),
            "diagnostics": json_value(thaw_mapping(self.diagnostics)),
        }
        if self.tuning is not None:
            record["tuning"] = tuning_to_json(self.tuning)
        return record

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ThresholdResult:
        """Inverse of :meth:`to_dict`, checked against its schema.

        Lists of numbers in ``diagnostics`` become arrays.

        Raises
        ------
        ValueError
            ``data`` is not a thresholds record of a supported version, or a field breaks
            the schema (the message names it).
        """
        fields, tuning = read_record(data)
        try:
            result = cls(**fields)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"thresholds record breaks the schema: {exc}") from None
        # checked once the fields it must fit are known good
        counts = tuning_from_json(tuning, fields["thresholds"])
        if counts is None:
            return result
        try:
            return attrs.evolve(result, tuning=counts)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"thresholds record field 'tuning': {exc}") from None

    @classmethod
    def from_cuts(
        cls,
        points: ClassPoints,
        cuts: ArrayLike,
        *,
        beta: float,
        method: str,
        upper_bound: float = math.nan,
        diagnostics: Mapping[str, Any] | None = None,
    ) -> ThresholdResult:
        """Build a result from local cuts: thresholds, P, R, F and :attr:`tuning` are derived.

        The result's ``cuts`` are the cuts' numbers among all cuts of each class
        (:meth:`ClassPoints.full_cuts`), whatever points the search ran on; its
        :attr:`tuning` counts are those of the cuts (:meth:`TuningCounts.from_points`).
        """
        return cls.from_checked_cuts(
            points,
            cuts,
            beta=check_beta(beta),
            method=method,
            upper_bound=upper_bound,
            diagnostics=diagnostics,
        )

    @classmethod
    def from_checked_cuts(
        cls,
        points: ClassPoints,
        cuts: ArrayLike,
        *,
        beta: float,
        method: str,
        upper_bound: float = math.nan,
        diagnostics: Mapping[str, Any] | None = None,
    ) -> ThresholdResult:
        """:meth:`from_cuts` with ``beta`` already checked (by
        :func:`~fmacro.validation.checks.check_beta` at the caller's public entry): the
        searches' ``*_checked`` entries build their results here, so a call checks its
        settings once."""
        cuts_arr = check_cuts(points, cuts)
        b = beta
        p, r = _macro_pr_at(points, cuts_arr)
        f = float(f_beta_from_pr(p, r, b))
        ub = float(upper_bound)
        thresholds = points.thresholds_at(cuts_arr)
        return cls(
            thresholds=thresholds,
            cuts=points.full_cuts(cuts_arr),
            precision=p,
            recall=r,
            f=f,
            upper_bound=ub,
            gap=ub - f if not math.isnan(ub) else math.nan,
            method=method,
            beta=b,
            zero_division=points.zero_division,
            diagnostics=diagnostics if diagnostics is not None else {},
            tuning=TuningCounts.from_points(points, cuts_arr, thresholds),
        )

    def __reduce__(self) -> tuple[Any, ...]:
        # The read-only mapping proxy of ``diagnostics`` cannot be pickled or deep-copied:
        # rebuild from the constructor's arguments (the converters freeze them again).
        fields = {a.alias: getattr(self, a.name) for a in attrs.fields(type(self)) if a.init}
        fields["diagnostics"] = thaw_mapping(self.diagnostics)
        return (_rebuild_result, (fields,))

    @overload
    def apply(
        self, scores: NDArray[Any], *, max_labels: int | None = None
    ) -> NDArray[np.bool_]: ...
    @overload
    def apply(self, scores: Any, *, max_labels: int | None = None) -> Any: ...
    def apply(self, scores: Any, *, max_labels: int | None = None) -> Any:
        """Predictions for new scores by this result's :attr:`rule`, shape ``(N, n_columns)``.

        ``scores`` is dense, scipy sparse or a pandas DataFrame; a missing sparse entry is
        below every threshold except ``-inf`` (so it is predicted only by an all-objects
        cut). A ``top_k`` (RCut) result is a per-object rule: it predicts each object's
        ``k`` highest-scored classes. A pandas DataFrame of scores must have this result's
        :attr:`classes` as its columns, in order, when the result has class names (the
        threshold methods take them from DataFrame inputs); else columns are taken by
        position.

        ``max_labels`` (an int ``k >= 1``, or ``None``: no budget) keeps in each object at
        most its ``k`` highest-scored labels among those the rule predicts; equal scores
        go to the lower column index, and a missing sparse entry ranks below every stored
        one (:func:`fmacro.optimize.label_budget.cap_labels`, which says why raw scores
        and not margins over the thresholds). A bool, a float or an int below 1 is refused
        (``TypeError``/``ValueError`` naming ``max_labels``).

        Returns a dense bool array for an array or a sparse matrix, and for a DataFrame a
        DataFrame of bool columns with the scores' index and columns.

        Examples
        --------
        The thresholds 0.5 and 0.2 that :func:`~fmacro.optimize.fixed_point` finds on six
        rows, applied to two new ones:

        >>> import numpy as np
        >>> from fmacro.optimize import fixed_point
        >>> scores = np.array(
        ...     [[0.6, 0.9], [0.5, 0.7], [0.4, 0.6], [0.3, 0.4], [0.2, 0.3], [0.1, 0.2]]
        ... )
        >>> labels = np.array([[1, 1], [1, 0], [0, 1], [1, 0], [0, 0], [1, 1]])
        >>> res = fixed_point(scores, labels)
        >>> res.thresholds.tolist()
        [0.5, 0.2]
        >>> res.apply(np.array([[0.55, 0.1], [0.5, 0.2]])).tolist()  # score >= threshold
        [[True, False], [True, True]]

        A DataFrame gives a DataFrame, with the same index and columns:

        >>> import pandas as pd
        >>> res.apply(pd.DataFrame([[0.55, 0.1], [0.5, 0.2]], index=["x", "y"], columns=["a", "b"]))
              a      b
        x  True  False
        y  True   True

        At most one label per object: the higher-scored of the two predicted is kept.

        >>> res.apply(np.array([[0.55, 0.1], [0.5, 0.2]]), max_labels=1).tolist()
        [[True, False], [True, False]]
        """
        check_frame_columns(scores, self.classes, "scores")
        if max_labels is None:
            return self.rule.apply(scores)
        return apply_with_budget(self.rule, scores, max_labels)
