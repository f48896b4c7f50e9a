"""Smoothed class points: the expected precision and recall of a cut on new data.

For class k and cut j of its tuning ranking (j objects predicted, tp of them
positive, m_k positives among N tuning objects, prior centre pi_k, pseudo-count
a >= 0, evaluation batch size n):

    p~ = (tp + a pi_k) / (j + a) * (1 - q) + z q,   q = (1 - j/N)^n     (j >= 1)
    r~ = (tp + a j/N) / (m_k + a)

and the empty cut keeps p = z (``zero_division``), r = 0.

* ``(tp + a pi_k)/(j + a)`` and ``r~`` are the posterior means of the cut's
  precision and recall under Beta priors of strength a centred on what a random cut
  of that size gets (precision pi_k, recall j/N). A single top-ranked hit no longer
  counts as precision 1.
* ``q`` is the probability that a cut taking the share j/N of the objects predicts
  none of n new objects; such an empty prediction has precision ``z``. So the first
  line is the expected precision on a batch of n objects (binomial thinning). With
  ``z = nan`` an empty prediction is left out of the average rather than scored, so
  the factor is not applied (``p~`` is then the posterior mean alone).
* ``a = 0`` and ``n = inf`` give back the raw points bit for bit (``q = 0``).

Every method that reads :attr:`ClassPoints.precision` / :attr:`ClassPoints.recall`
(``fixed_point``, ``domain``, ``per_class``, ``cyclic``, the hull and sweep) runs
on :class:`SmoothedPoints` unchanged and optimizes (or certifies) the *smoothed*
objective ``F_beta(mean p~, mean r~)``.

Properties used by the hull (proved in docs/f-macro.md, tested by Hypothesis): for
a > 0, ``r~`` is strictly increasing along a class's cuts; ``p~`` (before the
finite-sample factor) is a convex combination of the raw precision and pi_k, so it
lies between them.
"""

from __future__ import annotations

import math
from functools import cached_property
from typing import Any

import attrs
import numpy as np
from numpy.typing import ArrayLike, NDArray

from fmacro.optimize.search.points import ClassPoints
from fmacro.validation.counts import frozen_floats
from fmacro.validation.dispatch import kernel

__all__ = [
    "SmoothedPoints",
    "check_base_rates",
    "check_n_eval",
    "check_pseudo_count",
    "frozen_floats",
    "smooth_points",
    "smoothed_at",
]


