"""Per-class constraints (min_precision, max_predicted_rate) against brute force.

The brute force here is independent of fmacro's points: for every class it tries every
threshold (each distinct score, and +inf), predicts from the scores, decides feasibility
from those predictions, and scores F-macro with exact fractions. Small instances with
ties, classes without positives and all three 0/0 policies.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fmacro.optimize import (
    class_points,
    cyclic,
    domain,
    exact,
    fixed_point,
    micro_macro,
    per_class,
    tune,
)
from fmacro.optimize.search.constraints import check_constraints, feasible_points
from fmacro.optimize.tuning.smoothing import smooth_points

CERTIFIED = (fixed_point, exact, domain)
ZERO_DIVISIONS = (0.0, 1.0, math.nan)


def _candidates(column: np.ndarray) -> list[float]:
    """Every distinct threshold of a column: its scores, highest first, after +inf."""
    return [math.inf, *sorted(set(column.tolist()), reverse=True)]


def _class_options(scores, labels, k, min_p, max_rate, zd):
    """(threshold, tp, predicted) of every feasible threshold of column k, from the
    predictions themselves; under zd=nan the empty prediction is unusable."""
    n = scores.shape[0]
    out = []
    for t in _candidates(scores[:, k]):
        pred = scores[:, k] >= t
        j = int(pred.sum())
        tp = int((pred & labels[:, k]).sum())
        if j == 0:
            if not math.isnan(zd):
                out.append((t, 0, 0))
            continue
        # float64 ratios, as documented (2/7 of the rows is within a cap of 2 / 7)
        if tp / j >= min_p and j / n <= max_rate:
            out.append((t, tp, j))
    return out


def _pr(tp, j, m, zd):
    p = Fraction(zd) if j == 0 else Fraction(tp, j)
    return p, Fraction(tp, m)


def _f(p, r, beta=1):
    b2 = Fraction(beta) ** 2
    den = b2 * p + r
    return Fraction(0) if den == 0 else (1 + b2) * p * r / den


def brute_force_feasible(scores, labels, min_p, max_rate, zd):
    """The best F-macro over feasible thresholds of the classes with positives (exact)."""
    kept = [k for k in range(labels.shape[1]) if labels[:, k].any()]
    options = [_class_options(scores, labels, k, min_p, max_rate, zd) for k in kept]
    best = None
    if not kept:
        return best, kept, options
    for combo in itertools.product(*options):
        values = [
            _pr(tp, j, int(labels[:, k].sum()), zd)
            for k, (_, tp, j) in zip(kept, combo, strict=True)
        ]
        ps, rs = zip(*values, strict=True)
        f = _f(sum(ps) / len(ps), sum(rs) / len(rs))
        if best is None or f > best:
            best = f
    return best, kept, options


def _feasible(scores, labels, thresholds, min_p, max_rate):
    """Whether ``thresholds`` meet the constraints on every column (from predictions)."""
    pred = scores >= thresholds
    n = scores.shape[0]
    for k in range(scores.shape[1]):
        j = int(pred[:, k].sum())
        if j == 0:
            continue
        tp = int((pred[:, k] & labels[:, k]).sum())
        if tp / j < min_p or j / n > max_rate:
            return False
    return True


@st.composite
def instances(draw):
    n = draw(st.integers(3, 7))
    c = draw(st.integers(1, 3))
    # few score values: ties inside a column
    scores = np.array(
        draw(st.lists(st.lists(st.integers(0, 3), min_size=c, max_size=c), min_size=n, max_size=n)),
        dtype=np.float64,
    )
    labels = np.array(
        draw(st.lists(st.lists(st.booleans(), min_size=c, max_size=c), min_size=n, max_size=n))
    )
    min_p = draw(st.sampled_from([0.0, 0.25, 0.5, 2 / 3, 1.0]))
    max_rate = draw(st.sampled_from([1.0, 0.75, 0.5, 2 / 7, 0.0]))
    zd = draw(st.sampled_from(ZERO_DIVISIONS))
    return scores, labels, min_p, max_rate, zd


def _stuck(options) -> bool:
    return any(not opts for opts in options)


@given(instances())
def test_certified_methods_reach_the_feasible_optimum(case):
    scores, labels, min_p, max_rate, zd = case
    best, kept, options = brute_force_feasible(scores, labels, min_p, max_rate, zd)
    kw = {"zero_division": zd, "min_precision": min_p, "max_predicted_rate": max_rate}
    for method in CERTIFIED:
        if not kept:
            continue
        if _stuck(options):  # zd=nan and a class can only stay empty: refused by name
            with pytest.raises(ValueError, match="zero_division=nan"):
                method(scores, labels, **kw)
            continue
        res = method(scores, labels, **kw)
        assert _feasible(scores, labels, res.thresholds, min_p, max_rate), method.__name__
        if method is domain:  # support directions: a point and a bound around the optimum
            assert res.f <= float(best) + 1e-12
        else:
            assert res.f == pytest.approx(float(best), abs=1e-12), method.__name__
        assert res.upper_bound >= float(best) - 1e-12
        assert res.diagnostics["constraints"]["min_precision"] == [min_p] * scores.shape[1]


@given(instances())
def test_per_class_and_cyclic_under_constraints(case):
    scores, labels, min_p, max_rate, zd = case
    best, kept, options = brute_force_feasible(scores, labels, min_p, max_rate, zd)
    if not kept or _stuck(options):
        return
    kw = {"zero_division": zd, "min_precision": min_p, "max_predicted_rate": max_rate}
    own = per_class(scores, labels, **kw)
    assert _feasible(scores, labels, own.thresholds, min_p, max_rate)
    # each class at its best feasible F1 (the first of equal ones, the highest threshold)
    for i, k in enumerate(kept):
        m = int(labels[:, k].sum())
        fs = [_f(*_pr(tp, j, m, zd)) for _, tp, j in options[i]]
        assert own.diagnostics["class_f"][i] == pytest.approx(float(max(fs)), abs=1e-12)
        assert own.thresholds[k] == options[i][int(np.argmax([float(f) for f in fs]))][0]
    asc = cyclic(scores, labels, **kw)
    assert _feasible(scores, labels, asc.thresholds, min_p, max_rate)
    assert float(best) + 1e-12 >= asc.f >= own.f - 1e-12


@given(instances(), st.sampled_from([0.0, 0.5, 1.0]))
def test_micro_macro_within_the_feasible_optimum(case, mix):
    """The joint objective over the feasible cuts: never above brute force, never below
    its own bound's reach, exact at mix 0 (per-class F) ."""
    scores, labels, min_p, max_rate, zd = case
    _, kept, options = brute_force_feasible(scores, labels, min_p, max_rate, zd)
    if not kept or _stuck(options):
        return
    sizes = [int(labels[:, k].sum()) for k in kept]
    best = None
    for combo in itertools.product(*options):
        tp = sum(c[1] for c in combo)
        predicted = sum(c[2] for c in combo)
        micro = Fraction(2 * tp, predicted + sum(sizes))
        macro = sum(_f(*_pr(t, j, m, zd)) for (_, t, j), m in zip(combo, sizes, strict=True))
        value = Fraction(mix) * micro + (1 - Fraction(mix)) * macro / len(kept)
        best = value if best is None or value > best else best
    kw = {"zero_division": zd, "min_precision": min_p, "max_predicted_rate": max_rate}
    res = micro_macro(scores, labels, mix=mix, **kw)
    assert _feasible(scores, labels, res.thresholds, min_p, max_rate)
    assert res.diagnostics["objective"] <= float(best) + 1e-12
    assert res.diagnostics["objective_bound"] >= float(best) - 1e-12
    if mix in (0.0, 1.0):  # exact at the ends
        assert res.diagnostics["objective"] == pytest.approx(float(best), abs=1e-12)


