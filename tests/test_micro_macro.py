"""``micro_macro``: mix * micro-F + (1 - mix) * macro-F over per-class cuts (issue 30, item 4).

The oracle enumerates every cut combination in rational arithmetic (Fractions) on tiny
random instances: the search is never above the optimum, reaches it where it provably does
(mix 0 and 1, one class) and is never below the two ends it starts from.
"""

from __future__ import annotations

import itertools
import math
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fmacro.optimize import ClassPoints, class_points, micro_macro, per_class
from fmacro.optimize.baselines.micro_macro import check_mix, micro_macro_checked
from fmacro.optimize.search.brute_force import _exact_point
from fmacro.validation import MultiLabelFValidation
from fmacro.validation.dispatch import forced

TOL = 1e-12


def _exact_point_f(tp: float, fp: float, m: float, zd: float, b2: Fraction) -> Fraction | None:
    """A class's F_beta at one cut, exactly; None where undefined (the empty cut under nan)."""
    point = _exact_point(tp, fp, m, zd)
    if point is None:
        return None
    p, r = point
    den = b2 * p + r
    return Fraction(0) if den == 0 else (1 + b2) * p * r / den


def exact_objective(
    points: ClassPoints, cuts: tuple[int, ...] | np.ndarray, mix: Fraction, beta: Fraction
) -> Fraction | None:
    """J of local ``cuts`` in rational arithmetic (None when a chosen cut is undefined)."""
    b2 = beta * beta
    zd = points.zero_division
    g = points.indptr[:-1] + np.asarray(cuts, dtype=np.int64)
    fs = [
        _exact_point_f(tp, fp, m, zd, b2)
        for tp, fp, m in zip(
            points.tp[g].tolist(), points.fp[g].tolist(), points.support.tolist(), strict=True
        )
    ]
    if any(f is None for f in fs):
        return None
    big_tp = sum((Fraction(x) for x in points.tp[g].tolist()), Fraction(0))
    big_fp = sum((Fraction(x) for x in points.fp[g].tolist()), Fraction(0))
    big_m = sum((Fraction(x) for x in points.support.tolist()), Fraction(0))
    den = (1 + b2) * big_tp + b2 * (big_m - big_tp) + big_fp
    if den == 0:
        if math.isnan(zd):
            return None
        micro = Fraction(int(zd))
    else:
        micro = (1 + b2) * big_tp / den
    macro = sum((f for f in fs if f is not None), Fraction(0)) / len(fs)
    return mix * micro + (1 - mix) * macro


def exact_optimum(points: ClassPoints, mix: Fraction, beta: Fraction) -> Fraction:
    """The best J over every combination of cuts (brute force, Fractions)."""
    values = (
        exact_objective(points, combo, mix, beta)
        for combo in itertools.product(*(range(int(c)) for c in points.n_cuts))
    )
    return max(v for v in values if v is not None)


@st.composite
def tiny(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, float, float, str]:
    """2-3 classes (sometimes 1), at most 8 objects, ties, both empty-class policies."""
    n_obj = draw(st.integers(2, 8))
    n_cls = draw(st.integers(1, 3))
    scores = draw(hnp.arrays(np.int64, (n_obj, n_cls), elements=st.integers(0, 4)))
    labels = draw(hnp.arrays(np.bool_, (n_obj, n_cls), elements=st.booleans()))
    labels[draw(st.integers(0, n_obj - 1)), draw(st.integers(0, n_cls - 1))] = True
    beta = draw(st.sampled_from([0.5, 1.0, 2.0]))
    zd = draw(st.sampled_from([0.0, 1.0, math.nan]))
    empty = "exclude" if math.isnan(zd) else draw(st.sampled_from(["exclude", "include"]))
    return scores.astype(float), labels, beta, zd, empty


mixes = st.one_of(
    st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), st.floats(0.0, 1.0, allow_nan=False)
)


