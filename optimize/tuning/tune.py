"""``tune``: F-macro thresholds chosen to hold on new data.

The certified in-sample optimum (:func:`optimize.fixed_point`) gives rare classes
tiny cuts with precision 1 on the tuning rows, which do not repeat on new data.
:func:`tune` optimizes the *expected* F-macro of a new batch instead: it smooths the
class points (:mod:`optimize.smoothing`: Beta-prior posterior means of each cut's
precision and recall, and the probability that a cut predicts anything in a batch
of ``n_eval`` objects) and runs the chosen search method on the smoothed points. See
docs/f-macro.md for the maths and the measured gains.

What the result reports
-----------------------
``f``, ``precision``, ``recall`` are the plain in-sample F-macro, P and R of the
returned thresholds on the tuning rows (over the classes with a tuning positive),
so they compare directly with the other methods' values. ``upper_bound`` and
``gap`` are ``nan``: there is no in-sample certificate (the thresholds are
deliberately not the in-sample optimum). The certificate of ``fixed_point`` holds
for the *smoothed* objective; it is in ``diagnostics``: ``smoothed_f``,
``smoothed_upper_bound``, ``smoothed_gap``, ``certified`` (True for
``method="fixed_point"``, ``"exact"`` and ``"domain"``).

Classes without tuning positives (empty classes)
------------------------------------------------
They are not part of the objective (nothing is known about their recall). With
``unseen="prior"`` (default) such a class gets the cut that maximizes the
linearization of the smoothed objective at the returned solution,
``cos(phi) p~ + sin(phi) r~`` with ``phi`` the gradient angle of F_beta at the
solution's smoothed (P, R), over its prior-smoothed points (tp = m = 0:
``p~ = a pi / (j + a) * (1 - q) + z q``, ``r~ = j / N``; with ``calibrated=True``
the model-centred points). With the tuning rates as prior centre (pi = 0) and
``zero_division=0`` that is the all-objects cut, threshold ``-inf``: the class is
predicted for every object (recall 1 whenever it does occur; a class absent from the
evaluation data is not scored by F-macro or macro-F, so under ``zero_division=0`` this
never lowers either). Given positive ``base_rates`` (e.g. training label rates), smaller
cuts can win. ``unseen="never"`` gives them ``+inf`` (never predicted), as every other
method does; ``prior=0`` always does. Measured (benchmarks/results_tune.md, the 36 runs
with such classes): this rule +23.5% held-out F-macro over ``per_class``, the seen
classes' mean predicted share +22.5%, the global threshold +18.7%, ``+inf`` +15.4%.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from fmacro.optimize._frames import names_from_frames
from fmacro.optimize.deployment import warns_predict_everything
from fmacro.optimize.inputs import matching_shapes
from fmacro.optimize.search.constraints import check_constraints
from fmacro.optimize.search.points import ClassPoints, as_points
from fmacro.optimize.search.result import ThresholdResult
from fmacro.optimize.tuning._prior_cv import cv_scores_checked
from fmacro.optimize.tuning.columns import WalkedColumns
from fmacro.optimize.tuning.hulls import smoothed_hull_at
from fmacro.optimize.tuning.problem import Problem, every_cut_problem
from fmacro.optimize.tuning.settings import EMPTY_CLASS_RULES, METHODS, TuneSettings
from fmacro.optimize.tuning.smoothing import (
    SmoothedPoints,
    check_base_rates,
    check_n_eval,
    check_pseudo_count,
)
from fmacro.optimize.tuning.solve import solve
from fmacro.optimize.tuning.source import walk_inputs
from fmacro.validation.checks import check_beta, check_zero_division
from fmacro.validation.weights import check_sample_weight

__all__ = ["DEFAULT_CV_GRID", "tune"]

DEFAULT_CV_GRID: tuple[float, ...] = (0.0, 1.0, 3.0, 10.0, 30.0)


@warns_predict_everything
@names_from_frames("scores", "labels")
def tune(
    scores: Any = None,
    labels: Any = None,
    *,
    beta: float = 1.0,
    zero_division: float = 0.0,
    prior: float | str = 3.0,
    base_rates: ArrayLike | None = None,
    n_eval: float | None = None,
    method: str = "fixed_point",
    unseen: str = "prior",
    cv_grid: Sequence[float] = DEFAULT_CV_GRID,
    cv_repeats: int = 2,
    random_state: int = 0,
    points: ClassPoints | None = None,
    calibrated: bool = False,
    sample_weight: Any = None,
    min_precision: Any = None,
    max_predicted_rate: Any = None,
) -> ThresholdResult:
    """F-macro thresholds for new data: the optimum of the smoothed class points.

    Parameters
    ----------
    scores, labels
        Tuning scores (validation or out-of-fold scores, dense or scipy sparse,
        ``(N, n)``) and their 0/1 labels, as for :func:`optimize.class_points`.
        Neither is modified.
    beta
        F_beta weight, > 0.
    zero_division
        Precision of an empty prediction: 0.0 (default), 1.0 or nan.
    prior
        Pseudo-count a >= 0 of the Beta priors (default 3; 0 = the raw in-sample
        points), or ``"cv"``: a chosen from ``cv_grid`` by ``cv_repeats`` x 2-fold
        cross-validation inside the tuning rows (held-out plain F-macro, seeded by
        ``random_state``; ties go to the earlier grid value). The inner fits stop at
        the linearization on each class's hull (``fixed_point(..., exact=False)`` on
        the hull cuts, within its ``eps`` of the smoothed optimum); the final fit at
        the chosen a is the proven optimum.
    base_rates
        Prior centre pi per column, shape ``(n,)``, values in [0, 1] (e.g. the
        training labels' rates). Default: the tuning labels' rates m_k / N.
    n_eval
        Size of the batch the thresholds will be applied to (the set F-macro is
        computed on), >= 1. Default ``None``: the number of tuning rows N (with
        ``sample_weight``: their total weight, what the rows repeated by integer weights
        number); ``math.inf``: no finite-sample factor. Inside ``prior="cv"`` the inner
        fits use the held-out half's size (total weight) when ``n_eval`` is None.
    method
        Search run on the smoothed points: ``"fixed_point"`` (default: with its exact
        step, the proven optimum of the smoothed objective, ``smoothed_gap == 0``;
        the step costs up to about a second with 10^5 rows and 20 classes),
        ``"exact"`` (:func:`optimize.exact` itself: the same optimum), ``"domain"``
        (exact hull, certified),
        ``"per_class"`` (each class at its smoothed F_beta optimum: a macro-F
        target), ``"cyclic"``.
    unseen
        Rule for classes without tuning positives: ``"prior"`` (default) or
        ``"never"`` (``+inf``); see the module docstring.
    cv_grid, cv_repeats, random_state
        Grid (a non-empty sequence of pseudo-counts >= 0), repeats (an int >= 1) and
        seed (an int >= 0) of ``prior="cv"``.
    calibrated
        ``True`` when ``scores`` are calibrated probabilities (dense, in [0, 1]): the
        Beta priors are then centred on the model's expected precision and recall of
        each cut (the mean probability of its objects; their share of the class's
        probability mass, :func:`optimize.etu.model_centres`) instead of on a random
        cut's; ``base_rates`` is unused. Classes without tuning positives take the same
        model-centred points. Not with ``points=``.
    points
        Prebuilt raw :class:`~optimize.points.ClassPoints` instead of ``scores`` and
        ``labels`` (e.g. from the reference ranked-list format). Without scores the
        classes left out of the points get ``+inf`` and ``prior="cv"`` is refused.
    sample_weight
        One non-negative weight per tuning row, or ``None``. Checked by
        :func:`fmacro.validation.weights.check_sample_weight` (not with ``points=``:
        weighted points already carry their weights). The smoothing then counts weight
        where it counted rows: a cut's tp and size j, a class's m_k and N are sums of
        weights (those of ``class_points(scores, labels, sample_weight=w)``), the default
        prior centre is the weighted rate m_k / N, the pseudo-count a adds a weight of a
        (a row of weight 1 is one observation), and ``n_eval`` defaults to the total
        weight. So integer weights give exactly the result on the rows repeated that many
        times (a row of weight 0 is a row that is not there), and weighted ``tune`` equals
        ``tune(points=class_points(scores, labels, sample_weight=w))`` on the classes
        with tuning positives (with scores, the classes without any also get the rule of
        ``unseen``, weighted). Unlike the unsmoothed methods it is not invariant to
        scaling all weights: a and ``n_eval`` are in units of weight, so weights
        normalized to sum to 1 make a = 3 outweigh the whole tuning set. With
        ``prior="cv"`` the halves are row splits (not splits of the repeated rows, so no
        equality with repeated rows there): each half carries its rows' weights into its
        counts, its fit and its held-out score. Weighted calls take the every-cut path
        (``searched_cuts == "every cut"``, see Notes).
    min_precision, max_predicted_rate
        Per-class constraints on the cuts: None (default), a number in [0, 1], or one
        per class column. A class may only take a cut whose raw (unsmoothed) precision
        on the tuning rows is at least ``min_precision`` and which predicts at most a
        share ``max_predicted_rate`` of them (weighted: shares of weight); never
        predicting (``+inf``) always qualifies. The search then runs on the smoothed
        values of the feasible cuts, so ``method="fixed_point"``'s certificate is the
        optimum of the smoothed objective over the feasible thresholds
        (:mod:`fmacro.optimize.search.constraints` says why). The empty classes' rule
        (``unseen="prior"``) chooses among their feasible cuts too (a rate cap turns
        their ``-inf`` into the deepest cut within the cap). ``diagnostics["constraints"]``
        records them. With ``prior="cv"`` the inner fits meet them on their halves.
        Constrained calls take the every-cut path.

    Returns
    -------
    ThresholdResult
        ``method="tune"``; thresholds for every column; ``cuts`` index the classes
        with tuning positives (as for :func:`optimize.fixed_point`); ``f``,
        ``precision``, ``recall`` plain in-sample values; ``upper_bound = gap =
        nan``. ``diagnostics``: ``prior`` (the a used), ``n_eval``, ``search``
        (method), ``smoothed_f``, ``smoothed_precision``, ``smoothed_recall``,
        ``smoothed_upper_bound``, ``smoothed_gap``, ``certified``, ``phi``,
        ``n_unseen``, ``unseen``, ``searched_cuts`` (``"hull"``, ``"screened"`` or
        ``"every cut"``: see Notes), ``search_diagnostics``, and for ``"cv"``:
        ``cv_grid``, ``cv_scores`` (mean held-out F-macro per grid value).

    Notes
    -----
    Cost. With the default method, from scores (dense, or a sparse matrix's retrieved
    entries) and with the tuning labels' own rates or given ``base_rates``, one walk of
    each class's sorted scores computes the smoothed points and keeps only its hull
    vertices (``searched_cuts == "hull"``): a run of cuts of equal tp is convex in the
    (r~, p~) plane past a few leading cuts, for any prior centre, so only its ends and
    those cuts are smoothed; the cost is about that of :func:`optimize.fixed_point` on
    the same scores. When the linearization ends on an edge, a second walk keeps the cuts
    that can pass the exact search's first reduction (``"screened"``), and the exact step
    runs on them: the same answer as on every cut (tested). The first walk keeps each
    class's second chain (the upper-right chain of its other cuts), so the second walk
    reads only the classes where a cut besides the hull vertices can pass. The rule for
    classes without tuning positives walks their columns one at a time. ``prior="cv"``
    walks each half once for its whole grid (dense or sparse). Other settings
    (``calibrated``, other methods, ``points=``, ``sample_weight``) smooth every cut
    (``"every cut"``): the fused walk counts rows in integers, so weighted calls build
    the weighted points first (one numpy sort per class) and smooth all their cuts.
    The first call compiles the numba kernels (cached on disk after that).

    Raises
    ------
    ValueError, TypeError
        Naming the offending argument (negative or non-finite ``prior``, bad
        ``n_eval``, ``base_rates`` of the wrong shape or outside [0, 1], NaN
        scores, non-0/1 labels, unknown ``method``/``unseen``, ...).
    """
    b = check_beta(beta)
    zd = check_zero_division(zero_division)
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if unseen not in EMPTY_CLASS_RULES:
        raise ValueError(f"unseen must be 'prior' or 'never', got {unseen!r}")
    use_cv = isinstance(prior, str)
    if use_cv and prior != "cv":
        raise ValueError(f"prior must be a number >= 0 or 'cv', got {prior!r}")
    a = math.nan if use_cv else check_pseudo_count(prior)
    if not isinstance(calibrated, (bool, np.bool_)):
        raise TypeError(f"calibrated must be a bool, got {calibrated!r}")
    if points is not None:
        if calibrated:
            raise ValueError("calibrated=True needs the probabilities as scores, not points=")
        if use_cv:
            raise ValueError("prior='cv' needs scores and labels (it splits the rows), not points=")
        raw_pts = as_points(scores, labels, points, zero_division=zd, sample_weight=sample_weight)
        if isinstance(raw_pts, SmoothedPoints):
            raw_pts = raw_pts.raw()
        n_obj, n_cols = raw_pts.n_samples, raw_pts.n_columns
        weights = None
    else:
        n_obj, n_cols = matching_shapes(scores, labels)
        weights = check_sample_weight(sample_weight, n_obj)
    # the default batch: the tuning rows, or their total weight (the points' n_samples)
    n = check_n_eval(n_eval, n_obj if weights is None else float(weights.sum()))
    pi = None if base_rates is None else check_base_rates(base_rates, n_cols)
    grid = _check_grid(cv_grid) if use_cv else ()
    if use_cv:
        if isinstance(cv_repeats, bool) or not isinstance(cv_repeats, (int, np.integer)):
            raise TypeError(f"cv_repeats must be an int >= 1, got {cv_repeats!r}")
        if cv_repeats < 1:
            raise ValueError(f"cv_repeats must be >= 1, got {cv_repeats}")
        if isinstance(random_state, bool) or not isinstance(random_state, (int, np.integer)):
            raise TypeError(f"random_state must be an int >= 0, got {random_state!r}")
        if random_state < 0:
            raise ValueError(f"random_state must be an int >= 0 (a seed), got {random_state}")
    rules = check_constraints(min_precision, max_predicted_rate, n_cols)
    settings = TuneSettings(b, zd, n, method, unseen, pi, bool(calibrated), constraints=rules)
    # the fused hull walk: scores (dense or sparse), the default search, own or given
    # base rates (prior="cv" walks its halves too); it counts rows, so no weights; its
    # hull vertices are those of every cut, so no constraints
    fast = (
        points is None
        and weights is None
        and method == "fixed_point"
        and not calibrated
        and rules is None
    )
    # every path but the fast one builds its problem first: bad input is reported for the
    # whole input before the cross-validation splits it
    problem: Problem | None = None
    columns = None  # the fast path's checked input, shared by its walks
    if points is not None:
        problem = Problem.from_points(raw_pts, settings)
    elif not fast:
        problem = every_cut_problem(scores, labels, settings, weights)
    else:
        columns = WalkedColumns(walk_inputs(scores, labels))
    extra: dict[str, Any] = {}
    if use_cv:
        cv = cv_scores_checked(
            scores,
            labels,
            grid,
            cv_repeats,
            int(random_state),
            settings,
            None if n_eval is None else n,
            None if columns is None else columns.inputs,
            weights,
        )
        a = grid[int(np.argmax(cv))]
        extra = {"cv_grid": np.asarray(grid), "cv_scores": cv}
    if problem is None and columns is not None:  # the fast path: the hull cuts at the a chosen
        walked = columns.walked_hulls((a,), settings, second=True)
        hull = smoothed_hull_at(walked, 0, float(a), n, zd)
        problem = Problem.from_walk(hull, settings, columns, walked.second)
    if problem is None:
        raise AssertionError("every path builds a problem")
    return solve(problem, a, extra)


def _check_grid(grid: Any) -> tuple[float, ...]:
    """``cv_grid`` as a tuple of pseudo-counts: a non-empty 1-D sequence of numbers >= 0."""
    if isinstance(grid, (str, bytes)) or not isinstance(grid, Iterable):
        raise TypeError(
            f"cv_grid must be a sequence of pseudo-counts >= 0 (such as {DEFAULT_CV_GRID}), "
            f"got {type(grid).__name__} {grid!r:.40}"
        )
    if isinstance(grid, np.ndarray) and grid.ndim != 1:
        raise ValueError(
            f"cv_grid must be a 1-D sequence of pseudo-counts >= 0, got shape {grid.shape}"
        )
    vals = tuple(check_pseudo_count(v, f"cv_grid[{i}]") for i, v in enumerate(grid))
    if not vals:
        raise ValueError("cv_grid must hold at least one pseudo-count")
    return vals
