"""fmacro.dask beyond one machine's memory: out-of-core evaluation and threshold search.

Run: ``python benchmarks/bench_dask.py [--quick]``; writes ``benchmarks/results_dask.md``
(then ``python benchmarks/collect.py``). Everything runs on a ``LocalCluster`` of 2 worker
processes x 1 thread started here, with a ``memory_limit`` per worker well below the data.

1. Evaluation: expected and predicted labels (int32, K classes, 80% accurate) generated
   lazily on the workers with ``dask.array.random``, so the data never exists as a whole;
   ``fmacro.dask.evaluate`` counts each chunk with fmacro's kernel and adds the counts.
   Same run: the generation alone (the same arrays, summed: the floor of any evaluation of
   data that must first be produced), and the in-memory kernel on one chunk in this
   process (rows per second per core).
2. Threshold search: a synthetic power-law extreme-classification problem generated per
   block of classes on the workers (class c retrieves about ``E * w_c`` objects,
   ``w_c ~ 1/(c+1)``, scores N(1.5, 1) for positives and N(0, 1) for negatives; 30% of a
   class's positives are not retrieved); ``fmacro.dask.fixed_point`` reduces each block to
   its hulls on the workers, the sweep and certificate run here; ``fmacro.dask.tune``
   smooths each class's cuts and keeps their hull vertices there. Then the same data
   gathered into memory and ``optimize.fixed_point`` and ``optimize.tune`` on it, to check
   equality and compare.

Peak worker memory is each worker process's maximum resident set size (``ru_maxrss``).
"""

from __future__ import annotations

import argparse
import itertools
import resource
import sys
import time
from pathlib import Path
from typing import Any

import dask
import dask.array as da
import numba
import numpy as np
import scipy.sparse as sp
from distributed import Client, LocalCluster

import fmacro.dask as fd
from fmacro import optimize
from fmacro.optimize.search.linearization import fixed_point_from_sweep
from fmacro.validation import MultiFValidation

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _timing import machine_facts  # noqa: E402

GIB = 2**30


def peak_rss(client: Client) -> dict[str, float]:
    """Largest resident set size of each worker process so far, in GiB."""
    rss = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    return {w: kib * 1024 / GIB for w, kib in rss.items()}


def labels(n: int, k: int, chunk: int, seed: int) -> tuple[Any, Any]:
    rng = da.random.default_rng(seed)
    expected = rng.integers(0, k, n, chunks=chunk, dtype=np.int32)
    wrong = rng.random(n, chunks=chunk, dtype=np.float32) < 0.2
    noise = rng.integers(0, k, n, chunks=chunk, dtype=np.int32)
    return expected, da.where(wrong, noise, expected)


