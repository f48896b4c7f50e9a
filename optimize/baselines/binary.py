"""The F_beta-optimal threshold of one binary score vector.

One sort and one sweep: objects are ranked by decreasing score, equal scores form
one group (a cut never splits a tie), and the cumulative true/false positives at
each group boundary give the whole precision/recall/F curve. The best cut is the
argmax of F over the curve.

Conventions
-----------
* Prediction rule: positive iff ``score >= threshold``.
* Cut ``c`` of the curve predicts the ``c`` highest tie groups positive. Cut 0 is
  the empty cut (threshold ``+inf``); the last cut predicts every object positive
  (threshold = the smallest score). So the curve has ``G + 1`` entries for ``G``
  distinct scores.
* 0/0: precision of the empty cut, recall when ``labels`` has no positive, and F
  when there is neither a true positive, a false positive nor a false negative take
  the value ``zero_division`` (0.0 by default, also 1.0 or ``nan``), as in
  :mod:`validation.measures`. ``nan`` entries never win the argmax.
* Several cuts with the same (maximal) F: the smallest cut (highest threshold,
  fewest predicted positives) is returned.
"""

from __future__ import annotations

import math
from typing import Any

import attrs
import numpy as np
from numpy.typing import ArrayLike, NDArray

from fmacro.optimize.inputs import as_binary_labels
from fmacro.validation.checks import (
    as_float_array,
    check_beta,
    check_same_length,
    check_zero_division,
)
from fmacro.validation.counts import frozen_array
from fmacro.validation.measures import f_beta_from_counts, safe_divide
from fmacro.validation.values import read_only_copies
from fmacro.validation.weights import check_sample_weight

__all__ = ["BinaryThreshold", "best_threshold"]


def _readonly(arr: NDArray[Any]) -> NDArray[Any]:
    arr.flags.writeable = False
    return arr


@read_only_copies
@attrs.frozen
class BinaryThreshold:
    """The F_beta-optimal cut of one ranking, with the whole curve.

    Attributes
    ----------
    threshold
        Predict positive iff ``score >= threshold`` (``+inf`` = predict nothing).
    f, precision, recall
        F_beta, precision and recall at the chosen cut.
    cut
        Index of the chosen cut in the curve arrays (number of tie groups predicted
        positive; 0 is the empty cut).
    k
        Number of objects predicted positive at the chosen cut.
    support
        Number of positive objects in ``labels`` (their total weight with
        ``sample_weight``; ``tp`` and ``fp`` are then weight sums too).
    beta, zero_division
        The settings used.
    thresholds, tp, fp, precisions, recalls, fs
        The curve, one entry per cut (``G + 1`` entries for ``G`` distinct scores),
        thresholds decreasing from ``+inf``; read-only arrays.
    """

    threshold: float
    f: float
    precision: float
    recall: float
    cut: int
    k: int
    support: int | float
    beta: float
    zero_division: float
    thresholds: NDArray[np.float64] = attrs.field(repr=False, converter=frozen_array)
    tp: NDArray[np.int64] = attrs.field(repr=False, converter=frozen_array)
    fp: NDArray[np.int64] = attrs.field(repr=False, converter=frozen_array)
    precisions: NDArray[np.float64] = attrs.field(repr=False, converter=frozen_array)
    recalls: NDArray[np.float64] = attrs.field(repr=False, converter=frozen_array)
    fs: NDArray[np.float64] = attrs.field(repr=False, converter=frozen_array)

    def apply(self, scores: ArrayLike) -> NDArray[np.bool_]:
        """Predictions ``scores >= threshold`` for new scores (a new boolean array)."""
        arr = as_float_array(scores, "scores", allow_empty=True)
        return np.asarray(arr >= self.threshold)


