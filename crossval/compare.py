"""Is model A better than model B across folds? Paired t-tests over cross-validation runs.

Two models scored on the same folds (or the same repeated random splits) give paired
scores ``a_j``, ``b_j``; their differences ``d_j = a_j - b_j`` are tested for a mean of 0.

``correction="none"``
    The correlated-samples t-test that Paradowski et al. (2019) use to compare F-score
    perceptrons (their eq. 42)::

        t = mean(d) / sqrt(var(d)) * sqrt(J - 1)        (var with ddof=0)

    which is Student's paired t-test (``scipy.stats.ttest_rel``), J - 1 degrees of freedom.
    It treats the J differences as independent; but the training sets of different folds
    overlap, so the differences are positively correlated and the test rejects a true
    "no difference" far more often than its level says (Dietterich 1998).
``correction="nadeau_bengio"`` (default)
    The corrected resampled t-test of C. Nadeau and Y. Bengio, *Inference for the
    Generalization Error*, Machine Learning 52 (2003) 239-281, the standard fix::

        t = mean(d) / sqrt((1 / J + n_test / n_train) * var(d))   (var with ddof=1)

    with J - 1 degrees of freedom; ``n_test / n_train`` is the ratio of validation to
    training objects of a split (for k-fold, 1 / (k - 1)). It reduces to the paired t-test
    when that ratio is 0.

The p-values come from Student's t distribution (computed here through the regularized
incomplete beta function, so scipy is not needed; they agree with ``scipy.stats``).
"""

from __future__ import annotations

import math
from typing import Any, Literal

import attrs
import numpy as np

__all__ = ["PairedTest", "compare_cross_validations", "paired_t_test", "student_t_sf"]

Correction = Literal["none", "nadeau_bengio"]
Alternative = Literal["two-sided", "greater", "less"]
CORRECTIONS = ("none", "nadeau_bengio")
ALTERNATIVES = ("two-sided", "greater", "less")


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz's method)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        for numerator in (
            m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)),
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-16:
            break
    return h


def _regularized_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularized incomplete beta function, for 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    # the continued fraction converges fast for x < (a + 1) / (a + b + 2); else use symmetry
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_continued_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_continued_fraction(b, a, 1.0 - x) / b


def student_t_sf(t: float, df: float) -> float:
    """P(T > t) for Student's t with ``df`` degrees of freedom.

    Examples
    --------
    >>> round(student_t_sf(2.0, 10), 6)
    0.036694
    """
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 0.0 if t > 0 else 1.0
    tail = 0.5 * _regularized_beta(df / 2.0, 0.5, df / (df + t * t))
    return tail if t > 0 else 1.0 - tail


def _student_t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t (bisection on :func:`student_t_sf`)."""
    lo, hi = -1e3, 1e3
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if 1.0 - student_t_sf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


@attrs.frozen
class PairedTest:
    """A paired t-test of score differences ``a - b`` (module docstring).

    ``statistic`` is t, ``df`` its degrees of freedom, ``p_value`` for ``alternative``
    (``"greater"``: A better), ``low``/``high`` the t interval of the mean difference at
    ``level`` (with the same variance correction).
    """

    mean_difference: float
    std_difference: float
    n: int
    statistic: float
    df: int
    p_value: float
    low: float
    high: float
    level: float
    correction: str
    test_train_ratio: float
    alternative: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe record (NaN becomes ``None``)."""
        return {
            k: (None if isinstance(v, float) and math.isnan(v) else v)
            for k, v in attrs.asdict(self).items()
        }


def _scores(values: Any, name: str) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D sequence of scores, got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} holds NaN or infinite scores")
    return arr


