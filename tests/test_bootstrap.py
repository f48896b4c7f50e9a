"""Bootstrap of validations: resampled counts against a pure-Python reference, pooling
bit for bit, dask, seeds, intervals."""

from __future__ import annotations

import itertools
import math
import pickle
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fmacro.validation import BinFValidation, Counts, MultiFValidation, MultiLabelFValidation
from fmacro.validation.bootstrap import BootstrapResult, measure_names

MASK = 2**64 - 1


# --------------------------------------------------------------------- the reference


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def _thresholds() -> list[int]:
    # P(X <= k) of Poisson(1), exact rationals, scaled to 53 bits
    inv_e = sum(Fraction((-1) ** j, math.factorial(j)) for j in range(60))
    out: list[int] = []
    cdf = Fraction(0)
    for k in range(40):
        cdf += inv_e / math.factorial(k)
        t = math.floor(cdf * 2**53)
        if t >= 2**53 or (out and t == out[-1]):
            break
        out.append(t)
    return out


THRESHOLDS = _thresholds()


def reference_weights(seed: int, n: int, n_resamples: int, method: str) -> np.ndarray:
    """(B, n) times each object is drawn, by the documented generator, in plain Python."""
    base = _mix(seed & MASK)
    out = np.zeros((n_resamples, n), dtype=np.int64)
    for b in range(n_resamples):
        key = _mix((base + (b + 1) * 0x9E3779B97F4A7C15) & MASK)
        for j in range(n):
            bits = _mix((key + (j + 1) * 0x9E3779B97F4A7C15) & MASK) >> 11
            if method == "poisson":
                out[b, j] = sum(1 for t in THRESHOLDS if bits >= t)
            else:
                out[b, min(int(bits / 2**53 * n), n - 1)] += 1
    return out


def _binary_tables(e: list[int], p: list[int], w: np.ndarray) -> np.ndarray:
    tables = np.zeros((w.shape[0], 4))
    for b in range(w.shape[0]):
        for i, (ei, pi) in enumerate(zip(e, p, strict=True)):
            slot = {(1, 1): 0, (0, 1): 1, (1, 0): 2, (0, 0): 3}[(ei, pi)]
            tables[b, slot] += w[b, i]
    return tables


# --------------------------------------------------------------------- resampled counts


@pytest.mark.parametrize("method", ["poisson", "multinomial"])
def test_binary_tables_equal_the_reference(method: str) -> None:
    e = [1, 0, 1, 1, 0, 0, 1, 0, 1]
    p = [1, 1, 0, 1, 0, 1, 1, 0, 0]
    boot = BinFValidation.from_predictions(e, p, keep_outcomes=True).bootstrap(
        7, seed=12345, method=method
    )
    w = reference_weights(12345, len(e), 7, method)
    np.testing.assert_array_equal(boot.tables, _binary_tables(e, p, w))
    np.testing.assert_array_equal(boot.totals, w.sum(axis=1))
    if method == "multinomial":
        assert (boot.totals == len(e)).all()


def test_poisson_weights_have_the_poisson_moments() -> None:
    w = reference_weights(3, 200, 50, "poisson").ravel()
    assert abs(w.mean() - 1) < 0.05 and abs(w.var() - 1) < 0.1
    # P(0) = 1/e
    assert abs(np.mean(w == 0) - math.exp(-1)) < 0.02


@pytest.mark.parametrize("method", ["poisson", "multinomial"])
def test_multiclass_tables_equal_the_reference(method: str) -> None:
    e = [0, 1, 2, 2, 1, 0, 2]
    p = [0, 2, 2, 1, 1, 1, 2]
    boot = MultiFValidation.from_predictions(e, p, classes=3, keep_outcomes=True).bootstrap(
        5, seed=9, method=method
    )
    w = reference_weights(9, len(e), 5, method)
    for b in range(5):
        tp, fp, fn = np.zeros(3), np.zeros(3), np.zeros(3)
        for i, (ei, pi) in enumerate(zip(e, p, strict=True)):
            if ei == pi:
                tp[ei] += w[b, i]
            else:
                fn[ei] += w[b, i]
                fp[pi] += w[b, i]
        np.testing.assert_array_equal(boot.tables[b], np.concatenate([tp, fp, fn]))


