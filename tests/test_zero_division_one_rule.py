"""One 0/0 rule for scoring given thresholds on given rows (issue 25, item 5).

Every scorer of the same thresholds on the same rows gives the same F-macro under
``zero_division`` 0, 1 and nan: ``evaluate_thresholds``, ``f_macro``, the held-out scorer of
``tune(prior="cv")`` (both its paths), the multi-label validation of the predictions over
the same kept classes, its tables (``to_dict``, ``to_pandas``) and the classifier's
``best_score_`` arithmetic. With nan, a class that predicts nothing is left out of the
precision average (:func:`fmacro.validation.measures.macro_from_counts`). Before the fix
the cv scorer gave NaN there (counted 0 in the grid's mean) where the others gave 0.354.

The certified searches keep their plain-mean objective (an empty cut makes F NaN); their
answers never hold an empty cut, so their ``f`` is the rule's F on the rows searched.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

import fmacro.optimize.tuning._prior_cv as prior_cv
from fmacro.optimize import (
    class_points,
    evaluate_cuts,
    evaluate_thresholds,
    f_macro,
    fixed_point,
    per_class,
    top_k,
    tune,
)
from fmacro.optimize.sklearn import _objective_value
from fmacro.optimize.tuning.source import walk_inputs
from fmacro.validation import MultiLabelFValidation, measures

ZERO_DIVISIONS = (0.0, 1.0, math.nan)
betas = st.sampled_from([0.5, 1.0, 2.0])


def same(a: float, b: float) -> bool:
    """Equal, or both NaN."""
    return a == b or (math.isnan(a) and math.isnan(b))


def close(a: float, b: float, n_terms: int) -> bool:
    """Equal up to the rounding of two sums of ``n_terms`` (fsum against numpy's sum) carried
    through F (a few ulps per term: 8 n eps relative), or both NaN."""
    return same(a, b) or abs(a - b) <= 8 * n_terms * np.finfo(float).eps * abs(b)


def cv_scorers(
    scores: Any, labels: Any, thresholds: NDArray[np.float64], beta: float, zd: float
) -> dict[str, NDArray[np.float64]]:
    """F-macro of each threshold row by the cv scorer: on copied rows (dense, and sparse
    when the scores have no zero) and on the fast path's rows read in place."""
    fit = prior_cv._Fit((0.0,), zd, None, beta, "fixed_point", "prior", False)
    rows = np.arange(scores.shape[0], dtype=np.int64)
    walked = prior_cv._Walked(walk_inputs(scores, labels), scores, labels)
    scorers = {
        "copied": prior_cv._rows_scorer(scores, labels, fit),
        "walked": walked.held_out(rows, fit),
    }
    if np.all(scores != 0):  # a sparse matrix predicts only its stored entries
        csr = sp.csr_matrix(scores), sp.csr_matrix(labels)
        scorers["copied csr"] = prior_cv._rows_scorer(*csr, fit)
    out = {}
    for name, scorer in scorers.items():
        assert scorer is not None
        out[name] = scorer(thresholds)
    return out


def validation_values(
    labels: NDArray[Any], predicted: NDArray[Any], kept: NDArray[np.int64], beta: float, zd: float
) -> dict[str, float]:
    """F-macro of the validation of the predictions over the kept classes, and its tables."""
    expected = labels[:, kept].astype(np.uint8)
    v = MultiLabelFValidation.from_predictions(
        expected, predicted[:, kept].astype(np.uint8), beta=beta, zero_division=zd
    )
    record = v.to_dict()["averages"]["f_macro"]  # an undefined value is None
    row = v.to_pandas().loc["F-macro"]  # nullable floats: an undefined value is pd.NA
    assert same(_frame_value(row["precision"]), v.macro_precision)
    assert same(_frame_value(row["recall"]), v.macro_recall)
    return {
        "validation": v.f_macro,
        "validation P": v.macro_precision,
        "validation R": v.macro_recall,
        "to_dict": math.nan if record["f"] is None else record["f"],
        "to_pandas": _frame_value(row["f"]),
    }


def _frame_value(x: Any) -> float:
    return math.nan if pd.isna(x) else float(x)


# ------------------------------------------------------------------ the hand-computed case
# 8 rows, 3 classes, thresholds 0.5: class 0 predicts rows 0-3 (TP 1, FP 3, 2 positives),
# class 1 rows 1-5 (TP 2, FP 3, 3 positives), class 2 nothing (1 positive).
HAND_SCORES = np.full((8, 3), 0.1)
HAND_SCORES[0:4, 0] = 0.9
HAND_SCORES[1:6, 1] = 0.9
HAND_SCORES[:, 2] = 0.2
HAND_LABELS = np.zeros((8, 3), dtype=np.uint8)
HAND_LABELS[[0, 5], 0] = 1
HAND_LABELS[[1, 2, 6], 1] = 1
HAND_LABELS[7, 2] = 1
HAND_THRESHOLDS = np.array([0.5, 0.5, 0.5])
R_HAND = (Fraction(1, 2) + Fraction(2, 3) + 0) / 3  # 7/18
# zero_division -> (P, F): the third class's precision is 0, 1, or left out
HAND = {
    0.0: (Fraction(13, 60), Fraction(91, 327)),
    1.0: (Fraction(11, 20), Fraction(77, 169)),
    "nan": (Fraction(13, 40), Fraction(91, 257)),  # (1/4 + 2/5) / 2; F = 0.354
}


@pytest.mark.parametrize("zd", ZERO_DIVISIONS)
def test_every_scorer_gives_the_hand_computed_f_macro(zd: float) -> None:
    big_p, big_f = HAND["nan" if math.isnan(zd) else zd]
    b2 = 1
    assert big_f == (1 + b2) * big_p * R_HAND / (b2 * big_p + R_HAND)
    ev = evaluate_thresholds(HAND_SCORES, HAND_LABELS, HAND_THRESHOLDS, zero_division=zd)
    np.testing.assert_array_equal(ev.tp, [1, 2, 0])
    np.testing.assert_array_equal(ev.fp, [3, 3, 0])
    assert ev.precision == pytest.approx(float(big_p), rel=1e-15)
    assert ev.recall == pytest.approx(float(R_HAND), rel=1e-15)
    assert ev.f == pytest.approx(float(big_f), rel=1e-15)
    values = {
        "evaluate_thresholds": ev.f,
        "f_macro": f_macro(HAND_SCORES, HAND_LABELS, HAND_THRESHOLDS, zero_division=zd),
        "best_score_": _objective_value(
            HAND_LABELS.astype(bool), HAND_SCORES >= HAND_THRESHOLDS, "f_macro", None, 1.0, zd
        ),
        **validation_values(HAND_LABELS, HAND_SCORES >= HAND_THRESHOLDS, np.arange(3), 1.0, zd),
        **{
            f"cv scorer, {name}": float(f[0])
            for name, f in cv_scorers(
                HAND_SCORES, HAND_LABELS, HAND_THRESHOLDS[None, :], 1.0, zd
            ).items()
        },
    }
    del values["validation P"], values["validation R"]
    for name, value in values.items():
        assert value == pytest.approx(float(big_f), rel=1e-15), name


def test_the_cv_scorer_no_longer_gives_nan_where_evaluate_thresholds_gives_0_354() -> None:
    """The reproduced inconsistency: the same thresholds on the same rows, zero_division
    nan: 91/257 = 0.354 in evaluate_thresholds, NaN in the cv scorer (counted 0)."""
    ev = evaluate_thresholds(HAND_SCORES, HAND_LABELS, HAND_THRESHOLDS, zero_division=math.nan)
    assert round(ev.f, 3) == 0.354
    for name, f in cv_scorers(
        HAND_SCORES, HAND_LABELS, HAND_THRESHOLDS[None, :], 1.0, math.nan
    ).items():
        assert not math.isnan(f[0]), name
        assert f[0] == pytest.approx(ev.f, rel=1e-15), name
    # the search's objective at the same cuts (class 2 at its empty cut 0) is NaN: such a
    # cut vector is never a search's answer
    pts = class_points(HAND_SCORES, HAND_LABELS, zero_division=math.nan)
    np.testing.assert_array_equal(pts.thresholds_at([1, 1, 0]), [0.9, 0.9, math.inf])
    assert all(math.isnan(x) for x in evaluate_cuts(pts, [1, 1, 0])[::2])
    for zd in (0.0, 1.0):  # without undefined values both definitions are one
        pts = class_points(HAND_SCORES, HAND_LABELS, zero_division=zd)
        ev = evaluate_thresholds(HAND_SCORES, HAND_LABELS, HAND_THRESHOLDS, zero_division=zd)
        assert evaluate_cuts(pts, [1, 1, 0]) == (ev.precision, ev.recall, ev.f)


def test_the_cv_scorer_leaves_nan_only_when_no_class_predicts() -> None:
    never = np.full(3, np.inf)
    f = cv_scorers(HAND_SCORES, HAND_LABELS, never[None, :], 1.0, math.nan)
    assert all(math.isnan(v[0]) for v in f.values())
    assert math.isnan(
        evaluate_thresholds(HAND_SCORES, HAND_LABELS, never, zero_division=math.nan).f
    )
    # zero_division 0 scores it 0, which is what the grid's mean counts the NaN as
    ev0 = evaluate_thresholds(HAND_SCORES, HAND_LABELS, never, zero_division=0.0)
    assert ev0.f == 0.0


# --------------------------------------------------------------- random small problems
@st.composite
def problems(draw: st.DrawFn) -> tuple[NDArray[np.float64], NDArray[np.uint8], NDArray[Any]]:
    """Scores on a few levels (ties), labels, and 1-3 threshold vectors in which classes
    predict nothing (4.5, +inf), everything (-inf) or some objects; some classes may have
    no positive (they are not scored)."""
    n = draw(st.integers(2, 9))
    k = draw(st.integers(1, 5))
    levels = st.lists(st.integers(1, 4), min_size=n * k, max_size=n * k)
    scores = np.array(draw(levels), dtype=np.float64).reshape(n, k)
    labels = np.array(draw(st.lists(st.booleans(), min_size=n * k, max_size=n * k)))
    labels = labels.reshape(n, k).astype(np.uint8)
    labels[draw(st.integers(0, n - 1)), draw(st.integers(0, k - 1))] = 1
    values = st.sampled_from([-math.inf, 0.5, 1.5, 2.5, 3.5, 4.5, math.inf])
    n_sets = draw(st.integers(1, 3))
    thr = np.array(draw(st.lists(values, min_size=n_sets * k, max_size=n_sets * k)))
    return scores, labels, thr.reshape(n_sets, k)


@settings(max_examples=200, deadline=None)
@given(problems(), betas, st.sampled_from(ZERO_DIVISIONS))
def test_every_scorer_of_the_same_thresholds_on_the_same_rows_agrees(
    problem: tuple[NDArray[np.float64], NDArray[np.uint8], NDArray[Any]], beta: float, zd: float
) -> None:
    scores, labels, grid = problem
    by_cv = cv_scorers(scores, labels, grid, beta, zd)
    for i, thr in enumerate(grid):
        ev = evaluate_thresholds(scores, labels, thr, beta=beta, zero_division=zd)
        kept = np.asarray(ev.class_index)
        predicted = scores >= thr
        predicts = (ev.tp + ev.fp)[kept] > 0
        # the rule: NaN only when, under nan, no kept class predicts anything
        assert math.isnan(ev.f) == (math.isnan(zd) and not predicts.any())
        # ... and otherwise the precision average runs over the classes that predict
        if math.isnan(zd) and predicts.any():
            p_k = ev.tp[kept][predicts] / (ev.tp + ev.fp)[kept][predicts]
            assert ev.precision == pytest.approx(float(np.mean(p_k)), rel=1e-15)
        assert same(f_macro(scores, labels, thr, beta=beta, zero_division=zd), ev.f)
        assert same(
            _objective_value(labels.astype(bool), predicted, "f_macro", None, beta, zd), ev.f
        )
        val = validation_values(labels, predicted, kept, beta, zd)
        assert same(val.pop("validation P"), ev.precision)
        assert same(val.pop("validation R"), ev.recall)
        for name, value in val.items():
            assert same(value, ev.f), name
        # the cv scorer sums exactly (math.fsum): the one home with summation="exact"
        counts = (ev.tp[kept], ev.fp[kept], ev.support[kept])
        exact = float(measures.macro_from_counts(*counts, beta, zd, summation="exact")[2])
        for name, f in by_cv.items():
            assert same(float(f[i]), exact), name
            assert close(float(f[i]), ev.f, kept.size), name


# ------------------------------------------------ the searches' F is the rule's F on their rows
search_problems = st.tuples(
    st.integers(0, 10_000), st.integers(3, 40), st.integers(1, 6), st.sampled_from([None, 2, 5])
)


def _search_problem(
    seed: int, n: int, k: int, levels: int | None
) -> tuple[NDArray[np.float64], NDArray[np.uint8]]:
    rng = np.random.default_rng(seed)
    y = (rng.random((n, k)) < rng.uniform(0.05, 0.5, k)).astype(np.uint8)
    y[rng.integers(0, n), :] = 1  # every class has a positive
    s = y * rng.normal(0.5, 1.0, (n, k)) + rng.normal(0.0, 1.0, (n, k))
    if levels is not None:
        s = np.round(s * levels) / levels
    return s, y


@settings(max_examples=60, deadline=None)
@given(search_problems, betas, st.sampled_from(ZERO_DIVISIONS))
def test_a_search_answer_scores_its_own_f_on_the_rows_searched(
    problem: tuple[int, int, int, int | None], beta: float, zd: float
) -> None:
    """result.f (the searches' plain mean) == evaluate_thresholds (the rule) on the tuning
    rows. Under 0 and 1 nothing is undefined (an empty cut may win under 1: its precision
    is 1); under nan no returned cut of a class with a positive is empty."""
    s, y = _search_problem(*problem)
    results = {
        "fixed_point": fixed_point(s, y, beta=beta, zero_division=zd),
        "fixed_point points": fixed_point(
            points=class_points(s, y, zero_division=zd), beta=beta, exact=False
        ),
        "tune": tune(s, y, beta=beta, zero_division=zd),
        "tune a=0": tune(s, y, beta=beta, zero_division=zd, prior=0.0, n_eval=math.inf),
        "per_class": per_class(s, y, beta=beta, zero_division=zd),
        "per_class points": per_class(points=class_points(s, y, zero_division=zd), beta=beta),
    }
    for name, result in results.items():
        ev = evaluate_thresholds(s, y, result, beta=beta, zero_division=zd)
        if math.isnan(zd):
            assert ((ev.tp + ev.fp)[ev.class_index] > 0).all(), name
        assert not math.isnan(result.f), name
        assert (result.f, result.precision, result.recall) == (ev.f, ev.precision, ev.recall), name


@settings(max_examples=40, deadline=None)
@given(search_problems, betas, st.sampled_from(ZERO_DIVISIONS))
def test_top_k_scores_its_predictions_by_the_rule(
    problem: tuple[int, int, int, int | None], beta: float, zd: float
) -> None:
    """top_k (a per-object rule, where a class may predict nothing) reports the F of the
    validation of its predictions on the rows searched."""
    s, y = _search_problem(*problem)
    result = top_k(s, y, beta=beta, zero_division=zd)
    kept = np.asarray(result.diagnostics["class_index"])
    val = validation_values(y, result.apply(s), kept, beta, zd)
    assert same(val["validation"], result.f)
    assert same(val["validation P"], result.precision)
    assert same(val["validation R"], result.recall)


# ------------------------------------------------------------ tune(prior="cv") end to end
def _cv_problem(seed: int) -> tuple[NDArray[np.float64], NDArray[np.uint8]]:
    rng = np.random.default_rng(seed)
    n, k = 30, 6
    y = (rng.random((n, k)) < rng.uniform(0.03, 0.3, k)).astype(np.uint8)
    y[0] = 1
    s = y * rng.normal(0.6, 1.0, (n, k)) + rng.normal(0.0, 1.0, (n, k))
    return s, y


@pytest.mark.parametrize("zd", ZERO_DIVISIONS)
@pytest.mark.parametrize("method", ["fixed_point", "per_class"])  # fast path, copied halves
def test_cv_scores_are_the_mean_held_out_evaluate_thresholds(
    zd: float, method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each held-out scoring of tune(prior="cv") is evaluate_thresholds of the fitted
    thresholds on the held-out rows, and cv_scores their mean over the splits. On these
    data, under zero_division nan, some held-out scorings have a class predicting nothing:
    the old scorer (the plain mean, ``undefined="propagate"``) gave NaN exactly there,
    counted 0."""
    s, y = _cv_problem(3)
    seen: list[list[float]] = []
    held_in_class = prior_cv._Walked if method == "fixed_point" else prior_cv._Copied
    original = held_in_class.held_out

    def held_out(self: Any, rows: NDArray[np.int64], fit: Any) -> Any:
        scorer = original(self, rows, fit)

        def recorded(thresholds: NDArray[np.float64]) -> NDArray[np.float64]:
            f = scorer(thresholds)
            for t, value in zip(thresholds, f, strict=True):
                ev = evaluate_thresholds(s[rows], y[rows], t, zero_division=fit.zd)
                kept = ev.class_index
                undefined = ((ev.tp + ev.fp)[kept] == 0).any()
                counts = (ev.tp[kept], ev.fp[kept], ev.support[kept])
                plain = measures.macro_from_counts(
                    *counts, 1.0, fit.zd, undefined="propagate", summation="exact"
                )[2]
                seen.append([value, ev.f, undefined, plain])
            return f

        return None if scorer is None else recorded

    monkeypatch.setattr(held_in_class, "held_out", held_out)
    grid = (0.0, 1.0, 3.0, 10.0, 30.0)
    result = tune(s, y, prior="cv", cv_grid=grid, zero_division=zd, method=method)
    assert len(seen) == 2 * 2 * len(grid)  # 2 repeats x 2 halves, every half scored
    got, want, undefined, old = np.array(seen).T
    assert not np.isnan(got).any() and not np.isnan(want).any()
    np.testing.assert_allclose(got, want, rtol=4e-16, atol=0)
    np.testing.assert_array_equal(np.isnan(old), undefined.astype(bool) & math.isnan(zd))
    if math.isnan(zd):
        assert undefined.sum() >= 3  # the case the rule decides (11 and 5 of 20 here)
    mean = got.reshape(-1, len(grid)).mean(axis=0)
    np.testing.assert_allclose(result.diagnostics["cv_scores"], mean, rtol=1e-15, atol=0)


# ------------------------------------------------ the one home: weighted counts, edge values
def test_tune_reports_the_plain_values_of_weighted_points_below_one() -> None:
    """tune's reported P, R, F (the searches' plain mean through the one home) divide by
    the weighted counts also when they sum below 1 (the copy it replaced divided by
    max(count, 1)): TP 0.55, FP 0.2, 0.55 positives -> P = 11/15, R = 1, F = 22/26."""
    s = np.array([[0.9], [0.8], [0.3], [0.1]])
    y = np.array([[1], [0], [1], [0]])
    pts = class_points(s, y, sample_weight=[0.3, 0.2, 0.25, 0.1])
    result = tune(points=pts, prior=0.0, n_eval=math.inf)
    np.testing.assert_array_equal(result.cuts, [3])
    assert result.precision == pytest.approx(11 / 15, rel=1e-15)
    assert result.recall == 1.0
    assert result.f == pytest.approx(22 / 26, rel=1e-15)
    assert (result.precision, result.recall, result.f) == evaluate_cuts(
        pts, pts.local_cuts(result.cuts)
    )


def test_macro_mean_rules_and_sums() -> None:
    nan = math.nan
    values = np.array([[0.5, nan, 1.0], [nan, nan, nan], [0.1, 0.2, 0.3]])
    omit = measures.macro_mean(values)
    np.testing.assert_array_equal(omit, [0.75, nan, np.mean([0.1, 0.2, 0.3])])
    np.testing.assert_array_equal(
        measures.macro_mean(values, summation="exact"), [0.75, nan, math.fsum([0.1, 0.2, 0.3]) / 3]
    )
    np.testing.assert_array_equal(
        measures.macro_mean(values, undefined="propagate"), [nan, nan, np.sum(values[2]) / 3]
    )
    assert measures.macro_mean([0.5, nan]).shape == ()
    assert measures.macro_mean([0.5, nan]).item() == measures.mean_defined([0.5, nan]) == 0.5
    # fsum is correctly rounded, whatever the order: numpy's pairwise sum is not
    ten = np.array([0.1] * 10)
    assert measures.macro_mean(ten, summation="exact").item() == 0.1
    with pytest.raises(ValueError, match="undefined must be"):
        measures.macro_mean(values, undefined="skip")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="summation must be"):
        measures.macro_mean(values, summation="kahan")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="per-class values"):
        measures.macro_mean(0.5)


def test_macro_from_counts_over_a_grid_is_row_by_row() -> None:
    """Each row of a grid of threshold vectors is the 1-D computation (hand values: the
    hand case's counts, and the same classes when every class predicts something)."""
    tp = np.array([[1, 2, 0], [1, 2, 1]])
    fp = np.array([[3, 3, 0], [3, 3, 0]])
    m = np.array([2, 3, 1])
    p, r, f = measures.macro_from_counts(tp, fp, m, 1.0, math.nan)
    assert p.shape == r.shape == f.shape == (2,)
    assert p.tolist() == pytest.approx([13 / 40, (1 / 4 + 2 / 5 + 1) / 3], rel=1e-15)
    assert r.tolist() == pytest.approx([7 / 18, (1 / 2 + 2 / 3 + 1) / 3], rel=1e-15)
    assert f[0] == pytest.approx(91 / 257, rel=1e-15)
    for row in range(2):
        one = measures.macro_from_counts(tp[row], fp[row], m, 1.0, math.nan)
        assert tuple(float(x) for x in one) == (p[row], r[row], f[row])
    # the searches' plain mean: the first row's empty class makes P and F NaN
    p, _, f = measures.macro_from_counts(tp, fp, m, 1.0, math.nan, undefined="propagate")
    assert math.isnan(p[0]) and math.isnan(f[0]) and not math.isnan(f[1])