@given(instances())
def test_tune_raw_points_reach_the_feasible_optimum(case):
    """tune at prior 0 with no finite-sample factor searches the raw points."""
    scores, labels, min_p, max_rate, zd = case
    best, kept, options = brute_force_feasible(scores, labels, min_p, max_rate, zd)
    if not kept or _stuck(options):
        return
    res = tune(
        scores,
        labels,
        prior=0.0,
        n_eval=math.inf,
        zero_division=zd,
        min_precision=min_p,
        max_predicted_rate=max_rate,
        unseen="never",
    )
    assert _feasible(scores, labels, res.thresholds, min_p, max_rate)
    assert res.diagnostics["smoothed_f"] == pytest.approx(float(best), abs=1e-12)
    assert res.diagnostics["smoothed_gap"] == pytest.approx(0.0, abs=1e-12)


@given(instances())
def test_tune_smoothed_optimum_over_feasible_cuts(case):
    """tune's certified smoothed F is the best smoothed F over the feasible cuts (cuts'
    feasibility decided from the predictions, their smoothed values from smooth_points)."""
    scores, labels, min_p, max_rate, zd = case
    _, kept, options = brute_force_feasible(scores, labels, min_p, max_rate, zd)
    if not kept or _stuck(options):
        return
    sm = smooth_points(class_points(scores, labels, zero_division=zd), 3.0)
    p, r = np.asarray(sm.precision), np.asarray(sm.recall)
    per_class_values = []
    for i in range(len(kept)):
        sl = sm.class_slice(i)
        thr = np.asarray(sm.threshold)[sl]
        allowed = {t for t, _, _ in options[i]}
        per_class_values.append(
            [(p[sl][g], r[sl][g]) for g in range(thr.size) if thr[g] in allowed]
        )
    best = max(
        _f(*(Fraction(sum(v[i] for v in combo)) / len(combo) for i in (0, 1)))
        for combo in itertools.product(*per_class_values)
    )
    res = tune(
        scores,
        labels,
        zero_division=zd,
        min_precision=min_p,
        max_predicted_rate=max_rate,
        unseen="never",
    )
    assert _feasible(scores, labels, res.thresholds, min_p, max_rate)
    assert res.diagnostics["smoothed_f"] == pytest.approx(float(best), abs=1e-9)