def test_multilabel_tables_and_row_sums_equal_the_reference() -> None:
    y = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 0], [0, 0, 1]])
    p = np.array([[1, 0, 0], [0, 1, 1], [0, 1, 0], [0, 0, 0], [1, 0, 1]])
    v = MultiLabelFValidation.from_predictions(y, p, keep_outcomes=True)
    boot = v.bootstrap(6, seed=4)
    w = reference_weights(4, 5, 6, "poisson")
    for b in range(6):
        tp = (w[b][:, None] * (y & p)).sum(axis=0)
        fp = (w[b][:, None] * ((1 - y) & p)).sum(axis=0)
        fn = (w[b][:, None] * (y & (1 - p))).sum(axis=0)
        np.testing.assert_array_equal(boot.tables[b], np.concatenate([tp, fp, fn]))
        exact = (y == p).all(axis=1)
        assert boot.row_sums[b, 2] == (w[b] * exact).sum()


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=1, max_size=40),
    st.integers(0, 2**64 - 1),
)
def test_poisson_resample_is_counting_with_the_explicit_weights(
    pairs: list[tuple[int, int]], seed: int
) -> None:
    e = [a for a, _ in pairs]
    p = [b for _, b in pairs]
    boot = BinFValidation.from_predictions(e, p, keep_outcomes=True).bootstrap(3, seed=seed)
    w = reference_weights(seed, len(e), 3, "poisson")
    for b in range(3):
        if w[b].sum() == 0:
            assert boot.tables[b].sum() == 0
            continue
        weighted = BinFValidation.from_predictions(
            e, p, sample_weight=w[b], keep_outcomes=True
        ).counts
        assert tuple(boot.tables[b]) == (weighted.tp, weighted.fp, weighted.fn, weighted.tn)


def test_resampled_measures_equal_validations_with_those_weights() -> None:
    rng = np.random.default_rng(0)
    e, p = rng.integers(0, 4, 60), rng.integers(0, 4, 60)
    v = MultiFValidation.from_predictions(e, p, classes=4, keep_outcomes=True)
    boot = v.bootstrap(4, seed=21)
    w = reference_weights(21, 60, 4, "poisson")
    for name in ("f_macro", "macro_f", "accuracy", "weighted_f", "micro_f"):
        for b in range(4):
            direct = MultiFValidation.from_predictions(
                e, p, classes=4, sample_weight=w[b], keep_outcomes=True
            )
            assert boot.values(name)[b] == pytest.approx(getattr(direct, name), abs=1e-12)
    y = rng.integers(0, 2, (40, 5))
    q = rng.integers(0, 2, (40, 5))
    ml = MultiLabelFValidation.from_predictions(y, q, keep_outcomes=True)
    mboot = ml.bootstrap(3, seed=5)
    wm = reference_weights(5, 40, 3, "poisson")
    for name in ("f_macro", "samples_f", "subset_accuracy", "hamming_loss", "macro_f"):
        for b in range(3):
            direct = MultiLabelFValidation.from_predictions(
                y, q, sample_weight=wm[b], keep_outcomes=True
            )
            assert mboot.values(name)[b] == pytest.approx(getattr(direct, name), abs=1e-12)


# --------------------------------------------------------------------- pooling, dask


def _chunks(n: int, cuts: list[int]) -> list[slice]:
    edges = [0, *sorted(set(c for c in cuts if 0 < c < n)), n]
    return [slice(a, b) for a, b in itertools.pairwise(edges)]


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 200), st.lists(st.integers(1, 199), max_size=4), st.booleans())
def test_pooled_binary_bootstrap_equals_in_memory(n: int, cuts: list[int], weighted: bool) -> None:
    rng = np.random.default_rng(n)
    e, p = rng.integers(0, 2, n), rng.integers(0, 2, n)
    w = rng.uniform(0.1, 3.0, n) if weighted else None
    whole = BinFValidation.from_predictions(e, p, sample_weight=w, keep_outcomes=True).bootstrap(
        20, seed=77
    )
    parts = [
        BinFValidation.from_predictions(
            e[s], p[s], sample_weight=None if w is None else w[s], keep_outcomes=True
        )
        for s in _chunks(n, cuts)
    ]
    pooled = sum(parts).bootstrap(20, seed=77)  # type: ignore[union-attr]
    np.testing.assert_array_equal(pooled.tables, whole.tables)
    assert pooled.interval("f1") == whole.interval("f1")


