"""Test configuration shared by all test modules."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, settings

# CI runs a bounded profile: enough examples to find real bugs, small enough to stay fast.
settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "dev", max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"

# The Mulan datasets beyond the bundled ones live in ../shared/data next to the checkout
# (as in CI); point the loader there whatever the working directory.
if SHARED_DATA.is_dir():
    os.environ.setdefault("FMACRO_DATA", str(SHARED_DATA))
