"""Warm tune calls on each path of its walk, to compare two installs in the same session.

Issue 25 rebuilt the house of ``tune`` (the walk split by pass, one seam for the columns,
settings checked once) with results unchanged bit for bit and times within 5%. Run it
against each install, alternating, and compare the medians::

    PYTHONPATH=/tmp/before-site python benchmarks/bench_tune_paths.py   # the older commit
    python benchmarks/bench_tune_paths.py                               # this checkout

(``pip install --no-deps --target /tmp/before-site <worktree of the older commit>`` makes
the first.) Each case is called once to compile or load, then timed 7 times (median); F
is printed so the two installs can be seen to compute the same thing. Results:
results_tune_paths.md.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp

import fmacro.optimize as o


def _problem(n: int, m: int, rate: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    labels = (rng.random((n, m)) < rate).astype(np.int64)
    scores = rng.random((n, m)) + 0.5 * labels
    return scores, labels


def _cases() -> list[tuple[str, Callable[[], Any]]]:
    s, y = _problem(20000, 50, 0.05, 0)
    small_s, small_y = _problem(3000, 20, 0.1, 1)
    wide_s, wide_y = _problem(20000, 200, 0.02, 2)
    sparse_s = sp.csr_matrix(np.where(wide_s > 0.7, wide_s, 0.0))
    weights = np.random.default_rng(3).integers(0, 3, small_s.shape[0]).astype(np.float64)
    return [
        ("default 20000x50", lambda: o.tune(s, y)),
        ("prior='cv' 3000x20", lambda: o.tune(small_s, small_y, prior="cv")),
        ("method='exact' 3000x20", lambda: o.tune(small_s, small_y, method="exact")),
        ("sparse 20000x200", lambda: o.tune(sparse_s, wide_y)),
        ("weighted 3000x20", lambda: o.tune(small_s, small_y, sample_weight=weights)),
        ("fixed_point 20000x50", lambda: o.fixed_point(s, y)),
    ]


def main() -> None:
    warnings.simplefilter("ignore")  # the predict-everything warning of newer installs
    for name, call in _cases():
        call()  # compile or load: not timed
        times = []
        for _ in range(7):
            start = time.perf_counter()
            result = call()
            times.append(time.perf_counter() - start)
        print(f"{name}: {np.median(times) * 1000:.1f} ms F={result.f!r}")


if __name__ == "__main__":
    main()