def test_pooled_multiclass_and_multilabel_bootstraps_equal_in_memory() -> None:
    rng = np.random.default_rng(1)
    e, p = rng.integers(0, 5, 300), rng.integers(0, 5, 300)
    w = rng.uniform(0.5, 2, 300)
    for weights in (None, w):
        whole = MultiFValidation.from_predictions(
            e, p, classes=5, sample_weight=weights, keep_outcomes=True
        )
        parts = [
            MultiFValidation.from_predictions(
                e[s],
                p[s],
                classes=5,
                sample_weight=None if weights is None else weights[s],
                keep_outcomes=True,
            )
            for s in (slice(0, 10), slice(10, 170), slice(170, 300))
        ]
        a, b = whole.bootstrap(30, seed=3), sum(parts).bootstrap(30, seed=3)
        np.testing.assert_array_equal(a.tables, b.tables)
        np.testing.assert_array_equal(a.values("f_macro"), b.values("f_macro"))
    y, q = rng.integers(0, 2, (300, 6)), rng.integers(0, 2, (300, 6))
    import scipy.sparse as sp

    for convert in (np.asarray, sp.csr_matrix):
        whole_ml = MultiLabelFValidation.from_predictions(
            convert(y), convert(q), sample_weight=w, keep_outcomes=True
        )
        parts_ml = [
            MultiLabelFValidation.from_predictions(
                convert(y[s]), convert(q[s]), sample_weight=w[s], keep_outcomes=True
            )
            for s in (slice(0, 100), slice(100, 300))
        ]
        a, b = whole_ml.bootstrap(30, seed=3), (parts_ml[0] + parts_ml[1]).bootstrap(30, seed=3)
        np.testing.assert_array_equal(a.tables, b.tables)
        np.testing.assert_array_equal(a.row_sums, b.row_sums)
        np.testing.assert_array_equal(a.values("samples_f"), b.values("samples_f"))


def test_dask_evaluate_bootstrap_equals_in_memory() -> None:
    da = pytest.importorskip("dask.array")
    from fmacro.dask import evaluate

    rng = np.random.default_rng(2)
    e, p = rng.integers(0, 3, 1000), rng.integers(0, 3, 1000)
    memory = MultiFValidation.from_predictions(e, p, classes=3, keep_outcomes=True).bootstrap(
        50, seed=11
    )
    distributed = evaluate(
        da.from_array(e, chunks=137), da.from_array(p, chunks=137), classes=3, keep_outcomes=True
    )
    np.testing.assert_array_equal(distributed.bootstrap(50, seed=11).tables, memory.tables)
    y, q = rng.integers(0, 2, (500, 4)), rng.integers(0, 2, (500, 4))
    memory_ml = MultiLabelFValidation.from_predictions(y, q, keep_outcomes=True).bootstrap(
        50, seed=11
    )
    dist_ml = evaluate(
        da.from_array(y, chunks=(64, 4)), da.from_array(q, chunks=(64, 4)), keep_outcomes=True
    )
    boot = dist_ml.bootstrap(50, seed=11)
    np.testing.assert_array_equal(boot.tables, memory_ml.tables)
    assert boot.interval("f_macro") == memory_ml.interval("f_macro")


# --------------------------------------------------------------------- seeds, intervals


def test_seed_reproduces_and_other_seeds_differ() -> None:
    rng = np.random.default_rng(5)
    v = BinFValidation.from_predictions(
        rng.integers(0, 2, 500), rng.integers(0, 2, 500), keep_outcomes=True
    )
    a, b = v.bootstrap(100, seed=1), v.bootstrap(100, seed=1)
    np.testing.assert_array_equal(a.tables, b.tables)
    assert not np.array_equal(a.tables, v.bootstrap(100, seed=2).tables)
    drawn = v.bootstrap(100)
    np.testing.assert_array_equal(drawn.tables, v.bootstrap(100, seed=drawn.seed).tables)


