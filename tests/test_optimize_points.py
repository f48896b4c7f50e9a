"""Tests for fmacro.optimize.search.points (per-class PR points) and optimize.result."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fmacro.optimize.search.points import ClassPoints, class_points
from fmacro.optimize.search.result import ThresholdResult, evaluate_cuts


def naive_cuts(s: np.ndarray, y: np.ndarray) -> tuple[list[int], list[int], list[float]]:
    """Cuts of one class by definition: empty cut, then one per distinct score."""
    tp, fp, thr = [0], [0], [math.inf]
    for v in sorted(set(s.tolist()), reverse=True):
        sel = s >= v
        tp.append(int(y[sel].sum()))
        fp.append(int((1 - y[sel]).sum()))
        thr.append(v)
    return tp, fp, thr


instances = st.integers(3, 9).flatmap(
    lambda n_obj: st.integers(1, 5).flatmap(
        lambda n_cls: st.tuples(
            hnp.arrays(np.int64, (n_obj, n_cls), elements=st.integers(0, 4)),
            hnp.arrays(np.int64, (n_obj, n_cls), elements=st.integers(0, 1)),
        )
    )
)


@settings(max_examples=60, deadline=None)
@given(instances)
def test_dense_points_match_definition(inst: tuple[np.ndarray, np.ndarray]) -> None:
    s, y = inst
    s = s.astype(float)
    if y.sum(axis=0).max() == 0:
        with pytest.raises(ValueError, match="no class with a positive"):
            class_points(s, y)
        return
    pts = class_points(s, y)
    kept = np.flatnonzero(y.sum(axis=0) > 0)
    np.testing.assert_array_equal(pts.class_index, kept)
    np.testing.assert_array_equal(pts.support, y.sum(axis=0)[kept])
    for j, k in enumerate(kept):
        tp, fp, thr = naive_cuts(s[:, k], y[:, k])
        sl = pts.class_slice(j)
        assert pts.tp[sl].tolist() == tp
        assert pts.fp[sl].tolist() == fp
        assert pts.threshold[sl].tolist() == thr
        # the last cut takes every object
        assert tp[-1] + fp[-1] == s.shape[0]
    # the same from sparse labels, and from CSR scores holding every entry
    pts2 = class_points(s, sp.csr_matrix(y))
    np.testing.assert_array_equal(pts2.tp, pts.tp)
    full = sp.csr_matrix(s + 1.0)  # no stored zeros, every entry retrieved
    pts3 = class_points(full, y)
    np.testing.assert_array_equal(pts3.tp, pts.tp)
    np.testing.assert_array_equal(pts3.fp, pts.fp)
    np.testing.assert_array_equal(
        pts3.threshold[np.isfinite(pts3.threshold)] - 1.0, pts.threshold[np.isfinite(pts.threshold)]
    )


def test_hand_example_precision_recall() -> None:
    # class 0: scores 3,2,2,1 with labels 1,1,0,0 -> ties at 2 grouped
    s = np.array([[3.0], [2.0], [2.0], [1.0]])
    y = np.array([[1], [1], [0], [0]])
    pts = class_points(s, y)
    assert pts.tp.tolist() == [0, 1, 2, 2]
    assert pts.fp.tolist() == [0, 0, 1, 2]
    assert pts.threshold.tolist() == [math.inf, 3.0, 2.0, 1.0]
    np.testing.assert_allclose(pts.precision, [0.0, 1.0, 2 / 3, 0.5])
    np.testing.assert_allclose(pts.recall, [0.0, 0.5, 1.0, 1.0])
    assert class_points(s, y, zero_division=1.0).precision[0] == 1.0
    assert math.isnan(class_points(s, y, zero_division=math.nan).precision[0])


def test_truncated_csr_uses_true_class_size() -> None:
    # 6 objects, one class; only 3 retrieved. Support: rows 0, 2, 5 (row 5 not retrieved).
    scores = sp.csr_matrix(
        (np.array([0.9, 0.5, 0.5]), (np.array([0, 2, 3]), np.array([0, 0, 0]))), shape=(6, 1)
    )
    labels = np.zeros((6, 1), dtype=int)
    labels[[0, 2, 5], 0] = 1
    pts = class_points(scores, labels)
    assert pts.support.tolist() == [3]
    assert pts.tp.tolist() == [0, 1, 2, 3]
    assert pts.fp.tolist() == [0, 0, 1, 3]
    assert pts.threshold.tolist() == [math.inf, 0.9, 0.5, -math.inf]
    np.testing.assert_allclose(pts.recall, [0, 1 / 3, 2 / 3, 1])
    # an explicit 0.0 score is a retrieved entry
    scores0 = sp.csr_matrix((np.array([0.0]), (np.array([1]), np.array([0]))), shape=(3, 1))
    pts0 = class_points(scores0, np.array([[0], [1], [0]]))
    assert pts0.tp.tolist() == [0, 1, 1] and pts0.threshold.tolist() == [math.inf, 0.0, -math.inf]


def test_empty_classes_excluded_or_included() -> None:
    s = np.array([[0.9, 0.1, 0.3], [0.2, 0.8, 0.4]])
    y = np.array([[1, 0, 0], [0, 0, 1]])
    pts = class_points(s, y)
    assert pts.class_index.tolist() == [0, 2] and pts.n_columns == 3
    thr = pts.thresholds_for([1, 1])
    assert thr[1] == math.inf  # excluded column never predicted
    inc = class_points(s, y, empty_classes="include")
    assert inc.class_index.tolist() == [0, 1, 2]
    sl = inc.class_slice(1)
    np.testing.assert_array_equal(inc.recall[sl], 0.0)
    inc1 = class_points(s, y, empty_classes="include", zero_division=1.0)
    np.testing.assert_array_equal(inc1.recall[inc1.class_slice(1)], 1.0)
    with pytest.raises(ValueError, match="empty_classes='include' needs"):
        class_points(s, y, empty_classes="include", zero_division=math.nan)
    with pytest.raises(ValueError, match="empty_classes must be"):
        class_points(s, y, empty_classes="drop")


def test_from_ranked_lists() -> None:
    pts = ClassPoints.from_ranked_lists([[1, 0, 1], [0, 1], []], [3, 1, 0], 5)
    assert pts.class_index.tolist() == [0, 1]
    assert pts.tp.tolist() == [0, 1, 1, 2, 3, 0, 0, 1, 1]
    assert pts.fp.tolist() == [0, 0, 1, 1, 2, 0, 1, 1, 4]
    assert pts.threshold.tolist() == [
        math.inf,
        0.0,
        -1.0,
        -2.0,
        -math.inf,
        math.inf,
        0.0,
        -1.0,
        -math.inf,
    ]
    full = ClassPoints.from_ranked_lists([[1, 0, 0]], [1], 3)
    assert full.tp.tolist() == [0, 1, 1, 1]  # no extra cut for a complete list
    with pytest.raises(ValueError, match="holds 2 positives"):
        ClassPoints.from_ranked_lists([[1, 1]], [1], 4)
    with pytest.raises(ValueError, match="more than n_samples=3"):
        ClassPoints.from_ranked_lists([[1, 0, 0, 0]], [1], 3)
    with pytest.raises(ValueError, match="negatives"):
        ClassPoints.from_ranked_lists([[0, 0, 0]], [2], 4)
    with pytest.raises(ValueError, match="only 0 and 1"):
        ClassPoints.from_ranked_lists([[2, 0]], [1], 4)


def test_arrays_read_only_and_inputs_untouched() -> None:
    s = np.array([[0.3, 0.2], [0.1, 0.9], [0.5, 0.5]])
    y = np.array([[1, 0], [0, 1], [1, 1]])
    s0, y0 = s.copy(), y.copy()
    pts = class_points(s, y)
    np.testing.assert_array_equal(s, s0)
    np.testing.assert_array_equal(y, y0)
    for arr in (
        pts.tp,
        pts.fp,
        pts.threshold,
        pts.indptr,
        pts.support,
        pts.precision,
        pts.recall,
        pts.class_index,
    ):
        assert not arr.flags.writeable
    res = ThresholdResult.from_cuts(pts, [1, 1], beta=1.0, method="x", diagnostics={"a": s})
    assert not res.thresholds.flags.writeable and not res.cuts.flags.writeable
    assert not res.diagnostics["a"].flags.writeable
    with pytest.raises(TypeError):
        res.diagnostics["b"] = 1  # type: ignore[index]


def test_result_apply_reproduces_training_counts() -> None:
    rng = np.random.default_rng(0)
    s = rng.integers(0, 5, size=(30, 4)).astype(float)
    y = (rng.random((30, 4)) < 0.4).astype(int)
    pts = class_points(s, y)
    cuts = np.array([min(2, c - 1) for c in pts.n_cuts])
    res = ThresholdResult.from_cuts(pts, cuts, beta=2.0, method="x")
    pred = res.apply(s)
    k = pts.class_index
    tp = (pred[:, k] & (y[:, k] == 1)).sum(axis=0)
    npred = pred[:, k].sum(axis=0)
    p = np.where(npred == 0, 0.0, tp / np.maximum(npred, 1))
    r = tp / y[:, k].sum(axis=0)
    assert res.precision == pytest.approx(p.mean())
    assert res.recall == pytest.approx(r.mean())
    assert (res.precision, res.recall, res.f) == pytest.approx(evaluate_cuts(pts, cuts, 2.0))
    # CSR in: same predictions when every entry is stored
    pred_sp = res.apply(sp.csr_matrix(s + 10.0))
    assert pred_sp.shape == pred.shape
    res_sp = ThresholdResult.from_cuts(
        class_points(sp.csr_matrix(s + 10.0), y), cuts, beta=2.0, method="x"
    )
    np.testing.assert_array_equal(res_sp.apply(sp.csr_matrix(s + 10.0)), pred)


def test_apply_sparse_missing_entries() -> None:
    scores = sp.csr_matrix(np.array([[0.9, 0.0], [0.0, 0.4], [0.2, 0.0]]))
    labels = np.array([[1, 0], [0, 1], [1, 1]])
    pts = class_points(scores, labels)
    # class 1: cuts empty, {row 1}, all objects (threshold -inf)
    assert pts.threshold[pts.class_slice(1)].tolist() == [math.inf, 0.4, -math.inf]
    res = ThresholdResult.from_cuts(pts, [1, 2], beta=1.0, method="x")
    pred = res.apply(scores)
    np.testing.assert_array_equal(pred, [[True, True], [False, True], [False, True]])


@pytest.mark.parametrize(
    ("scores", "labels", "exc", "match"),
    [
        (np.zeros((3, 2)), np.zeros((3, 3)), ValueError, "same shape"),
        (np.array([[np.nan, 1.0]]), np.array([[1, 0]]), ValueError, "NaN or infinite"),
        (np.array([[np.inf, 1.0]]), np.array([[1, 0]]), ValueError, "NaN or infinite"),
        (np.array([[0.5, 1.0]]), np.array([[2, 0]]), ValueError, "only 0 and 1"),
        (np.zeros((0, 2)), np.zeros((0, 2)), ValueError, "empty"),
        (np.zeros(3), np.zeros(3), ValueError, "2-dimensional"),
        (np.array([[0.5]]), np.array([["a"]]), TypeError, "0/1 indicator"),
    ],
)
def test_bad_input(scores: object, labels: object, exc: type, match: str) -> None:
    with pytest.raises(exc, match=match):
        class_points(scores, labels)


def test_bad_sparse_input() -> None:
    s = sp.csr_matrix(np.array([[np.nan, 1.0]]))
    with pytest.raises(ValueError, match="NaN"):
        class_points(s, np.array([[1, 1]]))
    with pytest.raises(ValueError, match="only 0 and 1"):
        class_points(sp.csr_matrix(np.array([[1.0, 1.0]])), sp.csr_matrix(np.array([[3, 1]])))
    with pytest.raises(ValueError, match="zero_division"):
        class_points(np.ones((2, 2)), np.ones((2, 2)), zero_division=0.5)
