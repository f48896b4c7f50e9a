"""Input checks shared by every fmacro package.

Each check either returns a clean, private numpy view/copy of its input or raises
``ValueError``/``TypeError`` whose message names the argument, what was expected
and what was found. Checks never modify the caller's data.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from decimal import Decimal
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fmacro.validation.labels import numpy_from_pandas

__all__ = [
    "BETA_MAX",
    "BETA_MIN",
    "INT64_MAX",
    "WEIGHTED_TOTAL_MAX",
    "ZERO_DIVISION_CHOICES",
    "as_float_array",
    "as_label_vector",
    "check_beta",
    "check_bool_bytes",
    "check_exact_in_float64",
    "check_fits_int64",
    "check_fraction",
    "check_positive_real",
    "check_same_length",
    "check_seed",
    "check_zero_division",
    "describe_total",
    "is_sparse",
    "short_number",
]

ZERO_DIVISION_CHOICES = "0.0, 1.0 or nan"

#: The largest int64, 2**63 - 1: integer counts and their totals must not exceed it.
INT64_MAX = 2**63 - 1

#: The largest accepted total of weighted counts (a sum of sample weights): 2**1022, a
#: quarter of the float64 range. Any sum of such counts, in any order, stays finite, and
#: so do (1 + beta**2) TP + beta**2 FN + FP for beta <= 1 (at most twice the total).
WEIGHTED_TOTAL_MAX = 2.0**1022

#: The accepted range of ``beta``: [2**-254, 2**254], about 3.5e-77 to 2.9e76 (see
#: :func:`check_beta` for why).
BETA_MIN = 2.0**-254
BETA_MAX = 2.0**254


def is_sparse(x: object) -> bool:
    """True for scipy.sparse matrices and arrays, without importing scipy."""
    return hasattr(x, "tocsr") and hasattr(x, "nnz")


def _real(value: object, name: str, expected: str) -> float:
    """``value`` as a float: a real number (not a bool), else ``TypeError`` naming ``name``.

    An integer too large for float64 (``float`` would raise ``OverflowError``) becomes
    ``inf``, so that the caller's range check refuses it with its own message.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be {expected}, got {type(value).__name__}")
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def check_positive_real(value: object, name: str) -> float:
    """Return ``value`` as a float after checking it is a finite real number > 0."""
    out = _real(value, name, "a real number > 0")
    if not math.isfinite(out) or out <= 0.0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r:.40}")
    return out


def check_beta(beta: object, name: str = "beta") -> float:
    """Return ``beta`` as a float after checking it lies in [2**-254, 2**254].

    ``beta`` must be a real number (not a bool), finite and > 0. It must moreover lie in
    ``[BETA_MIN, BETA_MAX] = [2**-254, 2**254]`` (about 3.5e-77 to 2.9e76): for every
    beta in that range every F_beta formula of fmacro is computed in float64 without
    overflow or underflow, and the range is closed under ``beta -> 1 / beta`` (which
    swaps the roles of precision and recall). Outside it the arithmetic breaks:

    * P/R form ``(1 + b**2) P R / (b**2 P + R)`` with P, R in [0, 1]: ``1 + b**2`` must be
      finite, so ``b < 2**512`` (about 1.3e154; above it F is NaN).
    * Counts form ``(1 + b**2) TP / ((1 + b**2) TP + b**2 FN + FP)`` with integer counts
      whose total is at most ``2**63 - 1``: the denominator is below
      ``(1 + b**2) 2**63``, finite for ``b <= 2**480`` (about 3.1e144; above it F is 0
      or NaN). Weighted counts (totals up to 2**1022) overflow sooner when beta > 1:
      :func:`validation.measures.f_beta_from_counts` refuses them with a message.
    * The certified searches (``optimize.search``: the maximum of F on a segment, the
      second-order remainder bound, the localization) square ``b**2`` again: their terms
      are at most ``16 (1 + b**2)**2``, finite for ``b <= 2**254``. This is the binding
      bound.
    * Small beta: ``b**2`` underflows to 0 for ``b`` below about ``2**-537``; the counts
      form then gives ``zero_division`` instead of 0 when TP = FP = 0 < FN (F_beta
      there is 0 for every beta > 0). ``b >= 2**-254`` keeps ``b**2`` and ``b**4``
      normal floats (>= 2**-1016), so ``b**2 FN > 0`` for every integer FN >= 1.

    Raises
    ------
    TypeError
        For a bool or a non-number.
    ValueError
        For NaN, infinity, ``beta <= 0`` or a beta outside ``[2**-254, 2**254]``.
    """
    value = check_positive_real(beta, name)
    if not BETA_MIN <= value <= BETA_MAX:
        raise ValueError(
            f"{name} must lie in [2**-254, 2**254] (about 3.5e-77 to 2.9e76), where F_beta "
            f"is computed in float64 without overflow or underflow, got {beta!r:.40}"
        )
    return value


