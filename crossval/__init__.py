"""fmacro.crossval: seeded splitters and the cross-validation runner.

Splitters (frozen, seeded, usable as ``cv=`` in scikit-learn): :class:`OneFold`,
:class:`KFold`, :class:`StratifiedKFold`, :class:`LeaveOneOut`, :class:`RepeatedKFold`,
:class:`GroupKFold`, :class:`MultilabelStratifiedKFold`. Each yields
``(train, validation)`` index pairs from ``split`` and :class:`Fold` values from ``folds``.

:func:`cross_validate` trains once per fold and returns a :class:`CrossValidation` with
the pooled validation (counts summed) and the fold-averaged score, labelled as such.
:func:`compare_cross_validations` and :func:`paired_t_test` test whether one model's
fold scores beat another's (paired t-test, Nadeau-Bengio corrected by default).
"""

from fmacro.crossval.compare import PairedTest, compare_cross_validations, paired_t_test
from fmacro.crossval.fold import Fold, take_rows
from fmacro.crossval.multilabel import MultilabelStratifiedKFold, label_structure
from fmacro.crossval.runner import CrossValidation, FoldResult, cross_validate, vectorized
from fmacro.crossval.splitters import (
    GroupKFold,
    KFold,
    LeaveOneOut,
    OneFold,
    RepeatedKFold,
    StratificationWarning,
    StratifiedKFold,
)

__all__ = [
    "CrossValidation",
    "Fold",
    "FoldResult",
    "GroupKFold",
    "KFold",
    "LeaveOneOut",
    "MultilabelStratifiedKFold",
    "OneFold",
    "PairedTest",
    "RepeatedKFold",
    "StratificationWarning",
    "StratifiedKFold",
    "compare_cross_validations",
    "cross_validate",
    "label_structure",
    "paired_t_test",
    "take_rows",
    "vectorized",
]
