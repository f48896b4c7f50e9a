"""DataFrames out as well as in (issue 28 item 4) and labels per object (issue 30 item 1).

``result.apply(df)`` gives a DataFrame with the scores' index and columns; a result carries
its thresholds' counts on the tuning rows (``ThresholdResult.tuning``), tabled by
``to_pandas`` and kept in its JSON record; ``MacroEvaluation`` has ``to_pandas`` and
``to_dict``; both report the mean number of labels per object. Every value is checked
against predictions counted directly on the tuning rows.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from fmacro import optimize
from fmacro.optimize import ThresholdResult, evaluate_thresholds
from fmacro.optimize.search.result import TuningCounts

RNG = np.random.default_rng(2830)
N, M = 90, 6
LABELS = (RNG.random((N, M)) < 0.3).astype(np.uint8)
LABELS[0, :4] = 1
LABELS[:, 4:] = 0  # two classes without tuning positives
SCORES = np.round(LABELS * 0.35 + RNG.random((N, M)), 2)  # ties
WEIGHTS = RNG.uniform(0.1, 3.0, N)
NAMES = ["cat", 7, "dog", 2.5, "eel", True]  # names keep their kind
ROWS = [f"img{i:03d}" for i in range(N)]
S_FRAME = pd.DataFrame(SCORES, index=ROWS, columns=NAMES)
Y_FRAME = pd.DataFrame(LABELS, index=ROWS, columns=NAMES)
# tune's rule for classes without tuning positives gives them finite thresholds here
FINITE_UNSEEN = {"base_rates": np.full(M, 1.0), "n_eval": 1, "zero_division": 1.0}

METHODS: dict[str, Callable[..., ThresholdResult]] = {
    "tune": lambda s, y: optimize.tune(s, y),
    "tune_exact": lambda s, y: optimize.tune(s, y, method="exact"),
    "tune_unseen_finite": lambda s, y: optimize.tune(s, y, **FINITE_UNSEEN),
    "tune_unseen_finite_exact": lambda s, y: optimize.tune(s, y, method="exact", **FINITE_UNSEEN),
    "fixed_point": lambda s, y: optimize.fixed_point(s, y),
    "per_class": lambda s, y: optimize.per_class(s, y),
    "global_threshold": lambda s, y: optimize.global_threshold(s, y),
    "exact": lambda s, y: optimize.exact(s, y),
    "cyclic": lambda s, y: optimize.cyclic(s, y),
}
WEIGHTED: dict[str, Callable[[optimize.ClassPoints], ThresholdResult]] = {
    "tune": lambda p: optimize.tune(points=p),
    "fixed_point": lambda p: optimize.fixed_point(points=p),
    "per_class": lambda p: optimize.per_class(points=p),
    "global_threshold": lambda p: optimize.global_threshold(points=p),
}


def _direct(
    result: ThresholdResult, scores: Any, labels: Any, weights: Any = None
) -> dict[str, np.ndarray]:
    """Counts of the result's predictions on the tuning rows, computed here."""
    predicted = np.asarray(result.apply(scores), dtype=bool)
    truth = np.asarray(labels) == 1
    w = np.ones(predicted.shape[0]) if weights is None else np.asarray(weights)
    return {
        "support": (w[:, None] * truth).sum(axis=0),
        "tp": (w[:, None] * (predicted & truth)).sum(axis=0),
        "predicted": (w[:, None] * predicted).sum(axis=0),
        "n_samples": np.float64(w.sum()),
        "labels_per_object": np.float64(predicted.sum(axis=1).mean()),
    }


