"""F-Delta vs the weighted delta rule: the experiment of Paradowski et al. (2019), section 4.

Protocol (section 4.1-4.5). For every data type (LS, LNS, RND) and class ratio
``|A| / |B|`` (100, 10, 1, 0.1, 0.01): generate ``datasets`` data sets (eqs. 30-40),
split each in half (train / test, each class halved, so both halves keep the ratio),
and repeat ``repetitions`` times: draw ``gamma ~ U(1, 50)`` and
``beta = 10^(3 alpha - 3)``, ``alpha ~ U(0, 1)`` (eq. 41) and a random-search seed;
train the weighted delta rule (``"delta"``) and F-Delta (``"F"``) with these identical
initial conditions (Algorithm 1); measure the exact F-score of class a on the test
half. Per (type, ratio) cell the paired differences ``F(F-Delta) - F(delta)`` give the
t statistic of eq. 42 and its verdict at 1.64, and their empirical CDF (Figs. 1-3).

Seeding is per (type, ratio, data set, repetition) through ``numpy.random.SeedSequence``
keyed by stable identifiers, so a cell's numbers do not depend on which other cells
are run, on their order, or on the number of worker processes.

The paper does not give the data set size; ``n`` (total, before the split) is ours.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.fdelta._inputs import check_positive_int
from fmacro.optimize.fdelta.generators import KINDS, PAPER_RATIOS, class_sizes, generate
from fmacro.optimize.fdelta.model import Perceptron
from fmacro.optimize.fdelta.training import train
from fmacro.validation.checks import check_seed
from fmacro.validation.measures import f_beta_from_counts
from fmacro.validation.progress import Progress
from fmacro.validation.values import read_only_copies

__all__ = [
    "CRITICAL_T",
    "CellResult",
    "ExperimentResult",
    "experiment",
    "f_score_a",
    "paired_t",
    "verdict",
]

#: one-sided 5% critical value the paper uses for n = 1000 (eq. 42)
CRITICAL_T = 1.64


def paired_t(first: Any, second: Any) -> float:
    """Paired t statistic of eq. 42: ``mean(D) / sqrt(var(D)) * sqrt(n - 1)``, D = first - second.

    ``var`` is the population variance (divisor n), so this equals the usual paired
    t statistic ``mean(D) / (s / sqrt(n))`` with the sample standard deviation s
    (``scipy.stats.ttest_rel(first, second).statistic``). Constant differences give
    ``+-inf`` (or nan when all are 0); fewer than 2 pairs give nan.
    """
    a = np.asarray(first, dtype=np.float64)
    b = np.asarray(second, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"first and second must be 1-D of equal length, got {a.shape}, {b.shape}")
    n = a.shape[0]
    if n < 2:
        return math.nan
    diff = a - b
    mean = float(diff.mean())
    var = float(np.mean((diff - mean) ** 2))
    if var <= 0.0:
        return math.copysign(math.inf, mean) if mean != 0.0 else math.nan
    return mean / math.sqrt(var) * math.sqrt(n - 1)


def verdict(t: float, critical: float = CRITICAL_T) -> str:
    """``"F-Delta better"`` if t >= critical, ``"delta better"`` if t <= -critical, else
    ``"no resolve"`` (the paper's wording for an undecided test)."""
    if t >= critical:
        return "F-Delta better"
    if t <= -critical:
        return "delta better"
    return "no resolve"


def f_score_a(model: Perceptron, X: NDArray[np.float64], is_a: NDArray[np.bool_]) -> float:
    """Exact F1-score of class a (eq. 11) of ``model`` on ``(X, is_a)``."""
    pred_a = X @ model.weights >= model.bias
    tp = int(np.count_nonzero(pred_a & is_a))
    fp = int(np.count_nonzero(pred_a & ~is_a))
    fn = int(np.count_nonzero(~pred_a & is_a))
    return float(f_beta_from_counts(tp, fp, fn, 1.0, 0.0))


def _readonly(values: Any) -> NDArray[np.float64]:
    arr = np.array(values, dtype=np.float64)
    arr.flags.writeable = False
    return arr


@read_only_copies
@attrs.frozen(eq=False)
class CellResult:
    """Results for one (data type, ratio) cell: one entry per (data set, repetition).

    Attributes
    ----------
    kind, ratio : the cell
    f_delta, f_fdelta : ndarray, read-only -- test F-score of class a per run
    gamma, step : ndarray, read-only -- the drawn parameters per run
    iters_delta, iters_fdelta : ndarray, read-only -- gradient iterations per run
    """

    kind: str
    ratio: float
    f_delta: NDArray[np.float64] = attrs.field(converter=_readonly)
    f_fdelta: NDArray[np.float64] = attrs.field(converter=_readonly)
    gamma: NDArray[np.float64] = attrs.field(converter=_readonly)
    step: NDArray[np.float64] = attrs.field(converter=_readonly)
    iters_delta: NDArray[np.float64] = attrs.field(converter=_readonly)
    iters_fdelta: NDArray[np.float64] = attrs.field(converter=_readonly)

    @property
    def n(self) -> int:
        """Number of paired measurements."""
        return int(self.f_delta.shape[0])

    @property
    def differences(self) -> NDArray[np.float64]:
        """``F(F-Delta) - F(delta)`` per run (> 0 favours F-Delta)."""
        return _readonly(self.f_fdelta - self.f_delta)

    @property
    def t(self) -> float:
        """Paired t statistic of eq. 42."""
        return paired_t(self.f_fdelta, self.f_delta)

    @property
    def verdict(self) -> str:
        """Verdict at |t| >= 1.64."""
        return verdict(self.t)

    def cdf(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Empirical CDF of the differences: sorted values x and ``P(D <= x_i) = i / n``."""
        x = np.sort(self.f_fdelta - self.f_delta)
        p = np.arange(1, x.shape[0] + 1, dtype=np.float64) / max(x.shape[0], 1)
        return _readonly(x), _readonly(p)

    def summary(self) -> dict[str, Any]:
        """Means, standard deviations, t and verdict as plain Python values."""
        return {
            "type": self.kind,
            "ratio": self.ratio,
            "n": self.n,
            "mean_f_delta": float(self.f_delta.mean()),
            "mean_f_fdelta": float(self.f_fdelta.mean()),
            "std_f_delta": float(self.f_delta.std()),
            "std_f_fdelta": float(self.f_fdelta.std()),
            "mean_difference": float(self.differences.mean()),
            "share_fdelta_better": float(np.mean(self.differences > 0)),
            "t": self.t,
            "verdict": self.verdict,
        }

    def to_dict(self) -> dict[str, Any]:
        """Summary plus per-run values and the CDF, JSON-ready."""
        x, p = self.cdf()
        out = self.summary()
        out.update(
            {
                "f_delta": self.f_delta.tolist(),
                "f_fdelta": self.f_fdelta.tolist(),
                "gamma": self.gamma.tolist(),
                "step": self.step.tolist(),
                "iters_delta": self.iters_delta.tolist(),
                "iters_fdelta": self.iters_fdelta.tolist(),
                "cdf": {"x": x.tolist(), "p": p.tolist()},
            }
        )
        return out


@read_only_copies
@attrs.frozen(eq=False)
class ExperimentResult:
    """All cells of one experiment run and the configuration that produced them."""

    config: dict[str, Any]
    cells: tuple[CellResult, ...]

    def cell(self, kind: str, ratio: float) -> CellResult:
        """The cell for data type ``kind`` and ratio ``ratio``."""
        for c in self.cells:
            if c.kind == kind and math.isclose(c.ratio, ratio):
                return c
        raise KeyError(f"no cell for kind={kind!r}, ratio={ratio!r}")

    def table(self) -> str:
        """Markdown table: per type and ratio, mean F of both methods, t and verdict."""
        head = (
            "| type | ratio A/B | n | F delta rule | F F-Delta | mean diff | F-Delta wins | t | "
            "verdict (1.64) |\n|---|---:|---:|---:|---:|---:|---:|---:|---|"
        )
        rows = []
        for c in self.cells:
            s = c.summary()
            rows.append(
                f"| {c.kind} | {c.ratio:g} | {c.n} | {s['mean_f_delta']:.3f} "
                f"(sd {s['std_f_delta']:.3f}) | {s['mean_f_fdelta']:.3f} "
                f"(sd {s['std_f_fdelta']:.3f}) | {s['mean_difference']:+.3f} | "
                f"{s['share_fdelta_better']:.0%} | {s['t']:.2f} | {s['verdict']} |"
            )
        return "\n".join([head, *rows])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary."""
        return {"config": self.config, "cells": [c.to_dict() for c in self.cells]}

    def to_json(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`to_dict` as JSON to ``path``."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=1), encoding="utf-8")


# ----------------------------------------------------------------------------------------
# running


@attrs.frozen
class _Task:
    kind: str
    ratio: float
    dataset: int
    repetitions: int
    n: int
    seed: int
    max_iter: int
    epsilon: float
    random_trials: int
    gamma_low: float
    gamma_high: float


def _seed_sequence(seed: int, kind: str, ratio: float, *key: int) -> np.random.SeedSequence:
    ratio_key = round(float(ratio) * 10_000)
    return np.random.SeedSequence(seed, spawn_key=(KINDS.index(kind), ratio_key, *key))


def _half_split(y: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """First half (rounded up) of each class's rows for training, the rest for testing."""
    train_parts, test_parts = [], []
    for label in (1, -1):
        idx = np.flatnonzero(y == label)
        cut = (idx.shape[0] + 1) // 2
        train_parts.append(idx[:cut])
        test_parts.append(idx[cut:])
    return np.sort(np.concatenate(train_parts)), np.sort(np.concatenate(test_parts))


def _run_task(task: _Task) -> dict[str, NDArray[np.float64]]:
    data_rng = np.random.default_rng(_seed_sequence(task.seed, task.kind, task.ratio, task.dataset))
    data = generate(task.kind, task.ratio, task.n, seed=data_rng)
    X, y = data
    train_idx, test_idx = _half_split(y)
    X_train, y_train = X[train_idx], y[train_idx]
    X_test, is_a_test = X[test_idx], y[test_idx] == 1
    rows: dict[str, list[float]] = {
        k: [] for k in ("f_delta", "f_fdelta", "gamma", "step", "iters_delta", "iters_fdelta")
    }
    for rep in range(task.repetitions):
        rng = np.random.default_rng(
            _seed_sequence(task.seed, task.kind, task.ratio, task.dataset, rep + 1)
        )
        gamma = float(rng.uniform(task.gamma_low, task.gamma_high))
        step = float(10.0 ** (3.0 * rng.uniform(0.0, 1.0) - 3.0))
        search_seed = int(rng.integers(0, 2**63 - 1))
        models = [
            train(
                X_train,
                y_train,
                objective=objective,
                gamma=gamma,
                step=step,
                random_trials=task.random_trials,
                max_iter=task.max_iter,
                epsilon=task.epsilon,
                seed=search_seed,
            )
            for objective in ("delta", "F")
        ]
        rows["f_delta"].append(f_score_a(models[0], X_test, is_a_test))
        rows["f_fdelta"].append(f_score_a(models[1], X_test, is_a_test))
        rows["gamma"].append(gamma)
        rows["step"].append(step)
        rows["iters_delta"].append(models[0].n_iter)
        rows["iters_fdelta"].append(models[1].n_iter)
    return {k: np.array(v) for k, v in rows.items()}


def _check_kinds(types: Iterable[str]) -> tuple[str, ...]:
    out = []
    for t in types:
        if not isinstance(t, str) or t.upper() not in KINDS:
            raise ValueError(f"types must be drawn from {list(KINDS)}, got {t!r}")
        out.append(t.upper())
    if not out:
        raise ValueError("types is empty; give at least one of LS, LNS, RND")
    return tuple(out)


def experiment(
    *,
    types: Sequence[str] = KINDS,
    ratios: Sequence[float] = PAPER_RATIOS,
    datasets: int = 10,
    repetitions: int = 20,
    n: int = 2000,
    max_iter: int = 1000,
    epsilon: float = 0.1,
    random_trials: int = 100,
    gamma_range: tuple[float, float] = (1.0, 50.0),
    seed: int = 0,
    jobs: int = 1,
    progress: bool = True,
    map_fn: Callable[..., Iterable[Any]] | None = None,
) -> ExperimentResult:
    """Run the seed-001 comparison (section 4) and return every measurement.

    Parameters
    ----------
    types : data types among ``"LS"``, ``"LNS"``, ``"RND"``
    ratios : class ratios ``|A| / |B|`` (paper: 100, 10, 1, 0.1, 0.01)
    datasets, repetitions : data sets per cell and trainings per data set
        (paper: 20 and 50; the defaults are a quick run of about a minute)
    n : total examples per data set before the 50/50 split (not given in the paper);
        each class needs at least 2 examples
    max_iter, epsilon, random_trials : Algorithm 1 settings for both methods
    gamma_range : ``gamma ~ U(low, high)`` (paper: (1, 50))
    seed : master seed
    jobs : worker processes (1 = in this process)
    progress : draw a progress bar on stderr (only when it is a terminal)
    map_fn : optional ``map``-like callable (e.g. a dask or pool ``map``) overriding ``jobs``

    Returns
    -------
    ExperimentResult
        ``.table()`` for a markdown table, ``.to_json(path)`` to save everything.
    """
    kinds = _check_kinds(types)
    ratio_list = tuple(float(r) for r in ratios)
    if not ratio_list:
        raise ValueError("ratios is empty; give at least one ratio |A|/|B| > 0")
    datasets = check_positive_int(datasets, "datasets")
    repetitions = check_positive_int(repetitions, "repetitions")
    jobs = check_positive_int(jobs, "jobs")
    check_seed(seed, "seed", generators=False)  # the master seed of every SeedSequence
    for r in ratio_list:
        n_a, n_b = class_sizes(r, n)
        if min(n_a, n_b) < 2:
            raise ValueError(
                f"n={n} with ratio={r} gives |A|={n_a}, |B|={n_b}; the 50/50 split needs "
                "at least 2 examples of each class"
            )
    low, high = (float(v) for v in gamma_range)
    if not (0.0 < low <= high and math.isfinite(high)):
        raise ValueError(f"gamma_range must be (low, high) with 0 < low <= high, got {gamma_range}")
    tasks = [
        _Task(kind, r, ds, repetitions, n, seed, max_iter, epsilon, random_trials, low, high)
        for kind in kinds
        for r in ratio_list
        for ds in range(datasets)
    ]
    results: list[dict[str, NDArray[np.float64]]] = []
    with Progress(len(tasks), "fdelta", enabled=progress) as bar:
        if map_fn is not None:
            iterator: Iterable[Any] = map_fn(_run_task, tasks)
        elif jobs > 1:
            pool = ProcessPoolExecutor(max_workers=jobs)
            iterator = pool.map(_run_task, tasks)
        else:
            pool = None
            iterator = map(_run_task, tasks)
        try:
            for res in iterator:
                results.append(res)
                bar.advance()
        finally:
            if map_fn is None and jobs > 1:
                pool.shutdown()  # type: ignore[union-attr]
    cells = []
    for kind in kinds:
        for r in ratio_list:
            parts = [
                res
                for task, res in zip(tasks, results, strict=True)
                if task.kind == kind and task.ratio == r
            ]
            cells.append(
                CellResult(
                    kind=kind,
                    ratio=r,
                    **{key: np.concatenate([p[key] for p in parts]) for key in parts[0]},
                )
            )
    config = {
        "types": list(kinds),
        "ratios": list(ratio_list),
        "datasets": datasets,
        "repetitions": repetitions,
        "n": n,
        "max_iter": max_iter,
        "epsilon": epsilon,
        "random_trials": random_trials,
        "gamma_range": [low, high],
        "step_distribution": "10**(3*U(0,1) - 3)",
        "seed": seed,
        "split": "50/50 per class (train = first half rounded up)",
    }
    return ExperimentResult(config=config, cells=tuple(cells))
