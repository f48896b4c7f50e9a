"""Run a model over the folds of a splitter and pool the validations.

``cross_validate(fit, X, y, splitter)`` trains once per fold and returns a
:class:`CrossValidation` holding every fold's validation, their pool (counts
summed, scored once) and the fold-averaged score. Both are reported, labelled,
because F is not linear in the counts: the pooled F weights every sample
equally, the fold average weights every fold equally (two folds with TP/FP/FN
2/0/2 and 8/4/0 give a pooled F1 of 0.769 and a fold-averaged F1 of 0.733; the
example is from the lecture notes *Evaluating Classifiers and Tuning Parameters*,
lecture "Parameter Tuning (Cross-Validation)").
"""

from __future__ import annotations

import builtins
import concurrent.futures
import functools
import operator
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import Any, Generic, Literal, TypeVar

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.crossval.fold import Fold, take_rows
from fmacro.validation import BinFValidation, MultiFValidation, MultiLabelFValidation, Validation
from fmacro.validation.checks import check_same_length, is_sparse
from fmacro.validation.labels import numpy_from_pandas
from fmacro.validation.plumbing import observations_array
from fmacro.validation.progress import Progress
from fmacro.validation.values import read_only_copies, value_key
from fmacro.validation.weights import check_sample_weight

__all__ = ["CrossValidation", "cross_validate", "vectorized"]

ValidationKind = Literal["binary", "multiclass", "multilabel"]
Predict = Callable[[Any], Any]
Fit = Callable[[Any, Any], Predict]
# (expected, predicted) -> Validation; called with sample_weight= too when weights are given
MakeValidation = Callable[..., Validation]
MapFunction = Callable[..., Iterable[Any]]
# ``map=`` also takes a concurrent.futures.Executor or a dask.distributed.Client (duck-typed,
# so crossval never imports dask).
FoldMap = Any
V = TypeVar("V", bound=Validation)


# --------------------------------------------------------------------------- builders
# Module-level frozen classes (not lambdas) so a process pool can pickle them.


@attrs.frozen
class _Binary:
    positive: Any

    def __call__(self, expected: Any, predicted: Any, **weights: Any) -> BinFValidation:
        return BinFValidation.from_predictions(
            expected, predicted, positive=self.positive, **weights
        )


@attrs.frozen
class _Multiclass:
    classes: tuple[Hashable, ...]

    def __call__(self, expected: Any, predicted: Any, **weights: Any) -> MultiFValidation:
        return MultiFValidation.from_predictions(
            expected, predicted, classes=self.classes, **weights
        )


@attrs.frozen
class _Multilabel:
    def __call__(self, expected: Any, predicted: Any, **weights: Any) -> MultiLabelFValidation:
        return MultiLabelFValidation.from_predictions(expected, predicted, **weights)


def _is_label_matrix(y: Any) -> bool:
    if is_sparse(y):
        return True
    shape = getattr(y, "shape", None)
    if shape is None:
        shape = np.shape(y)
    return len(shape) == 2 and shape[1] != 1


def _distinct_labels(y: Any) -> NDArray[Any]:
    # nullable/pyarrow pandas labels: their numpy dtype; a missing one refused with its
    # position (numpy would read it as a NaN class)
    arr = np.asarray(numpy_from_pandas(y, name="y", what="label"))
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.reshape(-1)
    if arr.ndim != 1:
        raise ValueError(f"y must be a 1-D label vector or a 2-D indicator matrix, got {arr.shape}")
    try:
        return np.unique(arr)
    except TypeError as exc:
        raise TypeError(f"y must hold sortable labels, got {arr.dtype}: {exc}") from None


def _is_zero_one(labels: NDArray[Any]) -> bool:
    if not (np.issubdtype(labels.dtype, np.number) or labels.dtype == np.bool_):
        return False
    return bool(np.isin(labels, (0, 1)).all())


