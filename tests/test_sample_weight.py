"""sample_weight: weighted counts agree with scikit-learn and add up like the unweighted ones."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn import metrics

from fmacro.crossval import KFold, cross_validate
from fmacro.validation import BinFValidation, MultiFValidation, MultiLabelFValidation
from fmacro.validation.sklearn import f_macro_score, measure_scorer

# Integer-valued weights keep float sums exact, so the pooling tests can compare with ==.
weights_st = st.integers(0, 5)


@st.composite
def labelled(draw: st.DrawFn, n_classes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = draw(st.integers(1, 40))
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n)))
    p = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n)))
    w = np.array(draw(st.lists(st.floats(0, 10, allow_nan=False), min_size=n, max_size=n)))
    assume(w.sum() > 0)
    return y, p, w


@settings(max_examples=60, deadline=None)
@given(labelled(2))
def test_binary_agrees_with_sklearn(data: tuple) -> None:
    y, p, w = data
    v = BinFValidation.from_predictions(y, p, sample_weight=w)
    tn, fp, fn, tp = metrics.confusion_matrix(y, p, labels=[0, 1], sample_weight=w).ravel()
    assert (v.counts.tp, v.counts.fp, v.counts.fn, v.counts.tn) == pytest.approx((tp, fp, fn, tn))
    ps, rs, fs, _ = metrics.precision_recall_fscore_support(
        y, p, labels=[1], sample_weight=w, zero_division=0.0
    )
    assert v.precision == pytest.approx(ps[0])
    assert v.recall == pytest.approx(rs[0])
    assert v.f1 == pytest.approx(fs[0])


@settings(max_examples=60, deadline=None)
@given(labelled(4))
def test_multiclass_agrees_with_sklearn(data: tuple) -> None:
    y, p, w = data
    classes = [0, 1, 2, 3]
    v = MultiFValidation.from_predictions(y, p, classes, sample_weight=w)
    np.testing.assert_allclose(
        v.confusion.matrix, metrics.confusion_matrix(y, p, labels=classes, sample_weight=w)
    )
    assert v.confusion.weighted
    for average in ("micro", "macro", "weighted"):
        ps, rs, fs, _ = metrics.precision_recall_fscore_support(
            y, p, labels=classes, average=average, sample_weight=w, zero_division=0.0
        )
        assert getattr(v, f"{average}_precision") == pytest.approx(ps)
        assert getattr(v, f"{average}_recall") == pytest.approx(rs)
        assert getattr(v, f"{average}_f") == pytest.approx(fs)
    if w.sum() > 0:
        assert v.accuracy == pytest.approx(metrics.accuracy_score(y, p, sample_weight=w))


@st.composite
def indicator_pairs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = draw(st.integers(1, 25))
    n_labels = draw(st.integers(2, 5))  # scikit-learn reads one column as binary labels
    cells = st.lists(st.integers(0, 1), min_size=n * n_labels, max_size=n * n_labels)
    y = np.array(draw(cells)).reshape(n, n_labels)
    p = np.array(draw(cells)).reshape(n, n_labels)
    w = np.array(draw(st.lists(st.floats(0.01, 10), min_size=n, max_size=n)))
    return y, p, w


@settings(max_examples=60, deadline=None)
@given(indicator_pairs(), st.booleans())
def test_multilabel_agrees_with_sklearn(data: tuple, sparse: bool) -> None:
    y, p, w = data
    args = (sp.csr_matrix(y), sp.csr_matrix(p)) if sparse else (y, p)
    v = MultiLabelFValidation.from_predictions(*args, sample_weight=w)
    mcm = metrics.multilabel_confusion_matrix(y, p, sample_weight=w)
    c = v.class_counts
    np.testing.assert_allclose(c.tn, mcm[:, 0, 0], atol=1e-9)
    np.testing.assert_allclose(c.fp, mcm[:, 0, 1], atol=1e-9)
    np.testing.assert_allclose(c.fn, mcm[:, 1, 0], atol=1e-9)
    np.testing.assert_allclose(c.tp, mcm[:, 1, 1], atol=1e-9)
    for average in ("micro", "macro", "weighted"):
        _, _, fs, _ = metrics.precision_recall_fscore_support(
            y, p, average=average, sample_weight=w, zero_division=0.0
        )
        assert getattr(v, f"{average}_f") == pytest.approx(fs)
    assert v.subset_accuracy == pytest.approx(metrics.accuracy_score(y, p, sample_weight=w))
    assert v.hamming_loss == pytest.approx(metrics.hamming_loss(y, p, sample_weight=w))
    # samples-F: scikit-learn scores a row with no true and no predicted label 1/0 under
    # zero_division; compare where every row is defined
    defined = (y.sum(axis=1) + p.sum(axis=1)) > 0
    if defined.all():
        expected = metrics.f1_score(y, p, average="samples", sample_weight=w, zero_division=0.0)
        assert v.samples_f == pytest.approx(expected)


@settings(max_examples=40, deadline=None)
@given(labelled(3), st.lists(weights_st, min_size=40, max_size=40))
def test_integer_weights_equal_repeated_rows(data: tuple, counts: list[int]) -> None:
    y, p, _ = data
    w = np.array(counts[: y.size])
    assume(w.sum() > 0)
    weighted = MultiFValidation.from_predictions(y, p, [0, 1, 2], sample_weight=w)
    repeated = MultiFValidation.from_predictions(np.repeat(y, w), np.repeat(p, w), [0, 1, 2])
    np.testing.assert_array_equal(weighted.confusion.matrix, repeated.confusion.matrix)
    assert weighted.f_macro == pytest.approx(repeated.f_macro, nan_ok=True)


def test_unit_weights_give_the_unweighted_measures_as_floats() -> None:
    y = np.array([0, 1, 1, 0, 1])
    p = np.array([0, 1, 0, 1, 1])
    plain = BinFValidation.from_predictions(y, p)
    ones = BinFValidation.from_predictions(y, p, sample_weight=np.ones(5))
    assert (ones.counts.tp, ones.counts.fp) == (2.0, 1.0)
    assert isinstance(ones.counts.tp, float) and isinstance(plain.counts.tp, int)
    assert not plain.counts.weighted and ones.counts.weighted
    assert ones.f1 == plain.f1
    assert "weighted by sample_weight" in ones.report()
    assert ones.to_dict()["weighted"] is True and plain.to_dict()["weighted"] is False


def test_weighted_validations_pool_with_plus() -> None:
    y = np.array([0, 1, 2, 2, 1, 0])
    p = np.array([0, 2, 2, 1, 1, 0])
    w = np.array([1.5, 2.0, 0.5, 1.0, 3.0, 0.25])
    whole = MultiFValidation.from_predictions(y, p, [0, 1, 2], sample_weight=w)
    halves = [
        MultiFValidation.from_predictions(y[s], p[s], [0, 1, 2], sample_weight=w[s])
        for s in (slice(0, 3), slice(3, 6))
    ]
    assert sum(halves[1:], halves[0]) == whole
    # weighted + unweighted: weighted counts (floats)
    mixed = halves[0] + MultiFValidation.from_predictions(y[3:], p[3:], [0, 1, 2])
    assert mixed.confusion.weighted and mixed.confusion.n_samples == pytest.approx(7.0)
    Y = np.array([[1, 0], [0, 1], [1, 1]])
    P = np.array([[1, 0], [1, 1], [0, 1]])
    wl = np.array([1.0, 2.0, 0.5])
    ml = MultiLabelFValidation.from_predictions(Y, P, sample_weight=wl)
    ml_parts = MultiLabelFValidation.from_predictions(
        Y[:1], P[:1], sample_weight=wl[:1]
    ) + MultiLabelFValidation.from_predictions(Y[1:], P[1:], sample_weight=wl[1:])
    assert ml_parts == ml
    assert ml_parts.samples_f == pytest.approx(ml.samples_f)


def test_predict_running_constructors_take_weights() -> None:
    X = np.array([[0.9], [0.2], [0.7], [0.1]])
    y = np.array([1, 1, 0, 0])
    w = [3.0, 1.0, 1.0, 1.0]
    v = BinFValidation(y, X, lambda x: int(x[0] > 0.5), sample_weight=w)
    assert (v.counts.tp, v.counts.fp, v.counts.fn, v.counts.tn) == (3.0, 1.0, 1.0, 1.0)
    m = MultiFValidation(y, X, 2, lambda x: int(x[0] > 0.5), sample_weight=w)
    assert m.confusion.matrix.tolist() == [[1.0, 1.0], [1.0, 3.0]]
    ml = MultiLabelFValidation(
        np.c_[y, 1 - y], X, lambda x: [x[0] > 0.5, x[0] <= 0.5], sample_weight=w
    )
    assert ml.class_counts.tp.tolist() == [3.0, 1.0]


def test_jitted_predict_with_weights_runs_from_python() -> None:
    import numba

    @numba.njit
    def predict(x: np.ndarray) -> int:
        return 1 if x[0] > 0.5 else 0

    X = np.array([[0.9], [0.2], [0.7], [0.1]])
    y = np.array([1, 1, 0, 0])
    v = BinFValidation(y, X, predict, sample_weight=[3.0, 1.0, 1.0, 1.0])
    assert v.counts.tp == 3.0 and v.counts.fn == 1.0


@pytest.mark.parametrize(
    ("weights", "error", "pattern"),
    [
        ([1.0, 2.0], ValueError, "sample_weight has 2 entries, expected 3"),
        ([1.0, np.nan, 1.0], ValueError, "NaN or infinite"),
        ([1.0, -1.0, 1.0], ValueError, "non-negative"),
        (["a", "b", "c"], TypeError, "numbers"),
        ([True, False, True], TypeError, "numbers"),
        ([[1.0], [1.0], [1.0]], ValueError, "1-dimensional"),
        ([0.0, 0.0, 0.0], ValueError, "all zero"),
    ],
)
def test_bad_weights_are_refused(weights: list, error: type, pattern: str) -> None:
    with pytest.raises(error, match=pattern):
        MultiFValidation.from_predictions([0, 1, 1], [0, 1, 0], sample_weight=weights)


def test_caller_weights_are_not_changed() -> None:
    w = np.array([1, 2, 3])
    before = w.copy()
    MultiLabelFValidation.from_predictions(
        np.eye(3, dtype=int), np.eye(3, dtype=int), sample_weight=w
    )
    np.testing.assert_array_equal(w, before)


def test_scorers_route_weights_like_sklearn() -> None:
    y = np.array([0, 1, 2, 2, 1, 0, 1])
    p = np.array([0, 2, 2, 1, 1, 0, 0])
    w = np.array([1.0, 2.0, 0.5, 1.0, 3.0, 0.25, 2.0])
    macro_p = metrics.precision_score(y, p, average="macro", sample_weight=w)
    macro_r = metrics.recall_score(y, p, average="macro", sample_weight=w)
    assert f_macro_score(y, p, sample_weight=w) == pytest.approx(
        2 * macro_p * macro_r / (macro_p + macro_r)
    )

    from sklearn.base import BaseEstimator, ClassifierMixin

    class Fixed(ClassifierMixin, BaseEstimator):
        def fit(self, X: np.ndarray, y: np.ndarray) -> Fixed:
            self.classes_ = np.unique(y)
            return self

        def predict(self, X: np.ndarray) -> np.ndarray:
            return p

    scorer = measure_scorer("macro_f")
    assert scorer(Fixed().fit(None, y), np.zeros((7, 1)), y, sample_weight=w) == pytest.approx(
        metrics.f1_score(y, p, average="macro", sample_weight=w)
    )


def test_cross_validate_weights_each_fold() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 1))
    y = (X[:, 0] + rng.normal(scale=0.5, size=60) > 0).astype(int)
    w = rng.uniform(0.1, 3.0, size=60)

    def fit(X_train: np.ndarray, y_train: np.ndarray):  # type: ignore[no-untyped-def]
        return lambda X_val: (X_val[:, 0] > 0).astype(int)

    cv = cross_validate(fit, X, y, KFold(k=3, seed=1), sample_weight=w, progress=False)
    for fold, v in zip(cv.fold_indices, cv.validations, strict=True):
        idx = fold.validation
        expected = metrics.f1_score(y[idx], (X[idx, 0] > 0).astype(int), sample_weight=w[idx])
        assert v.score == pytest.approx(expected)
    assert cv.pooled.counts.n_samples == pytest.approx(w.sum())


# --------------------------------------------------------------------------- threshold search


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 6), st.integers(0, 1), weights_st), min_size=1, max_size=30)
)
def test_best_threshold_integer_weights_equal_repeated_objects(rows: list) -> None:
    from fmacro.optimize import best_threshold

    s = np.array([r[0] for r in rows], dtype=float)
    y = np.array([r[1] for r in rows])
    w = np.array([r[2] for r in rows])
    assume(w.sum() > 0)
    weighted = best_threshold(s, y, sample_weight=w)
    repeated = best_threshold(np.repeat(s, w), np.repeat(y, w))
    assert weighted.f == pytest.approx(repeated.f)
    # the curves agree on every threshold both have (objects of weight 0 add cuts)
    _, a, b = np.intersect1d(weighted.thresholds, repeated.thresholds, return_indices=True)
    np.testing.assert_allclose(weighted.tp[a], repeated.tp[b])
    np.testing.assert_allclose(weighted.fp[a], repeated.fp[b])
    assert weighted.support == pytest.approx(repeated.support)


def test_best_threshold_weighted_f_is_sklearns_at_that_threshold() -> None:
    from fmacro.optimize import best_threshold

    rng = np.random.default_rng(3)
    s = rng.normal(size=200)
    y = (s + rng.normal(size=200) > 0.5).astype(int)
    w = rng.uniform(0.0, 4.0, size=200)
    r = best_threshold(s, y, sample_weight=w)
    assert r.f == pytest.approx(metrics.f1_score(y, s >= r.threshold, sample_weight=w))
    # and no threshold does better (brute force over every distinct score)
    best = max(metrics.f1_score(y, s >= t, sample_weight=w) for t in np.unique(s))
    assert r.f == pytest.approx(best)


@st.composite
def weighted_rankings(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = draw(st.integers(2, 12))
    k = draw(st.integers(1, 4))
    s = np.array(draw(st.lists(st.integers(0, 4), min_size=n * k, max_size=n * k)), float)
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n * k, max_size=n * k)))
    w = np.array(draw(st.lists(st.integers(1, 3), min_size=n, max_size=n)))
    y = y.reshape(n, k)
    y[0] = 1  # every class has a positive
    return s.reshape(n, k), y, w


@settings(max_examples=40, deadline=None)
@given(weighted_rankings(), st.booleans())
def test_weighted_class_points_equal_repeated_rows(data: tuple, sparse: bool) -> None:
    from fmacro.optimize import class_points, exact, fixed_point, per_class, tune

    s, y, w = data
    args = (sp.csr_matrix(s), sp.csr_matrix(y)) if sparse else (s, y)
    weighted = class_points(*args, sample_weight=w)
    repeated = class_points(np.repeat(s, w, axis=0), np.repeat(y, w, axis=0))
    assert weighted.weighted and not repeated.weighted
    if not sparse:  # a sparse matrix leaves out zero scores, so its cuts differ
        np.testing.assert_array_equal(weighted.indptr, repeated.indptr)
        np.testing.assert_array_equal(weighted.tp, repeated.tp)
        np.testing.assert_array_equal(weighted.fp, repeated.fp)
        np.testing.assert_array_equal(weighted.threshold, repeated.threshold)
    np.testing.assert_array_equal(weighted.support, repeated.support)
    assert weighted.n_samples == repeated.n_samples
    for method in (fixed_point, per_class, tune, exact):
        a, b = method(points=weighted), method(points=repeated)
        assert a.f == pytest.approx(b.f), method.__name__


def test_weighted_fixed_point_scores_like_a_weighted_validation() -> None:
    from fmacro.optimize import class_points, exact, fixed_point

    rng = np.random.default_rng(7)
    S = rng.normal(size=(80, 4))
    Y = (S + rng.normal(size=(80, 4)) > 0.8).astype(int)
    w = rng.uniform(0.2, 3.0, size=80)
    points = class_points(S, Y, sample_weight=w)
    r = fixed_point(points=points)
    v = MultiLabelFValidation.from_predictions(Y, r.apply(S), sample_weight=w)
    assert r.f == pytest.approx(v.f_macro)
    assert r.f <= r.upper_bound + 1e-12
    best = exact(points=points)
    assert best.f >= r.f - 1e-12 and best.f == pytest.approx(best.upper_bound)
