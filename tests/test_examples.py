"""The quick example scripts run and print what they promise."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run_example(name: str) -> str:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_chunked_evaluation_pools_exactly() -> None:
    out = run_example("chunked_evaluation.py")
    assert "10,000,000 predictions in 50 chunks" in out
    assert "F-macro 0.8" in out


def test_fdelta_quickstart() -> None:
    out = run_example("fdelta_quickstart.py")
    assert "F-Delta" in out and "weighted delta rule" in out


def test_dask_cluster_example() -> None:
    out = run_example("dask_cluster.py")
    assert "10,000,000 predictions: F-macro 0.8" in out
    assert "cross-validation: pooled F-macro" in out
    assert "Corel5k thresholds: F-macro 0." in out