def _check_table(result: ThresholdResult, want: dict[str, np.ndarray], weighted: bool) -> None:
    table = result.to_pandas()
    close: Callable[..., None] = np.testing.assert_allclose
    for name in ("support", "tp", "predicted"):
        assert str(table[name].dtype) == ("Float64" if weighted else "Int64"), name
        values = table[name].to_numpy(dtype=np.float64)
        if weighted:
            close(values, want[name], rtol=1e-12, err_msg=name)
        else:
            np.testing.assert_array_equal(values, want[name], err_msg=name)
    tp, predicted, support = want["tp"], want["predicted"], want["support"]
    zd = result.zero_division
    fp = predicted - tp
    close(table["fp"].to_numpy(dtype=np.float64), fp, rtol=1e-12, atol=1e-12)
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(predicted == 0, zd, tp / predicted)
        recall = np.where(support == 0, zd, tp / support)
        b2 = result.beta**2
        den = (1 + b2) * tp + b2 * (support - tp) + fp
        f = np.where(den == 0, zd, (1 + b2) * tp / den)
    close(table["precision"], precision, rtol=1e-12)
    close(table["recall"], recall, rtol=1e-12)
    close(table["f"], f, rtol=1e-12)
    close(table["predicted_rate"], predicted / want["n_samples"], rtol=1e-12)
    np.testing.assert_array_equal(table["threshold"], result.thresholds)
    kept = table["kept"].to_numpy(dtype=bool)
    np.testing.assert_array_equal(kept, support > 0)
    np.testing.assert_array_equal(table["cut"].to_numpy(dtype=np.float64)[kept], result.cuts)
    assert table["cut"][~kept].isna().all()
    expected_index = list(result.classes) if result.classes is not None else list(range(M))
    assert list(table.index) == expected_index


# --------------------------------------------------------------------------- apply


def test_apply_returns_a_frame_for_a_frame_and_arrays_for_arrays() -> None:
    named = optimize.fixed_point(S_FRAME, Y_FRAME)
    assert named.classes == tuple(NAMES)
    out = named.apply(S_FRAME)
    assert isinstance(out, pd.DataFrame)
    assert list(out.index) == ROWS and list(out.columns) == NAMES
    assert [type(c) for c in out.columns] == [type(c) for c in NAMES]
    assert all(dtype == np.bool_ for dtype in out.dtypes)
    np.testing.assert_array_equal(out.to_numpy(), np.greater_equal(SCORES, named.thresholds))
    # a subset of rows keeps its own index; the same thresholds by position on arrays
    part = S_FRAME.iloc[[5, 2, 9]]
    assert list(named.apply(part).index) == ["img005", "img002", "img009"]
    plain = optimize.fixed_point(SCORES, LABELS)
    array_out = plain.apply(SCORES)
    assert type(array_out) is np.ndarray and array_out.dtype == bool
    np.testing.assert_array_equal(array_out, out.to_numpy())
    # a frame for a result without names: columns taken by position, frame back
    assert list(plain.apply(S_FRAME).columns) == NAMES
    # sparse scores give a dense bool array, as before
    sparse_out = plain.apply(sp.csr_matrix(SCORES))
    assert type(sparse_out) is np.ndarray
    np.testing.assert_array_equal(sparse_out, array_out)
    # the rules themselves, and top_k
    pd.testing.assert_frame_equal(named.rule.apply(S_FRAME), out)
    top = optimize.top_k(S_FRAME, Y_FRAME)
    top_out = top.apply(S_FRAME)
    assert isinstance(top_out, pd.DataFrame) and list(top_out.index) == ROWS
    np.testing.assert_array_equal(top_out.to_numpy(), top.apply(SCORES))
    assert isinstance(top.apply(SCORES), np.ndarray)


def test_apply_still_refuses_a_frame_of_other_columns() -> None:
    named = optimize.fixed_point(S_FRAME, Y_FRAME)
    with pytest.raises(ValueError, match="another order"):
        named.apply(S_FRAME[NAMES[::-1]])


# --------------------------------------------------------------------------- per-class table


@pytest.mark.parametrize("frames", [False, True], ids=["arrays", "frames"])
@pytest.mark.parametrize("method", sorted(METHODS))
def test_to_pandas_matches_predictions_on_the_tuning_rows(method: str, frames: bool) -> None:
    s, y = (S_FRAME, Y_FRAME) if frames else (SCORES, LABELS)
    result = METHODS[method](s, y)
    assert result.tuning is not None
    assert (result.classes is not None) == frames
    want = _direct(result, SCORES, LABELS)
    _check_table(result, want, weighted=False)
    assert result.labels_per_object == want["labels_per_object"]
    assert result.labels_per_object == result.apply(SCORES).sum(axis=1).mean()
    assert result.true_labels_per_object == LABELS.sum(axis=1).mean()
    if method.startswith("tune_unseen_finite"):
        # the classes without tuning positives predict here, and are counted
        assert np.isfinite(result.thresholds[4:]).any()
        assert want["predicted"][4:].sum() > 0


