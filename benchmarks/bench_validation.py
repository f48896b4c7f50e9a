"""Benchmark fmacro's validation package against scikit-learn and against numpy floors.

Run from the repository root::

    /work/venv/bin/python benchmarks/bench_validation.py            # full sizes (~1.5 min)
    /work/venv/bin/python benchmarks/bench_validation.py --quick    # smoke run, writes no file

Options: ``--cases binary,multiclass,multilabel`` (subset), ``--threading-layer workqueue``
(numba's layer; the default, OpenMP, spin-waits and suffers badly on an oversubscribed
machine, see the results file), ``--repeats``, ``--sklearn-repeats``, ``--no-first-call``,
``--out``, ``--check`` (exit 1 if a target is missed).

Cases (all in one run; fmacro, its floor and scikit-learn are timed interleaved, round-robin,
scikit-learn's fewer runs spread over the same rounds, so that load from other processes on a
shared machine hits all alike; medians of repeats):

binary
    10^7 int64 0/1 labels: ``BinFValidation.from_predictions(e, p)`` then precision, recall,
    F1. Floor: reading both inputs once (the faster of ``e.sum(); p.sum()`` and
    ``np.count_nonzero`` of each). scikit-learn: ``precision_recall_fscore_support(e, p,
    average='binary')``. Targets: <= 3x the floor, >= 100x faster than scikit-learn.
multiclass
    10^7 int64 labels, 1000 classes: ``MultiFValidation.from_predictions(e, p, classes=1000)``
    then per-class P/R/F and the micro, macro, weighted and F-macro averages. Floor:
    ``np.bincount(e * k + p, minlength=k * k)``. scikit-learn: ``precision_recall_fscore_support
    (average='macro')`` (one average only, so the comparison favours scikit-learn).
    Targets: <= 1.5x the floor, >= 25x faster than scikit-learn.
multi-label
    10^5 x 10^4 indicator matrices at 1 % density, scipy CSR (uint8 data, int32 indices),
    dense uint8 and dense bool (a view of the same buffer):
    ``MultiLabelFValidation.from_predictions`` then micro, macro, F-macro and samples F.
    Floor: reading the inputs once (CSR: ``indices.max()`` of both; dense:
    ``np.count_nonzero`` of both). scikit-learn: ``multilabel_confusion_matrix`` (counts only).
    On dense input scikit-learn is timed on the first 10 % of the rows and scaled linearly
    (said so in the table; its cost is dominated by np.unique's sort, n log n, so linear
    scaling slightly *under*-states it). Targets: >= 5x faster than scikit-learn on CSR,
    >= 100x on dense.
first call
    Two subprocesses with a fresh ``NUMBA_CACHE_DIR``: the first compiles every kernel
    (first call on small inputs), the second loads them from that cache.

Every case also checks that fmacro's numbers equal scikit-learn's (outside the timings).
The table is printed and written to ``benchmarks/results_validation.md`` (``--out``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import (
    Timing,
    fmt_ratio,
    fmt_seconds,
    machine_facts,
    markdown_table,
    measure_interleaved,
)

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "benchmarks" / "results_validation.md"


@dataclass(frozen=True)
class Sizes:
    """Problem sizes and repeat counts of one run."""

    binary_n: int
    multiclass_n: int
    classes: int
    ml_rows: int
    ml_labels: int
    ml_density: float
    ml_sklearn_dense_share: float  # share of rows scikit-learn is timed on (dense case)
    repeats: int  # fmacro and floor
    sklearn_repeats: int


FULL = Sizes(
    binary_n=10**7,
    multiclass_n=10**7,
    classes=1000,
    ml_rows=10**5,
    ml_labels=10**4,
    ml_density=0.01,
    ml_sklearn_dense_share=0.1,
    repeats=15,
    sklearn_repeats=3,
)
QUICK = Sizes(
    binary_n=10**6,
    multiclass_n=10**6,
    classes=1000,
    ml_rows=10**4,
    ml_labels=10**3,
    ml_density=0.01,
    ml_sklearn_dense_share=0.1,
    repeats=5,
    sklearn_repeats=2,
)


@dataclass(frozen=True)
class Row:
    """One line of the results table."""

    case: str
    fmacro: Timing
    floor: Timing | None
    sklearn: Timing | None
    sklearn_note: str = ""
    max_floor_ratio: float | None = None
    min_speedup: float | None = None

    @property
    def floor_ratio(self) -> float:
        return self.fmacro.median / self.floor.median if self.floor else float("nan")

    @property
    def speedup(self) -> float:
        return self.sklearn.median / self.fmacro.median if self.sklearn else float("nan")

    def target(self) -> str:
        parts = []
        if self.max_floor_ratio is not None:
            parts.append(f"<= {self.max_floor_ratio:g}x floor")
        if self.min_speedup is not None:
            parts.append(f">= {self.min_speedup:g}x sklearn")
        return ", ".join(parts) or "-"

    def met(self) -> str:
        misses = []
        if self.max_floor_ratio is not None and not self.floor_ratio <= self.max_floor_ratio:
            misses.append("floor")
        if self.min_speedup is not None and not self.speedup >= self.min_speedup:
            misses.append("sklearn")
        if self.max_floor_ratio is None and self.min_speedup is None:
            return "-"
        return "yes" if not misses else "NO (" + ", ".join(misses) + ")"

    def cells(self) -> list[str]:
        sk = fmt_seconds(self.sklearn.median) if self.sklearn else "-"
        if self.sklearn_note:
            sk += f" ({self.sklearn_note})"
        return [
            self.case,
            fmt_seconds(self.fmacro.median),
            fmt_seconds(self.floor.median) if self.floor else "-",
            sk,
            fmt_ratio(self.floor_ratio),
            fmt_ratio(self.speedup),
            self.target(),
            self.met(),
        ]


HEADERS = (
    "case",
    "fmacro median",
    "floor median",
    "sklearn median",
    "ratio vs floor",
    "speed-up vs sklearn",
    "target",
    "met?",
)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def faster(a: Timing, b: Timing) -> Timing:
    """The timing with the smaller median."""
    return a if a.median <= b.median else b


def _counts(s: Sizes, share: float = 1.0) -> dict[str, int]:
    """Repeats per timed callable (``share`` of s.repeats for fmacro and floors; at least
    3) and s.sklearn_repeats for scikit-learn, whose runs are spread over the same rounds."""
    r = max(3, round(s.repeats * share))
    return {"fmacro": r, "floor": r, "floor_sum": r, "floor_cnz": r, "sklearn": s.sklearn_repeats}


# --------------------------------------------------------------------------- data


def binary_data(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """0/1 int64 labels and predictions that agree 80 % of the time."""
    e = rng.integers(0, 2, n, dtype=np.int64)
    p = np.where(rng.random(n) < 0.8, e, 1 - e)
    return e, p


def multiclass_data(n: int, k: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Uniform int64 labels in 0..k-1; predictions right 60 % of the time, else uniform."""
    e = rng.integers(0, k, n, dtype=np.int64)
    p = np.where(rng.random(n) < 0.6, e, rng.integers(0, k, n, dtype=np.int64))
    return e, p


