"""Several threshold methods side by side on held-out data: :func:`compare_methods`.

The library's ``fmacro thresholds --test``: each method chooses thresholds on the tuning
scores and labels, and its thresholds are scored on the test scores and labels. Methods
named as the command names them run as it runs them, on class points built once
(:func:`fmacro.optimize.methods.method_call`), and every result is scored by the command's
own held-out evaluation (:func:`fmacro.optimize.methods.held_out_evaluation`, which is
:func:`~fmacro.optimize.evaluate_thresholds` of the result's thresholds). The answer is a
frozen :class:`MethodComparison`: the results, their held-out evaluations, a table
(:meth:`~MethodComparison.to_pandas`) and a text report.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import attrs

from fmacro.optimize._frames import common_columns
from fmacro.optimize.evaluation import MacroEvaluation
from fmacro.optimize.methods import (
    CONSTRAINED,
    LIMITS,
    check_methods,
    held_out_evaluation,
    method_call,
    timed,
)
from fmacro.optimize.search.points import class_points
from fmacro.optimize.search.result import ThresholdResult
from fmacro.validation.checks import check_beta, check_zero_division
from fmacro.validation.names import ClassName
from fmacro.validation.report import format_table
from fmacro.validation.values import read_only_copies

__all__ = ["OPTIONS", "MethodComparison", "compare_methods"]

#: The options :func:`compare_methods` routes to the named methods that take them (as
#: ``fmacro thresholds`` does): ``prior`` to ``tune``, ``time_limit`` to ``exact`` and
#: ``fixed_point``, ``n_angles`` to ``domain``, ``mix`` to ``micro_macro``, and the per-class
#: constraints ``min_precision`` and ``max_predicted_rate`` to every method that takes them.
OPTIONS = ("prior", "time_limit", "n_angles", "mix", *LIMITS)

#: The columns of :meth:`MethodComparison.to_pandas`, with their headers in the report.
COLUMNS = {
    "tuning_f_macro": "tuning F-macro",
    "test_f_macro": "test F-macro",
    "test_precision": "P",
    "test_recall": "R",
    "test_macro_f": "macro-F",
    "test_micro_f": "micro-F",
    "test_labels_per_object": "labels/object",
    "test_true_labels_per_object": "true labels/object",
    "seconds": "time [s]",
}

MethodSpec = str | tuple[str, Callable[..., ThresholdResult]]
"""A method of :func:`compare_methods`: a name, or a ``(name, callable)`` pair."""


def _names(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(str(v) for v in values)


def _seconds(values: Iterable[float]) -> tuple[float, ...]:
    return tuple(float(v) for v in values)


def _results(values: Iterable[ThresholdResult]) -> tuple[ThresholdResult, ...]:
    return _all_of(values, ThresholdResult, "results")


def _evaluations(values: Iterable[MacroEvaluation]) -> tuple[MacroEvaluation, ...]:
    return _all_of(values, MacroEvaluation, "evaluations")


def _all_of(values: Iterable[Any], kind: type, name: str) -> tuple[Any, ...]:
    out = tuple(values)
    for value in out:
        if not isinstance(value, kind):
            raise TypeError(f"{name} holds {kind.__name__}s, got {type(value).__name__}")
    return out


@read_only_copies
@attrs.frozen(eq=False)
class MethodComparison:
    """Threshold methods' tuning and held-out measures, one entry per method.

    Attributes
    ----------
    methods
        The row names: a method's name, or the name given with a callable.
    results
        Each method's :class:`~fmacro.optimize.ThresholdResult` (its thresholds, chosen on
        the tuning rows; named by the columns of DataFrame inputs).
    evaluations
        Each result's :class:`~fmacro.optimize.MacroEvaluation` on the test rows.
    seconds
        Each method's run time (the class points the named methods share are built once,
        before, and not counted).
    beta, zero_division
        The settings of every method and evaluation.
    """

    methods: tuple[str, ...] = attrs.field(converter=_names)
    results: tuple[ThresholdResult, ...] = attrs.field(converter=_results, repr=False)
    evaluations: tuple[MacroEvaluation, ...] = attrs.field(converter=_evaluations, repr=False)
    seconds: tuple[float, ...] = attrs.field(converter=_seconds)
    beta: float = attrs.field(converter=check_beta)
    zero_division: float = attrs.field(converter=check_zero_division)

    def __attrs_post_init__(self) -> None:
        sizes = {len(self.methods), len(self.results), len(self.evaluations), len(self.seconds)}
        if len(sizes) != 1:
            raise ValueError(
                "methods, results, evaluations and seconds need one entry per method, got "
                f"{len(self.methods)}, {len(self.results)}, {len(self.evaluations)} and "
                f"{len(self.seconds)}"
            )
        if len(set(self.methods)) != len(self.methods):
            raise ValueError(f"method names must be unique, got {list(self.methods)}")

    def _position(self, method: str) -> int:
        if method not in self.methods:
            raise KeyError(f"no method {method!r}; the methods are {', '.join(self.methods)}")
        return self.methods.index(method)

    def result(self, method: str) -> ThresholdResult:
        """The result of the row named ``method``."""
        return self.results[self._position(method)]

    def evaluation(self, method: str) -> MacroEvaluation:
        """The held-out evaluation of the row named ``method``."""
        return self.evaluations[self._position(method)]

    @property
    def classes(self) -> tuple[ClassName, ...] | None:
        """The class names of the results (the columns of DataFrame inputs), or ``None``."""
        return next((r.classes for r in self.results if r.classes is not None), None)

    def rows(self) -> list[dict[str, Any]]:
        """One dict per method: ``method`` and the columns of :meth:`to_pandas`."""
        return [
            {
                "method": name,
                "tuning_f_macro": result.f,
                "test_f_macro": ev.f,
                "test_precision": ev.precision,
                "test_recall": ev.recall,
                "test_macro_f": ev.macro_f,
                "test_micro_f": ev.micro_f,
                "test_labels_per_object": ev.labels_per_object,
                "test_true_labels_per_object": ev.true_labels_per_object,
                "seconds": seconds,
            }
            for name, result, ev, seconds in zip(
                self.methods, self.results, self.evaluations, self.seconds, strict=True
            )
        ]

    def to_pandas(self) -> Any:
        """A DataFrame, one row per method (index ``method``; needs pandas).

        Columns: ``tuning_f_macro`` (the result's F-macro on the tuning rows), then on
        the test rows ``test_f_macro``, ``test_precision`` and ``test_recall`` (F-macro and
        its macro P and R) and ``test_macro_f`` (mean of per-class F), averaged over the
        classes with a positive in the test labels as in
        :func:`~fmacro.optimize.evaluate_thresholds`; ``test_micro_f`` (F of the counts
        pooled over every column), ``test_labels_per_object`` (labels predicted per test
        object) and ``test_true_labels_per_object`` (the true mean); and ``seconds``.
        Undefined values are NaN.
        """
        import pandas as pd

        frame = pd.DataFrame(self.rows(), columns=["method", *COLUMNS])
        return frame.set_index("method")

    def report(self) -> str:
        """A text table, one row per method, and what its columns mean."""
        rows = self.rows()
        header = ("method", *(h for k, h in COLUMNS.items() if k != "test_true_labels_per_object"))
        table = [
            [
                row["method"],
                *(row[k] for k in COLUMNS if k not in ("test_true_labels_per_object", "seconds")),
                f"{row['seconds']:.3f}",
            ]
            for row in rows
        ]
        true_mean = rows[0]["test_true_labels_per_object"] if rows else math.nan
        n_test = self.evaluations[0].n_samples if self.evaluations else None
        return "\n".join(
            [
                format_table(header, table).replace(" nan", "   -"),
                f"test rows: {n_test} objects, {true_mean:.4f} true labels per object; "
                f"beta={self.beta:g}, zero_division={self.zero_division}",
                "On the test rows: F-macro = F of (macro P, macro R); macro-F = mean of "
                "per-class F; micro-F = F of the pooled counts; labels/object predicted.",
            ]
        )

    def __str__(self) -> str:
        return self.report()


def _methods(methods: Any) -> list[tuple[str, Callable[..., ThresholdResult] | None]]:
    """``(name, callable)`` of each method; ``None`` for a method given by name."""
    if isinstance(methods, str) or (
        isinstance(methods, tuple) and len(methods) == 2 and callable(methods[1])
    ):
        methods = [methods]
    out: list[tuple[str, Callable[..., ThresholdResult] | None]] = []
    for entry in methods:
        if isinstance(entry, str):
            out.append((check_methods([entry])[0], None))
        elif (
            isinstance(entry, tuple)
            and len(entry) == 2
            and isinstance(entry[0], str)
            and callable(entry[1])
        ):
            out.append((entry[0], entry[1]))
        else:
            raise TypeError(f"each method is a name or a (name, callable) pair, got {entry!r}")
    if not out:
        raise ValueError("methods is empty; give at least one method")
    names = [name for name, _ in out]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"method names must be unique; repeated: {', '.join(repeated)}")
    return out


def _check_options(options: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise TypeError(
            f"compare_methods got unknown options {', '.join(unknown)}; the options are "
            f"{', '.join(OPTIONS)} (pass other settings with a (name, callable) method)"
        )
    return options


def _run_callable(
    name: str, fn: Callable[..., ThresholdResult], scores: Any, labels: Any, b: float, zd: float
) -> tuple[ThresholdResult, float]:
    result, seconds = timed(lambda: fn(scores, labels, beta=b, zero_division=zd))
    if not isinstance(result, ThresholdResult):
        raise TypeError(f"method {name!r} returned {type(result).__name__}, not a ThresholdResult")
    same_zd = result.zero_division == zd or (math.isnan(result.zero_division) and math.isnan(zd))
    if result.beta != b or not same_zd:
        raise ValueError(
            f"method {name!r} returned a result for beta={result.beta:g}, zero_division="
            f"{result.zero_division}; the comparison is for beta={b:g}, zero_division={zd} "
            "(the callable is given them as keywords: pass them on)"
        )
    return result, seconds


def compare_methods(
    scores: Any,
    labels: Any,
    test_scores: Any,
    test_labels: Any,
    methods: Iterable[MethodSpec] = ("tune", "fixed_point", "per_class"),
    *,
    beta: float = 1.0,
    zero_division: float = 0.0,
    **options: Any,
) -> MethodComparison:
    """Run threshold methods on tuning data and score their thresholds on test data.

    What ``fmacro thresholds FILE --test TEST`` does, as a function: one row per method
    with its F-macro on the tuning rows and, on the test rows, F-macro, macro P and R,
    macro-F, micro-F and labels per object (:meth:`MethodComparison.to_pandas`).

    Parameters
    ----------
    scores, labels
        Tuning scores and 0/1 labels ``(N, n)``: arrays, sparse matrices or DataFrames
        (whose columns name every result's classes; two DataFrames must have the same
        columns).
    test_scores, test_labels
        Held-out scores and labels with the same ``n`` columns (DataFrames must have the
        results' classes as columns, in order, when the results are named).
    methods
        Each a name of ``fmacro thresholds``'s methods
        (:data:`fmacro.optimize.methods.METHODS` and ``"micro_macro"``), run as the
        command runs it, or a ``(name, callable)`` pair: the callable is called as
        ``callable(scores, labels, beta=beta, zero_division=zero_division)`` and returns a
        :class:`~fmacro.optimize.ThresholdResult` (``functools.partial(optimize.tune,
        prior="cv")`` fits). Row names must be unique.
    beta, zero_division
        F_beta weight and the 0/0 value, for every method and evaluation.
    **options
        :data:`OPTIONS`, each routed to the named methods that take it (a callable gets
        none of them): ``prior`` (``tune``, default 3), ``time_limit`` (``exact``,
        ``fixed_point``), ``n_angles`` (``domain``, default 64), ``mix``
        (``micro_macro``, default 0.5), ``min_precision`` and ``max_predicted_rate``
        (per-class constraints; a named method that cannot take them is refused).

    Returns
    -------
    MethodComparison
        Each result, its held-out :class:`~fmacro.optimize.MacroEvaluation` (equal to
        ``evaluate_thresholds(test_scores, test_labels, result)``; for ``top_k``, of its
        predictions) and its run time. The predict-everything warning is silenced, as
        in the command: the table shows each method's labels per object.

    Raises
    ------
    ValueError
        An unknown method name (the message lists the valid ones), repeated names, a
        constraint with a method that cannot take it, or inputs the methods refuse.
    TypeError
        An unknown option, or a method that is neither a name nor a ``(name, callable)``
        pair.

    Examples
    --------
    A least-squares scorer of emotions fitted on 200 training rows, tuned on the other
    191, tested on the test set; DataFrames name the results' classes:

    >>> import numpy as np
    >>> from fmacro.validation.datasets import load_dataset
    >>> X, Y = load_dataset("emotions", "train", as_frame=True)
    >>> X_test, Y_test = load_dataset("emotions", "test", as_frame=True)
    >>> W = np.linalg.lstsq(X[:200], Y[:200], rcond=None)[0]
    >>> S_val = (X[200:] @ W).set_axis(Y.columns, axis=1)
    >>> S_test = (X_test @ W).set_axis(Y.columns, axis=1)
    >>> table = compare_methods(S_val, Y[200:], S_test, Y_test)
    >>> table.to_pandas()[["tuning_f_macro", "test_f_macro", "test_micro_f"]].round(3)
                 tuning_f_macro  test_f_macro  test_micro_f
    method
    tune                  0.657         0.638         0.556
    fixed_point           0.658         0.628         0.545
    per_class             0.616         0.582         0.583
    >>> table.result("tune").classes[:2]
    ('amazed-suprised', 'happy-pleased')
    """
    b = check_beta(beta)
    zd = check_zero_division(zero_division)
    chosen = _methods(methods)
    options = _check_options(dict(options))
    limits = {k: options[k] for k in LIMITS if options.get(k) is not None}
    refused = [name for name, fn in chosen if fn is None and limits and name not in CONSTRAINED]
    if refused:
        raise ValueError(
            f"{', '.join(refused)} cannot take per-class constraints ({', '.join(limits)}); "
            f"the methods that can: {', '.join(sorted(CONSTRAINED))}"
        )
    names = common_columns(scores, labels)
    routed = {k: v for k, v in options.items() if k not in LIMITS}
    points = None
    if any(fn is None for _, fn in chosen):
        points = class_points(scores, labels, zero_division=zd)
    results: list[ThresholdResult] = []
    evaluations: list[MacroEvaluation] = []
    seconds: list[float] = []
    for name, fn in chosen:
        if fn is None:
            assert points is not None
            call = method_call(name, points, scores, labels, beta=b, limits=limits, **routed)
            result, took = timed(call)
        else:
            result, took = _run_callable(name, fn, scores, labels, b, zd)
        if names is not None and result.classes is None:
            result = result.with_classes(names)
        results.append(result)
        evaluations.append(
            held_out_evaluation(result, test_scores, test_labels, beta=b, zero_division=zd)
        )
        seconds.append(took)
    return MethodComparison(tuple(n for n, _ in chosen), results, evaluations, seconds, b, zd)