def check_seed(seed: object, name: str = "seed", *, generators: bool = True) -> Any:
    """Return ``seed`` unchanged after checking that it can seed numpy's random generator.

    The one check of seeds: every function drawing random numbers from a ``seed`` runs it
    before :func:`numpy.random.default_rng`, whose own errors ("expected non-negative
    integer") do not say which argument is wrong.

    Accepted: ``None`` (fresh entropy), a non-negative integer (not a bool), a sequence
    of non-negative integers (numpy's entropy pool) and, with ``generators=True``, a
    :class:`numpy.random.Generator`, ``BitGenerator`` or ``SeedSequence``, which the
    caller uses as it is. With ``generators=False`` only ``None`` and a non-negative
    integer are accepted (a seed that is recorded and shown, as the splitters do).

    Raises
    ------
    TypeError
        For a bool, a float, a string or another object that is not a seed.
    ValueError
        For a negative integer (or a sequence holding one).
    """
    expected = (
        "None, a non-negative integer or a numpy Generator"
        if generators
        else "None or a non-negative integer"
    )
    if seed is None:
        return seed
    if generators and isinstance(
        seed, (np.random.Generator, np.random.BitGenerator, np.random.SeedSequence)
    ):
        return seed
    if isinstance(seed, (bool, np.bool_)):
        raise TypeError(f"{name} must be {expected}, got the bool {seed!r}")
    if isinstance(seed, (int, np.integer)):
        if seed < 0:
            raise ValueError(f"{name} must be {expected}, got {int(seed)}")
        return seed
    if generators and isinstance(seed, (list, tuple, np.ndarray)):
        items = np.asarray(seed, dtype=object).ravel().tolist()
        for item in items:
            if isinstance(item, (bool, np.bool_)) or not isinstance(item, (int, np.integer)):
                raise TypeError(
                    f"{name} must be {expected}; a sequence of seeds must hold integers, got "
                    f"{type(item).__name__} {item!r:.40}"
                )
            if item < 0:
                raise ValueError(f"{name} must be {expected}; the sequence holds {int(item)}")
        return seed
    raise TypeError(f"{name} must be {expected}, got {type(seed).__name__} {seed!r:.40}")


def describe_total(values: Any) -> str:
    """The sum of non-negative floats ``values``, written for a message (``'2e+308'``).

    Also when it overflows float64: the sum is then taken of the values scaled by 2**-64
    (exact for values that large) and written from its exact decimal value.
    """
    arr = np.asarray(values, dtype=np.float64)
    with np.errstate(over="ignore"):
        total = float(arr.sum())
    if math.isfinite(total):
        return short_number(total)
    scaled = float((arr * 2.0**-64).sum())
    return short_number(Decimal(scaled) * Decimal(2) ** 64)


