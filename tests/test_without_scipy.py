"""The core runs with the runtime dependencies only: scipy is an extra for sparse input.

Each check runs in a fresh interpreter in which importing scipy fails, as on a machine
where ``pip install fmacro`` did not bring it.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

BLOCK_SCIPY = """
import sys

class _BlockScipy:
    def find_spec(self, name, path=None, target=None):
        if name == "scipy" or name.startswith("scipy."):
            raise ModuleNotFoundError(f"No module named {name!r} (blocked by the test)")
        return None

sys.meta_path.insert(0, _BlockScipy())
"""


def run_without_scipy(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", BLOCK_SCIPY + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_cli_main_jobs_run_without_scipy() -> None:
    done = run_without_scipy(
        """
        from fmacro.cli import main
        assert main(["thresholds", "--quiet"]) == 0
        assert main(["evaluate"]) == 0
        import scipy  # the blocker works
        """
    )
    assert "fixed_point" in done.stdout and "F-macro" in done.stdout
    assert "blocked by the test" in done.stderr  # only the final deliberate import failed


def test_library_dense_paths_run_without_scipy() -> None:
    done = run_without_scipy(
        """
        import numpy as np
        from fmacro import optimize
        from fmacro.crossval import KFold, MultilabelStratifiedKFold, cross_validate
        from fmacro.validation import MultiLabelFValidation
        from fmacro.validation.datasets import load_dataset

        X, Y = load_dataset("emotions", "train")
        scores = X[:, :6]
        for name in ("fixed_point", "domain", "per_class", "cyclic", "global_threshold",
                     "proportional", "top_k"):
            result = getattr(optimize, name)(scores, Y)
            assert result.apply(scores).shape == Y.shape
        assert optimize.f_macro(scores, Y, optimize.fixed_point(scores, Y).thresholds) > 0
        list(MultilabelStratifiedKFold(k=3, seed=0).split(X, Y))
        cv = cross_validate(lambda Xt, Yt: (lambda Xv: np.zeros((len(Xv), 6), int) + Yt[0]),
                            X, Y, KFold(k=3, seed=0))
        assert isinstance(cv.pooled, MultiLabelFValidation)
        print("ok")
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("ok")
