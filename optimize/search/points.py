"""Per-class precision/recall points from rankings.

For every class ``k`` the objects are ranked by decreasing score. A *cut* keeps the
top of the ranking: cut 0 is the empty cut, then one cut per distinct score (ties are
grouped, so a cut never splits equal scores), and the *all objects* cut is always
present. Cut ``j`` predicts an object positive iff its score is ``>= threshold[j]``
(the empty cut has threshold ``+inf``; the all-objects cut of a truncated sparse list
has threshold ``-inf``).

For each cut we keep the cumulative counts ``tp`` and ``fp``; precision
``p = tp / (tp + fp)`` and recall ``r = tp / m_k`` follow, where ``m_k`` is the true
class size taken from the labels (also when a sparse ranking retrieves only part of
the class).

The 0/0 convention
------------------
The empty cut has ``p = 0/0``: it takes the value ``zero_division`` (0.0 by default,
1.0, or ``nan``). With ``nan`` the empty cut is *undefined* and the optimizers never
choose it (every class predicts at least one object).

Classes without positives
-------------------------
``m_k = 0`` makes every recall 0/0. Such classes are left out of P and R by default
(``empty_classes="exclude"``); their thresholds are ``+inf`` (never predicted).
``empty_classes="include"`` keeps them: their recall is ``zero_division`` at every
cut (so with the default 0.0 they pull R down and only their precision, 0 at every
non-empty cut, can be chosen); ``"include"`` together with ``zero_division=nan`` is
refused because every such class would be undefined.

Dominated cuts (``dominated="drop"``)
-------------------------------------
A cut whose tp equals the previous cut's tp has the same recall and a precision no
higher (more objects, no more true positives): it is *dominated* by the cut before it.
F_beta(P, R) is non-decreasing in every class's p and r, so replacing a dominated cut by
the one before never lowers F-macro, per-class F or any support value
``cos(phi) p + sin(phi) r``; and every method below resolves ties towards the earlier cut.
``class_points(..., dominated="drop")`` therefore stores only the empty cut (cut 0), each
cut whose tp rises, and, under ``zero_division=nan`` (empty cut unusable), the first
non-empty cut even at tp = 0 (it is then the best usable cut with tp = 0). A class keeps
at most ``m_k + 2`` cuts, so the points hold O(positive labels + classes) cuts, usually
far fewer than the ``N x n`` entries of a dense input. ``fixed_point``, ``domain``,
``exact``, ``per_class`` (sparse input) and ``cyclic`` (default start) build their points
this way and return the same thresholds, cuts, F and bounds as on all cuts (tested).
Included classes without positives (``m_k = 0``, every tp 0) keep the empty cut, which has
the best precision, or ties at 0 and is then the earlier one.
Not valid for ``global_threshold``, ``proportional`` and ``top_k`` (they move every class
through every cut of a shared threshold or share) nor for the smoothed points of
``optimize.tuning`` (smoothed recall grows at equal tp): they refuse pruned points.

Pruned points carry ``full_cut``, the number of each stored cut among all cuts of its
class; ``ThresholdResult.cuts`` are always such numbers (``from_cuts`` maps local indices
through it), and readers of a result's cuts map them back with
:meth:`ClassPoints.local_cuts`, which refuses a cut the points left out.

Memory
------
Dense scores are never widened to a float64 copy nor sorted as a whole: a block of
columns is transposed, sorted in the scores' own dtype (float32 stays float32) and walked
by a nogil numba kernel, one block per thread (``optimize.search._blocks``, shared with
``per_class``); NaN/inf and integers float64 would round are checked block by block.
Extra memory with ``dominated="drop"``: per running thread a transposed block and its
sorted copy (at most 2**21 entries each, and together at most half the input or 2**16
entries per block, whichever is larger), plus
32 bytes per stored cut (tp, fp, threshold, full_cut; the bound inside a block's kernel
is 32 bytes per positive label + 2 cuts per class) and 16 more once ``precision`` and
``recall`` are read: worst case about 48 bytes per positive label + 2 cuts per class,
plus the blocks. With ``dominated="keep"`` the points themselves take 24 bytes per
distinct score of each column, three times a dense float64 input. Labels given as a bool
array are read in place; other dense labels are checked into one bool copy (1 byte per
entry); sparse labels are densified a block at a time.

Cost: building the points is one sort of each class's scores plus two linear passes
(numba). The first call in a process compiles the kernels (a few seconds); they are
cached on disk afterwards.

This module holds the :class:`ClassPoints` value and the entry points that build it
(:func:`class_points`, :func:`as_points`, :func:`search_points`, :func:`drop_dominated`);
the cut tables themselves (dense blocks, CSC, ranked lists, weighted) are computed by
:mod:`fmacro.optimize.search.cut_tables`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any

import attrs
import numpy as np
from numpy.typing import ArrayLike, NDArray

from fmacro.optimize._frames import common_columns
from fmacro.optimize.inputs import (
    check_empty_classes,
    kept_classes,
    matching_shapes,
)
from fmacro.optimize.offsets import group_of_entries, indptr_from_counts
from fmacro.optimize.search._blocks import dense_labels, dense_scores, label_sizes, map_blocks

# The cut-table builders live in cut_tables; the kernels optimize.tuning imports from here
# stay importable from here (re-exported).
from fmacro.optimize.search.cut_tables import (
    _as_uint8_01,
    _block_cuts,
    _csc_cuts,
    _ranked_cuts,
    _whole_numbers,
    check_ranked_lists,
    csc_column_cuts,  # noqa: F401
    longest_column,  # noqa: F401
    sorted_cuts,  # noqa: F401
    sparse_labels,
    sparse_scores,
    weighted_cuts,
)
from fmacro.validation import measures
from fmacro.validation.checks import (
    INT64_MAX,
    check_zero_division,
    is_sparse,
)
from fmacro.validation.counts import count_scalar, frozen_array
from fmacro.validation.values import read_only_copies
from fmacro.validation.weights import check_sample_weight

__all__ = ["ClassPoints", "as_points", "class_points", "class_points_checked"]


# Named converters around frozen_array (mypy's attrs plugin takes named functions only).
def _ro_int(arr: Any) -> NDArray[np.int64]:
    return frozen_array(arr, np.int64)


def _ro_float(arr: Any) -> NDArray[np.float64]:
    return frozen_array(arr, np.float64)


def _ro_int_or_none(arr: Any) -> NDArray[np.int64] | None:
    return None if arr is None else frozen_array(arr, np.int64)


def _ro_count(arr: Any) -> NDArray[Any]:
    """Read-only int64 counts, or float64 ones when they are sums of sample weights."""
    values = np.asarray(arr)
    return frozen_array(values, np.float64 if values.dtype.kind == "f" else np.int64)


@read_only_copies
@attrs.frozen(eq=False)
class ClassPoints:
    """Cumulative counts of every cut of every kept class, in a CSR-like layout.

    Class ``j`` (``0 <= j < n_classes``, the *kept* classes) owns the cuts
    ``indptr[j]:indptr[j + 1]``; cut 0 of each class is the empty cut and the last
    cut takes every object. All arrays are read-only.

    Attributes
    ----------
    indptr : ndarray of int64, shape (n_classes + 1,)
        Offsets of each class's cuts.
    tp, fp : ndarray of int64, shape (n_cuts_total,)
        Cumulative true and false positives of each cut (float64 sums of weights
        when built with ``sample_weight``; so are ``support`` and ``n_samples``).
    threshold : ndarray of float64, shape (n_cuts_total,)
        Predict positive iff ``score >= threshold``; ``+inf`` for the empty cut,
        ``-inf`` for the all-objects cut of a truncated list.
    support : ndarray of int64, shape (n_classes,)
        True class sizes ``m_k`` (from the labels, even for truncated lists).
    class_index : ndarray of int64, shape (n_classes,)
        Original column of each kept class.
    n_samples : int
        Number of objects N.
    n_columns : int
        Number of columns (classes) of the input, kept or not.
    zero_division : float
        Precision of the empty cut (and recall of included empty classes).
    full_cut : ndarray of int64, shape (n_cuts_total,), or None
        For points built with ``dominated="drop"``: the number of each stored cut among
        ALL cuts of its class's ranking (cut 0 is stored first). ``None`` when every cut
        is stored (then a cut's local index is its number).
    """

    indptr: NDArray[np.int64] = attrs.field(converter=_ro_int)
    tp: NDArray[Any] = attrs.field(converter=_ro_count)
    fp: NDArray[Any] = attrs.field(converter=_ro_count)
    threshold: NDArray[np.float64] = attrs.field(converter=_ro_float)
    support: NDArray[Any] = attrs.field(converter=_ro_count)
    class_index: NDArray[np.int64] = attrs.field(converter=_ro_int)
    n_samples: int | float = attrs.field(converter=count_scalar)
    n_columns: int = attrs.field(converter=int)
    zero_division: float = attrs.field(converter=float, default=0.0)
    full_cut: NDArray[np.int64] | None = attrs.field(default=None, converter=_ro_int_or_none)

    @full_cut.validator
    def _one_number_per_cut(self, _attribute: Any, value: NDArray[np.int64] | None) -> None:
        if value is not None and value.shape != self.tp.shape:
            raise ValueError(
                f"full_cut must have one entry per cut ({self.tp.shape[0]}), got {value.shape}"
            )

    @property
    def pruned(self) -> bool:
        """Whether dominated cuts were left out (``class_points(..., dominated="drop")``)."""
        return self.full_cut is not None

    def full_cuts(self, cuts: NDArray[np.int64]) -> NDArray[np.int64]:
        """Numbers among all cuts of each class's ranking of checked local ``cuts``."""
        if self.full_cut is None:
            return cuts
        return np.asarray(self.full_cut[self.indptr[:-1] + cuts], dtype=np.int64)

    def local_cuts(self, cuts: ArrayLike) -> NDArray[np.int64]:
        """Local indices of cut NUMBERS (one per kept class, as in ``ThresholdResult.cuts``).

        Identity on points holding every cut. On pruned points a cut that was left out
        (dominated) is refused: these points cannot evaluate it.
        """
        if self.full_cut is None:
            return check_cuts(self, cuts)
        arr = _cut_numbers(self, cuts)
        owner = group_of_entries(self.n_cuts)
        base = int(self.full_cut.max(initial=0)) + 1
        keys = owner * base + self.full_cut
        wanted = np.arange(self.n_classes, dtype=np.int64) * base + np.minimum(arr, base - 1)
        at = np.searchsorted(keys, wanted)
        at_ok = np.minimum(at, keys.size - 1)
        missing = (at >= keys.size) | (keys[at_ok] != wanted) | (arr >= base) | (arr < 0)
        if missing.any():
            j = int(np.flatnonzero(missing)[0])
            raise ValueError(
                f"cut {int(arr[j])} of kept class {j} (column {int(self.class_index[j])}) is "
                "not in these points: they were built with dominated='drop', which leaves "
                "out cuts that no F-macro optimum needs; build them with dominated='keep'"
            )
        return at - self.indptr[:-1]

    @property
    def weighted(self) -> bool:
        """Whether tp, fp, support and n_samples are sums of sample weights (floats)."""
        return bool(self.tp.dtype == np.float64)

    @property
    def n_classes(self) -> int:
        """Number of kept classes n (the classes averaged in P and R)."""
        return int(self.support.shape[0])

    @cached_property
    def n_cuts(self) -> NDArray[np.int64]:
        """Number of cuts of each kept class."""
        out = np.diff(self.indptr)
        out.flags.writeable = False
        return out

    @cached_property
    def precision(self) -> NDArray[np.float64]:
        """p = tp / (tp + fp) per cut; the empty cut gets ``zero_division``."""
        out = np.asarray(measures.precision(self.tp, self.fp, self.zero_division), np.float64)
        out.flags.writeable = False
        return out

    @cached_property
    def recall(self) -> NDArray[np.float64]:
        """r = tp / m_k per cut; classes with m_k = 0 get ``zero_division``."""
        m = np.repeat(self.support, self.n_cuts)
        out = np.asarray(measures.recall(self.tp, m - self.tp, self.zero_division), np.float64)
        out.flags.writeable = False
        return out

    def class_slice(self, j: int) -> slice:
        """Slice of the cut arrays owned by kept class ``j``."""
        return slice(int(self.indptr[j]), int(self.indptr[j + 1]))

    def thresholds_for(self, cuts: ArrayLike) -> NDArray[np.float64]:
        """Score thresholds per ORIGINAL column for local cut indices of kept classes.

        Columns that are not kept get ``+inf`` (never predicted).
        """
        return self.thresholds_at(check_cuts(self, cuts))

    def thresholds_at(self, cuts: NDArray[np.int64]) -> NDArray[np.float64]:
        """:meth:`thresholds_for` of cuts already checked by :func:`check_cuts`."""
        out = np.full(self.n_columns, np.inf)
        out[self.class_index] = self.threshold[self.indptr[:-1] + cuts]
        return out

    @classmethod
    def from_ranked_lists(
        cls,
        lists: Sequence[ArrayLike],
        support: ArrayLike,
        n_samples: int,
        *,
        zero_division: float = 0.0,
        empty_classes: str = "exclude",
    ) -> ClassPoints:
        """Points from per-class ranked 0/1 lists (the reference text format).

        Parameters
        ----------
        lists
            One sequence of 0/1 labels per class, best-ranked object first. A list
            may be truncated (shorter than ``n_samples``).
        support
            True number of positives ``m_k`` of each class.
        n_samples
            Number of objects N.

        Notes
        -----
        Scores are unknown here, so every position is its own cut (no ties). The
        thresholds use the implied score ``-rank`` (rank 0 = best): cut ``j`` has
        threshold ``-(j - 1)``, i.e. "predict the top ``j``"; the all-objects cut of a
        truncated list has ``-inf``.
        """
        arrays = [np.asarray(x).reshape(-1) for x in lists]
        lengths = np.fromiter((a.size for a in arrays), dtype=np.int64, count=len(arrays))
        flat = np.concatenate(arrays) if arrays else np.zeros(0)
        indptr = indptr_from_counts(lengths)
        return cls.from_ranked_arrays(
            flat,
            indptr,
            support,
            n_samples,
            zero_division=zero_division,
            empty_classes=empty_classes,
        )

    @classmethod
    def from_ranked_arrays(
        cls,
        labels: ArrayLike,
        indptr: ArrayLike,
        support: ArrayLike,
        n_samples: int,
        *,
        zero_division: float = 0.0,
        empty_classes: str = "exclude",
        where: Callable[[int], str] = lambda j: f"class {j}",
    ) -> ClassPoints:
        """Like :meth:`from_ranked_lists` with the lists concatenated in ``labels``.

        Class ``k`` owns ``labels[indptr[k]:indptr[k + 1]]``; ``where(k)`` names it in
        error messages.
        """
        zd = check_zero_division(zero_division)
        check_empty_classes(empty_classes, zd)
        flat = np.asarray(labels)
        if flat.ndim != 1:
            raise ValueError(f"labels must be 1-dimensional, got shape {flat.shape}")
        flat = _as_uint8_01(flat, "lists")
        ptr = _whole_numbers(indptr, "indptr")
        sizes = _whole_numbers(support, "support").reshape(-1)
        n = ptr.size - 1
        if n < 1:
            raise ValueError("lists is empty; at least one class is needed")
        if sizes.size != n:
            raise ValueError(f"support must have one entry per class ({n}), got {sizes.size}")
        if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)):
            raise TypeError(f"n_samples must be a positive integer, got {type(n_samples).__name__}")
        if not 1 <= int(n_samples) <= INT64_MAX:
            raise ValueError(
                f"n_samples must be a positive integer that fits in int64 (at most 2**63 - 1), "
                f"got {n_samples!r}"
            )
        big_n = int(n_samples)
        lengths = np.diff(ptr)
        if (lengths < 0).any() or ptr[0] != 0 or ptr[-1] != flat.size:
            raise ValueError("indptr must be non-decreasing from 0 to len(labels)")
        csum = np.concatenate(([0], np.cumsum(flat, dtype=np.int64)))
        pos_in_list = csum[ptr[1:]] - csum[ptr[:-1]]
        check_ranked_lists(lengths, pos_in_list, sizes, big_n, where)
        cols = kept_classes(sizes, empty_classes)
        out_ptr, tp, fp, thr = _ranked_cuts(flat, ptr, sizes, cols, big_n)
        return cls(out_ptr, tp, fp, thr, sizes[cols], cols, big_n, n, zd)


