"""Synthetic two-class data sets of Paradowski et al. (2019), section 4.2 (eqs. 30-40).

``LS``  (linearly separable means): ``A ~ N(mu_A, diag(s_A))``, ``B ~ N(mu_B, diag(s_B))``,
        ``mu ~ U(-1, 1)^d``, variances ``s ~ U(0, 1)^d`` (eqs. 31-34).
``LNS`` (linearly non-separable): each class an equal-weight mixture of ``k ~ D(2, 5)``
        such normals with their own means and variances (eqs. 35-39).
``RND`` both classes ``U(-1, 1)^d`` (eq. 40): no pattern at all.

The dimension is ``d ~ D(2, 20)`` unless given (eq. 30); ``D(a, b)`` is the discrete
uniform distribution on ``a..b`` inclusive. Class sizes follow ``ratio = |A| / |B|``:
``|A| = round(n * ratio / (1 + ratio))``, ``|B| = n - |A|``; the paper's ratios are
100, 10, 1, 0.1 and 0.01. Rows are returned in random order, labels +1 (class a) / -1.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.fdelta._inputs import check_positive_int
from fmacro.validation.checks import check_seed
from fmacro.validation.counts import frozen_array
from fmacro.validation.values import read_only_copies

__all__ = ["KINDS", "PAPER_RATIOS", "Dataset", "class_sizes", "generate"]

KINDS: tuple[str, ...] = ("LS", "LNS", "RND")
PAPER_RATIOS: tuple[float, ...] = (100.0, 10.0, 1.0, 0.1, 0.01)


def _readonly(arr: NDArray[Any]) -> NDArray[Any]:
    arr.flags.writeable = False
    return arr


def _frozen_components(components: Any) -> dict[str, NDArray[np.float64]]:
    return {str(k): frozen_array(v) for k, v in dict(components).items()}


@read_only_copies
@attrs.frozen(eq=False)
class Dataset:
    """A generated data set; unpacks as ``X, y = dataset``.

    Attributes
    ----------
    X : ndarray (n, d) float64, read-only
    y : ndarray (n,) int64 in {+1, -1}, read-only
    kind : str, ``"LS"``, ``"LNS"`` or ``"RND"``
    ratio : float, ``|A| / |B|`` requested
    components : dict
        The drawn distribution: for LS/LNS ``"means_a"``, ``"variances_a"``,
        ``"means_b"``, ``"variances_b"`` of shape (k, d) (k = 1 for LS); empty for RND.
    """

    X: NDArray[np.float64] = attrs.field(converter=frozen_array)
    y: NDArray[np.int64] = attrs.field(converter=frozen_array)
    kind: str
    ratio: float
    components: dict[str, NDArray[np.float64]] = attrs.field(
        factory=dict, converter=_frozen_components
    )

    def __iter__(self) -> Iterator[NDArray[Any]]:
        yield self.X
        yield self.y

    @property
    def n_features(self) -> int:
        """d."""
        return int(self.X.shape[1])

    @property
    def n_a(self) -> int:
        """|A|, examples of class a (label +1)."""
        return int(np.count_nonzero(self.y == 1))

    @property
    def n_b(self) -> int:
        """|B|, examples of class b (label -1)."""
        return int(np.count_nonzero(self.y == -1))


def class_sizes(ratio: float, n: int) -> tuple[int, int]:
    """``(|A|, |B|)`` for ``n`` examples with ``|A| / |B| = ratio`` (rounded); both >= 1."""
    if isinstance(ratio, bool) or not isinstance(ratio, (int, float, np.integer, np.floating)):
        raise TypeError(f"ratio must be a real number > 0, got {type(ratio).__name__}")
    if not math.isfinite(float(ratio)) or ratio <= 0:
        raise ValueError(f"ratio must be a finite number > 0 (|A|/|B|), got {ratio!r}")
    n = check_positive_int(n, "n", minimum=2)
    n_a = round(n * float(ratio) / (1.0 + float(ratio)))
    if n_a < 1 or n_a > n - 1:
        need = math.ceil(max(1.0 + 1.0 / ratio, 1.0 + ratio) - 1e-9)
        raise ValueError(
            f"n={n} with ratio={ratio} leaves a class without examples "
            f"(|A|={n_a}, |B|={n - n_a}); use n >= {need}"
        )
    return n_a, n - n_a


def _gaussian_class(
    rng: np.random.Generator, size: int, d: int, k: int
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    means = rng.uniform(-1.0, 1.0, size=(k, d))
    variances = rng.uniform(0.0, 1.0, size=(k, d))
    component = rng.integers(0, k, size=size) if k > 1 else np.zeros(size, dtype=np.int64)
    noise = rng.standard_normal(size=(size, d))
    X = means[component] + noise * np.sqrt(variances[component])
    return X, means, variances


def generate(
    kind: str,
    ratio: float,
    n: int,
    d: int | None = None,
    seed: int | np.random.Generator | None = None,
) -> Dataset:
    """Draw one LS, LNS or RND data set as defined by eqs. 30-40 of Paradowski et al. (2019).

    Parameters
    ----------
    kind : {"LS", "LNS", "RND"}
    ratio : float > 0
        ``|A| / |B|``.
    n : int
        Total number of examples (the paper does not state its sizes).
    d : int >= 1, optional
        Dimension; drawn from ``D(2, 20)`` when omitted.
    seed : int, numpy Generator or None

    Returns
    -------
    Dataset
        ``X, y = generate(...)`` unpacks it; ``y`` is +1 for class a, -1 for class b.
    """
    if not isinstance(kind, str) or kind.upper() not in KINDS:
        raise ValueError(f"kind must be one of {list(KINDS)}, got {kind!r}")
    kind = kind.upper()
    n_a, n_b = class_sizes(ratio, n)
    rng = np.random.default_rng(check_seed(seed))
    dim = int(rng.integers(2, 21)) if d is None else check_positive_int(d, "d")
    components: dict[str, NDArray[np.float64]] = {}
    if kind == "RND":
        Xa = rng.uniform(-1.0, 1.0, size=(n_a, dim))
        Xb = rng.uniform(-1.0, 1.0, size=(n_b, dim))
    else:
        k_a, k_b = (1, 1) if kind == "LS" else (int(rng.integers(2, 6)), int(rng.integers(2, 6)))
        Xa, mu_a, var_a = _gaussian_class(rng, n_a, dim, k_a)
        Xb, mu_b, var_b = _gaussian_class(rng, n_b, dim, k_b)
        components = {
            "means_a": _readonly(mu_a),
            "variances_a": _readonly(var_a),
            "means_b": _readonly(mu_b),
            "variances_b": _readonly(var_b),
        }
    X = np.concatenate([Xa, Xb])
    y = np.concatenate([np.ones(n_a, dtype=np.int64), -np.ones(n_b, dtype=np.int64)])
    order = rng.permutation(n)
    return Dataset(_readonly(X[order]), _readonly(y[order]), kind, float(ratio), components)