def bench_evaluation(n: int, k: int, chunk: int, limit: str) -> list[str]:
    data_gib = 2 * 4 * n / GIB
    rs = np.random.default_rng(0)
    e1 = rs.integers(0, k, chunk, dtype=np.int32)
    p1 = np.where(rs.random(chunk) < 0.2, rs.integers(0, k, chunk, dtype=np.int32), e1)
    MultiFValidation.from_predictions(e1, p1, classes=k)  # compile / load outside timing
    threads = numba.get_num_threads()
    numba.set_num_threads(1)  # the rate of one core, as each worker has one thread
    try:
        t0 = time.perf_counter()
        for _ in range(3):
            MultiFValidation.from_predictions(e1, p1, classes=k)
        local_rate = 3 * chunk / (time.perf_counter() - t0)
    finally:
        numba.set_num_threads(threads)
    # The same graph on 8 chunks in this process (dask's synchronous scheduler): what
    # counting adds to generating the data when no scheduler or network is involved.
    small_e, small_p = labels(8 * chunk, k, chunk, 3)
    fd.evaluate(small_e, small_p, classes=k, scheduler="sync")
    sync_gen, sync_eval = [], []
    for _ in range(3):
        t0 = time.perf_counter()
        dask.compute(small_e.sum(), small_p.sum(), scheduler="sync")
        sync_gen.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        fd.evaluate(small_e, small_p, classes=k, scheduler="sync")
        sync_eval.append(time.perf_counter() - t0)
    sync_ratio = float(np.median(sync_eval) / np.median(sync_gen))
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, memory_limit=limit, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        expected, predicted = labels(n, k, chunk, 1)
        warm_e, warm_p = labels(4 * chunk, k, chunk, 2)
        fd.evaluate(warm_e, warm_p, classes=k)  # workers load the kernels
        t0 = time.perf_counter()
        dask.compute(expected.sum(), predicted.sum())
        t_gen = time.perf_counter() - t0
        t0 = time.perf_counter()
        v = fd.evaluate(expected, predicted, classes=k)
        t_eval = time.perf_counter() - t0
        peaks = peak_rss(client)
    assert v.confusion.n_samples == n
    rows = [
        f"Data: {n:,} expected + {n:,} predicted int32 labels = {data_gib:.2f} GiB, K = {k} "
        f"classes, chunks of {chunk:,} rows, generated on the workers. Workers: 2 x 1 thread, "
        f"memory_limit {limit} each: the data is {data_gib / (2 * float(limit[:-3])):.1f}x "
        "the workers' total memory limit.",
        "",
        "| step | time (s) | rows/s | rows/s per core |",
        "| --- | ---: | ---: | ---: |",
        f"| generate only (floor: `sum` of both arrays) | {t_gen:.1f} | {n / t_gen:,.0f} | "
        f"{n / t_gen / 2:,.0f} |",
        f"| `fmacro.dask.evaluate` (generate + count + tree of `+`) | {t_eval:.1f} | "
        f"{n / t_eval:,.0f} | {n / t_eval / 2:,.0f} |",
        f"| in-memory kernel alone, this process, one chunk, one thread | - | "
        f"{local_rate:,.0f} | {local_rate:,.0f} |",
        "",
        f"F-macro {v.f_macro:.4f}, accuracy {v.accuracy:.4f}, {v.confusion.n_samples:,} rows "
        "counted (every one). Peak worker RSS: "
        + ", ".join(f"{g:.2f} GiB" for g in peaks.values())
        + f". On the cluster, evaluating takes {t_eval / t_gen:.2f}x the time of generating "
        "the data alone (counting overlaps generation, so the difference is what counting "
        "adds to the wall time, not its CPU time); the same graph on 8 chunks in one process "
        f"(dask's synchronous scheduler, nothing overlaps) takes {sync_ratio:.2f}x. Counting "
        "needs a fraction of the data's production cost: the data is produced at "
        f"{n / t_gen / 2 / local_rate:.2f}x the in-memory kernel's per-core counting rate.",
    ]
    return rows


# --------------------------------------------------------------------------- thresholds


