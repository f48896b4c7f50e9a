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
from typing import Any, overload

import attrs
import numpy as np
from numpy.typing import ArrayLike, NDArray

from fmacro.optimize._frames import check_frame_columns
from fmacro.optimize.rules import PerClassThresholds, TopK
from fmacro.optimize.search.points import ClassPoints, check_cuts
from fmacro.validation import measures
from fmacro.validation.values import read_only_copies
from fmacro.validation.checks import check_beta, check_zero_division
from fmacro.validation.counts import frozen_array
from fmacro.validation.measures import f_beta_from_pr, macro_mean
from fmacro.validation.names import ClassName, check_class_names, names_from_json, names_to_json

__all__ = ["ThresholdResult", "TuningCounts", "evaluate_cuts", "freeze_mapping", "macro_pr"]


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
    "tuning",
)
_OPTIONAL_FIELDS = ("classes", "diagnostics", "tuning")
_TUNING_FIELDS = ("n_samples", "weighted", "class_index", "support", "tp", "predicted")
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


def _tuning_number(value: Any, where: str, weighted: bool) -> int | float:
    """A count of the tuning record: an integer (integral floats too), or a finite number
    >= 0 when weighted."""
    expected = "a finite number >= 0 (a sum of weights)" if weighted else "an integer >= 0"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _bad(where, expected, value)
    if weighted:
        if not (math.isfinite(value) and value >= 0):
            raise _bad(where, expected, value)
        return float(value)
    if isinstance(value, float) and not value.is_integer():
        raise _bad(where, expected, value)
    if not 0 <= value <= _INT64_RANGE[1]:
        raise _bad(where, expected, value)
    return int(value)


def _tuning_from_json(spec: Any, thresholds: NDArray[np.float64]) -> TuningCounts | None:
    if spec is None:
        return None
    field = "tuning"
    if not isinstance(spec, Mapping):
        raise _bad(field, "an object with " + ", ".join(_TUNING_FIELDS) + " (or null)", spec)
    keys = set(spec)
    if keys != set(_TUNING_FIELDS):
        missing = [k for k in _TUNING_FIELDS if k not in keys]
        extra = [_show(k) for k in keys if k not in _TUNING_FIELDS]
        raise ValueError(
            f"thresholds record field 'tuning': expected the keys {', '.join(_TUNING_FIELDS)}"
            + (f"; missing {', '.join(missing)}" if missing else "")
            + (f"; unknown {', '.join(extra)}" if extra else "")
        )
    weighted = spec["weighted"]
    if not isinstance(weighted, bool):
        raise _bad("tuning.weighted", "true or false", weighted)
    n_samples = _tuning_number(spec["n_samples"], "tuning.n_samples", weighted)
    columns: dict[str, Any] = {}
    for name in ("class_index", "support", "tp", "predicted"):
        values = spec[name]
        if not isinstance(values, list):
            raise _bad(f"tuning.{name}", "a list", values)
        as_weight = weighted and name != "class_index"
        numbers = [
            _tuning_number(v, f"tuning.{name}[{i}]", as_weight) for i, v in enumerate(values)
        ]
        columns[name] = np.array(numbers, dtype=np.float64 if as_weight else np.int64)
    try:
        return TuningCounts(thresholds=thresholds, n_samples=n_samples, **columns)
    except (TypeError, ValueError) as exc:
        hint = (
            " (the counts must be those of the record's thresholds: a record whose "
            "thresholds were edited drops 'tuning')"
            if str(exc).startswith("tuning counts:")
            else ""
        )
        raise ValueError(f"thresholds record field 'tuning': {exc}{hint}") from None


def _tuning_to_json(counts: TuningCounts) -> dict[str, Any]:
    return {
        "n_samples": counts.n_samples,
        "weighted": counts.weighted,
        "class_index": counts.class_index.tolist(),
        "support": counts.support.tolist(),
        "tp": counts.tp.tolist(),
        "predicted": counts.predicted.tolist(),
    }


