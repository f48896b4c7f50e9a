"""tune's fused walk (hull cuts only; screened cuts at an edge) against every cut.

``tune`` on dense or sparse scores, with its own base rates or given ones, walks each
class's ranking once and keeps only the cuts the search can use
(optimize/tuning/_hull_points.py). :func:`_every_cut` runs the path tune takes for the
other methods, ``calibrated`` and ``points=``: it builds and smooths every cut (tune has
no public switch for it), so the two are compared here on the same problems: same hulls,
same answer.
"""

from __future__ import annotations

import math
import multiprocessing
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from fmacro.optimize.evaluation import predicted_counts, row_threshold_counts
from fmacro.optimize.inputs import label_rows
from fmacro.optimize.search.exact import screen_floors
from fmacro.optimize.search.fixed_point import fixed_point
from fmacro.optimize.search.hull import class_hulls
from fmacro.optimize.search.points import class_points
from fmacro.optimize.search.result import ThresholdResult, evaluate_cuts
from fmacro.optimize.tuning._solve import build_problem, solve
from fmacro.optimize.tuning.hulls import smoothed_hull_fit, smoothed_hull_points
from fmacro.optimize.tuning.screen import _classes_to_walk, smoothed_screened_points
from fmacro.optimize.tuning.smoothing import check_base_rates, check_n_eval, smooth_points
from fmacro.optimize.tuning.source import walk_inputs
from fmacro.optimize.tuning.tune import tune


def _every_cut(
    scores: Any,
    labels: Any,
    *,
    prior: float,
    n_eval: float | None = None,
    beta: float = 1.0,
    zero_division: float = 0.0,
    base_rates: Any = None,
    unseen: str = "prior",
) -> ThresholdResult:
    """``tune(scores, labels, ...)`` on the every-cut path: the problem of every cut,
    built and smoothed whole, then the same solve (what tune runs for other methods)."""
    n = check_n_eval(n_eval, labels.shape[0])
    pi = None if base_rates is None else check_base_rates(base_rates, labels.shape[1])
    problem = build_problem(
        scores, labels, zero_division, pi, n, beta, "fixed_point", unseen, False
    )
    return solve(problem, prior, {})


def _problem(seed: int, n_obj: int, n_cls: int, levels: int | None) -> tuple[np.ndarray, Any]:
    """Scores with a signal; ``levels`` rounds them onto a grid (many tied scores)."""
    rng = np.random.default_rng(seed)
    y = (rng.random((n_obj, n_cls)) < rng.uniform(0.02, 0.5, n_cls)).astype(np.uint8)
    y[rng.integers(0, n_obj), :] = 1  # every class has a positive
    s = y * rng.normal(1.0, 1.0, (n_obj, n_cls)) + rng.normal(0.0, 1.0, (n_obj, n_cls))
    if levels is not None:
        s = np.round(s * levels) / levels
    return s.astype(np.float32 if seed % 2 else np.float64), y


def _unseen(y: Any, n_unseen: int) -> Any:
    """``y`` with the positives of its first ``n_unseen`` columns removed (at least one
    column keeps its positives)."""
    y = np.array(y, copy=True)
    y[:, : min(n_unseen, y.shape[1] - 1)] = 0
    return y


BUNDLED = Path(__file__).parents[1] / "optimize" / "data" / "corel5k_test_scores.npz"

problems = st.tuples(
    st.integers(0, 10_000),
    st.integers(2, 150),
    st.integers(1, 12),
    st.sampled_from([None, 2, 8]),
)
settings_ = settings(max_examples=80, deadline=None)


