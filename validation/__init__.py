"""fmacro.validation: counts, measures and immutable Validation objects.

The ground floor of fmacro: count outcomes once (a monoid, so counts pool by ``+``),
derive every measure lazily, in micro, macro, weighted and F-macro forms.
"""

from validation import measures
from validation.base import Validation
from validation.binary import BinFValidation
from validation.counts import ClassCounts, ConfusionMatrix, Counts
from validation.multiclass import MultiFValidation
from validation.multilabel import MultiLabelFValidation, SampleCounts

__all__ = [
    "BinFValidation",
    "ClassCounts",
    "ConfusionMatrix",
    "Counts",
    "MultiFValidation",
    "MultiLabelFValidation",
    "SampleCounts",
    "Validation",
    "measures",
]
