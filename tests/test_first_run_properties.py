"""A user's property test passes on its first run: Hypothesis's default settings (200 ms
deadline per example) in a fresh process with an empty numba cache (a new virtualenv or
CI job).

Before fmacro interpreted kernels whose compilation costs more than the call, the first
example compiled them (seconds) and failed with DeadlineExceeded (issue 27). The user's
test file is written to a temporary folder and run by pytest in a subprocess that sees
none of this project's configuration: no conftest (whose profile turns the deadline off),
no pyproject, no HYPOTHESIS_PROFILE, no CI variables (Hypothesis's CI profile turns the
deadline off too).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

USER_TESTS = """
from datetime import timedelta

import numpy as np
from hypothesis import given, settings

from fmacro.crossval import KFold, StratifiedKFold
from fmacro.validation import BinFValidation, MultiFValidation, MultiLabelFValidation
from fmacro.validation.invariants import (
    check_f_between_p_and_r,
    check_folds_partition,
    check_micro_equals_accuracy,
)
from fmacro.validation.strategies import (
    binary_labels,
    multiclass_labels,
    multilabel_indicators,
    splitter_inputs,
)

settings.load_profile("default")


def test_the_default_settings_are_in_force():
    assert settings.default.deadline == timedelta(milliseconds=200)


# The README's example
@given(multiclass_labels())
def test_my_report(data):
    expected, predicted, k = data
    v = MultiFValidation.from_predictions(expected, predicted, classes=k)
    check_micro_equals_accuracy(v)
    check_f_between_p_and_r(v)


@given(binary_labels())
def test_binary(data):
    expected, predicted = data
    check_f_between_p_and_r(BinFValidation.from_predictions(expected, predicted))


@given(multilabel_indicators())
def test_multilabel(data):
    expected, predicted = data
    check_f_between_p_and_r(MultiLabelFValidation.from_predictions(expected, predicted))


@given(multilabel_indicators(sparse=True))
def test_multilabel_sparse(data):
    expected, predicted = data
    check_f_between_p_and_r(MultiLabelFValidation.from_predictions(expected, predicted))


@given(multiclass_labels(min_samples=1))
def test_weighted(data):
    expected, predicted, k = data
    w = np.linspace(0.5, 2.0, expected.size)
    v = MultiFValidation.from_predictions(expected, predicted, classes=k, sample_weight=w)
    check_f_between_p_and_r(v)


@given(splitter_inputs())
def test_folds(data):
    X, y, k = data
    check_folds_partition(KFold(k=k, seed=0).split(X), len(y))
    check_folds_partition(StratifiedKFold(k=k, seed=0).split(X, y), len(y))
"""

# Variables by which Hypothesis detects a CI server (and turns the deadline off).
_CI_VARIABLES = (
    "CI",
    "TF_BUILD",
    "BUILDKITE",
    "CIRCLECI",
    "CIRRUS_CI",
    "CODEBUILD_BUILD_ID",
    "GITHUB_ACTIONS",
    "GITLAB_CI",
    "HEROKU_TEST_RUN_ID",
    "TEAMCITY_VERSION",
)


def test_a_users_property_tests_pass_on_the_first_run(tmp_path: Path) -> None:
    project = tmp_path / "user_project"
    project.mkdir()
    (project / "test_user.py").write_text(USER_TESTS, encoding="utf-8")
    ini = project / "pytest.ini"
    ini.write_text("[pytest]\n", encoding="utf-8")
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in _CI_VARIABLES and k not in ("HYPOTHESIS_PROFILE", "FMACRO_KERNELS")
    }
    env["NUMBA_CACHE_DIR"] = str(cache)  # empty: nothing compiled yet
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-c",
            str(ini),
            "--rootdir",
            str(project),
            "-q",
            str(project / "test_user.py"),
        ],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "7 passed" in done.stdout, done.stdout[-2000:]