@settings_
@given(
    problems,
    st.sampled_from([0.0, 0.5, 3.0, 30.0]),
    st.sampled_from([None, 1.0, 7.0, math.inf]),
    st.sampled_from([0.0, 1.0, math.nan]),
)
def test_hull_walk_gives_the_hulls_of_every_smoothed_cut(
    problem: tuple[int, int, int, int | None], a: float, n_eval: float | None, zd: float
) -> None:
    s, y = _problem(*problem)
    n = float(s.shape[0]) if n_eval is None else n_eval
    full = smooth_points(class_points(s, y, zero_division=zd), a, n_eval=n)
    hull = smoothed_hull_points(walk_inputs(s, y), (a,), n_eval=n, zero_division=zd)[0]
    ref = class_hulls(full)
    got = class_hulls(hull)
    np.testing.assert_array_equal(got.vertex_indptr, ref.vertex_indptr)
    # vertex cuts are local to each set of points; their numbers among all cuts agree
    # (every cut of the hull points is a vertex)
    owner = np.repeat(np.arange(hull.n_classes), np.diff(got.vertex_indptr))
    got_numbers = np.asarray(hull.full_cut)[hull.indptr[:-1][owner] + got.vertex_cut]
    np.testing.assert_array_equal(got_numbers, ref.vertex_cut)
    np.testing.assert_array_equal(np.asarray(hull.full_cut), ref.vertex_cut)
    np.testing.assert_array_equal(got.vertex_p, ref.vertex_p)
    np.testing.assert_array_equal(got.vertex_r, ref.vertex_r)
    np.testing.assert_array_equal(got.edge_angle, ref.edge_angle)


def _own_rates(y: np.ndarray) -> np.ndarray:
    return np.count_nonzero(y, axis=0) / float(y.shape[0])


@settings_
@given(
    problems,
    st.sampled_from([0.5, 3.0, 10.0]),
    st.sampled_from([None, 5.0, math.inf]),
    st.sampled_from([0.5, 1.0, 2.0]),
    st.sampled_from([0.0, 1.0, math.nan]),
    st.integers(0, 2),
)
def test_tune_fast_path_equals_the_every_cut_path(
    problem: tuple[int, int, int, int | None],
    a: float,
    n_eval: float | None,
    beta: float,
    zd: float,
    n_unseen: int,
) -> None:
    s, y = _problem(*problem)
    y = _unseen(y, n_unseen)  # under zero_division 1 or nan their rule reads every cut
    kw: dict[str, Any] = {"prior": a, "n_eval": n_eval, "beta": beta, "zero_division": zd}
    fast = tune(s, y, **kw)
    slow = _every_cut(s, y, **kw)
    assert slow.diagnostics["searched_cuts"] == "every cut"
    assert fast.diagnostics["searched_cuts"] in ("hull", "screened")
    # both are the proven optimum of the same smoothed objective
    assert fast.diagnostics["smoothed_gap"] == 0.0
    assert fast.diagnostics["smoothed_f"] == pytest.approx(
        slow.diagnostics["smoothed_f"], abs=1e-12
    )
    if fast.diagnostics["searched_cuts"] == "hull":
        # the linearization's own fixed point: the same sweep on both paths
        np.testing.assert_array_equal(fast.cuts, slow.cuts)
        np.testing.assert_array_equal(fast.thresholds, slow.thresholds)
        assert fast.f == slow.f
    else:
        # at an edge both run the exact search on the same candidates; the incumbents may
        # differ, so in an exact tie another optimal choice could come back: it must
        # reach the same smoothed F on every cut
        if not np.array_equal(fast.cuts, slow.cuts):
            n = float(s.shape[0]) if n_eval is None else n_eval
            sm = smooth_points(class_points(s, y, zero_division=zd), a, n_eval=n)
            f_fast = evaluate_cuts(sm, sm.local_cuts(fast.cuts), beta)[2]
            assert f_fast == pytest.approx(slow.diagnostics["smoothed_f"], abs=1e-12)


def test_an_edge_crossing_takes_the_screened_cuts_and_matches() -> None:
    # Corel5k's bundled rankings: a = 1 crosses on an edge (a = 3 does not)
    data = np.load(BUNDLED)
    s, y = data["scores"], data["labels"]
    for a, searched in ((1.0, "screened"), (3.0, "hull")):
        fast = tune(s, y, prior=a)
        slow = _every_cut(s, y, prior=a)
        assert fast.diagnostics["searched_cuts"] == searched
        np.testing.assert_array_equal(fast.cuts, slow.cuts)
        np.testing.assert_array_equal(fast.thresholds, slow.thresholds)
        assert fast.diagnostics["smoothed_f"] == slow.diagnostics["smoothed_f"]
        assert fast.diagnostics["smoothed_gap"] == 0.0


