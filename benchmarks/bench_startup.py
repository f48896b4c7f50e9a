"""Time to first result in a fresh process: fmacro vs scikit-learn, cold and warm numba cache.

Each case is a new Python process that imports the library and computes one result (the
time a notebook user, a CLI call, a CI job or a fresh dask worker waits), measured from
process start to the printed result. fmacro's kernels are numba functions compiled on
first use and cached on disk; in an environment without that cache (``NUMBA_CACHE_DIR``
pointed at an empty folder: a fresh install) a kernel runs interpreted instead while
compiling it would cost more (validation/dispatch.py). Columns, per case:

- cold: empty cache, default kernels (``FMACRO_KERNELS`` unset);
- cold, compiled: empty cache, ``FMACRO_KERNELS=compiled`` (every kernel compiled on
  first use: fmacro before interpreted kernels);
- again: a second default process on the cache the cold one left (kernels it interpreted
  are not in it, so they are interpreted again);
- warm: a default process on the cache the compiled run filled (must load the machine
  code: as fast as a warm compiled process);
- warm, compiled: the same with ``FMACRO_KERNELS=compiled``;
- scikit-learn: a fresh process computing ``f1_score(average="macro")`` on the same data.

The issue's data: 1,000 x 50 random scores, labels positive with probability 0.1. On
seed 0 ``fixed_point`` ends on a hull edge (and runs the exact search), as does ``tune``
with ``prior=30``; ``tune``'s default ends at a fixed point, as ``fixed_point`` does on
seed 1. Then the README's first command, ``fmacro thresholds`` (bundled Corel5k rankings,
500 x 374), with and without ``--plot``. Writes benchmarks/results_startup.md.

The last section measures the break-even behind ``dispatch``'s estimates: per kernel
of those runs, its compile time (compiled run) and its interpreting time per element of
the array arguments (default run), with the estimated compile time from its bytecode.

    python benchmarks/bench_startup.py [--repeats 5] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _timing import machine_facts, markdown_table

HERE = Path(__file__).resolve().parent
REPEATS = 5

_LABELS = (
    "import numpy as np\n"
    "rng = np.random.default_rng(0)\n"
    "y = rng.integers(0, 5, 1000)\n"
    "p = np.where(rng.random(1000) < 0.7, y, rng.integers(0, 5, 1000))\n"
    "Y = rng.random((1000, 5)) < 0.3\n"
    "P = rng.random((1000, 5)) < 0.3\n"
)


def _scores(seed: int) -> str:
    return (
        "import numpy as np\n"
        f"rng = np.random.default_rng({seed})\n"
        "S = rng.random((1000, 50))\n"
        "Y = (rng.random((1000, 50)) < 0.1).astype(np.int64)\n"
    )


_SK_SCORES = "from sklearn.metrics import f1_score\nprint(f1_score(Y, (S >= 0.5), average='macro'))"

# name -> (data, fmacro code, scikit-learn code)
CASES = {
    "tune, 1,000 x 50 (ends at a fixed point)": (
        _scores(0),
        "from fmacro.optimize import tune\nprint(tune(S, Y).f)",
        _SK_SCORES,
    ),
    "tune, prior=30 (ends on a hull edge)": (
        _scores(0),
        "from fmacro.optimize import tune\nprint(tune(S, Y, prior=30).f)",
        _SK_SCORES,
    ),
    "fixed_point, 1,000 x 50 (ends at a fixed point)": (
        _scores(1),
        "from fmacro.optimize import fixed_point\nprint(fixed_point(S, Y).f)",
        _SK_SCORES,
    ),
    "fixed_point (ends on a hull edge, exact search)": (
        _scores(0),
        "from fmacro.optimize import fixed_point\nprint(fixed_point(S, Y).f)",
        _SK_SCORES,
    ),
    "validations: binary + multiclass + multi-label": (
        _scores(0) + "e = rng.integers(0, 5, 1000)\nq = rng.integers(0, 5, 1000)\n",
        "from fmacro.validation import BinFValidation, MultiFValidation, MultiLabelFValidation\n"
        "print(BinFValidation.from_predictions(e % 2, q % 2).f1)\n"
        "print(MultiFValidation.from_predictions(e, q).macro_f)\n"
        "print(MultiLabelFValidation.from_predictions(Y, (S >= 0.5).astype(np.int64)).macro_f)",
        "from sklearn.metrics import f1_score\n"
        "print(f1_score(e % 2, q % 2))\n"
        "print(f1_score(e, q, average='macro'))\n"
        "print(f1_score(Y, (S >= 0.5).astype(np.int64), average='macro'))",
    ),
    "multiclass F (5 classes)": (
        _LABELS,
        "from fmacro.validation import MultiFValidation\n"
        "print(MultiFValidation.from_predictions(y, p).macro_f)",
        "from sklearn.metrics import f1_score\nprint(f1_score(y, p, average='macro'))",
    ),
    "binary F1": (
        _LABELS,
        "from fmacro.validation import BinFValidation\n"
        "print(BinFValidation.from_predictions(y == 1, p == 1, positive=True).f1)",
        "from sklearn.metrics import f1_score\nprint(f1_score(y == 1, p == 1))",
    ),
    "multi-label F (5 labels)": (
        _LABELS,
        "from fmacro.validation import MultiLabelFValidation\n"
        "print(MultiLabelFValidation.from_predictions(Y, P).macro_f)",
        "from sklearn.metrics import f1_score\nprint(f1_score(Y, P, average='macro'))",
    ),
}

# name -> (arguments of `python -m fmacro`, goal in seconds, cold)
COMMANDS = {
    "fmacro thresholds": (["thresholds"], 10.0),
    "fmacro thresholds --plot": (["thresholds", "--plot", "{tmp}"], 15.0),
}

# Kernel statistics of one run (compile or interpreting time per kernel), printed as JSON.
_PROBE = """
import atexit, json, sys, time
from fmacro.validation import dispatch as D
stats = {}
plain = D._Chooser.__call__
def call(self, *args):
    name = self._disp.py_func.__module__ + "." + self._disp.py_func.__qualname__
    s = stats.setdefault(name, {"compile": 0.0, "interpret": 0.0, "elements": 0,
                                "estimate": D.COMPILE_SECONDS + D.COMPILE_SECONDS_PER_BYTE
                                * D._bytecode(self._disp, set())})
    n = len(self._disp.overloads)
    t = time.perf_counter()
    out = plain(self, *args)
    if len(self._disp.overloads) > n:
        s["compile"] += time.perf_counter() - t
        return out
    work = self._work(*args) if self._work else D._elements(args)
    def timed(*a):
        t0 = time.perf_counter()
        try:
            return out(*a)
        finally:
            s["interpret"] += time.perf_counter() - t0
            s["elements"] += work
    return timed
