"""The frozen result every threshold-search method returns."""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import attrs
import numpy as np
from numpy.typing import ArrayLike, NDArray

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
        Chosen cut of each kept class (index into that class's cuts).
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
        """Build a result from local cuts: thresholds, P, R and F are derived."""
        # Each input is checked once here; the helpers below take checked values.
        cuts_arr = check_cuts(points, cuts)
        b = check_beta(beta)
        p, r = _macro_pr_at(points, cuts_arr)
        f = float(f_beta_from_pr(p, r, b))
        ub = float(upper_bound)
        return cls(
            thresholds=points.thresholds_at(cuts_arr),
            cuts=cuts_arr,
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
        highest-scored classes.
        """
        return self.rule.apply(scores)
