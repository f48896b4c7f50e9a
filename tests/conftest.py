"""Test configuration shared by all test modules."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, settings

# A bounded profile: enough examples to find real bugs, small enough to stay fast. Under CI
# the examples are derandomized, so a run is reproducible and a landing never depends on
# a lucky draw; locally each run explores new examples.
settings.register_profile(
    "ci",
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "dev", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


# Real datasets the tests read beyond those fmacro bundles (Corel5k, emotions): small
# Mulan copies in tests/data (yeast, enron, medical, genbase, birds; unchanged gzip files
# from the shared data set), so the suite runs on a fresh machine.
TEST_DATA = Path(__file__).resolve().parent / "data"
os.environ.setdefault("FMACRO_DATA", str(TEST_DATA))
