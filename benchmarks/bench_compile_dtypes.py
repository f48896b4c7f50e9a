"""What each counting kernel costs on its first call, per input dtype, compiled or not.

For every validation entry point and label dtype, two fresh processes with an EMPTY numba
cache time the first call on 1,000 labels (10 classes; multi-label 200 x 10): one with
``FMACRO_KERNELS=compiled`` (what every first call cost before issue 27: numba compiles the
kernel for that dtype), one with the default ``auto`` (the kernel is interpreted while that
costs less than compiling). The difference is what the dispatch gains on that first call.
Writes results_compile_dtypes.md.

    python benchmarks/bench_compile_dtypes.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

CASES = {
    "binary": (
        "BinFValidation.from_predictions(e, p).f1",
        "e = (rng.random(1000) < 0.4).astype(DT); p = (rng.random(1000) < 0.4).astype(DT)",
    ),
    "multiclass": (
        "MultiFValidation.from_predictions(e, p).f_macro",
        "e = rng.integers(0, 10, 1000).astype(DT); p = rng.integers(0, 10, 1000).astype(DT)",
    ),
    "multi-label dense": (
        "MultiLabelFValidation.from_predictions(e, p).f_macro",
        "e = (rng.random((200, 10)) < 0.3).astype(DT); "
        "p = (rng.random((200, 10)) < 0.3).astype(DT)",
    ),
}
DTYPES = ("int64", "int32", "uint8", "bool")

SCRIPT = """
import time, numpy as np
from fmacro.validation import BinFValidation, MultiFValidation, MultiLabelFValidation
rng = np.random.default_rng(0)
DT = np.{dtype}
{setup}
t = time.perf_counter(); {call}; first = time.perf_counter() - t
t = time.perf_counter(); {call}; again = time.perf_counter() - t
print(first, again)
"""


def first_call(case: str, dtype: str, mode: str) -> tuple[float, float]:
    call, setup = CASES[case]
    if dtype == "bool" and case == "multiclass":
        return float("nan"), float("nan")
    code = SCRIPT.format(dtype="bool_" if dtype == "bool" else dtype, setup=setup, call=call)
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "FMACRO_KERNELS": mode}
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        ).stdout.split()
    return float(out[0]), float(out[1])


def main() -> None:
    rows = [
        "| entry point | label dtype | first call, compiled | first call, auto | gain |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for case in CASES:
        for dtype in DTYPES:
            compiled, _ = first_call(case, dtype, "compiled")
            auto, _ = first_call(case, dtype, "auto")
            if compiled != compiled:  # not a case (bool multiclass labels)
                continue
            rows.append(
                f"| {case} | {dtype} | {compiled:.2f} s | {auto * 1000:.1f} ms | "
                f"{compiled / auto:.0f}x |"
            )
            print(rows[-1], flush=True)
    text = "\n".join(
        [
            "# First call per input dtype: compiled (before issue 27) or interpreted (auto)",
            "",
            "Fresh processes, empty numba cache, 1,000 labels (10 classes; multi-label "
            "200 x 10), the call alone (imports excluded). `python "
            "benchmarks/bench_compile_dtypes.py`. Each label dtype is its own compilation "
            "of the counting kernel: before, every new dtype paid it on its first call.",
            "",
            *rows,
        ]
    )
    (HERE / "results_compile_dtypes.md").write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
