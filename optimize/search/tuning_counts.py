"""What a result's thresholds predict on the rows they were tuned on, column by column.

:class:`TuningCounts` is the value (checked on construction: the counts must fit their
thresholds) that the threshold methods attach to a result
(:attr:`~fmacro.optimize.search.result.ThresholdResult.tuning`), and :func:`class_table`
turns such counts into the per-column table of
:meth:`~fmacro.optimize.search.result.ThresholdResult.to_pandas`. The class is shown,
pickled and documented as ``fmacro.optimize.search.result.TuningCounts``, where it was
first defined.
"""

from __future__ import annotations

import math
from typing import Any

import attrs
import numpy as np
from numpy.typing import ArrayLike, NDArray

from fmacro.optimize.search.points import ClassPoints, check_cuts
from fmacro.validation import measures
from fmacro.validation.counts import frozen_array
from fmacro.validation.values import read_only_copies

__all__ = ["ROUNDING", "TuningCounts", "class_table"]

# F_beta(P, R) computed in floats can exceed 1 by an ulp (and weighted sums by a little more).
ROUNDING = 1e-9
"""Slack of the schema's upper limits: F may exceed 1 by ``ROUNDING``, and weighted counts
their limits (n_samples, support, predicted) by ``ROUNDING * max(1, n_samples)``."""


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
        slack = ROUNDING * max(1.0, float(size)) if weighted else 0
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


# Defined here, but ``fmacro.optimize.search.result`` is its public home: pickles, reprs and
# the docs name it there, as before this module was split off (result re-exports it).
TuningCounts.__module__ = "fmacro.optimize.search.result"


def class_table(
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
    """One row per class column: the table of :meth:`ThresholdResult.to_pandas`.

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
