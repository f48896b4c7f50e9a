"""Every public value object stays read-only and equal after pickle and copy.

The test walks the public API of ``fmacro.validation``, ``fmacro.crossval`` and
``fmacro.optimize`` (every module's ``__all__``), finds every attrs class, and builds one
instance of each through the library's own functions. A new value class must get a
factory here (the walk fails otherwise).
"""

from __future__ import annotations

import copy
import importlib
import inspect
import pickle
import pkgutil
import tempfile
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import attrs
import numpy as np
import pytest

from fmacro import crossval, optimize, validation
from fmacro.crossval import Fold, KFold, cross_validate
from fmacro.optimize import fdelta
from fmacro.optimize.io import RankedLists, SavedRule, read_rule
from fmacro.optimize.rules import PerClassThresholds, TopK
from fmacro.optimize.search.brute_force import ExactOptimum
from fmacro.optimize.search.constraints import CutConstraints, check_constraints
from fmacro.optimize.search.result import TuningCounts
from fmacro.optimize.tuning.settings import TuneSettings
from fmacro.validation import (
    BinFValidation,
    ClassCounts,
    ConfusionMatrix,
    MultiFValidation,
    MultiLabelFValidation,
    SparseConfusionMatrix,
)
from fmacro.validation.bootstrap import BinaryOutcomes, ClassOutcomes, LabelOutcomes
from fmacro.validation.datasets import ArffData
from fmacro.validation.io import LabelPair, Table, read_label_pair
from fmacro.validation.values import value_key

PACKAGES = (validation, crossval, optimize)

SCORES = np.array(
    [[0.9, 0.1, 0.4], [0.8, 0.7, 0.2], [0.3, 0.6, 0.8], [0.2, 0.4, 0.9], [0.6, 0.2, 0.1]]
)
LABELS = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 1], [0, 0, 1], [0, 0, 0]], dtype=np.uint8)


def _public_attrs_classes() -> set[type]:
    found: set[type] = set()
    for package in PACKAGES:
        modules = [package]
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if any(part.startswith("_") for part in info.name.split(".")):
                continue
            if info.name.endswith(".plot") or ".plot." in info.name:
                continue  # matplotlib is optional; the plots hold no value classes
            modules.append(importlib.import_module(info.name))
        for module in modules:
            for name in getattr(module, "__all__", ()):
                obj = getattr(module, name, None)
                if inspect.isclass(obj) and attrs.has(obj):
                    found.add(obj)
    return found


def _fit_nearest_mean(X: Any, y: Any) -> Callable[[Any], Any]:
    means = {c: np.asarray(X)[np.asarray(y) == c].mean(axis=0) for c in np.unique(y)}
    keys = sorted(means)
    table = np.array([means[c] for c in keys])

    def predict(rows: Any) -> Any:
        distances = ((np.asarray(rows)[:, None, :] - table[None, :, :]) ** 2).sum(axis=2)
        return np.asarray(keys)[distances.argmin(axis=1)]

    return predict


def _cross_validation() -> Any:
    X = np.array([[0.0], [0.1], [1.0], [1.1], [0.2], [0.9]])
    y = np.array([0, 0, 1, 1, 0, 1])
    return cross_validate(_fit_nearest_mean, X, y, KFold(2, seed=0), progress=False)