def _cut_numbers(points: ClassPoints, cuts: ArrayLike) -> NDArray[np.int64]:
    """``cuts`` as int64, one per kept class (range not checked)."""
    arr = np.asarray(cuts)
    if arr.shape != (points.n_classes,):
        raise ValueError(
            f"cuts must have one entry per kept class, shape ({points.n_classes},), got {arr.shape}"
        )
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"cuts must be integers, got dtype {arr.dtype}")
    return arr.astype(np.int64)


def check_cuts(points: ClassPoints, cuts: ArrayLike) -> NDArray[np.int64]:
    """Validate local cut indices (one per kept class) and return them as int64."""
    out = _cut_numbers(points, cuts)
    if ((out < 0) | (out >= points.n_cuts)).any():
        raise ValueError("cuts has an index outside its class's range 0..n_cuts-1")
    return out


DOMINATED_CHOICES = ("keep", "drop")


def class_points(
    scores: Any,
    labels: Any,
    *,
    zero_division: float = 0.0,
    empty_classes: str = "exclude",
    sample_weight: Any = None,
    dominated: str = "keep",
) -> ClassPoints:
    """Per-class precision/recall points of every cut of every class's ranking.

    Parameters
    ----------
    scores
        Dense ``(N, n)`` float array, or a scipy sparse matrix holding only the
        retrieved entries (a missing entry ranks below every retrieved score of its
        class). NaN/inf are refused. Only the order within a column matters.
    labels
        ``(N, n)`` 0/1 indicator, dense or scipy sparse.
    zero_division
        Precision of the empty cut: 0.0 (default), 1.0 or nan (empty cut unusable).
    empty_classes
        ``"exclude"`` (default) drops classes without positives; ``"include"`` keeps
        them with recall ``zero_division``.
    sample_weight
        One non-negative weight per object (row): a weighted object counts that much
        in tp, fp and the class sizes, which become float sums (``points.weighted``).
        A class is kept when it has a positive object of non-zero weight; an object of
        weight 0 is left out (it adds no cut), so integer weights give the points of
        the rows repeated that many times. ``n_samples`` is the total weight. Checked by
        :func:`validation.weights.check_sample_weight`, as in the validations (the
        weights must sum to at most 2**1022).
    dominated
        ``"keep"`` (default) stores every cut. ``"drop"`` stores only the cuts that
        can matter to a maximizer of F-macro, per-class F or a hull: the empty cut,
        each cut whose tp exceeds the previous cut's, and (under ``zero_division=nan``)
        the first non-empty cut; the points then carry ``full_cut`` (see the module
        notes: exactness and memory). Not for methods that move every class at shared
        thresholds or shares (global_threshold, proportional, top_k) nor for smoothing.

    Returns
    -------
    ClassPoints

    Examples
    --------
    Two classes, six objects; the rows are in decreasing score order in both columns, so
    cut j of a class keeps its top j rows. Class 0's labels by rank are 1 1 0 1 0 1:

    >>> import numpy as np
    >>> scores = np.array([[0.6, 0.9], [0.5, 0.7], [0.4, 0.6], [0.3, 0.4], [0.2, 0.3], [0.1, 0.2]])
    >>> labels = np.array([[1, 1], [1, 0], [0, 1], [1, 0], [0, 0], [1, 1]])
    >>> pts = class_points(scores, labels)
    >>> pts.n_cuts.tolist(), pts.support.tolist()
    ([7, 7], [4, 3])
    >>> c0 = pts.class_slice(0)
    >>> pts.tp[c0].tolist(), pts.fp[c0].tolist()
    ([0, 1, 2, 2, 3, 3, 4], [0, 0, 0, 1, 1, 2, 2])
    >>> pts.threshold[c0].tolist()
    [inf, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1]
    >>> pts.precision[c0].round(3).tolist()  # the empty cut's 0/0 is zero_division
    [0.0, 1.0, 1.0, 0.667, 0.75, 0.6, 0.667]
    >>> pts.recall[c0].tolist()
    [0.0, 0.25, 0.5, 0.5, 0.75, 0.75, 1.0]

    ``dominated="drop"`` keeps the empty cut and each cut where tp rises; ``full_cut``
    gives their numbers among all cuts (class 0, then class 1: labels 1 0 1 0 0 1):

    >>> class_points(scores, labels, dominated="drop").full_cut.tolist()
    [0, 1, 2, 4, 6, 0, 1, 3, 6]
    """
    return class_points_checked(
        scores,
        labels,
        check_zero_division(zero_division),
        empty_classes=empty_classes,
        sample_weight=sample_weight,
        dominated=dominated,
    )