def test_intervals_contain_the_estimate_and_shrink_like_one_over_sqrt_n() -> None:
    rng = np.random.default_rng(6)
    y = rng.integers(0, 4, 400)
    p = np.where(rng.random(400) < 0.7, y, rng.integers(0, 4, 400))
    v = MultiFValidation.from_predictions(y, p, classes=4, keep_outcomes=True)
    boot = v.bootstrap(1000, seed=8)
    for name in measure_names("multiclass", per_class=False):
        low, high = boot.interval(name)
        assert low < getattr(v, name) < high, name
    low_k, high_k = boot.interval("per_class_f")
    assert low_k.shape == (4,) and (low_k < v.per_class_f).all() and (v.per_class_f < high_k).all()
    # the same objects four times over: the interval is about half as wide
    v4 = MultiFValidation.from_predictions(
        np.tile(y, 4), np.tile(p, 4), classes=4, keep_outcomes=True
    )
    w1 = np.subtract(*boot.interval("f_macro")[::-1])
    w4 = np.subtract(*v4.bootstrap(1000, seed=8).interval("f_macro")[::-1])
    assert 0.4 < w4 / w1 < 0.6
    # a wider level gives a wider interval
    low99, high99 = boot.interval("f_macro", 0.99)
    assert low99 <= boot.interval("f_macro")[0] and high99 >= boot.interval("f_macro")[1]


def test_binary_interval_matches_the_normal_approximation_of_accuracy() -> None:
    # accuracy is a mean of n Bernoulli(0.8): its interval is about 0.8 +- 1.96 * sqrt(.16/n)
    n = 4000
    rng = np.random.default_rng(10)
    e = rng.integers(0, 2, n)
    p = np.where(rng.random(n) < 0.8, e, 1 - e)
    v = BinFValidation.from_predictions(e, p, keep_outcomes=True)
    low, high = v.bootstrap(2000, seed=1).interval("accuracy")
    half = 1.96 * math.sqrt(v.accuracy * (1 - v.accuracy) / n)
    assert (high - low) / 2 == pytest.approx(half, rel=0.1)


def test_nan_resamples_are_left_out_and_counted() -> None:
    # class 2 has one member: resamples that miss it have an undefined per-class F
    e = [0, 0, 1, 1, 2] * 2 + [0, 1] * 10
    p = [0, 1, 1, 1, 2] * 2 + [0, 1] * 10
    v = MultiFValidation.from_predictions(e, p, zero_division=math.nan, keep_outcomes=True)
    boot = v.bootstrap(300, seed=2)
    undefined = boot.n_undefined("per_class_f")
    assert undefined[2] == np.count_nonzero(
        boot.tables[:, 2] + boot.tables[:, 5] + boot.tables[:, 8] == 0
    )
    assert undefined[2] > 0 and undefined[0] == 0
    low, high = boot.interval("per_class_f")
    assert 0 <= low[2] <= high[2] <= 1


def test_results_and_records_survive_pickle_and_keep_equality() -> None:
    v = MultiLabelFValidation.from_predictions(
        np.eye(3, dtype=int), np.eye(3, dtype=int)[::-1], keep_outcomes=True
    )
    again = pickle.loads(pickle.dumps(v))
    assert again == v and hash(again) == hash(v)
    np.testing.assert_array_equal(again.outcomes.entries, v.outcomes.entries)
    assert not again.outcomes.entries.flags.writeable
    boot = v.bootstrap(10, seed=0)
    copy = pickle.loads(pickle.dumps(boot))
    np.testing.assert_array_equal(copy.tables, boot.tables)
    assert not boot.tables.flags.writeable
    # the record takes no part in ==: a validation from counts equals one from predictions
    b = BinFValidation.from_predictions([1, 0, 1], [1, 1, 0], keep_outcomes=True)
    assert b == BinFValidation.from_counts(Counts(1, 1, 1, 0)) and b.outcomes is not None


