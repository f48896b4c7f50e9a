"""The section-4 experiment: eq. 42 t statistic, verdicts, seeding, CDF and JSON."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import ttest_rel
from sklearn.metrics import f1_score

from fmacro.optimize.fdelta import experiment, f_score_a, paired_t, train, verdict
from fmacro.optimize.fdelta.generators import generate


def test_paired_t_hand_computed():
    # D = [1, 2, 3]: mean 2, population variance 2/3, t = 2 / sqrt(2/3) * sqrt(2) = 2 sqrt(3)
    assert paired_t([2, 4, 6], [1, 2, 3]) == pytest.approx(2 * math.sqrt(3))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=3, max_size=40))
def test_paired_t_equals_scipy_ttest_rel(pairs):
    a, b = np.array(pairs).T
    d = a - b
    if np.ptp(d) < 1e-9:
        return
    assert paired_t(a, b) == pytest.approx(ttest_rel(a, b).statistic, rel=1e-9)


def test_paired_t_degenerate_cases():
    assert paired_t([1, 1], [0, 0]) == math.inf
    assert paired_t([0, 0], [1, 1]) == -math.inf
    assert math.isnan(paired_t([1, 1], [1, 1]))
    assert math.isnan(paired_t([1], [0]))
    with pytest.raises(ValueError, match="equal length"):
        paired_t([1, 2], [1])


def test_verdict_at_1_64():
    assert verdict(1.64) == "F-Delta better"
    assert verdict(1.639) == "no resolve"
    assert verdict(-1.64) == "delta better"
    assert verdict(math.nan) == "no resolve"


def test_f_score_a_is_the_f1_of_class_a():
    X, y = generate("LNS", 0.3, 300, d=3, seed=0)
    model = train(X, y, gamma=5.0, seed=0, max_iter=10)
    assert f_score_a(model, X, y == 1) == pytest.approx(f1_score(y, model.predict(X)))


@pytest.fixture(scope="module")
def small():
    return experiment(
        types=["LS", "RND"],
        ratios=[1.0, 10.0],
        datasets=2,
        repetitions=3,
        n=200,
        max_iter=50,
        random_trials=10,
        seed=5,
        progress=False,
    )


def test_experiment_shape_and_summary(small):
    assert [(c.kind, c.ratio) for c in small.cells] == [
        ("LS", 1.0),
        ("LS", 10.0),
        ("RND", 1.0),
        ("RND", 10.0),
    ]
    cell = small.cell("RND", 1.0)
    assert cell.n == 6
    assert np.all((cell.f_delta >= 0) & (cell.f_delta <= 1))
    assert np.all((cell.gamma >= 1) & (cell.gamma <= 50))
    assert np.all((cell.step >= 1e-3) & (cell.step <= 1))
    assert cell.t == pytest.approx(paired_t(cell.f_fdelta, cell.f_delta))
    x, p = cell.cdf()
    assert np.all(np.diff(x) >= 0) and p[-1] == 1.0 and p.shape == (6,)
    np.testing.assert_allclose(np.sort(cell.differences), x)
    assert not cell.f_delta.flags.writeable
    table = small.table()
    assert table.count("\n") == 5 and "| RND | 1 | 6 |" in table


def test_cells_do_not_depend_on_which_other_cells_run(small):
    alone = experiment(
        types=["RND"],
        ratios=[1.0],
        datasets=2,
        repetitions=3,
        n=200,
        max_iter=50,
        random_trials=10,
        seed=5,
        progress=False,
    )
    np.testing.assert_array_equal(alone.cells[0].f_fdelta, small.cell("RND", 1.0).f_fdelta)
    np.testing.assert_array_equal(alone.cells[0].f_delta, small.cell("RND", 1.0).f_delta)


def test_parallel_run_gives_the_same_numbers(small):
    par = experiment(
        types=["LS", "RND"],
        ratios=[1.0, 10.0],
        datasets=2,
        repetitions=3,
        n=200,
        max_iter=50,
        random_trials=10,
        seed=5,
        progress=False,
        jobs=2,
    )
    for a, b in zip(small.cells, par.cells, strict=True):
        np.testing.assert_array_equal(a.f_fdelta, b.f_fdelta)


def test_json_round_trip(small, tmp_path):
    path = tmp_path / "out.json"
    small.to_json(path)
    data = json.loads(path.read_text())
    assert data["config"]["datasets"] == 2 and data["config"]["seed"] == 5
    cell = data["cells"][2]
    assert cell["type"] == "RND" and len(cell["f_delta"]) == 6
    assert cell["cdf"]["p"][-1] == 1.0
    assert cell["t"] == pytest.approx(small.cells[2].t)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"types": ["XX"]}, "types must be drawn from"),
        ({"ratios": [0.01], "n": 150}, "needs at least 2 examples of each class"),
        ({"datasets": 0}, "datasets must be an integer >= 1"),
        ({"gamma_range": (5.0, 1.0)}, "gamma_range"),
    ],
)
def test_bad_experiment_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        experiment(progress=False, **kwargs)