@settings(max_examples=300, deadline=None)
@given(tiny(), mixes)
def test_never_above_brute_force_and_optimal_where_proven(inst: tuple, mix: float) -> None:
    s, y, beta, zd, empty = inst
    pts = class_points(s, y, zero_division=zd, empty_classes=empty)
    res = micro_macro(points=pts, mix=mix, beta=beta)
    got = exact_objective(pts, pts.local_cuts(res.cuts), Fraction(mix), Fraction(beta))
    assert got is not None
    best = exact_optimum(pts, Fraction(mix), Fraction(beta))
    assert got <= best
    assert res.diagnostics["objective"] == pytest.approx(float(got), abs=TOL)
    bound = res.diagnostics["objective_bound"]
    assert float(best) <= bound + TOL
    if mix in (0.0, 1.0) or pts.n_classes == 1:
        assert float(got) == pytest.approx(float(best), abs=TOL)
    if mix in (0.0, 1.0):
        assert res.diagnostics["objective"] == bound
    # never below its two starts: the macro-F optimum and the micro-F optimum
    for end in (0.0, 1.0):
        other = micro_macro(points=pts, mix=end, beta=beta)
        there = exact_objective(pts, pts.local_cuts(other.cuts), Fraction(mix), Fraction(beta))
        assert there is not None
        assert float(got) >= float(there) - TOL


@settings(max_examples=150, deadline=None)
@given(tiny())
def test_mix_zero_is_per_class(inst: tuple) -> None:
    s, y, beta, zd, empty = inst
    kw = {"beta": beta, "zero_division": zd, "empty_classes": empty}
    res = micro_macro(s, y, mix=0.0, **kw)
    pts = class_points(s, y, zero_division=zd, empty_classes=empty)
    for ref in (per_class(s, y, **kw), per_class(points=pts, beta=beta)):
        np.testing.assert_array_equal(res.cuts, ref.cuts)
        np.testing.assert_array_equal(res.thresholds, ref.thresholds)
        assert res.diagnostics["macro_f"] == ref.diagnostics["macro_f"]
        assert res.f == ref.f


@settings(max_examples=100, deadline=None)
@given(tiny(), mixes)
def test_pruned_and_full_points_agree(inst: tuple, mix: float) -> None:
    s, y, beta, zd, empty = inst
    full = class_points(s, y, zero_division=zd, empty_classes=empty)
    pruned = class_points(s, y, zero_division=zd, empty_classes=empty, dominated="drop")
    a = micro_macro(points=full, mix=mix, beta=beta)
    b = micro_macro(points=pruned, mix=mix, beta=beta)
    np.testing.assert_array_equal(a.cuts, b.cuts)
    np.testing.assert_array_equal(a.thresholds, b.thresholds)
    assert a.diagnostics["objective"] == b.diagnostics["objective"]


@settings(max_examples=100, deadline=None)
@given(tiny(), mixes, st.data())
def test_integer_weights_are_repeated_rows(inst: tuple, mix: float, data: st.DataObject) -> None:
    s, y, beta, zd, empty = inst
    w = np.array(data.draw(st.lists(st.integers(0, 3), min_size=len(s), max_size=len(s))))
    if not (y[w > 0].any() if empty == "exclude" else w.any()):
        w[0] = 1
        y[0, 0] = True
    kw = {"mix": mix, "beta": beta, "zero_division": zd, "empty_classes": empty}
    weighted = micro_macro(s, y, sample_weight=w, **kw)
    repeated = micro_macro(np.repeat(s, w, axis=0), np.repeat(y, w, axis=0), **kw)
    np.testing.assert_array_equal(weighted.thresholds, repeated.thresholds)
    for key in ("micro_f", "macro_f", "objective"):
        assert weighted.diagnostics[key] == pytest.approx(repeated.diagnostics[key], abs=TOL)


def test_hand_computed_example() -> None:
    # class 0's labels by rank 0 1 1 0 0 1 (m = 3), class 1's 0 0 0 0 1 0 (m = 1)
    scores = np.array([[0.6, 0.9], [0.5, 0.7], [0.4, 0.6], [0.3, 0.4], [0.2, 0.3], [0.1, 0.2]])
    labels = np.array([[0, 0], [1, 0], [1, 0], [0, 0], [0, 1], [1, 0]])
    pts = class_points(scores, labels)
    # class 0: top 3 and all six both F1 = 2/3; class 1: top 5 F1 = 1/3, nothing F1 = 0
    # (3, 5): TP 3, FP 5, FN 1: micro 6/12; (6, 5): TP 4, FP 7, FN 0: micro 8/15;
    # (6, 0): TP 3, FP 3, FN 1: micro 6/10, macro 1/3
    cases = {
        0.0: ((3, 5), Fraction(1, 2), Fraction(1, 2)),
        0.5: ((6, 5), Fraction(8, 15), Fraction(1, 2)),
        1.0: ((6, 0), Fraction(3, 5), Fraction(1, 3)),
    }
    for mix, (cuts, micro, macro) in cases.items():
        res = micro_macro(scores, labels, mix=mix)
        assert tuple(res.cuts.tolist()) == cuts
        assert res.diagnostics["micro_f"] == pytest.approx(float(micro), abs=TOL)
        assert res.diagnostics["macro_f"] == pytest.approx(float(macro), abs=TOL)
        j = Fraction(mix) * micro + (1 - Fraction(mix)) * macro
        assert res.diagnostics["objective"] == pytest.approx(float(j), abs=TOL)
        assert exact_optimum(pts, Fraction(mix), Fraction(1)) == j
        assert res.method == "micro_macro"
        assert math.isnan(res.upper_bound) and math.isnan(res.gap)
    # the even mix from the macro-F optimum: one coordinate move of class 0 (3 -> 6)
    even = micro_macro(scores, labels, mix=0.5, start=[3, 5])
    assert even.cuts.tolist() == [6, 5]
    assert even.diagnostics["start_objective"] == pytest.approx(0.5, abs=TOL)


