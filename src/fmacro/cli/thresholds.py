"""``fmacro thresholds``: F-macro threshold search from the command line.

With no file it searches the bundled Corel5k test-set rankings; with a file it reads the
reference text format (``--n-samples`` and ``--support`` required), ``.npz`` (arrays
``scores`` and ``labels``, optional ``classes``), the XC / svmlight sparse format, or scores
in CSV or parquet with a header of class names and their 0/1 labels in another file
(``--labels``; :mod:`fmacro.optimize.score_files`). Class names are carried into the
report, the ``--json`` records and the ``--save`` file.

The first row is ``tune`` (:func:`optimize.tune`, thresholds chosen for new data);
``fixed_point`` is the certified *in-sample* optimum of the given rankings. With
``--test FILE`` (same formats, scores and labels of held-out objects) every row also
shows the held-out F-macro and macro-F of its thresholds. With ``--interval LEVEL`` each
method that :func:`optimize.held_out_interval` runs also shows the F-macro predicted from
the tuning file and an interval at that level for a new batch of the test file's size
(without ``--test``, of the tuning file's), next to the F measured on the test file.
"""

from __future__ import annotations

import argparse
import math
import os
import time
from collections.abc import Callable, Mapping
from importlib import resources
from typing import Any

import attrs
import numpy as np

from fmacro.cli import float_option
from fmacro.optimize.deployment import quiet
from fmacro.optimize.methods import (
    CONSTRAINED,
    EXTRA_METHODS,
    METHODS,
    NEED_SCORES,
    held_out_evaluation,
    method_call,
    timed,
)
from fmacro.optimize.search.points import ClassPoints
from fmacro.optimize.search.result import ThresholdResult
from fmacro.validation.files import about_file, check_output_path, checked_path
from fmacro.validation.io_arrays import ColumnNames
from fmacro.validation.measures import f_beta_from_pr, mean_defined
from fmacro.validation.names import ClassName
from fmacro.validation.report import format_table

__all__ = [
    "METHODS",
    "ThresholdProblem",
    "certificate_status",
    "labels_per_object",
    "load_problem",
    "register",
    "run",
    "run_methods",
    "true_labels_per_object",
]


def skipped_method(name: str, problem: Any, limits: Mapping[str, Any] | None) -> bool:
    """Whether ``name`` cannot run: it needs scores the problem lacks, or cannot meet the
    given constraints."""
    return (name in NEED_SCORES and problem.scores is None) or (
        bool(limits) and name not in CONSTRAINED
    )


@attrs.frozen
class ThresholdProblem:
    """Rankings to search: per-class points, and the score matrix when there is one."""

    points: ClassPoints
    scores: Any
    labels: Any
    source: str
    names: ColumnNames | None = None

    @property
    def classes(self) -> tuple[ClassName, ...] | None:
        """Names of the score columns, when a file names them."""
        return None if self.names is None else self.names.names


def load_problem(
    path: str | None,
    *,
    zero_division: float,
    n_samples: int | None = None,
    support: str | None = None,
    labels: str | None = None,
) -> ThresholdProblem:
    """Read a ranking file (or the bundled one) and build its per-class points once.

    ``labels`` is the file of 0/1 labels of scores in CSV, parquet or ``.npy`` (see
    :func:`fmacro.optimize.score_files.read_scores`, which pairs their columns by name).
    """
    from fmacro.optimize.io import load_scores_npz, read_ranked_lists, read_xc
    from fmacro.optimize.score_files import NAMED_SUFFIXES, read_scores
    from fmacro.optimize.search.points import class_points

    names = None
    labels_file = labels

    if path is None:
        source = resources.files("fmacro.optimize") / "data" / "corel5k_test_scores.npz"
        with resources.as_file(source) as bundled:
            scores, labels = load_scores_npz(bundled)
        desc = "Corel5k test set (bundled): ridge scores, 500 images x 374 words"
    else:
        file = checked_path(path)
        suffix = file.suffix.lower()
        if labels is not None and suffix not in NAMED_SUFFIXES:
            raise ValueError(
                f"{path}: --labels goes with scores in {', '.join(NAMED_SUFFIXES)} files; "
                "this file holds its own labels"
            )
        if suffix in NAMED_SUFFIXES:
            read = read_scores(file, labels)
            scores, labels, names = read.scores, read.labels, read.names
        elif suffix in (".svm", ".svmlight", ".xc", ".libsvm"):
            scores, labels = read_xc(file)
        else:
            if n_samples is None or support is None:
                raise ValueError(
                    f"{path}: the reference text format needs --n-samples and --support"
                )
            points = read_ranked_lists(
                file, n_samples=n_samples, support=support, zero_division=zero_division
            )
            return ThresholdProblem(points, None, None, f"{path} (ranked lists)")
        desc = str(path) if labels_file is None else f"{path} (scores), {labels_file} (labels)"
    with about_file(path or "bundled Corel5k scores"):
        points = class_points(scores, labels, zero_division=zero_division)
    return ThresholdProblem(points, scores, labels, desc, names)