@settings(max_examples=40, deadline=None)
@given(problems, st.sampled_from([0.5, 3.0]), st.sampled_from([None, math.inf]))
def test_screened_cuts_give_exact_what_every_cut_gives(
    problem: tuple[int, int, int, int | None], a: float, n_eval: float | None
) -> None:
    s, y = _problem(*problem)
    n = float(s.shape[0]) if n_eval is None else n_eval
    hull = smoothed_hull_points(walk_inputs(s, y), (a,), n_eval=n, zero_division=0.0)[0]
    linear = fixed_point(points=hull, exact=False)
    screened = smoothed_screened_points(walk_inputs(s, y), hull, linear, 1.0)
    full = smooth_points(class_points(s, y), a, n_eval=n)
    got = fixed_point(points=screened)
    ref = fixed_point(points=full)
    assert got.f == pytest.approx(ref.f, abs=1e-12)
    assert got.gap == 0.0 and ref.gap == 0.0
    # the screened cuts are a subset of every cut, holding each hull vertex
    assert set(np.asarray(hull.full_cut).tolist()) <= set(np.asarray(screened.full_cut).tolist())


@settings_
@given(
    problems,
    st.sampled_from([0.0, 0.5, 3.0, 30.0]),
    st.sampled_from([None, 7.0, math.inf]),
    st.sampled_from([0.0, 1.0, math.nan]),
)
def test_second_chain_holds_the_best_of_the_cuts_off_the_hull(
    problem: tuple[int, int, int, int | None], a: float, n_eval: float | None, zd: float
) -> None:
    """Under every direction (ga, gc) >= 0, a class's second chain reaches the best value
    of its cuts that are not hull vertices, computed here over every smoothed cut."""
    s, y = _problem(*problem)
    n = float(s.shape[0]) if n_eval is None else n_eval
    hull, (ptr, p2, r2) = smoothed_hull_fit(walk_inputs(s, y), a, n_eval=n, zero_division=zd)
    full = smooth_points(class_points(s, y, zero_division=zd), a, n_eval=n)
    vertices = np.asarray(hull.full_cut)
    for angle in (0.0, 0.3, 0.8, 1.2, math.pi / 2):
        ga, gc = math.cos(angle), math.sin(angle)
        for k in range(hull.n_classes):
            cut = np.arange(full.indptr[k + 1] - full.indptr[k])
            off = ~np.isin(cut, vertices[hull.indptr[k] : hull.indptr[k + 1]])
            sl = slice(full.indptr[k], full.indptr[k + 1])
            values = ga * np.asarray(full.precision[sl]) + gc * np.asarray(full.recall[sl])
            values = np.where(np.isnan(values), -np.inf, values)[off]
            ref = values.max() if values.size else -np.inf
            chain = ga * p2[ptr[k] : ptr[k + 1]] + gc * r2[ptr[k] : ptr[k + 1]]
            got = chain.max() if chain.size else -np.inf
            assert got == pytest.approx(ref, rel=1e-12, abs=1e-15)


@settings(max_examples=60, deadline=None)
@given(problems, st.sampled_from([0.0, 1.0, 3.0, 10.0]), st.sampled_from([0.0, math.nan]))
def test_edge_walk_leaves_out_classes_without_changing_the_screened_cuts(
    problem: tuple[int, int, int, int | None], a: float, zd: float
) -> None:
    """Given the second chains, the edge's walk skips the classes whose second chain stays
    under their floor: the screened points are the same arrays as walking every class."""
    s, y = _problem(*problem)
    inputs = walk_inputs(s, y)
    n = float(s.shape[0])
    hull, second = smoothed_hull_fit(inputs, a, n_eval=n, zero_division=zd)
    linear = fixed_point(points=hull, exact=False)
    every = smoothed_screened_points(inputs, hull, linear, 1.0)
    some = smoothed_screened_points(inputs, hull, linear, 1.0, second)
    for name in ("indptr", "tp", "fp", "threshold", "full_cut"):
        np.testing.assert_array_equal(getattr(some, name), getattr(every, name))
    np.testing.assert_array_equal(np.asarray(some.precision), np.asarray(every.precision))


