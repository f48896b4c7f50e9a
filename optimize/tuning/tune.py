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

Classes without tuning positives
--------------------------------
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
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import numpy as np
from numpy.typing import ArrayLike, NDArray

from fmacro.optimize._inputs import as_binary_labels, label_rows, matching_shapes
from fmacro.optimize.baselines import cyclic, per_class
from fmacro.optimize.evaluation import column_threshold_counts, predicted_counts
from fmacro.optimize.search._fbeta import argv
from fmacro.optimize.search.domain import domain
from fmacro.optimize.search.exact import exact
from fmacro.optimize.search.fixed_point import fixed_point
from fmacro.optimize.search.points import ClassPoints, as_points, class_points
from fmacro.optimize.search.result import ThresholdResult
from fmacro.optimize.tuning._hull_points import smoothed_hull_points, smoothed_screened_points
from fmacro.optimize.tuning.etu import model_centres
from fmacro.optimize.tuning.smoothing import (
    SmoothedPoints,
    check_base_rates,
    check_n_eval,
    check_pseudo_count,
    smooth_points,
)
from fmacro.validation.checks import check_beta, check_zero_division, is_sparse
from fmacro.validation.measures import f_beta_from_pr

__all__ = ["DEFAULT_CV_GRID", "tune"]

DEFAULT_CV_GRID: tuple[float, ...] = (0.0, 1.0, 3.0, 10.0, 30.0)
_METHODS = ("fixed_point", "exact", "per_class", "cyclic", "domain")
_UNSEEN = ("prior", "never")