def short_number(value: float | int | Decimal) -> str:
    """``value`` with 5 significant digits, trailing zeros dropped: ``'2e+308'``,
    ``'4.4942e+307'``; integers are written in full. A ``Decimal`` can exceed float64
    (a true sum that overflowed)."""
    if isinstance(value, int):
        return str(value)
    mantissa, exponent = f"{Decimal(value):.4e}".split("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{exponent}"


def check_zero_division(zero_division: object, name: str = "zero_division") -> float:
    """Return the 0/0 policy as a float: 0.0, 1.0 or nan.

    ``"warn"`` (scikit-learn's default spelling) is accepted and means 0.0.
    """
    if isinstance(zero_division, str):
        if zero_division == "warn":
            return 0.0
        if zero_division.lower() == "nan":
            return math.nan
        raise ValueError(f"{name} must be {ZERO_DIVISION_CHOICES}, got {zero_division!r}")
    value = _real(zero_division, name, ZERO_DIVISION_CHOICES)
    if math.isnan(value) or value in (0.0, 1.0):
        return value
    raise ValueError(f"{name} must be {ZERO_DIVISION_CHOICES}, got {zero_division!r:.40}")


def check_bool_bytes(arr: NDArray[Any], name: str) -> None:
    """Refuse a bool array whose raw bytes are not 0/1 (built by ``view`` or ``frombuffer``).

    numpy prints such an entry as True but compiled code and ``==`` may read the raw
    byte, so counts would depend on the layout; the caller should pass ``arr != 0``.
    """
    if arr.size == 0:
        return
    raw = arr.view(np.uint8) if arr.flags.c_contiguous or arr.flags.f_contiguous else None
    if raw is None:
        raw = np.ascontiguousarray(arr).view(np.uint8)
    if raw.max() > 1:  # one pass, no temporary mask unless there is something to report
        bad = raw > 1
        raise ValueError(
            f"{name} is a bool array holding raw byte values other than 0 and 1 "
            f"(such as {np.unique(raw[bad])[:5].tolist()}); pass (x != 0) instead"
        )


def check_fits_int64(arr: NDArray[Any], name: str) -> None:
    """Refuse unsigned integer labels above 2**63 - 1, which int64 would wrap to negatives."""
    if arr.dtype.kind == "u" and arr.dtype.itemsize == 8 and arr.size:
        top = arr.max()
        if top > np.iinfo(np.int64).max:
            raise ValueError(
                f"{name} holds the integer label {top}, above 2**63 - 1 (the largest int64); "
                "integer labels must fit in int64 (map larger IDs with classes=[...])"
            )


def check_fraction(value: object, name: str) -> float:
    """Return ``value`` as a float strictly inside (0, 1)."""
    out = _real(value, name, "a number in (0, 1)")
    if not (0.0 < out < 1.0):
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {value!r:.40}")
    return out


def check_same_length(**arrays: Any) -> int:
    """Check that every keyword argument has the same first dimension; return it."""
    lengths = {name: _length(a, name) for name, a in arrays.items()}
    distinct = set(lengths.values())
    if len(distinct) > 1:
        found = ", ".join(f"{name} has {n}" for name, n in lengths.items())
        raise ValueError(f"inputs must have the same number of samples: {found}")
    return distinct.pop() if distinct else 0


def _length(a: Any, name: str) -> int:
    shape = getattr(a, "shape", None)
    if shape is not None and len(shape) > 0:
        return int(shape[0])
    try:
        return len(a)
    except TypeError:
        raise TypeError(
            f"{name} must be a sequence with one entry per sample, got a single "
            f"{type(a).__name__} ({a!r:.40})"
        ) from None


#: Integers of magnitude up to 2**53 are exactly representable as float64.
FLOAT64_EXACT_INT = 2**53


def check_exact_in_float64(values: Any, name: str) -> None:
    """Refuse integer values that float64 would round (and so could tie or reorder).

    Integers of magnitude above 2**53 are refused unless each one converts exactly (a
    multiple of a large power of two); a silent rounding would merge distinct scores.
    Non-integer dtypes pass unchecked.
    """
    arr = values if isinstance(values, np.ndarray) else np.asarray(values)
    if arr.size == 0 or not np.issubdtype(arr.dtype, np.integer):
        return
    big = arr[(arr > FLOAT64_EXACT_INT) | (arr < -FLOAT64_EXACT_INT)]
    if big.size == 0:
        return
    as_float = big.astype(np.float64)
    # Compare in Python integers: exact, and free of the int64 overflow at 2**63.
    inexact = [int(v) for v, f in zip(big.tolist(), as_float.tolist(), strict=True) if int(f) != v]
    if inexact:
        raise ValueError(
            f"{name} holds {len(inexact)} integer(s) such as {inexact[0]} that float64 cannot "
            f"represent exactly (magnitude above 2**53), so distinct values would tie; "
            "rescale them or pass their ranks"
        )


def as_float_array(
    x: Any, name: str, *, ndim: int | None = None, allow_empty: bool = False
) -> NDArray[np.float64]:
    """Return ``x`` as a finite float64 array, refusing NaN/inf and bad shapes.

    pandas objects of nullable or pyarrow numbers (``Int64``, ``Float64``,
    ``int8[pyarrow]``) are read as the numpy dtype they hold, so that integers float64
    would round are refused as they are in numpy arrays, and a missing entry is refused
    with its position (:func:`fmacro.validation.labels.numpy_from_pandas`).
    """
    if is_sparse(x):
        raise TypeError(f"{name} must be a dense array here, got a sparse matrix")
    if not isinstance(x, np.ndarray):
        x = numpy_from_pandas(x, name=name)
    if np.iscomplexobj(x):  # float64 would drop the imaginary part with only a warning
        raise TypeError(f"{name} must hold real numbers, got complex values")
    check_exact_in_float64(x if isinstance(x, np.ndarray) else _as_array_or_none(x), name)
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be numeric, got {type(x).__name__}: {exc}") from None
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {arr.shape}")
    if not allow_empty and arr.size == 0:
        raise ValueError(f"{name} is empty; at least one value is needed")
    if not np.isfinite(arr).all():
        bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        raise ValueError(f"{name} contains {bad} NaN or infinite value(s)")
    return arr


def _as_array_or_none(x: Any) -> Any:
    """``x`` as a numpy array when numpy can read it, else an empty array (checked later)."""
    try:
        return np.asarray(x)
    except (TypeError, ValueError):
        return np.empty(0)


def as_label_vector(
    x: Any,
    name: str,
    *,
    classes: Sequence[Hashable] | NDArray[Any] | None = None,
    n_classes: int | None = None,
) -> NDArray[np.int64]:
    """Return a 1-D int64 vector of class indices.

    Parameters
    ----------
    x
        Labels: integers, or arbitrary hashable labels when ``classes`` maps them.
    name
        Argument name used in error messages.
    classes
        Optional sequence of labels; each label is replaced by its position.
    n_classes
        Optional number of classes; integer labels must then lie in ``[0, n_classes)``.
        Without it any integers (negative ones too, e.g. -1/+1) are accepted.
    """
    from fmacro.validation.labels import coerce_labels

    # One rule for every label vector (shape, NaN, mixed types): validation.labels.
    arr = coerce_labels(x, name=name)
    if classes is not None:
        return _map_labels(arr, name, classes)
    if arr.dtype == np.bool_:
        check_bool_bytes(arr, name)
        codes = arr.astype(np.int64)
    elif np.issubdtype(arr.dtype, np.integer):
        check_fits_int64(arr, name)
        codes = arr.astype(np.int64, copy=True)
    elif arr.dtype == object and not isinstance(arr[0], str) and isinstance(arr[0], int):
        raise ValueError(f"{name} has integer labels beyond int64; pass classes=[...] to map them")
    else:
        raise TypeError(
            f"{name} must hold integer labels, got {arr.dtype} labels such as {arr[0]!r}; "
            "pass classes=[...] to map arbitrary labels to class indices"
        )
    if n_classes is not None:
        bad = (codes < 0) | (codes >= n_classes)
        if bad.any():
            raise ValueError(
                f"{name} has label(s) outside the declared classes 0..{n_classes - 1}: "
                f"{np.unique(codes[bad])[:5].tolist()}"
            )
    return codes


def _map_labels(
    arr: NDArray[Any], name: str, classes: Sequence[Hashable] | NDArray[Any]
) -> NDArray[np.int64]:
    class_list = (
        list(np.asarray(classes).tolist()) if isinstance(classes, np.ndarray) else list(classes)
    )
    if len(class_list) == 0:
        raise ValueError("classes is empty; at least one class is needed")
    index = {c: i for i, c in enumerate(class_list)}
    if len(index) != len(class_list):
        raise ValueError("classes has duplicate entries")
    values = arr.tolist()
    try:
        codes = np.fromiter((index[v] for v in values), dtype=np.int64, count=len(values))
    except KeyError as exc:
        raise ValueError(
            f"{name} has label {exc.args[0]!r} outside the declared classes {class_list[:10]}"
        ) from None
    except TypeError as exc:
        raise TypeError(f"{name} has an unhashable label: {exc}") from None
    return codes