@pytest.mark.parametrize("method", sorted(WEIGHTED))
def test_to_pandas_of_weighted_points(method: str) -> None:
    points = optimize.class_points(SCORES, LABELS, sample_weight=WEIGHTS)
    result = WEIGHTED[method](points)
    counts = result.tuning
    assert counts is not None and counts.weighted
    assert counts.n_samples == pytest.approx(WEIGHTS.sum(), rel=1e-12)
    want = _direct(result, SCORES, LABELS, WEIGHTS)
    _check_table(result, want, weighted=True)
    predicted = result.apply(SCORES)
    weighted_mean = (WEIGHTS * predicted.sum(axis=1)).sum() / WEIGHTS.sum()
    assert result.labels_per_object == pytest.approx(weighted_mean, rel=1e-12)
    true_mean = (WEIGHTS * LABELS.sum(axis=1)).sum() / WEIGHTS.sum()
    assert result.true_labels_per_object == pytest.approx(true_mean, rel=1e-12)


def test_sparse_scores_and_empty_classes_included() -> None:
    sparse = sp.csr_matrix(np.where(SCORES > 0.6, SCORES, 0.0))
    for result in (
        optimize.fixed_point(sparse, LABELS),
        optimize.global_threshold(sparse, LABELS),
        optimize.tune(sparse, LABELS, **FINITE_UNSEEN),
    ):
        want = _direct(result, sparse, LABELS)
        _check_table(result, want, weighted=False)
    included = optimize.fixed_point(SCORES, LABELS, empty_classes="include")
    assert included.tuning is not None and included.tuning.class_index.tolist() == list(range(M))
    table = included.to_pandas()
    assert table["kept"].all() and table["cut"].notna().all()
    want = _direct(included, SCORES, LABELS)
    np.testing.assert_array_equal(table["predicted"].to_numpy(dtype=float), want["predicted"])


def test_the_points_argument_still_reads_the_kept_classes_from_the_points() -> None:
    points = optimize.class_points(SCORES, LABELS)
    result = optimize.fixed_point(points=points)
    pd.testing.assert_frame_equal(result.to_pandas(points), result.to_pandas())
    bare = attrs.evolve(result, tuning=None)
    from_points = bare.to_pandas(points)
    pd.testing.assert_frame_equal(from_points, result.to_pandas())  # +inf off the kept columns
    with pytest.raises(ValueError, match="do not match"):
        result.to_pandas(optimize.class_points(SCORES[:, :3], LABELS[:, :3]))


def test_results_without_counts_have_na_columns() -> None:
    top = optimize.top_k(S_FRAME, Y_FRAME)
    assert top.tuning is None and math.isnan(top.labels_per_object)
    assert math.isnan(top.true_labels_per_object)
    table = top.to_pandas()
    assert list(table.index) == NAMES
    for name in ("cut", "kept", "support", "tp", "fp", "predicted"):
        assert table[name].isna().all(), name
    for name in ("threshold", "precision", "recall", "f", "predicted_rate"):
        assert table[name].isna().all(), name
    etu = optimize.etu(np.clip(SCORES / 1.4, 0.0, 1.0))
    assert etu.tuning is None  # no labels: no tuning counts
    # new thresholds: the counts of the old ones are gone (unknown), never stale
    result = optimize.fixed_point(SCORES, LABELS)
    moved = attrs.evolve(result, thresholds=result.thresholds + 0.01)
    assert moved.tuning is None and moved.to_pandas()["predicted"].isna().all()
    assert attrs.evolve(result, method="renamed").tuning is result.tuning
    assert result.with_classes(NAMES).tuning is result.tuning
    # every class kept: kept is known even without counts
    assert (
        attrs.evolve(optimize.fixed_point(SCORES[:, :4], LABELS[:, :4]), tuning=None)
        .to_pandas()["kept"]
        .all()
    )


# --------------------------------------------------------------------------- JSON


def _round_trip(result: ThresholdResult, tmp_path: Path) -> ThresholdResult:
    path = tmp_path / "thr.json"
    result.save(path)
    again = ThresholdResult.load(path)
    assert again.to_dict() == result.to_dict()
    return again


