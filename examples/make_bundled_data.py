"""Rebuild the data files fmacro ships, from the Mulan datasets.

``validation/data/scene_predictions.csv``
    Expected and predicted scene classes on the official *scene* test split: the
    images with exactly one label (1093 of 1196), predicted by a ridge-regression
    one-vs-rest scorer (argmax) trained on the single-label training images.
    ``fmacro evaluate`` reports on it when given no files.

``optimize/data/corel5k_test_scores.npz``
    Rankings for threshold search: ridge-regression one-vs-rest scores (float32) of the
    374 Corel5k words on the 500 official test images, from a scorer trained on the 4500
    training images, with the true labels and the word names. ``fmacro thresholds``
    searches thresholds on it when given no file.

Run from the repository root with ``FMACRO_DATA`` naming the folder of the Mulan
datasets (scene, corel5k): ``FMACRO_DATA=/path/to/mulan python examples/make_bundled_data.py``.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from fmacro.validation.datasets import ArffData, load_arff_data

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "validation" / "data"


def single_label_rows(data: ArffData) -> tuple[np.ndarray, np.ndarray]:
    keep = data.Y.sum(axis=1) == 1
    return data.X[keep], data.Y[keep].argmax(axis=1)


def ridge_scores(
    X_train: np.ndarray, T: np.ndarray, X_test: np.ndarray, alpha: float, scale: bool = True
) -> np.ndarray:
    """One-vs-rest ridge regression on centred (and, with ``scale``, standardized) features."""
    mean = X_train.mean(axis=0)
    std = X_train.std(axis=0) + 1e-9 if scale else np.ones(X_train.shape[1])

    def design(X: np.ndarray) -> np.ndarray:
        return np.c_[(X - mean) / std, np.ones(len(X))]

    A = design(X_train)
    W = np.linalg.solve(A.T @ A + alpha * np.eye(A.shape[1]), A.T @ T)
    return design(X_test) @ W


def scene_predictions() -> Path:
    train, test = load_arff_data("scene", "train"), load_arff_data("scene", "test")
    X_train, y_train = single_label_rows(train)
    X_test, y_test = single_label_rows(test)
    n_classes = len(train.label_names)
    predicted = ridge_scores(X_train, np.eye(n_classes)[y_train], X_test, alpha=10.0).argmax(axis=1)
    path = OUT / "scene_predictions.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["expected", "predicted"])
        names = train.label_names
        writer.writerows((names[e], names[p]) for e, p in zip(y_test, predicted, strict=True))
    return path


def corel5k_scores() -> Path:
    train, test = load_arff_data("corel5k", "train"), load_arff_data("corel5k", "test")
    scores = ridge_scores(train.X, train.Y.astype(np.float64), test.X, alpha=30.0, scale=False)
    path = ROOT / "optimize" / "data" / "corel5k_test_scores.npz"
    np.savez_compressed(
        path,
        scores=scores.astype(np.float32),
        labels=test.Y.astype(np.uint8),
        label_names=np.array(test.label_names),
    )
    return path


if __name__ == "__main__":
    print("wrote", scene_predictions())
    print("wrote", corel5k_scores())
