"""Evaluate predictions too large for memory: count chunk by chunk, then add the counts.

Validations are monoids under ``+``, so evaluating a stream of chunks is a map (one
validation per chunk) and a reduce (``+``). The pooled result is exactly the validation
of the whole data: no averaging of per-chunk scores. The same holds across processes or
machines (map with a process pool or dask, reduce with ``+``).

Run: python examples/chunked_evaluation.py
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import toolz

from fmacro.validation import MultiFValidation

N_CLASSES = 20


def prediction_chunks(n_chunks: int, size: int, seed: int = 0) -> Iterator[tuple[np.ndarray, ...]]:
    """A stand-in for reading (expected, predicted) blocks from disk: 80%-accurate labels."""
    rng = np.random.default_rng(seed)
    for _ in range(n_chunks):
        expected = rng.integers(0, N_CLASSES, size)
        wrong = rng.random(size) < 0.2
        predicted = np.where(wrong, rng.integers(0, N_CLASSES, size), expected)
        yield expected, predicted


def evaluate_stream(chunks: Iterator[tuple[np.ndarray, ...]]) -> MultiFValidation:
    """One validation per chunk (the map), pooled by ``+`` (the reduce)."""
    per_chunk = (MultiFValidation.from_predictions(e, p, classes=N_CLASSES) for e, p in chunks)
    return toolz.reduce(lambda a, b: a + b, per_chunk)


if __name__ == "__main__":
    pooled = evaluate_stream(prediction_chunks(n_chunks=50, size=200_000))
    whole = MultiFValidation.from_predictions(
        *map(np.concatenate, zip(*prediction_chunks(50, 200_000), strict=True)), classes=N_CLASSES
    )
    assert pooled.confusion == whole.confusion  # identical counts, hence identical scores
    print(f"{pooled.confusion.n_samples:,} predictions in 50 chunks")
    print(
        f"F-macro {pooled.f_macro:.4f}, macro-F {pooled.macro_f:.4f}, "
        f"accuracy {pooled.accuracy:.4f}"
    )
