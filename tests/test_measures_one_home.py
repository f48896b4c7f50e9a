"""F_beta and the 0/0 policy have one definition (fmacro.validation.measures); every path of
optimize that scores cuts or thresholds agrees with it under every zero_division."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fmacro.optimize import class_points, evaluate_thresholds, per_class
from fmacro.optimize.search.brute_force import exact_f_of_cuts
from fmacro.validation import MultiLabelFValidation, measures

ZERO_DIVISIONS = (0.0, 1.0, math.nan)
unit = st.floats(0.0, 1.0, allow_nan=False)
betas = st.sampled_from([0.25, 0.5, 1.0, 2.0, 3.0])


@given(st.one_of(unit, st.just(math.nan)), st.one_of(unit, st.just(math.nan)), betas)
def test_compiled_kernel_is_the_numpy_definition(p: float, r: float, beta: float) -> None:
    kernel = measures.f_beta_kernel(p, r, beta * beta)
    numpy_form = measures.f_beta_from_pr(p, r, beta)
    if math.isnan(numpy_form):
        assert math.isnan(kernel)
    else:
        assert kernel == pytest.approx(numpy_form, rel=1e-15, abs=0.0)


@st.composite
def instances(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    n = draw(st.integers(2, 12))
    k = draw(st.integers(1, 4))
    scores = np.array(draw(st.lists(st.integers(0, 4), min_size=n * k, max_size=n * k)), float)
    labels = np.array(draw(st.lists(st.booleans(), min_size=n * k, max_size=n * k)))
    labels = labels.reshape(n, k)
    labels[0] = True  # every class has a positive
    return scores.reshape(n, k), labels


@given(instances(), betas, st.sampled_from(ZERO_DIVISIONS))
def test_points_thresholds_and_validations_agree(
    inst: tuple[np.ndarray, np.ndarray], beta: float, zd: float
) -> None:
    scores, labels = inst
    pts = class_points(scores, labels, zero_division=zd)
    tp, fp = np.asarray(pts.tp), np.asarray(pts.fp)
    m = np.repeat(np.asarray(pts.support), np.asarray(pts.n_cuts))
    np.testing.assert_array_equal(pts.precision, measures.precision(tp, fp, zd))
    np.testing.assert_array_equal(pts.recall, measures.recall(tp, m - tp, zd))
    # Held-out scoring of thresholds = a multi-label validation of their predictions.
    result = per_class(points=pts, beta=beta, zero_division=zd)
    ev = evaluate_thresholds(scores, labels, result, beta=beta, zero_division=zd)
    v = MultiLabelFValidation.from_predictions(
        labels, result.apply(scores), beta=beta, zero_division=zd
    )
    np.testing.assert_allclose(ev.class_f, v.per_class_f, rtol=1e-12, atol=0)
    np.testing.assert_allclose(ev.class_precision, v.per_class_precision, rtol=1e-12)
    np.testing.assert_allclose(ev.class_recall, v.per_class_recall, rtol=1e-12)
    assert ev.f == pytest.approx(v.f_macro, rel=1e-12, nan_ok=True)
    # The exact (Fraction) oracle uses the same definition.
    if not math.isnan(result.f):
        assert float(exact_f_of_cuts(pts, result.cuts, beta)) == pytest.approx(result.f, rel=1e-12)
