"""``micro_macro``: per-class thresholds for a mix of micro-F and macro-F.

LibMultiLabel's ``train_thresholding`` (Lin and Lin, CIKM 2023) tunes thresholds for
micro-F1 and macro-F1 together. Here the objective of one cut per kept class is

    J = mix * micro-F_beta + (1 - mix) * macro-F_beta,

micro-F_beta from the summed tp, fp and fn of the kept classes, macro-F_beta the mean of the
classes' own F_beta (the 0/0 rule of ``zero_division``, as :func:`per_class`). ``mix=0`` is
macro-F (:func:`per_class` solves it exactly), ``mix=1`` micro-F.

The search
----------
Macro-F is separable; the micro term couples the classes only through the totals TP and FP.
Two moves, each accepted only when J rises by more than a rounding tolerance:

* **Coordinate ascent**: one class at a time moves to its best cut given the others (a scan
  of its cuts with the totals of the others fixed; ties to the earlier cut). Passes repeat
  until one moves nothing.
* **Parametric (Dinkelbach) step**: micro-F_beta is the ratio (1 + b²) TP / D with
  D = TP + FP + b² M (M the summed class sizes). At the current micro level lambda and D,
  replacing micro-F by its linearization (1 + b²) TP - lambda (TP + FP), scaled by 1 / D,
  makes the whole objective separable: every class takes, in closed form, its cut
  maximizing (1 - mix) / n F_k + mix ((1 + b²) tp_k - lambda (tp_k + fp_k)) / D.

From a start, parametric steps run while they raise J, then coordinate ascent; the two
alternate until the ascent moves nothing. Without ``start`` the search runs from two: the
:func:`per_class` cuts (the macro-F optimum) and the micro-F optimum (the answer for
``mix=1``), and keeps the better answer (ties to the first).

What is guaranteed: J never decreases from a start, so the answer is at least J of the
macro-F optimum and of the micro-F optimum; it is a coordinate-wise maximum of J (no single
class can raise it) at which the parametric step does not raise J either. ``mix=0``
returns the :func:`per_class` cuts, the exact macro-F optimum; ``mix=1`` the exact micro-F
optimum (the parametric steps are then Dinkelbach's iteration, whose separable subproblem
is solved exactly, so it ends at the optimum up to the rounding tolerance). For
0 < mix < 1 the answer is not proven optimal: the micro term couples the classes, and a
coordinate-wise maximum can be a local one. ``tests/test_micro_macro.py`` compares it with
brute force on small random instances, where it has matched the optimum (a single start
falls short on a few). No thresholds beat either optimum on its own term, so ``mix`` times
the micro-F optimum plus ``1 - mix`` times the macro-F optimum bounds J
(``diagnostics["objective_bound"]``, equal to J for ``mix`` 0 and 1). ``upper_bound`` and
``gap``, which are about F-macro, are NaN.

Dominated cuts (same tp as the cut before, more fp) can be dropped: at a fixed tp, each
class's F_beta and micro-F_beta are both non-increasing in fp, so replacing a dominated cut
by the one before never lowers J, and every move breaks ties towards the earlier cut. The
points built here leave them out (``dominated="drop"``) unless an explicit ``start`` may sit
on one; the answer is the same on all cuts.

Cost: a coordinate pass and a parametric step each read every cut once (O(cuts)); building
the points is one sort per class.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fmacro.optimize._frames import names_from_frames
from fmacro.optimize.baselines._micro_macro_kernels import ascend, linearized_cuts, objective
from fmacro.optimize.search.constraints import constrained, feasible_start, noted
from fmacro.optimize.search.coordinate import own_cuts_checked
from fmacro.optimize.search.points import ClassPoints, as_points
from fmacro.optimize.search.result import ThresholdResult
from fmacro.validation import measures
from fmacro.validation.checks import check_beta

__all__ = ["check_mix", "micro_macro", "micro_macro_checked"]

_TOL = 1e-14
_MAX_ROUNDS = 10_000


def check_mix(mix: object) -> float:
    """``mix`` as a float after checking it is a real number in [0, 1] (not a bool).

    Examples
    --------
    >>> check_mix(0.25)
    0.25
    >>> check_mix(1.5)
    Traceback (most recent call last):
    ...
    ValueError: mix must be a number in [0, 1] (the weight of micro-F), got 1.5
    """
    if isinstance(mix, bool) or not isinstance(mix, numbers.Real):
        raise TypeError(f"mix must be a real number in [0, 1], got {type(mix).__name__}")
    value = float(mix)
    if not 0.0 <= value <= 1.0:  # NaN fails too
        raise ValueError(f"mix must be a number in [0, 1] (the weight of micro-F), got {mix!r}")
    return value


@names_from_frames("scores", "labels")
def micro_macro(
    scores: Any = None,
    labels: Any = None,
    *,
    mix: float = 0.5,
    beta: float = 1.0,
    zero_division: float | None = None,
    empty_classes: str = "exclude",
    points: ClassPoints | None = None,
    sample_weight: Any = None,
    start: ThresholdResult | ArrayLike | None = None,
    min_precision: Any = None,
    max_predicted_rate: Any = None,
) -> ThresholdResult:
    """Per-class thresholds maximizing ``mix * micro-F_beta + (1 - mix) * macro-F_beta``.

    See the module notes for the search and its guarantee: a coordinate-wise maximum
    reached from the :func:`per_class` cuts and from the micro-F optimum, exact for
    ``mix=0`` (macro-F, the :func:`per_class` cuts) and ``mix=1`` (micro-F).

    Parameters
    ----------
    scores, labels
        Dense ``(N, n)`` scores (or sparse, retrieved entries only) and the 0/1 indicator
        labels; or pass ``points=`` instead.
    mix
        Weight of micro-F in [0, 1]; macro-F weighs ``1 - mix``.
    beta
        F_beta weight, > 0 (both terms).
    zero_division
        Precision of the empty cut: 0.0, 1.0 or nan (then a class never takes its empty
        cut). ``None`` (default): the policy of ``points``, or 0.0 when built here.
    empty_classes
        ``"exclude"`` (default) or ``"include"`` classes without positives (they add their
        false positives to micro-F and their F to the mean).
    points
        Precomputed :class:`~fmacro.optimize.search.points.ClassPoints`, with or without
        dominated cuts (then scores/labels None).
    sample_weight
        One non-negative weight per object: the search runs on the weighted points (an
        integer weight w is the row repeated w times). Not with ``points=``.
    start
        Starting cuts: a :class:`ThresholdResult` on the same data (its ``cuts``) or cut
        numbers (as in ``ThresholdResult.cuts``), one per kept class; none of them a cut
        whose F is undefined (the empty cut under ``zero_division=nan``). Default: the
        :func:`per_class` cuts and the micro-F optimum (the better of the two answers).
    min_precision, max_predicted_rate
        Per-class constraints on the cuts, as for :func:`fmacro.optimize.fixed_point`:
        the search and ``objective_bound`` are over the feasible cuts, and a given start
        must be feasible.

    Returns
    -------
    ThresholdResult
        ``method="micro_macro"``; ``f``, ``precision`` and ``recall`` are F-macro and the
        macro P and R, as for every method. ``diagnostics``: ``micro_f``, ``macro_f``,
        ``objective`` (``mix * micro_f + (1 - mix) * macro_f``), ``start_objective``,
        ``objective_bound`` (``mix`` times the micro-F optimum plus ``1 - mix`` times the
        macro-F optimum: no thresholds reach a higher objective), ``mix``, ``class_f``
        (per kept class), ``n_passes`` (coordinate passes) and ``n_steps`` (accepted
        parametric steps), both counted over every search run (the two ends included).

    Examples
    --------
    Two classes, six objects (rows in decreasing score order in both columns). Class 0's
    labels by rank are 0 1 1 0 0 1, class 1's 0 0 0 0 1 0. Alone, class 0 is best with
    its top 3 (F1 = 2/3; all six tie, the earlier cut is kept) and class 1 with its top 5
    (F1 = 1/3): the macro-F1 optimum 1/2, at micro-F1 6/12 (TP = 3, FP = 5, FN = 1):

    >>> import numpy as np
    >>> scores = np.array([[0.6, 0.9], [0.5, 0.7], [0.4, 0.6], [0.3, 0.4], [0.2, 0.3], [0.1, 0.2]])
    >>> labels = np.array([[0, 0], [1, 0], [1, 0], [0, 0], [0, 1], [1, 0]])
    >>> macro = micro_macro(scores, labels, mix=0)
    >>> macro.cuts.tolist(), macro.diagnostics["macro_f"], macro.diagnostics["micro_f"]
    ([3, 5], 0.5, 0.5)

    Micro-F1 alone gives up class 1 (TP = 3, FP = 3, FN = 1: 6/10); the even mix keeps
    macro-F1 at 1/2 with class 0's other optimum, all six (TP = 4, FP = 7: 8/15):

    >>> micro_macro(scores, labels, mix=1).cuts.tolist()
    [6, 0]
    >>> even = micro_macro(scores, labels, mix=0.5)
    >>> even.cuts.tolist(), round(even.diagnostics["micro_f"], 4), even.diagnostics["macro_f"]
    ([6, 5], 0.5333, 0.5)
    """
    b = check_beta(beta)
    w = check_mix(mix)
    # Without a start no class needs a dominated cut (module notes); an explicit start may
    # sit on one, so points built here then keep every cut (given pruned points refuse
    # such a start by name).
    pts = as_points(
        scores,
        labels,
        points,
        zero_division=zero_division,
        empty_classes=empty_classes,
        dominated="drop" if start is None or points is not None else "keep",
        sample_weight=sample_weight,
    )
    feasible, rules = constrained(pts, min_precision, max_predicted_rate)
    start_cuts = None
    if start is not None:
        given = start.cuts if isinstance(start, ThresholdResult) else start
        start_cuts = pts.local_cuts(given)
        if feasible is not pts:
            start_cuts = feasible_start(feasible, pts.full_cuts(start_cuts))
        pts = feasible
        undefined = np.isnan(_class_f(pts, b)[pts.indptr[:-1] + start_cuts])
        if undefined.any():
            j = int(np.flatnonzero(undefined)[0])
            raise ValueError(
                f"start puts kept class {j} on a cut whose F is undefined (its empty cut "
                "under zero_division=nan); start it on a cut that predicts something"
            )
    return noted(micro_macro_checked(feasible, b, w, start_cuts), rules)


def micro_macro_checked(
    points: ClassPoints,
    b: float,
    mix: float,
    start_cuts: NDArray[np.int64] | None = None,
) -> ThresholdResult:
    """:func:`micro_macro` on given ``points`` with a checked beta ``b`` and ``mix``
    (:func:`check_mix`), from checked local ``start_cuts`` (each with a defined F; not
    modified) or, with ``None``, from the :func:`per_class` cuts and from the micro-F
    optimum (the better answer; ties to the first): what ``tune`` calls."""
    fk = _class_f(points, b)
    problem = _Problem(points, fk, b, mix)
    # the two ends: the macro-F optimum (T_b) and the micro-F optimum (Dinkelbach from T_b)
    macro_cuts = own_cuts_checked(points, b)
    micro_cuts, n_passes, n_steps = _Problem(points, fk, b, 1.0).search(macro_cuts.copy())
    bound = mix * problem.score(micro_cuts)[0] + (1.0 - mix) * problem.score(macro_cuts)[1]
    start = macro_cuts if start_cuts is None else start_cuts
    cuts, passes, steps = problem.search(start.copy())
    n_passes += passes
    n_steps += steps
    if start_cuts is None and 0.0 < mix < 1.0:
        other, passes, steps = problem.search(micro_cuts.copy())
        n_passes += passes
        n_steps += steps
        if problem.value(other) > problem.value(cuts):
            cuts = other
    start_objective = problem.score(start)[2]
    micro_f, macro_f, value = problem.score(cuts)
    g = points.indptr[:-1] + cuts
    return ThresholdResult.from_checked_cuts(
        points,
        cuts,
        beta=b,
        method="micro_macro",
        diagnostics={
            "micro_f": micro_f,
            "macro_f": macro_f,
            "objective": value,
            "start_objective": start_objective,
            "objective_bound": bound,
            "mix": mix,
            "class_f": fk[g],
            "n_passes": n_passes,
            "n_steps": n_steps,
        },
    )


def _class_f(points: ClassPoints, b: float) -> NDArray[np.float64]:
    """F_beta of every cut of every class (NaN where undefined): measures' definition."""
    return np.asarray(measures.f_beta_from_pr(points.precision, points.recall, b), np.float64)


