"""``held_out_interval``: how high the F-macro of tuned thresholds will be on new data.

Thresholds tuned on N rows score an F-macro on those rows that new data will not repeat:
the search picked the cuts that happened to work on them (selection), and a batch of
new objects is itself a finite sample (batch noise: which rare classes occur in it, and
whether a rare class's threshold predicts any of its objects). :func:`held_out_interval`
returns the thresholds a method chooses on all the rows and an interval for the F-macro
(or macro-F) that these thresholds reach on a new batch of ``n_eval`` objects from the
same distribution.

The estimator (docs/held-out-interval.md has the reasoning and the measured coverage)
-----------------------------------------------------------------------------------
B bootstrap resamples of the rows (row ``i`` drawn ``w_i ~ Multinomial(N, 1/N)`` times;
the method runs on the rows repeated, which for :func:`~fmacro.optimize.tune` is exactly
its result with integer ``sample_weight=w``). For resample b, thresholds t_b:

* ``f_apparent``: the F of the final thresholds on all N rows (optimistic: they were
  selected there).
* ``f_out_of_bag``: the F of the counts of every t_b on its out-of-bag rows (the ~0.368 N
  rows it never saw), pooled over the resamples (Efron's leave-one-out bootstrap; pooling
  counts sums each object's contributions instead of averaging B noisy F values of
  0.368 N rows each). Pessimistic: t_b saw only ~0.632 N distinct rows.
* the centre blends the two: ``"632"`` (Efron 1983: 0.368 apparent + 0.632 out-of-bag;
  the default for ``tune``, whose smoothing keeps the overfitting moderate) or ``"632+"``
  (Efron and Tibshirani 1997: the weight of the out-of-bag value grows with the relative
  overfitting rate, up to 1, against the no-information F of each class predicted at its
  rate independently of its labels; the default for the unsmoothed methods, whose
  apparent F can be far above the held-out one), or ``"oob"`` (out-of-bag value alone).
* ``estimate`` = centre + small-batch shift: the mean F of the final thresholds on
  batches of ``n_eval`` rows drawn with replacement from the N rows, minus their F on all
  N rows (F-macro is not linear in counts: small batches miss rare classes, and a rare
  class's threshold may predict none of a batch's objects).

The interval is ``estimate`` + equal-tailed quantiles of the sum of two independent,
centred spreads, each drawn ``n_draws`` times (quantiles keep the skew of F near 0 or 1):

1. batch noise: the F of the final thresholds on a batch of ``n_eval`` rows drawn from
   the N rows, centred;
2. estimation noise, how far the centre computed from N rows can be from the value the
   thresholds have on the population: the N rows drawn again under every contribution
   the centre sums (the final thresholds' counts, each row's out-of-bag counts), the
   blend recomputed and centred. Redrawing rows keeps the fitted thresholds, so this
   misses how the out-of-bag value moves when thresholds are refitted on another sample;
   its standard deviation is therefore rescaled to ``(1 - w) sd_apparent + w sd_oob``,
   with ``sd_oob`` the spread of the per-resample out-of-bag values (refitted thresholds
   on unseen rows) and ``w`` the blend's weight (the two parts taken as fully
   correlated: the largest spread the blend can have).

For fixed (untuned) thresholds the interval reduces to the prediction interval of a new
batch's F from an old sample's: batch noise of ``n_eval`` rows plus estimation noise of N.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.deployment import quiet, warn_predict_everything
from fmacro.optimize.search.result import ThresholdResult
from fmacro.validation.checks import check_beta, check_zero_division, is_sparse
from fmacro.validation.counts import frozen_floats
from fmacro.validation.measures import f_beta_from_counts, macro_from_counts
from fmacro.validation.values import read_only_copies

__all__ = [
    "CORRECTIONS",
    "MEASURES",
    "METHODS",
    "MIN_RESAMPLES",
    "HeldOutInterval",
    "held_out_interval",
]

#: Threshold methods :func:`held_out_interval` runs (each a function of ``fmacro.optimize``
#: taking ``scores, labels``). ``top_k`` has no per-class thresholds; ``etu`` no labels.
METHODS = (
    "tune",
    "fixed_point",
    "exact",
    "per_class",
    "cyclic",
    "global_threshold",
    "proportional",
)
#: The measures the interval can be for.
MEASURES = ("f_macro", "macro_f")
#: How the apparent and out-of-bag values are blended into the centre.
CORRECTIONS = ("auto", "632+", "632", "oob")
#: Fewest resamples accepted: quantiles of fewer threshold fits say little.
MIN_RESAMPLES = 20
_OOB_WEIGHT = 1.0 - math.exp(-1.0)  # 0.632: share of distinct rows in a resample


@read_only_copies
@attrs.frozen(eq=False)
class HeldOutInterval:
    """The thresholds chosen on all rows and an interval for their F on a new batch.

    Attributes
    ----------
    result : ThresholdResult
        The method's result on all the given rows (exactly ``method(scores, labels,
        **method_options)``).
    estimate, low, high : float
        Predicted value and interval of ``measure`` for the thresholds of ``result`` on a
        new batch of ``n_eval`` objects from the distribution of the given rows.
    level : float
        Nominal coverage of ``[low, high]``.
    measure : str
        ``"f_macro"`` (F_beta of macro P and macro R) or ``"macro_f"`` (mean per-class
        F), over the classes with a positive in the batch.
    n_eval : int
        Size of the batch the interval is for.
    n_samples, n_resamples, n_draws : int
        Tuning rows, bootstrap resamples (threshold fits) and Monte Carlo draws of the
        sum of spreads.
    method, correction : str
        The method, and the centre's blend used (``"auto"`` resolved).
    seed : int or None
    f_apparent, f_out_of_bag, f_no_information, weight : float
        The parts of the centre: the measure of ``result`` on its own rows, the pooled
        out-of-bag value, the no-information value and the weight of the out-of-bag
        value in the blend (0.632 for ``"632"``, 1 for ``"oob"``, in [0.632, 1] for
        ``"632+"``).
    batch_shift : float
        Mean measure on batches of ``n_eval`` rows minus the measure on all rows, for
        the final thresholds (``estimate`` = blend + ``batch_shift``).
    out_of_bag_sd, batch_sd, estimation_sd : float
        Standard deviation of the per-resample out-of-bag values, and of the two spreads
        summed (batch noise, estimation noise; see the module docstring).
    resample_thresholds : ndarray, shape (n_resamples, n_columns)
        Each resample's thresholds (``+inf``: never predicted, ``-inf``: always).
    threshold_low, threshold_median, threshold_high : ndarray, shape (n_columns,)
        Per class: quantiles ``(1 - level) / 2``, 0.5 and ``(1 + level) / 2`` of its
        threshold over the resamples (values taken from the resamples, no interpolation,
        so infinite thresholds stay exact).
    predicted_share : ndarray, shape (n_columns,)
        Per class: mean over the resamples of the share of the tuning rows its threshold
        predicts.
    predicted_in : ndarray, shape (n_columns,)
        Per class: share of the resamples whose threshold predicts at least one tuning
        row (below 1: the class sometimes goes silent).
    resample_tuned, resample_out_of_bag, resample_all_rows : ndarray, shape (n_resamples,)
        Per resample: the measure of its thresholds on the resample itself (what a naive
        bootstrap of the tuned value would take), on its out-of-bag rows alone, and on
        all N rows (whose spread is the threshold variability).
    draws : ndarray, shape (n_draws,)
        ``estimate`` plus the draws of the sum of the two spreads: :meth:`interval` takes their
        quantiles (``low``, ``high`` are ``interval(level)``).
    """

    result: ThresholdResult = attrs.field(repr=False)
    estimate: float
    low: float
    high: float
    level: float
    measure: str
    n_eval: int
    n_samples: int
    n_resamples: int
    n_draws: int
    method: str
    correction: str
    seed: int | None
    f_apparent: float
    f_out_of_bag: float
    f_no_information: float
    weight: float
    batch_shift: float
    out_of_bag_sd: float
    batch_sd: float
    estimation_sd: float
    resample_thresholds: NDArray[np.float64] = attrs.field(repr=False, converter=frozen_floats)
    threshold_low: NDArray[np.float64] = attrs.field(repr=False, converter=frozen_floats)
    threshold_median: NDArray[np.float64] = attrs.field(repr=False, converter=frozen_floats)
    threshold_high: NDArray[np.float64] = attrs.field(repr=False, converter=frozen_floats)
    predicted_share: NDArray[np.float64] = attrs.field(repr=False, converter=frozen_floats)
    predicted_in: NDArray[np.float64] = attrs.field(repr=False, converter=frozen_floats)
    resample_tuned: NDArray[np.float64] = attrs.field(repr=False, converter=frozen_floats)
    resample_out_of_bag: NDArray[np.float64] = attrs.field(repr=False, converter=frozen_floats)
    resample_all_rows: NDArray[np.float64] = attrs.field(repr=False, converter=frozen_floats)
    draws: NDArray[np.float64] = attrs.field(repr=False, converter=frozen_floats)

    def interval(self, level: float) -> tuple[float, float]:
        """``(low, high)`` at another nominal coverage, from the same draws (no refit)."""
        return _interval_of(self.draws, self.estimate, _check_level(level))

    @property
    def width(self) -> float:
        """``high - low``."""
        return self.high - self.low

    def _per_class(self) -> dict[str, NDArray[Any]]:
        return {
            "threshold": self.result.thresholds,
            "threshold_low": self.threshold_low,
            "threshold_median": self.threshold_median,
            "threshold_high": self.threshold_high,
            "threshold_sd": _finite_sd(self.resample_thresholds),
            "predicted_share": self.predicted_share,
            "predicted_in": self.predicted_in,
        }

    def to_pandas(self) -> Any:
        """Per-class threshold variability as a DataFrame, one row per class column (needs
        pandas); the interval itself is in ``frame.attrs`` (``estimate``, ``low``,
        ``high``, ``level``, ``measure``, ``n_eval``).

        Columns: ``threshold`` (of :attr:`result`), ``threshold_low``,
        ``threshold_median``, ``threshold_high``, ``threshold_sd`` (standard deviation of
        the finite resample thresholds; NaN with fewer than two), ``predicted_share``,
        ``predicted_in``. Rows are named by the result's classes, else numbered.
        """
        import pandas as pd

        classes = self.result.classes
        n_cols = self.result.thresholds.shape[0]
        index = pd.Index(list(classes) if classes is not None else range(n_cols), dtype=object)
        frame = pd.DataFrame(self._per_class(), index=index)
        frame.attrs.update(
            estimate=self.estimate,
            low=self.low,
            high=self.high,
            level=self.level,
            measure=self.measure,
            n_eval=self.n_eval,
        )
        return frame

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict: the interval, its parts, settings, the result's record
        (:meth:`ThresholdResult.to_dict`) and ``per_class`` (the columns of
        :meth:`to_pandas`; thresholds of ``+-inf`` as the strings ``"inf"``/``"-inf"``,
        NaN as ``null``)."""
        scalars = {
            name: _json_number(getattr(self, name))
            for name in (
                "estimate",
                "low",
                "high",
                "level",
                "measure",
                "n_eval",
                "n_samples",
                "n_resamples",
                "n_draws",
                "method",
                "correction",
                "seed",
                "f_apparent",
                "f_out_of_bag",
                "f_no_information",
                "weight",
                "batch_shift",
                "out_of_bag_sd",
                "batch_sd",
                "estimation_sd",
            )
        }
        columns = self._per_class()
        n_cols = self.result.thresholds.shape[0]
        per_class = [
            {name: _json_number(values[j].item()) for name, values in columns.items()}
            for j in range(n_cols)
        ]
        return {**scalars, "result": self.result.to_dict(), "per_class": per_class}


