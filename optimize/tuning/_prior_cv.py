"""``tune(prior="cv")``: the pseudo-count chosen by cross-validation (private).

``repeats`` x 2-fold: each half of the tuning rows is fitted at every grid value and
scored on the other half (held-out plain F-macro, over that half's classes with a
positive).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize._inputs import as_binary_labels, label_rows, matching_shapes
from fmacro.optimize.evaluation import column_threshold_counts, predicted_counts
from fmacro.optimize.search.points import class_points
from fmacro.optimize.tuning._hull_points import smoothed_hull_points
from fmacro.optimize.tuning._solve import Problem, fit_thresholds, problem_from_points
from fmacro.validation.checks import is_sparse
from fmacro.validation.measures import f_beta_from_pr

__all__ = ["cv_scores"]


def _rows(x: Any, rows: NDArray[np.int64]) -> Any:
    """The rows ``rows`` of ``x``: CSR when sparse, else a column-major copy (the block
    walks and the held-out counts read columns, which a column-major copy gives without
    a transpose)."""
    if is_sparse(x):
        return x.tocsr()[rows]
    arr = np.asarray(x)
    out = np.empty((rows.size, *arr.shape[1:]), dtype=arr.dtype, order="F")
    np.take(arr, rows, axis=0, out=out)
    return out


def cv_scores(
    scores: Any,
    labels: Any,
    grid: tuple[float, ...],
    repeats: int,
    seed: int,
    zd: float,
    pi: NDArray[np.float64] | None,
    n_eval: float | None,
    b: float,
    method: str,
    unseen: str,
    calibrated: bool,
    fast: bool = False,
) -> NDArray[np.float64]:
    """Mean held-out plain F-macro of each grid value over ``repeats`` x 2 folds.

    Each half is fitted once per grid value and scored by counting its predictions on
    the other half (the same counts as that half's cut at each threshold). On the fast
    path one walk of a half's scores gives its hull cuts for the whole grid.
    """
    n_obj = matching_shapes(scores, labels)[0]
    if n_obj < 4:
        raise ValueError(f"prior='cv' needs at least 4 tuning rows, got {n_obj}")
    rng = np.random.default_rng(seed)
    total = np.zeros(len(grid))
    used = 0
    for _ in range(repeats):
        perm = rng.permutation(n_obj)
        halves = (np.sort(perm[: n_obj // 2]), np.sort(perm[n_obj // 2 :]))
        parts = [(_rows(scores, rows), _rows(labels, rows)) for rows in halves]
        for (fit_s, fit_y), (ev_s, ev_y) in ((parts[0], parts[1]), (parts[1], parts[0])):
            counts = _held_out_counter(ev_s, ev_y)
            if counts is None:  # nothing to score on the held-out half
                continue
            n_in = float(ev_s.shape[0]) if n_eval is None else float(n_eval)
            try:
                problems = _grid_problems(
                    fit_s, fit_y, grid, zd, pi, n_in, b, method, unseen, calibrated, fast
                )
            except ValueError as err:  # a half without any positive: nothing to learn
                if "no class with a positive" not in str(err):
                    raise
                continue
            for i, (a, prob) in enumerate(zip(grid, problems, strict=True)):
                f = counts(fit_thresholds(prob, a), zd, b)
                total[i] += 0.0 if math.isnan(f) else f
            used += 1
    if used == 0:
        raise ValueError("prior='cv': no split has positives in both halves; pass a number")
    out = total / used
    out.flags.writeable = False
    return out


def _grid_problems(
    scores: Any,
    labels: Any,
    grid: tuple[float, ...],
    zd: float,
    pi: NDArray[np.float64] | None,
    n: float,
    b: float,
    method: str,
    unseen: str,
    calibrated: bool,
    fast: bool,
) -> list[Problem]:
    """One problem per grid value, fitted on ``scores``/``labels``, without exact steps."""
    if fast:
        hulls = smoothed_hull_points(scores, labels, grid, n_eval=n, zero_division=zd)
        base = problem_from_points(hulls[0], scores, None, n, b, "fixed_point", unseen)
        base = attrs.evolve(base, source=(scores, labels), exact=False)
        return [attrs.evolve(base, raw=h, hull_prior=h.pseudo_count) for h in hulls]
    raw = class_points(scores, labels, zero_division=zd)
    prob = problem_from_points(raw, scores, pi, n, b, method, unseen, calibrated)
    return [attrs.evolve(prob, exact=False)] * len(grid)


def _held_out_counter(
    scores: Any, labels: Any
) -> Callable[[NDArray[np.float64], float, float], float] | None:
    """F-macro of thresholds on a held-out half (over its classes with a positive), or
    None when the half has no positive. The F of the plain mean p and r, as
    :func:`evaluate_cuts` on the half's points: a NaN precision makes F NaN."""
    if is_sparse(scores) or is_sparse(labels):
        rows = label_rows(labels)
        sizes = np.bincount(rows.indices, minlength=labels.shape[1])

        def count(thr: NDArray[np.float64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
            return predicted_counts(scores, rows, np.asarray(thr))
    else:
        y = as_binary_labels(labels)
        sizes = np.count_nonzero(y, axis=0)
        s = np.asarray(scores)

        def count(thr: NDArray[np.float64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
            return column_threshold_counts(s, y, np.asarray(thr, dtype=np.float64))

    kept = np.flatnonzero(sizes)
    if kept.size == 0:
        return None
    m = sizes[kept]

    def f_macro(thresholds: NDArray[np.float64], zd: float, b: float) -> float:
        tp, fp = (c[kept] for c in count(thresholds))
        with np.errstate(divide="ignore", invalid="ignore"):
            den = tp + fp
            pk = np.where(den == 0, zd, tp / np.maximum(den, 1))
        return float(f_beta_from_pr(float(np.mean(pk)), float(np.mean(tp / m)), b))

    return f_macro