def _make_validation(
    y: Any, validation: ValidationKind | MakeValidation | None
) -> tuple[str, MakeValidation]:
    """Choose the per-fold validation: ``(kind, builder)``."""
    if callable(validation):
        return "custom", validation
    if validation not in (None, "binary", "multiclass", "multilabel"):
        raise ValueError(
            "validation must be None, 'binary', 'multiclass', 'multilabel' or a callable "
            f"(expected, predicted) -> Validation, got {validation!r}"
        )
    if _is_label_matrix(y):
        if validation not in (None, "multilabel"):
            raise ValueError(
                f"validation={validation!r} needs a 1-D label vector y, got a 2-D indicator "
                "matrix; use validation='multilabel'"
            )
        return "multilabel", _Multilabel()
    if validation == "multilabel":
        raise ValueError(
            "validation='multilabel' needs y as an (n_samples, n_labels) indicator matrix, "
            f"got shape {np.shape(y)}"
        )
    labels = _distinct_labels(y)
    zero_one = _is_zero_one(labels)
    if validation == "binary" or (validation is None and zero_one):
        if zero_one:
            return "binary", _Binary(positive=1)
        if labels.shape[0] != 2:
            raise ValueError(
                f"validation='binary' needs y with two distinct labels, found {labels.shape[0]}: "
                f"{labels[:10].tolist()}"
            )
        return "binary", _Binary(positive=labels[1].item())
    return "multiclass", _Multiclass(classes=tuple(labels.tolist()))


# --------------------------------------------------------------------------- fold jobs


def _length(x: Any) -> int:
    shape = getattr(x, "shape", None)
    if shape is not None and len(shape) > 0:
        return int(shape[0])
    return len(x)


def _frozen_predictions(predicted: Any, n: int) -> Any:
    if is_sparse(predicted):
        out = predicted.tocsr(copy=True)
    else:
        out = np.array(predicted, copy=True)
        if out.ndim == 0:
            raise ValueError(
                "predict(X_validation) returned a single value; it must return one label per "
                "row. If your model predicts one observation at a time, return "
                "crossval.vectorized(predict_one) from fit"
            )
        out.flags.writeable = False
    if _length(out) != n:
        raise ValueError(
            f"predict(X_validation) returned {_length(out)} predictions for {n} validation "
            "samples; it must return one label (or indicator row) per row"
        )
    return out


def _read_only_predictions(predicted: Any) -> Any:
    """Dense predictions as a read-only copy (even a read-only array's owner may write)."""
    if isinstance(predicted, np.ndarray):
        predicted = np.array(predicted, copy=True)
        predicted.flags.writeable = False
    return predicted


@read_only_copies
@attrs.frozen
class FoldResult:
    """What one fold produced: its validation and its (read-only) predictions."""

    validation: Validation
    predicted: Any = attrs.field(converter=_read_only_predictions, eq=value_key)


@attrs.frozen
class _FoldJob:
    """Train on one fold and validate; picklable when ``fit`` is."""

    fit: Fit
    X: Any
    y: Any
    make_validation: MakeValidation
    sample_weight: Any = None

    def __call__(self, fold: Fold) -> FoldResult:
        (X_train, y_train), (X_val, y_val) = fold.take(self.X, self.y)
        predict = self.fit(X_train, y_train)
        if not callable(predict):
            raise TypeError(
                "fit(X_train, y_train) must return a predict callable, "
                f"got {type(predict).__name__}"
            )
        predicted = _frozen_predictions(predict(X_val), fold.n_validation)
        if self.sample_weight is None:
            return FoldResult(self.make_validation(y_val, predicted), predicted)
        weights = take_rows(self.sample_weight, fold.validation)
        return FoldResult(self.make_validation(y_val, predicted, sample_weight=weights), predicted)


def _rows(X: Any) -> Iterator[Any]:
    """The rows a per-observation ``predict`` sees, as the validations hand them over.

    One rule for both (:func:`fmacro.validation.plumbing.observations_array`): pandas
    objects become numpy (``row[j]`` is the j-th column by position), sparse matrices
    CSR (a row is a 1-row CSR matrix), numpy arrays and sequences stay as they are.
    """
    obs = observations_array(X)
    if is_sparse(obs):
        return (obs[i] for i in range(obs.shape[0]))
    return iter(obs)


@attrs.frozen
class _RowByRow:
    """``predict(X)`` built from a per-row ``predict_one`` (what :func:`vectorized` returns)."""

    predict_one: Callable[[Any], Any]

    def __call__(self, X: Any) -> NDArray[Any]:
        return np.asarray([self.predict_one(row) for row in _rows(X)])