def _number(value: object, name: str, expected: str) -> float:
    """``value`` as a float (an integer too large for float64 becomes inf); ``TypeError``
    naming ``name`` for a bool or a non-number."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be {expected}, got {value!r:.40}")
    try:
        return float(value)
    except OverflowError:  # an int beyond float64
        return math.inf if value > 0 else -math.inf


def check_pseudo_count(value: object, name: str = "prior") -> float:
    """A finite pseudo-count ``a >= 0``; ``ValueError``/``TypeError`` naming ``name``."""
    v = _number(value, name, "a number >= 0 or 'cv'" if name == "prior" else "a number >= 0")
    if not math.isfinite(v) or v < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r:.40}")
    return v


def check_n_eval(value: object, n_samples: float, name: str = "n_eval") -> float:
    """Evaluation batch size: ``None`` -> ``n_samples``, a number >= 1, or ``math.inf``.

    A batch holds at least one object (a tiny ``n_eval`` also overflowed the size of the
    walks' table of finite-sample factors, ``40 N / n_eval`` entries, in int64).
    """
    if value is None:
        return float(n_samples)
    v = _number(value, name, "a batch size >= 1, math.inf or None")
    if math.isnan(v) or v < 1:
        raise ValueError(
            f"{name} must be a batch size >= 1 (the number of objects the thresholds will "
            f"be applied to) or math.inf, got {value!r:.40}"
        )
    return v


def check_base_rates(value: Any, n_columns: int, name: str = "base_rates") -> NDArray[np.float64]:
    """Per-column prior centres in [0, 1], shape ``(n_columns,)``."""
    arr = np.asarray(value)
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.floating)
        or np.issubdtype(arr.dtype, np.integer)
        or arr.dtype == np.bool_
    ):
        raise TypeError(f"{name} must be an array of numbers, got dtype {arr.dtype}")
    if arr.shape != (n_columns,):
        raise ValueError(
            f"{name} must have one entry per class column, shape ({n_columns},), got {arr.shape}"
        )
    out = arr.astype(np.float64)
    if not np.isfinite(out).all() or (out < 0).any() or (out > 1).any():
        raise ValueError(f"{name} must hold values in [0, 1]")
    return out


def _check_centre(value: Any, total: int, name: str) -> NDArray[np.float64]:
    arr = np.asarray(value, dtype=np.float64)
    if arr.shape != (total,):
        raise ValueError(f"{name} must have one entry per cut, shape ({total},), got {arr.shape}")
    if not np.isfinite(arr).all() or (arr < 0).any() or (arr > 1).any():
        raise ValueError(f"{name} must hold values in [0, 1]")
    return arr


@attrs.frozen(eq=False)
class SmoothedPoints(ClassPoints):
    """Class points whose precision and recall are the smoothed values (module doc).

    The counts, thresholds and classes are those of the raw points; only
    :attr:`precision` and :attr:`recall` differ. :meth:`raw` gives the plain points.

    Attributes
    ----------
    pseudo_count : float
        a >= 0.
    base_rate : ndarray of float64, shape (n_classes,)
        Prior centre pi_k of each kept class.
    n_eval : float
        Evaluation batch size n (``inf``: no finite-sample factor).
    centre_p, centre_r : ndarray of float64, shape (n_cuts_total,) or (0,)
        Per-cut prior centres of precision and recall replacing pi_k and j/N (e.g. a
        calibrated model's expected values, :func:`optimize.etu.model_centres`);
        empty = the random-cut centres.
    """

    pseudo_count: float = attrs.field(converter=float, default=0.0)
    base_rate: NDArray[np.float64] = attrs.field(
        converter=frozen_floats, factory=lambda: np.zeros(0)
    )
    n_eval: float = attrs.field(converter=float, default=math.inf)
    centre_p: NDArray[np.float64] = attrs.field(
        converter=frozen_floats, factory=lambda: np.zeros(0)
    )
    centre_r: NDArray[np.float64] = attrs.field(
        converter=frozen_floats, factory=lambda: np.zeros(0)
    )

    def raw(self) -> ClassPoints:
        """The unsmoothed points (same arrays)."""
        return ClassPoints(
            self.indptr,
            self.tp,
            self.fp,
            self.threshold,
            self.support,
            self.class_index,
            self.n_samples,
            self.n_columns,
            self.zero_division,
            full_cut=self.full_cut,
        )

    @cached_property
    def _smoothed(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        p, r = _smooth_kernel(
            np.asarray(self.indptr),
            np.asarray(self.tp),
            np.asarray(self.fp),
            np.asarray(self.support),
            np.asarray(self.base_rate),
            float(self.n_samples),
            self.pseudo_count,
            self.n_eval,
            self.zero_division,
            np.asarray(self.centre_p),
            np.asarray(self.centre_r),
        )
        p.flags.writeable = False
        r.flags.writeable = False
        return p, r

    @property
    def precision(self) -> NDArray[np.float64]:
        """Expected precision on a batch of ``n_eval`` objects; empty cut: zero_division."""
        return self._smoothed[0]

    @property
    def recall(self) -> NDArray[np.float64]:
        """``(tp + a j/N) / (m_k + a)``; raw rule (``zero_division``) when m_k = a = 0."""
        return self._smoothed[1]


@kernel(cache=True, inline="always")
def empty_chance(j: float, n_obj: float, n_eval: float, zd: float) -> float:
    """q = (1 - j/N)^n: the chance that a cut of j of N objects predicts none of n new ones.

    0 where the factor is not applied: ``zero_division`` nan, ``n_eval`` inf, or
    ``n j >= 40 N`` (then q <= exp(-n j / N) < 5e-18 and 1 - q rounds to 1).
    """
    if np.isnan(zd) or np.isinf(n_eval) or n_eval * j >= 40.0 * n_obj:
        return 0.0
    q: float = (1.0 - j / n_obj) ** n_eval
    return q


@kernel(cache=True, inline="always")
def smoothed_cut(
    tp: float,
    j: float,
    m: float,
    centre_p: float,
    centre_r: float,
    a: float,
    q: float,
    zd: float,
) -> tuple[float, float]:
    """(p~, r~) of one cut: j objects predicted, tp of them positive, m positives.

    ``centre_p``/``centre_r`` are the prior centres (pi_k and j/N for a random cut), ``q``
    the cut's :func:`empty_chance`. The one place the formulas of the module docstring
    are computed: the smoothing kernel and the fused hull walk of
    :mod:`optimize.tuning._hull_points` both call it, so both give the same floats.
    """
    if j == 0:
        p = zd
    else:
        p = (tp + a * centre_p) / (j + a)
        if q != 0.0:
            p = p * (1.0 - q) + zd * q
    den_r = m + a
    if den_r == 0.0:
        r = zd
    elif a == 0.0:
        r = tp / den_r
    else:
        r = (tp + a * centre_r) / den_r
    return p, r


@kernel(cache=True)
def _smooth_kernel(
    indptr: NDArray[np.int64],
    tp: NDArray[np.int64],
    fp: NDArray[np.int64],
    positives: NDArray[np.int64],
    base_rate: NDArray[np.float64],
    n_obj: float,
    a: float,
    n_eval: float,
    zd: float,
    centre_p: NDArray[np.float64],
    centre_r: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """One pass over the cuts: smoothed precision and recall (module docstring)."""
    model = centre_p.size > 0
    total = tp.size
    p = np.empty(total, dtype=np.float64)
    r = np.empty(total, dtype=np.float64)
    for k in range(indptr.size - 1):
        pi = base_rate[k]
        m = float(positives[k])
        for g in range(indptr[k], indptr[k + 1]):
            j = float(tp[g] + fp[g])
            cp = centre_p[g] if model else pi
            cr = centre_r[g] if model else j / n_obj
            q = empty_chance(j, n_obj, n_eval, zd)
            p[g], r[g] = smoothed_cut(float(tp[g]), j, m, cp, cr, a, q, zd)
    return p, r


def centred_values(
    indptr: NDArray[np.int64],
    tp: NDArray[np.int64],
    fp: NDArray[np.int64],
    support: NDArray[np.int64],
    centres: NDArray[np.float64],
    n_obj: int,
    a: float,
    n_eval: float,
    zd: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(p~, r~) of cuts given as bare arrays, each class's priors centred on its rate
    ``centres[k]`` (the own rate m_k / N, or a given base rate): the values
    :class:`SmoothedPoints` computes (the same kernel), without building one."""
    empty = np.zeros(0)
    return _smooth_kernel(
        indptr, tp, fp, support, centres, float(n_obj), a, n_eval, zd, empty, empty
    )


def smooth_points(
    points: ClassPoints,
    prior: float = 3.0,
    *,
    base_rates: ArrayLike | None = None,
    n_eval: float | None = None,
    centres: tuple[ArrayLike, ArrayLike] | None = None,
) -> SmoothedPoints:
    """Smoothed copy of ``points`` (see the module docstring for the formulas).

    Parameters
    ----------
    points
        Raw (or already smoothed: then its raw counts are used) class points.
    prior
        Pseudo-count a >= 0 (0 = no smoothing).
    base_rates
        Prior centre pi per ORIGINAL column, values in [0, 1] (e.g. the training
        labels' rates). Default: the points' own rates m_k / N.
    n_eval
        Size of the batch the thresholds will be applied to, >= 1: ``None`` -> N (the
        number of tuning objects), ``math.inf`` -> no finite-sample factor.
    centres
        ``(centre_p, centre_r)``: per-cut prior centres of precision and recall, each
        shape ``(n_cuts_total,)`` with values in [0, 1], replacing pi_k and j/N (e.g.
        :func:`optimize.etu.model_centres` for calibrated scores). ``base_rates`` is
        then unused.

    Returns
    -------
    SmoothedPoints
    """
    if not isinstance(points, ClassPoints):
        raise TypeError(f"points must be a ClassPoints, got {type(points).__name__}")
    a = check_pseudo_count(prior)
    n = check_n_eval(n_eval, points.n_samples)
    return smoothed_at(points, a, n, base_rates=base_rates, centres=centres)


def smoothed_at(
    points: ClassPoints,
    a: float,
    n_eval: float,
    *,
    base_rates: ArrayLike | None = None,
    centres: tuple[ArrayLike, ArrayLike] | None = None,
) -> SmoothedPoints:
    """:func:`smooth_points` at a checked pseudo-count ``a`` and batch size ``n_eval``.

    ``tune`` resolves ``n_eval`` first: a given one is >= 1, the default is the number of
    tuning rows, or their total weight, which fractional sample weights can put below 1
    (that batch is smoothed as it is, not refused as a given ``n_eval`` below 1 is).
    """
    n = float(n_eval)
    if base_rates is None:
        pi = points.support / float(points.n_samples)
    else:
        pi = check_base_rates(base_rates, points.n_columns)[points.class_index]
    base = points.raw() if isinstance(points, SmoothedPoints) else points
    if base.pruned:
        # smoothed recall grows with every cut, also at equal tp: no cut is dominated
        raise ValueError(
            "points were built with dominated='drop'; smoothing needs every cut: build them "
            "with class_points(..., dominated='keep')"
        )
    cp, cr = np.zeros(0), np.zeros(0)
    if centres is not None:
        if len(centres) != 2:
            raise ValueError("centres must be a pair (centre_p, centre_r)")
        total = int(points.tp.shape[0])
        cp, cr = (_check_centre(c, total, f"centres[{i}]") for i, c in enumerate(centres))
    return sharing(base, pseudo_count=a, base_rate=pi, n_eval=n, centre_p=cp, centre_r=cr)


def sharing(
    base: ClassPoints,
    *,
    pseudo_count: float,
    base_rate: Any,
    n_eval: float,
    centre_p: Any,
    centre_r: Any,
) -> SmoothedPoints:
    """SmoothedPoints over ``base``'s arrays without copying them.

    The attrs converters copy every array; the cut arrays of a frozen ClassPoints are
    already private and read-only, so sharing them keeps the no-aliasing rule (nothing
    can change them) and saves copying the whole cut table on every smoothing.
    """
    obj = object.__new__(SmoothedPoints)
    for field in attrs.fields(ClassPoints):
        object.__setattr__(obj, field.name, getattr(base, field.name))
    object.__setattr__(obj, "pseudo_count", float(pseudo_count))
    object.__setattr__(obj, "base_rate", frozen_floats(base_rate))
    object.__setattr__(obj, "n_eval", float(n_eval))
    object.__setattr__(obj, "centre_p", frozen_floats(centre_p))
    object.__setattr__(obj, "centre_r", frozen_floats(centre_r))
    return obj
