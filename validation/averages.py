"""Per-class measures and their averages, shared by the multiclass and multi-label validations.

The averages, each under its own name:

``micro``
    pool the counts of all classes, then the measure.
``macro``
    mean of the per-class measure (``macro_f`` is scikit-learn's "macro F1").
``weighted``
    mean of the per-class measure weighted by support (true members per class).
``f_macro``
    F_beta of (macro precision, macro recall): the measure of A. I. Berger's
    dissertation (*Development of methods for optimizing quality metrics in multi-label
    classification problems*, 2024, in Russian) and of ``MultiFValidation`` in Patrick
    R. Nicolas, *Scala for Machine Learning* (Packt, 2015). It is *not* the same as
    ``macro_f``.

With ``zero_division=nan``, classes whose measure is 0/0 are left out of the macro and
weighted averages (each measure separately).
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fmacro.validation import measures
from fmacro.validation.counts import ClassCounts, frozen_array, frozen_floats

__all__ = ["ClassAverages"]


class ClassAverages:
    """Mixin: measures derived from ``self.class_counts``, ``self.beta``, ``self.zero_division``."""

    class_counts: ClassCounts
    beta: float
    zero_division: float

    @cached_property
    def per_class_precision(self) -> NDArray[np.float64]:
        c = self.class_counts
        return frozen_floats(measures.precision(c.tp, c.fp, self.zero_division))

    @cached_property
    def per_class_recall(self) -> NDArray[np.float64]:
        c = self.class_counts
        return frozen_floats(measures.recall(c.tp, c.fn, self.zero_division))

    @cached_property
    def per_class_f(self) -> NDArray[np.float64]:
        """F_beta of each class from its counts: (1+b²)TP / ((1+b²)TP + b²FN + FP)."""
        c = self.class_counts
        return frozen_floats(
            measures.f_beta_from_counts(c.tp, c.fp, c.fn, self.beta, self.zero_division)
        )

    @cached_property
    def per_class_specificity(self) -> NDArray[np.float64]:
        c = self.class_counts
        return frozen_floats(measures.specificity(c.tn, c.fp, self.zero_division))

    @property
    def support(self) -> NDArray[np.int64]:
        """True members of each class."""
        return self.class_counts.support

    @cached_property
    def absent_classes(self) -> NDArray[np.int64]:
        """Positions of classes with no true and no predicted member."""
        c = self.class_counts
        return frozen_array(np.flatnonzero((c.tp + c.fp + c.fn) == 0), np.int64)

    # micro: pooled counts
    @cached_property
    def micro_precision(self) -> float:
        c = self.class_counts.pooled()
        return measures.precision(c.tp, c.fp, self.zero_division)

    @cached_property
    def micro_recall(self) -> float:
        c = self.class_counts.pooled()
        return measures.recall(c.tp, c.fn, self.zero_division)

    @cached_property
    def micro_f(self) -> float:
        c = self.class_counts.pooled()
        return measures.f_beta_from_counts(c.tp, c.fp, c.fn, self.beta, self.zero_division)

    # macro: unweighted means over classes
    @cached_property
    def macro_precision(self) -> float:
        return self._macro(self.per_class_precision)

    @cached_property
    def macro_recall(self) -> float:
        return self._macro(self.per_class_recall)

    @cached_property
    def macro_f(self) -> float:
        """Mean of per-class F_beta (macro-F, scikit-learn's ``average='macro'``)."""
        return self._macro(self.per_class_f)

    # weighted: support-weighted means
    @cached_property
    def weighted_precision(self) -> float:
        return self._weighted(self.per_class_precision)

    @cached_property
    def weighted_recall(self) -> float:
        return self._weighted(self.per_class_recall)

    @cached_property
    def weighted_f(self) -> float:
        return self._weighted(self.per_class_f)

    @cached_property
    def f_macro(self) -> float:
        """F-macro: F_beta of (macro precision, macro recall)."""
        return measures.f_beta_from_pr(self.macro_precision, self.macro_recall, self.beta)

    @property
    def precision(self) -> float:
        """Macro precision (``MultiFValidation.precision`` in *Scala for Machine Learning*)."""
        return self.macro_precision

    @property
    def recall(self) -> float:
        """Macro recall.

        *Scala for Machine Learning* (Nicolas, 2015) reads the precision slot here; we do not.
        """
        return self.macro_recall

    @property
    def score(self) -> float:
        """F-macro, the score ``MultiFValidation`` of *Scala for Machine Learning* intends."""
        return self.f_macro

    def _macro(self, values: NDArray[np.float64]) -> float:
        if values.size == 0:
            return self.zero_division
        return measures.mean_defined(values)

    def _weighted(self, values: NDArray[np.float64]) -> float:
        # With no true member in any class the weights are all 0 and the plain mean of
        # the defined values is used, as scikit-learn does.
        return measures.weighted_mean_defined(values, self.class_counts.support)

    def summary(self) -> dict[str, Any]:
        """The measures as plain Python values (JSON-ready; NaN stays NaN)."""
        return {
            "beta": self.beta,
            "zero_division": self.zero_division,
            "f_macro": self.f_macro,
            **{
                f"{avg}_{m}": getattr(self, f"{avg}_{m}")
                for avg in ("micro", "macro", "weighted")
                for m in ("precision", "recall", "f")
            },
            "per_class": {
                "precision": self.per_class_precision.tolist(),
                "recall": self.per_class_recall.tolist(),
                "f": self.per_class_f.tolist(),
                "support": self.support.tolist(),
            },
        }

    def _average_rows(self) -> list[tuple[Any, ...]]:
        total = self.class_counts.support.sum().item()  # an int, or a float when weighted
        return [
            ("micro", self.micro_precision, self.micro_recall, self.micro_f, total),
            ("macro", self.macro_precision, self.macro_recall, self.macro_f, total),
            ("weighted", self.weighted_precision, self.weighted_recall, self.weighted_f, total),
            ("F-macro", self.macro_precision, self.macro_recall, self.f_macro, total),
        ]
