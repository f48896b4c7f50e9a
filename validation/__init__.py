"""fmacro.validation: counts, measures and immutable Validation objects.

The ground floor of fmacro: count outcomes once (a monoid, so counts pool by ``+``),
derive every measure lazily, in micro, macro, weighted and F-macro forms.
"""

from fmacro.validation import measures
from fmacro.validation.base import Validation
from fmacro.validation.binary import BinFValidation
from fmacro.validation.counts import ClassCounts, ConfusionMatrix, Counts
from fmacro.validation.multiclass import MultiFValidation
from fmacro.validation.multilabel import MultiLabelFValidation, SampleCounts
from fmacro.validation.sparse_confusion import SparseConfusionMatrix

__all__ = [
    "BinFValidation",
    "ClassCounts",
    "ConfusionMatrix",
    "Counts",
    "MultiFValidation",
    "MultiLabelFValidation",
    "SampleCounts",
    "SparseConfusionMatrix",
    "Validation",
    "measures",
]