def test_edge_walk_on_the_bundled_rankings_walks_only_classes_that_add_cuts() -> None:
    data = np.load(BUNDLED)
    inputs = walk_inputs(data["scores"], data["labels"])
    hull, second = smoothed_hull_fit(inputs, 1.0, n_eval=500.0, zero_division=0.0)
    linear = fixed_point(points=hull, exact=False)
    assert linear.diagnostics["status"] == "edge"
    ga, gc, floors = screen_floors(hull, linear, 1.0)
    walked = _classes_to_walk(ga, gc, floors, second)
    every = smoothed_screened_points(inputs, hull, linear, 1.0)
    adds = np.diff(np.asarray(every.indptr)) > np.diff(np.asarray(hull.indptr))
    # the classes walked are those whose screened cuts go beyond their hull vertices
    np.testing.assert_array_equal(walked, adds)
    assert 0 < walked.sum() < walked.size


def test_cv_fast_path_equals_the_every_cut_path() -> None:
    # CSR scores storing every entry (all non-zero): the same rankings, whose halves are
    # copied and fitted on every cut; base_rates would not do here: given rates stay fixed
    # across the halves
    s, y = _problem(3, 160, 9, 8)
    s = s - s.min() + 1.0
    grid = (0.0, 1.0, 3.0, 10.0)
    fast = tune(s, y, prior="cv", cv_grid=grid, random_state=2)
    slow = tune(sp.csr_matrix(s), y, prior="cv", cv_grid=grid, random_state=2)
    np.testing.assert_array_equal(fast.diagnostics["cv_scores"], slow.diagnostics["cv_scores"])
    assert fast.diagnostics["prior"] == slow.diagnostics["prior"]


def test_one_walk_for_a_grid_equals_one_walk_per_prior() -> None:
    s, y = _problem(11, 90, 7, 4)
    grid = (0.0, 1.0, 3.0, 30.0)
    together = smoothed_hull_points(walk_inputs(s, y), grid, n_eval=90.0, zero_division=0.0)
    for a, pts in zip(grid, together, strict=True):
        alone = smoothed_hull_points(walk_inputs(s, y), (a,), n_eval=90.0, zero_division=0.0)[0]
        np.testing.assert_array_equal(pts.indptr, alone.indptr)
        np.testing.assert_array_equal(pts.full_cut, alone.full_cut)
        np.testing.assert_array_equal(pts.precision, alone.precision)
        assert pts.pseudo_count == a


def test_row_threshold_counts_match_predicted_counts() -> None:
    s, y = _problem(5, 70, 6, 3)
    thr = np.array([[-np.inf, np.inf, 0.0, 0.5, 1.0, -0.25], [0.1, 0.2, 0.3, np.inf, -np.inf, 0.0]])
    rows = np.array([0, 3, 4, 10, 11, 50, 69])
    # scores read at rows, labels from a copy of those rows: the same objects
    labels, at = y[rows].astype(bool), np.arange(rows.size)
    every = np.arange(s.shape[1])
    tp, fp = row_threshold_counts(s, rows, labels, at, every, thr)
    for g in range(thr.shape[0]):
        ref_tp, ref_fp = predicted_counts(s[rows], label_rows(y[rows]), thr[g])
        np.testing.assert_array_equal(tp[g], ref_tp)
        np.testing.assert_array_equal(fp[g], ref_fp)
    # a subset of the columns, in any order: those columns' counts
    some = np.array([4, 0, 2])
    tp_some, fp_some = row_threshold_counts(s, rows, labels, at, some, thr[:, some])
    np.testing.assert_array_equal(tp_some, tp[:, some])
    np.testing.assert_array_equal(fp_some, fp[:, some])


def test_block_walks_from_many_threads_at_once() -> None:
    # callers inside a pool and the shared block pool: no deadlock, the same points
    s, y = _problem(8, 400, 60, None)
    ref = class_points(s, y)
    with ThreadPoolExecutor(8) as pool:
        outs = list(pool.map(lambda _: class_points(s, y), range(16)))
    for pts in outs:
        np.testing.assert_array_equal(pts.tp, ref.tp)
        np.testing.assert_array_equal(pts.threshold, ref.threshold)