def run_methods(
    problem: ThresholdProblem,
    methods: tuple[str, ...],
    *,
    beta: float,
    n_angles: int | None = 64,
    progress: Callable[[str], None] | None = None,
    time_limit: float | None = None,
    prior: Any = 3.0,
    limits: Mapping[str, Any] | None = None,
    mix: float = 0.5,
) -> list[tuple[ThresholdResult, float]]:
    """Run each method, returning ``(result, seconds)`` pairs in order.

    ``time_limit`` (seconds) stops ``exact``'s search (best found, valid bound).
    ``limits``: per-class constraints (``min_precision``, ``max_predicted_rate``); the
    methods that cannot take them are skipped, as are those needing scores without them.
    """
    out = []
    for name in methods:
        if skipped_method(name, problem, limits):
            continue
        if progress is not None:
            progress(name)
        # the table shows labels per object, so the predict-everything warning is silenced
        call = method_call(
            name,
            problem.points,
            problem.scores,
            problem.labels,
            beta=beta,
            n_angles=n_angles,
            time_limit=time_limit,
            prior=prior,
            limits=limits,
            mix=mix,
        )
        result, seconds = timed(call)
        if problem.classes is not None:  # the file's names go into reports and saved files
            result = result.with_classes(problem.classes)
        out.append((result, seconds))
    return out


def certificate_status(result: ThresholdResult) -> str:
    """``"optimal"`` (proven, gap 0), ``"time_limit"`` (search stopped; the gap is proven),
    ``"bounded"`` (a proven gap > 0) or ``"no_bound"``."""
    if result.diagnostics.get("status") == "time_limit":
        return "time_limit"
    if math.isnan(result.gap):
        return "no_bound"
    return "optimal" if result.gap <= 0.0 else "bounded"


def _interval_cells(interval: dict[str, Any] | None) -> tuple[Any, str]:
    """The predicted F and ``low-high`` of a row, or ``-`` for a method without them."""
    if interval is None:
        return math.nan, "-"
    return interval["estimate"], f"{interval['low']:.4f}-{interval['high']:.4f}"


def _gap_cell(gap: float, status: str) -> Any:
    if status == "optimal":
        return "optimal"
    if status == "time_limit":
        return f"{gap:.4f} (time limit)"
    return gap


def macro_f_of(result: ThresholdResult, points: ClassPoints) -> float:
    """Mean of per-class F_beta at the result's cuts (nan for per-object rules such as top_k)."""
    cuts = np.asarray(result.cuts)
    if cuts.size != points.n_classes or (cuts < 0).any():
        return math.nan
    at = points.indptr[:-1] + points.local_cuts(cuts)
    p = points.precision[at]
    r = points.recall[at]
    return mean_defined(f_beta_from_pr(p, r, result.beta)) if p.size else math.nan


def labels_per_object(result: ThresholdResult, problem: ThresholdProblem) -> float:
    """Mean number of labels per tuning object that a result predicts: from its tuning
    counts, else from its predictions on the tuning scores (``top_k``); NaN for ranked
    lists without them."""
    value = result.labels_per_object
    if math.isnan(value) and problem.scores is not None:
        predicted = result.apply(problem.scores)
        value = np.count_nonzero(predicted) / predicted.shape[0]
    return float(value)


def true_labels_per_object(points: ClassPoints) -> float:
    """Mean number of true labels per tuning object (every class column)."""
    return float(np.sum(points.support) / points.n_samples)