def bernoulli_positions(size: int, density: float, rng: np.random.Generator) -> np.ndarray:
    """Sorted flat positions of an i.i.d. Bernoulli(density) mask, via geometric gaps."""
    m = int(size * density * 1.01 + 10 * np.sqrt(size * density) + 100)
    pos = np.cumsum(rng.geometric(density, size=m)) - 1
    if pos[-1] < size:  # astronomically unlikely; top up
        more = bernoulli_positions(size - int(pos[-1]) - 1, density, rng) + pos[-1] + 1
        pos = np.concatenate([pos, more])
    return pos[pos < size]


def multilabel_positions(
    rows: int, labels: int, density: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Flat positions of Y_true (density) and Y_pred (70 % of the true ones + 0.3 % noise)."""
    true = bernoulli_positions(rows * labels, density, rng)
    kept = true[rng.random(true.size) < 0.7]
    noise = bernoulli_positions(rows * labels, 0.3 * density, rng)
    return true, np.union1d(kept, noise)


def to_csr(flat: np.ndarray, rows: int, labels: int) -> Any:
    import scipy.sparse as sp

    indptr = np.searchsorted(flat, np.arange(rows + 1, dtype=np.int64) * labels)
    indices = (flat % labels).astype(np.int32)
    data = np.ones(flat.size, dtype=np.uint8)
    return sp.csr_matrix((data, indices, indptr.astype(np.int32)), shape=(rows, labels))


def to_dense(flat: np.ndarray, rows: int, labels: int) -> np.ndarray:
    out = np.zeros(rows * labels, dtype=np.uint8)
    out[flat] = 1
    return out.reshape(rows, labels)


# --------------------------------------------------------------------------- cases


def bench_binary(s: Sizes, rng: np.random.Generator) -> Row:
    from sklearn.metrics import precision_recall_fscore_support

    from fmacro.validation import BinFValidation

    e, p = binary_data(s.binary_n, rng)
    got: dict[str, Any] = {}

    def fmacro() -> None:
        v = BinFValidation.from_predictions(e, p)
        got["fmacro"] = (v.precision, v.recall, v.f1)

    def sklearn() -> None:
        got["sklearn"] = precision_recall_fscore_support(e, p, average="binary")[:3]

    # JIT / cache load and first-use imports outside the timings
    BinFValidation.from_predictions(e[:100], p[:100])
    precision_recall_fscore_support(e[:100], p[:100], average="binary")
    t = measure_interleaved(
        {
            "fmacro": fmacro,
            "floor_sum": lambda: (e.sum(), p.sum()),
            "floor_cnz": lambda: (np.count_nonzero(e), np.count_nonzero(p)),
            "sklearn": sklearn,
        },
        _counts(s),
        warmup=0,
    )
    np.testing.assert_allclose(got["fmacro"], got["sklearn"], rtol=1e-12)
    return Row(
        f"binary P/R/F1, {s.binary_n:.0e} int64 labels",
        t["fmacro"],
        faster(t["floor_sum"], t["floor_cnz"]),
        t["sklearn"],
        max_floor_ratio=3,
        min_speedup=100,
    )


def bench_multiclass(s: Sizes, rng: np.random.Generator) -> Row:
    from sklearn.metrics import precision_recall_fscore_support

    from fmacro.validation import MultiFValidation

    k = s.classes
    e, p = multiclass_data(s.multiclass_n, k, rng)
    labels = np.arange(k)
    got: dict[str, Any] = {}

    def fmacro() -> None:
        v = MultiFValidation.from_predictions(e, p, classes=k)
        got["fmacro"] = (
            v.per_class_precision,
            v.per_class_recall,
            v.per_class_f,
            v.micro_f,
            v.macro_f,
            v.weighted_f,
            v.f_macro,
        )

    def sklearn() -> None:
        got["sklearn"] = precision_recall_fscore_support(
            e, p, labels=labels, average="macro", zero_division=0.0
        )

    MultiFValidation.from_predictions(e[:100], p[:100], classes=k)
    precision_recall_fscore_support(
        e[:100], p[:100], labels=labels, average="macro", zero_division=0.0
    )
    t = measure_interleaved(
        {
            "fmacro": fmacro,
            "floor": lambda: np.bincount(e * k + p, minlength=k * k),
            "sklearn": sklearn,
        },
        _counts(s),
        warmup=0,
    )
    fm = got["fmacro"]
    np.testing.assert_allclose(
        [float(np.mean(fm[0])), float(np.mean(fm[1])), fm[4]], got["sklearn"][:3], rtol=1e-10
    )
    # per-class values against average=None on a slice (cheap)
    m = min(e.size, 10**5)
    sk_none = precision_recall_fscore_support(
        e[:m], p[:m], labels=labels, average=None, zero_division=0.0
    )
    v = MultiFValidation.from_predictions(e[:m], p[:m], classes=k)
    for ours, theirs in zip(
        (v.per_class_precision, v.per_class_recall, v.per_class_f), sk_none[:3], strict=True
    ):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    return Row(
        f"multiclass all averages, {s.multiclass_n:.0e} labels x {k} classes",
        t["fmacro"],
        t["floor"],
        t["sklearn"],
        sklearn_note="average='macro' only",
        max_floor_ratio=1.5,
        min_speedup=25,
    )


def _ml_measures(v: Any) -> tuple[float, ...]:
    return (v.micro_f, v.macro_f, v.f_macro, v.samples_f)


def _check_mcm(v: Any, mcm: np.ndarray) -> None:
    c = v.class_counts
    ours = np.stack([c.tn, c.fp, c.fn, c.tp], axis=1).reshape(-1, 2, 2)
    if not np.array_equal(ours, mcm):
        raise AssertionError("fmacro's per-label counts differ from multilabel_confusion_matrix")


def _read_csr(a: Any, b: Any) -> tuple[Any, Any]:
    """Floor: touch the column indices of both CSR matrices once."""
    return a.indices.max(), b.indices.max()


def _read_dense(a: np.ndarray, b: np.ndarray) -> tuple[int, int]:
    """Floor: read both dense matrices once."""
    return int(np.count_nonzero(a)), int(np.count_nonzero(b))


def bench_multilabel(s: Sizes, rng: np.random.Generator) -> list[Row]:
    from sklearn.metrics import multilabel_confusion_matrix

    from fmacro.validation import MultiLabelFValidation

    n, L = s.ml_rows, s.ml_labels
    flat_t, flat_p = multilabel_positions(n, L, s.ml_density, rng)
    shape = f"{n:.0e} x {L:.0e}, {s.ml_density:.0%} dense"
    rows = []

    def case(Y: Any, Z: Any, floor: Callable[[], Any], m: int, share: float) -> dict[str, Timing]:
        """Time fmacro, the floor and scikit-learn (on the first m rows); check counts."""
        got: dict[str, Any] = {}

        def fmacro() -> None:
            v = MultiLabelFValidation.from_predictions(Y, Z)
            _ml_measures(v)
            got["v"] = v

        def sklearn() -> None:
            got["mcm"] = multilabel_confusion_matrix(Y[:m], Z[:m])

        MultiLabelFValidation.from_predictions(Y[:10], Z[:10])
        multilabel_confusion_matrix(Y[:10], Z[:10])
        t = measure_interleaved(
            {"fmacro": fmacro, "floor": floor, "sklearn": sklearn}, _counts(s, share), warmup=0
        )
        v = got["v"] if m == n else MultiLabelFValidation.from_predictions(Y[:m], Z[:m])
        _check_mcm(v, got["mcm"])
        if m < n:
            t["sklearn"] = t["sklearn"].scaled(n / m)
        return t

    T, P = to_csr(flat_t, n, L), to_csr(flat_p, n, L)
    t = case(T, P, partial(_read_csr, T, P), n, 1.0)
    rows.append(
        Row(f"multi-label CSR, {shape}", t["fmacro"], t["floor"], t["sklearn"], min_speedup=5)
    )
    del T, P

    Td, Pd = to_dense(flat_t, n, L), to_dense(flat_p, n, L)
    del flat_t, flat_p
    m = max(1, round(n * s.ml_sklearn_dense_share))
    note = f"timed on {m:.0e} rows, x{n / m:g}" if m < n else ""
    for dtype in (np.uint8, np.bool_):
        Y, Z = Td.view(dtype), Pd.view(dtype)  # same buffer, no copy
        t = case(Y, Z, partial(_read_dense, Y, Z), m, 0.6)
        rows.append(
            Row(
                f"multi-label dense {np.dtype(dtype).name}, {shape}",
                t["fmacro"],
                t["floor"],
                t["sklearn"],
                sklearn_note=note,
                min_speedup=100,
            )
        )
    return rows


# --------------------------------------------------------------------------- first call

_FIRST_CALL_SCRIPT = textwrap.dedent(
    """
    import json, time
    t0 = time.perf_counter()
    import numpy as np
    import scipy.sparse as sp
    from fmacro import validation
    from fmacro.validation import BinFValidation, MultiFValidation, MultiLabelFValidation
    out = {"import validation": time.perf_counter() - t0}
    rng = np.random.default_rng(0)
    e2 = rng.integers(0, 2, 1000); p2 = rng.integers(0, 2, 1000)
    ek = rng.integers(0, 5, 1000); pk = rng.integers(0, 5, 1000)
    Yt = (rng.random((200, 30)) < 0.1).astype(np.uint8)
    Yp = (rng.random((200, 30)) < 0.1).astype(np.uint8)
    St, Sp = sp.csr_matrix(Yt), sp.csr_matrix(Yp)
    cases = {
        "binary (int64)": lambda: BinFValidation.from_predictions(e2, p2).f1,
        "multiclass (int64)": lambda: MultiFValidation.from_predictions(ek, pk, classes=5).f_macro,
        "multi-label CSR": lambda: MultiLabelFValidation.from_predictions(St, Sp).f_macro,
        "multi-label dense uint8": lambda: MultiLabelFValidation.from_predictions(Yt, Yp).f_macro,
    }
    for name, fn in cases.items():
        t = time.perf_counter(); fn(); first = time.perf_counter() - t
        warm = []
        for _ in range(5):
            t = time.perf_counter(); fn(); warm.append(time.perf_counter() - t)
        out[name] = [first, sorted(warm)[2]]
    print(json.dumps(out))
    """
)


def first_call_costs() -> dict[str, dict[str, Any]]:
    """Run the first-call script twice on one fresh NUMBA_CACHE_DIR: compile, then load."""
    with tempfile.TemporaryDirectory(prefix="fmacro-numba-cache-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        runs = {}
        for label in ("compile", "cache load"):
            res = subprocess.run(
                [sys.executable, "-c", _FIRST_CALL_SCRIPT],
                env=env,
                cwd=REPO,
                capture_output=True,
                text=True,
                check=True,
            )
            runs[label] = json.loads(res.stdout.strip().splitlines()[-1])
    return runs


def first_call_table(runs: dict[str, dict[str, Any]]) -> str:
    compile_run, load_run = runs["compile"], runs["cache load"]
    rows = [
        [
            "import validation (numpy, numba, scipy.sparse)",
            fmt_seconds(compile_run["import validation"]),
            fmt_seconds(load_run["import validation"]),
            "-",
        ]
    ]
    for name in (k for k in compile_run if k != "import validation"):
        rows.append(
            [
                name,
                fmt_seconds(compile_run[name][0]),
                fmt_seconds(load_run[name][0]),
                fmt_seconds(load_run[name][1]),
            ]
        )
    return markdown_table(
        (
            "first call on a small input",
            "fresh cache (compile)",
            "cache load",
            "warm call (median of 5 later calls)",
        ),
        rows,
    )


# --------------------------------------------------------------------------- main


def runtime_facts() -> dict[str, str]:
    import numba

    from fmacro import validation  # noqa: F401  (its kernels set OMP_WAIT_POLICY on import)

    facts = machine_facts(("numpy", "numba", "scikit-learn", "scipy"))
    facts["numba threads"] = str(numba.get_num_threads())
    for var in ("NUMBA_THREADING_LAYER", "OMP_WAIT_POLICY", "NUMBA_NUM_THREADS"):
        facts[f"${var}"] = os.environ.get(var, "unset")
    return facts


def threading_layer() -> str:
    """The numba threading layer the parallel kernels ran on."""
    import numba

    try:
        return str(numba.threading_layer())
    except ValueError:
        return "none used yet"


def spread_table(rows: list[Row]) -> str:
    out = []
    for r in rows:
        out.append(
            [
                r.case,
                r.fmacro.describe(),
                r.floor.describe() if r.floor else "-",
                r.sklearn.describe() if r.sklearn else "-",
            ]
        )
    return markdown_table(("case", "fmacro", "floor", "sklearn"), out)


def render(
    rows: list[Row],
    first: str | None,
    facts_before: dict[str, str],
    load_after: str,
    command: str,
    quick: bool,
    elapsed: float,
) -> str:
    today = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    lines = [
        "# Validation benchmark: fmacro vs scikit-learn vs numpy floors",
        "",
        f"- date: {today}" + (" (**--quick smoke run, small sizes**)" if quick else ""),
        f"- command: `{command}` (from the repository root; took {elapsed:.0f} s)",
    ]
    lines += [f"- {k}: {v}" for k, v in facts_before.items()]
    lines += [
        f"- load average after the run: {load_after}",
        "",
        markdown_table(HEADERS, (r.cells() for r in rows)),
        "",
        *(
            [
                "**Smoke run:** the targets are set for the full sizes; at --quick sizes fixed",
                "costs (thread start-up, per-class tables) dominate, so 'met?' means little.",
                "",
            ]
            if quick
            else []
        ),
        "Medians of repeats in one run. fmacro, the floor and scikit-learn are timed interleaved",
        "(round-robin; scikit-learn's fewer runs spread over the same rounds), so load from other",
        "processes hits all three alike. fmacro's time includes input checks and the",
        "measures named in the case (binary: P, R, F1; multiclass: per-class P/R/F, micro, macro,",
        "weighted, F-macro; multi-label: micro/macro/F-macro/samples F), scikit-learn's only what",
        "its call returns. Results were checked equal to scikit-learn's outside the timings.",
        "Floors read each input once (binary: faster of sum / count_nonzero; multiclass:",
        "np.bincount(e*k+p); CSR: indices.max() of both; dense: np.count_nonzero of both).",
        "",
        "## Noise: median (min..max, repeats)",
        "",
        "The machine's 2 cores are shared with other engineers' jobs; see the load averages above.",
        "Two-thread numba kernels suffer most when another process holds a core: a parallel",
        "region ends only when both threads have run, and numba's default OpenMP layer",
        "spin-waits, which on an oversubscribed machine costs tens of ms per call. fmacro",
        "therefore sets `OMP_WAIT_POLICY=passive` on import unless the user set it (the value",
        "used is in the header above), and runs inputs below 2**18 elements serially.",
        "",
        spread_table(rows),
    ]
    if first is not None:
        lines += [
            "",
            "## First-call cost (JIT compile vs on-disk cache load)",
            "",
            "Two fresh subprocesses sharing a new, empty `NUMBA_CACHE_DIR`: the first compiles",
            "each kernel on its first call, the second loads it from that cache.",
            "",
            first,
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, few repeats (smoke)")
    parser.add_argument("--repeats", type=int, help="repeats of fmacro and floor timings")
    parser.add_argument("--sklearn-repeats", type=int, help="repeats of scikit-learn timings")
    parser.add_argument("--no-first-call", action="store_true", help="skip the JIT subprocesses")
    parser.add_argument(
        "--out",
        type=Path,
        help=f"markdown output file (default {DEFAULT_OUT.relative_to(REPO)}; "
        "--quick writes none unless --out is given)",
    )
    parser.add_argument("--check", action="store_true", help="exit 1 if a target is missed")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--cases",
        default="binary,multiclass,multilabel",
        help="comma-separated subset of binary,multiclass,multilabel (default: all)",
    )
    parser.add_argument(
        "--threading-layer",
        choices=("default", "omp", "workqueue", "tbb"),
        default="default",
        help="numba threading layer (sets NUMBA_THREADING_LAYER before numba is imported)",
    )
    args = parser.parse_args(argv)
    if args.threading_layer != "default":
        if "numba" in sys.modules:
            parser.error("--threading-layer must be applied before numba is imported")
        os.environ["NUMBA_THREADING_LAYER"] = args.threading_layer
    cases = set(args.cases.split(","))
    unknown = cases - {"binary", "multiclass", "multilabel"}
    if unknown:
        parser.error(f"unknown case(s) {sorted(unknown)}")

    sizes = QUICK if args.quick else FULL
    if args.repeats or args.sklearn_repeats:
        sizes = Sizes(
            **{
                **sizes.__dict__,
                "repeats": args.repeats or sizes.repeats,
                "sklearn_repeats": args.sklearn_repeats or sizes.sklearn_repeats,
            }
        )
    command = shlex.join(["python", "benchmarks/bench_validation.py", *(argv or sys.argv[1:])])
    start = time.perf_counter()
    facts = runtime_facts()
    rng = np.random.default_rng(args.seed)
    rows: list[Row] = []
    steps: list[tuple[str, Callable[[], Any]]] = [
        ("binary", lambda: rows.append(bench_binary(sizes, rng))),
        ("multiclass", lambda: rows.append(bench_multiclass(sizes, rng))),
        ("multilabel", lambda: rows.extend(bench_multilabel(sizes, rng))),
    ]
    for name, step in steps:
        if name not in cases:
            continue
        t = time.perf_counter()
        step()
        log(f"[{name}] done in {time.perf_counter() - t:.1f} s")
    first = None
    if not args.no_first_call:
        t = time.perf_counter()
        first = first_call_table(first_call_costs())
        log(f"[first call] done in {time.perf_counter() - t:.1f} s")
    facts["numba threading layer (used)"] = threading_layer()
    load_after = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    text = render(rows, first, facts, load_after, command, args.quick, time.perf_counter() - start)
    print(text)
    out = args.out or (None if args.quick else DEFAULT_OUT)
    if out is not None:
        out.write_text(text, encoding="utf-8")
        log(f"written to {out}")
    missed = [r.case for r in rows if r.met() not in ("yes", "-")]
    if missed:
        log("targets missed: " + "; ".join(missed))
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
