"""Training of the seed-001 perceptron: its Algorithm 1, as the paper's prose describes it.

1. Random search: ``random_trials`` weight vectors ``w ~ U(-1, 1)^(d+1)`` (bias
   included) are drawn from ``seed`` and the best by the chosen criterion is kept.
   It is skipped when ``init`` is given.
2. Batch gradient ascent (descent for ``"delta"``) from that start,
   ``w <- w +- beta * grad q(w)``. The step adapts: a step that does not improve the
   criterion is shrunk (``beta *= shrink``) until it does; after each accepted step
   ``beta *= grow``. Training stops after ``max_iter`` accepted iterations, when an
   iteration improves the criterion by less than ``epsilon`` times the first
   iteration's improvement (the paper's normalized threshold), or when no step along
   the gradient improves it (``max_shrinks`` halvings failed: a stationary point up
   to rounding).

The paper does not give the random-search distribution, the number of trials or the
grow/shrink factors; the values here are ours and are parameters.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.fdelta._inputs import as_weight_vector, check_positive_int
from fmacro.optimize.fdelta.model import Perceptron
from fmacro.optimize.fdelta.objectives import Problem
from fmacro.validation.checks import check_seed

__all__ = ["fit_problem", "random_search", "train"]


def _check_real(
    value: object,
    name: str,
    *,
    low: float,
    low_open: bool,
    high: float = math.inf,
    high_open: bool = True,
) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    out = float(value)
    too_low = out <= low if low_open else out < low
    too_high = out >= high if high_open else out > high
    if not math.isfinite(out) or too_low or too_high:
        lo = "(" if low_open else "["
        hi = ")" if high_open else "]"
        raise ValueError(f"{name} must lie in {lo}{low}, {high}{hi}, got {value!r}")
    return out


def _better(candidate: float, current: float, maximize: bool) -> bool:
    if not math.isfinite(candidate):
        return False
    return candidate > current if maximize else candidate < current


def random_search(problem: Problem, trials: int, rng: np.random.Generator) -> NDArray[np.float64]:
    """Best of ``trials`` weight vectors drawn from ``U(-1, 1)^(d+1)`` (first best on ties)."""
    candidates = rng.uniform(-1.0, 1.0, size=(trials, problem.n_features + 1))
    values = np.array([problem.value(w) for w in candidates])
    best = int(np.argmax(values) if problem.maximize else np.argmin(values))
    return np.array(candidates[best], dtype=np.float64, copy=True)


def fit_problem(
    problem: Problem,
    start: NDArray[np.float64],
    *,
    step: float,
    max_iter: int,
    epsilon: float,
    grow: float = 1.1,
    shrink: float = 0.5,
    max_shrinks: int = 40,
) -> Perceptron:
    """Gradient phase of Algorithm 1 from ``start`` on a prepared :class:`Problem`."""
    maximize = problem.maximize
    direction = 1.0 if maximize else -1.0
    w = np.array(start, dtype=np.float64)
    q, g = problem.value_and_gradient(w)
    history = [q]
    beta = step
    first_gain = 0.0
    reason = "max_iter" if max_iter > 0 else "no_iterations"
    for iteration in range(max_iter):
        if not np.any(g):
            reason = "no_improvement"
            break
        for _ in range(max_shrinks + 1):
            candidate = w + (direction * beta) * g
            qc, state = problem.evaluate(candidate)
            if _better(qc, q, maximize):
                break
            beta *= shrink
        else:
            reason = "no_improvement"
            break
        gain = abs(qc - q)
        w, q, g = candidate, qc, problem.gradient_from(state)
        history.append(q)
        beta *= grow
        if iteration == 0:
            first_gain = gain
        elif gain < epsilon * first_gain:
            reason = "epsilon"
            break
    return Perceptron(
        weights=w[1:],
        bias=float(w[0]),
        gamma=problem.gamma,
        objective=problem.objective,
        history=np.array(history),
        labels=problem.encoding,
        stop_reason=reason,
    )


def train(
    X: Any,
    y: Any,
    *,
    objective: str = "F",
    gamma: float = 10.0,
    step: float = 0.1,
    random_trials: int = 100,
    max_iter: int = 1000,
    epsilon: float = 0.1,
    seed: int | np.random.Generator | None = None,
    init: Any = None,
    sample_weight: Any = None,
    grow: float = 1.1,
    shrink: float = 0.5,
    max_shrinks: int = 40,
) -> Perceptron:
    """Train the tanh perceptron of Paradowski et al. (2019) with its Algorithm 1.

    Parameters
    ----------
    X : array-like (n, d)
        Finite features (a scipy sparse matrix is densified).
    y : array-like (n,)
        Labels in ``{-1, +1}`` or ``{0, 1}``; 1 is class a, the class whose F-score
        ``"F"`` maximizes. Both classes must occur. ``predict`` answers in the same
        encoding.
    objective : {"F", "delta", "recall", "f", "F_b"}
        Criterion (see :mod:`optimize.fdelta.objectives`): ``"F"`` is F-Delta
        (approximated F-score of class a), ``"delta"`` the weighted delta rule.
    gamma : float > 0
        tanh scaling factor (eq. 1).
    step : float > 0
        Initial gradient step ``beta``.
    random_trials : int >= 1
        Random-search candidates (ignored when ``init`` is given).
    max_iter : int >= 0
        Maximum number of accepted gradient iterations (the paper's ``grad``).
    epsilon : float >= 0
        Stop when an iteration improves the criterion by less than
        ``epsilon * (first improvement)``; 0 disables this criterion.
    seed : int, numpy Generator or None
        Seeds the random search. Equal seeds give equal candidates, so two criteria
        trained with the same seed start from "identical initial conditions".
    init : array-like (d + 1,) ``[bias, w_1, ..., w_d]``, or a Perceptron, optional
        Start of the gradient phase; skips the random search.
    sample_weight : array-like (n,), optional
        Non-negative weights; integer weights are row multiplicities.
    grow, shrink : float
        Step factors after an accepted step (>= 1) and after a rejected one (in (0, 1)).
    max_shrinks : int >= 0
        Rejected steps allowed per iteration before training stops.

    Returns
    -------
    Perceptron
        Frozen; ``history`` holds the criterion per iteration, ``stop_reason`` why it stopped.

    Notes
    -----
    Each trial step costs one criterion evaluation (two numba passes over the samples
    and a vectorized exp); an accepted step adds its gradient (one more fused pass).
    On 10^5 x 20 data that is 1.5 ms per evaluation and 2.5 ms with the gradient, so
    100 iterations take about a quarter of a second. The first call in a fresh
    environment compiles the kernels (~1 s, cached on disk afterwards).

    Examples
    --------
    >>> import numpy as np
    >>> from fmacro.optimize.fdelta import generate, train
    >>> X, y = generate("LS", ratio=1.0, n=200, d=3, seed=0)
    >>> model = train(X, y, objective="F", gamma=5.0, seed=1)
    >>> model.predict(X).shape
    (200,)
    """
    step = _check_real(step, "step", low=0.0, low_open=True)
    epsilon = _check_real(epsilon, "epsilon", low=0.0, low_open=False)
    grow = _check_real(grow, "grow", low=1.0, low_open=False)
    shrink = _check_real(shrink, "shrink", low=0.0, low_open=True, high=1.0)
    max_iter = check_positive_int(max_iter, "max_iter", minimum=0)
    max_shrinks = check_positive_int(max_shrinks, "max_shrinks", minimum=0)
    check_seed(seed)
    problem = Problem.build(objective, X, y, gamma, sample_weight=sample_weight)
    if init is None:
        trials = check_positive_int(random_trials, "random_trials", minimum=1)
        start = random_search(problem, trials, np.random.default_rng(seed))
    elif isinstance(init, Perceptron):
        start = as_weight_vector(init.w, problem.n_features, "init")
    else:
        start = as_weight_vector(init, problem.n_features, "init")
    return fit_problem(
        problem,
        start,
        step=step,
        max_iter=max_iter,
        epsilon=epsilon,
        grow=grow,
        shrink=shrink,
        max_shrinks=max_shrinks,
    )