class _Problem:
    """The arrays of one search and its two moves (a plain holder, never returned)."""

    def __init__(self, points: ClassPoints, fk: NDArray[np.float64], b: float, mix: float):
        self.points = points
        self.indptr = np.asarray(points.indptr, dtype=np.int64)
        self.tp = np.asarray(points.tp, dtype=np.float64)
        self.fp = np.asarray(points.fp, dtype=np.float64)
        self.fk = fk
        self.b = b
        self.b2 = b * b
        self.mix = mix
        self.m_total = float(np.sum(np.asarray(points.support, dtype=np.float64)))
        zd = points.zero_division
        self.micro_zero = float(measures.f_beta_from_counts(0, 0, 0, b, zd))

    def value(self, cuts: NDArray[np.int64]) -> float:
        """J of local ``cuts`` as the kernels compute it (the moves compare these)."""
        return float(
            objective(
                self.indptr,
                self.tp,
                self.fp,
                self.fk,
                cuts,
                self.m_total,
                self.b2,
                self.mix,
                self.micro_zero,
            )
        )

    def score(self, cuts: NDArray[np.int64]) -> tuple[float, float, float]:
        """(micro-F, macro-F, J) of local ``cuts`` by :mod:`fmacro.validation.measures`."""
        g = self.indptr[:-1] + cuts
        big_tp = float(np.sum(self.points.tp[g]))
        big_fp = float(np.sum(self.points.fp[g]))
        micro = float(
            measures.f_beta_from_counts(
                big_tp, big_fp, self.m_total - big_tp, self.b, self.points.zero_division
            )
        )
        macro = float(np.mean(self.fk[g]))
        return micro, macro, self.mix * micro + (1.0 - self.mix) * macro

    def step(self, cuts: NDArray[np.int64]) -> NDArray[np.int64]:
        """The parametric step at ``cuts``: the separable problem of the linearized micro
        term at the current micro level and denominator (the cuts unchanged when that
        denominator is 0: nothing predicted and no positive)."""
        g = self.indptr[:-1] + cuts
        big_tp = float(np.sum(self.tp[g]))
        big_fp = float(np.sum(self.fp[g]))
        den = (1.0 + self.b2) * big_tp + self.b2 * (self.m_total - big_tp) + big_fp
        if den == 0.0:
            return cuts
        level = (1.0 + self.b2) * big_tp / den
        n = self.points.n_classes
        return np.asarray(
            linearized_cuts(
                self.indptr,
                self.tp,
                self.fp,
                self.fk,
                (1.0 - self.mix) / n,
                self.mix * (1.0 + self.b2) / den,
                self.mix * level / den,
            ),
            dtype=np.int64,
        )

    def search(self, cuts: NDArray[np.int64]) -> tuple[NDArray[np.int64], int, int]:
        """Alternate parametric steps (while they raise J) and coordinate ascent until the
        ascent moves nothing; returns the cuts, coordinate passes and accepted steps."""
        n_passes = 0
        n_steps = 0
        current = self.value(cuts)
        for _ in range(_MAX_ROUNDS):
            while True:
                proposal = self.step(cuts)
                proposed = self.value(proposal)
                if not proposed > current + _TOL:
                    break
                cuts, current = proposal, proposed
                n_steps += 1
            before = cuts.copy()
            cuts, passes = ascend(
                self.indptr,
                self.tp,
                self.fp,
                self.fk,
                cuts,
                self.m_total,
                self.b2,
                self.mix,
                self.micro_zero,
                _MAX_ROUNDS,
                _TOL,
            )
            n_passes += int(passes)
            if np.array_equal(cuts, before):
                break
            current = self.value(cuts)
        return np.asarray(cuts, dtype=np.int64), n_passes, n_steps
