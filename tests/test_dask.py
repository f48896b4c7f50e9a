"""fmacro.dask on a real (local) cluster: two worker processes started and stopped here.

Every distributed result is compared with the in-memory one on the same data, random and
real (the bundled Corel5k rankings, scene predictions, emotions), by value.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from typing import Any

import cloudpickle
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from distributed import Client, LocalCluster

import fmacro.dask as fd
from fmacro import optimize
from fmacro.crossval import KFold, StratifiedKFold, cross_validate
from fmacro.optimize.search.result import ThresholdResult
from fmacro.validation import BinFValidation, MultiFValidation, MultiLabelFValidation
from fmacro.validation.datasets import load_dataset

# Workers cannot import this test module: ship its functions by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    with (
        LocalCluster(
            n_workers=2,
            processes=True,
            threads_per_worker=1,
            dashboard_address=None,
            memory_limit="1GiB",
        ) as cluster,
        Client(cluster) as c,
    ):
        yield c


def corel5k() -> tuple[np.ndarray, np.ndarray]:
    source = resources.files("fmacro.optimize") / "data" / "corel5k_test_scores.npz"
    with resources.as_file(source) as path, np.load(path) as data:
        return data["scores"], data["labels"]


def same_result(got: ThresholdResult, want: ThresholdResult) -> None:
    np.testing.assert_array_equal(got.thresholds, want.thresholds)
    np.testing.assert_array_equal(got.cuts, want.cuts)
    assert (got.f, got.precision, got.recall) == (want.f, want.precision, want.recall)
    np.testing.assert_equal(got.upper_bound, want.upper_bound)
    assert got.method == want.method
    assert got.diagnostics.keys() == want.diagnostics.keys()
    for key, value in want.diagnostics.items():
        np.testing.assert_equal(got.diagnostics[key], value, err_msg=key)


# --------------------------------------------------------------------------- evaluation


def test_multiclass_on_random_chunks_equals_in_memory(client: Client) -> None:
    rng = np.random.default_rng(1)
    expected = rng.integers(0, 7, 5000)
    predicted = np.where(rng.random(5000) < 0.3, rng.integers(0, 7, 5000), expected)
    want = MultiFValidation.from_predictions(expected, predicted, beta=2.0)
    got = fd.evaluate(
        da.from_array(expected, chunks=700), da.from_array(predicted, chunks=1100), beta=2.0
    )
    assert got == want and got.report() == want.report()
    # classes given: one never seen, fixed order
    labels = [6, 5, 4, 3, 2, 1, 0, 9]
    got = fd.evaluate(da.from_array(expected, chunks=900), predicted, classes=labels)
    assert got == MultiFValidation.from_predictions(expected, predicted, classes=labels)


def test_binary_and_multilabel_dense_and_sparse_chunks(client: Client) -> None:
    rng = np.random.default_rng(2)
    e, p = rng.integers(0, 2, 3001), rng.integers(0, 2, 3001)
    got = fd.evaluate(da.from_array(e, chunks=500), da.from_array(p, chunks=500), kind="binary")
    assert got == BinFValidation.from_predictions(e, p)
    Y = rng.random((900, 13)) < 0.2
    P = rng.random((900, 13)) < 0.25
    want = MultiLabelFValidation.from_predictions(Y, P, zero_division=1.0)
    dense = fd.evaluate(
        da.from_array(Y, chunks=(200, 5)), da.from_array(P, chunks=(310, 13)), zero_division=1.0
    )
    assert dense == want
    sparse_y = da.from_array(Y, chunks=(250, 13)).map_blocks(sp.csr_matrix, dtype=bool)
    sparse_p = da.from_array(P, chunks=(250, 13)).map_blocks(sp.csr_matrix, dtype=bool)
    assert fd.evaluate(sparse_y, sparse_p, zero_division=1.0) == want


def test_corel5k_predictions_and_scene_csv_equal_in_memory(client: Client) -> None:
    scores, labels = corel5k()
    predicted = (scores >= 0.3).astype(np.uint8)
    want = MultiLabelFValidation.from_predictions(labels, predicted)
    got = fd.evaluate(
        da.from_array(labels, chunks=(64, 374)), da.from_array(predicted, chunks=(100, 200))
    )
    assert got == want and got.report() == want.report()
    frame = pd.read_csv(resources.files("fmacro.validation") / "data" / "scene_predictions.csv")
    rows = dd.from_pandas(frame, npartitions=3)
    got = fd.evaluate(rows["expected"], rows["predicted"])
    assert got == MultiFValidation.from_predictions(frame["expected"], frame["predicted"])
    assert got.classes == tuple(sorted(set(frame["expected"]) | set(frame["predicted"])))


_CALLS: list[int] = []


def _labels_and_predictions(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """One chunk of expected labels and predictions made from them (counts its calls)."""
    _CALLS.append(seed)
    rng = np.random.default_rng(seed)
    e = rng.integers(0, 4, 1000)
    return e, np.where(rng.random(1000) < 0.7, e, rng.integers(0, 4, 1000))


def _shared_source(n_chunks: int) -> tuple[Any, Any]:
    import dask

    made = [dask.delayed(_labels_and_predictions, pure=True)(i) for i in range(n_chunks)]
    e = da.concatenate([da.from_delayed(m[0], shape=(1000,), dtype=np.int64) for m in made])
    p = da.concatenate([da.from_delayed(m[1], shape=(1000,), dtype=np.int64) for m in made])
    return e, p


def test_a_source_shared_by_both_inputs_is_computed_once() -> None:
    # Predictions are usually computed from the same data as the labels (one file, one
    # model): each chunk's source must run once, not once for each input.
    e, p = _shared_source(5)
    _CALLS.clear()
    got = fd.evaluate(e, p, classes=4, scheduler="sync")
    assert sorted(_CALLS) == [0, 1, 2, 3, 4]
    want = MultiFValidation.from_predictions(e.compute(), p.compute(), classes=4)
    assert got == want


def _frame_part(seed: int) -> pd.DataFrame:
    e, p = _labels_and_predictions(seed)
    return pd.DataFrame({"y_true": e, "y_pred": p})


def test_a_frame_read_once_serves_both_columns() -> None:
    import dask

    parts = [dask.delayed(_frame_part, pure=True)(i) for i in range(4)]
    meta = pd.DataFrame({"y_true": np.zeros(0, np.int64), "y_pred": np.zeros(0, np.int64)})
    frame = dd.from_delayed(parts, meta=meta)
    _CALLS.clear()
    got = fd.evaluate(frame["y_true"], frame["y_pred"], classes=4, scheduler="sync")
    assert sorted(_CALLS) == [0, 1, 2, 3]
    whole = frame.compute()
    assert got == MultiFValidation.from_predictions(
        whole["y_true"].to_numpy(), whole["y_pred"].to_numpy(), classes=4
    )


def _score_block(first: int) -> tuple[np.ndarray, np.ndarray]:
    """Scores and labels of 10 columns (counts its calls)."""
    _CALLS.append(first)
    rng = np.random.default_rng(first)
    labels = rng.random((300, 10)) < 0.2
    return rng.normal(size=(300, 10)) + labels, labels


def test_threshold_blocks_sharing_a_source_compute_it_once() -> None:
    import dask

    made = [dask.delayed(_score_block, pure=True)(j) for j in range(0, 30, 10)]
    scores = da.concatenate(
        [da.from_delayed(m[0], shape=(300, 10), dtype=np.float64) for m in made], axis=1
    )
    labels = da.concatenate(
        [da.from_delayed(m[1], shape=(300, 10), dtype=bool) for m in made], axis=1
    )
    _CALLS.clear()
    got = fd.fixed_point(scores, labels, scheduler="sync")
    assert sorted(_CALLS) == [0, 10, 20]
    same_result(got, optimize.fixed_point(scores.compute(), labels.compute(), exact=False))


def test_bad_inputs_are_named() -> None:
    e = da.from_array(np.array([0, 1, 1]), chunks=2)
    with pytest.raises(TypeError, match="expected must be a dask"):
        fd.evaluate(np.array([0, 1, 1]), e)
    with pytest.raises(ValueError, match="same number of rows"):
        fd.evaluate(e, np.array([0, 1]))
    with pytest.raises(ValueError, match="kind='multilabel' needs a 2-D"):
        fd.evaluate(e, e, kind="multilabel", scheduler="sync")
    with pytest.raises(ValueError, match="outside the declared classes"):
        fd.evaluate(e, e, classes=1, scheduler="sync")


# --------------------------------------------------------------------------- thresholds


def _rows(scores: np.ndarray, labels: np.ndarray, keep: np.ndarray) -> pd.DataFrame:
    """(object, class, score, label) rows of the kept entries and of every positive."""
    obj, cls = np.nonzero(keep | (labels != 0))
    score = np.where(keep[obj, cls], scores[obj, cls], np.nan)
    return pd.DataFrame(
        {"object": obj, "class": cls, "score": score, "label": labels[obj, cls].astype(np.int8)}
    )


def test_threshold_methods_on_corel5k_columns_equal_in_memory(client: Client) -> None:
    scores, labels = corel5k()
    d_scores = da.from_array(scores, chunks=(200, 64))  # rows merged on the workers
    for beta in (1.0, 0.5):
        same_result(
            fd.fixed_point(d_scores, labels, beta=beta),
            optimize.fixed_point(scores, labels, beta=beta, exact=False),
        )
    same_result(fd.per_class(d_scores, labels), optimize.per_class(scores, labels))
    same_result(
        fd.global_threshold(d_scores, da.from_array(labels, chunks=(500, 64))),
        optimize.global_threshold(scores, labels),
    )
    same_result(fd.domain(d_scores, labels), optimize.domain(scores, labels))
    same_result(
        fd.domain(d_scores, labels, n_angles=None), optimize.domain(scores, labels, n_angles=None)
    )


def test_fixed_point_on_random_rows_dense_and_sparse_equal_in_memory(client: Client) -> None:
    rng = np.random.default_rng(3)
    scores = rng.random((400, 60)).round(2)  # ties
    labels = (rng.random((400, 60)) < 0.1).astype(np.uint8)
    labels[:, 7] = 0  # a class without positives
    dense_rows = dd.from_pandas(_rows(scores, labels, np.ones_like(labels, bool)), npartitions=4)
    for empty in ("exclude", "include"):
        same_result(
            fd.fixed_point(dense_rows, empty_classes=empty, zero_division=1.0),
            optimize.fixed_point(
                scores, labels, empty_classes=empty, zero_division=1.0, exact=False
            ),
        )
    # truncated lists: each class retrieves its top 40 only; class 59 retrieves nothing
    keep = scores >= np.sort(scores, axis=0)[-40]
    keep[:, 59] = False
    sparse_scores = sp.csr_matrix(np.where(keep, scores, 0.0))
    rows = dd.from_pandas(_rows(scores, labels, keep), npartitions=3)
    for empty in ("exclude", "include"):
        same_result(
            fd.fixed_point(rows, n_samples=400, n_classes=61, empty_classes=empty),
            optimize.fixed_point(
                sp.hstack([sparse_scores, sp.csr_matrix((400, 1))]),
                sp.hstack([sp.csr_matrix(labels), sp.csr_matrix((400, 1))]),
                empty_classes=empty,
                exact=False,
            ),
        )
    same_result(
        fd.global_threshold(rows, n_samples=400),
        optimize.global_threshold(sparse_scores, sp.csr_matrix(labels)),
    )


def test_only_hulls_travel() -> None:
    scores, labels = corel5k()
    search = fd.reduced_sweep(da.from_array(scores, chunks=(500, 100)), labels, scheduler="sync")
    full = optimize.class_points(scores, labels)
    assert search.points.n_classes == full.n_classes
    # hull vertices and T_b cuts only: a small share of all cuts
    assert search.points.tp.size < full.tp.size / 5
    every = fd.reduced_sweep(
        da.from_array(scores, chunks=(500, 100)), labels, every_cut=True, scheduler="sync"
    )
    np.testing.assert_array_equal(every.points.tp, full.tp)
    np.testing.assert_array_equal(every.points.threshold, full.threshold)


def test_threshold_inputs_are_checked() -> None:
    scores = da.from_array(np.random.default_rng(0).random((10, 3)), chunks=5)
    with pytest.raises(TypeError, match="labels are required"):
        fd.fixed_point(scores)
    with pytest.raises(ValueError, match="labels must have the shape"):
        fd.fixed_point(scores, np.zeros((10, 2)))
    with pytest.raises(ValueError, match="no class with a positive"):
        fd.fixed_point(scores, np.zeros((10, 3)), scheduler="sync")
    with pytest.raises(TypeError, match="dask array or a dask DataFrame"):
        fd.fixed_point(np.zeros((10, 3)), np.zeros((10, 3)))
    frame = dd.from_pandas(pd.DataFrame({"object": [0], "class": [0], "score": [1.0]}), 1)
    with pytest.raises(ValueError, match="missing \\['label'\\]"):
        fd.fixed_point(frame)


def same_tune(got: ThresholdResult, want: ThresholdResult) -> None:
    np.testing.assert_array_equal(got.thresholds, want.thresholds)
    np.testing.assert_array_equal(got.cuts, want.cuts)
    assert (got.f, got.precision, got.recall) == (want.f, want.precision, want.recall)
    assert got.method == want.method == "tune"
    # what apply() predicts with: the same thresholds
    np.testing.assert_array_equal(np.asarray(got.rule.thresholds), got.thresholds)
    for key in ("prior", "n_eval", "phi", "smoothed_f", "smoothed_gap", "n_unseen"):
        np.testing.assert_equal(got.diagnostics[key], want.diagnostics[key], err_msg=key)
    for key in ("unseen", "searched_cuts"):
        assert got.diagnostics[key] == want.diagnostics[key], key


def test_tune_on_corel5k_columns_equals_in_memory(client: Client) -> None:
    scores, labels = corel5k()
    d_scores = da.from_array(scores, chunks=(200, 64))
    got = fd.tune(d_scores, labels)
    # the default fit ends at a fixed point here: one walk on the workers
    assert got.diagnostics["searched_cuts"] == "hull"
    same_tune(got, optimize.tune(scores, labels))
    assert got.diagnostics["n_unseen"] == 111
    assert np.isneginf(got.thresholds[~labels.any(axis=0)]).all()  # the rule at centre 0
    # given base rates: the unseen classes' rule reads their columns in a second pass
    rates = np.random.default_rng(0).uniform(0.0, 0.05, scores.shape[1])
    for options in (
        {"base_rates": rates},
        {"zero_division": 1.0, "beta": 0.5, "prior": 10.0},
        {"prior": 1.0},  # ends on an edge: the workers walk again for the exact step
        {"unseen": "never"},
    ):
        same_tune(fd.tune(d_scores, labels, **options), optimize.tune(scores, labels, **options))
    edge = fd.tune(d_scores, labels, prior=1.0)
    assert edge.diagnostics["searched_cuts"] == "screened"
    assert edge.diagnostics["smoothed_gap"] == 0.0


def test_tune_on_random_rows_dense_and_sparse_equals_in_memory(client: Client) -> None:
    rng = np.random.default_rng(4)
    scores = rng.random((300, 40)).round(2)  # ties
    labels = (rng.random((300, 40)) < rng.uniform(0.005, 0.2, 40)).astype(np.uint8)
    labels[:, [5, 9]] = 0  # classes without positives
    keep = scores >= np.sort(scores, axis=0)[-60]  # each class retrieves its top 60
    keep[:, 39] = False  # class 39 retrieves nothing (and has no positive: no row at all)
    labels[:, 39] = 0
    rows = dd.from_pandas(_rows(scores, labels, keep), npartitions=3)
    sparse_scores = sp.csr_matrix(np.where(keep, scores, 0.0))
    rates = rng.uniform(0.0, 0.1, 40)
    rates[[5, 9, 39]] = 0.5  # the rule for unseen classes then reads their scores
    searched = set()
    for options in (
        {},
        {"base_rates": rates},
        {"base_rates": rates, "zero_division": 1.0, "n_eval": 1000},
        {"prior": 0.0},
        {"prior": 1.0, "beta": 2.0},
    ):
        got = fd.tune(rows, n_samples=300, n_classes=40, **options)
        same_tune(got, optimize.tune(sparse_scores, sp.csr_matrix(labels), **options))
        searched.add(got.diagnostics["searched_cuts"])
        if options.keys() == {"base_rates"}:  # read in the second pass: a top cut, -inf
            np.testing.assert_array_equal(got.thresholds[[5, 9, 39]], [1.0, 1.0, -np.inf])
    dense = da.from_array(scores, chunks=(300, 7))
    for beta in (2.0, 0.5):
        got = fd.tune(dense, sp.csc_matrix(labels), base_rates=rates, beta=beta)
        same_tune(got, optimize.tune(scores, labels, base_rates=rates, beta=beta))
        searched.add(got.diagnostics["searched_cuts"])
    assert searched == {"hull", "screened"}  # both ends of the search are covered


def test_tune_at_prior_0_is_the_proven_in_memory_optimum(client: Client) -> None:
    # tune(prior=0, n_eval=inf) smooths nothing: on the cluster it is the in-memory
    # fixed_point's proven optimum, also where the linearization ends on an edge
    rng = np.random.default_rng(3)
    statuses = set()
    for _ in range(4):
        labels = rng.random((150, 12)) < 0.2
        scores = labels * 0.7 + rng.normal(size=labels.shape)
        want = optimize.fixed_point(scores, labels)
        got = fd.tune(da.from_array(scores, chunks=(150, 5)), labels, prior=0.0, n_eval=np.inf)
        np.testing.assert_array_equal(got.thresholds, want.thresholds)
        assert got.f == want.f and got.diagnostics["smoothed_upper_bound"] == want.upper_bound
        statuses.add(want.diagnostics["status"])
    assert "edge" in statuses


def test_tune_inputs_are_checked_before_any_work() -> None:
    scores = da.from_array(np.random.default_rng(0).random((10, 3)), chunks=5)
    labels = np.eye(10, 3, dtype=np.uint8)
    with pytest.raises(ValueError, match="prior='cv' splits the rows"):
        fd.tune(scores, labels, prior="cv")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="prior"):
        fd.tune(scores, labels, prior=-1.0)
    with pytest.raises(ValueError, match="base_rates"):
        fd.tune(scores, labels, base_rates=[0.1, 0.2])
    with pytest.raises(ValueError, match="unseen must be"):
        fd.tune(scores, labels, unseen="always")
    with pytest.raises(ValueError, match="n_eval"):
        fd.tune(scores, labels, n_eval=0)
    with pytest.raises(TypeError, match="labels are required"):
        fd.tune(scores)


# --------------------------------------------------------------------------- cross-validation


def centroid_fit(X_train: np.ndarray, y_train: np.ndarray) -> Callable[[Any], np.ndarray]:
    classes = np.unique(y_train)
    centres = np.stack([X_train[y_train == c].mean(axis=0) for c in classes])

    def predict(X: np.ndarray) -> np.ndarray:
        return classes[np.argmin(((X[:, None, :] - centres) ** 2).sum(axis=2), axis=1)]

    return predict


def test_cross_validate_on_a_client_and_on_executors(client: Client) -> None:
    X, Y = load_dataset("emotions", "train")
    y = Y.argmax(axis=1)  # one label per row: a multiclass problem from real data
    splitter = StratifiedKFold(k=5, seed=0)
    serial = cross_validate(centroid_fit, X, y, splitter)
    on_dask = cross_validate(centroid_fit, X, y, splitter, map=client)
    with ThreadPoolExecutor(max_workers=2) as pool:
        on_threads = cross_validate(centroid_fit, X, y, splitter, map=pool)
    for other in (on_dask, on_threads):
        assert other == serial
        np.testing.assert_array_equal(other.out_of_fold, serial.out_of_fold)
    # the data went to the cluster once: one scattered copy, not one per fold
    scattered = client.run_on_scheduler(
        lambda dask_scheduler: sum(
            1 for ts in dask_scheduler.tasks.values() if "_FoldJob" in str(ts.key)
        )
    )
    assert scattered <= 1


def test_cross_validate_takes_the_clients_map_too(client: Client) -> None:
    # client.map returns futures; cross_validate must run the folds as with map=client
    # (it used to collect the futures themselves and fail on 'Future' has no 'validation')
    X, Y = load_dataset("emotions", "train")
    y = Y.argmax(axis=1)
    splitter = StratifiedKFold(k=3, seed=1)
    serial = cross_validate(centroid_fit, X, y, splitter)
    on_dask = cross_validate(centroid_fit, X, y, splitter, map=client.map)
    assert on_dask == serial
    np.testing.assert_array_equal(on_dask.out_of_fold, serial.out_of_fold)


def failing_fit(X_train: np.ndarray, y_train: np.ndarray) -> Callable[[Any], np.ndarray]:
    if 0.0 in X_train[:, 0]:
        raise RuntimeError("this fold's model failed")
    return lambda X: np.zeros(len(X), dtype=int)


def test_a_failing_fold_raises_its_error(client: Client) -> None:
    X = np.arange(20.0).reshape(-1, 1)
    y = (X[:, 0] > 9).astype(int)
    with pytest.raises(RuntimeError, match="this fold's model failed"):
        cross_validate(failing_fit, X, y, KFold(k=2, seed=0), map=client)
    with ThreadPoolExecutor(max_workers=2) as pool, pytest.raises(RuntimeError, match="failed"):
        cross_validate(failing_fit, X, y, KFold(k=2, seed=0), map=pool)
    with pytest.raises(TypeError, match="map must be a map function, a concurrent"):
        cross_validate(failing_fit, X, y, KFold(k=2, seed=0), map=42)


# --------------------------------------------------------------------------- worker failure


def slow_copy(block: np.ndarray) -> np.ndarray:
    time.sleep(0.05)
    return block.copy()


async def die() -> None:
    os._exit(1)


def test_killed_worker_gives_the_full_counts(client: Client) -> None:
    rng = np.random.default_rng(4)
    expected = rng.integers(0, 5, 40_000)
    predicted = np.where(rng.random(40_000) < 0.2, rng.integers(0, 5, 40_000), expected)
    e = da.from_array(expected, chunks=1000).map_blocks(slow_copy)
    p = da.from_array(predicted, chunks=1000).map_blocks(slow_copy)
    with ThreadPoolExecutor(max_workers=1) as pool:
        running = pool.submit(fd.evaluate, e, p, classes=5)
        time.sleep(1.0)
        victim = sorted(client.scheduler_info()["workers"])[0]
        # the worker process dies mid-computation; its nanny restarts it, dask reruns its tasks
        client.run(die, workers=[victim], wait=False)
        got = running.result(timeout=120)
    assert victim not in client.scheduler_info()["workers"]  # it did die mid-way
    want = MultiFValidation.from_predictions(expected, predicted, classes=5)
    assert got == want and got.confusion.n_samples == 40_000


def test_the_core_packages_do_not_import_dask() -> None:
    import subprocess

    code = (
        "import sys, fmacro.validation, fmacro.crossval, fmacro.optimize\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_wide_dask_frames_one_column_per_class_equal_the_in_memory_results(
    client: Client,
) -> None:
    import pandas as pd

    from fmacro import optimize

    X, Y = load_dataset("emotions", "train")
    rng = np.random.default_rng(0)
    scores = X[:, : Y.shape[1]] + rng.normal(scale=0.1, size=Y.shape) + Y
    names = ["amazed", "happy", "relaxing", "quiet", "sad", "angry"]
    S, L = pd.DataFrame(scores, columns=names), pd.DataFrame(Y, columns=names)
    dS, dL = dd.from_pandas(S, npartitions=3), dd.from_pandas(L, npartitions=3)
    for name in ("tune", "fixed_point", "domain", "per_class", "global_threshold"):
        got = getattr(fd, name)(dS, dL)
        # fmacro.dask.fixed_point stops at the linearization (the exact step needs more
        # than the hull vertices the workers send)
        options = {"exact": False} if name == "fixed_point" else {}
        want = getattr(optimize, name)(S, L, **options)
        assert got.classes == tuple(names)
        np.testing.assert_array_equal(got.thresholds, want.thresholds)
        np.testing.assert_array_equal(got.cuts, want.cuts)
        assert (got.f, got.precision, got.recall) == (want.f, want.precision, want.recall)
    # labels as a dask array of whole rows: named by the scores' columns
    got = fd.tune(dS, da.from_array(Y, chunks=(100, 6)))
    assert got.classes == tuple(names)
    np.testing.assert_array_equal(got.thresholds, optimize.tune(S, Y).thresholds)
    with pytest.raises(ValueError, match="labels"):
        fd.tune(dS, dd.from_pandas(L.rename(columns={"sad": "blue"}), npartitions=3))