def _class_frame(
    index: list[Any] | None,
    *,
    threshold: NDArray[np.float64],
    cut: tuple[NDArray[np.int64], NDArray[np.int64]] | None,
    kept: NDArray[np.int64] | None,
    support: NDArray[np.float64],
    tp: NDArray[np.float64],
    predicted: NDArray[np.float64],
    n_samples: float,
    weighted: bool,
    beta: float,
    zero_division: float,
) -> Any:
    """One row per class column: the table of :meth:`ThresholdResult.to_pandas` (private).

    ``support``, ``tp`` and ``predicted`` are floats, NaN where unknown; ``cut`` is (the kept
    columns, their cuts) or ``None`` (no cut column values: all NA); ``kept`` the kept
    columns or ``None`` (unknown). Needs pandas.
    """
    import pandas as pd

    n_cols = threshold.shape[0]
    frame = pd.DataFrame(
        {"threshold": np.asarray(threshold, dtype=np.float64)},
        index=index if index is not None else pd.RangeIndex(n_cols),
    )
    cuts = pd.array([pd.NA] * n_cols, dtype="Int64")
    if cut is not None:
        cuts[cut[0]] = cut[1]
    frame["cut"] = cuts
    if kept is None:
        frame["kept"] = pd.array([pd.NA] * n_cols, dtype="boolean")
    else:
        is_kept = np.zeros(n_cols, dtype=bool)
        is_kept[kept] = True
        frame["kept"] = is_kept
    known = ~(np.isnan(support) | np.isnan(tp) | np.isnan(predicted))
    fp = predicted - tp
    fn = support - tp
    for name, measure in (
        ("precision", lambda: measures.precision(tp[known], fp[known], zero_division)),
        ("recall", lambda: measures.recall(tp[known], fn[known], zero_division)),
        (
            "f",
            lambda: measures.f_beta_from_counts(
                tp[known], fp[known], fn[known], beta, zero_division
            ),
        ),
    ):
        column = np.full(n_cols, np.nan)
        if known.any():
            column[known] = measure()
        frame[name] = column
    count_dtype = "Float64" if weighted else "Int64"
    for name, values in (("support", support), ("tp", tp), ("fp", fp), ("predicted", predicted)):
        frame[name] = pd.array(
            [pd.NA if math.isnan(v) else (v if weighted else int(v)) for v in values.tolist()],
            dtype=count_dtype,
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = predicted / n_samples if n_samples > 0 else np.full(n_cols, np.nan)
    frame["predicted_rate"] = rate
    return frame


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


# --------------------------------------------------------------------------- tuning counts


def _tuning_thresholds(values: Any) -> NDArray[np.float64]:
    arr = np.asarray(values)
    if arr.dtype.kind not in "iuf" or arr.ndim != 1 or arr.size == 0:
        raise ValueError(
            f"thresholds must be a 1-D array of real numbers, one per column, got "
            f"{arr.dtype} {arr.shape}"
        )
    return frozen_array(arr, np.float64)


def _tuning_size(value: Any) -> int | float:
    """Converter of ``n_samples``: an int (rows), or a float (their total weight)."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise TypeError(f"n_samples must be a number, got {type(value).__name__}")
    return float(value) if isinstance(value, (float, np.floating)) else int(value)


def _tuning_index(values: Any) -> NDArray[np.int64]:
    arr = np.asarray(values)
    if arr.dtype.kind not in "iu" or arr.ndim != 1:
        raise TypeError(
            f"class_index must be a 1-D array of column numbers, got {arr.dtype} {arr.shape}"
        )
    return frozen_array(arr, np.int64)


def _tuning_count(values: Any) -> NDArray[Any]:
    """Converter of the per-column counts: int64, or float64 when they are sums of weights."""
    arr = np.asarray(values)
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"tuning counts must be numbers, got dtype {arr.dtype}")
    return frozen_array(arr, np.float64 if arr.dtype.kind == "f" else np.int64)


@read_only_copies
@attrs.frozen(eq=False)
class TuningCounts:
    """What a result's thresholds predict on the rows they were tuned on, column by column.

    The threshold methods that search class points (:func:`~fmacro.optimize.tune`,
    :func:`~fmacro.optimize.fixed_point`, :func:`~fmacro.optimize.exact`,
    :func:`~fmacro.optimize.per_class`, :func:`~fmacro.optimize.global_threshold`, ...)
    attach these to their result (:attr:`ThresholdResult.tuning`): for each kept class the
    chosen cut's counts, for every other column what its threshold predicts on the same
    rows. Counts are integers, or sums of sample weights (floats, with ``n_samples`` the
    total weight) for points built with ``sample_weight``.

    Attributes
    ----------
    thresholds : ndarray of float64, shape (n_columns,)
        The thresholds counted. A result keeps its counts only while its thresholds are
        these (``attrs.evolve(result, thresholds=new)`` has ``tuning=None``).
    n_samples : int or float
        Number of tuning rows N (their total weight when weighted).
    class_index : ndarray of int64, shape (n_kept,)
        The kept columns (those averaged in the result's P and R), increasing: one per cut.
    support, tp, predicted : ndarray, shape (n_columns,)
        Per column: the positives among the tuning rows, the true positives of
        ``score >= threshold`` and the predicted objects (``tp + fp``); int64, or float64
        when weighted. A column that is not kept has no positives.
    """

    thresholds: NDArray[np.float64] = attrs.field(converter=_tuning_thresholds)
    n_samples: int | float = attrs.field(converter=_tuning_size)
    class_index: NDArray[np.int64] = attrs.field(converter=_tuning_index)
    support: NDArray[Any] = attrs.field(converter=_tuning_count)
    tp: NDArray[Any] = attrs.field(converter=_tuning_count)
    predicted: NDArray[Any] = attrs.field(converter=_tuning_count)

    def __attrs_post_init__(self) -> None:
        n = self.thresholds.shape[0]
        weighted = isinstance(self.n_samples, float)
        for name in ("support", "tp", "predicted"):
            values = getattr(self, name)
            if values.shape != (n,):
                raise ValueError(
                    f"{name} must have one entry per column, shape ({n},), got {values.shape}"
                )
            if (values.dtype == np.float64) != weighted:
                raise ValueError(
                    "tuning counts must be all integers (n_samples an int) or all sums of "
                    f"weights (n_samples a float); n_samples is {self.n_samples!r} and {name} "
                    f"has dtype {values.dtype}"
                )
            bad = ~(np.isfinite(values) & (values >= 0)) if weighted else values < 0
            if bad.any():
                j = int(np.flatnonzero(bad)[0])
                raise ValueError(
                    f"{name} must be non-negative counts, got {values[j].item()!r} in column {j}"
                )
        size = self.n_samples
        if not (math.isfinite(size) and size >= 0):
            raise ValueError(f"n_samples must be a finite number >= 0, got {size!r}")
        kept = self.class_index
        if not 1 <= kept.size <= n or kept[0] < 0 or kept[-1] >= n or (np.diff(kept) <= 0).any():
            raise ValueError(
                f"class_index must hold 1 to {n} increasing column numbers in [0, {n}), "
                f"got {kept.tolist()[:5]}{' ...' if kept.size > 5 else ''}"
            )
        left_out = np.ones(n, dtype=bool)
        left_out[kept] = False
        self._refuse(left_out & (self.support != 0), "a column that is not kept has positives")
        # sums of weights may differ from n_samples (summed in another order) by rounding
        slack = _ROUNDING * max(1.0, float(size)) if weighted else 0
        tp, support, predicted = self.tp, self.support, self.predicted
        self._refuse(tp > support + slack, "tp exceeds the positives (support)")
        self._refuse(tp > predicted + slack, "tp exceeds the predicted objects")
        self._refuse(support > size + slack, "the positives (support) exceed n_samples")
        self._refuse(predicted > size + slack, "the predicted objects exceed n_samples")
        t = self.thresholds
        self._refuse(np.isposinf(t) & (predicted != 0), "a +inf threshold predicts objects")
        self._refuse(
            np.isneginf(t) & (np.abs(predicted - size) > slack),
            "a -inf threshold predicts fewer objects than n_samples",
        )

    def _refuse(self, bad: NDArray[np.bool_], what: str) -> None:
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"tuning counts: {what} in column {j} (threshold {self.thresholds[j].item()!r}, "
                f"support {self.support[j].item()!r}, tp {self.tp[j].item()!r}, predicted "
                f"{self.predicted[j].item()!r}, n_samples {self.n_samples!r})"
            )

    @classmethod
    def from_points(
        cls,
        points: ClassPoints,
        cuts: ArrayLike,
        thresholds: ArrayLike | None = None,
        *,
        unseen_predicted: ArrayLike | None = None,
    ) -> TuningCounts:
        """The counts of local ``cuts`` of ``points`` (one per kept class).

        ``thresholds`` (per column; default: those of the cuts, ``+inf`` off the kept
        columns) are what the counts describe; a column that is not kept predicts nothing
        at ``+inf`` and every object at ``-inf``. ``unseen_predicted`` gives what the
        other columns that are not kept predict on the same rows (one entry per such
        column, in column order; needed when one of their thresholds is finite).
        """
        local = check_cuts(points, cuts)
        thr = points.thresholds_at(local) if thresholds is None else np.asarray(thresholds)
        at = points.indptr[:-1] + local
        n_cols = points.n_columns
        kept = np.asarray(points.class_index, dtype=np.int64)
        dtype = np.float64 if points.weighted else np.int64
        tp = np.zeros(n_cols, dtype=dtype)
        support = np.zeros(n_cols, dtype=dtype)
        predicted = np.zeros(n_cols, dtype=dtype)
        tp[kept] = points.tp[at]
        predicted[kept] = points.tp[at] + points.fp[at]
        support[kept] = points.support
        left_out = np.ones(n_cols, dtype=bool)
        left_out[kept] = False
        others = np.flatnonzero(left_out)
        if unseen_predicted is not None:
            predicted[others] = np.asarray(unseen_predicted)
        else:
            finite = np.isfinite(np.asarray(thr, dtype=np.float64)[others])
            if finite.any():
                raise ValueError(
                    f"column {int(others[finite][0])} is not kept but has a finite threshold: "
                    "give what it predicts (unseen_predicted)"
                )
            predicted[others[np.isneginf(np.asarray(thr, dtype=np.float64)[others])]] = (
                points.n_samples
            )
        return cls(thr, points.n_samples, kept, support, tp, predicted)

    @property
    def weighted(self) -> bool:
        """Whether the counts are sums of sample weights (floats)."""
        return isinstance(self.n_samples, float)

    @property
    def fp(self) -> NDArray[Any]:
        """False positives per column: ``predicted - tp``."""
        out: NDArray[Any] = self.predicted - self.tp
        return out

    @property
    def predicted_rate(self) -> NDArray[np.float64]:
        """Share of the tuning rows each column predicts: ``predicted / n_samples``."""
        if not self.n_samples:
            return np.full(self.predicted.shape, np.nan)
        return np.asarray(self.predicted / self.n_samples, dtype=np.float64)

    @property
    def labels_per_object(self) -> float:
        """Mean number of labels the thresholds predict per tuning row (NaN for no rows)."""
        return float(self.predicted.sum() / self.n_samples) if self.n_samples else math.nan

    @property
    def true_labels_per_object(self) -> float:
        """Mean number of true labels per tuning row (NaN for no rows)."""
        return float(self.support.sum() / self.n_samples) if self.n_samples else math.nan


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
        return _class_frame(
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
        if self.tuning is not None:
            record["tuning"] = _tuning_to_json(self.tuning)
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
        thresholds = _thresholds_from_json(data["thresholds"], rule is not None)
        fields: dict[str, Any] = {
            "thresholds": thresholds,
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
            result = cls(**fields)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"thresholds record breaks the schema: {exc}") from None
        # checked once the fields it must fit are known good
        counts = _tuning_from_json(data.get("tuning"), thresholds)
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
        # Each input is checked once here; the helpers below take checked values.
        cuts_arr = check_cuts(points, cuts)
        b = check_beta(beta)
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
    def apply(self, scores: NDArray[Any]) -> NDArray[np.bool_]: ...
    @overload
    def apply(self, scores: Any) -> Any: ...
    def apply(self, scores: Any) -> Any:
        """Predictions for new scores by this result's :attr:`rule`, shape ``(N, n_columns)``.

        ``scores`` is dense, scipy sparse or a pandas DataFrame; a missing sparse entry is
        below every threshold except ``-inf`` (so it is predicted only by an all-objects
        cut). A ``top_k`` (RCut) result is a per-object rule: it predicts each object's
        ``k`` highest-scored classes. A pandas DataFrame of scores must have this result's
        :attr:`classes` as its columns, in order, when the result has class names (the
        threshold methods take them from DataFrame inputs); else columns are taken by
        position.

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
        """
        check_frame_columns(scores, self.classes, "scores")
        return self.rule.apply(scores)
