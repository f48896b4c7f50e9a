"""The frozen result every threshold-search method returns, and its saved record.

A :class:`ThresholdResult` always satisfies the schema of its JSON record
(:meth:`ThresholdResult.to_dict` documents it field by field): the constructor, hence
:func:`attrs.evolve`, :meth:`ThresholdResult.from_dict` and :meth:`ThresholdResult.load`
refuse anything else, so a result read from a file or changed by ``evolve`` predicts exactly
what its fields say. Class names follow :mod:`fmacro.validation.names`.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import attrs
import numpy as np
from numpy.typing import ArrayLike, NDArray

from fmacro.optimize._frames import check_frame_columns
from fmacro.optimize.rules import PerClassThresholds, TopK
from fmacro.optimize.search.points import ClassPoints, check_cuts
from fmacro.validation.checks import check_beta, check_zero_division
from fmacro.validation.counts import frozen_array
from fmacro.validation.measures import f_beta_from_pr, macro_mean
from fmacro.validation.names import ClassName, check_class_names, names_from_json, names_to_json

__all__ = ["ThresholdResult", "evaluate_cuts", "freeze_mapping", "macro_pr"]


def _freeze_value(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return frozen_array(value)
    if isinstance(value, Mapping):
        return freeze_mapping(value)
    return value


def freeze_mapping(values: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """A read-only mapping whose numpy arrays are read-only copies."""
    if values is None:
        return MappingProxyType({})
    return MappingProxyType({str(k): _freeze_value(v) for k, v in values.items()})


def thaw_mapping(values: Mapping[str, Any]) -> dict[str, Any]:
    """A plain (picklable) dict copy of a :func:`freeze_mapping` result, nested too."""
    return {k: thaw_mapping(v) if isinstance(v, Mapping) else v for k, v in values.items()}


_FORMAT = "fmacro.thresholds"
_VERSION = 1
_SCORE_FIELDS = ("f", "precision", "recall", "upper_bound", "gap")
_FIELDS = (
    "format",
    "version",
    "method",
    "rule",
    "classes",
    "thresholds",
    "cuts",
    "beta",
    "zero_division",
    *_SCORE_FIELDS,
    "diagnostics",
)
_OPTIONAL_FIELDS = ("classes", "diagnostics")
# Diagnostics are method extras of a few levels; deeper nesting is refused, not recursed into.
_MAX_DEPTH = 32
# F_beta(P, R) computed in floats can exceed 1 by an ulp (and weighted sums by a little more).
_ROUNDING = 1e-9
_INT64_RANGE = (-(2**63), 2**63 - 1)


def _show(value: Any) -> str:
    """A short rendering of a bad value for an error message (never a huge repr)."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return repr(value) if abs(value) < 10**30 else f"an integer of {value.bit_length()} bits"
    if isinstance(value, (float, str)):
        text = repr(value)
        return text if len(text) <= 60 else text[:57] + "..."
    return f"a {type(value).__name__}"


def _bad(field: str, expected: str, got: Any) -> ValueError:
    return ValueError(f"thresholds record field {field!r}: expected {expected}, got {_show(got)}")


