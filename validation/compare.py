"""Is model A better than model B on these objects? The paired bootstrap of a difference.

Both models' predictions of the same objects are validated, and both validations are
resampled with the *same* resamples (the same seed gives every object the same weight in
A's and in B's resample ``b``), so the difference ``m_A(b) - m_B(b)`` keeps the pairing:
objects both models get right or wrong cancel out, which makes the interval of the
difference far narrower than two separate intervals would suggest.

The p-value is the two-sided bootstrap p-value of "no difference", the smallest
``1 - level`` at which the percentile interval of the difference excludes 0::

    p = min(1, 2 * min(1 + #{d_b <= 0}, 1 + #{d_b >= 0}) / (B + 1))

(the ``+1`` counts the observed data as one resample, so ``p >= 2 / (B + 1)`` and never
0; resamples where the difference is NaN are left out and B counts the others). A model
compared with itself has every ``d_b = 0`` and ``p = 1``.
"""

from __future__ import annotations

import math
from typing import Any

import attrs
import numpy as np

from fmacro.validation.binary import BinFValidation
from fmacro.validation.bootstrap import _check_level, check_bootstrap_options, measure_names
from fmacro.validation.checks import is_sparse
from fmacro.validation.multiclass import MultiFValidation
from fmacro.validation.multilabel import MultiLabelFValidation

__all__ = ["Comparison", "compare", "paired_p_value"]

KINDS = ("binary", "multiclass", "multilabel")