D._Chooser.__call__ = call
atexit.register(lambda: print("KERNELS " + json.dumps(stats), file=sys.stderr))
"""


def _env(cache: str, mode: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "FMACRO_KERNELS"}
    env["NUMBA_CACHE_DIR"] = cache
    if mode is not None:
        env["FMACRO_KERNELS"] = mode
    return env


def _run(argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, check=True, capture_output=True, text=True)
    return time.perf_counter() - start, done.stderr


def _python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def _kernel_stats(stderr: str) -> dict[str, dict[str, float]]:
    for line in stderr.splitlines():
        if line.startswith("KERNELS "):
            return json.loads(line[len("KERNELS ") :])  # type: ignore[no-any-return]
    return {}


def _case_row(name: str, argv: list[str], peer: list[str] | None, repeats: int) -> list[str]:
    cold, cold_c, again, warm, warm_c, sk = [], [], [], [], [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as auto, tempfile.TemporaryDirectory() as filled:
            cold.append(_run(argv, _env(auto, None))[0])
            again.append(_run(argv, _env(auto, None))[0])
            cold_c.append(_run(argv, _env(filled, "compiled"))[0])
            warm.append(_run(argv, _env(filled, None))[0])
            warm_c.append(_run(argv, _env(filled, "compiled"))[0])
        if peer is not None:
            sk.append(_run(peer, dict(os.environ))[0])
    med = [statistics.median(x) for x in (cold, cold_c, again, warm, warm_c)]
    row = [name, *(f"{m:.2f} s" for m in med)]
    if peer is not None:
        s = statistics.median(sk)
        row += [f"{s:.2f} s", f"{med[0] / s:.2f}x", f"{med[3] / s:.2f}x"]
    return row


def _break_even(argvs: list[list[str]]) -> list[list[str]]:
    """Per kernel, over the given runs: compile time per process that compiled it
    (compiled, cold), interpreting time per element (interpreted) and the estimate."""
    compiled: dict[str, list[float]] = {}
    estimate: dict[str, float] = {}
    interp: dict[str, list[float]] = {}
    for argv in argvs:
        probe = [argv[0], "-c", _PROBE + "\nimport runpy, sys\n" + _runner(argv)]
        with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
            for k, v in _kernel_stats(_run(probe, _env(a, "compiled"))[1]).items():
                if v["compile"] > 0:
                    compiled.setdefault(k, []).append(v["compile"])
                    estimate[k] = v["estimate"]
            for k, v in _kernel_stats(_run(probe, _env(b, "interpreted"))[1]).items():
                seconds, elements = interp.setdefault(k, [0.0, 0.0])
                interp[k] = [seconds + v["interpret"], elements + v["elements"]]
    rows = []
    for k in sorted(compiled, key=lambda k: -statistics.mean(compiled[k])):
        c = statistics.mean(compiled[k])
        seconds, elements = interp.get(k, [0.0, 0.0])
        per = seconds / elements if elements else float("nan")
        rows.append(
            [
                k.removeprefix("fmacro."),
                f"{c:.2f} s",
                f"{estimate[k]:.2f} s",
                f"{per * 1e6:.2f} µs",
                f"{c / per:,.0f}" if elements else "-",
            ]
        )
    return rows


def _runner(argv: list[str]) -> str:
    """Code that runs ``argv`` (``python -c CODE`` or ``python -m fmacro ...``) in-process."""
    if argv[1] == "-c":
        return f"exec(compile({argv[2]!r}, '<case>', 'exec'))"
    return f"sys.argv = {argv[2:]!r}\nrunpy.run_module('fmacro', run_name='__main__')"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=REPEATS)
    ap.add_argument("--quick", action="store_true", help="one repeat, no break-even section")
    args = ap.parse_args()
    repeats = 1 if args.quick else args.repeats
    rows = []
    for name, (data, ours, peer) in CASES.items():
        rows.append(_case_row(name, _python(data + ours), _python(data + peer), repeats))
        print(" | ".join(rows[-1]), flush=True)
    cli_rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, (argv, goal) in COMMANDS.items():
            full = [sys.executable, "-m", "fmacro", *(a.format(tmp=tmp) for a in argv)]
            row = _case_row(name, full, None, max(1, repeats // 2))
            cli_rows.append([*row, f"{goal:.0f} s"])
            print(" | ".join(cli_rows[-1]), flush=True)
    even = []
    if not args.quick:
        cases = [_python(CASES[c][0] + CASES[c][1]) for c in list(CASES)[:5]]
        even = _break_even([*cases, [sys.executable, "-m", "fmacro", "thresholds"]])
    facts = machine_facts(["numpy", "numba", "scikit-learn"])
    text = "\n".join(
        [
            "# Time to first result",
            "",
            "A fresh Python process imports the library and computes one result; time from "
            f"process start to the printed result, median of {repeats} runs. Interpreter "
            "start and the imports are in every figure. Cold: empty numba cache (a fresh "
            "install, CI job or dask worker); fmacro interprets a kernel while compiling it "
            "would cost more. Cold, compiled: every kernel compiled on first use "
            "(`FMACRO_KERNELS=compiled`; fmacro before interpreted kernels). Again: a second "
            "process on the cache the cold one left. Warm: a process on the cache the "
            "compiled run filled (it loads the machine code). scikit-learn: a fresh process "
            "computing `f1_score(average='macro')` on the same data. 1,000 x 50 random "
            "scores, labels positive with probability 0.1 (the data of issue 27); goal: cold "
            "at most 2x scikit-learn.",
            "",
            markdown_table(
                [
                    "task",
                    "cold",
                    "cold, compiled",
                    "again",
                    "warm",
                    "warm, compiled",
                    "scikit-learn",
                    "cold vs scikit-learn",
                    "warm vs scikit-learn",
                ],
                rows,
            ),
            "",
            "The README's first command (bundled Corel5k rankings, 500 x 374), start to "
            "printed table:",
            "",
            markdown_table(
                ["command", "cold", "cold, compiled", "again", "warm", "warm, compiled", "goal"],
                cli_rows,
            ),
            "",
            *(
                [
                    "Break-even per kernel (those of the first five cases and `fmacro "
                    "thresholds`, one process each): compile time of its signatures in a "
                    "process that compiles it (`FMACRO_KERNELS=compiled`, empty cache; mean "
                    "over those processes), the estimate `dispatch` makes from its bytecode "
                    "(0.1 s + 1 ms per byte of it and of the numba functions it calls), its "
                    "interpreting time per element of its array arguments "
                    "(`FMACRO_KERNELS=interpreted`; per unit of its declared `work` if it "
                    "declares one), and the elements whose interpreting costs as much as "
                    "compiling it.",
                    "",
                    markdown_table(
                        ["kernel", "compile", "estimate", "interpret / element", "break-even"],
                        even,
                    ),
                    "",
                ]
                if even
                else []
            ),
            "Machine: " + ", ".join(f"{k} {v}" for k, v in facts.items()),
        ]
    )
    (HERE / "results_startup.md").write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
