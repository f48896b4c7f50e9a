"""Binary validation: counts of one positive class and the measures derived from them."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import Any, cast

import attrs
import numpy as np
import toolz

from fmacro.validation import _kernels, measures
from fmacro.validation.base import ValidationBase
from fmacro.validation.bootstrap import BinaryOutcomes, join_outcomes
from fmacro.validation.checks import check_beta, check_same_length, check_zero_division
from fmacro.validation.counts import Counts, sum_start
from fmacro.validation.frames import categorical_classes
from fmacro.validation.plumbing import (
    check_jitted_label_type,
    check_jitted_positive,
    collect_predictions,
    fast_labels,
    is_numba_function,
    jitted_inputs,
    observations_array,
)
from fmacro.validation.report import format_table, same_settings
from fmacro.validation.values import read_only_copies, value_key
from fmacro.validation.weights import check_sample_weight, weighted_binary_counts

__all__ = ["BinFValidation"]


def _categorical_positive(categories: list[Any], positive: Any) -> Any:
    """The positive class among two categories (default 1 -> the second category)."""
    if len(categories) > 2:
        raise ValueError(
            f"binary labels take at most two values, but the categorical has "
            f"{len(categories)} categories {categories}; use MultiFValidation"
        )
    if any(positive == c for c in categories):
        return positive
    if isinstance(positive, int) and positive == 1 and len(categories) == 2:
        return categories[1]
    raise ValueError(f"positive must be one of the categories {categories}, got {positive!r}")


def _binary_counts(
    expected: Any,
    predicted: Any,
    positive: Any,
    *,
    n: int | None = None,
    sample_weight: Any = None,
    keep_outcomes: bool = False,
) -> tuple[Counts, BinaryOutcomes | None]:
    """Count TP/FP/FN/TN; labels must take at most two values, one being ``positive``.

    ``n`` is the common length when the caller has already checked it (each input is
    checked once per call); ``None`` checks it here. With ``sample_weight`` the counts
    are sums of weights (floats). Also returns each object's outcome (for ``bootstrap``).
    """
    if n is None:
        n = check_same_length(expected=expected, predicted=predicted)
    if n == 0:
        raise ValueError("expected is empty; at least one label is needed")
    weights = check_sample_weight(sample_weight, n)
    # Integer arrays with an integer positive label take the numba kernel; anything
    # else goes through the one label rule first.
    fast = isinstance(positive, (int, np.integer, bool, np.bool_)) and all(
        isinstance(x, np.ndarray) and x.ndim == 1 and x.dtype.kind in "biu"
        for x in (expected, predicted)
    )
    if fast:
        e_lab: Any = fast_labels(expected, "expected")
        p_lab: Any = fast_labels(predicted, "predicted")
        pos: Any = int(positive)
        raw, too_many = _kernels.binary_counts(e_lab, p_lab, pos)
    else:
        from fmacro.validation.labels import coerce_label_pair, label_kind

        # The one label rule (validation.labels): no NaN, no str/int mix, no (1, n) rows.
        e_lab, p_lab = coerce_label_pair(expected, predicted)
        pos = positive
        kind = label_kind(e_lab)
        if (kind == "string") != isinstance(positive, str):
            raise ValueError(
                f"positive={positive!r} is not a label of this data: the labels are "
                f"{kind}s such as {e_lab[0]!r}; set positive= (--positive in the command "
                "line) to the positive label"
            )
        e_pos = e_lab == positive
        p_pos = p_lab == positive
        negatives = set(e_lab[~e_pos].tolist()) | set(p_lab[~p_pos].tolist())
        too_many = len(negatives) > 1
        tp = int(np.count_nonzero(e_pos & p_pos))
        fp = int(np.count_nonzero(~e_pos & p_pos))
        fn = int(np.count_nonzero(e_pos & ~p_pos))
        raw = np.array([tp, fp, fn, n - tp - fp - fn])
    if too_many:
        raise ValueError(
            f"a binary validation needs labels with two values, the positive one ({positive!r}) "
            "and one negative; expected/predicted hold more. Use MultiFValidation for "
            "multiclass data or set positive= to the positive label."
        )
    outcomes = BinaryOutcomes.from_labels(e_lab, p_lab, pos, weights) if keep_outcomes else None
    if weights is not None:
        return Counts(*weighted_binary_counts(e_lab, p_lab, weights, pos)), outcomes
    return Counts(*(int(v) for v in raw)), outcomes


@read_only_copies
@attrs.frozen(init=False)
class BinFValidation(ValidationBase):
    """F-validation of a binary classifier: counts TP/FP/FN/TN once, derives the rest lazily.

    Parameters
    ----------
    expected
        Expected labels, one per observation: two distinct values, one of them ``positive``.
    observations
        The observations ``predict`` is applied to (array, list, pandas object, sparse
        matrix). ``predict`` receives row ``i`` by position: a numpy row (a pandas
        DataFrame is converted with ``to_numpy()``, so ``row[j]`` is the j-th column, not
        a column label), a 1-row CSR matrix for sparse input, or a list item;
        ``crossval.vectorized`` hands over the same rows.
    predict
        ``observation -> label`` (as in Patrick R. Nicolas, *Scala for Machine Learning*,
        Packt, 2015), or with
        ``batched=True`` ``observations -> labels``. A numba ``@njit`` function runs
        inside the compiled counting loop (observations must then be a numpy array).
    positive
        The positive label.
    beta
        F_beta weight, > 0: ``beta > 1`` favours recall, ``beta < 1`` precision.
    zero_division
        Value of a 0/0 ratio: 0.0 (default), 1.0 or ``nan``.
    batched
        Call ``predict`` once on all observations instead of once per observation.
    sample_weight
        One non-negative weight per observation (as in scikit-learn): each observation
        counts its weight, and the counts become floats. ``None``: every one counts 1.
    keep_outcomes
        ``True``: also keep each observation's outcome (1 byte each, 9 with weights) so
        that :meth:`bootstrap` can resample them. ``False`` (default): the counts only,
        at the speed of counting alone (the record is another pass over the data,
        which costs more than the counts on large inputs: benchmarks/results_validation.md
        times both).

    Examples
    --------
    >>> v = BinFValidation([1, 1, 0, 0], [[0.9], [0.2], [0.7], [0.1]], lambda x: int(x[0] > 0.5))
    >>> v.counts
    Counts(tp=1, fp=1, fn=1, tn=1)
    >>> v.precision, v.recall, v.f1
    (0.5, 0.5, 0.5)
    >>> (v + v).counts.tp
    2
    """

    kind = "binary"

    counts: Counts
    positive: Any = attrs.field(default=1, eq=value_key)
    beta: float = 1.0
    zero_division: float = attrs.field(default=0.0, eq=value_key)
    outcomes: BinaryOutcomes | None = attrs.field(default=None, eq=False, repr=False)
    """Each object's outcome, in order (for :meth:`bootstrap`); ``None`` for a validation
    built from counts or by a numba-jitted ``predict``. Not part of ``==`` and ``hash``."""

    def __init__(
        self,
        expected: Any,
        observations: Any,
        predict: Callable[..., Any],
        *,
        positive: Any = 1,
        beta: float = 1.0,
        zero_division: float = 0.0,
        batched: bool = False,
        sample_weight: Any = None,
        keep_outcomes: bool = False,
    ) -> None:
        beta = check_beta(beta)
        zero_division = check_zero_division(zero_division)
        outcomes = None
        if is_numba_function(predict) and not batched and sample_weight is None:
            counts = _count_with_jitted(predict, expected, observations, positive)
        else:
            # (a jitted predict with weights is called from Python, once per observation)
            n = check_same_length(expected=expected, observations=observations_array(observations))
            # collect_predictions returns exactly n predictions (or raises), so the
            # length of expected is checked once, here, against the observations.
            predicted = collect_predictions(predict, observations, n, batched=batched)
            counts, outcomes = _binary_counts(
                expected,
                predicted,
                positive,
                n=n,
                sample_weight=sample_weight,
                keep_outcomes=keep_outcomes,
            )
        self.__attrs_init__(counts, positive, beta, zero_division, outcomes)

    @classmethod
    def from_predictions(
        cls,
        expected: Any,
        predicted: Any,
        *,
        positive: Any = 1,
        beta: float = 1.0,
        zero_division: float = 0.0,
        sample_weight: Any = None,
        keep_outcomes: bool = False,
    ) -> BinFValidation:
        """Validation of given predictions (no ``predict`` needed).

        ``sample_weight``: one non-negative weight per observation (float counts).
        With pandas categorical labels of two categories, the default ``positive=1``
        (when 1 is not a category) means the second category, as scikit-learn's
        ``pos_label`` for two classes; a ``positive`` that is not a category is refused.
        ``keep_outcomes=True``: also keep each object's outcome, for :meth:`bootstrap`
        (default ``False``: the counts only, faster; such a validation cannot be
        bootstrapped).

        Examples
        --------
        >>> v = BinFValidation.from_predictions([1, 1, 0], [1, 0, 1], sample_weight=[2, 1, 1])
        >>> v.counts, round(v.precision, 4), round(v.recall, 4)
        (Counts(tp=2.0, fp=1.0, fn=1.0, tn=0.0), 0.6667, 0.6667)
        """
        categories = categorical_classes(expected, predicted)
        if categories is not None:
            positive = _categorical_positive(categories, positive)
        counts, outcomes = _binary_counts(
            expected, predicted, positive, sample_weight=sample_weight, keep_outcomes=keep_outcomes
        )
        obj = cls.from_counts(counts, positive=positive, beta=beta, zero_division=zero_division)
        object.__setattr__(obj, "outcomes", outcomes)
        return obj

    @classmethod
    def from_counts(
        cls,
        counts: Counts,
        *,
        positive: Any = 1,
        beta: float = 1.0,
        zero_division: float = 0.0,
    ) -> BinFValidation:
        """Validation of already-counted outcomes.

        Examples
        --------
        >>> v = BinFValidation.from_counts(Counts(tp=40, fp=10, fn=20, tn=30))
        >>> round(v.accuracy, 2), round(v.precision, 2), round(v.f1, 4)
        (0.7, 0.8, 0.7273)
        """
        if not isinstance(counts, Counts):
            raise TypeError(f"counts must be a Counts, got {type(counts).__name__}")
        obj = cls.__new__(cls)
        obj.__attrs_init__(counts, positive, check_beta(beta), check_zero_division(zero_division))
        return obj

    @classmethod
    def using(cls, predict: Callable[..., Any], **options: Any) -> Callable[..., BinFValidation]:
        """Curried constructor: ``BinFValidation.using(predict)(expected, observations)``.

        Mirrors ``new BinFValidation(expected, xt)(predict)`` of *Scala for Machine
        Learning* (Nicolas, 2015) so a validator can be built once and applied to many
        data sets, e.g. in a ``toolz.pipe``.
        """
        return cast(Callable[..., BinFValidation], toolz.curry(cls, predict=predict, **options))

    # Measures: each is computed on first use and then remembered.
    @cached_property
    def precision(self) -> float:
        c = self.counts
        return measures.precision(c.tp, c.fp, self.zero_division)

    @cached_property
    def recall(self) -> float:
        c = self.counts
        return measures.recall(c.tp, c.fn, self.zero_division)

    @cached_property
    def f_beta(self) -> float:
        c = self.counts
        return measures.f_beta_from_counts(c.tp, c.fp, c.fn, self.beta, self.zero_division)

    @cached_property
    def f1(self) -> float:
        c = self.counts
        return measures.f_beta_from_counts(c.tp, c.fp, c.fn, 1.0, self.zero_division)

    @cached_property
    def g(self) -> float:
        """sqrt(precision * recall)."""
        return measures.g_measure(self.precision, self.recall)

    @cached_property
    def accuracy(self) -> float:
        c = self.counts
        return measures.accuracy(c.tp, c.fp, c.fn, c.tn, self.zero_division)

    @cached_property
    def specificity(self) -> float:
        c = self.counts
        return measures.specificity(c.tn, c.fp, self.zero_division)

    @property
    def sensitivity(self) -> float:
        """Same as recall."""
        return self.recall

    @property
    def score(self) -> float:
        """The F_beta score (the default score in *Scala for Machine Learning*)."""
        return self.f_beta

    def __radd__(self, other: object) -> BinFValidation:
        """``0 + v`` is ``v``, so ``sum(validations)`` pools; other left operands raise."""
        return sum_start(other, self)

    def __add__(self, other: object) -> BinFValidation:
        if not isinstance(other, BinFValidation):
            return NotImplemented
        same_settings(self, other, ("positive", "beta", "zero_division"))
        pooled = type(self).from_counts(
            self.counts + other.counts,
            positive=self.positive,
            beta=self.beta,
            zero_division=self.zero_division,
        )
        # the outcomes concatenate, so object positions match one validation of all data
        object.__setattr__(pooled, "outcomes", join_outcomes(self.outcomes, other.outcomes))
        return pooled

    def summary(self) -> dict[str, Any]:
        """Counts and measures as plain Python values."""
        c = self.counts
        return {
            "kind": "binary",
            "positive": self.positive
            if isinstance(self.positive, (int, str))
            else str(self.positive),
            "beta": self.beta,
            "zero_division": self.zero_division,
            "tp": c.tp,
            "fp": c.fp,
            "fn": c.fn,
            "tn": c.tn,
            **{
                name: getattr(self, name)
                for name in ("precision", "recall", "f_beta", "f1", "g", "accuracy", "specificity")
            },
        }

    def _report_title(self) -> str:
        return (
            f"BinFValidation (positive={self.positive!r}, beta={self.beta:g}, "
            f"zero_division={self.zero_division}"
            + (", counts weighted by sample_weight)" if self.counts.weighted else ")")
        )

    def _report_body(self, digits: int) -> str:
        """One row per measure."""
        c = self.counts
        rows = [
            ("TP / FP / FN / TN", f"{c.tp} / {c.fp} / {c.fn} / {c.tn}"),
            ("precision", self.precision),
            ("recall (sensitivity)", self.recall),
            ("specificity", self.specificity),
            (f"F{self.beta:g}", self.f_beta),
            ("G", self.g),
            ("accuracy", self.accuracy),
        ]
        return format_table(("measure", "value"), rows, digits)


def _count_with_jitted(
    predict: Callable[..., Any], expected: Any, observations: Any, positive: Any
) -> Counts:
    positive_code = check_jitted_positive(positive)
    e, obs = jitted_inputs(expected, observations)
    check_jitted_label_type(predict, obs)
    raw, n_invalid = _kernels.binary_counts_predict(predict, obs, e, positive_code)
    if n_invalid:
        raise ValueError(
            "a binary validation needs labels with two values; expected or predict's "
            f"output hold more than two ({n_invalid} observation(s) with a third label)"
        )
    return Counts(*(int(v) for v in raw))
