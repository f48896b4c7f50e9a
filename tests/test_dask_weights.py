"""``fmacro.dask.tune(..., sample_weight=w)`` against the in-memory weighted ``tune``.

Every distributed result is compared with ``fmacro.optimize.tune(scores, labels,
sample_weight=w)`` on the computed arrays, bit for bit: thresholds, cuts, F, P, R and
every diagnostic. The scores are real: a least-squares linear model fitted on the
bundled emotions training split, scored on its test split.
"""

from __future__ import annotations

import itertools
import math
import sys
import warnings
from collections.abc import Iterator, Mapping
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
from fmacro.dask.weighted import _Job, _points_array, merge_points
from fmacro.optimize import class_points
from fmacro.optimize.search.result import ThresholdResult
from fmacro.validation.datasets import load_dataset

cloudpickle.register_pickle_by_value(sys.modules[__name__])

SYNC = "synchronous"


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


def emotions_scores() -> tuple[np.ndarray, np.ndarray]:
    """Scores of a linear model fitted on emotions' training split, on its test split
    (202 rows, 6 labels), with the test labels."""
    X, Y = load_dataset("emotions", "train")
    Xt, Yt = load_dataset("emotions", "test")
    coef = np.linalg.lstsq(np.c_[X, np.ones(len(X))], Y.astype(float), rcond=None)[0]
    return np.c_[Xt, np.ones(len(Xt))] @ coef, np.asarray(Yt, dtype=np.int64)


S, Y = emotions_scores()
# classes 1 and 4 without tuning positives (the empty classes' rule)
Y_EMPTY = Y.copy()
Y_EMPTY[:, [1, 4]] = 0
RNG = np.random.default_rng(28)
W_FRACTION = RNG.random(S.shape[0]) * 2.0
W_ZEROS = np.where(np.arange(S.shape[0]) % 5 == 0, 0.0, W_FRACTION)
W_INTEGER = RNG.integers(0, 4, S.shape[0])
WEIGHTS = {"fraction": W_FRACTION, "zeros": W_ZEROS, "integer": W_INTEGER}
CHUNKINGS = [(S.shape[0], 1), (50, 4), (S.shape[0], 6)]


def same_value(got: Any, want: Any, key: str) -> None:
    if isinstance(want, Mapping):
        assert isinstance(got, Mapping) and got.keys() == want.keys(), key
        for k, v in want.items():
            if k != "seconds":  # a timing, the one value that differs between runs
                same_value(got[k], v, f"{key}.{k}")
    else:
        np.testing.assert_equal(got, want, err_msg=key)


def same_result(got: ThresholdResult, want: ThresholdResult) -> None:
    """Equal bit for bit (NaN equal to NaN), every diagnostic included."""
    np.testing.assert_array_equal(got.thresholds, want.thresholds)
    np.testing.assert_array_equal(got.cuts, want.cuts)
    for field in ("f", "precision", "recall", "upper_bound", "gap"):
        np.testing.assert_equal(getattr(got, field), getattr(want, field), err_msg=field)
    assert got.method == want.method
    same_value(got.diagnostics, want.diagnostics, "diagnostics")


def in_memory(scores: Any, labels: Any, **options: Any) -> ThresholdResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tune's predict-everything warning
        return optimize.tune(scores, labels, **options)


# --------------------------------------------------------------------------- the points


@pytest.mark.parametrize("weights", sorted(WEIGHTS))
@pytest.mark.parametrize("edges", [(0, 1, 2, 3, 4, 5, 6), (0, 4, 6), (0, 6)])
def test_merged_block_points_are_the_in_memory_points(weights: str, edges: tuple[int, ...]) -> None:
    w = WEIGHTS[weights].astype(np.float64)
    job = _Job(w, 0.0)
    blocks = [
        _points_array(S[:, a:b], Y_EMPTY[:, a:b], a, job) for a, b in itertools.pairwise(edges)
    ]
    merged = merge_points(blocks, float(w.sum()), S.shape[1], 0.0)
    want = class_points(S, Y_EMPTY, sample_weight=w)
    for name in ("indptr", "tp", "fp", "threshold", "support", "class_index"):
        np.testing.assert_array_equal(getattr(merged, name), getattr(want, name), err_msg=name)
    assert merged.n_samples == want.n_samples == math.fsum(w)  # exact here: 202 small terms
    assert merged.n_columns == want.n_columns == 6
    np.testing.assert_array_equal(merged.class_index, [0, 2, 3, 5])  # 1 and 4 are empty


# --------------------------------------------------------------------------- tune