def register(subparsers: Any) -> None:
    from fmacro.cli import add_common_options, int_option

    p = subparsers.add_parser(
        "thresholds",
        help="search per-class thresholds maximizing F-macro (with certificates)",
        description=(
            "Search score thresholds maximizing F-macro = F_beta(macro P, macro R) with every "
            "method, and print F-macro, P, R, macro-F, the certified upper bound and the gap. "
            "Without FILE, uses bundled Corel5k test-set rankings."
        ),
    )
    p.add_argument(
        "file",
        nargs="?",
        help=".npz (scores, labels, classes), XC/svmlight, ranked-list text, or scores in "
        ".csv/.tsv/.parquet/.npy with --labels",
    )
    p.add_argument(
        "--labels",
        metavar="FILE",
        help="0/1 labels of FILE's scores (.csv/.tsv/.parquet/.npz/.npy, objects x classes); "
        "columns paired with the scores' by class name when both files name them",
    )
    p.add_argument(
        "--method",
        action="append",
        choices=METHODS + EXTRA_METHODS,
        help="method to run (repeat for several; default: all but micro_macro, which "
        "maximizes --mix x micro-F + (1 - --mix) x macro-F)",
    )
    p.add_argument(
        "--n-angles",
        type=int_option(3),
        default=64,
        help="directions for domain (default 64)",
    )
    p.add_argument(
        "--time-limit",
        type=float,
        metavar="SECONDS",
        help="stop the exact search (exact, fixed_point) after this long (best found and its "
        "proven gap)",
    )
    p.add_argument(
        "--prior",
        type=_prior,
        default=3.0,
        help="pseudo-count of tune (default 3; 0 = raw in-sample points; 'cv' = by CV)",
    )
    p.add_argument(
        "--test",
        metavar="FILE",
        help="held-out scores and labels (.npz or XC/svmlight; or scores in .csv/.tsv/"
        ".parquet/.npy with --test-labels): print held-out F per method",
    )
    p.add_argument(
        "--test-labels",
        metavar="FILE",
        help="0/1 labels of the --test scores, as --labels",
    )
    p.add_argument(
        "--interval",
        type=_level,
        metavar="LEVEL",
        help=(
            "predict from the tuning file, for each method that supports it (tune, "
            "fixed_point, exact, per_class, cyclic, global_threshold, proportional), the "
            "F-macro its thresholds reach on a new batch of the --test file's size (else "
            "the tuning file's) and an interval at this level, e.g. 0.95 "
            "(optimize.held_out_interval: bootstrap refits; needs scores, not ranked lists; "
            "with --test, tune is tuned for that batch size)"
        ),
    )
    p.add_argument(
        "--resamples",
        type=int_option(20),
        default=50,
        help="bootstrap resamples (threshold refits) per method for --interval (default 50)",
    )
    p.add_argument(
        "--seed",
        type=int_option(0),
        default=0,
        help="seed of the --interval resamples (default 0)",
    )
    p.add_argument(
        "--n-samples",
        type=int_option(1),
        help="number of objects (ranked-list text format; at most 2^63 - 1)",
    )
    p.add_argument("--support", help="file of 'class_id size' lines (ranked-list text format)")
    p.add_argument("--plot", metavar="DIR", help="write PNG plots to DIR (needs matplotlib)")
    p.add_argument(
        "--save",
        metavar="FILE",
        help=(
            "save the first method's thresholds (the table's top row): .json (method, beta, "
            "zero_division, certificate; for 'fmacro apply') or .npy (thresholds only); "
            "not one of the input files"
        ),
    )
    p.add_argument(
        "--min-precision",
        type=_share,
        metavar="P",
        help="each class's threshold keeps a tuning precision of at least P (0-1); the "
        "methods that cannot take it (global_threshold, proportional, top_k) are skipped",
    )
    p.add_argument(
        "--max-predicted-rate",
        type=_share,
        metavar="R",
        help="each class's threshold predicts at most a share R (0-1) of the tuning rows",
    )
    p.add_argument(
        "--max-rate-factor",
        type=_factor,
        metavar="C",
        help="each class predicts at most C times its tuning base rate (so at most C times "
        "the true labels per object); not with --max-predicted-rate",
    )
    p.add_argument(
        "--mix",
        type=_share,
        default=0.5,
        help="micro_macro's weight of micro-F, 0-1 (default 0.5)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress display")
    add_common_options(p)
    p.set_defaults(run=run)


