"""scikit-learn meta-estimator that tunes per-class thresholds for F-macro.

:class:`FMacroThresholdClassifier` wraps any scikit-learn classifier that scores its
classes (``predict_proba`` or ``decision_function``). ``fit`` collects out-of-fold
scores of clones of the wrapped estimator, searches one threshold per class column
on them with an fmacro method (by default :func:`optimize.tune`, thresholds chosen to
hold on new data; ``"fixed_point"`` is the certified in-sample optimum), and refits
the estimator on all the data; ``predict`` applies the thresholds to the refitted
estimator's scores.

F-macro is F_beta(P, R) of the macro-averaged precision P and recall R; it is not
the mean of per-class F (macro-F). See :mod:`fmacro.optimize.search.fixed_point`.

scikit-learn stays an optional dependency of fmacro: this module is imported only
on demand (``optimize.sklearn``) and needs scikit-learn >= 1.6.

This module holds the estimator; its parts are private modules next to it:
``optimize._sklearn_cv`` (folds, metadata routing, fit-parameter subsets),
``optimize._sklearn_columns`` (estimator outputs as score columns, DataFrame label
columns) and ``optimize._sklearn_objectives`` (objectives, their searches and values).
"""

from __future__ import annotations

import numbers
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

try:
    from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
    from sklearn.utils import _safe_indexing, get_tags, indexable
    from sklearn.utils.metadata_routing import MetadataRouter, MethodMapping
    from sklearn.utils.metaestimators import available_if
    from sklearn.utils.multiclass import check_classification_targets, type_of_target
    from sklearn.utils.validation import check_is_fitted, column_or_1d
except ImportError as exc:  # pragma: no cover - exercised only without scikit-learn
    raise ImportError("optimize.sklearn needs scikit-learn (pip install scikit-learn)") from exc

from fmacro.optimize._sklearn_columns import check_label_columns as _check_label_columns
from fmacro.optimize._sklearn_columns import frame_columns as _frame_columns
from fmacro.optimize._sklearn_columns import multiclass_scores, multilabel_scores
from fmacro.optimize._sklearn_cv import cv_splits, routed_params
from fmacro.optimize._sklearn_cv import fold_seed as _fold_seed  # noqa: F401 (old name)
from fmacro.optimize._sklearn_cv import subset_params as _subset
from fmacro.optimize._sklearn_objectives import objective_value as _objective_value
from fmacro.optimize._sklearn_objectives import resolve_objective, search_thresholds
from fmacro.optimize.baselines import cyclic, global_threshold, per_class
from fmacro.optimize.baselines.micro_macro import check_mix
from fmacro.optimize.deployment import quiet, warn_predict_everything
from fmacro.optimize.inputs import as_binary_labels
from fmacro.optimize.label_budget import check_max_labels
from fmacro.optimize.search.domain import domain
from fmacro.optimize.search.fixed_point import fixed_point
from fmacro.optimize.search.result import ThresholdResult
from fmacro.optimize.tuning import tune
from fmacro.validation.checks import check_beta, check_same_length, check_zero_division, is_sparse
from fmacro.validation.labels import numpy_from_pandas
from fmacro.validation.names import ClassName, check_class_names
from fmacro.validation.weights import check_sample_weight

__all__ = ["METHODS", "OBJECTIVES", "FMacroThresholdClassifier"]

#: Threshold-search methods by name; each maps (scores, labels) to a ThresholdResult.
METHODS: Mapping[str, Callable[..., ThresholdResult]] = {
    "tune": tune,
    "fixed_point": fixed_point,
    "per_class": per_class,
    "cyclic": cyclic,
    "domain": domain,
    "global_threshold": global_threshold,
}

_RESPONSE_METHODS = ("auto", "predict_proba", "decision_function")

#: What the thresholds maximize on the out-of-fold scores ("auto" picks one per target).
OBJECTIVES = ("auto", "f_macro", "macro_f", "micro_f", "f_beta", "micro_macro")


def _estimator_has(attr: str) -> Callable[[Any], bool]:
    """For ``available_if``: the fitted estimator (or, before fit, the template) has ``attr``."""

    def check(self: Any) -> bool:
        est = self.estimator_ if hasattr(self, "estimator_") else self.estimator
        return hasattr(est, attr)

    return check


