"""The saved record of a threshold result: its JSON schema, written and read.

:meth:`fmacro.optimize.search.result.ThresholdResult.to_dict` documents the schema field
by field; this module holds what checks it: the converters of the result's fields (each
refuses what the schema refuses, so a built result always has a record), the writers of
JSON values (non-finite floats as ``"inf"``, ``"-inf"``, ``"nan"``), and the readers of a
record (:func:`read_record`, :func:`tuning_from_json`), whose errors name the field.
Internal (not user API): :mod:`fmacro.optimize.search.result` builds on it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.rules import TopK
from fmacro.optimize.search.tuning_counts import TuningCounts
from fmacro.validation.counts import frozen_array
from fmacro.validation.names import ClassName, names_from_json

__all__ = [
    "FORMAT",
    "VERSION",
    "cut_values",
    "diagnostics_mapping",
    "freeze_mapping",
    "json_float",
    "json_value",
    "method_name",
    "read_record",
    "real_number",
    "thaw_mapping",
    "threshold_values",
    "tuning_from_json",
    "tuning_to_json",
]


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


FORMAT = "fmacro.thresholds"
VERSION = 1
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


def real_number(value: Any, name: str) -> float:
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


def threshold_values(values: Any) -> NDArray[np.float64]:
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


def cut_values(values: Any) -> NDArray[np.int64]:
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


def method_name(value: Any) -> str:
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


def diagnostics_mapping(values: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """Converter of ``diagnostics``: a read-only mapping of JSON values (saved as they are)."""
    if values is None:
        return MappingProxyType({})
    if not isinstance(values, Mapping):
        raise TypeError(f"diagnostics must be a mapping, got {type(values).__name__}")
    _json_safe(values, "diagnostics", 0)
    return freeze_mapping(values)


def json_float(x: float) -> float | str:
    return x if math.isfinite(x) else str(x)  # 'inf', '-inf', 'nan'


def json_value(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return json_value(value.tolist())
    if isinstance(value, Mapping):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    if isinstance(value, (np.floating, float)):
        return json_float(float(value))
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


def tuning_from_json(spec: Any, thresholds: NDArray[np.float64]) -> TuningCounts | None:
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


def tuning_to_json(counts: TuningCounts) -> dict[str, Any]:
    return {
        "n_samples": counts.n_samples,
        "weighted": counts.weighted,
        "class_index": counts.class_index.tolist(),
        "support": counts.support.tolist(),
        "tp": counts.tp.tolist(),
        "predicted": counts.predicted.tolist(),
    }


def read_record(data: Any) -> tuple[dict[str, Any], Any]:
    """The :class:`~fmacro.optimize.search.result.ThresholdResult` fields of a record.

    Checks ``format``, ``version``, the field names and every field but ``tuning`` against
    the schema (:meth:`~fmacro.optimize.search.result.ThresholdResult.to_dict`); returns
    the constructor's arguments and the record's ``tuning`` as it is (``None`` when
    absent), for :func:`tuning_from_json` once the result is built.
    """
    if not isinstance(data, Mapping) or data.get("format") != FORMAT:
        raise ValueError(f"not an fmacro thresholds record (expected format {FORMAT!r})")
    version = data.get("version")
    if isinstance(version, bool) or version != VERSION:
        raise ValueError(
            f"thresholds record version {_show(version)} is not supported "
            f"(this fmacro reads version {VERSION})"
        )
    unknown = [_show(k) for k in data if k not in _FIELDS]
    if unknown:
        raise ValueError(
            f"thresholds record has unknown field(s) {', '.join(unknown)}; "
            f"version {VERSION} has {', '.join(_FIELDS)}"
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
    return fields, data.get("tuning")