def class_points_checked(
    scores: Any,
    labels: Any,
    zd: float,
    *,
    empty_classes: str = "exclude",
    sample_weight: Any = None,
    dominated: str = "keep",
) -> ClassPoints:
    """:func:`class_points` with ``zero_division`` already checked (``zd``, by
    :func:`~fmacro.validation.checks.check_zero_division` at the caller's public entry,
    such as :func:`optimize.tune`); the scores, labels and weights are checked here."""
    check_empty_classes(empty_classes, zd)
    if dominated not in DOMINATED_CHOICES:
        raise ValueError(f"dominated must be 'keep' or 'drop', got {dominated!r}")
    drop = dominated == "drop"
    keep_first = math.isnan(zd)
    n_obj, n_cls = matching_shapes(scores, labels)
    common_columns(scores, labels)
    weights = check_sample_weight(sample_weight, n_obj)
    if weights is not None:
        pts = weighted_class_points(scores, labels, weights, zd, empty_classes)
        return drop_dominated(pts) if drop else pts
    full_cut: NDArray[np.int64] | None
    if is_sparse(scores):
        s = sparse_scores(scores)
        l_ptr, l_rows = sparse_labels(labels)
        sizes = np.diff(l_ptr)
        cols = kept_classes(sizes, empty_classes)
        indptr, tp, fp, thr, full = _csc_cuts(
            np.asarray(s.indptr, dtype=np.int64),
            np.asarray(s.indices, dtype=np.int64),
            np.ascontiguousarray(s.data, dtype=np.float64),
            l_ptr,
            l_rows,
            cols,
            n_obj,
            drop,
            keep_first,
        )
        full_cut = full if drop else None
    else:
        s_dense = dense_scores(scores)
        y = dense_labels(labels)
        sizes = label_sizes(y)
        cols = kept_classes(sizes, empty_classes)
        parts = map_blocks(
            s_dense, y, cols, lambda u, yb, srt, _first: _block_cuts(u, yb, srt, drop, keep_first)
        )
        counts = np.concatenate([part[0] for part in parts])
        indptr = indptr_from_counts(counts)
        tp, fp, thr = (np.concatenate([part[i] for part in parts]) for i in (1, 2, 3))
        full_cut = np.concatenate([part[4] for part in parts]) if drop else None
        del parts
    return ClassPoints(indptr, tp, fp, thr, sizes[cols], cols, n_obj, n_cls, zd, full_cut=full_cut)


