"""The frozen result every threshold-search method returns."""

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
from fmacro.validation.checks import check_beta
from fmacro.validation.counts import frozen_array
from fmacro.validation.measures import f_beta_from_pr

__all__ = ["ThresholdResult", "evaluate_cuts", "freeze_mapping", "macro_pr"]


def _ro_float(arr: Any) -> NDArray[np.float64]:
    return frozen_array(arr, np.float64)


def _ro_int(arr: Any) -> NDArray[np.int64]:
    return frozen_array(arr, np.int64)


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


def _class_names(values: Any) -> tuple[str, ...] | None:
    if values is None:
        return None
    if isinstance(values, str):
        raise TypeError("classes must be a sequence of names, got a single str")
    return tuple(str(v) for v in values)


def _json_float(x: float) -> float | str:
    return x if math.isfinite(x) else str(x)  # 'inf', '-inf', 'nan'


def _from_json_float(x: float | str) -> float:
    if isinstance(x, str) and x not in ("inf", "-inf", "nan"):
        raise ValueError(f"expected a number or 'inf', '-inf', 'nan', got {x!r}")
    return float(x)


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


def _from_json_value(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _from_json_value(v) for k, v in value.items()}
    if isinstance(value, list):
        items = [_from_json_value(v) for v in value]
        numeric = (
            all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in items) and items
        )
        return np.asarray(items) if numeric else items
    if value in ("inf", "-inf", "nan"):
        return float(value)
    return value


def _rebuild_result(fields: dict[str, Any]) -> ThresholdResult:
    return ThresholdResult(**fields)


def _macro_pr_at(points: ClassPoints, cuts: NDArray[np.int64]) -> tuple[float, float]:
    idx = points.indptr[:-1] + cuts
    n = points.n_classes
    return float(np.sum(points.precision[idx]) / n), float(np.sum(points.recall[idx]) / n)


def macro_pr(points: ClassPoints, cuts: ArrayLike) -> tuple[float, float]:
    """Macro precision P and macro recall R of local ``cuts`` (one per kept class)."""
    return _macro_pr_at(points, check_cuts(points, cuts))


def evaluate_cuts(
    points: ClassPoints, cuts: ArrayLike, beta: float = 1.0
) -> tuple[float, float, float]:
    """(P, R, F_beta(P, R)) of local ``cuts``.

    P and R are plain means over the kept classes; a NaN precision (empty cut under
    ``zero_division=nan``) makes P and F NaN.
    """
    b = check_beta(beta)
    p, r = macro_pr(points, cuts)
    return p, r, float(f_beta_from_pr(p, r, b))