_share = float_option(lambda v: 0.0 <= v <= 1.0, "a number in [0, 1]")
_factor = float_option(lambda v: math.isfinite(v) and v > 0.0, "a number > 0")
_level = float_option(lambda v: 0.0 < v < 1.0, "a number in (0, 1)")


def _prior(text: str) -> float | str:
    if text == "cv":
        return text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number >= 0 or 'cv', got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a number >= 0 or 'cv', got {text!r}")
    return value


_LIMIT_OPTIONS = ("min_precision", "max_predicted_rate", "max_rate_factor")


def _describe_limits(args: argparse.Namespace) -> str:
    parts = []
    if args.min_precision is not None:
        parts.append(f"precision >= {args.min_precision:g}")
    if args.max_predicted_rate is not None:
        parts.append(f"predicted share <= {args.max_predicted_rate:g}")
    if args.max_rate_factor is not None:
        parts.append(f"predicted share <= {args.max_rate_factor:g} x its base rate")
    return ", ".join(parts)


def constraints_of(args: argparse.Namespace, points: ClassPoints) -> dict[str, Any]:
    """The search options of ``--min-precision``, ``--max-predicted-rate`` and
    ``--max-rate-factor`` (rates from the tuning ``points``); empty when none is given."""
    from fmacro.optimize.search.constraints import capped_rates

    out: dict[str, Any] = {}
    if args.min_precision is not None:
        out["min_precision"] = args.min_precision
    if args.max_predicted_rate is not None:
        out["max_predicted_rate"] = args.max_predicted_rate
    if args.max_rate_factor is not None:
        rates = np.zeros(points.n_columns)
        rates[points.class_index] = np.asarray(points.support) / float(points.n_samples)
        out["max_predicted_rate"] = capped_rates(rates, args.max_rate_factor)
    return out


def held_out_intervals(
    problem: ThresholdProblem,
    results: list[tuple[ThresholdResult, float]],
    args: argparse.Namespace,
    n_eval: int | None,
    bar: Any,
) -> dict[int, Any]:
    """``optimize.held_out_interval`` for each result whose method it runs, by position.

    A ``tune`` row's result is replaced by the interval's (tuned for ``n_eval`` when a
    test file gives it), so the row shows the thresholds the interval is for.
    """
    from fmacro.optimize.uncertainty import METHODS as INTERVAL_METHODS
    from fmacro.optimize.uncertainty import held_out_interval

    if problem.scores is None:
        raise ValueError("--interval needs scores and labels, not ranked lists")
    chosen = [i for i, (r, _) in enumerate(results) if r.method in INTERVAL_METHODS]
    intervals: dict[int, Any] = {}
    for i in chosen:
        method = results[i][0].method
        bar.advance(0, note=f"--interval: {method}")  # on the command's bar, not a count
        options: dict[str, Any] = {"beta": args.beta, "zero_division": args.zero_division}
        if method == "tune":
            options["prior"] = args.prior
        elif method in ("exact", "fixed_point") and args.time_limit is not None:
            options["time_limit"] = args.time_limit
        options.update(constraints_of(args, problem.points))
        start = time.perf_counter()
        found = quiet(held_out_interval)(
            problem.scores,
            problem.labels,
            level=args.interval,
            n_eval=n_eval,
            method=method,
            n_resamples=args.resamples,
            seed=args.seed,
            **options,
        )
        intervals[i] = (found, time.perf_counter() - start)
        if method == "tune":
            tuned = found.result
            if problem.classes is not None:
                tuned = tuned.with_classes(problem.classes)
            results[i] = (tuned, results[i][1])
    return intervals