def vectorized(predict_one: Callable[[Any], Any]) -> Callable[[Any], NDArray[Any]]:
    """Turn a per-observation ``predict_one(x) -> label`` into ``predict(X) -> labels``.

    The runner calls ``predict`` once per fold on all validation rows; wrap a
    model that predicts one row at a time: ``return vectorized(predict_one)``.
    Each row is handed over as the validations' ``predict`` receives it: numpy rows (a
    pandas DataFrame is converted with ``to_numpy()`` first, so ``row[j]`` is the j-th
    column by position, never a column label), sparse 1-row CSR matrices, or list items.
    The returned callable is picklable when ``predict_one`` is (so it works with a
    process pool), and two of them wrapping the same ``predict_one`` compare equal.

    Examples
    --------
    >>> predict = vectorized(lambda x: int(x[0] > 0.5))
    >>> predict(np.array([[0.2], [0.9], [0.7]])).tolist()
    [0, 1, 1]
    """
    if not callable(predict_one):
        raise TypeError(f"predict_one must be callable, got {type(predict_one).__name__}")
    return _RowByRow(predict_one)


def _is_dask_client(x: Any) -> bool:
    return all(callable(getattr(x, name, None)) for name in ("scatter", "submit", "gather"))


def _dask_client_of(map: Any) -> Any:
    """The dask Client that ``map`` is (``map=client``) or whose ``map`` it is
    (``map=client.map``, which returns futures, not results), else None."""
    if _is_dask_client(map):
        return map
    owner = getattr(map, "__self__", None)
    if getattr(map, "__name__", None) == "map" and _is_dask_client(owner):
        return owner
    return None


def _run_folds(
    map: Any, job: _FoldJob, folds: tuple[Fold, ...], advance: Callable[[], None]
) -> list[FoldResult]:
    """Each fold's result in fold order, however the folds run."""
    client = _dask_client_of(map)
    if client is not None:
        return _run_on_dask(client, job, folds, advance)
    if isinstance(map, concurrent.futures.Executor):
        futures = {map.submit(job, fold): i for i, fold in enumerate(folds)}
        return _collect(futures, concurrent.futures.as_completed(futures), advance)
    if not callable(map):
        raise TypeError(
            "map must be a map function, a concurrent.futures.Executor or a "
            f"dask.distributed.Client, got {type(map).__name__}"
        )
    results = []
    for result in map(job, folds):
        results.append(result)
        advance()
    return results


def _run_on_dask(
    client: Any, job: _FoldJob, folds: tuple[Fold, ...], advance: Callable[[], None]
) -> list[FoldResult]:
    from distributed import as_completed  # only reached with a dask Client

    # One copy of X, y and fit goes to the cluster; every fold task refers to it.
    [shared] = client.scatter([job], hash=False)
    futures = {
        client.submit(_call_job, shared, fold, pure=False): i for i, fold in enumerate(folds)
    }
    return _collect(futures, as_completed(list(futures)), advance)


def _call_job(job: _FoldJob, fold: Fold) -> FoldResult:
    return job(fold)


def _collect(
    futures: dict[Any, int], finished: Iterable[Any], advance: Callable[[], None]
) -> list[FoldResult]:
    """Results in fold order; the first failing fold cancels the rest and raises."""
    results: list[Any] = [None] * len(futures)
    try:
        for future in finished:
            results[futures[future]] = future.result()
            advance()
    except BaseException:
        for future in futures:
            future.cancel()
        raise
    return results


# --------------------------------------------------------------------------- result


def _folds_of(splitter: Any, X: Any, y: Any, groups: Any) -> tuple[Fold, ...]:
    folds = getattr(splitter, "folds", None)
    if callable(folds):
        return tuple(folds(X, y, groups))
    split = getattr(splitter, "split", None)
    if not callable(split):
        raise TypeError(
            "splitter must have a split(X, y, groups) method (a crossval or scikit-learn "
            f"splitter), got {type(splitter).__name__}"
        )
    return tuple(
        Fold(train=train, validation=val, index=i)
        for i, (train, val) in enumerate(split(X, y, groups))
    )


