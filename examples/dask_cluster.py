"""Scaling out: evaluation, cross-validation and threshold search on a dask cluster.

Starts a local cluster of two worker processes; point ``Client`` at a real scheduler's
address (``Client("tcp://scheduler:8786")``) and the same code runs there.

Run: python examples/dask_cluster.py
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from typing import Any

import dask.array as da
import numpy as np
from distributed import Client, LocalCluster

import fmacro.dask as fd
from fmacro import optimize
from fmacro.crossval import StratifiedKFold, cross_validate
from fmacro.validation import MultiFValidation


def nearest_centroid(X_train: np.ndarray, y_train: np.ndarray) -> Callable[[Any], Any]:
    """A tiny model: predict the class of the nearest class mean."""
    classes = np.unique(y_train)
    centres = np.stack([X_train[y_train == c].mean(axis=0) for c in classes])
    return lambda X: classes[np.argmin(((X[:, None, :] - centres) ** 2).sum(axis=2), axis=1)]


def main() -> None:
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster,
        Client(cluster) as client,  # or Client("tcp://scheduler:8786")
    ):
        # 1. Evaluation: 10 million predictions generated on the workers, counted there.
        rng = da.random.default_rng(0)
        expected = rng.integers(0, 20, 10_000_000, chunks=1_000_000)
        wrong = rng.random(10_000_000, chunks=1_000_000) < 0.2
        predicted = da.where(wrong, rng.integers(0, 20, 10_000_000, chunks=1_000_000), expected)
        v = fd.evaluate(expected, predicted)  # classes found in a first pass
        assert isinstance(v, MultiFValidation)
        print(f"{v.confusion.n_samples:,} predictions: F-macro {v.f_macro:.4f}")

        # 2. Cross-validation: the data is scattered once, each fold is a task.
        rs = np.random.default_rng(0)
        X = np.concatenate([rs.normal(c, 1.0, (200, 2)) for c in range(3)])
        y = np.repeat(np.arange(3), 200)
        cv = cross_validate(nearest_centroid, X, y, StratifiedKFold(k=5, seed=0), map=client)
        print(f"cross-validation: pooled F-macro {cv.score:.4f} over {cv.n_folds} folds")

        # 3. Thresholds: class hulls on the workers (one block of columns each),
        #    the sweep and its certificate here. Same result as in memory.
        source = resources.files("fmacro.optimize") / "data" / "corel5k_test_scores.npz"
        with resources.as_file(source) as path, np.load(path) as data:
            scores, labels = data["scores"], data["labels"]
        result = fd.fixed_point(da.from_array(scores, chunks=(500, 100)), labels)
        in_memory = optimize.fixed_point(scores, labels)
        assert np.array_equal(result.thresholds, in_memory.thresholds)
        print(f"Corel5k thresholds: F-macro {result.f:.4f}, upper bound {result.upper_bound:.4f}")
        # Thresholds for new data: each worker smooths its classes' cuts (tune's defaults).
        tuned = fd.tune(da.from_array(scores, chunks=(500, 100)), labels)
        assert np.array_equal(tuned.thresholds, optimize.tune(scores, labels).thresholds)
        print(f"Corel5k tune: smoothed F-macro {tuned.diagnostics['smoothed_f']:.4f}")


if __name__ == "__main__":
    main()