def _json_number(value: Any) -> Any:
    if isinstance(value, float):
        if math.isnan(value):
            return None
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
    return value


def _finite_sd(thresholds: NDArray[np.float64]) -> NDArray[np.float64]:
    """Per column, the standard deviation of the finite values (NaN with fewer than 2)."""
    finite = np.isfinite(thresholds)
    count = finite.sum(axis=0)
    values = np.where(finite, thresholds, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = values.sum(axis=0) / count
        dev = np.where(finite, thresholds - mean, 0.0)
        var = (dev * dev).sum(axis=0) / (count - 1)
    return np.where(count >= 2, np.sqrt(np.maximum(var, 0.0)), np.nan)


# --- checks ---------------------------------------------------------------------------


def _check_level(level: Any) -> float:
    if isinstance(level, bool) or not isinstance(level, (int, float, np.integer, np.floating)):
        raise TypeError(f"level must be a number in (0, 1), got {type(level).__name__}")
    value = float(level)
    if not 0.0 < value < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    return value


def _check_count(value: Any, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int >= {minimum}, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def _check_seed(seed: Any) -> int | None:
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int >= 0 or None, got {type(seed).__name__}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    return int(seed)


def _check_choice(value: Any, name: str, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {list(choices)}, got {type(value).__name__}")
    if value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, got {value!r}")
    return value


def _as_matrix(values: Any, name: str) -> Any:
    """A 2-D numpy array or a CSR matrix (DataFrames become arrays; their names stay
    with the result, which the method computes from the original input)."""
    if is_sparse(values):
        return values.tocsr()
    if hasattr(values, "to_numpy"):
        values = values.to_numpy()
    arr = np.asarray(values)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D matrix (objects x classes), got shape {arr.shape}")
    return arr


# --- counting -------------------------------------------------------------------------


@attrs.frozen
class _Rows:
    """The tuning rows as per-object indicator matrices (dense bool or CSR)."""

    scores: Any
    labels: Any  # 0/1 indicators, same kind as below
    n_samples: int
    n_columns: int

    def hits(self, thresholds: NDArray[np.float64]) -> Any:
        """``score >= threshold`` per object and column (a missing sparse score is below
        every threshold but ``-inf``)."""
        if is_sparse(self.scores):
            import scipy.sparse as sp

            s = self.scores
            cols = s.indices
            keep = s.data >= thresholds[cols]
            hit = sp.csr_matrix(
                (np.ones(int(keep.sum()), dtype=np.float64), cols[keep], _kept_indptr(s, keep)),
                shape=s.shape,
            )
            always = np.isneginf(thresholds)
            if always.any():
                full = np.zeros(s.shape, dtype=bool)
                full[:, always] = True
                hit = sp.csr_matrix(hit.toarray().astype(bool) | full, dtype=np.float64)
            return hit
        return self.scores >= thresholds[None, :]


def _kept_indptr(s: Any, keep: NDArray[np.bool_]) -> NDArray[np.int64]:
    row_of = np.repeat(np.arange(s.shape[0]), np.diff(s.indptr))
    counts = np.bincount(row_of[keep], minlength=s.shape[0])
    return np.concatenate(([0], np.cumsum(counts))).astype(np.int64)


def _dense(values: Any) -> NDArray[np.float64]:
    """A dense float64 copy of an indicator matrix (bool array or scipy sparse)."""
    if is_sparse(values):
        return np.asarray(values.toarray(), dtype=np.float64)
    return np.asarray(values, dtype=np.float64)


def _weighted_sums(weights: NDArray[Any], indicators: Any) -> NDArray[np.float64]:
    """``weights @ indicators``: per row of ``weights`` (object weights), column sums."""
    if is_sparse(indicators):
        return np.asarray((indicators.T @ weights.T).T, dtype=np.float64)
    return np.asarray(weights @ indicators.astype(np.float64), dtype=np.float64)


@attrs.frozen
class _Counts:
    """Per-class tp, predicted and positives, one row per weighting of the objects."""

    tp: NDArray[np.float64]
    predicted: NDArray[np.float64]
    positives: NDArray[np.float64]

    @classmethod
    def of(cls, weights: NDArray[Any], hits: Any, labels: Any) -> _Counts:
        w = np.atleast_2d(np.asarray(weights, dtype=np.float64))
        if is_sparse(hits) or is_sparse(labels):
            import scipy.sparse as sp

            true_hits = sp.csr_matrix(hits).multiply(sp.csr_matrix(labels)).tocsr()
        else:
            true_hits = hits & labels
        return cls(_weighted_sums(w, true_hits), _weighted_sums(w, hits), _weighted_sums(w, labels))

    def __add__(self, other: _Counts) -> _Counts:
        return _Counts(
            self.tp + other.tp,
            self.predicted + other.predicted,
            self.positives + other.positives,
        )


def measure_of_counts(
    tp: NDArray[Any],
    predicted: NDArray[Any],
    positives: NDArray[Any],
    *,
    measure: str = "f_macro",
    beta: float = 1.0,
    zero_division: float = 0.0,
) -> NDArray[np.float64]:
    """F-macro or macro-F per row of per-class counts, over each row's classes with a
    positive (the definition of :func:`~fmacro.optimize.evaluate_thresholds`; NaN for a
    row without any).

    Parameters
    ----------
    tp, predicted, positives
        Per-class counts (or sums of weights), shape ``(rows, n_classes)``.
    """
    tp = np.asarray(tp, dtype=np.float64)
    predicted = np.asarray(predicted, dtype=np.float64)
    positives = np.asarray(positives, dtype=np.float64)
    absent = positives <= 0
    # a class without positives is left out: NaN makes both its precision and its recall
    # undefined, and macro_from_counts' 0/0 rule ("omit") skips undefined values
    tp_kept = np.where(absent, np.nan, tp)
    positives_kept = np.where(absent, np.nan, positives)
    fp = predicted - tp
    if measure == "f_macro":
        _, _, f = macro_from_counts(tp_kept, fp, positives_kept, beta, zero_division)
        out: NDArray[np.float64] = np.asarray(f, dtype=np.float64).reshape(tp.shape[0])
        return out
    per_class = f_beta_from_counts(tp_kept, fp, positives_kept - tp, beta, zero_division)
    per_class = np.where(absent, np.nan, per_class)
    with np.errstate(invalid="ignore"):
        defined = ~np.isnan(per_class)
        total = np.where(defined, per_class, 0.0).sum(axis=1)
        n = defined.sum(axis=1)
        return np.where(n > 0, total / np.maximum(n, 1), np.nan)


# --- the estimator ---------------------------------------------------------------------


def _interval_of(draws: NDArray[np.float64], estimate: float, level: float) -> tuple[float, float]:
    """Equal-tailed quantiles of the draws, widened to contain the estimate."""
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(draws, [tail, 1.0 - tail])
    return min(float(low), estimate), max(float(high), estimate)


#: Most row weights drawn at once (n_draws x N float64 in blocks of about 32 MB).
_DRAW_BLOCK = 1 << 22


def _redrawn(
    rng: np.random.Generator,
    total: int,
    n_rows: int,
    n_draws: int,
    evaluate: Callable[[NDArray[np.float64]], tuple[NDArray[np.float64], ...]],
) -> tuple[NDArray[np.float64], ...]:
    """``evaluate`` of ``n_draws`` row weightings ~ Multinomial(total, 1/N), drawn in
    blocks so that memory stays bounded for large N; its outputs concatenated."""
    uniform = np.full(n_rows, 1.0 / n_rows)
    block = max(1, _DRAW_BLOCK // n_rows)
    parts = []
    for start in range(0, n_draws, block):
        size = min(block, n_draws - start)
        weights = rng.multinomial(total, uniform, size=size).astype(np.float64)
        parts.append(evaluate(weights))
    return tuple(np.concatenate(values) for values in zip(*parts, strict=True))


def _method_function(method: str) -> Callable[..., ThresholdResult]:
    from fmacro import optimize

    # the refits are silent: held_out_interval warns once, on the fit to all rows
    fn: Callable[..., ThresholdResult] = quiet(getattr(optimize, method))
    return fn


def _take_rows(values: Any, rows: NDArray[np.int64]) -> Any:
    return values[rows]


def _blend(f_app: float, f_oob: float, f_none: float, correction: str) -> tuple[float, float]:
    """Centre and out-of-bag weight (Efron and Tibshirani 1997, for a value where higher
    is better: errors are ``1 - F``)."""
    if correction == "oob" or math.isnan(f_app):
        return f_oob, 1.0
    if correction == "632":
        return (1 - _OOB_WEIGHT) * f_app + _OOB_WEIGHT * f_oob, _OOB_WEIGHT
    # .632+: the relative overfitting rate R = (err_oob - err_app) / (gamma - err_app),
    # in [0, 1]; the out-of-bag value is first floored at the no-information value.
    f_oob_floor = max(f_oob, min(f_none, f_app)) if not math.isnan(f_none) else f_oob
    if f_app > f_oob_floor and f_app > f_none:
        rate = min(max((f_app - f_oob_floor) / (f_app - f_none), 0.0), 1.0)
    else:
        rate = 0.0
    weight = _OOB_WEIGHT / (1 - (1 - _OOB_WEIGHT) * rate)
    return (1 - weight) * f_app + weight * f_oob_floor, weight


def held_out_interval(
    scores: Any,
    labels: Any,
    *,
    level: float = 0.95,
    n_eval: int | None = None,
    method: str = "tune",
    n_resamples: int = 100,
    seed: int | None = None,
    measure: str = "f_macro",
    correction: str = "auto",
    n_draws: int = 2000,
    **method_options: Any,
) -> HeldOutInterval:
    """The thresholds a method chooses on the given rows, and an interval for the F-macro
    they will reach on a new batch of ``n_eval`` objects.

    Parameters
    ----------
    scores, labels
        Tuning scores (dense or scipy sparse, ``(N, n)``; a DataFrame's columns name the
        result's classes) and their 0/1 labels, as for :func:`~fmacro.optimize.tune`.
    level
        Nominal coverage, in (0, 1).
    n_eval
        Size of the new batch, an int >= 1; default: N. With ``method="tune"`` a given
        ``n_eval`` is also tune's ``n_eval`` (the thresholds are tuned for that batch
        size; default: tune's own default, N).
    method
        One of :data:`METHODS`; default ``"tune"``.
    n_resamples
        Bootstrap resamples (one threshold fit each), >= :data:`MIN_RESAMPLES`. The cost
        is about ``n_resamples + 1`` calls of the method.
    seed
        Seed (int >= 0) of the resamples and draws; ``None``: fresh randomness.
    measure
        ``"f_macro"`` (default) or ``"macro_f"`` (e.g. for ``method="per_class"``, the
        macro-F optimum).
    correction
        How the apparent and out-of-bag values make the centre: ``"auto"`` (default:
        ``"632"`` for ``tune``, ``"632+"`` for the other methods), ``"632+"``, ``"632"``
        or ``"oob"`` (see the module docstring).
    n_draws
        Monte Carlo draws of the batches and of the sum of spreads, >= 100.
    **method_options
        Passed to the method unchanged (``beta``, ``zero_division``, ``prior``, ...);
        ``sample_weight`` and ``points`` are refused (the rows are resampled).

    Returns
    -------
    HeldOutInterval
        ``.result`` equals ``method(scores, labels, **method_options)``;
        ``low <= estimate <= high``.

    Examples
    --------
    Four classes, 300 tuning rows. ``tune``'s F-macro on them is 0.612; on a new batch of
    300 objects its thresholds are predicted to reach 0.535, within [0.456, 0.609] at 95%:

    >>> import numpy as np
    >>> from fmacro.optimize import held_out_interval
    >>> rng = np.random.default_rng(0)
    >>> labels = (rng.random((300, 4)) < 0.25).astype(np.uint8)
    >>> scores = labels + rng.normal(0.0, 0.8, labels.shape)
    >>> found = held_out_interval(scores, labels, n_resamples=20, seed=0)
    >>> [round(v, 3) for v in (found.result.f, found.estimate, found.low, found.high)]
    [0.612, 0.535, 0.456, 0.609]
    >>> [round(v, 3) for v in found.interval(0.8)]
    [0.483, 0.585]

    Notes
    -----
    The interval is for the F of *these* thresholds on a new batch, not for the model's
    F at other thresholds, nor for the population F-macro of these thresholds (the batch
    noise of ``n_eval`` objects is part of it: a larger ``n_eval`` narrows it, down to
    the uncertainty about the thresholds' performance that N tuning rows leave).
    """
    level = _check_level(level)
    n_resamples = _check_count(n_resamples, "n_resamples", MIN_RESAMPLES)
    n_draws = _check_count(n_draws, "n_draws", 100)
    seed = _check_seed(seed)
    method = _check_choice(method, "method", METHODS)
    measure = _check_choice(measure, "measure", MEASURES)
    correction = _check_choice(correction, "correction", CORRECTIONS)
    if correction == "auto":
        correction = "632" if method == "tune" else "632+"
    for refused in ("sample_weight", "points"):
        if method_options.get(refused) is not None:
            raise ValueError(f"{refused} is not supported here: held_out_interval resamples rows")
    if n_eval is not None:
        n_eval = _check_count(n_eval, "n_eval", 1)
        if method == "tune":
            method_options = {**method_options, "n_eval": n_eval}
    beta = check_beta(method_options.get("beta", 1.0))
    zero_division = check_zero_division(method_options.get("zero_division", 0.0))

    fn = _method_function(method)
    result = fn(scores, labels, **method_options)
    warn_predict_everything(result, stacklevel=2)
    s = _as_matrix(scores, "scores")
    y = _as_matrix(labels, "labels")
    n_rows, n_cols = s.shape
    if y.shape != s.shape:
        raise ValueError(f"labels must have the shape of scores {s.shape}, got {y.shape}")
    y = y.astype(bool) if not is_sparse(y) else y.astype(np.float64)
    if n_eval is None:
        n_eval = n_rows
    fit_options: Mapping[str, Any] = method_options
    if method == "tune" and "n_eval" not in method_options:
        # each resample has N rows, so tune's default n_eval is N there too; said outright
        fit_options = {**method_options, "n_eval": result.diagnostics.get("n_eval", n_rows)}
    rows = _Rows(s, y, n_rows, n_cols)
    rng = np.random.default_rng(seed)

    def score(counts: _Counts) -> NDArray[np.float64]:
        return measure_of_counts(
            counts.tp,
            counts.predicted,
            counts.positives,
            measure=measure,
            beta=beta,
            zero_division=zero_division,
        )

    everyone = np.ones((1, n_rows))
    final_hits = rows.hits(result.thresholds)
    final_all = _Counts.of(everyone, final_hits, y)
    f_apparent = float(score(final_all)[0])

    # the resamples: thresholds, their F on all rows, their out-of-bag counts
    thresholds = np.empty((n_resamples, n_cols))
    f_resampled = np.empty(n_resamples)
    f_tuned = np.empty(n_resamples)
    f_oob_each = np.empty(n_resamples)
    share = np.zeros(n_cols)
    predicted_any = np.zeros(n_cols)
    oob_total: _Counts | None = None
    # which rows were out of bag, and each row's own out-of-bag contributions summed
    # over the resamples (the pooled out-of-bag counts are their column sums)
    was_out = np.zeros((n_resamples, n_rows), dtype=bool)
    own_tp = np.zeros((n_rows, n_cols))
    own_predicted = np.zeros((n_rows, n_cols))
    y_dense = _dense(y)
    for b in range(n_resamples):
        weights = rng.multinomial(n_rows, np.full(n_rows, 1.0 / n_rows))
        taken = np.repeat(np.arange(n_rows, dtype=np.int64), weights)
        fitted = fn(_take_rows(s, taken), _take_rows(y, taken), **fit_options)
        thresholds[b] = fitted.thresholds
        hits = rows.hits(fitted.thresholds)
        out_of_bag = (weights == 0).astype(np.float64)[None, :]
        # one pass: all rows, the out-of-bag rows, the resample (rows as drawn)
        counts = _Counts.of(np.vstack([everyone, out_of_bag, weights[None, :]]), hits, y)
        f_resampled[b], f_oob_each[b], f_tuned[b] = score(counts)
        oob = _Counts(counts.tp[1:2], counts.predicted[1:2], counts.positives[1:2])
        oob_total = oob if oob_total is None else oob_total + oob
        was_out[b] = weights == 0
        hits_out = _dense(hits)[was_out[b]]
        own_tp[was_out[b]] += hits_out * y_dense[was_out[b]]
        own_predicted[was_out[b]] += hits_out
        predicted_rate = counts.predicted[0] / n_rows
        share += predicted_rate
        predicted_any += predicted_rate > 0
    assert oob_total is not None
    f_out_of_bag = float(score(oob_total)[0])

    # no information: each class predicts at its rate, independently of its labels
    support = final_all.positives
    rate = final_all.predicted / n_rows
    f_none = float(score(_Counts(support * rate, final_all.predicted, support))[0])
    centre, weight = _blend(f_apparent, f_out_of_bag, f_none, correction)

    # batches of n_eval rows: the batch noise and the small-batch shift
    def batch_scores(weights: NDArray[np.float64]) -> tuple[NDArray[np.float64], ...]:
        return (score(_Counts.of(weights, final_hits, y)),)

    (batch,) = _redrawn(rng, n_eval, n_rows, n_draws, batch_scores)
    batch_mean = np.nanmean(batch)
    batch_shift = float(batch_mean - f_apparent)
    estimate = centre + batch_shift
    # the centre's own sampling noise: the rows drawn again (N of them, with replacement)
    # under every contribution the centre sums, the final thresholds' counts and each
    # row's out-of-bag counts over the resamples (the thresholds stay as fitted)
    final_dense = _dense(final_hits)
    final_tp = final_dense * y_dense
    times_out = was_out.sum(axis=0).astype(np.float64)
    own_positives = times_out[:, None] * y_dense

    def centre_parts(weights: NDArray[np.float64]) -> tuple[NDArray[np.float64], ...]:
        apparent = score(_Counts(weights @ final_tp, weights @ final_dense, weights @ y_dense))
        oob = score(_Counts(weights @ own_tp, weights @ own_predicted, weights @ own_positives))
        return apparent, oob

    apparent_again, oob_again = _redrawn(rng, n_rows, n_rows, n_draws, centre_parts)
    blend_again = (1.0 - weight) * apparent_again + weight * oob_again
    estimation_dev = np.nan_to_num(blend_again - np.nanmean(blend_again))
    # Redrawing rows keeps every fitted threshold, so it misses how the out-of-bag value
    # moves when the thresholds are refitted on another sample. Its standard deviation is
    # taken as that of the per-resample out-of-bag values (each: refitted thresholds on
    # their ~0.368 N unseen rows), the apparent value's as the redrawn one's, blended with
    # the centre's weights as if fully correlated (the largest spread the blend can have).
    apparent_sd = float(np.nanstd(apparent_again))
    oob_sd = float(np.nanstd(f_oob_each))
    target_sd = (1.0 - weight) * apparent_sd + weight * oob_sd
    redrawn_sd = float(np.std(estimation_dev))
    if redrawn_sd > 0:
        estimation_dev = estimation_dev * (target_sd / redrawn_sd)
    spread = np.nan_to_num(batch - batch_mean) + estimation_dev
    draws = estimate + spread
    low, high = _interval_of(draws, estimate, level)
    tail = (1.0 - level) / 2.0

    return HeldOutInterval(
        result=result,
        estimate=float(estimate),
        low=float(low),
        high=float(high),
        level=level,
        measure=measure,
        n_eval=int(n_eval),
        n_samples=int(n_rows),
        n_resamples=n_resamples,
        n_draws=n_draws,
        method=method,
        correction=correction,
        seed=seed,
        f_apparent=f_apparent,
        f_out_of_bag=f_out_of_bag,
        f_no_information=f_none,
        weight=float(weight),
        batch_shift=batch_shift,
        out_of_bag_sd=oob_sd,
        batch_sd=float(np.nanstd(batch)),
        estimation_sd=float(np.std(estimation_dev)),
        resample_thresholds=thresholds,
        threshold_low=np.quantile(thresholds, tail, axis=0, method="lower"),
        threshold_median=np.quantile(thresholds, 0.5, axis=0, method="lower"),
        threshold_high=np.quantile(thresholds, 1.0 - tail, axis=0, method="higher"),
        predicted_share=share / n_resamples,
        predicted_in=predicted_any / n_resamples,
        resample_tuned=f_tuned,
        resample_out_of_bag=f_oob_each,
        resample_all_rows=f_resampled,
        draws=draws,
    )