@pytest.mark.parametrize("weighted", [False, True], ids=["counts", "weights"])
def test_the_counts_round_trip_through_json(tmp_path: Path, weighted: bool) -> None:
    if weighted:
        result = optimize.tune(points=optimize.class_points(SCORES, LABELS, sample_weight=WEIGHTS))
    else:
        result = optimize.tune(S_FRAME, Y_FRAME, **FINITE_UNSEEN)
    record = result.to_dict()
    json.dumps(record, allow_nan=False)
    saved = record["tuning"]
    assert saved["weighted"] is weighted
    assert isinstance(saved["n_samples"], float if weighted else int)
    assert all(isinstance(v, float if weighted else int) for v in saved["predicted"])
    again = _round_trip(result, tmp_path)
    assert again.tuning is not None
    for name in ("support", "tp", "predicted", "class_index"):
        np.testing.assert_array_equal(getattr(again.tuning, name), getattr(result.tuning, name))
        assert getattr(again.tuning, name).dtype == getattr(result.tuning, name).dtype
    assert again.labels_per_object == result.labels_per_object
    pd.testing.assert_frame_equal(again.to_pandas(), result.to_pandas())


def test_a_record_without_counts_loads_with_na_columns(tmp_path: Path) -> None:
    result = optimize.fixed_point(S_FRAME, Y_FRAME)
    old = result.to_dict()
    del old["tuning"]  # as fmacro wrote records before the counts
    (tmp_path / "old.json").write_text(json.dumps(old))
    loaded = ThresholdResult.load(tmp_path / "old.json")
    assert loaded.tuning is None and math.isnan(loaded.labels_per_object)
    np.testing.assert_array_equal(loaded.thresholds, result.thresholds)
    table = loaded.to_pandas()
    assert list(table.index) == NAMES
    assert table["predicted"].isna().all() and table["kept"].isna().all()
    assert table["cut"].isna().all() and table["precision"].isna().all()
    np.testing.assert_array_equal(table["threshold"], result.thresholds)
    assert "tuning" not in loaded.to_dict()  # saved again: the same record
    assert optimize.io.read_rule(tmp_path / "old.json").n_columns == M


def _tuning_record(**change: Any) -> dict[str, Any]:
    record = optimize.fixed_point(SCORES, LABELS).to_dict()
    record["tuning"] = {**record["tuning"], **change}
    return record


def _shift(name: str, column: int, by: int) -> list[int]:
    values = list(_tuning_record()["tuning"][name])
    values[column] += by
    return values


MALFORMED_COUNTS: list[tuple[str, dict[str, Any], str]] = [
    ("not an object", {"tuning": [1, 2]}, r"field 'tuning': expected an object"),
    ("unknown key", {"tuning": {**_tuning_record()["tuning"], "x": 1}}, r"unknown 'x'"),
    ("missing key", {"tuning": {"n_samples": 3}}, "missing weighted"),
    ("weighted not a bool", {"weighted": 1}, r"'tuning\.weighted': expected true or false"),
    ("short support", {"support": [1, 2]}, "support must have one entry per column"),
    ("negative tp", {"tp": [-1, 0, 0, 0, 0, 0]}, r"'tuning\.tp\[0\]': expected an integer >= 0"),
    ("fractional count", {"predicted": [1.5] * M}, r"tuning\.predicted\[0\]'.*got 1\.5"),
    ("boolean count", {"tp": [True] * M}, r"tuning\.tp\[0\]'.*got True"),
    ("text count", {"n_samples": "90"}, r"tuning\.n_samples'.*an integer >= 0"),
    ("weighted counts of ints", {"n_samples": 90.5}, r"tuning\.n_samples'.*an integer"),
    ("rate above 1", {"predicted": [91] * M}, r"predicted objects exceed n_samples"),
    ("tp above predicted", {"tp": [50] * M}, "tp exceeds"),
    ("positives off the kept columns", {"support": [30] * M}, "a column that is not kept"),
    ("a kept column left out", {"class_index": [0, 1, 2]}, "not kept has positives in column 3"),
    ("kept columns not increasing", {"class_index": [1, 0, 2, 3]}, "increasing column numbers"),
    ("infinite weight", {"weighted": True, "n_samples": "inf"}, r"tuning\.n_samples'"),
]