def test_validations_without_a_record_refuse_with_how_to_get_one() -> None:
    with pytest.raises(ValueError, match="from_predictions"):
        BinFValidation.from_counts(Counts(3, 1, 2, 4)).bootstrap(10)
    with pytest.raises(ValueError, match="from_predictions"):
        MultiFValidation.from_confusion(np.eye(2, dtype=int)).bootstrap(10)
    pooled = BinFValidation.from_counts(Counts(1, 0, 0, 0)) + BinFValidation.from_predictions(
        [1],
        [1],
        keep_outcomes=True,
    )
    assert pooled.outcomes is None


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"n_resamples": 1}, ValueError),
        ({"n_resamples": 2.5}, TypeError),
        ({"seed": -1}, ValueError),
        ({"seed": "a"}, TypeError),
        ({"method": "jackknife"}, ValueError),
    ],
)
def test_bad_options_are_refused(kwargs: dict[str, object], error: type) -> None:
    v = BinFValidation.from_predictions([1, 0], [1, 0], keep_outcomes=True)
    with pytest.raises(error, match=next(iter(kwargs))):
        v.bootstrap(**kwargs)  # type: ignore[arg-type]


def test_interval_refuses_unknown_measures_and_levels() -> None:
    boot = BinFValidation.from_predictions([1, 0, 1], [1, 0, 0], keep_outcomes=True).bootstrap(
        5, seed=0
    )
    with pytest.raises(ValueError, match="f_macro"):
        boot.interval("f_macro")
    with pytest.raises(ValueError, match="level"):
        boot.interval("f1", 1.5)


def test_to_dict_and_to_pandas() -> None:
    y = np.array([[1, 0], [0, 1], [1, 1], [0, 0]] * 10)
    p = np.array([[1, 0], [1, 1], [0, 1], [0, 0]] * 10)
    v = MultiLabelFValidation.from_predictions(y, p, labels=["a", "b"], keep_outcomes=True)
    boot = v.bootstrap(200, seed=3)
    record = boot.to_dict(0.9)
    assert record["seed"] == 3 and record["level"] == 0.9 and record["method"] == "poisson"
    entry = record["measures"]["f_macro"]
    assert entry["estimate"] == v.f_macro
    assert (entry["low"], entry["high"]) == boot.interval("f_macro", 0.9)
    frame = boot.to_pandas()
    rows = frame[(frame.measure == "per_class_f") & (frame["class"] == "b")]
    assert rows.estimate.item() == v.per_class_f[1]
    assert set(frame.measure) == set(measure_names("multilabel"))
    assert isinstance(boot, BootstrapResult)


def test_keep_outcomes_false_keeps_the_counts_only() -> None:
    y = np.array([[1, 0], [0, 1], [1, 1]])
    p = np.array([[1, 0], [1, 1], [0, 1]])
    for kept, dropped in (
        (BinFValidation.from_predictions([1, 0, 1], [1, 1, 0], keep_outcomes=True),
         BinFValidation.from_predictions([1, 0, 1], [1, 1, 0], keep_outcomes=False)),
        (MultiFValidation.from_predictions([0, 2, 1], [0, 1, 1], keep_outcomes=True),
         MultiFValidation.from_predictions([0, 2, 1], [0, 1, 1], keep_outcomes=False)),
        (MultiLabelFValidation.from_predictions(y, p, keep_outcomes=True),
         MultiLabelFValidation.from_predictions(y, p, keep_outcomes=False)),
    ):  # fmt: skip
        assert dropped == kept and dropped.outcomes is None and kept.outcomes is not None
        with pytest.raises(ValueError, match="keeps no per-object outcomes"):
            dropped.bootstrap(10)


def test_predict_constructors_keep_the_outcomes_too() -> None:
    X = np.array([[0.9], [0.2], [0.7], [0.1]])
    v = BinFValidation([1, 1, 0, 0], X, lambda x: int(x[0] > 0.5), keep_outcomes=True)
    np.testing.assert_array_equal(v.outcomes.codes, [0, 2, 1, 3])
    m = MultiFValidation([0, 1, 1, 0], X, 2, lambda x: int(x[0] > 0.5), keep_outcomes=True)
    same = MultiFValidation.from_predictions(
        [0, 1, 1, 0], [1, 0, 1, 0], classes=2, keep_outcomes=True
    )
    np.testing.assert_array_equal(m.bootstrap(20, seed=1).tables, same.bootstrap(20, seed=1).tables)


