"""Parameter checks and seed handling shared by the splitters.

The checks that already exist for every package live in ``fmacro.validation.checks``;
this module only adds what splitters need on top: integer counts and seeds.
"""

from __future__ import annotations

import numbers

import numpy as np

from fmacro.validation.checks import check_seed

__all__ = ["check_count", "n_samples_of", "resolve_seed"]


def check_count(value: object, name: str, minimum: int) -> int:
    """Return ``value`` as an ``int`` after checking it is an integer >= ``minimum``.

    Raises
    ------
    TypeError
        If ``value`` is not an integer (``bool`` and floats are refused).
    ValueError
        If ``value < minimum``.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= {minimum}, got {type(value).__name__}")
    out = int(value)
    if out < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {out}")
    return out


def resolve_seed(seed: object) -> int:
    """Return the seed a splitter records.

    ``None`` draws fresh entropy from the operating system (through
    :class:`numpy.random.SeedSequence`) and returns it, so the splitter's ``repr``
    shows the seed and the same folds can be produced again with ``seed=<that value>``.
    A non-negative integer is returned unchanged. The global random state
    (``numpy.random.seed``) is never read nor touched.
    """
    if seed is None:
        return int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]
    # fmacro's one seed check; an int, so the folds can be reproduced from the repr
    return int(check_seed(seed, "seed", generators=False))


def n_samples_of(X: object, name: str = "X") -> int:
    """Number of samples (rows) of an array-like, sparse matrix, DataFrame or list."""
    if X is None:
        raise ValueError(f"{name} is needed to count the samples, got None")
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) > 0:
        return int(shape[0])
    try:
        return len(X)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(
            f"{name} must be array-like with a length (array, list, DataFrame, sparse matrix), "
            f"got {type(X).__name__}"
        ) from None