def load_test(
    path: str,
    n_columns: int,
    labels: str | None = None,
    names: ColumnNames | None = None,
) -> tuple[Any, Any]:
    """Held-out ``(scores, labels)`` with ``n_columns`` columns.

    From ``.npz`` or XC/svmlight, or scores in CSV, parquet or ``.npy`` with a ``labels``
    file. When both the test files and the tuning files (``names``) name their classes,
    the test columns are taken in the tuning order by name; other names are refused.
    """
    from fmacro.optimize.io import read_xc
    from fmacro.optimize.score_files import NAMED_SUFFIXES, column_order, read_scores

    file = checked_path(path)
    suffix = file.suffix.lower()
    if labels is not None and suffix not in NAMED_SUFFIXES:
        raise ValueError(
            f"{path}: --test-labels goes with --test scores in {', '.join(NAMED_SUFFIXES)} files"
        )
    if suffix in NAMED_SUFFIXES:
        read = read_scores(file, labels)
        scores, labels_read = read.scores, read.labels
        if names is not None and read.names is not None:
            # test columns in the tuning order, by name (refused naming both files if not)
            columns = column_order(names, read.names)
            if columns != list(range(len(columns))):
                scores, labels_read = scores[:, columns], labels_read[:, columns]
        return _check_width(path, scores, n_columns), labels_read
    if suffix in (".svm", ".svmlight", ".xc", ".libsvm"):
        scores, labels_out = read_xc(file)
    else:
        raise ValueError(
            f"{path}: --test needs .npz, XC/svmlight, or scores in .csv/.tsv/.parquet/.npy "
            "with --test-labels"
        )
    return _check_width(path, scores, n_columns), labels_out


def _check_width(path: str, scores: Any, n_columns: int) -> Any:
    if scores.shape[1] != n_columns:
        raise ValueError(
            f"{path}: {scores.shape[1]} class columns, the tuning rankings have {n_columns}"
        )
    return scores


def _check_outputs(args: argparse.Namespace) -> None:
    """Refuse a bad ``--save`` or ``--plot`` before the search, not after it."""
    from pathlib import Path

    if args.plot and Path(args.plot).exists() and not Path(args.plot).is_dir():
        raise ValueError(f"{args.plot}: --plot needs a folder, and this is a file")
    if not args.save:
        return

    suffix = Path(args.save).suffix.lower()
    if suffix not in (".json", ".npy"):
        raise ValueError(f"{args.save}: save thresholds as .json or .npy, got {suffix!r}")
    inputs = (args.file, args.test, args.support, args.labels, args.test_labels)
    save = check_output_path(args.save, inputs, "--save")
    writable = os.access(save, os.W_OK) if save.exists() else os.access(save.parent, os.W_OK)
    if not writable:
        raise ValueError(f"{args.save}: --save cannot write there (permission denied)")


def held_out(
    result: ThresholdResult, scores: Any, labels: Any, beta: float, zd: float
) -> tuple[float, float]:
    """Held-out (F-macro, macro-F) of a result's rule, over the classes with a positive."""
    ev = held_out_evaluation(result, scores, labels, beta=beta, zero_division=zd)
    return ev.f, ev.macro_f


def kernels_cached() -> bool:
    """Whether numba's disk cache holds search kernels of fmacro (compiled by an earlier run).

    Cheap (one directory listing, nothing compiled): numba keeps the cache of the kernels
    of ``optimize/search`` in one folder, where a run that compiled any of them left index
    files (``*.nbi``). ``False`` means a first run (a new environment or an emptied cache);
    when numba's internals differ, ``True`` (say nothing rather than something wrong).
    """
    from pathlib import Path

    from fmacro.optimize.search import cut_tables

    try:
        dispatcher: Any = cut_tables.sorted_cuts
        return any(Path(dispatcher._cache._cache_path).glob("*.nbi"))
    except Exception:  # not numba's dispatcher, or its cache internals changed
        return True


#: Fewest elements at which interpreting a kernel costs as much as compiling it (the
#: smallest break-even of benchmarks/results_startup.md, 93,325): smaller searches are
#: interpreted by fmacro.validation.dispatch and compile nothing.
COMPILE_MIN_ELEMENTS = 90_000
#: Shown beside the phase in the progress display when :func:`may_compile` is True.
COMPILING = "first run: compiling kernels (cached afterwards)"


def may_compile(n_elements: int) -> bool:
    """Whether a search over ``n_elements`` points may compile kernels: large enough for
    the dispatch to compile, and nothing compiled into numba's cache yet."""
    return n_elements >= COMPILE_MIN_ELEMENTS and not kernels_cached()


