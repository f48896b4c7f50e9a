"""fmacro.validation: counts, measures and immutable Validation objects.

The ground floor of fmacro: count outcomes once (a monoid, so counts pool by ``+``),
derive every measure lazily, in micro, macro, weighted and F-macro forms; resample the
objects for intervals (``Validation.bootstrap``) and compare two models (:func:`compare`).
"""

from fmacro.validation import measures
from fmacro.validation.base import Validation
from fmacro.validation.binary import BinFValidation
from fmacro.validation.bootstrap import BootstrapResult
from fmacro.validation.compare import Comparison, compare
from fmacro.validation.counts import ClassCounts, ConfusionMatrix, Counts
from fmacro.validation.multiclass import MultiFValidation
from fmacro.validation.multilabel import MultiLabelFValidation, SampleCounts
from fmacro.validation.sparse_confusion import SparseConfusionMatrix

__all__ = [
    "BinFValidation",
    "BootstrapResult",
    "ClassCounts",
    "Comparison",
    "ConfusionMatrix",
    "Counts",
    "MultiFValidation",
    "MultiLabelFValidation",
    "SampleCounts",
    "SparseConfusionMatrix",
    "Validation",
    "compare",
    "measures",
]