def _factories() -> dict[type, Callable[[], Any]]:
    points = optimize.class_points(SCORES, LABELS)
    hulls = optimize.class_hulls(points)
    X, y = fdelta.generate("LS", 1.0, 40, seed=0).X, fdelta.generate("LS", 1.0, 40, seed=0).y
    cv = _cross_validation()
    return {
        validation.Counts: lambda: validation.Counts(1, 2, 3, 4),
        ClassCounts: lambda: ClassCounts([1, 2], [0, 1], [2, 0], [3, 3]),
        ConfusionMatrix: lambda: ConfusionMatrix([[3, 1], [2, 4]]),
        SparseConfusionMatrix: lambda: SparseConfusionMatrix.from_dense([[3, 1], [0, 4]]),
        validation.SampleCounts: lambda: (
            MultiLabelFValidation.from_predictions(LABELS, LABELS[::-1]).sample_counts
        ),
        BinFValidation: lambda: BinFValidation.from_predictions(
            [1, 0, 1, 1], [1, 1, 0, 1], keep_outcomes=True
        ),
        MultiFValidation: lambda: _with_caches(
            MultiFValidation.from_predictions([0, 1, 2, 2], [0, 2, 2, 1], keep_outcomes=True)
        ),
        MultiLabelFValidation: lambda: _with_caches(
            MultiLabelFValidation.from_predictions(LABELS, LABELS[::-1], keep_outcomes=True)
        ),
        Table: lambda: Table("labels.csv", (("y_true", "y_pred"), ("a", "b")), (1, 2), ","),
        LabelPair: _label_pair,
        SavedRule: _saved_rule,
        ArffData: lambda: ArffData(
            X=np.arange(6.0).reshape(3, 2),
            Y=np.eye(3, dtype=np.uint8),
            feature_names=("a", "b"),
            label_names=("x", "y", "z"),
            relation="r",
        ),
        Fold: lambda: Fold(train=[0, 1, 3], validation=[2]),
        crossval.CrossValidation: lambda: _with_caches(cv),
        crossval.FoldResult: lambda: crossval.FoldResult(
            validation=cv.validations[0], predicted=np.array([0, 1, 1])
        ),
        crossval.KFold: lambda: KFold(3, seed=1),
        crossval.GroupKFold: lambda: crossval.GroupKFold(2),
        crossval.LeaveOneOut: crossval.LeaveOneOut,
        crossval.MultilabelStratifiedKFold: lambda: crossval.MultilabelStratifiedKFold(2),
        crossval.OneFold: lambda: crossval.OneFold(0.5, seed=2),
        crossval.RepeatedKFold: lambda: crossval.RepeatedKFold(2, 2, seed=3),
        crossval.StratifiedKFold: lambda: crossval.StratifiedKFold(2, seed=4),
        optimize.BinaryThreshold: lambda: optimize.best_threshold(SCORES[:, 0], LABELS[:, 0]),
        optimize.ClassPoints: lambda: points,
        optimize.ClassHulls: lambda: hulls,
        optimize.Sweep: lambda: optimize.edge_sweep(hulls),
        optimize.LocalizeResult: lambda: optimize.localize(SCORES, LABELS, grid=5),
        optimize.MacroEvaluation: lambda: optimize.evaluate_thresholds(
            SCORES, LABELS, [0.5, 0.5, 0.5]
        ),
        optimize.MethodComparison: lambda: optimize.compare_methods(
            SCORES, LABELS, SCORES[::-1], LABELS[::-1], methods=("per_class", "top_k")
        ),
        optimize.SmoothedPoints: lambda: optimize.smooth_points(points),
        BinaryOutcomes: lambda: (
            BinFValidation.from_predictions([1, 0, 1, 1], [1, 1, 0, 1], keep_outcomes=True).outcomes
        ),
        ClassOutcomes: lambda: (
            MultiFValidation.from_predictions(
                [0, 1, 2, 2], [0, 2, 2, 1], keep_outcomes=True
            ).outcomes
        ),
        LabelOutcomes: lambda: (
            MultiLabelFValidation.from_predictions(
                LABELS, LABELS[::-1], keep_outcomes=True
            ).outcomes
        ),
        validation.BootstrapResult: lambda: _with_caches(
            MultiFValidation.from_predictions(
                [0, 1, 2, 2], [0, 2, 2, 1], keep_outcomes=True
            ).bootstrap(20, seed=0)
        ),
        validation.Comparison: lambda: validation.compare(
            [0, 1, 2, 2], [0, 2, 2, 1], [0, 1, 2, 2], n_resamples=20, seed=0
        ),
        crossval.PairedTest: lambda: crossval.paired_t_test(
            [0.8, 0.7, 0.9], [0.7, 0.7, 0.8], correction="none"
        ),
        optimize.HeldOutInterval: lambda: optimize.held_out_interval(
            SCORES, LABELS, n_resamples=20, seed=0, n_draws=100
        ),
        TuneSettings: lambda: TuneSettings(2.0, 0.0, 5.0, base_rates=np.array([0.1, 0.2, 0.3])),
        CutConstraints: lambda: check_constraints(0.2, [0.5, 0.1, 1.0], 3),
        optimize.ExpectedPoints: lambda: optimize.expected_points(SCORES),
        optimize.ThresholdResult: lambda: optimize.per_class(SCORES, LABELS),
        TuningCounts: lambda: optimize.per_class(SCORES, LABELS).tuning,
        PerClassThresholds: lambda: PerClassThresholds([0.5, 0.2]),
        TopK: lambda: TopK(2),
        RankedLists: lambda: RankedLists(
            class_ids=[0, 1], labels=[1, 0, 1], indptr=[0, 2, 3], line_numbers=[1, 2]
        ),
        ExactOptimum: lambda: optimize.brute_force_exact(points),
        fdelta.Dataset: lambda: fdelta.generate("LNS", 1.0, 40, seed=0),
        fdelta.Perceptron: lambda: fdelta.train(X, y, gamma=5.0, seed=0, max_iter=5),
        fdelta.Problem: lambda: fdelta.Problem.build("F", X, y, 5.0),
        fdelta.CellResult: lambda: _cell(),
        fdelta.ExperimentResult: lambda: fdelta.ExperimentResult(config={"n": 2}, cells=(_cell(),)),
        fdelta.PatsiResult: lambda: fdelta.PatsiResult(
            words=np.array([3, 1]),
            word_f={"mse": np.array([0.5, 0.25])},
            subsets=(1, None),
            config={"m": 2},
        ),
    }


