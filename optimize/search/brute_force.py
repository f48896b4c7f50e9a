"""Exact enumeration of every cut combination, for tiny problems and tests.

:func:`brute_force` enumerates in float64 (vectorized; at most ``limit``
combinations, default 2e6). :func:`brute_force_exact` does the same in exact
rational arithmetic (:class:`fractions.Fraction`) and serves as the oracle in tests.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import attrs
import numpy as np

from fmacro.optimize._frames import names_from_frames
from fmacro.optimize.search.points import ClassPoints, as_points
from fmacro.optimize.search.result import ThresholdResult
from fmacro.validation.checks import check_beta
from fmacro.validation.measures import f_beta_from_pr

__all__ = ["ExactOptimum", "brute_force", "brute_force_exact", "exact_f_of_cuts"]

DEFAULT_LIMIT = 2_000_000
EXACT_LIMIT = 200_000


def _n_combinations(points: ClassPoints) -> int:
    return math.prod(int(c) for c in points.n_cuts)


def _check_size(points: ClassPoints, limit: int) -> None:
    total = _n_combinations(points)
    if total > limit:
        raise ValueError(
            f"brute force would enumerate {total} cut combinations "
            f"(product of the per-class cut counts {points.n_cuts.tolist()[:10]}...), "
            f"more than limit={limit}; use fixed_point for problems this size"
        )


@names_from_frames("scores", "labels")
def brute_force(
    scores: Any = None,
    labels: Any = None,
    *,
    beta: float = 1.0,
    zero_division: float | None = None,
    empty_classes: str = "exclude",
    points: ClassPoints | None = None,
    limit: int = DEFAULT_LIMIT,
    sample_weight: Any = None,
) -> ThresholdResult:
    """The F-macro optimum by trying every combination of cuts (float64).

    Refuses with ``ValueError`` when the number of combinations exceeds ``limit``.
    Cuts with undefined precision (empty cuts under ``zero_division=nan``) are
    skipped. Returns ``upper_bound == f`` (exact up to rounding); ties go to the
    first combination in lexicographic cut order. ``sample_weight`` (one weight per
    object) enumerates the cuts of ``class_points(scores, labels, sample_weight=...)``.

    Examples
    --------
    Two classes of six objects (rows in decreasing score order in both columns): 7 x 7
    pairs of cuts. The best keeps class 0's top 2 (p = 1, r = 1/2) and all of class 1
    (p = 1/2, r = 1): P = R = F = 3/4.

    >>> import numpy as np
    >>> scores = np.array([[0.6, 0.9], [0.5, 0.7], [0.4, 0.6], [0.3, 0.4], [0.2, 0.3], [0.1, 0.2]])
    >>> labels = np.array([[1, 1], [1, 0], [0, 1], [1, 0], [0, 0], [1, 1]])
    >>> res = brute_force(scores, labels)
    >>> res.cuts.tolist(), res.thresholds.tolist(), res.f
    ([2, 6], [0.5, 0.2], 0.75)
    >>> brute_force(scores, labels, limit=48)
    Traceback (most recent call last):
    ...
    ValueError: brute force would enumerate 49 cut combinations ...
    """
    b = check_beta(beta)
    pts = as_points(
        scores,
        labels,
        points,
        zero_division=zero_division,
        empty_classes=empty_classes,
        sample_weight=sample_weight,
    )
    _check_size(pts, limit)
    n = pts.n_classes
    sp = np.zeros(1)
    sr = np.zeros(1)
    for j in range(n):
        sl = pts.class_slice(j)
        pj = pts.precision[sl]
        rj = pts.recall[sl]
        sp = (sp[:, None] + pj[None, :]).ravel()
        sr = (sr[:, None] + rj[None, :]).ravel()
    P = sp / n
    R = sr / n
    F = np.asarray(f_beta_from_pr(P, R, b))
    F = np.where(np.isnan(F), -np.inf, F)
    best = int(np.argmax(F))
    cuts = np.array(np.unravel_index(best, tuple(int(c) for c in pts.n_cuts)), dtype=np.int64)
    res = ThresholdResult.from_checked_cuts(pts, cuts, beta=b, method="brute_force")
    return attrs.evolve(res, upper_bound=res.f, gap=0.0)


@attrs.frozen
class ExactOptimum:
    """The exact optimum: F, P, R as Fractions and the optimal local cuts."""

    f: Fraction
    precision: Fraction
    recall: Fraction
    cuts: tuple[int, ...]


def _exact_points(points: ClassPoints) -> list[list[tuple[Fraction, Fraction] | None]]:
    zd = points.zero_division
    out: list[list[tuple[Fraction, Fraction] | None]] = []
    for j in range(points.n_classes):
        sl = points.class_slice(j)
        m = points.support[j].item()  # a weighted class size is a fraction: no int()
        out.append(
            [
                _exact_point(tp, fp, m, zd)
                for tp, fp in zip(points.tp[sl].tolist(), points.fp[sl].tolist(), strict=True)
            ]
        )
    return out


def _exact_f(p: Fraction, r: Fraction, b2: Fraction) -> Fraction:
    den = b2 * p + r
    return Fraction(0) if den == 0 else (1 + b2) * p * r / den


def _exact_point(tp: float, fp: float, m: float, zd: float) -> tuple[Fraction, Fraction] | None:
    """(p, r) of one cut in rational arithmetic; None where undefined (``zd`` nan).

    Counts are integers, or floats when weighted (a float converts to a Fraction exactly).
    """
    hits, misses, size = Fraction(tp), Fraction(fp), Fraction(m)
    if hits + misses == 0:
        if math.isnan(zd):
            return None
        p = Fraction(int(zd))
    else:
        p = hits / (hits + misses)
    r = Fraction(int(zd)) if size == 0 else hits / size
    return p, r


def exact_f_of_cuts(points: ClassPoints, cuts: Any, beta: float | Fraction = 1) -> Fraction:
    """Exact F_beta(P, R) of the given local cuts (``beta`` as a Fraction-able value).

    Touches only the chosen cuts, so it is cheap on large problems too.

    Examples
    --------
    The T_b cuts of :func:`brute_force`'s example (class 0 all six objects: p = 2/3,
    r = 1; class 1 its top 3: p = r = 2/3), P = 2/3, R = 5/6:

    >>> import numpy as np
    >>> from fmacro.optimize import class_points
    >>> scores = np.array([[0.6, 0.9], [0.5, 0.7], [0.4, 0.6], [0.3, 0.4], [0.2, 0.3], [0.1, 0.2]])
    >>> labels = np.array([[1, 1], [1, 0], [0, 1], [1, 0], [0, 0], [1, 1]])
    >>> exact_f_of_cuts(class_points(scores, labels), [6, 3])
    Fraction(20, 27)
    """
    b2 = Fraction(beta) ** 2
    g = points.indptr[:-1] + np.asarray(cuts, dtype=np.int64)
    chosen = [
        _exact_point(tp, fp, m, points.zero_division)
        for tp, fp, m in zip(
            points.tp[g].tolist(), points.fp[g].tolist(), points.support.tolist(), strict=True
        )
    ]
    if any(x is None for x in chosen):
        raise ValueError("cuts choose an undefined (empty under zero_division=nan) cut")
    n = points.n_classes
    P = sum((x[0] for x in chosen if x is not None), Fraction(0)) / n
    R = sum((x[1] for x in chosen if x is not None), Fraction(0)) / n
    return _exact_f(P, R, b2)


def brute_force_exact(
    points: ClassPoints, beta: float | Fraction = 1, *, limit: int = EXACT_LIMIT
) -> ExactOptimum:
    """The exact optimum over all cut combinations in rational arithmetic.

    ``beta`` is converted with ``Fraction(beta)`` (so 0.5 and 2 are exact).

    Examples
    --------
    :func:`brute_force`'s example in rational arithmetic:

    >>> import numpy as np
    >>> from fmacro.optimize import class_points
    >>> scores = np.array([[0.6, 0.9], [0.5, 0.7], [0.4, 0.6], [0.3, 0.4], [0.2, 0.3], [0.1, 0.2]])
    >>> labels = np.array([[1, 1], [1, 0], [0, 1], [1, 0], [0, 0], [1, 1]])
    >>> brute_force_exact(class_points(scores, labels))
    ExactOptimum(f=Fraction(3, 4), precision=Fraction(3, 4), recall=Fraction(3, 4), cuts=(2, 6))
    >>> opt = brute_force_exact(class_points(scores, labels), beta=2)  # recall weighs more
    >>> opt.f, opt.cuts  # every object of both classes: P = 7/12, R = 1
    (Fraction(7, 8), (6, 6))
    """
    _check_size(points, limit)
    b2 = Fraction(beta) ** 2
    if b2 <= 0:
        raise ValueError(f"beta must be > 0, got {beta!r}")
    n = points.n_classes
    table = _exact_points(points)
    choices = [[(c, x) for c, x in enumerate(row) if x is not None] for row in table]
    best: ExactOptimum | None = None
    for combo in itertools.product(*choices):
        P = sum((x[0] for _, x in combo), Fraction(0)) / n
        R = sum((x[1] for _, x in combo), Fraction(0)) / n
        f = _exact_f(P, R, b2)
        if best is None or f > best.f:
            best = ExactOptimum(f, P, R, tuple(c for c, _ in combo))
    assert best is not None
    return best
