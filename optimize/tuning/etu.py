"""``etu``: F-macro decisions for a batch from calibrated probabilities (no labels).

Given the calibrated probabilities ``eta[i, k] = P(y_ik = 1 | x_i)`` of a whole batch, the
expected counts of class k's cut j (its j most probable objects) are
``E[tp] = sum of the top-j eta`` and ``E[m_k] = sum of all eta of the column``; the
expected-count point of the cut is ``p = E[tp] / j``, ``r = E[tp] / E[m_k]``. The
expected-utility (ETU) decision for F-macro is then the certified optimum of F_beta(mean
p, mean r) over these points, found by the same hull sweep as :func:`optimize.fixed_point`
(the plug-in of expected counts into F; the certificate is for that objective).

This is *transductive*: the decisions are for the batch whose probabilities are given (the
thresholds are in that batch's probability scale and ranking), and it trusts the model's
calibration. It uses no labels. Columns whose probabilities sum to 0 get ``+inf``.

With ``sample_weight`` (the weights the batch's F-macro will be computed with) every count
is weighted: ``j`` is the cut's total weight, ``E[tp]`` and ``E[m_k]`` sums of ``w eta``. An
integer weight is the object repeated that many times.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize._frames import names_from_frames
from fmacro.optimize.inputs import matrix_shape
from fmacro.optimize.offsets import indptr_from_counts
from fmacro.optimize.search.fixed_point import fixed_point_checked
from fmacro.optimize.search.points import ClassPoints
from fmacro.optimize.search.result import ThresholdResult
from fmacro.optimize.tuning.smoothing import frozen_floats
from fmacro.validation.checks import check_beta, check_zero_division, is_sparse
from fmacro.validation.weights import check_sample_weight

__all__ = ["ExpectedPoints", "etu", "expected_points", "model_centres"]


@attrs.frozen(eq=False)
class ExpectedPoints(ClassPoints):
    """Class points whose precision/recall are expected-count values (module docstring).

    ``tp`` is 0 and ``fp`` the cut size j (the counts are not integers here; with
    ``sample_weight`` j is the cut's total weight, a float); the expected true positives
    are in ``expected_tp`` and the expected class sizes in ``expected_positives``.
    """

    expected_tp: NDArray[np.float64] = attrs.field(
        converter=frozen_floats, factory=lambda: np.zeros(0)
    )
    expected_positives: NDArray[np.float64] = attrs.field(
        converter=frozen_floats, factory=lambda: np.zeros(0)
    )

    @cached_property
    def _pr(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        j = (self.tp + self.fp).astype(np.float64)
        m = np.repeat(self.expected_positives, self.n_cuts)
        with np.errstate(divide="ignore", invalid="ignore"):
            # a weighted cut can weigh less than 1: divide by j itself, not max(j, 1)
            p = np.where(j == 0, self.zero_division, self.expected_tp / np.where(j == 0, 1.0, j))
            r = self.expected_tp / m
        p.flags.writeable = False
        r.flags.writeable = False
        return p, r

    @property
    def precision(self) -> NDArray[np.float64]:
        """Expected tp / j; the empty cut gets ``zero_division``."""
        return self._pr[0]

    @property
    def recall(self) -> NDArray[np.float64]:
        """Expected tp / expected class size."""
        return self._pr[1]


def _cut_slots(
    srt: NDArray[np.float64],
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """The cuts of probabilities sorted in descending order per column: ``(indptr, class,
    row, slot)``. A cut ends after the last object of each group of equal probabilities;
    each column's cuts follow its empty cut, and ``slot`` is where the cut ending at
    ``row`` of ``class`` goes among all the columns' cuts."""
    ends = np.ones(srt.shape, dtype=bool)
    ends[:-1] = srt[:-1] != srt[1:]
    counts = ends.sum(axis=0) + 1  # + the empty cut
    indptr = indptr_from_counts(counts)
    k_idx, r_idx = np.nonzero(ends.T)  # by class, then row (ascending)
    first = np.repeat(np.cumsum(counts - 1) - (counts - 1), counts - 1)
    slot = indptr[k_idx] + 1 + (np.arange(k_idx.size) - first)
    return indptr, k_idx, r_idx, slot


def expected_points(
    probabilities: Any, *, zero_division: float = 0.0, sample_weight: Any = None
) -> ExpectedPoints:
    """Expected-count points of every cut of every column of a probability matrix.

    Parameters
    ----------
    probabilities
        Dense ``(N, n)`` calibrated probabilities in [0, 1] (a batch of N objects).
    zero_division
        Precision of the empty cut: 0.0, 1.0 or nan.
    sample_weight
        One non-negative weight per object, or ``None``: an object of weight w counts w
        times in every expected count (a cut's size j is its objects' total weight,
        ``E[tp]`` the sum of ``w eta`` over them, ``E[m_k]`` over the column; ``n_samples``
        the total weight); objects of weight 0 are left out (no cut). Checked by
        :func:`fmacro.validation.weights.check_sample_weight`.
    """
    zd = check_zero_division(zero_division)
    if is_sparse(probabilities):
        raise TypeError("probabilities must be a dense array (every entry is needed)")
    n_obj, n_cols = matrix_shape(probabilities, "probabilities")
    weights = check_sample_weight(sample_weight, n_obj)
    eta = np.asarray(probabilities, dtype=np.float64)
    if not np.isfinite(eta).all() or (eta < 0).any() or (eta > 1).any():
        raise ValueError("probabilities must hold finite values in [0, 1]")
    if weights is not None:
        return _weighted_expected_points(eta, weights, zd)
    mass = eta.sum(axis=0)
    cols = np.flatnonzero(mass > 0).astype(np.int64)
    if cols.size == 0:
        raise ValueError("probabilities is all zero; no class can be expected")
    srt = -np.sort(-eta[:, cols], axis=0)  # descending per column
    cum = np.cumsum(srt, axis=0)
    indptr, k_idx, r_idx, slot = _cut_slots(srt)
    total = int(indptr[-1])
    j = np.zeros(total, dtype=np.int64)
    etp = np.zeros(total)
    thr = np.full(total, np.inf)
    j[slot] = r_idx + 1
    etp[slot] = cum[r_idx, k_idx]
    thr[slot] = srt[r_idx, k_idx]
    return ExpectedPoints(
        indptr,
        np.zeros(total, dtype=np.int64),
        j,
        thr,
        np.zeros(cols.size, dtype=np.int64),
        cols,
        n_obj,
        n_cols,
        zd,
        expected_tp=etp,
        expected_positives=mass[cols],
    )


def _weighted_expected_points(
    eta: NDArray[np.float64], weights: NDArray[np.float64], zd: float
) -> ExpectedPoints:
    """:func:`expected_points` of checked probabilities with checked weights: the cuts of
    the objects of non-zero weight, each counting its weight (float sums)."""
    total = float(weights.sum())
    live = weights > 0
    eta_l, w_l = eta[live], weights[live]
    mass = np.asarray(w_l @ eta_l, dtype=np.float64)
    cols = np.flatnonzero(mass > 0).astype(np.int64)
    if cols.size == 0:
        raise ValueError("probabilities is all zero on the objects of non-zero weight")
    order = np.argsort(-eta_l[:, cols], axis=0, kind="stable")  # descending per column
    srt = np.take_along_axis(eta_l[:, cols], order, axis=0)
    w_srt = w_l[order]
    cum_tp = np.cumsum(srt * w_srt, axis=0)
    cum_j = np.cumsum(w_srt, axis=0)
    indptr, k_idx, r_idx, slot = _cut_slots(srt)
    n_cuts = int(indptr[-1])
    j = np.zeros(n_cuts)
    etp = np.zeros(n_cuts)
    thr = np.full(n_cuts, np.inf)
    j[slot] = cum_j[r_idx, k_idx]
    etp[slot] = cum_tp[r_idx, k_idx]
    thr[slot] = srt[r_idx, k_idx]
    return ExpectedPoints(
        indptr,
        np.zeros(n_cuts),  # float counts: the points are weighted
        j,
        thr,
        np.zeros(cols.size),
        cols,
        total,
        eta.shape[1],
        zd,
        expected_tp=etp,
        expected_positives=mass[cols],
    )


@names_from_frames("probabilities")
def etu(
    probabilities: Any,
    *,
    beta: float = 1.0,
    zero_division: float = 0.0,
    sample_weight: Any = None,
) -> ThresholdResult:
    """Expected-F-macro-optimal decisions for a batch of calibrated probabilities.

    Parameters
    ----------
    probabilities
        Dense ``(N, n)`` calibrated probabilities of the batch to predict.
    beta
        F_beta weight, > 0.
    zero_division
        Precision of an empty prediction: 0.0, 1.0 or nan.
    sample_weight
        One non-negative weight per object of the batch, or ``None``: the decisions
        for a batch whose F-macro will be computed with these weights (as
        ``f_macro(..., sample_weight=w)`` does). Each expected count is then a weighted
        sum (:func:`expected_points`): a cut's size is its objects' total weight, its
        expected true positives the sum of ``w eta`` over them, a class's expected size
        the sum of ``w eta`` over the column. Integer weights give the decisions for the
        rows repeated that many times; objects of weight 0 are not part of the batch
        (their probabilities are no thresholds, and the thresholds apply to them like to
        any object).

    Returns
    -------
    ThresholdResult
        ``method="etu"``; ``thresholds`` in the batch's probability scale (apply them to
        the same ``probabilities``); ``f``, ``precision``, ``recall``, ``upper_bound``,
        ``gap`` are those of the *expected-count* objective (no labels are involved).
        ``diagnostics`` holds the search's diagnostics and ``expected_class_sizes``.

    Examples
    --------
    >>> import numpy as np
    >>> eta = np.array([[0.9, 0.1], [0.6, 0.2], [0.1, 0.7]])
    >>> res = etu(eta)
    >>> res.apply(eta).astype(int).tolist()
    [[1, 0], [1, 0], [0, 1]]
    """
    b = check_beta(beta)
    pts = expected_points(probabilities, zero_division=zero_division, sample_weight=sample_weight)
    inner = fixed_point_checked(pts, b)
    diag = dict(inner.diagnostics)
    diag["expected_class_sizes"] = np.asarray(pts.expected_positives)
    # no labels: the expected-count points hold no tuning counts (ThresholdResult.tuning)
    return attrs.evolve(inner, method="etu", diagnostics=diag, tuning=None)


def model_centres(
    points: ClassPoints, probabilities: Any, sample_weight: Any = None
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per-cut prior centres from calibrated probabilities of the objects ``points`` rank.

    For each cut of each kept class: ``centre_p`` = the mean probability of the cut's
    objects (the model's expected precision), ``centre_r`` = their share of the class's
    probability mass (the model's expected recall); 0 for a class without mass. Pass them
    as ``centres=`` to :func:`optimize.smoothing.smooth_points`. With ``sample_weight``
    (the weights the points were built with) the mean and the mass are weighted.

    ``probabilities`` must be the dense scores the points were built from (so the cuts
    coincide); otherwise a ``ValueError``.
    """
    n_obj, _ = matrix_shape(probabilities, "probabilities")
    weights = check_sample_weight(sample_weight, n_obj)
    if not is_sparse(probabilities):
        eta = np.asarray(probabilities)
        counted = eta if weights is None else eta[weights > 0]
        if counted.dtype.kind in "biuf" and not counted.any():
            # no class has mass (e.g. tune's empty classes, all 0)
            if eta.shape[1] != points.n_columns:
                raise ValueError(
                    f"probabilities has {eta.shape[1]} columns, the points {points.n_columns}"
                )
            return np.zeros(points.tp.shape[0]), np.zeros(points.tp.shape[0])
    ep = expected_points(probabilities, sample_weight=weights)
    if (ep.n_samples, ep.n_columns) != (points.n_samples, points.n_columns):
        raise ValueError(
            f"probabilities has shape ({ep.n_samples}, {ep.n_columns}), the points rank "
            f"({points.n_samples}, {points.n_columns})"
        )
    cols = np.asarray(ep.class_index)
    pos = np.minimum(np.searchsorted(cols, points.class_index), cols.size - 1)
    present = cols[pos] == points.class_index
    n_cuts = np.asarray(points.n_cuts)
    if (present & (np.asarray(ep.n_cuts)[pos] != n_cuts)).any():
        raise ValueError("probabilities must be the scores the points were built from")
    local = np.arange(points.tp.shape[0]) - np.repeat(points.indptr[:-1], n_cuts)
    has = np.repeat(present, n_cuts)
    gidx = np.where(has, np.repeat(ep.indptr[:-1][pos], n_cuts) + local, 0)
    if not np.array_equal(ep.threshold[gidx][has], points.threshold[has]):
        raise ValueError("probabilities must be the scores the points were built from")
    # (rounding of the cumulative sums can leave 1 + 1e-16)
    centre_p = np.clip(np.where(has, ep.precision[gidx], 0.0), 0.0, 1.0)
    centre_r = np.clip(np.where(has, ep.recall[gidx], 0.0), 0.0, 1.0)
    return centre_p, centre_r