def paired_t_test(
    scores_a: Any,
    scores_b: Any,
    *,
    correction: Correction = "nadeau_bengio",
    test_train_ratio: float | None = None,
    alternative: Alternative = "two-sided",
    level: float = 0.95,
) -> PairedTest:
    """Paired t-test of ``scores_a - scores_b`` over folds or repeated splits.

    Parameters
    ----------
    scores_a, scores_b
        One score per fold/split, the same folds for both models, in the same order.
    correction
        ``"nadeau_bengio"`` (default; needs ``test_train_ratio``) or ``"none"``.
    test_train_ratio
        Validation objects per training object of one split (k-fold: ``1 / (k - 1)``).
    alternative
        ``"two-sided"``, ``"greater"`` (A better) or ``"less"``.
    level
        Level of the interval of the mean difference.

    Examples
    --------
    >>> r = paired_t_test([0.8, 0.7, 0.9, 0.8], [0.7, 0.7, 0.8, 0.6], correction="none")
    >>> round(r.statistic, 4), round(r.p_value, 4)
    (2.4495, 0.0917)
    """
    a, b = _scores(scores_a, "scores_a"), _scores(scores_b, "scores_b")
    if a.size != b.size:
        raise ValueError(f"scores_a has {a.size} scores but scores_b {b.size}; pair them")
    if a.size < 2:
        raise ValueError(f"a paired t-test needs at least 2 paired scores, got {a.size}")
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}; got {correction!r}")
    if alternative not in ALTERNATIVES:
        raise ValueError(
            f"alternative must be one of {', '.join(ALTERNATIVES)}; got {alternative!r}"
        )
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    ratio = 0.0
    if correction == "nadeau_bengio":
        if test_train_ratio is None:
            raise ValueError(
                "correction='nadeau_bengio' needs test_train_ratio (validation objects per "
                "training object; k-fold: 1 / (k - 1)); or pass correction='none'"
            )
        ratio = float(test_train_ratio)
        if not (math.isfinite(ratio) and ratio >= 0):
            raise ValueError(f"test_train_ratio must be a finite number >= 0, got {ratio}")
    d = a - b
    n = int(d.size)
    mean = float(d.mean())
    std = float(d.std(ddof=1))
    scale = math.sqrt((1.0 / n + ratio) * std * std)
    df = n - 1
    if scale == 0.0:
        statistic = math.nan if mean == 0.0 else math.copysign(math.inf, mean)
    else:
        statistic = mean / scale
    if math.isnan(statistic):
        p = 1.0
    elif alternative == "greater":
        p = student_t_sf(statistic, df)
    elif alternative == "less":
        p = student_t_sf(-statistic, df)
    else:
        p = min(1.0, 2.0 * student_t_sf(abs(statistic), df))
    half = _student_t_quantile(0.5 + level / 2.0, df) * scale
    return PairedTest(
        mean_difference=mean,
        std_difference=std,
        n=n,
        statistic=statistic,
        df=df,
        p_value=p,
        low=mean - half,
        high=mean + half,
        level=float(level),
        correction=correction,
        test_train_ratio=ratio,
        alternative=alternative,
    )


def _test_train_ratio(run: Any) -> float | None:
    """Mean validation/training size ratio over a run's folds (``None`` if unknown)."""
    folds = getattr(run, "fold_indices", ())
    if not folds:
        return None
    return float(np.mean([f.validation.size / max(f.train.size, 1) for f in folds]))


def compare_cross_validations(
    run_a: Any,
    run_b: Any,
    *,
    correction: Correction = "nadeau_bengio",
    alternative: Alternative = "two-sided",
    level: float = 0.95,
) -> PairedTest:
    """Paired t-test of two ``CrossValidation`` results over the same folds.

    Pairs ``run_a.fold_scores`` with ``run_b.fold_scores``; the folds must be the same
    (same splitter and seed), which is checked when the runs know their folds. The
    Nadeau-Bengio ratio is read from the folds.
    """
    for name, run in (("run_a", run_a), ("run_b", run_b)):
        if not hasattr(run, "fold_scores"):
            raise TypeError(f"{name} must be a CrossValidation, got {type(run).__name__}")
    folds_a, folds_b = run_a.fold_indices, run_b.fold_indices
    if folds_a and folds_b and tuple(folds_a) != tuple(folds_b):
        raise ValueError(
            "run_a and run_b were validated on different folds; run both with the same "
            "splitter and seed so their scores pair up"
        )
    ratio = _test_train_ratio(run_a) or _test_train_ratio(run_b)
    if correction == "nadeau_bengio" and ratio is None:
        raise ValueError(
            "the runs do not record their folds, so the Nadeau-Bengio ratio is unknown; "
            "use paired_t_test(..., test_train_ratio=...) or correction='none'"
        )
    return paired_t_test(
        run_a.fold_scores,
        run_b.fold_scores,
        correction=correction,
        test_train_ratio=ratio,
        alternative=alternative,
        level=level,
    )
