"""Warm calls on a large input, to compare two installs of fmacro in the same session.

The kernel dispatch of issue 27 must leave warm calls (machine code in memory) and large
inputs as fast as before. Run it against each install, alternating, on an idle machine::

    PYTHONPATH=/tmp/start-site python benchmarks/bench_warm_large.py   # an older commit
    python benchmarks/bench_warm_large.py                              # this checkout

(``pip install --no-deps --target /tmp/start-site <worktree of the older commit>`` makes
the first; see benchmarks/same_results.py). 20,000 x 500 dense scores, 2 % positives;
each method called once to compile or load, then timed 5 times (median). F is printed so
the two installs can be seen to compute the same thing. Results: results_warm_large.md.
"""

from __future__ import annotations

import time

import numpy as np

import fmacro.optimize as o


def main() -> None:
    rng = np.random.default_rng(0)
    scores = rng.random((20000, 500))
    labels = (rng.random((20000, 500)) < 0.02).astype(np.int64)
    for name, method in (
        ("fixed_point", o.fixed_point),
        ("tune", o.tune),
        ("per_class", o.per_class),
    ):
        method(scores, labels)  # compile or load: not timed
        times = []
        for _ in range(5):
            start = time.perf_counter()
            result = method(scores, labels)
            times.append(time.perf_counter() - start)
        print(f"{name} {np.median(times) * 1000:.1f} ms F={result.f!r}")


if __name__ == "__main__":
    main()