@pytest.mark.parametrize(
    ("change", "message"),
    [m[1:] for m in MALFORMED_COUNTS],
    ids=[m[0] for m in MALFORMED_COUNTS],
)
def test_malformed_counts_are_refused(change: dict[str, Any], message: str) -> None:
    record = {**_tuning_record(), **change} if "tuning" in change else _tuning_record(**change)
    with pytest.raises(ValueError, match=message):
        ThresholdResult.from_dict(record)


def test_counts_of_other_thresholds_are_refused_in_a_file(tmp_path: Path) -> None:
    record = _tuning_record()
    kept_column = 0
    record["thresholds"][kept_column] = "inf"  # edited thresholds, counts of the old ones
    (tmp_path / "t.json").write_text(json.dumps(record))
    with pytest.raises(ValueError, match=r"t\.json: .*'tuning'.*\+inf threshold predicts"):
        ThresholdResult.load(tmp_path / "t.json")
    del record["tuning"]
    assert ThresholdResult.from_dict(record).tuning is None
    # integral floats read as integers; weighted counts accept integers
    counts = _tuning_record()["tuning"]
    as_floats = {k: [float(v) for v in counts[k]] for k in ("support", "tp", "predicted")}
    again = ThresholdResult.from_dict(_tuning_record(**as_floats))
    assert again.tuning is not None and again.tuning.tp.dtype == np.int64
    weighted = ThresholdResult.from_dict(_tuning_record(weighted=True))
    assert weighted.tuning is not None and weighted.tuning.weighted
    assert weighted.tuning.tp.dtype == np.float64


def test_the_counts_are_checked_when_built() -> None:
    result = optimize.fixed_point(SCORES, LABELS)
    counts = result.tuning
    assert counts is not None
    with pytest.raises(TypeError, match="tuning must be a TuningCounts"):
        attrs.evolve(result, tuning={"tp": [1]})
    with pytest.raises(ValueError, match="keep 4 columns, but cuts has 3 entries"):
        attrs.evolve(result, cuts=result.cuts[:3])
    with pytest.raises(ValueError, match=r"all integers .* or all sums of weights"):
        attrs.evolve(counts, n_samples=float(counts.n_samples))
    with pytest.raises(ValueError, match="a -inf threshold predicts fewer"):
        attrs.evolve(counts, thresholds=np.where(np.isinf(counts.thresholds), -np.inf, 0.5))
    with pytest.raises(ValueError, match="not kept but has a finite threshold"):
        TuningCounts.from_points(
            optimize.class_points(SCORES, LABELS), result.cuts, np.full(M, 0.5)
        )


# --------------------------------------------------------------------------- evaluation


@pytest.mark.parametrize("weighted", [False, True], ids=["counts", "weights"])
def test_macro_evaluation_tables_hold_its_fields(weighted: bool) -> None:
    result = optimize.tune(S_FRAME, Y_FRAME, **FINITE_UNSEEN)
    weights = WEIGHTS if weighted else None
    ev = evaluate_thresholds(SCORES, LABELS, result, sample_weight=weights)
    assert ev.classes == tuple(NAMES)  # the result's names
    np.testing.assert_array_equal(ev.thresholds, result.thresholds)
    table = ev.to_pandas()
    assert list(table.index) == [*NAMES, "macro avg", "F-macro"]
    per_class = table.iloc[:M]
    for name, values in (
        ("precision", ev.class_precision),
        ("recall", ev.class_recall),
        ("f", ev.class_f),
        ("support", ev.support),
        ("tp", ev.tp),
        ("fp", ev.fp),
        ("predicted", ev.tp + ev.fp),
        ("threshold", ev.thresholds),
    ):
        np.testing.assert_array_equal(per_class[name].to_numpy(dtype=np.float64), values, name)
    assert str(per_class["tp"].dtype) == ("Float64" if weighted else "Int64")
    kept = np.zeros(M, dtype=bool)
    kept[ev.class_index] = True
    np.testing.assert_array_equal(per_class["kept"].to_numpy(dtype=bool), kept)
    np.testing.assert_array_equal(
        per_class["predicted_rate"], (ev.tp + ev.fp) / (WEIGHTS.sum() if weighted else N)
    )
    assert table.loc["F-macro", "f"] == ev.f and table.loc["F-macro", "precision"] == ev.precision
    assert table.loc["F-macro", "recall"] == ev.recall
    assert table.loc["macro avg", "f"] == ev.macro_f
    record = ev.to_dict()
    json.dumps(record, allow_nan=False)
    assert record["classes"] == NAMES and record["weighted"] is weighted
    assert (record["f"], record["precision"], record["recall"], record["macro_f"]) == (
        ev.f,
        ev.precision,
        ev.recall,
        ev.macro_f,
    )
    assert record["class_index"] == ev.class_index.tolist()
    assert [row["class"] for row in record["per_class"]] == NAMES
    for j, row in enumerate(record["per_class"]):
        assert row["tp"] == ev.tp[j] and row["fp"] == ev.fp[j] and row["support"] == ev.support[j]
        assert row["predicted"] == ev.tp[j] + ev.fp[j]
        assert row["f"] == (None if math.isnan(ev.class_f[j]) else ev.class_f[j])
        threshold = float(ev.thresholds[j])
        assert row["threshold"] == (threshold if math.isfinite(threshold) else str(threshold))
    if weighted:
        assert ev.n_samples == pytest.approx(WEIGHTS.sum())
        assert record["labels_per_object"] == pytest.approx(
            (WEIGHTS * result.apply(SCORES).sum(axis=1)).sum() / WEIGHTS.sum()
        )
    else:
        # on the tuning rows, the evaluation and the result's own counts agree
        assert ev.n_samples == N and record["n_samples"] == N
        assert ev.labels_per_object == result.labels_per_object
        assert ev.true_labels_per_object == result.true_labels_per_object
        assert result.tuning is not None
        np.testing.assert_array_equal(ev.tp, result.tuning.tp)
        np.testing.assert_array_equal(ev.tp + ev.fp, result.tuning.predicted)
        np.testing.assert_array_equal(ev.support, result.tuning.support)


