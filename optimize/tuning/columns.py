"""``Columns``: the one seam between ``tune`` and where its score columns live.

A tuning solve reads a class's score column in four passes, each a method of
:class:`Columns`:

1. :meth:`~Columns.walked_hulls`: the smoothed hull vertices of the classes with tuning
   positives at some pseudo-counts, with each class's second layer (:mod:`.hulls`);
2. :meth:`~Columns.screened_cuts`: at an edge crossing, the cuts of some classes that
   pass the screen, the exact step's first reduction (:mod:`.screen`);
3. :meth:`~Columns.empty_thresholds`: the thresholds of the empty classes (without
   tuning positives) at given (prior, phi) pairs (:mod:`.empty`);
4. :meth:`~Columns.empty_predicted`: what those classes predict on the tuning rows, or
   None when that is not at hand.

Implementations: :class:`WalkedColumns` (the checked scores in memory, dense or CSC,
optionally a cv half's rows: every pass walks them in place), :class:`CopiedColumns`
(the every-cut path: weighted or model-centred values of a copy of the empty columns)
and fmacro.dask's ``WorkerColumns`` (the same walks on the workers).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Protocol

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.search.constraints import CutConstraints, feasible_cuts
from fmacro.optimize.search.points import class_points_checked
from fmacro.optimize.tuning.empty import best_cuts_of_values, empty_thresholds
from fmacro.optimize.tuning.etu import model_centres
from fmacro.optimize.tuning.hulls import WalkedHulls, walked_hulls
from fmacro.optimize.tuning.screen import Screened, ScreenPlan, screened_cuts
from fmacro.optimize.tuning.settings import TuneSettings
from fmacro.optimize.tuning.smoothing import SmoothedPoints
from fmacro.optimize.tuning.source import WalkInputs
from fmacro.validation.checks import is_sparse

__all__ = ["Columns", "CopiedColumns", "WalkedColumns"]


class Columns(Protocol):
    """Where a tuning solve reads its score columns, one method per pass."""

    def walked_hulls(
        self, priors: Sequence[float], settings: TuneSettings, *, second: bool
    ) -> WalkedHulls:
        """The hull vertices of the classes with tuning positives at each of ``priors``
        (and with ``second``, for one prior, each class's second layer)."""

    def screened_cuts(self, plan: ScreenPlan, columns: NDArray[np.int64]) -> Screened:
        """The screened cuts of the plan's needed classes, whose columns are ``columns``
        (increasing), in the plan's order."""

    def empty_thresholds(
        self,
        columns: NDArray[np.int64],
        centres: NDArray[np.float64],
        priors: Sequence[float],
        phis: Sequence[float],
        settings: TuneSettings,
    ) -> NDArray[np.float64]:
        """The rule's thresholds of the empty classes ``columns`` (increasing; prior
        centres ``centres``) at each pair (``priors[g]``, ``phis[g]``): row g."""

    def empty_predicted(
        self, columns: NDArray[np.int64], thresholds: NDArray[np.float64]
    ) -> NDArray[Any] | None:
        """For each empty class ``columns[i]`` and its finite ``thresholds[i]``, the tuning
        rows scoring at least that (their number, or their total weight), or None when
        the scores are not at hand."""


@attrs.frozen(eq=False)
class WalkedColumns:
    """Scores checked once (:func:`~.source.walk_inputs`), every pass a walk in place;
    ``rows``: the objects tuned on (a cv half of dense inputs), None = all."""

    inputs: WalkInputs
    rows: NDArray[np.int64] | None = None

    def walked_hulls(
        self, priors: Sequence[float], settings: TuneSettings, *, second: bool
    ) -> WalkedHulls:
        return walked_hulls(
            self.inputs,
            priors,
            n_eval=settings.n_eval,
            zero_division=settings.zero_division,
            rows=self.rows,
            base_rates=settings.base_rates,
            second=second,
        )

    def screened_cuts(self, plan: ScreenPlan, columns: NDArray[np.int64]) -> Screened:
        if self.rows is not None:
            raise ValueError("the screened cuts are walked on every tuning row")
        return screened_cuts(self.inputs, columns, plan, np.arange(columns.size, dtype=np.int64))

    def empty_thresholds(
        self,
        columns: NDArray[np.int64],
        centres: NDArray[np.float64],
        priors: Sequence[float],
        phis: Sequence[float],
        settings: TuneSettings,
    ) -> NDArray[np.float64]:
        if settings.constraints is not None:  # tune sends constrained calls to every cut
            raise AssertionError("the walks choose among every cut, not the feasible ones")
        return empty_thresholds(
            self.inputs,
            columns,
            centres,
            pseudo_counts=priors,
            n_eval=settings.n_eval,
            zero_division=settings.zero_division,
            phis=phis,
            rows=self.rows,
        )

    def empty_predicted(
        self, columns: NDArray[np.int64], thresholds: NDArray[np.float64]
    ) -> NDArray[Any] | None:
        out = np.zeros(columns.size, dtype=np.int64)
        rows = self.rows
        for k, (j, thr) in enumerate(zip(columns.tolist(), thresholds.tolist(), strict=True)):
            if self.inputs.csc is not None:
                indptr, indices, data = self.inputs.csc
                part = slice(indptr[j], indptr[j + 1])
                hit_rows = indices[part][data[part] >= thr]
                if rows is not None:
                    hit_rows = hit_rows[np.isin(hit_rows, rows)]
            else:
                scores = self.inputs.scores
                column = scores[:, j] if rows is None else scores[rows, j]
                hit_rows = np.flatnonzero(column >= thr)
            out[k] = hit_rows.size
        return out


@attrs.frozen(eq=False)
class CopiedColumns:
    """The every-cut path's columns: the tuning ``scores`` as given, with the checked
    ``weights`` and ``calibrated`` flag the points were built with. The empty classes'
    values come from every cut of a copy of their columns (weighted, or centred on the
    model); the rule's choice is :func:`~.empty.best_cuts_of_values`. The fused walks
    count unweighted rows, so this source has no hull or screened pass: problems built on
    it search every cut."""

    scores: Any
    weights: NDArray[np.float64] | None = None
    calibrated: bool = False

    def walked_hulls(
        self, priors: Sequence[float], settings: TuneSettings, *, second: bool
    ) -> WalkedHulls:
        raise TypeError("copied columns are searched on every cut, not walked")

    def screened_cuts(self, plan: ScreenPlan, columns: NDArray[np.int64]) -> Screened:
        raise TypeError("copied columns are searched on every cut, not walked")

    def _copy(self, columns: NDArray[np.int64]) -> Any:
        """A copy of the columns ``columns`` (CSC when sparse)."""
        if is_sparse(self.scores):
            return self.scores.tocsc()[:, columns]
        return np.asarray(self.scores)[:, columns]

    def empty_thresholds(
        self,
        columns: NDArray[np.int64],
        centres: NDArray[np.float64],
        priors: Sequence[float],
        phis: Sequence[float],
        settings: TuneSettings,
    ) -> NDArray[np.float64]:
        scores = self._copy(columns)
        empty = np.zeros(scores.shape, dtype=np.uint8)
        # zero_division only sets p of the empty cut here; SmoothedPoints uses the real
        # one. Weighted: j and N are sums of the weights, as for the classes searched
        w = self.weights
        pts = class_points_checked(scores, empty, 0.0, empty_classes="include", sample_weight=w)
        model = model_centres(pts, scores, w) if self.calibrated else None
        # infeasible cuts get NaN values, which the rule never chooses (the empty cut,
        # always feasible, is chosen when nothing else is: +inf)
        feasible = (
            None
            if settings.constraints is None
            else feasible_cuts(pts, _columns_constraints(settings.constraints, columns))
        )
        out = np.empty((len(priors), columns.size))
        for g, (a, phi) in enumerate(zip(priors, phis, strict=True)):
            sm = SmoothedPoints(
                pts.indptr,
                pts.tp,
                pts.fp,
                pts.threshold,
                pts.support,
                pts.class_index,
                pts.n_samples,
                pts.n_columns,
                settings.zero_division,
                pseudo_count=a,
                base_rate=centres,
                n_eval=settings.n_eval,
            )
            if model is not None:
                sm = attrs.evolve(sm, centre_p=model[0], centre_r=model[1])
            p = np.asarray(sm.precision, dtype=np.float64)
            r = np.asarray(sm.recall, dtype=np.float64)
            if feasible is not None:
                p, r = np.where(feasible, p, np.nan), np.where(feasible, r, np.nan)
            out[g] = best_cuts_of_values(
                np.asarray(sm.indptr),
                p,
                r,
                np.asarray(sm.threshold, dtype=np.float64),
                math.cos(phi),
                math.sin(phi),
            )
        return out

    def empty_predicted(
        self, columns: NDArray[np.int64], thresholds: NDArray[np.float64]
    ) -> NDArray[Any] | None:
        weights = self.weights
        out = np.zeros(columns.size, dtype=np.int64 if weights is None else np.float64)
        sub = self._copy(columns)
        csc = sub.tocsc() if is_sparse(sub) else None
        for k, thr in enumerate(thresholds.tolist()):
            if csc is not None:
                part = slice(csc.indptr[k], csc.indptr[k + 1])
                hit_rows = np.asarray(csc.indices[part])[csc.data[part] >= thr]
            else:
                hit_rows = np.flatnonzero(np.asarray(sub[:, k]) >= thr)
            out[k] = hit_rows.size if weights is None else weights[hit_rows].sum()
        return out


def _columns_constraints(constraints: CutConstraints, columns: NDArray[np.int64]) -> CutConstraints:
    """``constraints`` of ``columns`` only (the copy's columns are numbered from 0)."""
    return CutConstraints(
        constraints.min_precision[columns], constraints.max_predicted_rate[columns]
    )
