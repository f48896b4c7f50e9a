"""LS / LNS / RND generators (eqs. 30-40): sizes, dimensions, distributions, seeding."""

from __future__ import annotations

import numpy as np
import pytest

from fmacro.optimize.fdelta import PAPER_RATIOS, class_sizes, generate


@pytest.mark.parametrize(
    ("ratio", "sizes"),
    [(100, (1000, 10)), (10, (918, 92)), (1, (505, 505)), (0.1, (92, 918)), (0.01, (10, 1000))],
)
def test_class_sizes_follow_the_ratio(ratio, sizes):
    # hand-computed: |A| = round(1010 * r / (1 + r))
    assert class_sizes(ratio, 1010) == sizes
    data = generate("RND", ratio, 1010, seed=0)
    assert (data.n_a, data.n_b) == sizes
    assert data.X.shape[0] == 1010 and set(np.unique(data.y)) == {-1, 1}


def test_paper_ratios():
    assert PAPER_RATIOS == (100.0, 10.0, 1.0, 0.1, 0.01)


def test_dimension_is_discrete_uniform_2_to_20():
    dims = [generate("RND", 1.0, 10, seed=s).n_features for s in range(600)]
    assert min(dims) == 2 and max(dims) == 20
    counts = np.bincount(dims, minlength=21)[2:]
    assert counts.min() > 10  # each of the 19 values occurs (expected ~32 each)
    assert generate("LS", 1.0, 10, d=7, seed=0).n_features == 7


@pytest.mark.parametrize("kind", ["LS", "LNS", "RND"])
def test_seeded_determinism(kind):
    a = generate(kind, 0.1, 300, seed=42)
    b = generate(kind, 0.1, 300, seed=42)
    c = generate(kind, 0.1, 300, seed=43)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert a.X.shape != c.X.shape or not np.array_equal(a.X, c.X)
    assert not a.X.flags.writeable and not a.y.flags.writeable
    X, y = a  # unpacks
    assert X is a.X and y is a.y


def test_ls_matches_its_drawn_normal_distributions():
    data = generate("LS", 1.0, 40_000, d=6, seed=3)
    comp = data.components
    for cls, label in (("a", 1), ("b", -1)):
        mu, var = comp[f"means_{cls}"], comp[f"variances_{cls}"]
        assert mu.shape == var.shape == (1, 6)
        assert np.all(np.abs(mu) <= 1) and np.all((var >= 0) & (var <= 1))
        rows = data.X[data.y == label]
        se = np.sqrt(var[0] / rows.shape[0])
        assert np.all(np.abs(rows.mean(axis=0) - mu[0]) < 5 * se + 1e-12)
        np.testing.assert_allclose(rows.var(axis=0), var[0], rtol=0.06, atol=1e-3)
        # diagonal covariance: off-diagonal correlations vanish
        corr = np.corrcoef(rows.T)
        assert np.abs(corr[~np.eye(6, dtype=bool)]).max() < 0.05


def test_lns_mixtures_have_2_to_5_components():
    ks = set()
    for s in range(60):
        comp = generate("LNS", 1.0, 50, d=3, seed=s).components
        for cls in "ab":
            k = comp[f"means_{cls}"].shape[0]
            assert comp[f"variances_{cls}"].shape == (k, 3)
            ks.add(k)
    assert ks == {2, 3, 4, 5}


def test_lns_mixture_mean_is_the_component_average():
    data = generate("LNS", 1.0, 60_000, d=2, seed=5)
    for cls, label in (("a", 1), ("b", -1)):
        mu = data.components[f"means_{cls}"]
        rows = data.X[data.y == label]
        np.testing.assert_allclose(rows.mean(axis=0), mu.mean(axis=0), atol=0.03)


def test_rnd_is_uniform_on_the_cube():
    data = generate("RND", 1.0, 40_000, d=4, seed=1)
    assert data.X.min() >= -1 and data.X.max() <= 1
    for label in (1, -1):
        rows = data.X[data.y == label]
        np.testing.assert_allclose(rows.mean(axis=0), 0.0, atol=0.03)
        np.testing.assert_allclose(rows.var(axis=0), 1.0 / 3.0, atol=0.02)
    assert data.components == {}


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        (("XY", 1.0, 10), ValueError, r"kind must be one of \['LS', 'LNS', 'RND'\]"),
        (("LS", 0.0, 10), ValueError, "ratio must be a finite number > 0"),
        (("LS", 0.01, 50), ValueError, r"n=50 with ratio=0.01 leaves a class without examples"),
        (("LS", 1.0, 1), ValueError, "n must be an integer >= 2"),
        (("LS", "1", 10), TypeError, "ratio must be a real number"),
    ],
)
def test_bad_generator_arguments(args, error, message):
    with pytest.raises(error, match=message):
        generate(*args)
