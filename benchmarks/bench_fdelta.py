"""Speed of F-Delta training (seed 001) on 10^5 x 20 data.

Compares, in one run (median of repeats):
- ours: one criterion + gradient evaluation, and 100 iterations of Algorithm 1's
  gradient phase (``train(..., init=..., max_iter=100, epsilon=0)``);
- numpy floor: the two BLAS matrix-vector products every evaluation needs
  (``X @ w`` and ``X.T @ c``), and a plain-numpy F^_a value + gradient;
- scikit-learn peer (context, not the same model): ``LogisticRegression`` (lbfgs,
  100 iterations) and ``SGDClassifier`` (5 epochs) on the same data.

Run: ``python benchmarks/bench_fdelta.py [--n 100000] [--d 20] [--repeats 5]``.
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression, SGDClassifier

from fmacro.optimize.fdelta import Problem, generate, train


def _median_time(fn: Callable[[], object], repeats: int) -> float:
    fn()  # warm-up (JIT compile / caches)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def _numpy_f_value_and_grad(X, y, w, gamma):  # type: ignore[no-untyped-def]
    psi = np.tanh(gamma * (X @ w[1:] - w[0]))
    a = y == 1
    e_a = a.sum()
    num = 8 * e_a - 2 * np.sum((1 - psi[a]) ** 2)
    den = 4 * e_a + np.sum((1 + psi) ** 2)
    dpsi = gamma * (1 - psi**2)
    dnum = np.where(a, 4 * (1 - psi), 0.0) * dpsi
    dden = 2 * (1 + psi) * dpsi
    c = dnum / den - num * dden / den**2
    grad = np.empty(w.shape[0])
    grad[0] = -c.sum()
    grad[1:] = X.T @ c
    return num / den, grad


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--d", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    X, y = generate("LNS", 0.1, args.n, d=args.d, seed=0)
    X = np.ascontiguousarray(X)
    gamma = 5.0
    w = np.random.default_rng(1).uniform(-1, 1, args.d + 1)
    problem = Problem.build("F", X, y, gamma)
    c = np.random.default_rng(2).normal(size=args.n)
    rows = []

    t = _median_time(lambda: problem.value_and_gradient(w), args.repeats)
    rows.append(("ours: F^_a value + gradient (1 evaluation)", t))
    t = _median_time(lambda: problem.value(w), args.repeats)
    rows.append(("ours: F^_a value only", t))
    t = _median_time(lambda: (X @ w[1:], X.T @ c), args.repeats)
    rows.append(("numpy floor: X @ w and X.T @ c", t))
    t = _median_time(lambda: _numpy_f_value_and_grad(X, y, w, gamma), args.repeats)
    rows.append(("plain numpy: F^_a value + gradient", t))

    def ours_100() -> None:
        model = train(
            X, y, objective="F", gamma=gamma, step=0.01, init=w, max_iter=100, epsilon=0.0
        )
        assert model.n_iter > 0

    t_train = _median_time(ours_100, max(3, args.repeats // 2))
    model = train(X, y, objective="F", gamma=gamma, step=0.01, init=w, max_iter=100, epsilon=0.0)
    rows.append(
        (f"ours: train, 100 iterations ({model.n_iter} done, {model.stop_reason})", t_train)
    )
    t_delta = _median_time(
        lambda: train(
            X, y, objective="delta", gamma=gamma, step=0.01, init=w, max_iter=100, epsilon=0.0
        ),
        max(3, args.repeats // 2),
    )
    rows.append(("ours: train delta rule, 100 iterations", t_delta))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        t = _median_time(
            lambda: LogisticRegression(max_iter=100, tol=0).fit(X, y), max(3, args.repeats // 2)
        )
        rows.append(("scikit-learn LogisticRegression, lbfgs 100 iterations", t))
        t = _median_time(
            lambda: SGDClassifier(max_iter=5, tol=None, random_state=0).fit(X, y),
            max(3, args.repeats // 2),
        )
        rows.append(("scikit-learn SGDClassifier, 5 epochs", t))

    print(f"F-Delta speed, X = {args.n} x {args.d}, median of {args.repeats} runs\n")
    print("| what | time (ms) |\n|---|---:|")
    for name, seconds in rows:
        print(f"| {name} | {seconds * 1e3:.2f} |")


if __name__ == "__main__":
    main()