@pytest.mark.parametrize("chunks", CHUNKINGS)
@pytest.mark.parametrize("weights", sorted(WEIGHTS))
@pytest.mark.parametrize("unseen", ["prior", "never"])
def test_weighted_tune_equals_in_memory(chunks: tuple[int, int], weights: str, unseen: str) -> None:
    w = WEIGHTS[weights]
    for labels in (Y, Y_EMPTY):
        got = fd.tune(
            da.from_array(S, chunks=chunks), labels, sample_weight=w, unseen=unseen, scheduler=SYNC
        )
        want = in_memory(S, labels, sample_weight=w, unseen=unseen)
        same_result(got, want)
        assert got.diagnostics["searched_cuts"] == "every cut"
    # the empty classes' rule at zero_division 0 and own rates: every object (-inf)
    if unseen == "prior":
        np.testing.assert_array_equal(got.thresholds[[1, 4]], [-np.inf, -np.inf])
    else:
        np.testing.assert_array_equal(got.thresholds[[1, 4]], [np.inf, np.inf])


@pytest.mark.parametrize("zero_division", [0.0, 1.0, math.nan])
@pytest.mark.parametrize("chunks", [(S.shape[0], 1), (50, 4)])
def test_zero_division_base_rates_and_n_eval(zero_division: float, chunks: tuple[int, int]) -> None:
    # given base rates and zero_division 1 or nan make the rule read the empty columns
    rates = np.array([0.3, 0.05, 0.4, 0.3, 0.1, 0.3])
    cases: list[dict[str, Any]] = [
        {},
        {"base_rates": rates},
        {"n_eval": 40.0, "prior": 1.0, "beta": 2.0},
        {"prior": 0.0, "n_eval": math.inf},
    ]
    for options in cases:
        got = fd.tune(
            da.from_array(S, chunks=chunks),
            da.from_array(Y_EMPTY, chunks=chunks),
            sample_weight=W_ZEROS,
            zero_division=zero_division,
            scheduler=SYNC,
            **options,
        )
        same_result(
            got,
            in_memory(S, Y_EMPTY, sample_weight=W_ZEROS, zero_division=zero_division, **options),
        )


def test_corel5k_rankings_with_many_empty_classes() -> None:
    # the bundled Corel5k test rankings: 500 rows, 374 classes, 111 without a positive
    source = resources.files("fmacro.optimize") / "data" / "corel5k_test_scores.npz"
    with resources.as_file(source) as path, np.load(path) as data:
        scores, labels = data["scores"], data["labels"]
    w = np.random.default_rng(5).random(scores.shape[0])
    for zero_division in (0.0, 1.0):
        got = fd.tune(
            da.from_array(scores, chunks=(250, 100)),
            labels,
            sample_weight=w,
            zero_division=zero_division,
            scheduler=SYNC,
        )
        want = in_memory(scores, labels, sample_weight=w, zero_division=zero_division)
        same_result(got, want)
        assert want.diagnostics["n_unseen"] == 111


def test_integer_weights_are_the_rows_repeated() -> None:
    rows = np.repeat(np.arange(S.shape[0]), W_INTEGER)
    got = fd.tune(
        da.from_array(S, chunks=(50, 2)), Y_EMPTY, sample_weight=W_INTEGER, scheduler=SYNC
    )
    repeated = in_memory(S[rows], Y_EMPTY[rows])
    np.testing.assert_array_equal(got.thresholds, repeated.thresholds)
    np.testing.assert_array_equal(got.cuts, repeated.cuts)
    assert (got.f, got.precision, got.recall) == (repeated.f, repeated.precision, repeated.recall)
    # 0/1 weights: the rows kept, the others gone
    keep = (W_INTEGER > 0).astype(np.int64)
    got = fd.tune(da.from_array(S, chunks=(S.shape[0], 3)), Y, sample_weight=keep, scheduler=SYNC)
    kept = in_memory(S[keep > 0], Y[keep > 0])
    np.testing.assert_array_equal(got.thresholds, kept.thresholds)
    assert got.f == kept.f


def test_dask_weights_labels_and_wide_frames() -> None:
    w = da.from_array(W_FRACTION, chunks=70)
    got = fd.tune(
        da.from_array(S, chunks=(60, 2)),
        da.from_array(Y_EMPTY, chunks=(60, 3)),
        sample_weight=w,
        scheduler=SYNC,
    )
    same_result(got, in_memory(S, Y_EMPTY, sample_weight=W_FRACTION))
    names = [f"label{k}" for k in range(6)]
    s_frame, y_frame = pd.DataFrame(S, columns=names), pd.DataFrame(Y_EMPTY, columns=names)
    got = fd.tune(
        dd.from_pandas(s_frame, npartitions=3),
        dd.from_pandas(y_frame, npartitions=3),
        sample_weight=dd.from_pandas(pd.Series(W_FRACTION), npartitions=3),
        scheduler=SYNC,
    )
    want = in_memory(s_frame, y_frame, sample_weight=W_FRACTION)
    same_result(got, want)
    assert list(got.classes) == list(want.classes) == names


