"""F-Delta: the F-score gradient training rule for the tanh perceptron.

Paradowski, Spytkowski, Kwaśnicka, "A new F-score gradient-based training rule for
the linear model", Pattern Analysis and Applications, 2019.

- :class:`Perceptron` -- ``psi(x) = tanh(gamma (w . x - bias))``, class a iff ``psi >= 0``.
- :func:`objective_value`, :func:`value_and_gradient`, :func:`exact_value` -- the
  criteria ``"delta"``, ``"recall"``, ``"f"``, ``"F"``, ``"F_b"`` with analytic gradients.
- :func:`train` -- Algorithm 1 (random search, then adaptive-step gradient ascent).
- :func:`generate` -- LS / LNS / RND data sets (eqs. 30-40).
- :func:`experiment` -- the section-4 comparison with the paired t test of eq. 42.
- :func:`patsi_experiment` -- section 5, PATSI image annotation on Corel5k.
"""

from fmacro.optimize.fdelta.experiments import (
    CRITICAL_T,
    CellResult,
    ExperimentResult,
    experiment,
    f_score_a,
    paired_t,
    verdict,
)
from fmacro.optimize.fdelta.generators import KINDS, PAPER_RATIOS, Dataset, class_sizes, generate
from fmacro.optimize.fdelta.model import Perceptron
from fmacro.optimize.fdelta.objectives import (
    OBJECTIVES,
    Problem,
    exact_value,
    is_maximized,
    objective_value,
    value_and_gradient,
)
from fmacro.optimize.fdelta.patsi import PatsiResult, patsi_experiment
from fmacro.optimize.fdelta.training import train

__all__ = [
    "CRITICAL_T",
    "KINDS",
    "OBJECTIVES",
    "PAPER_RATIOS",
    "CellResult",
    "Dataset",
    "ExperimentResult",
    "PatsiResult",
    "Perceptron",
    "Problem",
    "class_sizes",
    "exact_value",
    "experiment",
    "f_score_a",
    "generate",
    "is_maximized",
    "objective_value",
    "paired_t",
    "patsi_experiment",
    "train",
    "value_and_gradient",
    "verdict",
]