def _child(queue: Any) -> None:
    s, y = _problem(8, 400, 60, None)
    queue.put(int(class_points(s, y).tp.sum()))


def test_block_pool_works_in_a_forked_child() -> None:
    s, y = _problem(8, 400, 60, None)
    expected = int(class_points(s, y).tp.sum())  # starts the pool in this process
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_child, args=(queue,))
    child.start()
    child.join(120)
    assert child.exitcode == 0, "the forked child did not finish"
    assert queue.get(timeout=5) == expected


def test_cv_reads_sparse_labels_like_dense_ones() -> None:
    s, y = _problem(4, 120, 7, 8)
    dense = tune(s, y, prior="cv", cv_grid=(0.0, 3.0, 10.0), random_state=1)
    sparse = tune(s, sp.csr_matrix(y), prior="cv", cv_grid=(0.0, 3.0, 10.0), random_state=1)
    np.testing.assert_array_equal(dense.diagnostics["cv_scores"], sparse.diagnostics["cv_scores"])
    np.testing.assert_array_equal(dense.thresholds, sparse.thresholds)


def test_cv_reports_nan_scores_of_the_whole_input() -> None:
    s, y = _problem(6, 60, 4, None)
    s = s - s.min() + 1.0  # all stored in CSR too
    s[[3, 40], 1] = np.nan
    for scores in (s, sp.csr_matrix(s)):
        for kw in ({}, {"base_rates": np.full(4, 0.1)}):  # fast and every-cut paths
            with pytest.raises(ValueError, match="2 NaN"):
                tune(scores, y, prior="cv", **kw)


def _sparse_problem(seed: int, n_obj: int, n_cls: int, share: float) -> tuple[Any, Any]:
    """Retrieved entries only: each score kept with probability ``share`` (ties too)."""
    s, y = _problem(seed, n_obj, n_cls, 4)
    s = s - s.min() + 1.0  # stored entries are non-zero
    keep = np.random.default_rng(seed + 1).random(s.shape) < share
    return sp.csr_matrix(np.where(keep, s, 0.0)), y


@settings_
@given(
    st.tuples(st.integers(0, 10_000), st.integers(2, 120), st.integers(1, 10)),
    st.sampled_from([0.2, 0.6, 1.0]),
    st.sampled_from([0.5, 3.0, 10.0]),
    st.sampled_from([None, 5.0, math.inf]),
    st.sampled_from([0.0, 1.0, math.nan]),
)
def test_sparse_scores_walk_equals_every_cut(
    problem: tuple[int, int, int], share: float, a: float, n_eval: float | None, zd: float
) -> None:
    s, y = _sparse_problem(*problem, share)
    n = float(y.shape[0]) if n_eval is None else n_eval
    hull = smoothed_hull_points(walk_inputs(s, y), (a,), n_eval=n, zero_division=zd)[0]
    full = smooth_points(class_points(s, y, zero_division=zd), a, n_eval=n)
    np.testing.assert_array_equal(np.asarray(hull.full_cut), class_hulls(full).vertex_cut)
    kw: dict[str, Any] = {"prior": a, "n_eval": n_eval, "zero_division": zd}
    fast = tune(s, y, **kw)
    slow = _every_cut(s, y, **kw)
    assert fast.diagnostics["searched_cuts"] in ("hull", "screened")
    assert slow.diagnostics["searched_cuts"] == "every cut"
    assert fast.diagnostics["smoothed_f"] == pytest.approx(
        slow.diagnostics["smoothed_f"], abs=1e-12
    )
    if not np.array_equal(fast.cuts, slow.cuts):  # only an exact tie may differ
        f_fast = evaluate_cuts(full, full.local_cuts(fast.cuts), 1.0)[2]
        assert f_fast == pytest.approx(slow.diagnostics["smoothed_f"], abs=1e-12)
    else:
        np.testing.assert_array_equal(fast.thresholds, slow.thresholds)


# given base rates (prior centres pi per column) on the fused walk ---------------------

# per-column centres: zeros (p~ = 0 along a run of negatives before the first positive:
# collinear cuts), ones, and values in between
centres = st.lists(
    st.one_of(st.sampled_from([0.0, 1.0, 1e-3, 0.5]), st.floats(0.0, 1.0)),
    min_size=12,
    max_size=12,
)