def _label_pair() -> LabelPair:
    """Two indicator files with headers: arrays and class names, read from disk."""
    with tempfile.TemporaryDirectory() as tmp:
        for name, rows in (("y.csv", LABELS), ("p.csv", LABELS[::-1])):
            lines = ["a,b,c", *(",".join(str(v) for v in row) for row in rows.tolist())]
            (Path(tmp) / name).write_text("\n".join(lines) + "\n")
        return read_label_pair(Path(tmp) / "y.csv", Path(tmp) / "p.csv")


def _saved_rule() -> SavedRule:
    """A thresholds record saved by ThresholdResult.save and read back by read_rule."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "thr.json"
        optimize.per_class(SCORES, LABELS).save(path)
        return read_rule(path)


def _cell() -> Any:
    return fdelta.CellResult(
        kind="LS",
        ratio=1.0,
        **{
            name: np.arange(3.0) + i
            for i, name in enumerate(
                ("f_delta", "f_fdelta", "gamma", "step", "iters_delta", "iters_fdelta")
            )
        },
    )


def _with_caches(value: Any) -> Any:
    """Touch the lazily cached measures so that the caches are part of the copy."""
    for name in ("per_class_f", "per_class_precision", "f_macro", "fold_scores", "pooled"):
        getattr(value, name, None)
    return value


def _arrays(value: Any, path: str = "") -> Iterator[tuple[str, np.ndarray]]:
    """Every numpy array a value exposes: fields, nested values, containers, caches."""
    if isinstance(value, np.ndarray):
        yield path, value
        if value.dtype == object:
            for i, item in enumerate(value.ravel().tolist()):
                yield from _arrays(item, f"{path}[{i}]")
    elif attrs.has(type(value)):
        for field in attrs.fields(type(value)):
            yield from _arrays(getattr(value, field.name), f"{path}.{field.name}")
        for name in ("per_class_f", "per_class_precision", "fold_scores", "support"):
            if hasattr(type(value), name):
                yield from _arrays(getattr(value, name), f"{path}.{name}")
    elif isinstance(value, (tuple, list)):
        for i, item in enumerate(value):
            yield from _arrays(item, f"{path}[{i}]")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _arrays(item, f"{path}[{key!r}]")


def _same(a: Any, b: Any) -> bool:
    """Equal by value, field by field (several classes compare by identity)."""
    if attrs.has(type(a)):
        return type(a) is type(b) and all(
            _same(getattr(a, f.name), getattr(b, f.name)) for f in attrs.fields(type(a))
        )
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Mapping):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(value_key(a) == value_key(b))


COPIES: dict[str, Callable[[Any], Any]] = {
    "pickle": lambda v: pickle.loads(pickle.dumps(v)),
    "deepcopy": copy.deepcopy,
    "copy": copy.copy,
}


# The working state of tune's walk: public names only so that fmacro.dask's workers can
# build and send them (issue 25: no private imports across subpackages), never handed to
# users, and built and consumed inside one call. They hold scratch arrays by reference.
WALK_STATE = frozenset(
    {"WalkInputs", "WalkedHulls", "WalkedColumns", "CopiedColumns", "ScreenPlan"}
)


def test_every_public_value_class_has_a_factory() -> None:
    missing = {c.__qualname__ for c in _public_attrs_classes()} - {
        c.__qualname__ for c in _factories()
    }
    missing -= WALK_STATE
    assert not missing, f"add a factory for {sorted(missing)}"


@pytest.mark.parametrize("how", sorted(COPIES))
def test_copies_are_read_only_and_equal(how: str) -> None:
    writeable: list[str] = []
    for cls, make in _factories().items():
        value = make()
        assert isinstance(value, cls)
        originals = list(_arrays(value))
        assert all(not a.flags.writeable for _, a in originals), (cls, originals)
        copied = COPIES[how](value)
        assert _same(copied, value), cls
        assert isinstance(copied, cls)
        writeable += [f"{cls.__qualname__}{p}" for p, a in _arrays(copied) if a.flags.writeable]
        for _, arr in _arrays(copied):
            if arr.size:
                with pytest.raises(ValueError, match="read-only"):
                    arr.reshape(-1)[:1] = 0
    assert writeable == []


def test_scores_cannot_be_changed_through_a_deep_copy() -> None:
    """The issue's instance: a write into a copy's counts changed its F-macro."""
    v = MultiFValidation.from_predictions([0, 0, 1, 1, 2, 2], [0, 0, 1, 2, 2, 2])
    twin = copy.deepcopy(v)
    with pytest.raises(ValueError, match="read-only"):
        twin.confusion.matrix[0, 1] = 5
    assert twin.f_macro == v.f_macro
    # macro P = (1 + 1 + 2/3) / 3, macro R = (1 + 1/2 + 1) / 3, F-macro = 2PR / (P + R)
    p, r = 8 / 9, 5 / 6
    assert v.f_macro == pytest.approx(2 * p * r / (p + r))


def _score_in_child(value: Any) -> tuple[bool, float]:
    return all(not a.flags.writeable for _, a in _arrays(value)), float(value.score)


def test_fold_predictions_from_a_process_pool_are_read_only() -> None:
    X = np.array([[0.0], [0.1], [1.0], [1.1], [0.2], [0.9]])
    y = np.array([0, 0, 1, 1, 0, 1])
    with ProcessPoolExecutor(max_workers=1) as pool:
        result = cross_validate(
            _fit_nearest_mean, X, y, KFold(2, seed=0), map=pool.map, progress=False
        )
        frozen, score = pool.submit(_score_in_child, result).result()
    assert frozen
    assert score == result.score
    assert result.fold_predictions
    for predicted in result.fold_predictions:
        assert not predicted.flags.writeable


def test_fold_copies_a_read_only_array_it_does_not_own() -> None:
    owned = np.array([0, 1, 2], dtype=np.intp)
    owned.flags.writeable = False
    fold = Fold(train=owned, validation=[3])
    owned.flags.writeable = True  # the caller owns the data and may write again
    owned[0] = 7
    assert fold.train.tolist() == [0, 1, 2]
    assert not np.shares_memory(fold.train, owned)


def test_splitters_still_hand_out_read_only_private_indices() -> None:
    X = np.zeros((10, 1))
    for fold in KFold(3, shuffle=True, seed=0).folds(X):
        assert not fold.train.flags.writeable
        assert not fold.validation.flags.writeable
        assert sorted(fold.train.tolist() + fold.validation.tolist()) == list(range(10))


def test_a_value_never_aliases_the_arrays_it_is_built_from() -> None:
    """Rebuilding each value from its own fields (attrs.evolve) copies every array.

    Even a read-only array is copied: whoever owns it can make it writeable again.
    """
    aliased: list[str] = []
    for cls, make in _factories().items():
        value = make()
        try:
            twin = attrs.evolve(value)
        except TypeError:
            continue  # a custom __init__ (the validations): built from counts, not arrays
        for field in attrs.fields(cls):
            before = dict(_own_arrays(getattr(value, field.name)))
            after = dict(_own_arrays(getattr(twin, field.name)))
            for path, arr in after.items():
                if arr.size and np.shares_memory(arr, before[path]):
                    aliased.append(f"{cls.__qualname__}.{field.name}{path}")
                assert not arr.flags.writeable
    assert aliased == []


def _own_arrays(value: Any, path: str = "") -> Iterator[tuple[str, np.ndarray]]:
    """Arrays held by a field itself (directly or in containers), not by nested values.

    Nested values are immutable and may be shared; their own arrays are their business.
    """
    if isinstance(value, np.ndarray):
        yield path, value
    elif isinstance(value, (tuple, list)):
        for i, item in enumerate(value):
            yield from _own_arrays(item, f"{path}[{i}]")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _own_arrays(item, f"{path}[{key!r}]")