def test_diagnostics_are_the_validation_measures_of_the_predictions() -> None:
    rng = np.random.default_rng(3)
    y = rng.random((300, 6)) < np.linspace(0.03, 0.4, 6)
    s = rng.random((300, 6)) + 0.6 * y
    for mix in (0.0, 0.3, 0.5, 1.0):
        res = micro_macro(s, y, mix=mix)
        v = MultiLabelFValidation.from_predictions(y, res.apply(s))
        assert res.diagnostics["micro_f"] == pytest.approx(v.micro_f, abs=TOL)
        assert res.diagnostics["macro_f"] == pytest.approx(v.macro_f, abs=TOL)
        assert res.diagnostics["objective"] >= res.diagnostics["start_objective"] - TOL
        assert res.tuning is not None
    ends = [micro_macro(s, y, mix=m) for m in (0.0, 1.0)]
    mid = micro_macro(s, y, mix=0.5)
    # the answer is between the two ends on both measures' optimum sides
    assert mid.diagnostics["micro_f"] <= ends[1].diagnostics["micro_f"] + TOL
    assert mid.diagnostics["macro_f"] <= ends[0].diagnostics["macro_f"] + TOL


def test_checked_entry_is_the_public_one() -> None:
    rng = np.random.default_rng(4)
    y = rng.random((80, 4)) < 0.3
    s = rng.random((80, 4)) + 0.5 * y
    pts = class_points(s, y, dominated="drop")
    a = micro_macro(points=pts, mix=0.4, beta=2.0)
    b = micro_macro_checked(pts, 2.0, 0.4)
    np.testing.assert_array_equal(a.cuts, b.cuts)
    assert a.diagnostics["objective"] == b.diagnostics["objective"]
    start = pts.local_cuts(per_class(points=pts).cuts)
    c = micro_macro_checked(pts, 2.0, 0.4, start)
    assert c.diagnostics["objective"] >= c.diagnostics["start_objective"]
    assert start.tolist() == pts.local_cuts(per_class(points=pts).cuts).tolist()  # unchanged


def test_bad_input_is_refused_by_name() -> None:
    s = np.array([[0.9, 0.1], [0.2, 0.8], [0.5, 0.5]])
    y = np.array([[1, 0], [0, 1], [1, 1]])
    for bad in (-0.1, 1.5, math.nan, math.inf):
        with pytest.raises(ValueError, match="mix"):
            micro_macro(s, y, mix=bad)
    for bad_type in (True, "0.5", None):
        with pytest.raises(TypeError, match="mix"):
            micro_macro(s, y, mix=bad_type)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="mix"):
        check_mix(2)
    with pytest.raises(ValueError, match="beta"):
        micro_macro(s, y, beta=0.0)
    with pytest.raises(ValueError, match="start"):
        micro_macro(s, y, zero_division=math.nan, start=[0, 1])
    with pytest.raises(ValueError, match="cuts"):
        micro_macro(s, y, start=[1, 1, 1])
    pts = class_points(s, y)
    with pytest.raises(ValueError, match="sample_weight"):
        micro_macro(points=pts, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="not both"):
        micro_macro(s, y, points=pts)
    with pytest.raises(ValueError, match="zero_division"):
        micro_macro(points=pts, zero_division=1.0)