def best_threshold(
    scores: ArrayLike,
    labels: ArrayLike,
    *,
    beta: float = 1.0,
    zero_division: float = 0.0,
    sample_weight: ArrayLike | None = None,
) -> BinaryThreshold:
    """The threshold maximizing F_beta of ``scores >= threshold`` against ``labels``.

    Parameters
    ----------
    scores
        1-D finite scores, higher = more likely positive.
    labels
        1-D 0/1 labels (bool, int or float), same length as ``scores``.
    beta
        F_beta weight in [2**-254, 2**254] (``beta > 1`` favours recall; see
        :func:`validation.checks.check_beta`).
    zero_division
        Value of a 0/0 ratio: 0.0 (default), 1.0 or ``nan``.
    sample_weight
        One non-negative weight per object: a weighted object counts that much in the
        true and false positives (as in scikit-learn's weighted metrics). Checked by
        :func:`validation.weights.check_sample_weight`, as in the validations: the
        weights must sum to at most 2**1022.

    Returns
    -------
    BinaryThreshold
        The best cut and the whole curve (ties grouped, empty cut included).

    Raises
    ------
    ValueError
        Empty or non-1-D input, length mismatch, NaN/inf scores, labels not 0/1,
        ``beta`` outside [2**-254, 2**254], a bad ``zero_division``, bad
        ``sample_weight`` (negative, NaN/inf, all zero, summing past 2**1022), or
        weighted counts so large that F_beta overflows float64 for this beta (then
        scale the weights down: F does not change).

    Notes
    -----
    Cost: one ``O(N log N)`` sort plus ``O(N)`` sweeps; the inputs are not modified.

    Examples
    --------
    Lecture notes C11 example 5 (labels by rank P,P,N,P,N,N,P,N,N,N):

    >>> r = best_threshold([10, 9, 8, 7, 6, 5, 4, 3, 2, 1],
    ...                    [1, 1, 0, 1, 0, 0, 1, 0, 0, 0])
    >>> r.k, round(r.f, 3), r.threshold
    (4, 0.75, 7.0)
    """
    b = check_beta(beta)
    zd = check_zero_division(zero_division)
    s = as_float_array(scores, "scores", ndim=1)
    y = as_binary_labels(labels)
    if y.ndim != 1:
        raise ValueError(f"labels must be 1-dimensional, got shape {y.shape}")
    n = check_same_length(scores=s, labels=y)
    weights = check_sample_weight(sample_weight, n)

    order = np.argsort(-s, kind="stable")
    s_sorted = s[order]
    y_sorted = y[order]
    # Last position of every tie group (scores are sorted decreasingly).
    ends = np.flatnonzero(np.append(s_sorted[1:] != s_sorted[:-1], True))
    counts = np.concatenate(([0], ends + 1)).astype(np.int64)
    n_pos: int | float
    if weights is None:
        cum_tp = np.cumsum(y_sorted, dtype=np.int64)
        tp = np.concatenate(([0], cum_tp[ends]))
        fp = counts - tp
        n_pos = int(cum_tp[-1])
    else:
        w_sorted = weights[order]
        cum_tp_w = np.cumsum(np.where(y_sorted != 0, w_sorted, 0.0))
        cum_fp_w = np.cumsum(np.where(y_sorted != 0, 0.0, w_sorted))
        tp = np.concatenate(([0.0], cum_tp_w[ends]))
        fp = np.concatenate(([0.0], cum_fp_w[ends]))
        n_pos = float(cum_tp_w[-1])
    fn = np.maximum(n_pos - tp, 0)  # a weighted sum may round a zero to -1e-16
    thresholds = np.concatenate(([math.inf], s_sorted[ends]))

    precisions = np.asarray(safe_divide(tp, tp + fp, zd), dtype=np.float64)
    recalls = np.asarray(safe_divide(tp, np.full_like(tp, n_pos), zd), dtype=np.float64)
    fs = np.asarray(f_beta_from_counts(tp, fp, fn, b, zd), dtype=np.float64)
    best = 0 if np.isnan(fs).all() else int(np.nanargmax(fs))
    return BinaryThreshold(
        threshold=float(thresholds[best]),
        f=float(fs[best]),
        precision=float(precisions[best]),
        recall=float(recalls[best]),
        cut=best,
        k=int(counts[best]),
        support=n_pos,
        beta=b,
        zero_division=zd,
        thresholds=_readonly(thresholds),
        tp=_readonly(tp),
        fp=_readonly(fp),
        precisions=_readonly(precisions),
        recalls=_readonly(recalls),
        fs=_readonly(fs),
    )
