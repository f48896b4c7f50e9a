"""The inner fits of ``tune(prior="cv")``: the linearization on bare arrays, and the
walks that feed it.

``linearized_cuts`` runs the same hull kernel, sweep, crossing, edge walk and
candidates as ``fixed_point(..., exact=False)`` without building objects; it must give
the same cuts and the same (P, R) bit for bit, on raw and on smoothed points, with
ties. A walk over several pseudo-counts at once must give each one's own hulls (each
of which test_tune_fast_path compares with the hull of every smoothed cut).
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from fmacro.optimize.search._blocks import run_beside
from fmacro.optimize.search.fixed_point import fixed_point
from fmacro.optimize.search.linearization import linearized_cuts
from fmacro.optimize.search.points import class_points
from fmacro.optimize.tuning._prior_cv import cv_scores
from fmacro.optimize.tuning._solve import build_problem, solve
from fmacro.optimize.tuning.cuts import curved_prefix as _curved_prefix
from fmacro.optimize.tuning.cuts import empty_chances as _empty_chances
from fmacro.optimize.tuning.hulls import smoothed_hull_points
from fmacro.optimize.tuning.smoothing import smooth_points
from fmacro.optimize.tuning.source import walk_inputs
from fmacro.optimize.tuning.tune import tune


def _problem(
    seed: int, n_obj: int, n_cls: int, levels: int | None
) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = (rng.random((n_obj, n_cls)) < rng.uniform(0.02, 0.5, n_cls)).astype(np.uint8)
    y[rng.integers(0, n_obj), :] = 1
    s = y * rng.normal(1.0, 1.0, (n_obj, n_cls)) + rng.normal(0.0, 1.0, (n_obj, n_cls))
    if levels is not None:
        s = np.round(s * levels) / levels  # many tied scores, equal edges
    return s, y


problems = st.tuples(
    st.integers(0, 10_000),
    st.integers(2, 120),
    st.integers(1, 12),
    st.sampled_from([None, 1, 4]),
)


@settings(max_examples=150, deadline=None)
@given(
    problems,
    st.sampled_from([0.0, 1.0, 3.0, 30.0]),
    st.sampled_from([None, 7.0, math.inf]),
    st.sampled_from([0.5, 1.0, 2.0]),
    st.sampled_from([0.0, 1.0, math.nan]),
)
def test_linearized_cuts_are_fixed_point_without_the_exact_step_on_the_hulls(
    problem: tuple[int, int, int, int | None],
    a: float,
    n_eval: float | None,
    beta: float,
    zd: float,
) -> None:
    """On every smoothed cut or on the hull cuts alone, the answer of fixed_point(...,
    exact=False) on the hull cuts (whose per-class candidate is a hull vertex)."""
    s, y = _problem(*problem)
    n = float(s.shape[0]) if n_eval is None else n_eval
    hull = smoothed_hull_points(walk_inputs(s, y), (a,), n_eval=n, zero_division=zd)[0]
    every = smooth_points(class_points(s, y, zero_division=zd), a, n_eval=n)
    ref = fixed_point(points=hull, beta=beta, exact=False)
    for pts in (hull, every):
        cuts, big_p, big_r = linearized_cuts(
            np.asarray(pts.indptr), np.asarray(pts.precision), np.asarray(pts.recall), beta
        )
        np.testing.assert_array_equal(pts.full_cuts(cuts), ref.cuts)
        np.testing.assert_array_equal(pts.thresholds_for(cuts), ref.thresholds)
        if not math.isnan(ref.precision):
            assert (big_p, big_r) == (ref.precision, ref.recall)


@settings(max_examples=80, deadline=None)
@given(
    problems,
    st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0, 10.0, 30.0]), min_size=1, max_size=5),
    st.sampled_from([None, 3.0, 1000.0, math.inf]),
    st.sampled_from([0.0, 1.0, math.nan]),
)
def test_a_walk_over_several_priors_gives_each_ones_hull(
    problem: tuple[int, int, int, int | None], grid: list[float], n_eval: float | None, zd: float
) -> None:
    s, y = _problem(*problem)
    n = float(s.shape[0]) if n_eval is None else n_eval
    inputs = walk_inputs(s, y)
    together = smoothed_hull_points(inputs, tuple(grid), n_eval=n, zero_division=zd)
    for a, got in zip(grid, together, strict=True):
        alone = smoothed_hull_points(inputs, (a,), n_eval=n, zero_division=zd)[0]
        np.testing.assert_array_equal(got.indptr, alone.indptr)
        np.testing.assert_array_equal(got.full_cut, alone.full_cut)
        np.testing.assert_array_equal(got.precision, alone.precision)
        np.testing.assert_array_equal(got.recall, alone.recall)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 5000),
    st.floats(0.01, 1e4),
    st.sampled_from([0.0, 0.5, 1.0, 3.0, 10.0, 30.0, 100.0]),
)
def test_smoothed_precision_is_strictly_convex_along_runs_past_the_curved_prefix(
    n_obj: int, ratio: float, a: float
) -> None:
    """From the prefix on, (1 - q_j) / (j + a) (p~ over a run of negatives, up to the
    factor tp + a pi) has positive second differences, checked in exact fractions of
    the float chances the walk uses."""
    from fractions import Fraction

    n_eval = ratio * n_obj
    chances = _empty_chances(n_obj, n_eval, 0.0)
    start = _curved_prefix(chances, np.array([a]), 0.0)
    assert 1 <= start <= max(chances.size, 1)

    def u(j: int) -> Fraction:
        q = Fraction(float(chances[j])) if j < chances.size else Fraction(0)
        return (1 - q) / (j + Fraction(a))

    # past the table u = 1 / (j + a): convex; check the table and two beyond it
    for j in range(start + 1, min(chances.size + 2, n_obj)):
        assert u(j - 1) + u(j + 1) - 2 * u(j) > 0


def _cv(scores: Any, labels: Any, grid: tuple[float, ...], walk: bool, **kw: Any) -> np.ndarray:
    """cv_scores on the walk (given the checked inputs) or on every cut of copied halves."""
    settings_ = {"zd": 0.0, "n_eval": None, "b": 1.0, "unseen": "prior", "pi": None, **kw}
    return cv_scores(
        scores,
        labels,
        grid,
        2,
        7,
        settings_["zd"],
        settings_["pi"],
        settings_["n_eval"],
        settings_["b"],
        "fixed_point",
        settings_["unseen"],
        False,
        walk_inputs(scores, labels) if walk else None,
    )


@settings(max_examples=40, deadline=None)
@given(
    problems,
    st.sampled_from([None, 5.0, math.inf]),
    st.sampled_from([0.0, 1.0, math.nan]),
    st.sampled_from(["prior", "never"]),
    st.booleans(),
    st.booleans(),
)
def test_cv_on_the_walk_equals_cv_on_every_cut(
    problem: tuple[int, int, int, int | None],
    n_eval: float | None,
    zd: float,
    unseen: str,
    sparse: bool,
    given_rates: bool,
) -> None:
    s, y = _problem(*problem)
    if s.shape[0] < 4:
        return
    y[:, 0] = 0  # a class without positives: the unseen rule runs inside the halves
    if sparse:
        s = sp.csr_matrix(s - s.min() + 1.0)  # every entry stored: the same rankings
    grid = (0.0, 1.0, 3.0, 30.0)
    # given prior centres (e.g. training rates): 1 for the class without positives, 0 for
    # the last one
    pi = np.random.default_rng(problem[0]).uniform(0.0, 0.6, y.shape[1]) if given_rates else None
    if pi is not None and pi.size > 1:
        pi[0], pi[-1] = 1.0, 0.0
    kw = {"zd": zd, "n_eval": n_eval, "unseen": unseen, "pi": pi}
    try:
        walked = _cv(s, y, grid, True, **kw)
    except ValueError as err:  # no split with positives in both halves: both refuse
        with pytest.raises(ValueError, match=re.escape(str(err))):
            _cv(s, y, grid, False, **kw)
        return
    np.testing.assert_array_equal(walked, _cv(s, y, grid, False, **kw))


def test_cv_on_sparse_scores_walks_the_retrieved_entries() -> None:
    rng = np.random.default_rng(4)
    y = (rng.random((300, 40)) < 0.08).astype(np.uint8)
    dense = np.where(rng.random((300, 40)) < 0.3, rng.random((300, 40)) + y, 0.0)
    s = sp.csr_matrix(dense)  # about a third of the entries retrieved
    grid = (0.0, 1.0, 3.0, 10.0)
    np.testing.assert_array_equal(_cv(s, y, grid, True), _cv(s, y, grid, False))
    fast = tune(s, y, prior="cv", cv_grid=grid, random_state=7)
    np.testing.assert_array_equal(fast.diagnostics["cv_scores"], _cv(s, y, grid, True))


def test_cv_with_given_base_rates_walks_and_matches_every_cut() -> None:
    """Given prior centres take the walk (hull cuts) in the halves and the final fit, with
    the cv scores and thresholds of the halves and final fit on every cut."""
    s, y = _problem(11, 300, 25, None)
    y[:, 3] = 0  # a class without positives: the given centre drives its rule
    pi = np.random.default_rng(2).uniform(0.01, 0.4, 25)
    grid = (1.0, 3.0, 10.0)  # no 0: the rule for unseen classes runs at every value
    got = tune(s, y, prior="cv", cv_grid=grid, base_rates=pi, random_state=7)
    assert got.diagnostics["searched_cuts"] in ("hull", "screened")
    np.testing.assert_array_equal(got.diagnostics["cv_scores"], _cv(s, y, grid, False, pi=pi))
    a = got.diagnostics["prior"]
    # the final fit: the solve of every cut at the chosen prior, the unseen rule included
    every = solve(
        build_problem(s, y, 0.0, pi, float(s.shape[0]), 1.0, "fixed_point", "prior"), a, {}
    )
    assert every.diagnostics["searched_cuts"] == "every cut"
    np.testing.assert_array_equal(got.cuts, every.cuts)
    np.testing.assert_array_equal(got.thresholds, every.thresholds)
    assert np.isfinite(got.thresholds[3]) or got.thresholds[3] == -np.inf


def test_run_beside_returns_both_results_and_raises_each_error() -> None:
    assert run_beside(lambda: "other", lambda: "here") == ("other", "here")

    def fails() -> None:
        raise ValueError("other failed")

    with pytest.raises(ValueError, match="other failed"):
        run_beside(fails, lambda: 1)
    done: list[int] = []
    with pytest.raises(KeyError):
        run_beside(lambda: done.append(1), lambda: {}["missing"])
    # the other task was cancelled before it started or ran to its end: never half-run
    assert done in ([], [1])


def test_run_beside_does_not_wait_for_a_busy_pool() -> None:
    """With every pool thread busy, the other task runs in the caller after its own."""
    import threading

    from fmacro.optimize.search._blocks import _pool

    release = threading.Event()
    pool = _pool()
    blockers = [pool.submit(release.wait) for _ in range(pool._max_workers)]
    try:
        order: list[str] = []
        got = run_beside(lambda: order.append("other") or 1, lambda: order.append("here") or 2)
        assert got == (1, 2)
        assert order == ["here", "other"]
    finally:
        release.set()
        for b in blockers:
            b.result()