def run(args: argparse.Namespace) -> int:
    from fmacro.validation.progress import Progress

    if args.plot:  # say so before searching, not after
        from fmacro.optimize.plot import INSTALL_HINT

        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise ImportError(INSTALL_HINT) from None
    methods = tuple(args.method) if args.method else METHODS
    if args.labels and not args.file:
        raise ValueError(f"--labels {args.labels} goes with a scores FILE")
    if args.test_labels and not args.test:
        raise ValueError(f"--test-labels {args.test_labels} goes with --test SCORES")
    if args.max_predicted_rate is not None and args.max_rate_factor is not None:
        raise ValueError("give --max-predicted-rate or --max-rate-factor, not both")
    _check_outputs(args)
    # Phases: load, one step per method, then (--test) load and one step per method. Each
    # is drawn as it starts (min_interval=0): they are few, and a search may take a while.
    steps = 1 + len(methods) + (1 + len(methods) if args.test else 0)
    with Progress(steps, "thresholds", enabled=not args.quiet, min_interval=0.0) as bar:
        return _run(args, methods, bar)


def _run(args: argparse.Namespace, methods: tuple[str, ...], bar: Any) -> int:
    from fmacro.cli import dump_json
    from fmacro.validation.names import describe_names, names_to_json

    bar.advance(0, note=f"load {args.file or 'bundled Corel5k scores'}")
    problem = load_problem(
        args.file,
        zero_division=args.zero_division,
        n_samples=args.n_samples,
        support=args.support,
        labels=args.labels,
    )
    limits = constraints_of(args, problem.points)
    bar.advance()
    size = int(problem.points.tp.size)  # every cut of every class: the searches' work
    compiling = f"; {COMPILING}" if bar.active and may_compile(size) else ""
    started: list[str] = []

    def step(name: str) -> None:
        bar.advance(1 if started else 0, note=f"search: {name}{compiling}")
        started.append(name)

    results = []
    for result, seconds in run_methods(
        problem,
        methods,
        beta=args.beta,
        n_angles=args.n_angles,
        progress=step,
        time_limit=args.time_limit,
        prior=args.prior,
        limits=limits,
        mix=args.mix,
    ):
        results.append((result, seconds))
    bar.advance(len(methods) - max(len(started) - 1, 0))  # the last method, and skipped ones
    skipped = [m for m in methods if skipped_method(m, problem, limits)]
    if args.test:
        bar.advance(0, note=f"--test: load {args.test}")
        test = load_test(args.test, problem.points.n_columns, args.test_labels, problem.names)
        bar.advance(1 + len(methods) - len(results))  # skipped methods have no test step
    else:
        test = None
    intervals: dict[int, Any] = {}
    if args.interval is not None:
        n_eval = int(test[0].shape[0]) if test is not None else None
        intervals = held_out_intervals(problem, results, args, n_eval, bar)
    rows: list[dict[str, Any]] = []
    true_labels = true_labels_per_object(problem.points)
    for position, (result, seconds) in enumerate(results):
        extra: dict[str, Any] = {}
        if test is not None:
            bar.advance(0, note=f"--test: {result.method}")
            with about_file(args.test):
                tf, tmf = held_out(result, *test, args.beta, args.zero_division)
            extra = {"test_f_macro": tf, "test_macro_f": tmf}
            bar.advance()
        if position in intervals:
            found, interval_seconds = intervals[position]
            extra["interval"] = {
                "level": found.level,
                "estimate": found.estimate,
                "low": found.low,
                "high": found.high,
                "n_eval": found.n_eval,
                "n_resamples": found.n_resamples,
                "seed": found.seed,
                "correction": found.correction,
                "seconds": interval_seconds,
            }
            if test is not None:
                extra["test_in_interval"] = bool(found.low <= extra["test_f_macro"] <= found.high)
        if result.method == "tune":
            d = result.diagnostics
            extra.update(
                prior=d["prior"],
                n_eval=d["n_eval"],
                smoothed_f=d["smoothed_f"],
                smoothed_upper_bound=d["smoothed_upper_bound"],
                smoothed_gap=d["smoothed_gap"],
            )
        rows.append(
            {
                "method": result.method,
                "f_macro": result.f,
                "precision": result.precision,
                "recall": result.recall,
                "macro_f": macro_f_of(result, problem.points),
                "upper_bound": result.upper_bound,
                "gap": result.gap,
                "status": certificate_status(result),
                "seconds": seconds,
                "labels_per_object": labels_per_object(result, problem),
                "true_labels_per_object": true_labels,
                **extra,
                # the --save record (ThresholdResult.from_dict reads it): thresholds, classes
                "record": result.to_dict(),
            }
        )
    if args.save and results:
        results[0][0].save(args.save)
    if args.plot:
        from fmacro.optimize.plot import save_threshold_plots

        written = save_threshold_plots(problem.points, results, args.plot, beta=args.beta)
    else:
        written = []
    bar.close()  # the display ends before the report starts
    classes = problem.classes
    if args.json:
        print(
            dump_json(
                {
                    "source": problem.source,
                    "beta": args.beta,
                    "zero_division": args.zero_division,
                    "n_classes": problem.points.n_classes,
                    "classes": None if classes is None else names_to_json(classes),
                    "results": rows,
                    "skipped": skipped,
                    "constraints": {k: getattr(args, k) for k in _LIMIT_OPTIONS},
                    "plots": [str(w) for w in written],
                }
            )
        )
        return 0
    print(f"# {problem.source}")
    print(
        f"# {problem.points.n_classes} classes with positives, beta={args.beta:g}, "
        f"zero_division={args.zero_division}, true labels per object {true_labels:.4f}"
    )
    if classes is not None and problem.names is not None:
        print(f"# classes named by {problem.names.file}: {describe_names(classes, 8)}")
    if limits:
        print(f"# per-class constraints on the tuning rows: {_describe_limits(args)}")
    header: tuple[str, ...] = (
        "method",
        "F-macro",
        "P",
        "R",
        "macro-F",
        "upper bound",
        "gap",
        "time [s]",
        "labels/object",
    )
    if test is not None:
        header = ("method", "test F-macro", "test macro-F", *header[1:])
    if intervals:
        level = f"{100 * args.interval:g}%"
        header = (header[0], "predicted F", f"{level} interval", *header[1:])
    table = [
        (
            r["method"],
            *(_interval_cells(r.get("interval")) if intervals else ()),
            *((r["test_f_macro"], r["test_macro_f"]) if test is not None else ()),
            r["f_macro"],
            r["precision"],
            r["recall"],
            r["macro_f"],
            r["upper_bound"],
            _gap_cell(r["gap"], r["status"]),
            f"{r['seconds']:.3f}",
            r["labels_per_object"],
        )
        for r in rows
    ]
    print(format_table(header, table).replace(" nan", "   -"))
    print(
        "F-macro = F of (macro P, macro R); macro-F = mean of per-class F. The upper bound "
        "is proven: no thresholds on these rankings reach a higher F-macro (gap 'optimal': "
        "proven optimal, gap 0; fixed_point and exact give that in-sample optimum). tune "
        "chooses thresholds for new data (smoothed points; its certificate for the smoothed "
        "objective is in the JSON diagnostics), so its in-sample F-macro is lower by design"
        + ("; compare the test columns." if test is not None else "; see --test.")
        + " labels/object: mean number of classes the thresholds predict per tuning object."
    )
    if intervals:
        batch = "the test file's" if test is not None else "the tuning file's"
        print(
            f"predicted F, interval: the F-macro each method's thresholds are predicted to "
            f"reach on a new batch of {batch} size ({next(iter(intervals.values()))[0].n_eval} "
            f"objects), from bootstrap refits on the tuning file ({args.resamples} resamples, "
            "seed "
            f"{args.seed}; optimize.held_out_interval): an interval for these thresholds on "
            "new data, not for the model at other thresholds."
        )
    if skipped:
        why = "take no per-class constraints" if limits else "need scores, not ranked lists"
        print(f"skipped ({why}): {', '.join(skipped)}")
    for w in written:
        print(f"wrote {w}")
    if args.save and results:
        print(f"saved the {results[0][0].method} thresholds to {args.save}")
    return 0
