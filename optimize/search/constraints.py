"""Per-class constraints on the cuts: a minimum precision and a maximum predicted rate.

``min_precision=`` and ``max_predicted_rate=`` (on :func:`~fmacro.optimize.tune`,
:func:`~fmacro.optimize.fixed_point`, :func:`~fmacro.optimize.exact`,
:func:`~fmacro.optimize.domain`, :func:`~fmacro.optimize.per_class`,
:func:`~fmacro.optimize.cyclic`, the estimator and the CLI) say which thresholds a user
can deploy: a class may only take a cut whose *raw* precision ``tp / (tp + fp)`` on the
tuning rows is at least its ``min_precision``, and which predicts at most a share
``max_predicted_rate`` of the tuning rows (``(tp + fp) / N``; with sample weights both
are ratios of weights). Each is a scalar for every class or one value per class column,
in [0, 1]. The empty cut (the class is never predicted, threshold ``+inf``) predicts
nothing and so makes no wrong prediction: it meets every constraint.

Why the certificates still hold
-------------------------------
A constraint is a property of one cut of one class; it does not depend on the other
classes' cuts. The feasible thresholds are therefore the product, over the classes, of
each class's feasible cuts: the same kind of problem as before, on fewer points per
class. Every method takes a problem of that kind as its input (its points are any
subsets of cuts in ranking order): the linearization works on the convex hull of each
class's given points, the exact step branches over the given points, and the upper bound
of :func:`~fmacro.optimize.fixed_point` (and of ``exact`` and ``domain``) bounds the
best F-macro over the given points. Filtering the points first (:func:`feasible_points`)
thus makes ``upper_bound`` a bound over the *feasible* thresholds and ``gap == 0`` a
proof of the constrained optimum. Dropping dominated cuts (same tp as the cut before,
more objects) commutes with the filter: the cut before a feasible dominated cut has the
same tp in fewer objects, so a precision no lower and a rate no higher, and is feasible
too (or is the empty cut, always feasible). Tested against brute force over the
feasible cuts on small instances (tests/test_constraints.py).

Under ``zero_division=nan`` the empty cut is unusable, so a class with tuning positives
whose only feasible cut is the empty one makes the problem infeasible: refused with a
``ValueError`` naming the columns.
"""

from __future__ import annotations

import math
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.inputs import label_rows, matrix_shape
from fmacro.optimize.offsets import group_of_entries, indptr_from_counts, row_of_entries
from fmacro.optimize.search.points import ClassPoints
from fmacro.optimize.search.result import ThresholdResult
from fmacro.validation.counts import frozen_array
from fmacro.validation.values import read_only_copies
from fmacro.validation.weights import check_sample_weight

__all__ = [
    "CutConstraints",
    "check_constraints",
    "constrained",
    "cuts_to_keep",
    "feasible_cuts",
    "feasible_points",
    "feasible_start",
    "keep_cuts",
    "noted",
    "rate_caps",
]


def _frozen(values: Any) -> NDArray[np.float64]:
    return frozen_array(values, np.float64)


@read_only_copies
@attrs.frozen(eq=False)
class CutConstraints:
    """Checked per-column constraints (built by :func:`check_constraints`).

    Attributes
    ----------
    min_precision : ndarray of float64, shape (n_columns,)
        Lowest raw tuning precision a non-empty cut of each column may have (0: none).
    max_predicted_rate : ndarray of float64, shape (n_columns,)
        Highest share of the tuning rows a cut of each column may predict (1: none).
    """

    min_precision: NDArray[np.float64] = attrs.field(converter=_frozen)
    max_predicted_rate: NDArray[np.float64] = attrs.field(converter=_frozen)

    def binds(self, columns: NDArray[np.int64]) -> bool:
        """Whether a constraint can remove a cut of some of ``columns``."""
        return bool(
            (self.min_precision[columns] > 0.0).any()
            or (self.max_predicted_rate[columns] < 1.0).any()
        )

    def to_dict(self) -> dict[str, list[float]]:
        """Plain lists, for a result's diagnostics and JSON."""
        return {
            "min_precision": self.min_precision.tolist(),
            "max_predicted_rate": self.max_predicted_rate.tolist(),
        }


