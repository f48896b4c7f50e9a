"""What fork safety costs: fmacro's parallel kernels under each numba threading layer.

Run from the repository root::

    /work/venv/bin/python benchmarks/bench_threading_layer.py            # ~1 min
    /work/venv/bin/python benchmarks/bench_threading_layer.py --quick    # smaller inputs

fmacro asks numba for the ``forksafe`` layer (tbb if installed, else workqueue on Linux
with GNU OpenMP), because a process forked after an OpenMP parallel region is killed.
This script times the four parallel counting kernels (binary, multiclass, multi-label
dense and CSR) on inputs above ``SERIAL_BELOW`` in one subprocess per layer (a layer is
chosen once per process), alternating the layers over several rounds so that load from
other processes hits all alike, and reports the median of each kernel per layer, plus
whether a fork-started ``ProcessPoolExecutor`` survives a parallel kernel in its parent.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import textwrap

LAYERS = ("omp", "workqueue", "tbb")

CHILD = textwrap.dedent(
    """
    import json, multiprocessing, sys, time
    from concurrent.futures import ProcessPoolExecutor
    import numpy as np, numba, scipy.sparse as sp
    from fmacro.validation import BinFValidation, MultiFValidation, MultiLabelFValidation

    n, repeats = int(sys.argv[1]), int(sys.argv[2])
    rng = np.random.default_rng(0)
    e2, p2 = rng.integers(0, 2, n), rng.integers(0, 2, n)
    ek, pk = rng.integers(0, 100, n), rng.integers(0, 100, n)
    Yd = (rng.random((n // 100, 100)) < 0.05).astype(np.uint8)
    Pd = (rng.random((n // 100, 100)) < 0.05).astype(np.uint8)
    Yc, Pc = sp.csr_matrix(Yd), sp.csr_matrix(Pd)
    cases = {
        "binary": lambda: BinFValidation.from_predictions(e2, p2),
        "multiclass (100 classes)": lambda: MultiFValidation.from_predictions(ek, pk, classes=100),
        "multi-label dense uint8": lambda: MultiLabelFValidation.from_predictions(Yd, Pd),
        "multi-label CSR": lambda: MultiLabelFValidation.from_predictions(Yc, Pc),
    }
    out = {}
    for name, run in cases.items():
        run()  # compile / load from cache
        times = []
        for _ in range(repeats):
            t = time.perf_counter(); run(); times.append(time.perf_counter() - t)
        out[name] = times
    def child(_):
        return BinFValidation.from_predictions(e2, p2).f1
    try:
        ctx = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(1, mp_context=ctx) as pool:
            list(pool.map(child, [0]))
        fork = "survives"
    except Exception as exc:
        fork = type(exc).__name__
    print(json.dumps({"layer": numba.threading_layer(), "times": out, "fork": fork}))
    """
)


def run_layer(layer: str, n: int, repeats: int) -> dict | None:
    env = {**os.environ, "NUMBA_THREADING_LAYER": layer}
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(n), str(repeats)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    return json.loads(lines[-1]) if lines else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    n = 1 << (20 if args.quick else 22)
    repeats = 5
    times: dict[str, dict[str, list[float]]] = {}
    fork: dict[str, str] = {}
    for _ in range(args.rounds):
        for layer in LAYERS:
            result = run_layer(layer, n, repeats)
            if result is None:
                fork[layer] = "not available"
                continue
            fork[layer] = result["fork"]
            for case, ts in result["times"].items():
                times.setdefault(case, {}).setdefault(layer, []).extend(ts)
    layers = [layer for layer in LAYERS if fork.get(layer) != "not available"]
    print(
        f"{n} labels (multi-label: {n // 100} x 100 at 5 %), {os.cpu_count()} CPUs, "
        f"load {', '.join(f'{x:.2f}' for x in os.getloadavg())}; medians of "
        f"{args.rounds} x {repeats} runs\n"
    )
    print("| kernel | " + " | ".join(layers) + " | workqueue / omp |")
    print("|---|" + "---|" * (len(layers) + 1))
    for case, by_layer in times.items():
        med = {layer: statistics.median(by_layer[layer]) for layer in layers}
        ratio = (
            med["workqueue"] / med["omp"] if "omp" in med and "workqueue" in med else float("nan")
        )
        cells = " | ".join(f"{med[layer] * 1e3:.2f} ms" for layer in layers)
        print(f"| {case} | {cells} | {ratio:.2f}x |")
    print(
        "| fork after a parallel kernel | " + " | ".join(fork[layer] for layer in layers) + " | |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