def test_record_sizes_stated_in_docs_uncertainty() -> None:
    # docs/uncertainty.md: 1 byte per object (binary), 8 (multiclass), 8 per row plus 4 per
    # TP/FP/FN entry (multi-label), 8 more per object with weights
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "uncertainty.md").read_text()
    assert "1 byte per object (binary), 8 (multiclass)" in doc
    assert "8 per row plus 4 per TP/FP/FN entry (multi-label), 8 more per object" in doc
    n = 50
    rng = np.random.default_rng(0)
    e, p, w = rng.integers(0, 2, n), rng.integers(0, 2, n), rng.uniform(1, 2, n)
    assert BinFValidation.from_predictions(e, p, keep_outcomes=True).outcomes.codes.nbytes == n
    weighted = BinFValidation.from_predictions(e, p, sample_weight=w, keep_outcomes=True).outcomes
    assert weighted.codes.nbytes + weighted.weights.nbytes == 9 * n
    rec = MultiFValidation.from_predictions(e, p, keep_outcomes=True).outcomes
    assert rec.expected.nbytes + rec.predicted.nbytes == 8 * n
    y, q = rng.integers(0, 2, (n, 4)), rng.integers(0, 2, (n, 4))
    ml = MultiLabelFValidation.from_predictions(y, q, keep_outcomes=True).outcomes
    entries = int(np.count_nonzero(y | q))
    assert ml.indptr.nbytes + ml.entries.nbytes == 8 * (n + 1) + 4 * entries


@pytest.mark.parametrize("method", ["poisson", "multinomial"])
def test_compiled_interpreted_serial_and_parallel_passes_agree(method: str) -> None:
    import warnings

    from fmacro.validation._kernels import bootstrap as kernels
    from fmacro.validation.dispatch import forced

    rng = np.random.default_rng(3)
    w = rng.uniform(0.5, 2, 30)
    e, p = rng.integers(0, 3, 30), rng.integers(0, 3, 30)
    y, q = rng.integers(0, 2, (30, 4)), rng.integers(0, 2, (30, 4))
    validations = [
        BinFValidation.from_predictions(e % 2, p % 2, keep_outcomes=True),
        MultiFValidation.from_predictions(e, p, sample_weight=w, keep_outcomes=True),
        MultiLabelFValidation.from_predictions(y, q, sample_weight=w, keep_outcomes=True),
    ]
    for v in validations:
        runs = []
        for mode in ("compiled", "interpreted"):
            with forced(mode), warnings.catch_warnings():
                warnings.simplefilter("error", RuntimeWarning)  # no overflow warnings
                runs.append(v.bootstrap(40, seed=2**63 + 5, method=method))
        np.testing.assert_array_equal(runs[0].tables, runs[1].tables)
        np.testing.assert_array_equal(runs[0].row_sums, runs[1].row_sums)
    # serial and parallel kernels: the same tables
    record = validations[2].outcomes
    indptr, slots, n_slots = record.slots()
    args = (
        kernels.resample_keys(1, 16), 0 if method == "poisson" else 1, indptr, slots, n_slots,
        np.asarray(w), np.zeros((30, 0)), kernels.POISSON_THRESHOLDS,
    )  # fmt: skip
    serial = kernels._tables_serial(*args)
    parallel = kernels._tables_parallel(*args)
    for a, b in zip(serial, parallel, strict=True):
        np.testing.assert_array_equal(a, b)


def test_tables_too_large_for_memory_are_refused() -> None:
    v = MultiFValidation.from_predictions([0, 1], [1, 0], classes=10**5, keep_outcomes=True)
    with pytest.raises(ValueError, match="fewer resamples"):
        v.bootstrap(1000)  # 1000 x 3 x 10^5 counts = 2.2 GiB
    assert v.bootstrap(100, seed=0).tables.shape == (100, 3 * 10**5)


def test_simulation_sizes_stated_in_docs_are_the_benchmarks() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    doc = (root / "docs" / "uncertainty.md").read_text()
    bench = (root / "benchmarks" / "bench_bootstrap.py").read_text()
    assert "at n = 100, 1000 and 10000" in doc and "for n in (100, 1000, 10000):" in bench
    # "53 uniform bits": the top 53 bits of a 64-bit hash
    assert "53 uniform" in doc and max(THRESHOLDS) < 2**53