def _per_column(value: Any, n_columns: int, name: str, default: float) -> NDArray[np.float64]:
    """``value`` (None, a number, or one number per column) as a float64 array of shape
    ``(n_columns,)`` with values in [0, 1]."""
    if value is None:
        return np.full(n_columns, default)
    if isinstance(value, (bool, np.bool_, str, bytes)):
        raise TypeError(f"{name} must be a number in [0, 1] or one per class column, got {value!r}")
    index = getattr(value, "index", None) if hasattr(value, "iloc") else None  # pandas
    if index is not None and not _positional(index, n_columns):
        # a labelled Series would be read by position, not matched to the columns by name
        raise TypeError(
            f"{name}: a pandas Series with a labelled index would be matched to the class "
            "columns by position, not by its labels; pass "
            f"{name}=series[list(scores.columns)].to_numpy() (the scores' column order)"
        )
    try:
        arr = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"{name} must be a number in [0, 1] or one per class column, got {type(value).__name__}"
        ) from None
    if np.asarray(value).dtype.kind == "b":
        raise TypeError(f"{name} must hold numbers, not booleans")
    if arr.ndim == 0:
        arr = np.full(n_columns, float(arr))
    elif arr.shape != (n_columns,):
        raise ValueError(
            f"{name} must be a number or one value per class column, shape ({n_columns},), "
            f"got shape {arr.shape}"
        )
    bad = ~((arr >= 0.0) & (arr <= 1.0))  # NaN is bad too
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name} must lie in [0, 1], got {arr[j]!r} for column {j}")
    return arr


def _positional(index: Any, n: int) -> bool:
    """Whether a pandas index is 0, 1, ..., n - 1 (a Series built from a plain list)."""
    try:
        return bool(np.array_equal(np.asarray(index), np.arange(n)))
    except (TypeError, ValueError):
        return False


def check_constraints(
    min_precision: Any, max_predicted_rate: Any, n_columns: int
) -> CutConstraints | None:
    """The checked constraints of a public entry, or None when neither is given.

    Each of ``min_precision`` and ``max_predicted_rate`` is None, a number in [0, 1], or
    one such number per class column (a sequence or array of length ``n_columns``).

    Raises
    ------
    TypeError
        A value that is not a number (a bool, a string, ...).
    ValueError
        A value outside [0, 1] (or NaN), or a sequence of the wrong length.
    """
    if min_precision is None and max_predicted_rate is None:
        return None
    return CutConstraints(
        _per_column(min_precision, n_columns, "min_precision", 0.0),
        _per_column(max_predicted_rate, n_columns, "max_predicted_rate", 1.0),
    )


