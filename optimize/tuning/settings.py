"""``TuneSettings``: the settings of one ``tune`` call, checked once at its public entry.

:func:`optimize.tune` and :func:`fmacro.dask.tune` check their arguments (``beta`` by
:func:`~fmacro.validation.checks.check_beta`, ``zero_division`` by
:func:`~fmacro.validation.checks.check_zero_division`, the batch size, the base rates,
...) and build one :class:`TuneSettings`; every internal step (the solve, the inner fits
of ``prior="cv"``, the searches through their ``*_checked`` entries) takes it as it is and
checks nothing again. A cv half changes only its batch size and the exact step
(:meth:`TuneSettings.for_inner_fits`).
"""

from __future__ import annotations

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.search.constraints import CutConstraints
from fmacro.validation.counts import frozen_array
from fmacro.validation.values import read_only_copies

__all__ = ["EMPTY_CLASS_RULES", "METHODS", "TuneSettings"]

#: The search methods ``tune`` runs on the smoothed points.
METHODS = ("fixed_point", "exact", "per_class", "cyclic", "domain")
#: The rules for the empty classes (``tune(unseen=...)``).
EMPTY_CLASS_RULES = ("prior", "never")


def _frozen_rates(rates: NDArray[np.float64] | None) -> NDArray[np.float64] | None:
    return None if rates is None else frozen_array(rates, np.float64)


@read_only_copies
@attrs.frozen(eq=False)
class TuneSettings:
    """Checked settings of a tuning solve (what every step needs besides the pseudo-count).

    Built only from checked values: the public entry point checks, this holds.
    """

    beta: float
    zero_division: float
    n_eval: float  # the batch size, resolved (the default filled in)
    method: str = "fixed_point"
    # the rule for the empty classes: "prior" or "never" (tune's ``unseen=``)
    empty_rule: str = "prior"
    # per column, read-only (a frozen value aliases nothing); None = the own rates
    base_rates: NDArray[np.float64] | None = attrs.field(default=None, converter=_frozen_rates)
    calibrated: bool = False
    # False: method "fixed_point" stops at the linearization (the inner fits of "cv")
    exact: bool = True
    # per-class constraints on the cuts (min_precision, max_predicted_rate), or None
    constraints: CutConstraints | None = None

    def for_inner_fits(self, n_eval: float) -> TuneSettings:
        """The settings of ``prior="cv"``'s inner fits: batches of ``n_eval``, no exact step."""
        return attrs.evolve(self, n_eval=n_eval, exact=False)