@attrs.frozen
class Comparison:
    """The paired bootstrap comparison of two models' predictions of the same objects.

    ``difference`` is ``estimate_a - estimate_b`` (the measure on all objects), ``low`` and
    ``high`` a percentile interval of the resampled differences at ``level``, ``p_value``
    the two-sided bootstrap p-value of no difference (module docstring).
    """

    measure: str
    kind: str
    estimate_a: float
    estimate_b: float
    difference: float
    low: float
    high: float
    p_value: float
    level: float
    n_resamples: int
    seed: int
    method: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe record (NaN becomes ``None``)."""
        return {
            k: (None if isinstance(v, float) and math.isnan(v) else v)
            for k, v in attrs.asdict(self).items()
        }


def paired_p_value(differences: Any) -> float:
    """Two-sided bootstrap p-value of "no difference" from resampled differences.

    ``min(1, 2 * min(1 + #{d <= 0}, 1 + #{d >= 0}) / (B + 1))`` over the defined
    (non-NaN) differences; NaN when none is defined.

    Examples
    --------
    >>> paired_p_value([0.1, 0.2, -0.05, 0.3])
    0.8
    >>> paired_p_value([0.0, 0.0, 0.0])
    1.0
    """
    d = np.asarray(differences, dtype=np.float64)
    d = d[~np.isnan(d)]
    if d.size == 0:
        return math.nan
    below = 1 + int(np.count_nonzero(d <= 0))
    above = 1 + int(np.count_nonzero(d >= 0))
    return float(min(1.0, 2.0 * min(below, above) / (d.size + 1)))


def _kind(expected: Any, kind: str | None, positive: Any) -> str:
    if kind is not None:
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
        return kind
    if positive is not None:
        return "binary"
    if is_sparse(expected) or np.ndim(getattr(expected, "values", expected)) == 2:
        shape = expected.shape
        if len(shape) == 2 and shape[1] > 1:
            return "multilabel"
    return "multiclass"


def _union_classes(*label_sets: tuple[Any, ...]) -> tuple[Any, ...]:
    merged: dict[Any, None] = {}
    for labels in label_sets:
        merged.update(dict.fromkeys(labels))
    try:
        return tuple(sorted(merged))
    except TypeError:  # labels numpy cannot order: first-seen order
        return tuple(merged)


def _validations(
    expected: Any,
    predicted_a: Any,
    predicted_b: Any,
    kind: str,
    options: dict[str, Any],
    classes: Any,
    positive: Any,
) -> tuple[Any, Any]:
    if kind == "binary":
        pos = 1 if positive is None else positive
        return (
            BinFValidation.from_predictions(expected, predicted_a, positive=pos, **options),
            BinFValidation.from_predictions(expected, predicted_b, positive=pos, **options),
        )
    if kind == "multilabel":
        return (
            MultiLabelFValidation.from_predictions(expected, predicted_a, **options),
            MultiLabelFValidation.from_predictions(expected, predicted_b, **options),
        )
    va = MultiFValidation.from_predictions(expected, predicted_a, classes, **options)
    vb = MultiFValidation.from_predictions(expected, predicted_b, classes, **options)
    if classes is None and va.classes != vb.classes:
        # each model predicts classes the other does not: count both over all classes
        union = _union_classes(va.classes, vb.classes)
        va = MultiFValidation.from_predictions(expected, predicted_a, union, **options)
        vb = MultiFValidation.from_predictions(expected, predicted_b, union, **options)
    return va, vb


def compare(
    expected: Any,
    predicted_a: Any,
    predicted_b: Any,
    *,
    measure: str = "f_macro",
    n_resamples: int = 1000,
    seed: int | None = None,
    level: float = 0.95,
    method: str = "poisson",
    kind: str | None = None,
    classes: Any = None,
    positive: Any = None,
    beta: float = 1.0,
    zero_division: float = 0.0,
    sample_weight: Any = None,
) -> Comparison:
    """Paired bootstrap of ``measure(A) - measure(B)`` on the same objects.

    Parameters
    ----------
    expected, predicted_a, predicted_b
        What ``from_predictions`` takes: label vectors (binary, multiclass) or (N, L)
        indicator matrices (multi-label), the two predictions of the same objects.
    measure
        A scalar measure of the validation, by name (``"f_macro"``, ``"macro_f"``,
        ``"micro_f"``, ``"accuracy"``, ...; binary: ``"f1"``, ``"f_beta"``, ...).
    n_resamples, seed, method
        As in ``Validation.bootstrap``; both models share the resamples.
    level
        Level of the interval ``(low, high)`` of the difference.
    kind
        ``"binary"``, ``"multiclass"`` or ``"multilabel"``; ``None``: multi-label for 2-D
        indicator matrices, binary when ``positive`` is given, else multiclass (so 0/1
        labels give the F-macro over both classes).
    classes, positive, beta, zero_division, sample_weight
        As in the validations' ``from_predictions``.

    Examples
    --------
    >>> y = [0, 1, 2, 2, 1, 0] * 20  # B: F-macro F1(8/9, 5/6) = 0.8602 by hand
    >>> c = compare(y, y, [0, 1, 2, 1, 1, 0] * 20, n_resamples=200, seed=1)
    >>> round(c.difference, 4), c.low > 0, c.p_value < 0.05
    (0.1398, True, True)
    """
    n_resamples, seed, method = check_bootstrap_options(n_resamples, seed, method)
    level = _check_level(level)
    kind = _kind(expected, kind, positive)
    scalars = measure_names(kind, per_class=False)
    if not isinstance(measure, str) or measure not in scalars:
        raise ValueError(
            f"measure must be a scalar measure of a {kind} validation, one of "
            f"{', '.join(scalars)}; got {measure!r}"
        )
    options = {
        "beta": beta,
        "zero_division": zero_division,
        "sample_weight": sample_weight,
        "keep_outcomes": True,  # the resamples need each object's outcome
    }
    va, vb = _validations(expected, predicted_a, predicted_b, kind, options, classes, positive)
    boot_a = va.bootstrap(n_resamples, seed=seed, method=method)
    boot_b = vb.bootstrap(n_resamples, seed=seed, method=method)
    with np.errstate(invalid="ignore"):
        diffs = boot_a.values(measure) - boot_b.values(measure)
    defined = diffs[~np.isnan(diffs)]
    alpha = (1.0 - level) / 2.0
    if defined.size:
        low, high = (float(x) for x in np.quantile(defined, [alpha, 1.0 - alpha]))
    else:
        low = high = math.nan
    estimate_a, estimate_b = float(getattr(va, measure)), float(getattr(vb, measure))
    return Comparison(
        measure=measure,
        kind=kind,
        estimate_a=estimate_a,
        estimate_b=estimate_b,
        difference=estimate_a - estimate_b,
        low=low,
        high=high,
        p_value=paired_p_value(diffs),
        level=level,
        n_resamples=n_resamples,
        seed=seed,
        method=method,
    )