def feasible_cuts(points: ClassPoints, constraints: CutConstraints) -> NDArray[np.bool_]:
    """Which cuts of ``points`` meet the constraints of their class (one bool per cut).

    A cut of j > 0 objects (or weight) with tp positives is feasible when
    ``tp / j >= min_precision`` and ``j / N <= max_predicted_rate`` of its column (both
    computed as float64 ratios, the precision exactly as :attr:`ClassPoints.precision`
    computes it); a cut of nothing is always feasible.
    """
    owner = group_of_entries(points.n_cuts)
    cols = np.asarray(points.class_index)[owner]
    tp = np.asarray(points.tp, dtype=np.float64)
    j = tp + np.asarray(points.fp, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        precise = tp / j >= constraints.min_precision[cols]
        sparing = j / float(points.n_samples) <= constraints.max_predicted_rate[cols]
    return np.asarray((j == 0.0) | (precise & sparing), dtype=np.bool_)


def keep_cuts(points: ClassPoints, keep: NDArray[np.bool_]) -> ClassPoints:
    """``points`` with only the cuts where ``keep`` is True (cut 0, the empty cut, must
    be kept): raw :class:`ClassPoints` whose ``full_cut`` numbers the kept cuts among
    every cut of their class's ranking, so results report the same cut numbers."""
    counts = np.bincount(group_of_entries(points.n_cuts)[keep], minlength=points.n_classes)
    number = (
        np.arange(points.tp.shape[0], dtype=np.int64) - np.repeat(points.indptr[:-1], points.n_cuts)
        if points.full_cut is None
        else np.asarray(points.full_cut)
    )
    return ClassPoints(
        indptr_from_counts(counts),
        np.asarray(points.tp)[keep],
        np.asarray(points.fp)[keep],
        np.asarray(points.threshold)[keep],
        points.support,
        points.class_index,
        points.n_samples,
        points.n_columns,
        points.zero_division,
        full_cut=number[keep],
    )


def cuts_to_keep(
    points: ClassPoints, constraints: CutConstraints | None
) -> NDArray[np.bool_] | None:
    """The feasible-cut mask of ``points`` (:func:`feasible_cuts`), or None when the
    constraints remove no cut (or there are none).

    Raises
    ------
    ValueError
        Under ``zero_division=nan``, when a class's only feasible cut is the empty one.
    """
    if constraints is None:
        return None
    keep = feasible_cuts(points, constraints)
    if keep.all():
        return None
    if math.isnan(points.zero_division):
        usable = np.bincount(
            group_of_entries(points.n_cuts)[keep & (points.tp + points.fp > 0)],
            minlength=points.n_classes,
        )
        stuck = np.asarray(points.class_index)[usable == 0]
        if stuck.size:
            raise ValueError(
                "under zero_division=nan every class must predict something, but no "
                f"non-empty cut of column(s) {stuck[:10].tolist()} meets min_precision / "
                "max_predicted_rate on the tuning rows; loosen them or use zero_division=0"
            )
    return keep


def feasible_points(points: ClassPoints, constraints: CutConstraints | None) -> ClassPoints:
    """The raw points of the feasible cuts (``points`` itself when nothing is removed).

    Raises
    ------
    ValueError
        As :func:`cuts_to_keep`.
    """
    keep = cuts_to_keep(points, constraints)
    return points if keep is None else keep_cuts(points, keep)


def constrained(
    points: ClassPoints, min_precision: Any, max_predicted_rate: Any
) -> tuple[ClassPoints, CutConstraints | None]:
    """A search method's points restricted to the feasible cuts, with the checked
    constraints (the points as they are, and None, when no constraint is given)."""
    checked = check_constraints(min_precision, max_predicted_rate, points.n_columns)
    return feasible_points(points, checked), checked


def noted(result: ThresholdResult, constraints: CutConstraints | None) -> ThresholdResult:
    """``result`` with ``diagnostics["constraints"]`` (the per-column values) when a
    constraint was given; else ``result`` itself."""
    if constraints is None:
        return result
    return attrs.evolve(
        result, diagnostics={**result.diagnostics, "constraints": constraints.to_dict()}
    )


def capped_rates(rates: NDArray[np.float64], factor: float) -> NDArray[np.float64]:
    """``factor`` times each rate, at most 1: a ``max_predicted_rate`` per column."""
    return np.minimum(1.0, factor * np.asarray(rates, dtype=np.float64))


def rate_caps(
    labels: Any, factor: float = 2.0, *, sample_weight: Any = None
) -> NDArray[np.float64]:
    """``max_predicted_rate`` of each column: ``factor`` times its rate in ``labels``, at most 1.

    Capping every class at ``factor`` times its base rate caps the mean number of labels
    per tuning object at ``factor`` times the true mean (the sum of the rates), whatever
    the scores; a class without positives is never predicted. Pass the result as
    ``max_predicted_rate=`` (docs/f-macro.md, "Thresholds people can deploy", measures
    the trade-off it buys).

    Parameters
    ----------
    labels
        The tuning labels: a 0/1 matrix ``(N, n)``, dense, DataFrame or scipy sparse.
    factor
        A number > 0.
    sample_weight
        One non-negative weight per row: the rates are shares of weight.

    Examples
    --------
    >>> import numpy as np
    >>> labels = np.array([[1, 0, 0], [1, 1, 0], [0, 0, 0], [1, 0, 0]])
    >>> rate_caps(labels, 2.0).tolist()
    [1.0, 0.5, 0.0]
    """
    if isinstance(factor, (bool, np.bool_)) or not isinstance(factor, (int, float, np.number)):
        raise TypeError(f"factor must be a number > 0, got {factor!r}")
    if not (math.isfinite(float(factor)) and factor > 0):
        raise ValueError(f"factor must be a finite number > 0, got {factor!r}")
    n_obj, n_cols = matrix_shape(labels, "labels")
    if n_obj == 0:
        raise ValueError("labels must have at least one row")
    weights = check_sample_weight(sample_weight, n_obj)
    rows = label_rows(labels)  # checked 0/1, dense or sparse
    w = np.ones(n_obj) if weights is None else weights
    hits = np.bincount(rows.indices, weights=w[row_of_entries(rows.indptr)], minlength=n_cols)
    total = float(n_obj) if weights is None else float(weights.sum())  # > 0: checked
    return capped_rates(hits / total, float(factor))


def feasible_start(feasible: ClassPoints, numbers: NDArray[np.int64]) -> NDArray[np.int64]:
    """Local cuts of the start's cut ``numbers`` among the ``feasible`` points; a start
    cut that breaks a constraint is refused by name."""
    try:
        return feasible.local_cuts(numbers)
    except ValueError:
        kept = np.asarray(feasible.full_cut)  # feasible points always number their cuts
        ok = np.zeros(numbers.size, dtype=bool)
        for k in range(numbers.size):
            ok[k] = int(numbers[k]) in kept[feasible.class_slice(k)]
        j = int(np.flatnonzero(~ok)[0])
        raise ValueError(
            f"the start's cut {int(numbers[j])} of column {int(feasible.class_index[j])} "
            "breaks min_precision / max_predicted_rate: start from feasible cuts"
        ) from None