@attrs.frozen
class _Problem:
    """Everything a tuning solve needs besides the pseudo-count."""

    raw: ClassPoints  # every cut, or (hull_prior set) only the hull cuts at hull_prior
    unseen: Any  # scores of the columns without positives (None: rule "never" or none)
    base_rates: NDArray[np.float64] | None  # per column, or None = own rates
    n_eval: float
    beta: float
    method: str
    calibrated: bool = False
    centres: Any = None  # (centre_p, centre_r) per cut of raw, when calibrated
    # raw holds the SmoothedPoints of smoothed_hull_points at this prior (the fast path)
    hull_prior: float | None = None
    # the fast path's (scores, labels), walked again at an edge crossing
    source: tuple[Any, Any] | None = None
    # the columns whose scores ``unseen`` holds (those without tuning positives)
    unseen_columns: Any = None
    # False: method "fixed_point" stops at the linearization (the inner fits of "cv")
    exact: bool = True


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
        the linearization (``fixed_point(..., exact=False)``, within its ``eps`` of the
        smoothed optimum); the final fit at the chosen a is the proven optimum.
    base_rates
        Prior centre pi per column, shape ``(n,)``, values in [0, 1] (e.g. the
        training labels' rates). Default: the tuning labels' rates m_k / N.
    n_eval
        Size of the batch the thresholds will be applied to (the set F-macro is
        computed on). Default ``None``: the number of tuning rows N; ``math.inf``:
        no finite-sample factor. Inside ``prior="cv"`` the inner fits use the
        held-out half's size when ``n_eval`` is None.
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
        Grid, repeats and seed of ``prior="cv"``.
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
    Cost. With dense scores, the tuning labels' own rates and the default method, one
    walk of each class's sorted scores computes the smoothed points and keeps only its
    hull vertices (``searched_cuts == "hull"``): a run of cuts of equal tp is convex in
    the (r~, p~) plane, so only its ends and the first 40 N / n_eval cuts are smoothed;
    the cost is about that of :func:`optimize.fixed_point` on the same scores. When the
    linearization ends on an edge, a second walk keeps the cuts that can pass the exact
    search's first reduction (``"screened"``), and the exact step runs on them: the same
    answer as on every cut (tested). Other settings (sparse scores, ``base_rates``,
    ``calibrated``, other methods, ``points=``) smooth every cut (``"every cut"``).
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
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    if unseen not in _UNSEEN:
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
        raw_pts = as_points(scores, labels, points, zero_division=zd)
        if isinstance(raw_pts, SmoothedPoints):
            raw_pts = raw_pts.raw()
        n_obj, n_cols = raw_pts.n_samples, raw_pts.n_columns
    else:
        n_obj, n_cols = matching_shapes(scores, labels)
    n = check_n_eval(n_eval, n_obj)
    pi = None if base_rates is None else check_base_rates(base_rates, n_cols)
    grid = _check_grid(cv_grid) if use_cv else ()
    if use_cv:
        if isinstance(cv_repeats, bool) or not isinstance(cv_repeats, (int, np.integer)):
            raise TypeError(f"cv_repeats must be an int >= 1, got {cv_repeats!r}")
        if cv_repeats < 1:
            raise ValueError(f"cv_repeats must be >= 1, got {cv_repeats}")
        if isinstance(random_state, bool) or not isinstance(random_state, (int, np.integer)):
            raise TypeError(f"random_state must be an int, got {random_state!r}")
    # the fused hull walk: dense scores, own base rates, the default search
    fast = (
        points is None
        and method == "fixed_point"
        and pi is None
        and not calibrated
        and not is_sparse(scores)
    )
    extra: dict[str, Any] = {}
    if use_cv:
        cv = _cv_scores(
            scores,
            labels,
            grid,
            cv_repeats,
            int(random_state),
            zd,
            pi,
            n_eval,
            b,
            method,
            unseen,
            bool(calibrated),
            fast,
        )
        a = grid[int(np.argmax(cv))]
        extra = {"cv_grid": np.asarray(grid), "cv_scores": cv}
    if points is not None:
        problem = _Problem(raw_pts, None, pi, n, b, method)
    elif fast:
        hull = smoothed_hull_points(scores, labels, (a,), n_eval=n, zero_division=zd)[0]
        problem = _hull_problem(hull, scores, labels, b, unseen)
    else:
        problem = _problem(scores, labels, zd, pi, n, b, method, unseen, bool(calibrated))
    return _solve(problem, a, extra)


def _check_grid(grid: Sequence[float]) -> tuple[float, ...]:
    vals = tuple(check_pseudo_count(v, "cv_grid") for v in grid)
    if not vals:
        raise ValueError("cv_grid must hold at least one pseudo-count")
    return vals


def _columns(x: Any, cols: NDArray[np.int64]) -> Any:
    if is_sparse(x):
        return x.tocsc()[:, cols]
    return np.asarray(x)[:, cols]


def _rows(x: Any, rows: NDArray[np.int64]) -> Any:
    """The rows ``rows`` of ``x``: CSR when sparse, else a column-major copy (the block
    walks and the held-out counts read columns, which a column-major copy gives without
    a transpose)."""
    if is_sparse(x):
        return x.tocsr()[rows]
    arr = np.asarray(x)
    out = np.empty((rows.size, *arr.shape[1:]), dtype=arr.dtype, order="F")
    np.take(arr, rows, axis=0, out=out)
    return out


def _problem(
    scores: Any,
    labels: Any,
    zd: float,
    pi: NDArray[np.float64] | None,
    n: float,
    b: float,
    method: str,
    unseen: str,
    calibrated: bool = False,
) -> _Problem:
    raw = class_points(scores, labels, zero_division=zd)
    return _problem_from_points(raw, scores, pi, n, b, method, unseen, calibrated)


def _problem_from_points(
    raw: ClassPoints,
    scores: Any,
    pi: NDArray[np.float64] | None,
    n: float,
    b: float,
    method: str,
    unseen: str,
    calibrated: bool = False,
) -> _Problem:
    missing = np.setdiff1d(np.arange(raw.n_columns), raw.class_index)
    sub = _columns(scores, missing) if unseen == "prior" and missing.size else None
    centres = model_centres(raw, scores) if calibrated else None
    return _Problem(raw, sub, pi, n, b, method, calibrated, centres, unseen_columns=missing)


def _hull_problem(
    hull: SmoothedPoints, scores: Any, labels: Any, b: float, unseen: str
) -> _Problem:
    """The fast path's problem: ``hull`` from :func:`smoothed_hull_points`."""
    base = _problem_from_points(hull, scores, None, hull.n_eval, b, "fixed_point", unseen)
    return attrs.evolve(base, hull_prior=hull.pseudo_count, source=(scores, labels))


def _search(points: SmoothedPoints, method: str, b: float, exact_step: bool) -> ThresholdResult:
    zd = points.zero_division
    if method == "fixed_point":
        return fixed_point(points=points, beta=b, zero_division=zd, exact=exact_step)
    if method == "exact":
        return exact(points=points, beta=b, zero_division=zd)
    if method == "domain":
        return domain(points=points, beta=b, zero_division=zd, n_angles=None)
    if method == "per_class":
        return per_class(points=points, beta=b, zero_division=zd)
    return cyclic(points=points, beta=b, zero_division=zd)


def _smoothed_search(
    problem: _Problem, a: float
) -> tuple[ClassPoints, SmoothedPoints, ThresholdResult, str]:
    """(raw points, smoothed points, search result, which cuts the search saw).

    On the fast path the linearization runs on the hull cuts; it is final unless its
    crossing falls on an edge, where the exact step runs on the cuts it can use
    (:func:`smoothed_screened_points`): the same answer as on every cut.
    """
    b = problem.beta
    raw = problem.raw
    if problem.hull_prior is not None and isinstance(raw, SmoothedPoints):
        if a != problem.hull_prior or problem.source is None:
            raise AssertionError("hull points of another pseudo-count, or without their data")
        inner = fixed_point(points=raw, beta=b, zero_division=raw.zero_division, exact=False)
        if inner.diagnostics["status"] != "edge" or not problem.exact:
            return raw, raw, inner, "hull"
        scores, labels = problem.source
        screened = smoothed_screened_points(scores, labels, raw, inner, b)
        return screened, screened, _search(screened, "fixed_point", b, True), "screened"
    sm = smooth_points(
        raw, a, base_rates=problem.base_rates, n_eval=problem.n_eval, centres=problem.centres
    )
    return raw, sm, _search(sm, problem.method, b, problem.exact), "every cut"


def _unseen_thresholds(problem: _Problem, a: float, phi: float, out: NDArray[np.float64]) -> int:
    """Fill ``out`` (per column) for the classes without tuning positives; return their count."""
    raw = problem.raw
    n_missing = raw.n_columns - raw.n_classes
    if problem.unseen is None or a == 0.0 or math.isnan(phi):
        return n_missing
    cols = problem.unseen_columns
    pi = np.zeros(cols.size) if problem.base_rates is None else problem.base_rates[cols]
    if raw.zero_division == 0.0 and not pi.any() and not problem.calibrated:
        # p~ = 0 at every cut, r~ = j / N: the all-objects cut wins whenever phi > 0
        if phi > 0.0:
            out[cols] = -np.inf
        return n_missing
    empty = np.zeros(problem.unseen.shape, dtype=np.uint8)
    # zero_division only sets p of the empty cut here; SmoothedPoints below uses the real one
    pts = class_points(problem.unseen, empty, empty_classes="include")
    sm = SmoothedPoints(
        pts.indptr,
        pts.tp,
        pts.fp,
        pts.threshold,
        pts.support,
        pts.class_index,
        pts.n_samples,
        pts.n_columns,
        raw.zero_division,
        pseudo_count=a,
        base_rate=pi,
        n_eval=problem.n_eval,
    )
    if problem.calibrated:
        cp, cr = model_centres(pts, problem.unseen)
        sm = attrs.evolve(sm, centre_p=cp, centre_r=cr)
    v = math.cos(phi) * sm.precision + math.sin(phi) * sm.recall
    v = np.where(np.isnan(v), -np.inf, v)
    starts = np.asarray(sm.indptr[:-1])
    best = np.maximum.reduceat(v, starts)
    owner = np.repeat(np.arange(cols.size), sm.n_cuts)
    hit = np.flatnonzero(v == best[owner])
    _, first = np.unique(owner[hit], return_index=True)
    chosen = hit[first]
    # the all-objects cut predicts every object, also below the tuning rows' scores
    out[cols] = np.where(chosen == sm.indptr[1:] - 1, -np.inf, sm.threshold[chosen])
    return n_missing


def _plain_values(
    raw: ClassPoints, cuts: NDArray[np.int64], b: float
) -> tuple[float, float, float]:
    """Plain (P, R, F) of ``cuts``, equal to :func:`evaluate_cuts` but touching only those cuts."""
    idx = raw.indptr[:-1] + cuts
    tp = raw.tp[idx]
    den = tp + raw.fp[idx]
    m = raw.support
    with np.errstate(divide="ignore", invalid="ignore"):
        pk = np.where(den == 0, raw.zero_division, tp / np.maximum(den, 1))
        rk = np.where(m == 0, raw.zero_division, tp / np.maximum(m, 1))
    n = raw.n_classes
    p = float(np.sum(pk.astype(np.float64)) / n)
    r = float(np.sum(rk.astype(np.float64)) / n)
    return p, r, float(f_beta_from_pr(p, r, b))


def _solve(problem: _Problem, a: float, extra: dict[str, Any]) -> ThresholdResult:
    b = problem.beta
    raw, sm, inner, searched = _smoothed_search(problem, a)
    cuts = sm.local_cuts(inner.cuts)
    p, r, f = _plain_values(raw, cuts, b)
    phi = float(argv(inner.precision, inner.recall, b * b))
    thresholds = raw.thresholds_for(cuts)
    n_unseen = _unseen_thresholds(problem, a, phi, thresholds)
    certified = problem.method in ("fixed_point", "exact", "domain")
    diag: dict[str, Any] = {
        "prior": a,
        "n_eval": problem.n_eval,
        "search": problem.method,
        "smoothed_f": inner.f,
        "smoothed_precision": inner.precision,
        "smoothed_recall": inner.recall,
        "smoothed_upper_bound": inner.upper_bound,
        "smoothed_gap": inner.gap,
        "certified": certified,
        "certificate": (
            "smoothed_upper_bound bounds the smoothed objective F_beta(mean p~, mean r~), "
            "not the in-sample F-macro"
            if certified
            else "none"
        ),
        "phi": phi,
        "n_unseen": n_unseen,
        "unseen": "never" if problem.unseen is None or a == 0.0 else "prior",
        "calibrated": problem.calibrated,
        "searched_cuts": searched,
        "search_diagnostics": dict(inner.diagnostics),
        **extra,
    }
    return ThresholdResult(
        thresholds=thresholds,
        cuts=inner.cuts,
        precision=p,
        recall=r,
        f=f,
        upper_bound=math.nan,
        gap=math.nan,
        method="tune",
        beta=b,
        zero_division=raw.zero_division,
        diagnostics=diag,
    )


def _fit_thresholds(problem: _Problem, a: float) -> NDArray[np.float64]:
    """The thresholds of :func:`_solve` alone (what the inner fits of ``"cv"`` need)."""
    _, _, inner, _ = _smoothed_search(problem, a)
    thresholds = np.array(inner.thresholds, dtype=np.float64)
    b2 = problem.beta * problem.beta
    _unseen_thresholds(problem, a, float(argv(inner.precision, inner.recall, b2)), thresholds)
    return thresholds


def _cv_scores(
    scores: Any,
    labels: Any,
    grid: tuple[float, ...],
    repeats: int,
    seed: int,
    zd: float,
    pi: NDArray[np.float64] | None,
    n_eval: float | None,
    b: float,
    method: str,
    unseen: str,
    calibrated: bool,
    fast: bool = False,
) -> NDArray[np.float64]:
    """Mean held-out plain F-macro of each grid value over ``repeats`` x 2 folds.

    Each half is fitted once per grid value and scored by counting its predictions on
    the other half (the same counts as that half's cut at each threshold). On the fast
    path one walk of a half's scores gives its hull cuts for the whole grid.
    """
    n_obj = matching_shapes(scores, labels)[0]
    if n_obj < 4:
        raise ValueError(f"prior='cv' needs at least 4 tuning rows, got {n_obj}")
    rng = np.random.default_rng(seed)
    total = np.zeros(len(grid))
    used = 0
    for _ in range(repeats):
        perm = rng.permutation(n_obj)
        halves = (np.sort(perm[: n_obj // 2]), np.sort(perm[n_obj // 2 :]))
        parts = [(_rows(scores, rows), _rows(labels, rows)) for rows in halves]
        for (fit_s, fit_y), (ev_s, ev_y) in ((parts[0], parts[1]), (parts[1], parts[0])):
            counts = _held_out_counter(ev_s, ev_y)
            if counts is None:  # nothing to score on the held-out half
                continue
            n_in = float(ev_s.shape[0]) if n_eval is None else float(n_eval)
            try:
                problems = _grid_problems(
                    fit_s, fit_y, grid, zd, pi, n_in, b, method, unseen, calibrated, fast
                )
            except ValueError as err:  # a half without any positive: nothing to learn
                if "no class with a positive" not in str(err):
                    raise
                continue
            for i, (a, prob) in enumerate(zip(grid, problems, strict=True)):
                f = counts(_fit_thresholds(prob, a), zd, b)
                total[i] += 0.0 if math.isnan(f) else f
            used += 1
    if used == 0:
        raise ValueError("prior='cv': no split has positives in both halves; pass a number")
    out = total / used
    out.flags.writeable = False
    return out


def _grid_problems(
    scores: Any,
    labels: Any,
    grid: tuple[float, ...],
    zd: float,
    pi: NDArray[np.float64] | None,
    n: float,
    b: float,
    method: str,
    unseen: str,
    calibrated: bool,
    fast: bool,
) -> list[_Problem]:
    """One problem per grid value, fitted on ``scores``/``labels``, without exact steps."""
    if fast:
        hulls = smoothed_hull_points(scores, labels, grid, n_eval=n, zero_division=zd)
        base = _problem_from_points(hulls[0], scores, None, n, b, "fixed_point", unseen)
        base = attrs.evolve(base, source=(scores, labels), exact=False)
        return [attrs.evolve(base, raw=h, hull_prior=h.pseudo_count) for h in hulls]
    raw = class_points(scores, labels, zero_division=zd)
    prob = _problem_from_points(raw, scores, pi, n, b, method, unseen, calibrated)
    return [attrs.evolve(prob, exact=False)] * len(grid)


def _held_out_counter(
    scores: Any, labels: Any
) -> Callable[[NDArray[np.float64], float, float], float] | None:
    """F-macro of thresholds on a held-out half (over its classes with a positive), or
    None when the half has no positive. The F of the plain mean p and r, as
    :func:`evaluate_cuts` on the half's points: a NaN precision makes F NaN."""
    if is_sparse(scores) or is_sparse(labels):
        rows = label_rows(labels)
        sizes = np.bincount(rows.indices, minlength=labels.shape[1])

        def count(thr: NDArray[np.float64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
            return predicted_counts(scores, rows, np.asarray(thr))
    else:
        y = as_binary_labels(labels)
        sizes = np.count_nonzero(y, axis=0)
        s = np.asarray(scores)

        def count(thr: NDArray[np.float64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
            return column_threshold_counts(s, y, np.asarray(thr, dtype=np.float64))

    kept = np.flatnonzero(sizes)
    if kept.size == 0:
        return None
    m = sizes[kept]

    def f_macro(thresholds: NDArray[np.float64], zd: float, b: float) -> float:
        tp, fp = (c[kept] for c in count(thresholds))
        with np.errstate(divide="ignore", invalid="ignore"):
            den = tp + fp
            pk = np.where(den == 0, zd, tp / np.maximum(den, 1))
        return float(f_beta_from_pr(float(np.mean(pk)), float(np.mean(tp / m)), b))

    return f_macro
