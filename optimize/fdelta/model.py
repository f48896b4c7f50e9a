"""The perceptron of Paradowski et al. (2019).

``psi(x) = tanh(gamma * (w . x - bias))``, decision ``psi >= 0``.
"""

from __future__ import annotations

from typing import Any, overload

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.validation.checks import as_float_array, is_sparse
from fmacro.validation.counts import frozen_array
from fmacro.validation.values import read_only_copies

__all__ = ["Perceptron"]


def _readonly_float_vector(value: Any) -> NDArray[np.float64]:
    # A read-only private copy, at least 1-D (a scalar is a vector of one)
    return frozen_array(np.atleast_1d(np.asarray(value, dtype=np.float64)))


@read_only_copies
@attrs.frozen(eq=False)
class Perceptron:
    """A trained linear model with tanh activation (eqs. 1-6 of Paradowski et al. (2019)).

    ``psi(x) = tanh(gamma * (sum_i weights[i] * x[i] - bias))``: the bias is the
    paper's ``w_0`` with fixed input ``x_0 = -1``. An observation is assigned to
    class a when ``psi(x) >= 0`` (equivalently ``weights . x >= bias``), else class b.

    Attributes
    ----------
    weights : ndarray (d,), read-only
        ``w_1 .. w_d``.
    bias : float
        ``w_0``.
    gamma : float
        The tanh scaling factor used in training (it does not change decisions).
    objective : str
        Criterion the model was trained for (``"F"``, ``"delta"``, ...), or ``"fixed"``.
    history : ndarray, read-only
        Criterion value at the start of gradient training, then after each accepted
        iteration (so ``len(history) - 1`` iterations were made).
    labels : tuple (label of class a, label of class b)
        ``(1, -1)`` or ``(1, 0)``, the encoding of the training labels; ``predict``
        answers in it.
    stop_reason : str
        Why training stopped: ``"max_iter"``, ``"epsilon"``, ``"no_improvement"``,
        ``"no_iterations"`` (``max_iter=0``), or ``""`` for a hand-built model.
    """

    weights: NDArray[np.float64] = attrs.field(converter=_readonly_float_vector)
    bias: float = attrs.field(converter=float)
    gamma: float = attrs.field(default=1.0, converter=float)
    objective: str = "fixed"
    history: NDArray[np.float64] = attrs.field(
        factory=lambda: np.empty(0), converter=_readonly_float_vector
    )
    labels: tuple[int, int] = (1, -1)
    stop_reason: str = ""

    @property
    def n_features(self) -> int:
        """d, the number of input features."""
        return int(self.weights.shape[0])

    @property
    def w(self) -> NDArray[np.float64]:
        """The paper's weight vector ``[w_0 (bias), w_1, ..., w_d]`` (a new array)."""
        return np.concatenate(([self.bias], self.weights))

    @property
    def n_iter(self) -> int:
        """Number of accepted gradient iterations."""
        return max(int(self.history.shape[0]) - 1, 0)

    def _inputs(self, X: Any) -> tuple[NDArray[np.float64], bool]:
        if is_sparse(X):
            X = X.toarray()
        arr = as_float_array(X, "X")
        if arr.ndim == 1:
            if arr.shape[0] != self.n_features:
                raise ValueError(
                    f"X as one observation must have {self.n_features} features, got {arr.shape[0]}"
                )
            return arr.reshape(1, -1), True
        if arr.ndim != 2 or arr.shape[1] != self.n_features:
            raise ValueError(
                f"X must have shape (n, {self.n_features}) or ({self.n_features},), got {arr.shape}"
            )
        return arr, False

    def activation(self, X: Any) -> NDArray[np.float64]:
        """``gamma * (X @ weights - bias)`` for a matrix (n, d); a 1-element array for one row."""
        arr, _ = self._inputs(X)
        return self.gamma * (arr @ self.weights - self.bias)

    @overload
    def decision_function(self, X: NDArray[Any]) -> NDArray[np.float64]: ...
    @overload
    def decision_function(self, X: Any) -> Any: ...
    def decision_function(self, X: Any) -> Any:
        """``psi(X) = tanh(activation)`` in [-1, 1]; ``>= 0`` means class a.

        A 1-D input of length d is one observation and gives a float.
        """
        arr, single = self._inputs(X)
        psi = np.tanh(self.gamma * (arr @ self.weights - self.bias))
        return float(psi[0]) if single else psi

    def predict(self, X: Any) -> Any:
        """Labels in the training encoding (``labels[0]`` for class a, ``labels[1]`` for b).

        ``X`` may be a matrix (n, d) -> int64 array (n,), or a single observation of
        length d -> int. So ``predict`` works both as the per-observation callable of
        ``BinFValidation(expected, X, model.predict)`` and batched
        (``BinFValidation(expected, X, model.predict, batched=True)`` or
        ``BinFValidation.from_predictions(y, model.predict(X))``).
        """
        arr, single = self._inputs(X)
        is_a = arr @ self.weights >= self.bias
        out = np.where(is_a, self.labels[0], self.labels[1]).astype(np.int64)
        return int(out[0]) if single else out