def dominated_mask(points: ClassPoints) -> NDArray[np.bool_]:
    """Which cuts of ``points`` ``dominated="drop"`` leaves out (see the module notes)."""
    first = np.zeros(points.tp.shape[0], dtype=bool)
    first[points.indptr[:-1]] = True
    rises = np.ones_like(first)
    rises[1:] = points.tp[1:] > points.tp[:-1]
    keep = first | rises
    if math.isnan(points.zero_division):
        second = points.indptr[:-1] + 1
        keep[second[second < points.indptr[1:]]] = True
    return ~keep


def drop_dominated(points: ClassPoints) -> ClassPoints:
    """``points`` without their dominated cuts, with ``full_cut`` numbering the rest."""
    if points.pruned:
        return points
    keep = ~dominated_mask(points)
    owner = group_of_entries(points.n_cuts)
    number = np.arange(keep.size, dtype=np.int64) - points.indptr[:-1][owner]
    indptr = indptr_from_counts(np.bincount(owner[keep], minlength=points.n_classes))
    return attrs.evolve(
        points,
        indptr=indptr,
        tp=points.tp[keep],
        fp=points.fp[keep],
        threshold=points.threshold[keep],
        full_cut=number[keep],
    )


def weighted_class_points(
    scores: Any,
    labels: Any,
    weights: NDArray[np.float64],
    zero_division: float,
    empty_classes: str,
) -> ClassPoints:
    """:func:`class_points` with checked ``sample_weight`` (float counts), column by column
    (:func:`~fmacro.optimize.search.cut_tables.weighted_cuts` tells how)."""
    return ClassPoints(*weighted_cuts(scores, labels, weights, empty_classes), zero_division)