@attrs.frozen(eq=False)
class ThresholdResult:
    """Thresholds found by one method, with their F-macro and (maybe) a certificate.

    Attributes
    ----------
    thresholds : ndarray of float64, shape (n_columns,)
        One per ORIGINAL class column, in score space: predict positive iff
        ``score >= threshold``. Columns excluded from the optimization (no positives)
        get ``+inf`` (never predicted); ``-inf`` predicts every object.
    cuts : ndarray of int64, shape (n_classes,)
        Chosen cut of each kept class: its number among ALL cuts of the class's ranking
        (0 = empty), also when the search ran on points built with ``dominated="drop"``;
        :meth:`ClassPoints.local_cuts` maps it to an index into any points of the data.
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
        Read-only method-specific extras (arrays are read-only).
    rule : PerClassThresholds or TopK
        How :meth:`apply` predicts new data: per-class ``score >= threshold`` (the
        default, built from ``thresholds``), or each object's top ``k`` classes (RCut).
    classes : tuple of str, or None
        Name of each threshold column: the columns of DataFrame scores or labels the
        method was given (:meth:`with_classes` sets them otherwise). When known,
        :meth:`apply` and :func:`~fmacro.optimize.evaluate_thresholds` check a
        DataFrame's columns against them, and :meth:`save` keeps them.
    """

    thresholds: NDArray[np.float64] = attrs.field(converter=_ro_float)
    cuts: NDArray[np.int64] = attrs.field(converter=_ro_int)
    precision: float = attrs.field(converter=float)
    recall: float = attrs.field(converter=float)
    f: float = attrs.field(converter=float)
    upper_bound: float = attrs.field(converter=float)
    gap: float = attrs.field(converter=float)
    method: str = attrs.field(converter=str)
    beta: float = attrs.field(converter=float)
    zero_division: float = attrs.field(converter=float)
    diagnostics: Mapping[str, Any] = attrs.field(converter=freeze_mapping, factory=dict)
    rule: PerClassThresholds | TopK = attrs.field(
        default=attrs.Factory(lambda self: PerClassThresholds(self.thresholds), takes_self=True)
    )
    classes: tuple[str, ...] | None = attrs.field(default=None, converter=_class_names)

    @classes.validator
    def _one_name_per_threshold(self, _attribute: Any, value: tuple[str, ...] | None) -> None:
        if value is not None and len(value) != self.thresholds.shape[0]:
            raise ValueError(
                f"classes must name each of the {self.thresholds.shape[0]} threshold columns, "
                f"got {len(value)} names"
            )

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the result: ``.json`` (everything, :meth:`to_dict`) or ``.npy`` (thresholds).

        ``.npy`` holds only the per-class thresholds (positive iff ``score >= threshold``);
        a ``top_k`` result has none and needs ``.json``.
        """
        target = Path(path)
        suffix = target.suffix.lower()
        if suffix == ".json":
            target.write_text(json.dumps(self.to_dict(), indent=1), encoding="utf-8")
        elif suffix == ".npy":
            if isinstance(self.rule, TopK):
                raise ValueError(f"{path}: a top_k result has no per-class thresholds; use .json")
            np.save(target, np.asarray(self.thresholds))
        else:
            raise ValueError(f"{path}: save thresholds as .json or .npy, got {suffix!r}")

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> ThresholdResult:
        """Read a result written by :meth:`save` as ``.json``."""
        source = Path(path)
        try:
            data = json.loads(source.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"{path}: not a readable thresholds JSON file ({exc})") from None
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
        """The same result with column names (one per threshold), kept when saved."""
        return attrs.evolve(self, classes=classes)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict of the result (see :func:`fmacro.optimize.io.save_thresholds`).

        Non-finite floats (``+inf`` = never predict, ``-inf`` = always, ``nan``) are written
        as the strings ``"inf"``, ``"-inf"`` and ``"nan"``: JSON has no such numbers.
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
            "classes": None if self.classes is None else list(self.classes),
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
        """Inverse of :meth:`to_dict` (lists of numbers in ``diagnostics`` become arrays)."""
        if not isinstance(data, Mapping) or data.get("format") != _FORMAT:
            raise ValueError(f"not an fmacro thresholds record (expected format {_FORMAT!r})")
        if data.get("version") != _VERSION:
            raise ValueError(
                f"thresholds record version {data.get('version')!r} is not supported "
                f"(this fmacro reads version {_VERSION})"
            )
        try:
            rule_spec = data["rule"]
            thresholds = np.array([_from_json_float(t) for t in data["thresholds"]], np.float64)
            fields = {
                "thresholds": thresholds,
                "cuts": np.asarray(data["cuts"], dtype=np.int64),
                "method": data["method"],
                "beta": data["beta"],
                "zero_division": _from_json_float(data["zero_division"]),
                "classes": data.get("classes"),
                "diagnostics": _from_json_value(data.get("diagnostics", {})),
                **{k: _from_json_float(data[k]) for k in _SCORE_FIELDS},
            }
        except (KeyError, TypeError) as exc:
            raise ValueError(f"thresholds record is missing or has a bad field: {exc}") from None
        if rule_spec.get("kind") == "top_k":
            fields["rule"] = TopK(rule_spec["k"])
        elif rule_spec.get("kind") != "per_class_thresholds":
            raise ValueError(f"unknown decision rule {rule_spec!r}")
        return cls(**fields)

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
        # rebuild from plain fields (the converters freeze them again).
        fields = attrs.asdict(self, recurse=False)
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