def _assert_same_answer(fast: Any, slow: Any, full: Any, beta: float) -> None:
    """``fast`` (tune's walk) and ``slow`` (every cut) give the same answer: at a hull
    crossing the same cuts, thresholds and F bit for bit; at an edge the exact search may
    break an exact tie differently, so differing cuts must reach the same smoothed F on
    every cut (``full``) — and then the thresholds of the cuts both chose agree."""
    assert fast.diagnostics["searched_cuts"] in ("hull", "screened")
    assert slow.diagnostics["searched_cuts"] == "every cut"
    assert fast.diagnostics["smoothed_gap"] == 0.0
    assert fast.diagnostics["smoothed_f"] == pytest.approx(
        slow.diagnostics["smoothed_f"], abs=1e-12
    )
    assert fast.diagnostics["n_unseen"] == slow.diagnostics["n_unseen"]
    if fast.diagnostics["searched_cuts"] == "hull" or np.array_equal(fast.cuts, slow.cuts):
        np.testing.assert_array_equal(fast.cuts, slow.cuts)
        assert (fast.f, fast.precision, fast.recall) == (slow.f, slow.precision, slow.recall)
        assert fast.diagnostics["phi"] == slow.diagnostics["phi"]
        # every column, the classes without tuning positives included
        np.testing.assert_array_equal(fast.thresholds, slow.thresholds)
    else:
        f_fast = evaluate_cuts(full, full.local_cuts(fast.cuts), beta)[2]
        assert f_fast == pytest.approx(slow.diagnostics["smoothed_f"], abs=1e-12)


@settings_
@given(
    problems,
    centres,
    st.sampled_from([0.0, 0.5, 3.0, 30.0]),
    st.sampled_from([None, 1.0, 7.0, math.inf]),
    st.sampled_from([0.0, 1.0, math.nan]),
    st.booleans(),
)
def test_hull_walk_with_base_rates_gives_the_hulls_of_every_smoothed_cut(
    problem: tuple[int, int, int, int | None],
    pi_list: list[float],
    a: float,
    n_eval: float | None,
    zd: float,
    sparse: bool,
) -> None:
    s, y = _problem(*problem)
    if sparse:
        s = sp.csc_matrix(np.where(s > np.median(s), s - s.min() + 1.0, 0.0))
    pi = np.asarray(pi_list[: y.shape[1]])
    n = float(y.shape[0]) if n_eval is None else n_eval
    full = smooth_points(class_points(s, y, zero_division=zd), a, base_rates=pi, n_eval=n)
    inputs = walk_inputs(s, y)
    hull = smoothed_hull_points(inputs, (a,), n_eval=n, zero_division=zd, base_rates=pi)[0]
    ref = class_hulls(full)
    got = class_hulls(hull)
    np.testing.assert_array_equal(hull.base_rate, full.base_rate)
    np.testing.assert_array_equal(got.vertex_indptr, ref.vertex_indptr)
    np.testing.assert_array_equal(np.asarray(hull.full_cut), ref.vertex_cut)
    np.testing.assert_array_equal(got.vertex_p, ref.vertex_p)
    np.testing.assert_array_equal(got.vertex_r, ref.vertex_r)
    np.testing.assert_array_equal(got.edge_angle, ref.edge_angle)


@settings(max_examples=120, deadline=None)
@given(
    problems,
    centres,
    st.integers(0, 3),
    st.sampled_from([0.5, 3.0, 10.0]),
    st.sampled_from([None, 1.0, 5.0, math.inf]),
    st.sampled_from([0.5, 1.0, 2.0]),
    st.sampled_from([0.0, 1.0, math.nan]),
    st.sampled_from(["prior", "never"]),
)
def test_tune_with_base_rates_fast_path_equals_the_every_cut_path(
    problem: tuple[int, int, int, int | None],
    pi_list: list[float],
    n_unseen: int,
    a: float,
    n_eval: float | None,
    beta: float,
    zd: float,
    unseen: str,
) -> None:
    s, y = _problem(*problem)
    y = _unseen(y, n_unseen)
    pi = np.asarray(pi_list[: y.shape[1]])
    kw: dict[str, Any] = {
        "prior": a,
        "n_eval": n_eval,
        "beta": beta,
        "zero_division": zd,
        "base_rates": pi,
        "unseen": unseen,
    }
    fast = tune(s, y, **kw)
    slow = _every_cut(s, y, **kw)
    n = float(y.shape[0]) if n_eval is None else n_eval
    full = smooth_points(class_points(s, y, zero_division=zd), a, base_rates=pi, n_eval=n)
    _assert_same_answer(fast, slow, full, beta)