def test_macro_evaluation_names_from_frames_and_positions() -> None:
    ev = evaluate_thresholds(S_FRAME, Y_FRAME, np.full(M, 0.5))
    assert ev.classes == tuple(NAMES)
    plain = evaluate_thresholds(SCORES, LABELS, np.full(M, 0.5), beta=2.0, zero_division=math.nan)
    assert plain.classes is None
    assert list(plain.to_pandas().index)[:M] == list(range(M))
    record = plain.to_dict()
    assert record["classes"] is None and record["zero_division"] == "nan"
    assert [row["class"] for row in record["per_class"]] == list(range(M))
    json.dumps(record, allow_nan=False)  # undefined values are null


# --------------------------------------------------------------------------- command line


def _fmacro(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fmacro", *argv], cwd=cwd, capture_output=True, text=True
    )


def test_the_commands_print_labels_per_object(tmp_path: Path) -> None:
    np.savez(tmp_path / "val.npz", scores=SCORES, labels=LABELS)
    run = _fmacro(
        "thresholds", "val.npz", "--json", "--method", "tune", "--method", "top_k", cwd=tmp_path
    )
    assert run.returncode == 0, run.stderr
    tune_row, top_row = json.loads(run.stdout)["results"]
    tuned = optimize.tune(SCORES, LABELS)
    assert tune_row["labels_per_object"] == pytest.approx(tuned.labels_per_object)
    assert tune_row["true_labels_per_object"] == pytest.approx(LABELS.sum(axis=1).mean())
    top = optimize.top_k(SCORES, LABELS)  # no counts: its predictions on the tuning rows
    assert top_row["labels_per_object"] == pytest.approx(top.apply(SCORES).sum(axis=1).mean())
    run = _fmacro(
        "thresholds", "val.npz", "--method", "fixed_point", "--save", "thr.json", cwd=tmp_path
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert f"true labels per object {LABELS.sum(axis=1).mean():.4f}" in lines[1]
    assert lines[2].split()[-1] == "labels/object"
    fixed = optimize.fixed_point(SCORES, LABELS)
    assert lines[4].startswith("fixed_point") and lines[4].endswith(
        f"{fixed.labels_per_object:.4f}"
    )
    assert ThresholdResult.load(tmp_path / "thr.json").labels_per_object == (
        fixed.labels_per_object
    )
    np.savez(tmp_path / "test.npz", scores=SCORES[:40])
    run = _fmacro("apply", "thr.json", "test.npz", "-o", "pred.npy", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    mean = fixed.apply(SCORES[:40]).sum(axis=1).mean()
    assert run.stdout.strip().endswith(f"{mean:.4f} labels per object")