def test_sparse_chunks_equal_in_memory_sparse() -> None:
    # scipy-sparse chunks: a zero is a score not retrieved, as for sparse scores in memory
    rng = np.random.default_rng(7)
    kept = np.where(rng.random(S.shape) < 0.4, S - S.min() + 0.1, 0.0)
    scores = da.from_array(kept, chunks=(50, 4)).map_blocks(sp.csr_matrix, dtype=kept.dtype)
    rates = np.full(6, 0.2)
    for options in ({}, {"zero_division": 1.0, "base_rates": rates}):
        got = fd.tune(
            scores, sp.csc_matrix(Y_EMPTY), sample_weight=W_ZEROS, scheduler=SYNC, **options
        )
        want = in_memory(
            sp.csr_matrix(kept), sp.csr_matrix(Y_EMPTY), sample_weight=W_ZEROS, **options
        )
        same_result(got, want)


def test_only_the_empty_columns_are_read_again() -> None:
    # the scores of each column block count their computations: the workers' points
    # read every block once, the empty classes' rule reads only the blocks it needs
    reads: dict[int, int] = {}

    def counted(block: np.ndarray, block_info: Any = None) -> np.ndarray:
        first = block_info[0]["array-location"][1][0]
        reads[first] = reads.get(first, 0) + 1
        return block

    scores = da.from_array(S, chunks=(S.shape[0], 1)).map_blocks(counted, dtype=S.dtype)
    got = fd.tune(scores, Y_EMPTY, sample_weight=W_ZEROS, zero_division=1.0, scheduler=SYNC)
    same_result(got, in_memory(S, Y_EMPTY, sample_weight=W_ZEROS, zero_division=1.0))
    assert {k: reads[k] for k in (0, 2, 3, 5)} == {0: 1, 2: 1, 3: 1, 5: 1}
    assert reads[1] > 1 and reads[4] > 1


def test_on_a_distributed_cluster(client: Client) -> None:
    for chunks, weights in (((S.shape[0], 1), W_ZEROS), ((40, 4), W_INTEGER)):
        got = fd.tune(
            da.from_array(S, chunks=chunks), Y_EMPTY, sample_weight=weights, zero_division=1.0
        )
        same_result(got, in_memory(S, Y_EMPTY, sample_weight=weights, zero_division=1.0))


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("weights", "error"),
    [
        (np.ones(S.shape[0] - 1), ValueError),
        (-W_FRACTION, ValueError),
        (np.where(np.arange(S.shape[0]) == 3, np.nan, 1.0), ValueError),
        (np.where(np.arange(S.shape[0]) == 3, np.inf, 1.0), ValueError),
        (np.ones((S.shape[0], 1)), ValueError),
        (np.zeros(S.shape[0]), ValueError),
        (np.array(["a"] * S.shape[0]), TypeError),
        (da.ones(S.shape[0] + 1, chunks=50), ValueError),
        (da.ones((S.shape[0], 2), chunks=50), ValueError),
        (-da.ones(S.shape[0], chunks=50), ValueError),
    ],
)
def test_bad_weights_are_refused(weights: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match="sample_weight"):
        fd.tune(da.from_array(S, chunks=(S.shape[0], 2)), Y, sample_weight=weights, scheduler=SYNC)


def test_unknown_chunks_and_rows_are_refused() -> None:
    w = da.from_array(W_FRACTION, chunks=50)
    w = w[w >= 0]  # boolean indexing: chunks of unknown size
    with pytest.raises(ValueError, match="sample_weight has chunks of unknown size"):
        fd.tune(da.from_array(S, chunks=(S.shape[0], 2)), Y, sample_weight=w, scheduler=SYNC)
    obj, cls = np.nonzero(np.ones_like(S, dtype=bool))
    rows = pd.DataFrame({"object": obj, "class": cls, "score": S[obj, cls], "label": Y[obj, cls]})
    with pytest.raises(TypeError, match="sample_weight needs a dask array of scores"):
        fd.tune(dd.from_pandas(rows, npartitions=2), sample_weight=W_FRACTION, scheduler=SYNC)
