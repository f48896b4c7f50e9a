"""Class points without dominated cuts, streamed a column block at a time (issue 12, item 6).

Every method that builds its points with ``dominated="drop"`` must return exactly what it
returns on the full points (same thresholds, cut numbers, F and bound); the pruned points
must be exactly the non-dominated cuts; the caller's arrays stay untouched; and the traced
peak of the points stage and of ``fixed_point`` stays below twice the input's size.
"""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fmacro.optimize import cuts_for_thresholds, smooth_points
from fmacro.optimize.baselines import cyclic, global_threshold, per_class
from fmacro.optimize.search.domain import domain
from fmacro.optimize.search.exact import exact
from fmacro.optimize.search.fixed_point import fixed_point
from fmacro.optimize.search.points import (
    ClassPoints,
    class_points,
    dominated_mask,
    drop_dominated,
)
from fmacro.optimize.search.result import ThresholdResult

ZERO_DIVISIONS = (0.0, 1.0, math.nan)


def _same_float(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def assert_same_result(got: ThresholdResult, want: ThresholdResult) -> None:
    np.testing.assert_array_equal(got.thresholds, want.thresholds)
    np.testing.assert_array_equal(got.cuts, want.cuts)
    for name in ("f", "precision", "recall", "upper_bound", "gap"):
        assert _same_float(getattr(got, name), getattr(want, name)), name


def brute_non_dominated(full: ClassPoints) -> list[list[int]]:
    """Per class, the cut numbers ``dominated="drop"`` must keep, by the definition."""
    kept = []
    for j in range(full.n_classes):
        tp = full.tp[full.class_slice(j)].tolist()
        keep = [0]
        for c in range(1, len(tp)):
            first_usable = c == 1 and math.isnan(full.zero_division)
            if tp[c] > tp[c - 1] or first_usable:
                keep.append(c)
        kept.append(keep)
    return kept


def assert_exact_subset(pruned: ClassPoints, full: ClassPoints) -> None:
    assert pruned.pruned and not full.pruned
    np.testing.assert_array_equal(pruned.class_index, full.class_index)
    np.testing.assert_array_equal(pruned.support, full.support)
    assert pruned.n_samples == full.n_samples and pruned.n_columns == full.n_columns
    assert _same_float(pruned.zero_division, full.zero_division)
    assert pruned.full_cut is not None
    for j, keep in enumerate(brute_non_dominated(full)):
        numbers = pruned.full_cut[pruned.class_slice(j)]
        assert numbers.tolist() == keep
        at = full.indptr[j] + numbers
        sl = pruned.class_slice(j)
        np.testing.assert_array_equal(pruned.tp[sl], full.tp[at])
        np.testing.assert_array_equal(pruned.fp[sl], full.fp[at])
        np.testing.assert_array_equal(pruned.threshold[sl], full.threshold[at])


def check_all_methods(scores, labels, zd: float, empty: str, *, sparse_scores: bool) -> None:
    """Every method given scores equals the same method on the full points."""
    before = (np.array(scores.toarray() if sparse_scores else scores, copy=True),)
    before += (np.array(labels.toarray() if sp.issparse(labels) else labels, copy=True),)
    full = class_points(scores, labels, zero_division=zd, empty_classes=empty)
    pruned = class_points(scores, labels, zero_division=zd, empty_classes=empty, dominated="drop")
    assert_exact_subset(pruned, full)
    assert_exact_subset(drop_dominated(full), full)
    kw = {"zero_division": zd, "empty_classes": empty}
    for beta in (0.5, 1.0):
        assert_same_result(
            fixed_point(scores, labels, beta=beta, **kw),
            fixed_point(points=full, beta=beta),
        )
        assert_same_result(
            fixed_point(scores, labels, beta=beta, polish=True, **kw),
            fixed_point(points=full, beta=beta, polish=True),
        )
        for n_angles in (5, None):
            assert_same_result(
                domain(scores, labels, beta=beta, n_angles=n_angles, **kw),
                domain(points=full, beta=beta, n_angles=n_angles),
            )
        per = per_class(scores, labels, beta=beta, **kw)
        assert_same_result(per, per_class(points=full, beta=beta))
        assert_same_result(per_class(points=pruned, beta=beta), per)
        assert_same_result(cyclic(scores, labels, beta=beta, **kw), cyclic(points=full, beta=beta))
        assert_same_result(exact(scores, labels, beta=beta, **kw), exact(points=full, beta=beta))
    # the caller's arrays are untouched
    np.testing.assert_array_equal(scores.toarray() if sparse_scores else scores, before[0])
    np.testing.assert_array_equal(labels.toarray() if sp.issparse(labels) else labels, before[1])


@st.composite
def instances(draw: st.DrawFn) -> tuple:
    n_obj = draw(st.integers(3, 12))
    n_cls = draw(st.integers(1, 5))
    values = draw(hnp.arrays(np.int64, (n_obj, n_cls), elements=st.integers(0, 3)))
    labels = draw(hnp.arrays(np.bool_, (n_obj, n_cls)))
    zd = draw(st.sampled_from(ZERO_DIVISIONS))
    empty = draw(st.sampled_from(["exclude", "include"] if not math.isnan(zd) else ["exclude"]))
    if not labels.any():
        labels[draw(st.integers(0, n_obj - 1)), draw(st.integers(0, n_cls - 1))] = True
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    order = draw(st.sampled_from(["C", "F"]))
    scores = np.array(values / 4.0, dtype=dtype, order=order)
    label_kind = draw(st.sampled_from(["bool", "int", "sparse"]))
    if label_kind == "int":
        labels = labels.astype(np.int64)
    elif label_kind == "sparse":
        labels = sp.csr_matrix(labels)
    return scores, labels, zd, empty


@settings(max_examples=60, deadline=None)
@given(instances())
def test_methods_from_scores_equal_the_full_points(inst: tuple) -> None:
    scores, labels, zd, empty = inst
    check_all_methods(scores, labels, zd, empty, sparse_scores=False)


@settings(max_examples=40, deadline=None)
@given(instances(), st.floats(0.2, 1.0))
def test_sparse_scores_equal_the_full_points(inst: tuple, keep_share: float) -> None:
    scores, labels, zd, empty = inst
    rng = np.random.default_rng(int(scores.sum() * 1000) + scores.size)
    retrieved = rng.random(scores.shape) < keep_share
    # shift scores above 0 so that every retrieved entry is stored
    s = sp.csr_matrix(np.where(retrieved, scores.astype(np.float64) + 1.0, 0.0))
    check_all_methods(s, labels, zd, empty, sparse_scores=True)


@pytest.mark.parametrize("seed", range(6))
def test_seeded_instances_with_many_ties(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n_obj, n_cls = 60, 9
    scores = rng.integers(0, 6, (n_obj, n_cls)) / 5.0
    labels = rng.random((n_obj, n_cls)) < rng.uniform(0.02, 0.5, n_cls)
    labels[:, 0] = False  # an empty class
    for zd in ZERO_DIVISIONS:
        for empty in ("exclude", "include"):
            if math.isnan(zd) and empty == "include":
                continue
            for dtype, order in ((np.float32, "C"), (np.float64, "F")):
                s = np.array(scores, dtype=dtype, order=order)
                check_all_methods(s, labels, zd, empty, sparse_scores=False)


def test_integer_scores_stream_and_stay_checked() -> None:
    rng = np.random.default_rng(3)
    scores = rng.integers(-5, 5, (40, 4))
    labels = rng.random((40, 4)) < 0.3
    pruned = class_points(scores, labels, dominated="drop")
    assert_exact_subset(pruned, class_points(scores.astype(np.float64), labels))
    big = scores.copy()
    big[0, 1] = 2**53 + 1
    with pytest.raises(ValueError, match="float64 cannot represent exactly"):
        class_points(big, labels, dominated="drop")
    with pytest.raises(ValueError, match="float64 cannot represent exactly"):
        class_points(big, labels, sample_weight=np.ones(40))


def test_weighted_points_check_large_integers_and_prune() -> None:
    rng = np.random.default_rng(5)
    scores = rng.integers(0, 4, (30, 3))
    labels = rng.random((30, 3)) < 0.4
    labels[0] = True
    weights = rng.integers(0, 3, 30).astype(float)
    full = class_points(scores, labels, sample_weight=weights, zero_division=math.nan)
    pruned = class_points(
        scores, labels, sample_weight=weights, zero_division=math.nan, dominated="drop"
    )
    assert_exact_subset(pruned, full)
    np.testing.assert_allclose(
        full.support, [weights[labels[:, k]].sum() for k in range(3)], rtol=0, atol=0
    )
    assert_same_result(fixed_point(points=pruned), fixed_point(points=full))


@pytest.mark.parametrize("where", ["kept", "empty"])
def test_non_finite_scores_refused_in_every_column(where: str) -> None:
    scores = np.linspace(0, 1, 40, dtype=np.float32).reshape(10, 4)
    labels = np.zeros((10, 4), dtype=bool)
    labels[0, :3] = True
    scores[2, 1 if where == "kept" else 3] = np.nan
    for dominated in ("keep", "drop"):
        with pytest.raises(ValueError, match="NaN or infinite"):
            class_points(scores, labels, dominated=dominated)


def test_cut_numbers_are_never_read_from_the_wrong_points() -> None:
    rng = np.random.default_rng(11)
    scores = rng.integers(0, 8, (80, 5)) / 7.0
    labels = rng.random((80, 5)) < 0.2
    labels[0] = True
    full = class_points(scores, labels)
    pruned = class_points(scores, labels, dominated="drop")
    res = fixed_point(scores, labels)  # searched on pruned points
    # its cut numbers index the full ranking: any points of the data read the same cuts
    np.testing.assert_array_equal(full.local_cuts(res.cuts), res.cuts)
    at = pruned.indptr[:-1] + pruned.local_cuts(res.cuts)
    np.testing.assert_array_equal(pruned.threshold[at], full.threshold[full.indptr[:-1] + res.cuts])
    pd = pytest.importorskip("pandas")
    pd.testing.assert_frame_equal(res.to_pandas(full), res.to_pandas(pruned))
    assert_same_result(cyclic(points=full, start=res), cyclic(points=pruned, start=res))
    # a cut the pruned points left out is refused, never read as another cut
    dominated = dominated_mask(full)
    local = np.zeros(full.n_classes, dtype=np.int64)
    for j in range(full.n_classes):
        hits = np.flatnonzero(dominated[full.class_slice(j)])
        local[j] = hits[0] if hits.size else 0
    assert local.any(), "the instance should have a dominated cut"
    on_dominated = ThresholdResult.from_cuts(full, local, beta=1.0, method="manual")
    np.testing.assert_array_equal(on_dominated.cuts, local)
    with pytest.raises(ValueError, match="dominated='drop'"):
        on_dominated.to_pandas(pruned)
    with pytest.raises(ValueError, match="dominated='drop'"):
        cyclic(points=pruned, start=on_dominated)
    with pytest.raises(ValueError, match="dominated='drop'"):
        pruned.local_cuts(local)
    # from scores with an explicit start every cut is kept: same as on the full points
    assert_same_result(
        cyclic(scores, labels, start=on_dominated), cyclic(points=full, start=on_dominated)
    )
    # methods that need every cut refuse pruned points
    for call in (
        lambda: global_threshold(points=pruned),
        lambda: cuts_for_thresholds(pruned, res.thresholds),
        lambda: smooth_points(pruned),
    ):
        with pytest.raises(ValueError, match="dominated='drop'"):
            call()
    with pytest.raises(ValueError, match="dominated must be"):
        class_points(scores, labels, dominated="prune")


def _traced_peak(fn, *args, **kwargs) -> int:
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        fn(*args, **kwargs)
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(
    ("dtype", "order"), [(np.float64, "C"), (np.float32, "C"), (np.float64, "F")]
)
def test_traced_peak_below_twice_the_input(dtype: type, order: str) -> None:
    rng = np.random.default_rng(0)
    n_obj, n_cls = 4000, 300
    scores = np.array(rng.random((n_obj, n_cls)), dtype=dtype, order=order)
    rates = np.minimum(0.2, 0.5 / np.arange(1, n_cls + 1) ** 0.8)  # power-law class sizes
    labels = rng.random((n_obj, n_cls)) < rates
    small = (scores[:50, :5], labels[:50, :5])
    fixed_point(*small)  # compile outside the traced call
    domain(*small)
    input_bytes = scores.nbytes
    for name, fn, kwargs in (
        ("class_points", class_points, {"dominated": "drop"}),
        ("fixed_point", fixed_point, {}),
        ("domain", domain, {}),
        ("per_class", per_class, {}),
    ):
        peak = _traced_peak(fn, scores, labels, **kwargs)
        assert peak < 2 * input_bytes, f"{name}: peak {peak / input_bytes:.2f}x the input"