def test_a_rate_cap_limits_the_empty_classes_rule():
    """unseen='prior' predicts a class without tuning positives for every object; under a
    cap it takes the deepest cut within the cap."""
    rng = np.random.default_rng(3)
    scores = rng.random((40, 4))
    labels = rng.random((40, 4)) < 0.3
    labels[:, 2] = False
    free = tune(scores, labels)
    assert free.thresholds[2] == -math.inf
    capped = tune(scores, labels, max_predicted_rate=0.25)
    predicted = (scores >= capped.thresholds).mean(axis=0)
    assert predicted[2] == 0.25  # 10 of 40 rows: the deepest cut within the cap
    assert (predicted <= 0.25).all()
    strict = tune(scores, labels, min_precision=0.1)
    assert strict.thresholds[2] == math.inf  # no positive: every non-empty cut has p = 0


def test_per_column_values_and_weighted_rates():
    rng = np.random.default_rng(1)
    scores = rng.random((60, 3))
    labels = rng.random((60, 3)) < 0.4
    caps = [1.0, 0.1, 0.5]
    res = fixed_point(scores, labels, max_predicted_rate=caps)
    assert ((scores >= res.thresholds).mean(axis=0) <= np.array(caps)).all()
    # integer weights: the constraints of the repeated rows
    w = rng.integers(0, 3, 60)
    kw = {"max_predicted_rate": 0.2, "min_precision": 0.5}
    weighted = fixed_point(scores, labels, sample_weight=w, **kw)
    rows = np.repeat(np.arange(60), w)
    repeated = fixed_point(scores[rows], labels[rows], **kw)
    assert weighted.f == pytest.approx(repeated.f, abs=1e-12)
    np.testing.assert_array_equal(weighted.thresholds, repeated.thresholds)


def test_no_constraint_is_the_unconstrained_result():
    rng = np.random.default_rng(2)
    scores = rng.random((80, 5))
    labels = rng.random((80, 5)) < 0.3
    for method in (*CERTIFIED, per_class, cyclic, tune, micro_macro):
        a = method(scores, labels)
        b = method(scores, labels, min_precision=0.0, max_predicted_rate=1.0)
        np.testing.assert_array_equal(a.thresholds, b.thresholds)
        assert a.f == b.f


def test_prior_cv_meets_the_constraints():
    rng = np.random.default_rng(4)
    scores = rng.random((120, 6))
    labels = rng.random((120, 6)) < np.linspace(0.05, 0.4, 6)
    res = tune(scores, labels, prior="cv", max_predicted_rate=0.3, min_precision=0.2)
    assert _feasible(scores, labels, res.thresholds, 0.2, 0.3)


def test_feasible_points_keep_cut_numbers():
    scores = np.array([[0.9], [0.8], [0.7], [0.6], [0.5]])
    labels = np.array([[1], [0], [1], [0], [0]], dtype=bool)
    pts = class_points(scores, labels)
    rules = check_constraints(0.6, 0.6, 1)
    kept = feasible_points(pts, rules)
    # cuts 0..5 take 0..5 objects; precision 1, 1/2, 2/3, 1/2, 2/5; rate <= 3/5
    assert kept.full_cut.tolist() == [0, 1, 3]
    res = fixed_point(scores, labels, min_precision=0.6, max_predicted_rate=0.6)
    assert res.cuts.tolist() == [3] and res.thresholds.tolist() == [0.7]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"min_precision": 1.5}, ValueError, "min_precision must lie in"),
        ({"min_precision": -0.1}, ValueError, "min_precision must lie in"),
        ({"max_predicted_rate": math.nan}, ValueError, "max_predicted_rate must lie in"),
        ({"max_predicted_rate": [0.5, 0.5]}, ValueError, r"shape \(3,\)"),
        ({"min_precision": True}, TypeError, "min_precision"),
        ({"max_predicted_rate": "half"}, TypeError, "max_predicted_rate"),
    ],
)
def test_bad_constraints_are_refused_by_name(kwargs, error, match):
    scores = np.random.default_rng(0).random((10, 3))
    labels = scores > 0.5
    for method in (fixed_point, per_class, cyclic, tune):
        with pytest.raises(error, match=match):
            method(scores, labels, **kwargs)


def test_an_infeasible_start_is_refused():
    scores = np.array([[0.9, 0.2], [0.8, 0.9], [0.1, 0.5], [0.3, 0.4]])
    labels = np.array([[1, 0], [0, 1], [0, 1], [1, 0]], dtype=bool)
    with pytest.raises(ValueError, match="breaks min_precision"):
        cyclic(scores, labels, start_thresholds=[-np.inf, -np.inf], max_predicted_rate=0.5)


def test_caller_arrays_unchanged():
    rng = np.random.default_rng(5)
    scores = rng.random((30, 3))
    labels = rng.random((30, 3)) < 0.4
    caps = np.array([0.5, 0.2, 0.3])
    before = (scores.copy(), labels.copy(), caps.copy())
    tune(scores, labels, max_predicted_rate=caps, min_precision=caps)
    fixed_point(scores, labels, max_predicted_rate=caps)
    for a, b in zip(before, (scores, labels, caps), strict=True):
        np.testing.assert_array_equal(a, b)