def _describe_score(v: Any) -> str:
    if isinstance(v, BinFValidation):
        return f"F{v.beta:g} of the positive class {v.positive!r}"
    if isinstance(v, (MultiFValidation, MultiLabelFValidation)):
        return f"F-macro (F{v.beta:g} of macro precision and macro recall)"
    return f"{type(v).__name__}.score"


def _check_validations(value: Any) -> tuple[Any, ...]:
    validations = tuple(value)
    if not validations:
        raise ValueError(
            "validations is empty; a CrossValidation needs at least one fold validation"
        )
    return validations


def _as_folds(value: Iterable[Fold]) -> tuple[Fold, ...]:
    folds = tuple(value)
    for f in folds:
        if not isinstance(f, Fold):
            raise TypeError(f"fold_indices must hold Fold values, got {type(f).__name__}")
    return folds


def _as_tuple(value: Iterable[Any]) -> tuple[Any, ...]:
    return tuple(_read_only_predictions(v) for v in value)


@read_only_copies
@attrs.frozen
class CrossValidation(Generic[V]):
    """Per-fold validations of a cross-validation run and their summaries.

    Parameters
    ----------
    validations
        One validation per fold (``BinFValidation``, ``MultiFValidation``,
        ``MultiLabelFValidation`` or any object with ``score`` and ``+``).
    fold_indices
        The :class:`Fold` (train/validation indices) of each validation, when known.
    fold_predictions
        Each fold's read-only predictions, in the order of its validation indices.
    n_samples
        Number of samples of the data set that was split.

    Attributes
    ----------
    pooled
        One validation of all folds' counts summed (``sum`` via ``+``), scored once:
        weights every validated sample equally.
    fold_scores
        Read-only array of each fold's ``score``.
    mean, std
        Mean and standard deviation (``ddof=0``, as ``numpy.std``) of the fold scores:
        weights every fold equally.
    out_of_fold
        Predictions in the original sample order (only when the folds partition the samples).
    """

    validations: tuple[V, ...] = attrs.field(converter=_check_validations)
    fold_indices: tuple[Fold, ...] = attrs.field(default=(), converter=_as_folds, repr=False)
    fold_predictions: tuple[Any, ...] = attrs.field(
        default=(), converter=_as_tuple, repr=False, eq=value_key
    )
    n_samples: int | None = None

    @functools.cached_property
    def pooled(self) -> V:
        """Validation of the pooled counts of every fold (the fold validations added up)."""
        return functools.reduce(operator.add, self.validations)

    @functools.cached_property
    def fold_scores(self) -> NDArray[np.float64]:
        """Score of each fold, as a read-only array."""
        scores = np.array([float(v.score) for v in self.validations], dtype=np.float64)
        scores.flags.writeable = False
        return scores

    @property
    def mean(self) -> float:
        """Mean of the fold scores (fold-averaged score)."""
        return float(np.mean(self.fold_scores))

    @property
    def std(self) -> float:
        """Standard deviation of the fold scores (``ddof=0``)."""
        return float(np.std(self.fold_scores))

    @property
    def score(self) -> float:
        """The pooled score (``pooled.score``)."""
        return float(self.pooled.score)

    @property
    def n_folds(self) -> int:
        """Number of fold validations."""
        return len(self.validations)

    @functools.cached_property
    def out_of_fold(self) -> Any:
        """Every sample's prediction from the fold that validated it, in sample order.

        Requires that each sample is validated exactly once (K-fold, stratified,
        group, multi-label stratified, leave-one-out). One-fold and repeated
        splitters do not qualify; use ``fold_indices`` and ``fold_predictions``.
        Dense predictions give a read-only array; sparse ones a CSR matrix.
        """
        if not self.fold_indices or len(self.fold_predictions) != len(self.fold_indices):
            raise ValueError(
                "out_of_fold needs the fold indices and predictions, which this "
                "CrossValidation does not hold (build it with cross_validate)"
            )
        where = np.concatenate([f.validation for f in self.fold_indices])
        n = self.n_samples if self.n_samples is not None else int(where.max()) + 1
        seen = np.bincount(where, minlength=n)
        if seen.shape[0] != n or not (seen == 1).all():
            twice = int(np.count_nonzero(seen > 1))
            never = int(np.count_nonzero(seen == 0))
            raise ValueError(
                "out_of_fold needs folds that validate every sample exactly once; here "
                f"{twice} sample(s) are validated more than once and {never} never. "
                "Use fold_indices and fold_predictions instead"
            )
        inverse = np.empty(n, dtype=np.intp)
        inverse[where] = np.arange(n)
        if any(is_sparse(p) for p in self.fold_predictions):
            import scipy.sparse as sp  # only reached when predictions are sparse

            return sp.vstack([sp.csr_matrix(p) for p in self.fold_predictions], format="csr")[
                inverse
            ]
        out = np.concatenate(self.fold_predictions)[inverse]
        out.flags.writeable = False
        return out

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe record: one entry per fold, the pooled validation's record, mean, std.

        Undefined scores are ``None``; the pooled record follows
        :mod:`fmacro.validation.tables` when the validations are fmacro's.
        """
        folds = []
        for i, score in enumerate(self.fold_scores):
            fold = self.fold_indices[i] if i < len(self.fold_indices) else None
            folds.append(
                {
                    "fold": i if fold is None else fold.index,
                    "repeat": 0 if fold is None else fold.repeat,
                    "n_validation": None if fold is None else fold.n_validation,
                    "score": _json_number(score),
                }
            )
        pooled = self.pooled
        return {
            "score": _describe_score(self.validations[0]),
            "n_samples": self.n_samples,
            "folds": folds,
            "pooled_score": _json_number(pooled.score),
            "mean": _json_number(self.mean),
            "std": _json_number(self.std),
            "pooled": pooled.to_dict() if hasattr(pooled, "to_dict") else None,
        }

    def to_pandas(self) -> Any:
        """A DataFrame with one row per fold, then ``pooled``, ``mean`` and ``std`` (pandas).

        Columns: ``repeat``, ``n_validation`` and ``score`` (the pooled row is the score of
        the summed counts; ``mean``/``std`` summarize the fold rows).
        """
        import pandas as pd

        record = self.to_dict()
        rows = {
            f"fold {f['fold']}" + (f" (repeat {f['repeat']})" if f["repeat"] else ""): f
            for f in record["folds"]
        }
        rows["pooled"] = {"score": record["pooled_score"]}
        rows["mean"] = {"score": record["mean"]}
        rows["std"] = {"score": record["std"]}
        frame = pd.DataFrame.from_dict(rows, orient="index")[["repeat", "n_validation", "score"]]
        return frame.astype({"repeat": "Int64", "n_validation": "Int64", "score": "float64"})

    def report(self, digits: int = 4) -> str:
        """Pooled and fold-averaged scores side by side, then the pooled validation."""
        what = _describe_score(self.validations[0])
        fmt = f"{{:.{digits}f}}"
        k = self.n_folds
        per_fold = "  ".join(fmt.format(s) for s in self.fold_scores)
        width = 14
        lines = [
            f"Cross-validation over {k} fold(s)"
            + (f" of {self.n_samples} samples" if self.n_samples is not None else ""),
            f"score: {what}",
            f"  {'pooled':<{width}}{fmt.format(self.pooled.score)}   "
            "counts of all folds summed, then scored once (each sample weighs the same)",
            f"  {'fold average':<{width}}{fmt.format(self.mean)}   "
            f"mean of the {k} fold scores (each fold weighs the same), std {fmt.format(self.std)}",
            f"  {'per fold':<{width}}{per_fold}",
            "",
            "pooled validation:",
            self.pooled.report(digits),
        ]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.report()


def _json_number(x: float) -> float | None:
    return None if np.isnan(x) else float(x)


def cross_validate(
    fit: Fit,
    X: Any,
    y: Any,
    splitter: Any,
    *,
    validation: ValidationKind | MakeValidation | None = None,
    groups: Any = None,
    map: FoldMap = builtins.map,
    progress: bool = True,
    sample_weight: Any = None,
) -> CrossValidation[Any]:
    """Train and validate a model on every fold of ``splitter``.

    Parameters
    ----------
    fit
        ``fit(X_train, y_train) -> predict``, where ``predict(X_validation)`` returns
        one label per row (a vector of labels, or an ``(n, L)`` indicator matrix for
        multi-label data). It is called once per fold with all validation rows.
        For a model that predicts one observation at a time, return
        ``crossval.vectorized(predict_one)``.
    X
        Samples: numpy array, scipy.sparse matrix, pandas object or list (rows are
        taken by position).
    y
        Labels: a 1-D vector, or an ``(n, L)`` 0/1 indicator matrix (dense or sparse).
    splitter
        A crossval splitter, or any object with scikit-learn's ``split(X, y, groups)``.
    validation
        Which validation each fold gets. ``None`` infers it from the full ``y``:
        ``"multilabel"`` for a 2-D indicator matrix, ``"binary"`` (positive label 1)
        when ``y`` only holds 0/1 labels, ``"multiclass"`` otherwise, with the classes
        fixed to the sorted distinct labels of the whole ``y`` so that every fold has
        the same classes and the folds can be pooled. ``"binary"`` for other
        two-label data takes the larger label as positive. A callable
        ``(expected, predicted) -> Validation`` gives full control (beta,
        zero_division, ...); its validations must support ``+`` to pool.
    groups
        Group label per sample, passed to the splitter (needed by ``GroupKFold``).
    map
        How the folds run: a ``map(job, folds)`` function (the default is the built-in,
        sequential ``map``; e.g. ``ThreadPoolExecutor().map``), a
        ``concurrent.futures.Executor`` itself (each fold is submitted; the progress bar
        advances as folds finish), or a ``dask.distributed.Client`` or its ``map``
        (the data and ``fit`` are scattered to the cluster once, each fold is a task; see
        ``fmacro.dask``).
        With processes (``ProcessPoolExecutor``, dask workers) ``fit`` must be picklable,
        e.g. a module-level function; a process pool pickles the data once per fold. Use
        ``mp_context=multiprocessing.get_context("spawn")`` once scikit-learn or another
        OpenMP user has started threads, since forking such a process aborts.
    progress
        Show a progress bar of finished folds on stderr (only when it is a terminal).
    sample_weight
        One non-negative weight per sample: each fold's validation counts its
        validation samples' weights (pooled counts are then weighted too). The weights
        only score; to train with them, use them inside ``fit`` (e.g. close over them
        and select the training rows). A callable ``validation`` is then called as
        ``validation(expected, predicted, sample_weight=w)``.

    Returns
    -------
    CrossValidation
        Fold validations, ``pooled``, ``fold_scores``, ``mean``, ``std``,
        ``out_of_fold`` and ``report()``.

    Examples
    --------
    >>> import numpy as np
    >>> from fmacro.crossval import KFold
    >>> X = np.arange(20.0)
    >>> y = (X >= 10).astype(int)
    >>> def fit(X_train, y_train):
    ...     cut = X_train[y_train == 1].min()
    ...     return lambda X_val: (X_val >= cut).astype(int)
    >>> cv = cross_validate(fit, X, y, KFold(k=4, seed=0))
    >>> round(cv.pooled.score, 4), round(cv.mean, 4)  # pooled F1, fold-averaged F1
    (0.9474, 0.95)
    """
    if not callable(fit):
        raise TypeError(f"fit must be callable, got {type(fit).__name__}")
    n = check_same_length(X=X, y=y)
    weights = check_sample_weight(sample_weight, n)
    _, make_validation = _make_validation(y, validation)
    folds = _folds_of(splitter, X, y, groups)
    if not folds:
        raise ValueError(f"splitter {splitter!r} produced no folds")
    job = _FoldJob(fit, X, y, make_validation, weights)
    # The bar counts finished folds as they finish (executors, dask) or as map yields them
    # (in order); it is silent when stderr is not a terminal.
    with Progress(len(folds), "cross-validation", enabled=progress) as bar:
        results = _run_folds(map, job, folds, bar.advance)
    if len(results) != len(folds):
        raise ValueError(f"map returned {len(results)} results for {len(folds)} folds")
    return CrossValidation(
        validations=tuple(r.validation for r in results),
        fold_indices=folds,
        fold_predictions=tuple(r.predicted for r in results),
        n_samples=n,
    )