def _real(value: Any, name: str) -> float:
    """A real number (Python or numpy, not bool, not text) as a float."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    try:
        return float(value)
    except OverflowError:
        raise ValueError(f"{name} is outside the float range") from None


# One named converter per field (mypy's attrs plugin takes named functions only).
def _precision(value: Any) -> float:
    return _real(value, "precision")


def _recall(value: Any) -> float:
    return _real(value, "recall")


def _f(value: Any) -> float:
    return _real(value, "f")


def _upper_bound(value: Any) -> float:
    return _real(value, "upper_bound")


def _gap(value: Any) -> float:
    return _real(value, "gap")


def _threshold_values(values: Any) -> NDArray[np.float64]:
    """Converter of ``thresholds``: real numbers as a read-only float64 copy.

    NaN passes here (a ``top_k`` result's thresholds are all NaN); which values a result
    may hold is checked against its rule once every field is set.
    """
    arr = np.asarray(values)
    if arr.dtype.kind not in "iuf":
        raise TypeError(
            f"thresholds must be real numbers (one per class column), got dtype {arr.dtype}"
        )
    return frozen_array(arr, np.float64)


def _cut_values(values: Any) -> NDArray[np.int64]:
    """Converter of ``cuts``: integers (integral floats too) as a read-only int64 copy."""
    arr = np.asarray(values)
    if arr.dtype.kind == "f":
        integral = np.isfinite(arr) & (arr == np.round(arr)) & (np.abs(arr) < 2.0**63)
        if not integral.all():
            bad = arr[~integral].ravel()[0]
            raise ValueError(f"cuts must be integers, got {float(bad)!r}")
    elif arr.dtype.kind == "u":
        if arr.size and int(arr.max()) > _INT64_RANGE[1]:
            raise ValueError("cuts must be integers in the int64 range")
    elif arr.dtype.kind != "i" and not (arr.size == 0 and arr.dtype.kind in "fO"):
        raise TypeError(f"cuts must be integers (one cut per kept class), got dtype {arr.dtype}")
    return frozen_array(arr, np.int64)


def _method_name(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"method must be a str (the method's name), got {type(value).__name__}")
    if not value:
        raise ValueError("method must name the method, got an empty str")
    return value


def _json_safe(value: Any, where: str, depth: int) -> None:
    """Refuse a diagnostics value without a JSON form, or nested deeper than ``_MAX_DEPTH``."""
    if depth > _MAX_DEPTH:
        raise ValueError(f"diagnostics nest deeper than {_MAX_DEPTH} levels (at {where[:80]}...)")
    if value is None or isinstance(
        value, (str, bool, int, float, np.bool_, np.integer, np.floating)
    ):
        return
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "O":
            for i, item in enumerate(value.ravel().tolist()):
                _json_safe(item, f"{where}[{i}]", depth + 1)
        elif value.dtype.kind not in "biufUS":
            raise TypeError(f"{where} must hold JSON values, got an array of dtype {value.dtype}")
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            _json_safe(item, f"{where}[{key!r}]", depth + 1)
        return
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _json_safe(item, f"{where}[{i}]", depth + 1)
        return
    raise TypeError(
        f"{where} must be a JSON value (number, str, bool, None, array, list or mapping), "
        f"got {type(value).__name__}"
    )


def _diagnostics(values: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """Converter of ``diagnostics``: a read-only mapping of JSON values (saved as they are)."""
    if values is None:
        return MappingProxyType({})
    if not isinstance(values, Mapping):
        raise TypeError(f"diagnostics must be a mapping, got {type(values).__name__}")
    _json_safe(values, "diagnostics", 0)
    return freeze_mapping(values)


def _json_float(x: float) -> float | str:
    return x if math.isfinite(x) else str(x)  # 'inf', '-inf', 'nan'


def _json_value(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return _json_value(value.tolist())
    if isinstance(value, Mapping):
        return {str(k): _json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_value(v) for v in value]
    if isinstance(value, (np.floating, float)):
        return _json_float(float(value))
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


# --------------------------------------------------------------------------- reading a record


def _number_field(value: Any, field: str, words: tuple[str, ...], expected: str) -> float:
    """A JSON number, or one of the strings ``words`` ('inf', '-inf', 'nan') as a float."""
    if isinstance(value, str) and value in words:
        return float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _bad(field, expected, value)
    try:
        return float(value)
    except OverflowError:
        raise _bad(field, f"{expected} (in the float range)", value) from None


def _rule_from_json(spec: Any) -> TopK | None:
    expected = "{'kind': 'per_class_thresholds'} or {'kind': 'top_k', 'k': K}"
    if not isinstance(spec, Mapping):
        raise _bad("rule", expected, spec)
    kind = spec.get("kind")
    allowed = {"per_class_thresholds": {"kind"}, "top_k": {"kind", "k"}}
    if not isinstance(kind, str) or kind not in allowed:
        raise ValueError(
            f"thresholds record field 'rule': unknown decision rule kind {_show(kind)}; "
            f"expected {expected}"
        )
    extra = [repr(k) for k in spec if k not in allowed[kind]]
    if extra:
        raise _bad("rule", f"{expected} without other keys", f"the key(s) {', '.join(extra)}")
    if kind == "per_class_thresholds":
        return None
    if "k" not in spec:
        raise _bad("rule", expected, "a top_k rule without 'k'")
    k = spec["k"]
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise _bad("rule.k", "a positive integer (at most the number of columns)", k)
    return TopK(k)


def _thresholds_from_json(values: Any, top_k: bool) -> NDArray[np.float64]:
    if not isinstance(values, list):
        raise _bad("thresholds", "a list with one threshold per class column", values)
    words = ("inf", "-inf", "nan") if top_k else ("inf", "-inf")
    expected = (
        "'nan' (a top_k result has no per-class thresholds)"
        if top_k
        else "a number, 'inf' (never predict) or '-inf' (always predict)"
    )
    out = np.empty(len(values), dtype=np.float64)
    for i, t in enumerate(values):
        out[i] = _number_field(t, f"thresholds[{i}]", words, expected)
    return out


def _cuts_from_json(values: Any) -> NDArray[np.int64]:
    if not isinstance(values, list):
        raise _bad("cuts", "a list with one cut (an integer) per kept class", values)
    out = np.empty(len(values), dtype=np.int64)
    low, high = _INT64_RANGE
    for i, c in enumerate(values):
        integral = isinstance(c, int) or (isinstance(c, float) and c.is_integer())
        if isinstance(c, bool) or not integral or not low <= c <= high:
            raise _bad(f"cuts[{i}]", "an integer (0 = the empty cut; -1 in a top_k result)", c)
        out[i] = int(c)
    return out


def _classes_from_json(values: Any) -> tuple[ClassName, ...] | None:
    try:
        return names_from_json(values, "classes")
    except (TypeError, ValueError) as exc:
        raise ValueError(f"thresholds record field 'classes': {exc}") from None


def _zero_division_from_json(value: Any) -> float:
    if isinstance(value, str) and value == "nan":
        return math.nan
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _bad("zero_division", "0, 1 or 'nan'", value)
    if math.isnan(value) or value in (0, 1):
        return float(value)
    raise _bad("zero_division", "0, 1 or 'nan'", value)


def _from_json_value(value: Any, where: str, depth: int) -> Any:
    if depth > _MAX_DEPTH:
        raise ValueError(
            f"thresholds record field 'diagnostics': nested deeper than {_MAX_DEPTH} levels"
        )
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise _bad(where, "an object with string keys", f"the key {_show(k)}")
            out[k] = _from_json_value(v, f"{where}[{k!r}]", depth + 1)
        return out
    if isinstance(value, list):
        items = [_from_json_value(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value)]
        low, high = _INT64_RANGE
        numeric = bool(items) and all(
            (isinstance(v, int) and not isinstance(v, bool) and low <= v <= high)
            or isinstance(v, float)
            for v in items
        )
        return np.asarray(items) if numeric else items
    if isinstance(value, str):
        return float(value) if value in ("inf", "-inf", "nan") else value
    if value is None or isinstance(value, (bool, int, float)):
        return value
    raise _bad(where, "a JSON value", value)


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
    """

    thresholds: NDArray[np.float64] = attrs.field(converter=_threshold_values)
    cuts: NDArray[np.int64] = attrs.field(converter=_cut_values)
    precision: float = attrs.field(converter=_precision)
    recall: float = attrs.field(converter=_recall)
    f: float = attrs.field(converter=_f)
    upper_bound: float = attrs.field(converter=_upper_bound)
    gap: float = attrs.field(converter=_gap)
    method: str = attrs.field(converter=_method_name)
    beta: float = attrs.field(converter=check_beta)
    zero_division: float = attrs.field(converter=check_zero_division)
    diagnostics: Mapping[str, Any] = attrs.field(converter=_diagnostics, factory=dict)
    # The rule as given (``rule=``), normalized: None for per-class thresholds (derived from
    # ``thresholds``, so ``evolve`` carries no stale copy of them), a TopK with its width.
    _rule: PerClassThresholds | TopK | None = attrs.field(default=None, alias="rule", repr=False)
    rule: PerClassThresholds | TopK = attrs.field(init=False)
    classes: tuple[ClassName, ...] | None = attrs.field(default=None, converter=check_class_names)

    def __attrs_post_init__(self) -> None:
        n = self._check_thresholds_and_rule()
        self._check_cuts(n)
        self._check_scores()
        if self.classes is not None and len(self.classes) != n:
            raise ValueError(
                f"classes must name each of the {n} threshold columns, "
                f"got {len(self.classes)} names"
            )

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
            if not (math.isnan(value) or 0.0 <= value <= 1.0 + _ROUNDING):
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

        Columns ``threshold`` and ``kept`` (whether the class was averaged); given the
        :class:`ClassPoints` the result was computed on, also ``predicted`` (the cut's size:
        objects with ``score >= threshold``), ``tp``, ``precision`` and ``recall``. Rows are
        named by :attr:`classes` when known.
        """
        import pandas as pd

        n_cols = self.thresholds.shape[0]
        index = list(self.classes) if self.classes is not None else list(range(n_cols))
        frame = pd.DataFrame({"threshold": np.asarray(self.thresholds)}, index=index)
        if isinstance(self.rule, TopK):
            frame["threshold"] = np.nan
        if points is None:
            return frame
        if points.n_columns != n_cols or points.n_classes != self.cuts.shape[0]:
            raise ValueError(
                f"points ({points.n_columns} columns, {points.n_classes} kept) do not match "
                f"this result ({n_cols} columns, {self.cuts.shape[0]} cuts)"
            )
        kept = np.zeros(n_cols, dtype=bool)
        kept[points.class_index] = True
        frame["kept"] = kept
        at = points.indptr[:-1] + points.local_cuts(self.cuts)
        for name, values in (("predicted", points.tp[at] + points.fp[at]), ("tp", points.tp[at])):
            counts = pd.array([pd.NA] * n_cols, dtype="Int64")
            counts[points.class_index] = values
            frame[name] = counts
        for name, ratios in (("precision", points.precision[at]), ("recall", points.recall[at])):
            column = np.full(n_cols, np.nan)
            column[points.class_index] = ratios
            frame[name] = column
        return frame

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

        No other fields are allowed. Version-1 files written by earlier fmacro releases,
        whose class names are all strings, read unchanged.
        """
        rule: dict[str, Any] = (
            {"kind": "top_k", "k": self.rule.k}
            if isinstance(self.rule, TopK)
            else {"kind": "per_class_thresholds"}
        )
        return {
            "format": _FORMAT,
            "version": _VERSION,
            "method": self.method,
            "rule": rule,
            "classes": None if self.classes is None else names_to_json(self.classes),
            "thresholds": [_json_float(t) for t in self.thresholds.tolist()],
            "cuts": self.cuts.tolist(),
            "beta": self.beta,
            "zero_division": _json_float(self.zero_division),
            "f": _json_float(self.f),
            "precision": _json_float(self.precision),
            "recall": _json_float(self.recall),
            "upper_bound": _json_float(self.upper_bound),
            "gap": _json_float(self.gap),
            "diagnostics": _json_value(thaw_mapping(self.diagnostics)),
        }

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
        if not isinstance(data, Mapping) or data.get("format") != _FORMAT:
            raise ValueError(f"not an fmacro thresholds record (expected format {_FORMAT!r})")
        version = data.get("version")
        if isinstance(version, bool) or version != _VERSION:
            raise ValueError(
                f"thresholds record version {_show(version)} is not supported "
                f"(this fmacro reads version {_VERSION})"
            )
        unknown = [_show(k) for k in data if k not in _FIELDS]
        if unknown:
            raise ValueError(
                f"thresholds record has unknown field(s) {', '.join(unknown)}; "
                f"version {_VERSION} has {', '.join(_FIELDS)}"
            )
        missing = [k for k in _FIELDS if k not in data and k not in _OPTIONAL_FIELDS]
        if missing:
            raise ValueError(
                f"thresholds record is missing or has a bad field: no {', '.join(missing)}"
            )
        method = data["method"]
        if not isinstance(method, str) or not method:
            raise _bad("method", "the method's name (a non-empty string)", method)
        rule = _rule_from_json(data["rule"])
        diagnostics = data.get("diagnostics", {})
        if not isinstance(diagnostics, Mapping):
            raise _bad("diagnostics", "an object", diagnostics)
        scores = {
            k: _number_field(data[k], k, ("inf", "-inf", "nan"), "a number or 'inf', '-inf', 'nan'")
            for k in _SCORE_FIELDS
        }
        fields: dict[str, Any] = {
            "thresholds": _thresholds_from_json(data["thresholds"], rule is not None),
            "cuts": _cuts_from_json(data["cuts"]),
            "method": method,
            "beta": _number_field(data["beta"], "beta", (), "a finite number > 0"),
            "zero_division": _zero_division_from_json(data["zero_division"]),
            "classes": _classes_from_json(data.get("classes")),
            "diagnostics": _from_json_value(diagnostics, "diagnostics", 0),
            "rule": rule,
            **scores,
        }
        try:
            return cls(**fields)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"thresholds record breaks the schema: {exc}") from None

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
        """Build a result from local cuts: thresholds, P, R and F are derived.

        The result's ``cuts`` are the cuts' numbers among all cuts of each class
        (:meth:`ClassPoints.full_cuts`), whatever points the search ran on.
        """
        # Each input is checked once here; the helpers below take checked values.
        cuts_arr = check_cuts(points, cuts)
        b = check_beta(beta)
        p, r = _macro_pr_at(points, cuts_arr)
        f = float(f_beta_from_pr(p, r, b))
        ub = float(upper_bound)
        return cls(
            thresholds=points.thresholds_at(cuts_arr),
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
        )

    def __reduce__(self) -> tuple[Any, ...]:
        # The read-only mapping proxy of ``diagnostics`` cannot be pickled or deep-copied:
        # rebuild from the constructor's arguments (the converters freeze them again).
        fields = {a.alias: getattr(self, a.name) for a in attrs.fields(type(self)) if a.init}
        fields["diagnostics"] = thaw_mapping(self.diagnostics)
        return (_rebuild_result, (fields,))

    def apply(self, scores: Any) -> NDArray[np.bool_]:
        """Predictions for new scores by this result's :attr:`rule`: dense bool ``(N, n_columns)``.

        ``scores`` is dense or scipy sparse; a missing sparse entry is below every
        threshold except ``-inf`` (so it is predicted only by an all-objects cut).
        A ``top_k`` (RCut) result is a per-object rule: it predicts each object's ``k``
        highest-scored classes. A pandas DataFrame of scores must have this result's
        :attr:`classes` as its columns, in order, when the result has class names (the
        threshold methods take them from DataFrame inputs); else columns are taken by
        position.
        """
        check_frame_columns(scores, self.classes, "scores")
        return self.rule.apply(scores)