def as_points(
    scores: Any,
    labels: Any,
    points: ClassPoints | None,
    *,
    zero_division: float | None = None,
    empty_classes: str = "exclude",
    dominated: str = "keep",
    sample_weight: Any = None,
) -> ClassPoints:
    """Return ``points`` if given (then scores/labels must be None), else build them.

    ``zero_division=None`` takes the points' policy, or 0.0 when the points are built here;
    a value that differs from the given points' policy is refused. ``dominated`` is
    passed to :func:`class_points` when the points are built here; ``"keep"`` also
    refuses given points built with ``dominated="drop"`` (a method that needs every cut).
    ``sample_weight`` goes to :func:`class_points` (which checks it); given points
    already hold their weights, so it is refused with them.
    """
    if points is not None:
        if not isinstance(points, ClassPoints):
            raise TypeError(f"points must be a ClassPoints, got {type(points).__name__}")
        if scores is not None or labels is not None:
            raise ValueError("pass either scores and labels, or points=, not both")
        if sample_weight is not None:
            raise ValueError(
                "sample_weight goes with scores and labels, not with points=: build the "
                "points with class_points(scores, labels, sample_weight=...)"
            )
        if dominated == "keep" and points.pruned:
            raise ValueError(
                "points were built with dominated='drop', but this method needs every cut; "
                "build them with class_points(..., dominated='keep')"
            )
        if zero_division is None:
            return points
        zd = check_zero_division(zero_division)
        same = (math.isnan(zd) and math.isnan(points.zero_division)) or zd == points.zero_division
        if not same:
            raise ValueError(
                f"zero_division={zero_division!r} differs from the points' "
                f"zero_division={points.zero_division!r}; build the points with it"
            )
        return points
    if scores is None or labels is None:
        raise TypeError("scores and labels are required when points= is not given")
    zd = 0.0 if zero_division is None else zero_division
    return class_points(
        scores,
        labels,
        zero_division=zd,
        empty_classes=empty_classes,
        dominated=dominated,
        sample_weight=sample_weight,
    )


def search_points(
    scores: Any,
    labels: Any,
    points: ClassPoints | None,
    zero_division: float | None,
    empty_classes: str,
    sample_weight: Any = None,
) -> ClassPoints:
    """:func:`as_points` without dominated cuts: for methods that never choose one."""
    return as_points(
        scores,
        labels,
        points,
        zero_division=zero_division,
        empty_classes=empty_classes,
        dominated="drop",
        sample_weight=sample_weight,
    )