def class_entries(n_classes: int, n_entries: int, n_samples: int) -> np.ndarray:
    w = 1.0 / np.arange(1, n_classes + 1)
    return np.clip(np.round(n_entries * w / w.sum()), 2, n_samples // 2).astype(np.int64)


def make_block(first: int, last: int, sizes: np.ndarray, n_samples: int, seed: int) -> Any:
    """Scores and labels (CSC) of classes first..last-1, generated where they are used.

    Vectorized over the block's classes (one sort of (class, object) keys), so generating
    10^6 classes costs seconds, not a Python loop per class.
    """
    rng = np.random.default_rng([seed, first])
    width = last - first
    counts = np.asarray(sizes[first:last], dtype=np.int64)
    cls = np.repeat(np.arange(width, dtype=np.int64), counts)
    # distinct retrieved objects per class: unique (class, object) keys, sorted by class
    keys = np.unique(cls * n_samples + rng.integers(0, n_samples, cls.size))
    cols, rows = np.divmod(keys, n_samples)
    positive = rng.random(keys.size) < 0.3
    score = np.where(positive, rng.normal(1.5, 1.0, keys.size), rng.normal(0.0, 1.0, keys.size))
    # positives that were not retrieved: about 43 % of the retrieved ones, + 1 per class
    n_missed = np.bincount(cols[positive], minlength=width) * 43 // 100 + 1
    miss_cols = np.repeat(np.arange(width, dtype=np.int64), n_missed)
    miss_keys = np.unique(miss_cols * n_samples + rng.integers(0, n_samples, miss_cols.size))
    miss_keys = miss_keys[~np.isin(miss_keys, keys, assume_unique=True)]
    truth_keys = np.union1d(keys[positive], miss_keys)
    shape = (n_samples, width)
    scores = sp.csc_matrix((score - score.min() + 1.0, (rows, cols)), shape=shape)
    t_cols, t_rows = np.divmod(truth_keys, n_samples)
    truth = sp.csc_matrix((np.ones(truth_keys.size, np.uint8), (t_rows, t_cols)), shape=shape)
    return scores, truth


def _nnz(block: Any) -> int:
    return int(block[0].nnz)


def blocks_by_entries(sizes: np.ndarray, per_block: int) -> list[tuple[int, int]]:
    ends = np.searchsorted(np.cumsum(sizes), np.arange(per_block, sizes.sum(), per_block))
    bounds = np.unique(np.concatenate(([0], ends + 1, [sizes.size])))
    bounds = bounds[bounds <= sizes.size]
    return [(int(a), int(b)) for a, b in itertools.pairwise(bounds) if b > a]


def bench_thresholds(
    n_samples: int, n_classes: int, n_entries: int, per_block: int, limit: str
) -> list[str]:
    sizes = class_entries(n_classes, n_entries, n_samples)
    bounds = blocks_by_entries(sizes, per_block)
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, memory_limit=limit, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        made = [dask.delayed(make_block, pure=True)(a, b, sizes, n_samples, 0) for a, b in bounds]
        meta = sp.csc_matrix((0, 0))
        scores = da.concatenate(
            [
                da.from_delayed(m[0], shape=(n_samples, b - a), dtype=np.float64, meta=meta)
                for m, (a, b) in zip(made, bounds, strict=True)
            ],
            axis=1,
        )
        truth = da.concatenate(
            [
                da.from_delayed(m[1], shape=(n_samples, b - a), dtype=np.uint8, meta=meta)
                for m, (a, b) in zip(made, bounds, strict=True)
            ],
            axis=1,
        )
        small = fd.fixed_point(scores[:, :50], truth[:, :50])  # workers load the kernels
        assert small.f > 0 and fd.tune(scores[:, :50], truth[:, :50]).f > 0
        t0 = time.perf_counter()
        dask.compute(*[dask.delayed(_nnz)(m) for m in made])
        t_gen = time.perf_counter() - t0
        t0 = time.perf_counter()
        search = fd.reduced_sweep(scores, truth)
        t_workers = time.perf_counter() - t0
        t0 = time.perf_counter()
        res = search.full_cuts(fixed_point_from_sweep(search.sweep, beta=1.0))
        t_client = time.perf_counter() - t0
        t0 = time.perf_counter()
        tuned = fd.tune(scores, truth)
        t_tune = time.perf_counter() - t0
        t0 = time.perf_counter()
        tuned_a1 = fd.tune(scores, truth, prior=1.0)
        t_tune_a1 = time.perf_counter() - t0
        peaks = peak_rss(client)
        t0 = time.perf_counter()
        parts = dask.compute(*made)
        t_gather = time.perf_counter() - t0
    all_scores = sp.hstack([p[0] for p in parts], format="csc")
    all_labels = sp.hstack([p[1] for p in parts], format="csc")
    entries = all_scores.nnz
    del parts
    t0 = time.perf_counter()
    mem = optimize.fixed_point(all_scores, all_labels, exact=False)  # what the workers compute
    t_mem = time.perf_counter() - t0
    same = np.array_equal(mem.thresholds, res.thresholds) and (mem.f, mem.upper_bound) == (
        res.f,
        res.upper_bound,
    )
    t0 = time.perf_counter()
    mem_tune = optimize.tune(all_scores, all_labels)
    t_mem_tune = time.perf_counter() - t0
    tune_status = mem_tune.diagnostics["search_diagnostics"]["status"]
    same_tune = np.array_equal(mem_tune.thresholds, tuned.thresholds)
    t0 = time.perf_counter()
    mem_a1 = optimize.tune(all_scores, all_labels, prior=1.0)
    t_mem_a1 = time.perf_counter() - t0
    same_a1 = np.array_equal(mem_a1.thresholds, tuned_a1.thresholds)
    travelled = search.points.tp.size
    return [
        f"Data: {n_samples:,} objects x {n_classes:,} classes, {entries:,} retrieved entries "
        f"(power law: the largest class retrieves {sizes[0]:,}), "
        f"{int(all_labels.nnz):,} positives; {len(bounds)} column blocks of about "
        f"{per_block:,} entries, generated on the workers. Workers: 2 x 1 thread, "
        f"memory_limit {limit} each.",
        "",
        "| step | time (s) |",
        "| --- | ---: |",
        f"| workers: generate the blocks only (floor) | {t_gen:.1f} |",
        f"| workers: generate blocks + class points + hulls (`reduced_sweep`) | {t_workers:.1f} |",
        f"| client: merge, edge sweep, certificate (`fixed_point`) | {t_client:.2f} |",
        f"| distributed total | {t_workers + t_client:.1f} |",
        f"| in memory: `optimize.fixed_point` on the gathered data (1 process) | {t_mem:.1f} |",
        f"| (gathering the blocks for the in-memory run) | {t_gather:.1f} |",
        f"| `fmacro.dask.tune`: generate blocks + smoothed hulls, client sweep | {t_tune:.1f} |",
        f"| in memory: `optimize.tune` on the gathered data (1 process) | {t_mem_tune:.1f} |",
        f"| `fmacro.dask.tune(prior=1)` (search ended: {tuned_a1.diagnostics['searched_cuts']}) "
        f"| {t_tune_a1:.1f} |",
        f"| in memory: `optimize.tune(prior=1)` | {t_mem_a1:.1f} |",
        "",
        f"Cuts sent to the client: {travelled:,} (hull vertices and T_b cuts) of "
        f"{entries + 2 * n_classes:,} or so in all. Result: F-macro {res.f:.4f}, upper bound "
        f"{res.upper_bound:.4f}, status {res.diagnostics['status']}; identical to the "
        f"in-memory result: {same}. Peak worker RSS: "
        + ", ".join(f"{g:.2f} GiB" for g in peaks.values())
        + ".",
        "",
        f"`fmacro.dask.tune` (defaults: a = 3, n_eval = N): "
        f"{tuned.diagnostics['search_diagnostics']['n_hull_vertices']:,} smoothed hull "
        f"vertices sent; F-macro {tuned.f:.4f} (smoothed {tuned.diagnostics['smoothed_f']:.4f}, "
        f"gap {tuned.diagnostics['smoothed_gap']:.1e}); the in-memory `tune` ended at "
        f"{tune_status.replace('_', ' ')} (smoothed {mem_tune.diagnostics['smoothed_f']:.4f}); "
        f"same thresholds: {same_tune}. With prior=1 the search ended with "
        f"searched_cuts = {tuned_a1.diagnostics['searched_cuts']!r} ('screened': on an edge, "
        f"the workers walked the classes the exact step needed again); same thresholds as "
        f"in memory: {same_a1}.",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    args = parser.parse_args()
    if args.quick:
        ev = {"n": 20_000_000, "k": 1000, "chunk": 2_000_000, "limit": "0.5GiB"}
        th = {"n_samples": 100_000, "n_classes": 10_000, "n_entries": 1_000_000}
        th.update(per_block=200_000, limit="1GiB")
    else:
        # 8 GiB of labels on 2 x 1 GiB workers; 10^6 classes with about 5 x 10^7 distinct
        # retrieved entries (56 x 10^6 drawn, duplicates within a class merged)
        ev = {"n": 2**30, "k": 1000, "chunk": 8_000_000, "limit": "1GiB"}
        th = {"n_samples": 2_000_000, "n_classes": 1_000_000, "n_entries": 56_000_000}
        th.update(per_block=1_000_000, limit="1.5GiB")
    t0 = time.perf_counter()
    evaluation = bench_evaluation(**ev)  # type: ignore[arg-type]
    thresholds = bench_thresholds(**th)  # type: ignore[arg-type]
    lines = [
        "# fmacro.dask: evaluation and threshold search on a cluster",
        "",
        f"Produced by `python benchmarks/bench_dask.py` ({time.perf_counter() - t0:.0f} s) on "
        "a `LocalCluster` of 2 worker processes x 1 thread on the shared 2-core machine "
        "(other jobs were running: absolute times are noisy).",
        "",
        "## Out-of-core evaluation",
        "",
        *evaluation,
        "",
        "## Distributed threshold search (fixed_point, tune) at scale",
        "",
        *thresholds,
        "",
        "## Machine",
        "",
        *(
            f"- {key}: {value}"
            for key, value in machine_facts(("numpy", "numba", "dask", "distributed")).items()
        ),
    ]
    out = HERE / ("results_dask_quick.md" if args.quick else "results_dask.md")
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
