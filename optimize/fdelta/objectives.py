"""Training criteria of Paradowski, Spytkowski and Kwaśnicka (2019) with analytic gradients.

Notation. ``X`` is (n, d), ``w = [w_0, w_1, ..., w_d]`` is the paper's weight vector
with the bias ``w_0`` first (its input is ``x_0 = -1``), and the perceptron output is
``psi(x) = tanh(gamma * (w_1 x_1 + ... + w_d x_d - w_0))`` (eq. 1 with f = tanh).
Class a has label +1, class b label -1 (eq. 6); ``e_a = |A|``, ``e_b = |B|``
(weighted sizes when ``sample_weight`` is given).

Criteria (``objective=``):

``"delta"``  (minimized) weighted squared error, eqs. 9-10:
    ``sum_A (1 - psi)^2 / e_a + sum_B (1 + psi)^2 / e_b``.
``"recall"`` (maximized) approximated ``r_a + r_b`` of eq. 17:
    ``2 - delta / 4``, identical to the delta rule up to sign and scale (eq. 19).
``"F"``      (maximized) approximated single-class F-score of class a, eq. 28:
    ``F_a = (8 e_a - 2 sum_A (1 - psi)^2) / (4 e_a + sum_X (1 + psi)^2)``.
``"F_b"``    (maximized) the same for class b:
    ``F_b = (8 e_b - 2 sum_B (1 + psi)^2) / (4 e_b + sum_X (1 - psi)^2)``.
``"f"``      (maximized) ``F_a + F_b``, eq. 24.

Note on the paper's eq. 22. Substituting the paper's own approximations
``i_k ~ 1/4 sum_K (y - psi)^2`` (eq. 15) and ``g_k ~ 1/4 sum_X (1 +- psi)^2`` (eq. 21)
into ``f_k = 2 (e_k - i_k) / (e_k + g_k)`` gives a numerator ``8 e_k - 2 sum``; the
printed eq. 22 has ``8 e_k - sum``, which would not tend to the exact F-score as
gamma grows (eq. 23): with every example of class a misclassified it gives 1, not 0.
We use the factor 2. Likewise the gradient of the denominator sums over all of X
(the printed eq. 29 writes ``sum over A``). Gradients here are derived from the
values by the chain rule and checked against finite differences in the tests.

Each criterion is a function of four weighted sums (see ``_kernels``); the exact
(hard-decision) version of a criterion is the same formula with ``psi`` replaced by
the decision +-1 (``psi >= 0`` means class a, eq. 4), e.g. the exact ``F`` is the
F1-score of class a and the exact ``delta`` is ``4 (FN / e_a + FP / e_b)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.fdelta import _kernels
from fmacro.optimize.fdelta._inputs import (
    as_features,
    as_sample_weight,
    as_weight_vector,
    check_gamma,
    encode_labels,
)
from fmacro.validation.checks import check_same_length
from fmacro.validation.counts import frozen_array
from fmacro.validation.values import read_only_copies

__all__ = [
    "OBJECTIVES",
    "Problem",
    "check_objective",
    "exact_value",
    "is_maximized",
    "objective_value",
    "value_and_gradient",
]

Sums = NDArray[np.float64]  # (am, ap, bm, bp)
_ValueFn = Callable[[Sums, float, float], float]
_PartialsFn = Callable[[Sums, float, float], NDArray[np.float64]]


def _delta(s: Sums, ea: float, eb: float) -> float:
    return float(s[0] / ea + s[3] / eb)


def _delta_partials(s: Sums, ea: float, eb: float) -> NDArray[np.float64]:
    return np.array([1.0 / ea, 0.0, 0.0, 1.0 / eb])


def _recall(s: Sums, ea: float, eb: float) -> float:
    return 2.0 - 0.25 * _delta(s, ea, eb)


def _recall_partials(s: Sums, ea: float, eb: float) -> NDArray[np.float64]:
    return -0.25 * _delta_partials(s, ea, eb)


def _f_a(s: Sums, ea: float, eb: float) -> float:
    return float((8.0 * ea - 2.0 * s[0]) / (4.0 * ea + s[1] + s[3]))


def _f_a_partials(s: Sums, ea: float, eb: float) -> NDArray[np.float64]:
    num = 8.0 * ea - 2.0 * s[0]
    den = 4.0 * ea + s[1] + s[3]
    q = -num / (den * den)
    return np.array([-2.0 / den, q, 0.0, q])


def _f_b(s: Sums, ea: float, eb: float) -> float:
    return float((8.0 * eb - 2.0 * s[3]) / (4.0 * eb + s[0] + s[2]))


def _f_b_partials(s: Sums, ea: float, eb: float) -> NDArray[np.float64]:
    num = 8.0 * eb - 2.0 * s[3]
    den = 4.0 * eb + s[0] + s[2]
    q = -num / (den * den)
    return np.array([q, 0.0, q, -2.0 / den])


def _f_sum(s: Sums, ea: float, eb: float) -> float:
    return _f_a(s, ea, eb) + _f_b(s, ea, eb)


def _f_sum_partials(s: Sums, ea: float, eb: float) -> NDArray[np.float64]:
    return _f_a_partials(s, ea, eb) + _f_b_partials(s, ea, eb)


@attrs.frozen
class _Spec:
    value: _ValueFn
    partials: _PartialsFn
    maximize: bool


_SPECS: dict[str, _Spec] = {
    "delta": _Spec(_delta, _delta_partials, maximize=False),
    "recall": _Spec(_recall, _recall_partials, maximize=True),
    "f": _Spec(_f_sum, _f_sum_partials, maximize=True),
    "F": _Spec(_f_a, _f_a_partials, maximize=True),
    "F_b": _Spec(_f_b, _f_b_partials, maximize=True),
}

#: names accepted by ``objective=``
OBJECTIVES: tuple[str, ...] = tuple(_SPECS)


def check_objective(objective: object, name: str = "objective") -> str:
    """Return ``objective`` if it names a known criterion, else raise."""
    if not isinstance(objective, str):
        raise TypeError(f"{name} must be one of {list(OBJECTIVES)}, got {type(objective).__name__}")
    if objective not in _SPECS:
        raise ValueError(f"{name} must be one of {list(OBJECTIVES)}, got {objective!r}")
    return objective


def is_maximized(objective: str) -> bool:
    """True for criteria that training maximizes (all but ``"delta"``)."""
    return _SPECS[check_objective(objective)].maximize


@read_only_copies
@attrs.frozen(eq=False)
class Problem:
    """A checked training set with a criterion, ready for repeated evaluation.

    Build it once (``Problem.build``) and call :meth:`value` / :meth:`value_and_gradient`
    many times: the inputs are validated and converted only once.

    Attributes
    ----------
    X : ndarray (n, d), C-contiguous float64, read-only
    is_a : ndarray (n,) bool, read-only -- True for class a (label 1)
    sample_weight : ndarray (n,) float64, read-only
    e_a, e_b : float -- weighted class sizes
    gamma : float
    objective : str
    encoding : tuple -- (label of class a, label of class b) as found in ``y``
    """

    X: NDArray[np.float64] = attrs.field(converter=frozen_array)
    is_a: NDArray[np.bool_] = attrs.field(converter=frozen_array)
    sample_weight: NDArray[np.float64] = attrs.field(converter=frozen_array)
    e_a: float
    e_b: float
    gamma: float
    objective: str
    encoding: tuple[int, int]

    @classmethod
    def build(
        cls,
        objective: str,
        X: Any,
        y: Any,
        gamma: float,
        *,
        sample_weight: Any = None,
    ) -> Problem:
        """Check and convert the inputs (copies; the caller's arrays are never modified)."""
        objective = check_objective(objective)
        gamma = check_gamma(gamma)
        Xa = np.array(as_features(X), dtype=np.float64, order="C")
        is_a, encoding = encode_labels(y)
        check_same_length(X=Xa, y=is_a)
        sw = np.array(as_sample_weight(sample_weight, Xa.shape[0]), dtype=np.float64)
        e_a = float(sw[is_a].sum())
        e_b = float(sw[~is_a].sum())
        if e_a <= 0.0 or e_b <= 0.0:
            raise ValueError(
                f"sample_weight gives class a total weight {e_a} and class b {e_b}; "
                "both must be > 0"
            )
        is_a = is_a.copy()
        for arr in (Xa, is_a, sw):
            arr.flags.writeable = False
        return cls(Xa, is_a, sw, e_a, e_b, gamma, objective, encoding)

    @property
    def n_features(self) -> int:
        """d, the number of features (the weight vector has d + 1 entries)."""
        return int(self.X.shape[1])

    @property
    def maximize(self) -> bool:
        """Whether training maximizes the criterion."""
        return _SPECS[self.objective].maximize

    def activation(self, w: NDArray[np.float64]) -> NDArray[np.float64]:
        """``gamma * (X @ w[1:] - w[0])``."""
        return _kernels.activation(self.X, np.ascontiguousarray(w, dtype=np.float64), self.gamma)

    def value(self, w: NDArray[np.float64]) -> float:
        """Criterion value at ``w`` (no input checks: ``w`` must have d + 1 floats)."""
        act = self.activation(w)
        sums = _kernels.soft_sums(act, _kernels.saturation(act), self.is_a, self.sample_weight)
        return _SPECS[self.objective].value(sums, self.e_a, self.e_b)

    def evaluate(
        self, w: NDArray[np.float64]
    ) -> tuple[float, tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]]:
        """Value at ``w`` plus the state (activations, saturations, sums) that
        :meth:`gradient_from` needs.

        Training calls this for each trial step and computes the gradient only for
        accepted steps.
        """
        act = self.activation(w)
        e = _kernels.saturation(act)
        sums = _kernels.soft_sums(act, e, self.is_a, self.sample_weight)
        return _SPECS[self.objective].value(sums, self.e_a, self.e_b), (act, e, sums)

    def gradient_from(
        self, state: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]
    ) -> NDArray[np.float64]:
        """Gradient (d + 1 entries, bias first) from the state :meth:`evaluate` returned."""
        act, e, sums = state
        partials = _SPECS[self.objective].partials(sums, self.e_a, self.e_b)
        return _kernels.gradient(
            self.X, act, e, self.is_a, self.sample_weight, partials, self.gamma
        )

    def value_and_gradient(self, w: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        """Criterion value and its gradient with respect to ``w`` (d + 1 entries)."""
        value, state = self.evaluate(w)
        return value, self.gradient_from(state)

    def exact(self, w: NDArray[np.float64]) -> float:
        """The criterion with hard decisions (``psi`` replaced by +-1), e.g. exact F1 of class a."""
        sums = _kernels.hard_sums(self.activation(w), self.is_a, self.sample_weight)
        return _SPECS[self.objective].value(sums, self.e_a, self.e_b)


def objective_value(
    objective: str, X: Any, y: Any, w: Any, gamma: float, *, sample_weight: Any = None
) -> float:
    """Value of an approximated criterion for weights ``w = [bias, w_1, ..., w_d]``.

    Parameters
    ----------
    objective : {"delta", "recall", "f", "F", "F_b"}
    X : array-like (n, d), finite
    y : array-like (n,), labels in {-1, +1} or {0, 1}; 1 is class a; both classes present
    w : array-like (d + 1,), bias first (its input is -1)
    gamma : float > 0, the tanh scaling factor
    sample_weight : array-like (n,) of non-negative weights, optional (counts of
        duplicated rows: the criterion equals that of the expanded data)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0], [2.0], [-1.0]]); y = [1, 1, -1]
    >>> round(objective_value("F", X, y, [0.0, 1.0], gamma=50.0), 6)  # all correct
    1.0
    """
    problem = Problem.build(objective, X, y, gamma, sample_weight=sample_weight)
    return problem.value(as_weight_vector(w, problem.n_features))


def value_and_gradient(
    objective: str, X: Any, y: Any, w: Any, gamma: float, *, sample_weight: Any = None
) -> tuple[float, NDArray[np.float64]]:
    """Value and analytic gradient (d + 1 entries, bias first) of a criterion; see
    :func:`objective_value` for the parameters."""
    problem = Problem.build(objective, X, y, gamma, sample_weight=sample_weight)
    return problem.value_and_gradient(as_weight_vector(w, problem.n_features))


def exact_value(objective: str, X: Any, y: Any, w: Any, *, sample_weight: Any = None) -> float:
    """The exact (hard-decision) criterion the approximation tends to as gamma grows.

    ``"F"`` gives the F1-score of class a, ``"F_b"`` of class b, ``"f"`` their sum,
    ``"recall"`` gives ``r_a + r_b`` and ``"delta"`` gives ``4 (FN / e_a + FP / e_b)``.
    """
    problem = Problem.build(objective, X, y, 1.0, sample_weight=sample_weight)
    return problem.exact(as_weight_vector(w, problem.n_features))
