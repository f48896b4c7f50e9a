"""The threshold methods by name, and the held-out score of their results.

One home for what ``fmacro thresholds`` and :func:`fmacro.optimize.compare_methods` both
do: run a method given by its name on rankings whose class points are built once
(:func:`method_call`, :func:`timed`), and score its result on held-out scores and labels
(:func:`held_out_evaluation`, which is :func:`~fmacro.optimize.evaluate_thresholds` of the
result's thresholds, or of a ``top_k`` result's predictions).

Each name is a function of :mod:`fmacro.optimize` (:data:`METHODS`, in the command's table
order; :data:`EXTRA_METHODS` run only when asked for). The options the command exposes are
routed to the methods that take them: ``prior`` to ``tune``; ``time_limit`` to ``exact``
and ``fixed_point``; ``n_angles`` to ``domain``; ``mix`` to ``micro_macro``; the per-class
constraints (``min_precision``, ``max_predicted_rate``) to :data:`CONSTRAINED`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from fmacro.optimize.baselines import (
    cyclic,
    global_threshold,
    micro_macro,
    per_class,
    proportional,
    top_k,
)
from fmacro.optimize.deployment import quiet
from fmacro.optimize.evaluation import MacroEvaluation, evaluate_thresholds
from fmacro.optimize.rules import TopK
from fmacro.optimize.search import domain, exact, fixed_point
from fmacro.optimize.search.points import ClassPoints
from fmacro.optimize.search.result import ThresholdResult
from fmacro.optimize.tuning import tune

__all__ = [
    "CONSTRAINED",
    "EXTRA_METHODS",
    "LIMITS",
    "METHODS",
    "NEED_SCORES",
    "check_methods",
    "held_out_evaluation",
    "method_call",
    "timed",
]

#: Every method ``fmacro thresholds`` runs by default, in its table order.
METHODS = (
    "tune",
    "fixed_point",
    "exact",
    "domain",
    "per_class",
    "cyclic",
    "global_threshold",
    "proportional",
    "top_k",
)
#: Methods run only when asked for: another objective than F-macro.
EXTRA_METHODS = ("micro_macro",)
#: Methods that need object-level scores (not available from ranked lists).
NEED_SCORES = frozenset({"global_threshold", "top_k"})
#: The methods that take per-class constraints (:data:`LIMITS`).
CONSTRAINED = frozenset(
    {"tune", "fixed_point", "exact", "domain", "per_class", "cyclic", "micro_macro"}
)
#: The per-class constraint options.
LIMITS = ("min_precision", "max_predicted_rate")


def check_methods(names: Iterable[str]) -> tuple[str, ...]:
    """``names`` as a tuple, each one of :data:`METHODS` or :data:`EXTRA_METHODS`.

    Raises
    ------
    ValueError
        A name is not a method's; the message lists the valid ones.
    """
    known = METHODS + EXTRA_METHODS
    out = tuple(names)
    for name in out:
        if not isinstance(name, str) or name not in known:
            raise ValueError(f"unknown method {name!r}; the methods are {', '.join(known)}")
    return out


def method_call(
    name: str,
    points: ClassPoints,
    scores: Any = None,
    labels: Any = None,
    *,
    beta: float,
    n_angles: int | None = 64,
    time_limit: float | None = None,
    prior: Any = 3.0,
    limits: Mapping[str, Any] | None = None,
    mix: float = 0.5,
) -> Callable[[], ThresholdResult]:
    """A call of method ``name`` on ``points`` (and the ``scores``, ``labels`` they are of).

    ``points`` are the class points of ``scores`` and ``labels``, built once for every
    method (their ``zero_division`` is the methods'); ``tune`` walks ``scores`` itself when
    given them, and ``global_threshold`` and ``top_k`` need them. ``limits``: per-class
    constraints, for :data:`CONSTRAINED` methods only (the caller skips or refuses the
    others).
    """
    own = dict(limits or {})
    zd = points.zero_division
    if name in ("exact", "fixed_point"):  # fixed_point closes its gap with exact's search
        fn = exact if name == "exact" else fixed_point
        return lambda: fn(points=points, beta=beta, time_limit=time_limit, **own)
    if name == "tune":
        if scores is None:
            return lambda: tune(points=points, beta=beta, zero_division=zd, prior=prior, **own)
        return lambda: tune(scores, labels, beta=beta, zero_division=zd, prior=prior, **own)
    if name == "micro_macro":
        return lambda: micro_macro(points=points, beta=beta, mix=mix, **own)
    if name == "domain":
        return lambda: domain(points=points, beta=beta, n_angles=n_angles, **own)
    if name in NEED_SCORES:
        by_scores = global_threshold if name == "global_threshold" else top_k
        return lambda: by_scores(scores, labels, beta=beta, zero_division=zd)
    by_points: dict[str, Callable[..., ThresholdResult]] = {
        "per_class": per_class,
        "cyclic": cyclic,
        "proportional": proportional,
    }
    fn_points = by_points[check_methods([name])[0]]
    return lambda: fn_points(points=points, beta=beta, **own)


def timed(call: Callable[[], ThresholdResult]) -> tuple[ThresholdResult, float]:
    """``(call(), seconds)``, the predict-everything warning silenced.

    The tables that run methods by name show each result's labels per object, which says
    what the warning would (:mod:`fmacro.optimize.deployment`).
    """
    start = time.perf_counter()
    result = quiet(call)()
    return result, time.perf_counter() - start


def held_out_evaluation(
    result: ThresholdResult, scores: Any, labels: Any, *, beta: float, zero_division: float
) -> MacroEvaluation:
    """The held-out score of a result's rule on ``scores`` and ``labels``.

    :func:`~fmacro.optimize.evaluate_thresholds` of the result's thresholds; for a
    ``top_k`` result (no per-class thresholds), of its predictions
    (``result.apply(scores)``, at threshold 0.5). Averages over the classes with a
    positive in ``labels``.
    """
    if isinstance(result.rule, TopK):
        predicted = result.apply(scores).astype(np.float64)
        return evaluate_thresholds(
            predicted,
            labels,
            np.full(predicted.shape[1], 0.5),
            beta=beta,
            zero_division=zero_division,
        )
    return evaluate_thresholds(scores, labels, result, beta=beta, zero_division=zero_division)