class FMacroThresholdClassifier(ClassifierMixin, MetaEstimatorMixin, BaseEstimator):
    """Classifier whose thresholds maximize an F-measure on out-of-fold scores.

    ``fit`` (1) scores every sample with a clone of ``estimator`` fitted on the other
    folds of ``cv`` (as :func:`sklearn.model_selection.cross_val_predict`), (2) finds
    the thresholds of ``score >= threshold`` maximizing ``objective`` on those
    out-of-fold scores with ``method``, and (3) refits ``estimator`` on all the data.
    ``predict`` thresholds the refitted estimator's scores.

    **Objectives.** ``objective="auto"`` (default) picks what users of each target type
    expect:

    ========================  ==============  ==============================================
    target                    ``"auto"`` is   maximized on the out-of-fold scores
    ========================  ==============  ==============================================
    binary                    ``"f_beta"``    F_beta of the positive class ``pos_label``
                                              (one threshold; as scikit-learn's
                                              ``TunedThresholdClassifierCV(scoring="f1")``)
    multiclass, multi-label   ``"f_macro"``   F-macro = F_beta(macro P, macro R), one
                                              threshold per class
    ========================  ==============  ==============================================

    The others can be asked for explicitly: ``"f_macro"`` on a binary target (both
    one-vs-rest columns, i.e. the negative class counts as much as the positive one);
    ``"macro_f"``, the mean of per-class F_beta (each class at its own optimum; with
    ``method`` ``"tune"`` or ``"per_class"``); ``"micro_f"`` (multi-label only), F_beta
    of the pooled counts, with one threshold shared by all labels (searched on the
    pooled ranking of every (sample, label) score). F-macro is not macro-F: see
    docs/glossary.md.

    **Targets.**

    Multi-label (2-D 0/1 indicator ``y``, shape ``(n_samples, n_labels)``)
        Each label column gets a threshold; ``predict`` returns the indicator matrix
        ``score >= threshold`` (same dtype as the ``y`` given to ``fit``; the numpy
        dtype for pandas nullable or pyarrow columns). A label without a positive in
        the out-of-fold labels gets :func:`optimize.tune`'s ``unseen="prior"`` cut with
        ``method="tune"`` and ``+inf`` (never predicted) with the other methods (see
        ``prior``). ``classes_`` is ``arange(n_labels)``.
        When ``y`` is a DataFrame its columns name the labels (``label_names_in_``), and
        :meth:`score` refuses a DataFrame ``y`` whose columns are other names or the same
        names in another order (as scikit-learn refuses such an ``X``); reorder it with
        ``y[clf.label_names_in_]``.
        The estimator must support multi-label targets (e.g. ``OneVsRestClassifier``,
        ``MultiOutputClassifier``, ``RandomForestClassifier``, ``KNeighborsClassifier``).
    Binary with ``objective="f_beta"`` (the default for binary ``y``)
        One threshold on the score of ``pos_label`` (``classes_[1]`` unless given):
        ``predict`` returns ``pos_label`` iff ``score >= threshold``, else the other
        class. ``thresholds_`` has that one threshold.
    Binary (other objectives) and multiclass (1-D ``y`` of labels)
        The thresholds are tuned one-vs-rest: class ``k``'s decision "is it ``k``?"
        is ``score_k >= threshold_k``, which is exactly what the F-macro optimizers
        search (a binary problem has two such columns). A one-vs-rest decision may
        name several classes or none for one sample, while a multiclass user expects
        one label per sample, so ``predict`` returns the class with the largest
        margin ``score_k - threshold_k`` (a class is chosen even when no margin is
        >= 0). The one-vs-rest decisions the thresholds were tuned for are available
        from :meth:`predict_indicator`. ``threshold_result_.f`` is the one-vs-rest
        F-macro on the out-of-fold scores; :meth:`score` measures the labels
        ``predict`` returns.

    Parameters
    ----------
    estimator : classifier
        Not fitted (unless ``cv="prefit"``), with ``predict_proba`` or
        ``decision_function``. Multi-label ``predict_proba`` may be a list of
        ``(n_samples, 2)`` arrays (one per label, as from random forests or
        ``MultiOutputClassifier``) or one ``(n_samples, n_labels)`` array (as from
        ``OneVsRestClassifier``).
    objective : {"auto", "f_beta", "f_macro", "macro_f", "micro_f", "micro_macro"}
        What the thresholds maximize (see Objectives above); ``"auto"`` (default):
        ``"f_beta"`` for binary targets, ``"f_macro"`` otherwise. The chosen one is
        ``objective_``; :meth:`score` measures it. ``"micro_macro"`` (multi-label
        targets): ``mix`` times micro-F plus ``1 - mix`` times macro-F, by
        :func:`fmacro.optimize.micro_macro` whatever ``method`` says.
    method : {"tune", "fixed_point", "per_class", "cyclic", "domain", "global_threshold"}
        Threshold search (see :data:`METHODS`). With ``objective`` ``"f_beta"`` or
        ``"micro_f"`` there is one ranking to cut, where ``"tune"`` is the smoothed
        F_beta optimum and every other method the in-sample F_beta optimum; with
        ``"macro_f"`` only ``"tune"`` (smoothed) and ``"per_class"`` apply. For
        ``"f_macro"``: ``"tune"`` (default) chooses
        F-macro thresholds for new data (:func:`fmacro.optimize.tune`: the certified
        optimum of the smoothed class points, with pseudo-count ``prior``);
        ``"fixed_point"`` the certified *in-sample* F-macro optimum of the
        out-of-fold scores (:func:`fmacro.optimize.fixed_point`; it overfits rare
        classes, see docs/f-macro.md); ``"per_class"``
        each class's own F_beta optimum (maximizes macro-F, not F-macro);
        ``"cyclic"`` coordinate ascent from it; ``"domain"`` the best of 64 support
        points; ``"global_threshold"`` one threshold shared by all classes.
    cv : int, cross-validation splitter, iterable of (train, test) or "prefit"
        ``int`` k >= 2 (default 5): the folds of scikit-learn's
        ``check_cv(k, y, classifier=True)``, the same at every ``fit``: scikit-learn's
        ``StratifiedKFold(k)`` for binary and multiclass ``y``, ``KFold(k)`` for
        multi-label ``y`` (:class:`crossval.KFold` with ``shuffle=False``, the same
        folds), in sample order unless ``random_state`` shuffles them (pass
        :class:`crossval.MultilabelStratifiedKFold` to stratify multi-label folds).
        Any splitter with ``split`` (fmacro's or scikit-learn's), or an iterable of
        index pairs: the scores of every test part are pooled (a sample in several
        test parts counts once per part, one in none is not used for tuning).
        ``"prefit"``: ``estimator`` is already fitted and the thresholds are tuned on
        its scores of the ``X, y`` given to ``fit`` (use data it was not trained on).
    beta : float, > 0
        F_beta weight; beta > 1 favours recall.
    zero_division : {0.0, 1.0, nan}
        Precision of a class that predicts nothing (0/0), in tuning and in
        :meth:`score`; with nan such a cut is never chosen.
    random_state : int, RandomState instance or None
        Used only when ``cv`` is an int. ``None`` (default): the folds are in sample
        order, as scikit-learn's (``TunedThresholdClassifierCV``, ``cross_val_score``
        with an int ``cv``), so every ``fit`` gives the same thresholds. An int in
        ``[0, 2**32 - 1]``: the same splitters shuffled with that seed
        (``StratifiedKFold(k, shuffle=True, random_state=random_state)``;
        ``crossval.KFold(k, shuffle=True, seed=random_state)`` for multi-label ``y``),
        the same folds at every ``fit``. A ``RandomState`` draws the seed, so each
        ``fit`` shuffles anew. (scikit-learn's ``TunedThresholdClassifierCV`` reads its
        ``random_state`` only for a float ``cv``, which fmacro does not take.) Rows
        stored in a meaningful order (sorted by class, time or source, as Corel5k's
        training file) make unshuffled folds that miss classes: give a seed then
        (docs/f-macro.md).
    refit : bool
        ``True``: refit ``estimator`` on all of ``X, y`` after tuning. ``False``:
        keep the estimator of the single split of ``cv`` (``cv`` must then yield
        exactly one split) or, with ``cv="prefit"``, the given estimator (required
        there).
    response_method : {"auto", "predict_proba", "decision_function"}
        Scores used: ``"auto"`` takes ``predict_proba`` when the estimator has it,
        else ``decision_function``.
    prior : float or "cv"
        Pseudo-count of :func:`optimize.tune` (``method="tune"`` only; 0 = the raw
        out-of-fold points). The batch size ``n_eval`` is the number of tuning rows. A
        class without out-of-fold positives gets tune's ``unseen="prior"`` rule for
        multi-label targets and ``+inf`` for multiclass ones (one label per sample).
    pos_label : label or None
        The positive class of ``objective="f_beta"`` (``None``: ``classes_[1]``, the
        larger label, as scikit-learn); must be one of the two classes of ``y``.
    verbose : int
        0 (default) prints nothing; 1 prints one line per fold, the search and the
        refit to stderr (with timings) while ``fit`` runs.
    min_precision, max_predicted_rate : float, array-like or None
        Per-class constraints of the searches (:func:`optimize.fixed_point`): each
        class's threshold keeps a raw out-of-fold precision of at least
        ``min_precision`` and predicts at most a share ``max_predicted_rate`` of the
        out-of-fold rows (a number for every class, or one per class in ``classes_``
        order). For ``objective="f_beta"`` they apply to the positive class; refused with
        ``objective="micro_f"`` and ``method="global_threshold"`` (one shared threshold).
        For multiclass targets they hold for each class's one-vs-rest cut of the
        out-of-fold scores, before the argmax of the margins.
    mix : float
        Weight of micro-F in ``objective="micro_macro"``, in [0, 1] (default 0.5: the
        mean of micro-F and macro-F, LibMultiLabel's target up to a factor 2).
    max_labels : int >= 1 or None
        A label budget for multi-label targets: :meth:`predict` (hence :meth:`score`)
        and :meth:`predict_indicator` keep in each sample at most its ``max_labels``
        highest-scored labels among those the thresholds predict (equal scores: the
        lower column first; :func:`fmacro.optimize.label_budget.cap_labels`).
        ``None`` (default): no budget. The thresholds are tuned without it, and
        ``best_score_`` measures the predictions without it. Read at predict time, so
        ``set_params(max_labels=...)`` needs no refit. Binary and multiclass targets
        ignore it: ``predict`` returns one label per sample, within any budget
        ``>= 1``, and :meth:`predict_indicator` keeps the one-vs-rest decisions the
        thresholds were tuned for. A bool, a float or an int below 1 is refused at
        ``fit`` and ``predict`` (``TypeError``/``ValueError`` naming ``max_labels``).

    Attributes
    ----------
    estimator_ : classifier
        The estimator whose scores ``predict`` thresholds.
    threshold_result_ : ThresholdResult
        The search result on the out-of-fold scores: F-macro ``f``, ``precision``,
        ``recall``, ``upper_bound``/``gap`` (the certificate of ``fixed_point`` and
        ``domain``; ``nan`` for ``tune``, whose certificate for the smoothed objective
        is in ``diagnostics``), ``method`` and ``diagnostics``; its ``classes`` name
        the columns (the class labels as text, or a multi-label DataFrame target's
        columns), so ``threshold_result_.save(...)`` keeps them.
    thresholds_ : ndarray of float64, shape (n_classes,) or (1,)
        Read-only; one per column of ``classes_``: positive iff
        ``score >= threshold`` (``+inf`` never, ``-inf`` always). With
        ``objective_ == "f_beta"``, the one threshold of ``pos_label_``'s score.
    objective_ : str
        The objective maximized (``"auto"`` resolved).
    pos_label_ : label or None
        The positive class (``objective_ == "f_beta"``), else ``None``.
    best_score_ : float
        ``objective_`` of the tuned thresholds on the out-of-fold scores (classes
        without an out-of-fold positive left out of the averages).
    classes_ : ndarray
        Class labels (multiclass) or ``arange(n_labels)`` (multi-label).
    n_features_in_ : int
        Number of features seen by ``estimator_`` (when it records it).
    feature_names_in_ : ndarray of str
        Column names of a DataFrame ``X`` (when ``estimator_`` records them).
    label_names_in_ : ndarray of object
        Column names of a multi-label DataFrame ``y`` (only when ``fit`` got one), in
        order; :meth:`score` pairs a DataFrame ``y``'s columns with them.
    n_tuning_samples_ : int
        Number of out-of-fold score rows the thresholds were tuned on.

    Notes
    -----
    **Metadata routing.** With scikit-learn's metadata routing enabled
    (``sklearn.set_config(enable_metadata_routing=True)``) this estimator is a router
    and a consumer, as ``TunedThresholdClassifierCV`` and ``CalibratedClassifierCV``:
    ``fit`` uses ``sample_weight`` itself for the threshold search and routes to
    ``estimator.fit`` and ``cv.split`` what they request; ``score`` uses
    ``sample_weight``. A Pipeline or ``GridSearchCV`` passes weights down only after
    ``set_fit_request(sample_weight=True)`` (and ``set_score_request`` for the
    default scoring); weights reach the inner estimator only if it requests them
    (``estimator.set_fit_request(sample_weight=True)``, or ``False`` to leave it
    unweighted). Metadata passed where a request is unset raises scikit-learn's
    ``UnsetMetadataPassedError``, never dropped silently. Without routing (the
    default), ``fit``'s parameters, ``sample_weight`` included, go to every
    ``estimator.fit``, and ``sample_weight`` weights the search.

    Cost: ``n_splits + 1`` fits of ``estimator`` (``n_splits`` with ``refit=False``)
    plus one threshold search, ``O(N L log N)`` for ``N`` samples and ``L`` classes.
    The first search in a process compiles fmacro's numba kernels (a few seconds,
    then cached on disk). The wrapped estimator receives ``X`` as given (a
    DataFrame stays a DataFrame, so column-name based pipelines work) and ``y`` as a
    numpy array: label vectors as given (pandas nullable or pyarrow dtypes as their
    numpy dtype), a multi-label indicator always as int64 0/1 (costing 8 bytes per
    entry), because scikit-learn 1.9 mistrains on narrower ones: with a uint8 ``y`` of
    more than 256 labels (int8: 128) ``OneVsRestClassifier`` fits its estimators to
    permuted columns, and a bool ``y`` turns every ``RidgeClassifier`` target into 1
    (see docs/f-macro.md). The caller's arrays are never modified.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_multilabel_classification
    >>> from sklearn.multiclass import OneVsRestClassifier
    >>> from sklearn.linear_model import LogisticRegression
    >>> X, Y = make_multilabel_classification(n_samples=200, n_classes=4, random_state=0)
    >>> clf = FMacroThresholdClassifier(
    ...     OneVsRestClassifier(LogisticRegression()), cv=3, random_state=0
    ... ).fit(X, Y)
    >>> clf.predict(X[:2]).shape, clf.thresholds_.shape
    ((2, 4), (4,))
    >>> clf.threshold_result_.method
    'tune'
    """

    # fit(X, y, **params) consumes sample_weight itself (the threshold search): declared
    # here for scikit-learn's metadata routing, which then generates set_fit_request
    __metadata_request__fit = {"sample_weight": None}  # noqa: RUF012 (scikit-learn's protocol)

    def __init__(
        self,
        estimator: Any,
        method: str = "tune",
        cv: Any = 5,
        beta: float = 1.0,
        zero_division: float = 0.0,
        random_state: Any = None,
        refit: bool = True,
        response_method: str = "auto",
        prior: float | str = 3.0,
        objective: str = "auto",
        pos_label: Any = None,
        verbose: int = 0,
        min_precision: Any = None,
        max_predicted_rate: Any = None,
        max_labels: int | None = None,
        mix: float = 0.5,
    ) -> None:
        self.estimator = estimator
        self.method = method
        self.cv = cv
        self.beta = beta
        self.zero_division = zero_division
        self.random_state = random_state
        self.refit = refit
        self.response_method = response_method
        self.prior = prior
        self.objective = objective
        self.pos_label = pos_label
        self.verbose = verbose
        self.min_precision = min_precision
        self.max_predicted_rate = max_predicted_rate
        self.max_labels = max_labels
        self.mix = mix

    # ------------------------------------------------------------------ parameters

    @property
    def thresholds_(self) -> NDArray[np.float64]:
        """The tuned thresholds (read-only), one per class column."""
        check_is_fitted(self, "threshold_result_")
        return self.threshold_result_.thresholds

    def _check_params(self) -> tuple[Callable[..., ThresholdResult], float, float]:
        if not isinstance(self.method, str) or self.method not in METHODS:
            raise ValueError(f"method must be one of {sorted(METHODS)}, got {self.method!r}")
        if self.response_method not in _RESPONSE_METHODS:
            raise ValueError(
                f"response_method must be one of {list(_RESPONSE_METHODS)}, "
                f"got {self.response_method!r}"
            )
        if not isinstance(self.objective, str) or self.objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {list(OBJECTIVES)}, got {self.objective!r}")
        if isinstance(self.verbose, (bool, np.bool_)) or not isinstance(
            self.verbose, numbers.Integral
        ):
            raise TypeError(f"verbose must be an int >= 0, got {self.verbose!r}")
        if self.verbose < 0:
            raise ValueError(f"verbose must be an int >= 0, got {self.verbose!r}")
        if not isinstance(self.refit, (bool, np.bool_)):
            raise TypeError(f"refit must be a bool, got {type(self.refit).__name__}")
        if not hasattr(self.estimator, "fit"):
            raise TypeError(
                "estimator must be a scikit-learn classifier with fit, got "
                f"{type(self.estimator).__name__}"
            )
        self._check_response(self.estimator)
        check_max_labels(self.max_labels)
        check_mix(self.mix)
        return (
            METHODS[self.method],
            check_beta(self.beta),
            check_zero_division(self.zero_division),
        )

    def _response_names(self) -> tuple[str, ...]:
        if self.response_method == "auto":
            return ("predict_proba", "decision_function")
        return (self.response_method,)

    def _check_response(self, est: Any) -> str:
        for name in self._response_names():
            if hasattr(est, name):
                return name
        names = self._response_names()
        lacks = "has neither" if len(names) > 1 else "does not have it"
        raise TypeError(
            f"estimator must have {' or '.join(names)} to score the classes, but "
            f"{type(est).__name__} {lacks}; use a classifier that scores its classes "
            "(e.g. SVC(probability=True)) or another response_method"
        )

    # ------------------------------------------------------------------ targets

    def _encode_targets(self, y: Any) -> tuple[Any, NDArray[np.bool_]]:
        """(y passed to the estimator, (N, K) bool indicator of the classes)."""
        columns = _frame_columns(y)
        if is_sparse(y):
            y = y.toarray()
        # pandas nullable / pyarrow labels: their numpy dtype; a missing one is refused
        y = numpy_from_pandas(y, name="y", what="label")
        y_type = type_of_target(y, input_name="y")
        check_classification_targets(y)
        if y_type == "multilabel-indicator":
            raw = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
            # type_of_target also calls {-1, 1} or {0, 2} matrices indicators
            indicator = as_binary_labels(raw, "y")
            names = None if columns is None else check_class_names(columns, "y's columns")
            self._multilabel = True
            self._y_dtype = raw.dtype
            self.classes_ = np.arange(raw.shape[1])
            self._label_names = None if names is None else list(names)
            self._set_label_names_in(names)
            # The estimator gets int64 0/1 labels whatever the dtype of y: scikit-learn
            # (1.9) casts the class list arange(n_labels) to the dtype of an integer y,
            # so uint8 (> 256 labels), int8 (> 128) or int16 (> 32768) wrap and
            # OneVsRestClassifier / MLPClassifier train on permuted columns, and bool
            # makes RidgeClassifier's -1/+1 coding all ones (docs/f-macro.md).
            return indicator.astype(np.int64), indicator
        self._set_label_names_in(None)
        if y_type not in ("binary", "multiclass"):
            raise ValueError(
                "y must be binary or multiclass labels (1-D) or a multi-label 0/1 "
                f"indicator matrix (2-D); got a {y_type} target"
            )
        y_fit = column_or_1d(y, warn=True)
        classes, codes = np.unique(y_fit, return_inverse=True)
        if classes.size < 2:
            raise ValueError(
                f"y has one class only ({classes.tolist()}); the classifier needs at "
                "least 2 classes to tune thresholds"
            )
        self._multilabel = False
        self.classes_ = classes
        self._label_names = list(classes.tolist())  # typed names (validation.names)
        return y_fit, codes.reshape(-1)[:, None] == np.arange(classes.size)[None, :]

    def _set_label_names_in(self, names: tuple[ClassName, ...] | None) -> None:
        if names is not None:
            self.label_names_in_ = np.asarray(names, dtype=object)
        elif "label_names_in_" in self.__dict__:  # left from an earlier fit
            del self.label_names_in_

    def _target_checked(self, y: Any) -> NDArray[Any]:
        """``y`` of :meth:`score` as a numpy array, its columns paired with the fitted ones.

        A multi-label DataFrame ``y`` must have the columns of the DataFrame ``fit`` was
        given, in the same order (as scikit-learn requires of ``X``'s feature names); a
        ``y`` without column names is taken by position.
        """
        if is_sparse(y):
            return np.asarray(y.toarray())
        if not self._multilabel:
            return np.asarray(column_or_1d(numpy_from_pandas(y, name="y", what="label")))
        fitted = getattr(self, "label_names_in_", None)
        given = check_class_names(_frame_columns(y), "y's columns")
        if fitted is not None and given is not None:
            _check_label_columns(given, tuple(fitted))
        arr = numpy_from_pandas(y, name="y", what="label")
        return np.asarray(arr.to_numpy() if hasattr(arr, "to_numpy") else arr)

    # ------------------------------------------------------------------ scores

    def _scores(self, est: Any, X: Any) -> NDArray[np.float64]:
        """Float64 ``(n_samples, n_classes)`` scores of ``est``, columns as ``classes_``."""
        name = self._check_response(est)
        raw = getattr(est, name)(X)
        n_cols = self.classes_.shape[0]
        if self._multilabel:
            return multilabel_scores(est, raw, name, n_cols)
        return multiclass_scores(est, raw, name, self.classes_, n_cols)

    # ------------------------------------------------------------------ fit

    def fit(self, X: Any, y: Any, **params: Any) -> FMacroThresholdClassifier:
        """Tune the thresholds on out-of-fold scores, then refit the estimator.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame, shape (n_samples, n_features)
            Passed to the estimator as given (row subsets for the folds).
        y : array-like or Series of labels, or 2-D 0/1 indicator (array, DataFrame
            or sparse), shape (n_samples,) or (n_samples, n_labels)
            pandas nullable (``Int64``, ``boolean``, ``Float64``, ...) and pyarrow
            dtypes are read as their numpy dtype; a missing label (``pd.NA``) is
            refused. A DataFrame's columns name the labels (``label_names_in_``).
        **params
            Without metadata routing (scikit-learn's default): passed to every
            ``estimator.fit``; arrays with one entry per sample are split with the
            folds. With routing enabled (``sklearn.set_config(
            enable_metadata_routing=True)``): routed to ``estimator.fit`` and
            ``cv.split`` by what they request (see Metadata routing in the class
            docstring); metadata that nothing requests raises, as in scikit-learn's
            meta-estimators. In both cases a ``sample_weight`` among them (one
            non-negative weight per sample) also weights the threshold search: each
            out-of-fold sample counts its weight in the class points
            (``class_points(..., sample_weight=)``) and in ``best_score_``.

        Returns
        -------
        self
        """
        search, beta, zd = self._check_params()
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None"
            )
        prefit = isinstance(self.cv, str) and self.cv == "prefit"
        if prefit and self.refit:
            raise ValueError("cv='prefit' uses the given fitted estimator: set refit=False")
        fit_params, split_params = routed_params(self, params)
        X, y = indexable(X, y)
        n = check_same_length(X=X, y=y)
        y_fit, indicator = self._encode_targets(y)
        weights = check_sample_weight(params.get("sample_weight"), n)

        if prefit:
            check_is_fitted(self.estimator)
            self.estimator_ = self.estimator
            scores = self._scores(self.estimator_, X)
            labels = indicator
            tuning_weights = weights
        else:
            splits = cv_splits(
                self.cv,
                X,
                y_fit,
                split_params,
                multilabel=self._multilabel,
                random_state=self.random_state,
            )
            if not self.refit and len(splits) != 1:
                raise ValueError(
                    f"refit=False keeps the estimator of a single split, but cv yields "
                    f"{len(splits)} splits; use refit=True or a one-split cv"
                )
            parts, rows, est = [], [], None
            for i, (train, test) in enumerate(splits, start=1):
                start = time.perf_counter()
                est = clone(self.estimator).fit(
                    _safe_indexing(X, train), y_fit[train], **_subset(fit_params, train, n)
                )
                parts.append(self._scores(est, _safe_indexing(X, test)))
                rows.append(test)
                self._say(
                    f"fold {i}/{len(splits)}: fitted on {train.size} samples, scored {test.size}",
                    start,
                )
            order = np.concatenate(rows)
            scores = np.ascontiguousarray(np.vstack(parts))
            labels = np.ascontiguousarray(indicator[order])
            tuning_weights = None if weights is None else weights[order]
            if self.refit:
                start = time.perf_counter()
                self.estimator_ = clone(self.estimator).fit(X, y_fit, **fit_params)
                self._say(f"refitted on all {n} samples", start)
            else:
                self.estimator_ = est

        if not labels.any():
            raise ValueError(
                "y has no positive label in the samples used for tuning; F-macro "
                "thresholds need at least one positive"
            )
        objective, pos = resolve_objective(
            self.objective,
            method=self.method,
            pos_label=self.pos_label,
            classes=self.classes_,
            multilabel=self._multilabel,
        )
        start = time.perf_counter()
        # silenced inside: fit warns once below, attributed to its caller
        result = quiet(search_thresholds)(
            search,
            objective,
            pos,
            scores,
            labels,
            beta,
            zd,
            tuning_weights,
            method=self.method,
            prior=self.prior,
            classes=self.classes_,
            multilabel=self._multilabel,
            mix=self.mix,
            constraints={
                name: value
                for name, value in (
                    ("min_precision", self.min_precision),
                    ("max_predicted_rate", self.max_predicted_rate),
                )
                if value is not None
            },
        )
        self.objective_ = objective
        self.pos_label_ = None if pos is None else self.classes_[pos]
        self._pos = pos
        self.threshold_result_ = self._named(result, pos)
        if self._multilabel:  # one label per object otherwise: nothing to predict everywhere
            warn_predict_everything(self.threshold_result_, stacklevel=2)
        self.best_score_ = _objective_value(
            labels, self._indicator(scores), objective, pos, beta, zd, tuning_weights, self.mix
        )
        self.n_tuning_samples_ = int(scores.shape[0])
        self._say(
            f"{self.method} thresholds for {objective} on {scores.shape[0]} out-of-fold "
            f"rows: {objective} = {self.best_score_:.4f}",
            start,
        )
        for attr in ("n_features_in_", "feature_names_in_"):
            if hasattr(self.estimator_, attr):
                setattr(self, attr, getattr(self.estimator_, attr))
            elif attr in self.__dict__:  # left from an earlier fit
                delattr(self, attr)
        return self

    def _say(self, message: str, start: float) -> None:
        if self.verbose:
            elapsed = time.perf_counter() - start
            print(
                f"[{type(self).__name__}] {message} ({elapsed:.2f} s)", file=sys.stderr, flush=True
            )

    def _named(self, result: ThresholdResult, pos: int | None) -> ThresholdResult:
        """``result`` with its columns named: the classes, or a DataFrame target's columns."""
        names = self._label_names
        if names is None:
            return result
        return result.with_classes(names if pos is None else [names[pos]])

    def _indicator(self, scores: NDArray[np.float64]) -> NDArray[np.bool_]:
        """One-vs-rest decisions of scores by the tuned thresholds, columns as ``classes_``."""
        if self.objective_ != "f_beta":
            return self.threshold_result_.apply(scores)
        pos = self._pos
        assert pos is not None  # set with objective_ "f_beta"
        hit = self.threshold_result_.apply(scores[:, [pos]])[:, 0]
        out = np.empty(scores.shape, dtype=bool)
        out[:, pos] = hit
        out[:, 1 - pos] = ~hit
        return out

    # ------------------------------------------------------------------ predict

    def predict_indicator(self, X: Any) -> NDArray[np.bool_]:
        """One-vs-rest decisions ``score >= threshold``: bool ``(n_samples, n_classes)``.

        Columns follow ``classes_``. For multi-label targets this is ``predict``
        as bool; for multiclass targets these are the decisions the thresholds were
        tuned for (a row may hold several classes or none).
        """
        check_is_fitted(self)
        scores = self._scores(self.estimator_, X)
        if self._multilabel:
            return self._capped(scores)
        return self._indicator(scores)

    def _capped(self, scores: NDArray[np.float64]) -> NDArray[np.bool_]:
        """Multi-label decisions of the thresholds within the ``max_labels`` budget."""
        budget = check_max_labels(self.max_labels)
        return np.asarray(self.threshold_result_.apply(scores, max_labels=budget))

    def predict(self, X: Any) -> NDArray[Any]:
        """Predicted labels.

        Multi-label: the indicator ``score >= threshold`` (dtype of the fitted ``y``),
        at most ``max_labels`` labels per sample when it is set.
        Binary with ``objective_ == "f_beta"``: ``pos_label_`` iff its score ``>=
        threshold``, else the other class. Otherwise (binary/multiclass):
        ``classes_[argmax_k(score_k - threshold_k)]``.
        """
        check_is_fitted(self)
        scores = self._scores(self.estimator_, X)
        if self._multilabel:
            return self._capped(scores).astype(self._y_dtype)
        if self.objective_ == "f_beta":
            hit = self._indicator(scores)
            # the positive column holds the decision; the other column is its negation
            return np.asarray(np.where(hit[:, 1], self.classes_[1], self.classes_[0]))
        with np.errstate(invalid="ignore"):
            margin = scores - self.thresholds_[None, :]
        return np.asarray(self.classes_[np.argmax(margin, axis=1)])

    @available_if(_estimator_has("predict_proba"))
    def predict_proba(self, X: Any) -> Any:
        """``estimator_.predict_proba(X)`` (unthresholded)."""
        check_is_fitted(self)
        return self.estimator_.predict_proba(X)

    @available_if(_estimator_has("predict_log_proba"))
    def predict_log_proba(self, X: Any) -> Any:
        """``estimator_.predict_log_proba(X)``."""
        check_is_fitted(self)
        return self.estimator_.predict_log_proba(X)

    @available_if(_estimator_has("decision_function"))
    def decision_function(self, X: Any) -> Any:
        """``estimator_.decision_function(X)`` (unthresholded)."""
        check_is_fitted(self)
        return self.estimator_.decision_function(X)

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """``objective_`` of ``predict(X)`` against ``y``: what ``GridSearchCV`` maximizes.

        With this estimator's ``beta`` and ``zero_division``: ``"f_macro"``, F_beta of
        macro precision and macro recall over the classes present in ``y`` or the
        predictions (``validation.sklearn.f_macro_score(y, self.predict(X))``);
        ``"f_beta"``, F_beta of ``pos_label_``; ``"macro_f"`` and ``"micro_f"``,
        scikit-learn's ``fbeta_score`` with ``average="macro"`` / ``"micro"``;
        ``"micro_macro"``, ``mix`` times the micro one plus ``1 - mix`` times the macro
        one.
        ``sample_weight`` weights the samples' counts, as in scikit-learn's metrics.

        A multi-label DataFrame ``y`` must have the columns of the DataFrame ``fit``
        was given (``label_names_in_``), in that order: other names, missing columns or
        another order raise a ``ValueError`` (reorder with ``y[clf.label_names_in_]``).
        ``y`` without column names (arrays, sparse matrices) is taken by position.
        """
        from sklearn.metrics import fbeta_score

        from fmacro.validation.sklearn import f_macro_score

        check_is_fitted(self)
        y_true = self._target_checked(y)
        pred = self.predict(X)
        beta, zd = check_beta(self.beta), check_zero_division(self.zero_division)
        # fmacro's one weight check, also before scikit-learn's fbeta_score (which takes
        # weights such as [1e308, 1e308] whose counts overflow)
        w = check_sample_weight(sample_weight, y_true.shape[0])
        if self.objective_ == "f_macro":
            return float(f_macro_score(y_true, pred, beta=beta, zero_division=zd, sample_weight=w))
        if self.objective_ == "f_beta":
            return float(
                fbeta_score(
                    y_true,
                    pred,
                    beta=beta,
                    pos_label=self.pos_label_,
                    zero_division=zd,
                    sample_weight=w,
                )
            )

        def averaged(average: str) -> float:
            return float(
                fbeta_score(
                    y_true, pred, beta=beta, average=average, zero_division=zd, sample_weight=w
                )
            )

        if self.objective_ == "micro_macro":
            return self.mix * averaged("micro") + (1.0 - self.mix) * averaged("macro")
        return averaged("macro" if self.objective_ == "macro_f" else "micro")

    # ------------------------------------------------------------------ sklearn plumbing

    def get_metadata_routing(self) -> MetadataRouter:
        """Metadata routing of this estimator (scikit-learn's metadata routing).

        ``fit`` consumes ``sample_weight`` itself (the threshold search) and routes to
        ``estimator.fit`` what the estimator requests and to ``cv.split`` what the
        splitter requests (e.g. ``groups`` for scikit-learn's ``GroupKFold``); with
        ``cv="prefit"``, which fits nothing, it routes nothing. ``score`` consumes
        ``sample_weight``. Requests are set with :meth:`set_fit_request` and
        :meth:`set_score_request` on this estimator and on ``estimator``.

        Returns
        -------
        routing : sklearn.utils.metadata_routing.MetadataRouter
        """
        router = MetadataRouter(owner=self).add_self_request(self)
        if isinstance(self.cv, str) and self.cv == "prefit":
            return router  # the given estimator is used as fitted: nothing to route
        return router.add(
            estimator=self.estimator,
            method_mapping=MethodMapping().add(caller="fit", callee="fit"),
        ).add(
            splitter=self.cv,
            method_mapping=MethodMapping().add(caller="fit", callee="split"),
        )

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        base = get_tags(self.estimator)
        tags.input_tags.sparse = base.input_tags.sparse
        tags.input_tags.allow_nan = base.input_tags.allow_nan
        tags.input_tags.pairwise = base.input_tags.pairwise
        multi_label = False
        if base.classifier_tags is not None:
            # OneVsRestClassifier / MultiOutputClassifier declare multi-label support
            # through multi_output only.
            multi_label = bool(base.classifier_tags.multi_label or base.target_tags.multi_output)
        tags.classifier_tags.multi_label = multi_label
        return tags
