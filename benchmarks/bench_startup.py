"""Time to first result in a fresh process: fmacro vs scikit-learn, cold and warm numba cache.

Each case is a new Python process that imports the library and scores 1,000 labels once
(the time a notebook user or a CLI call waits), measured from process start to the printed
result. fmacro's numba kernels are compiled on the first call in an environment and cached
on disk: "cold" points ``NUMBA_CACHE_DIR`` at an empty folder (a fresh install), "warm"
reuses the cache the cold run wrote. Writes benchmarks/results_startup.md.

    python benchmarks/bench_startup.py
"""

from __future__ import annotations

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

_DATA = (
    "import numpy as np\n"
    "rng = np.random.default_rng(0)\n"
    "y = rng.integers(0, 5, 1000)\n"
    "p = np.where(rng.random(1000) < 0.7, y, rng.integers(0, 5, 1000))\n"
    "Y = rng.random((1000, 5)) < 0.3\n"
    "P = rng.random((1000, 5)) < 0.3\n"
)

CASES = {
    "multiclass F (5 classes)": (
        "from fmacro.validation import MultiFValidation\n"
        "print(MultiFValidation.from_predictions(y, p).macro_f)",
        "from sklearn.metrics import f1_score\nprint(f1_score(y, p, average='macro'))",
    ),
    "binary F1": (
        "from fmacro.validation import BinFValidation\n"
        "print(BinFValidation.from_predictions(y == 1, p == 1, positive=True).f1)",
        "from sklearn.metrics import f1_score\nprint(f1_score(y == 1, p == 1))",
    ),
    "multi-label F (5 labels)": (
        "from fmacro.validation import MultiLabelFValidation\n"
        "print(MultiLabelFValidation.from_predictions(Y, P).macro_f)",
        "from sklearn.metrics import f1_score\nprint(f1_score(Y, P, average='macro'))",
    ),
}


def _run(code: str, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", _DATA + code], env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    base = dict(os.environ)
    rows = []
    for name, (ours, peer) in CASES.items():
        cold, warm, sk = [], [], []
        for _ in range(REPEATS):
            with tempfile.TemporaryDirectory() as cache:
                env = {**base, "NUMBA_CACHE_DIR": cache}
                cold.append(_run(ours, env))
                warm.append(_run(ours, env))
            sk.append(_run(peer, base))
        c, w, s = (statistics.median(x) for x in (cold, warm, sk))
        rows.append([name, f"{c:.2f} s", f"{w:.2f} s", f"{s:.2f} s", f"{w / s:.2f}x"])
    facts = machine_facts(["numpy", "numba", "scikit-learn"])
    text = "\n".join(
        [
            "# Time to first result",
            "",
            "A fresh Python process imports the library and scores 1,000 labels once; time "
            "from process start to the printed result, median of "
            f"{REPEATS} runs. Cold: empty numba cache (a fresh install compiles the kernels "
            "it needs); warm: the cache written by the cold run. Interpreter start and numpy "
            "import are in every figure.",
            "",
            markdown_table(
                ["task", "fmacro cold", "fmacro warm", "scikit-learn", "warm vs scikit-learn"],
                rows,
            ),
            "",
            "Machine: " + ", ".join(f"{k} {v}" for k, v in facts.items()),
        ]
    )
    (HERE / "results_startup.md").write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