def test_caller_arrays_are_unchanged() -> None:
    rng = np.random.default_rng(5)
    y = (rng.random((40, 3)) < 0.4).astype(np.int64)
    s = rng.random((40, 3)) + 0.4 * y
    w = rng.integers(1, 3, 40).astype(float)
    start = np.array([1, 1, 1])
    read_only = s.copy()
    read_only.flags.writeable = False
    arrays = (y, s, w, start, read_only)
    before = [(a.copy(), a.flags.writeable) for a in arrays]
    micro_macro(s, y, sample_weight=w, start=start)
    micro_macro(read_only, y, mix=0.7)
    for a, (copy, writeable) in zip(arrays, before, strict=True):
        np.testing.assert_array_equal(a, copy)
        assert a.flags.writeable == writeable


def test_frames_name_the_result_and_start_from_a_result() -> None:
    rng = np.random.default_rng(6)
    y = rng.random((50, 3)) < 0.3
    s = rng.random((50, 3)) + 0.5 * y
    names = ["a", "b", "c"]
    res = micro_macro(pd.DataFrame(s, columns=names), pd.DataFrame(y, columns=names))
    assert res.classes == tuple(names)
    again = micro_macro(s, y, start=res)
    np.testing.assert_array_equal(again.cuts, res.cuts)  # already at a coordinate-wise maximum


def test_docs_table_is_the_recorded_benchmark() -> None:
    # docs/f-macro.md quotes rows of benchmarks/results_micro_macro.md (columns 1-5 and 7)
    root = Path(__file__).resolve().parents[1]
    results = (root / "benchmarks" / "results_micro_macro.md").read_text(encoding="utf-8")
    doc = (root / "docs" / "f-macro.md").read_text(encoding="utf-8")
    section = doc.split("## Micro-F and macro-F together", 1)[1].split("\n## ", 1)[0]

    def cells(line: str) -> list[str]:
        return [c.strip() for c in line.strip().strip("|").split("|")]

    recorded = {
        tuple(c[:2]): c
        for line in results.splitlines()
        if line.startswith("| ")
        for c in [cells(line)]
    }
    quoted = [cells(line) for line in section.splitlines() if line.startswith("| ")][1:]
    assert len(quoted) == 9
    for row in quoted:
        full = recorded[tuple(row[:2])]
        assert row == [*full[:5], full[6]]
    medical = {row[1]: row for row in quoted if row[0] == "medical"}
    pc, quarter = medical["`per_class`"], medical["`micro_macro(mix=0.25)`"]
    flat = " ".join(section.split())
    per_object, true_mean = pc[5].rstrip(")").split(" (")
    assert f"{per_object} labels per test object (true {true_mean})" in flat
    assert f"micro-F1 from {pc[2]} to {quarter[2]}" in flat
    assert f"for {float(pc[3]) - float(quarter[3]):.3f} of macro-F1" in flat
    # the medical note of the results file: training rows, labels with one positive
    note = re.search(
        r"medical: (\d+) training rows, (\d+) labels with one training positive, (\d+) "
        r"labels whose `per_class` cut predicts every training row",
        " ".join(results.split()),
    )
    assert note is not None
    rows, single, every = (int(x) for x in note.groups())
    assert single == every
    assert (
        f"split has {rows} rows, and {single} of its labels one positive each" in flat
        and f"(F1 = 2/{rows + 1} beats 0)" in flat
    )


@settings(max_examples=25, deadline=None)
@given(tiny(), mixes)
def test_compiled_and_interpreted_kernels_agree(inst: tuple, mix: float) -> None:
    s, y, beta, zd, empty = inst
    kw = {"mix": mix, "beta": beta, "zero_division": zd, "empty_classes": empty}
    with forced("compiled"):
        compiled = micro_macro(s, y, **kw)
    with forced("interpreted"):
        interpreted = micro_macro(s, y, **kw)
    np.testing.assert_array_equal(compiled.cuts, interpreted.cuts)
    for key in ("micro_f", "macro_f", "objective", "objective_bound", "n_passes", "n_steps"):
        assert compiled.diagnostics[key] == interpreted.diagnostics[key], key


def test_sparse_scores_give_the_dense_answer() -> None:
    sparse = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(7)
    y = rng.random((60, 5)) < 0.25
    s = rng.random((60, 5)) + 0.5 * y + 0.01  # every entry stored
    for mix in (0.0, 0.5, 1.0):
        dense = micro_macro(s, y, mix=mix)
        csr = micro_macro(sparse.csr_matrix(s), sparse.csr_matrix(y), mix=mix)
        np.testing.assert_array_equal(dense.cuts, csr.cuts)
        np.testing.assert_array_equal(dense.thresholds, csr.thresholds)
