"""numba kernels behind the F-Delta objectives.

Every objective of Paradowski et al. (2019) is a function of four weighted sums over the samples,

    am = sum_A s (1 - psi)^2,  ap = sum_A s (1 + psi)^2,
    bm = sum_B s (1 - psi)^2,  bp = sum_B s (1 + psi)^2,

where ``psi = tanh(a)`` is the perceptron output for the activation
``a = gamma (x . w[1:] - w[0])`` and ``s`` the sample weight. One evaluation is:
activations (a numba row-by-row dot product), ``e = exp(-2|a|)`` (numpy's vectorized
exp; numba's scalar exp is several times slower without SVML), and the sums (numba).
The gradient is one more fused numba pass: the per-sample chain-rule coefficient
``c_i`` accumulated straight into ``sum_i c_i [-1, x_i]``.

The products are plain numba loops rather than BLAS on purpose: on a shared,
loaded machine a multi-threaded BLAS ``gemv`` on a tall 10^5 x 20 matrix was measured
10x slower than these loops, which match single-threaded BLAS.

``1 - psi`` and ``1 + psi`` are computed from ``e`` as ``2e/(1+e)`` and ``2/(1+e)``,
exact to rounding even where tanh saturates (no cancellation), and
``dpsi/da = (1 - psi)(1 + psi)``.

The first call of each kernel in a fresh environment compiles it (about 1 s);
compiled code is cached on disk (``cache=True``), later processes load it in ~10 ms.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from fmacro.validation.dispatch import kernel

__all__ = ["activation", "gradient", "hard_sums", "saturation", "soft_sums"]


@kernel(cache=True)
def _activation(X, w, gamma, out):  # type: ignore[no-untyped-def]  # pragma: no cover - jitted
    n, d = X.shape
    bias = w[0]
    for i in range(n):
        s = 0.0
        for j in range(d):
            s += X[i, j] * w[j + 1]
        out[i] = gamma * (s - bias)


@kernel(cache=True)
def _one_minus_plus(a: float, e: float) -> tuple[float, float]:  # pragma: no cover - jitted
    inv = 1.0 / (1.0 + e)
    if a >= 0.0:
        return 2.0 * e * inv, 2.0 * inv
    return 2.0 * inv, 2.0 * e * inv


@kernel(cache=True)
def _soft_sums(act, e, is_a, sw):  # type: ignore[no-untyped-def]  # pragma: no cover - jitted
    am = 0.0
    ap = 0.0
    bm = 0.0
    bp = 0.0
    for i in range(act.shape[0]):
        om, op = _one_minus_plus(act[i], e[i])
        s = sw[i]
        if is_a[i]:
            am += s * om * om
            ap += s * op * op
        else:
            bm += s * om * om
            bp += s * op * op
    return am, ap, bm, bp


@kernel(cache=True)
def _gradient(X, act, e, is_a, sw, partials, gamma, grad):  # type: ignore[no-untyped-def]  # pragma: no cover
    n, d = X.shape
    d_am = partials[0]
    d_ap = partials[1]
    d_bm = partials[2]
    d_bp = partials[3]
    for k in range(d + 1):
        grad[k] = 0.0
    for i in range(n):
        om, op = _one_minus_plus(act[i], e[i])
        dpsi = om * op * gamma * sw[i]  # d psi / d (w . x~), times the sample weight
        if is_a[i]:
            c = dpsi * (2.0 * op * d_ap - 2.0 * om * d_am)
        else:
            c = dpsi * (2.0 * op * d_bp - 2.0 * om * d_bm)
        grad[0] -= c  # the bias input is x_0 = -1
        for j in range(d):
            grad[j + 1] += c * X[i, j]


def activation(X: NDArray[np.float64], w: NDArray[np.float64], gamma: float) -> NDArray[np.float64]:
    """``gamma * (X @ w[1:] - w[0])`` for C-contiguous float64 ``X`` and ``w``."""
    out = np.empty(X.shape[0], dtype=np.float64)
    _activation(X, w, gamma, out)
    return out


def saturation(act: NDArray[np.float64]) -> NDArray[np.float64]:
    """``e = exp(-2 |act|)``."""
    e = np.abs(act)
    e *= -2.0
    np.exp(e, out=e)
    return e


def soft_sums(
    act: NDArray[np.float64],
    e: NDArray[np.float64],
    is_a: NDArray[np.bool_],
    sw: NDArray[np.float64],
) -> NDArray[np.float64]:
    """The four sums ``(am, ap, bm, bp)`` for activations ``act``, ``e = saturation(act)``."""
    return np.array(_soft_sums(act, e, is_a, sw), dtype=np.float64)


def hard_sums(
    act: NDArray[np.float64], is_a: NDArray[np.bool_], sw: NDArray[np.float64]
) -> NDArray[np.float64]:
    """The four sums with ``psi`` replaced by the hard decision (+1 iff ``act >= 0``).

    Then ``am = 4 FN``, ``ap = 4 TP``, ``bm = 4 TN``, ``bp = 4 FP`` (weighted counts).
    """
    pred_a = act >= 0.0
    tp = float(sw[is_a & pred_a].sum())
    fn = float(sw[is_a & ~pred_a].sum())
    fp = float(sw[~is_a & pred_a].sum())
    tn = float(sw[~is_a & ~pred_a].sum())
    return 4.0 * np.array([fn, tp, tn, fp], dtype=np.float64)


def gradient(
    X: NDArray[np.float64],
    act: NDArray[np.float64],
    e: NDArray[np.float64],
    is_a: NDArray[np.bool_],
    sw: NDArray[np.float64],
    partials: NDArray[np.float64],
    gamma: float,
) -> NDArray[np.float64]:
    """``sum_i c_i [-1, x_i]`` where ``c_i = sum_k (dq/d sum_k)(d sum_k / d a_i) gamma``:
    the gradient of a criterion with partial derivatives ``partials`` w.r.t. the sums."""
    grad = np.empty(X.shape[1] + 1, dtype=np.float64)
    _gradient(X, act, e, is_a, sw, partials, gamma, grad)
    return grad
