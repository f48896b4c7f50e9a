"""The house of ``tune`` (issue 25): settings checked once, one seam, one rule, small modules.

* One ``tune`` call (the hull-only path, an edge crossing, ``prior="cv"``, ``method="exact"``)
  and one ``fmacro.dask.tune`` call check ``beta`` and ``zero_division`` once, at the public
  entry: internal steps take the checked :class:`TuneSettings` and the searches' ``*_checked``
  entries.
* The rule for the empty classes, on the walk (:class:`WalkedColumns`) and on a copy
  (:class:`CopiedColumns`), gives the thresholds computed here by hand.
* What the empty classes predict on the tuning rows is counted as by hand.
* No module of optimize/tuning or src/fmacro/dask is over 450 lines.
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import fmacro.validation.checks as checks
from fmacro.optimize import tune
from fmacro.optimize.tuning.columns import CopiedColumns, WalkedColumns
from fmacro.optimize.tuning.settings import TuneSettings
from fmacro.optimize.tuning.source import walk_inputs

CHECKOUT = Path(__file__).resolve().parent.parent

# Not counted: ThresholdResult's constructor converts its beta with check_beta (the result's
# schema, checked whoever builds one); attrs holds that function itself, so the wrappers
# below do not see it.


def _data(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """40 x 5 scores rounded to 2 digits (ties), the last class without a positive."""
    rng = np.random.default_rng(seed)
    y = (rng.random((40, 5)) < 0.2).astype(np.int8)
    y[:, -1] = 0
    s = np.round(rng.random((40, 5)) + 0.4 * y, 2)
    return s, y


@pytest.fixture
def check_calls(monkeypatch: pytest.MonkeyPatch) -> Counter[tuple[str, str]]:
    """Counts of (check, calling module), a counting wrapper in every module that imported
    ``check_beta`` or ``check_zero_division``."""
    calls: Counter[tuple[str, str]] = Counter()
    for name in ("check_beta", "check_zero_division"):
        original = getattr(checks, name)

        def counted(*args: Any, _name: str = name, _original: Any = original, **kw: Any) -> Any:
            calls[_name, sys._getframe(1).f_globals["__name__"]] += 1
            return _original(*args, **kw)

        for module in list(sys.modules.values()):
            if getattr(module, "__name__", "").startswith("fmacro") and (
                getattr(module, name, None) is original
            ):
                monkeypatch.setattr(module, name, counted)
    return calls


def _own(calls: Counter[tuple[str, str]], name: str) -> dict[str, int]:
    return {m: c for (n, m), c in calls.items() if n == name}


@pytest.mark.parametrize(
    ("seed", "options", "searched"),
    [
        (0, {"prior": 1.0}, "hull"),
        (1, {"prior": 1.0}, "screened"),
        (1, {"prior": "cv"}, None),
        (1, {"prior": 1.0, "method": "exact"}, "every cut"),
        (1, {"prior": 1.0, "base_rates": np.full(5, 0.2), "zero_division": math.nan}, "screened"),
    ],
)
def test_one_tune_call_checks_beta_and_zero_division_once(
    check_calls: Counter[tuple[str, str]], seed: int, options: dict[str, Any], searched: str | None
) -> None:
    s, y = _data(seed)
    result = tune(s, y, beta=1.0, **options)
    if searched is not None:  # the path meant is the path taken
        assert result.diagnostics["searched_cuts"] == searched
    entry = "fmacro.optimize.tuning.tune"
    assert _own(check_calls, "check_beta") == {entry: 1}
    assert _own(check_calls, "check_zero_division") == {entry: 1}


def test_one_dask_tune_call_checks_beta_and_zero_division_once(
    check_calls: Counter[tuple[str, str]],
) -> None:
    import dask.array as da

    import fmacro.dask

    s, y = _data(1)
    got = fmacro.dask.tune(
        da.from_array(s, chunks=(40, 2)), da.from_array(y, chunks=(40, 2)), prior=1.0
    )
    assert got.diagnostics["searched_cuts"] == "screened"
    entry = "fmacro.dask.tune"
    assert _own(check_calls, "check_beta") == {entry: 1}
    assert _own(check_calls, "check_zero_division") == {entry: 1}


# An empty class with scores 0.9, 0.5, 0.1 (N = 3) beside a class with positives. With a = 3,
# prior centre pi = 1/2 and n_eval = inf, its cut of j objects has p~ = a pi / (j + a) =
# 1.5 / (j + 3) and r~ = (a j / N) / a = j / 3 (the empty cut p = zero_division = 0, r = 0):
#   j:        0      1       2      3
#   p~:       0      0.375   0.3    0.25
#   r~:       0      1/3     2/3    1
# At phi = 0.1 (cos 0.9950, sin 0.0998) the values are 0, 0.4064, 0.3651, 0.3486: the first
# cut wins, threshold 0.9. At phi = pi/4 they are 0, 0.5009, 0.6835, 0.8839: the all-objects
# cut, threshold -inf.
EMPTY_SCORES = np.array([[0.3, 0.9], [0.8, 0.5], [0.2, 0.1]])
EMPTY_LABELS = np.array([[0, 0], [1, 0], [0, 0]])


def _rule_by_hand(weights: np.ndarray, a: float, pi: float, phi: float) -> float:
    """The rule on the empty column: rows in score order 0.9, 0.5, 0.1, weighted."""
    n = weights.sum()
    best, chosen = 0.0, 0  # the empty cut: p = 0, r = 0
    for j_rows in (1, 2, 3):
        j = weights[:j_rows].sum()
        v = math.cos(phi) * (a * pi / (j + a)) + math.sin(phi) * (a * j / n / a)
        if v > best:
            best, chosen = v, j_rows
    return math.inf if chosen == 0 else (-math.inf if chosen == 3 else [0.9, 0.5][chosen - 1])


@pytest.mark.parametrize("weights", [None, np.array([2.0, 1.0, 1.0])])
def test_the_empty_class_rule_walked_and_copied_is_the_rule_by_hand(
    weights: np.ndarray | None,
) -> None:
    settings = TuneSettings(1.0, 0.0, math.inf)
    cols, centres = np.array([1]), np.array([0.5])
    phis = [0.1, math.pi / 4]
    copied = CopiedColumns(EMPTY_SCORES, weights)
    got = copied.empty_thresholds(cols, centres, [3.0, 3.0], phis, settings)[:, 0].tolist()
    w = np.ones(3) if weights is None else weights
    assert got == [_rule_by_hand(w, 3.0, 0.5, phi) for phi in phis]
    if weights is None:
        assert got == [0.9, -math.inf]
        walked = WalkedColumns(walk_inputs(EMPTY_SCORES, EMPTY_LABELS))
        found = walked.empty_thresholds(cols, centres, [3.0, 3.0], phis, settings)
        assert found[:, 0].tolist() == got


def test_what_the_empty_classes_predict_is_counted_on_their_rows() -> None:
    cols, thresholds = np.array([1]), np.array([0.5])  # rows 0 (0.9) and 1 (0.5) reach it
    inputs = walk_inputs(EMPTY_SCORES, EMPTY_LABELS)
    assert WalkedColumns(inputs).empty_predicted(cols, thresholds).tolist() == [2]
    assert WalkedColumns(inputs, np.array([1, 2])).empty_predicted(cols, thresholds).tolist() == [1]
    weighted = CopiedColumns(EMPTY_SCORES, np.array([2.0, 1.0, 1.0]))
    assert weighted.empty_predicted(cols, thresholds).tolist() == [3.0]


@pytest.mark.parametrize("folder", ["optimize/tuning", "src/fmacro/dask"])
def test_no_module_of_the_house_is_over_450_lines(folder: str) -> None:
    sizes = {
        p.name: len(p.read_text(encoding="utf-8").splitlines())
        for p in (CHECKOUT / folder).glob("*.py")
    }
    assert sizes and all(n > 0 for n in sizes.values())
    assert {name: n for name, n in sizes.items() if n > 450} == {}