@settings_
@given(
    st.tuples(st.integers(0, 10_000), st.integers(2, 120), st.integers(1, 10)),
    centres,
    st.integers(0, 2),
    st.sampled_from([0.2, 0.6, 1.0]),
    st.sampled_from([0.5, 3.0, 10.0]),
    st.sampled_from([None, 1.0, 5.0, math.inf]),
    st.sampled_from([0.0, 1.0, math.nan]),
    st.sampled_from(["csr", "csc"]),
)
def test_sparse_scores_with_base_rates_equal_every_cut(
    problem: tuple[int, int, int],
    pi_list: list[float],
    n_unseen: int,
    share: float,
    a: float,
    n_eval: float | None,
    zd: float,
    fmt: str,
) -> None:
    s, y = _sparse_problem(*problem, share)
    s = s.asformat(fmt)
    y = _unseen(y, n_unseen)
    pi = np.asarray(pi_list[: y.shape[1]])
    kw: dict[str, Any] = {"prior": a, "n_eval": n_eval, "zero_division": zd, "base_rates": pi}
    fast = tune(s, y, **kw)
    slow = _every_cut(s, y, **kw)
    n = float(y.shape[0]) if n_eval is None else n_eval
    full = smooth_points(class_points(s, y, zero_division=zd), a, base_rates=pi, n_eval=n)
    _assert_same_answer(fast, slow, full, 1.0)


@settings(max_examples=30, deadline=None)
@given(problems, st.sampled_from([0.5, 3.0]), st.booleans())
def test_given_own_rates_are_the_default_bit_for_bit(
    problem: tuple[int, int, int, int | None], a: float, sparse: bool
) -> None:
    s, y = _problem(*problem)
    if sparse:
        s = sp.csr_matrix(s - s.min() + 1.0)
    default = tune(s, y, prior=a)
    given_ = tune(s, y, prior=a, base_rates=_own_rates(y))
    assert given_.diagnostics["searched_cuts"] == default.diagnostics["searched_cuts"]
    np.testing.assert_array_equal(given_.thresholds, default.thresholds)
    np.testing.assert_array_equal(given_.cuts, default.cuts)
    assert given_.diagnostics["smoothed_f"] == default.diagnostics["smoothed_f"]


def test_base_rates_at_an_edge_crossing_take_the_screened_cuts_and_match() -> None:
    # Corel5k's bundled rankings (111 classes without a positive): with pi = 0.5 for every
    # class, each of these a crosses on an edge; with the first half's rates (and 0.01 for
    # the classes without positives) a = 1 does, a = 3 not
    data = np.load(BUNDLED)
    s, y = data["scores"], data["labels"]
    half = y[:250].mean(axis=0)
    half[y.sum(axis=0) == 0] = 0.01
    cases = [
        (np.full(y.shape[1], 0.5), 0.5, "screened"),
        (np.full(y.shape[1], 0.5), 3.0, "screened"),
        (half, 1.0, "screened"),
        (half, 3.0, "hull"),
    ]
    for pi, a, searched in cases:
        fast = tune(s, y, prior=a, base_rates=pi)
        slow = _every_cut(s, y, prior=a, base_rates=pi)
        assert fast.diagnostics["searched_cuts"] == searched
        assert fast.diagnostics["n_unseen"] == 111
        np.testing.assert_array_equal(fast.cuts, slow.cuts)
        np.testing.assert_array_equal(fast.thresholds, slow.thresholds)
        assert fast.diagnostics["smoothed_f"] == slow.diagnostics["smoothed_f"]
        assert fast.diagnostics["smoothed_gap"] == 0.0
