"""The ``fmacro`` command line.

Subcommands: ``evaluate`` (a classification report from label files, or from the bundled
scene predictions), and those registered by other modules (``thresholds``, ``fdelta``).
Exit codes: 0 success, 2 bad input (a clear message on stderr), 1 an unexpected error.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import sys
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Any

__all__ = ["build_parser", "main"]

# Modules that add a subcommand: each has register(subparsers) and run(args) -> int.
_SUBCOMMAND_MODULES = (
    "fmacro.cli.thresholds",
    "fmacro.cli.apply",
    "fmacro.cli.fdelta",
    "fmacro.cli.compare",
)


def _zero_division(text: str) -> float:
    from fmacro.validation.checks import check_zero_division

    try:
        return check_zero_division(text if text.lower() == "nan" else float(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a finite number > 0, got {text!r}")
    return value


INT64_MAX = 2**63 - 1


def int_option(minimum: int = 0, maximum: int | None = INT64_MAX) -> Callable[[str], int]:
    """An argparse ``type`` for an integer option in ``[minimum, maximum]``.

    ``maximum`` defaults to the largest int64: fmacro's counts are int64 arrays, so a larger
    value is refused here with the option named instead of overflowing later.
    """

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected an integer >= {minimum}, got {text!r}")
        if maximum is not None and value > maximum:
            limit = "2^63 - 1" if maximum == INT64_MAX else str(maximum)
            raise argparse.ArgumentTypeError(f"{text} is too large (at most {limit})")
        return value

    parse.__name__ = "integer"  # argparse names the type in its messages
    return parse


def float_option(valid: Callable[[float], bool], expected: str) -> Callable[[str], float]:
    """An argparse ``type`` for a number that ``valid`` accepts (NaN is passed to it too);
    refusals read "must be ``expected``, got 'text'"."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {expected}, got {text!r}") from None
        if not valid(value):
            raise argparse.ArgumentTypeError(f"must be {expected}, got {text!r}")
        return value

    parse.__name__ = "number"  # argparse names the type in its messages
    return parse


def add_common_options(parser: argparse.ArgumentParser) -> None:
    """Options every scoring subcommand shares."""
    parser.add_argument(
        "--beta", type=_positive_float, default=1.0, help="F_beta weight (default 1)"
    )
    parser.add_argument(
        "--zero-division",
        type=_zero_division,
        default=0.0,
        metavar="{0,1,nan}",
        help="value of 0/0 ratios; nan leaves undefined classes out of averages (default 0)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def json_default(value: Any) -> Any:
    """JSON encoder fallback for numpy scalars and arrays."""
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


def dump_json(payload: Any) -> str:
    # NaN is written as null: JSON has no NaN.
    def clean(x: Any) -> Any:
        if isinstance(x, float) and math.isnan(x):
            return None
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [clean(v) for v in x]
        return x

    return json.dumps(clean(payload), indent=2, default=json_default)


def _register_evaluate(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "evaluate",
        help="classification report from expected and predicted label files",
        description=(
            "Report precision, recall and F per class with micro, macro, weighted and "
            "F-macro averages. Without files, reports a ridge classifier's predictions on "
            "the scene test set (bundled); with one file, reads expected and predicted from "
            "its two columns (or a .npz's 'expected'/'labels' and 'predicted' arrays)."
        ),
        epilog=(
            "Files: .npy, .npz or text (.csv/.tsv/.txt): UTF-8 with or without a byte-order "
            "mark, or UTF-16; delimiter , ; tab (or spaces between numbers) sniffed; one "
            "label per line, or a 0/1 indicator matrix for multi-label data. A header line "
            "is recognised (text above numbers, a name such as y_true/y_pred/label, or an "
            "empty first field with pandas' index column, which is dropped); --header and "
            "--no-header force it. Labels are numbers when every label of both files is an "
            "integer (parsed exactly), otherwise text compared as written. Blank lines "
            "inside the data, empty fields and nan are refused. Full rules: the glossary "
            "(docs/glossary.md, 'Label files'). Indicator matrices whose files both name their "
            "columns (a header; the classes of an npz written by 'fmacro apply') are paired "
            "by name: the same names in another order are matched, different names refused. "
            "When only one file names them, the other is taken to list the classes in the "
            "same order (paired by position; both must have as many columns). A header line "
            "whose fields are all quoted, over unquoted numbers, is a header whatever it "
            'holds ("0","1" included): that is how \'fmacro apply -o pred.csv\' writes '
            "class names."
        ),
    )
    p.add_argument("expected", nargs="?", help="file of expected labels (or of both columns)")
    p.add_argument("predicted", nargs="?", help="file of predicted labels")
    p.add_argument(
        "--kind",
        choices=("binary", "multiclass", "multilabel"),
        help="override the inferred problem kind",
    )
    p.add_argument(
        "--positive",
        default=None,
        help="positive label of binary data (default 1); implies --kind binary for labels "
        "of two values",
    )
    header = p.add_mutually_exclusive_group()
    header.add_argument(
        "--header",
        dest="header",
        action="store_const",
        const=True,
        default=None,
        help="the first line of each text file is a header",
    )
    header.add_argument(
        "--no-header",
        dest="header",
        action="store_const",
        const=False,
        help="the first line of each text file is data",
    )
    add_common_options(p)
    add_bootstrap_options(p)
    p.add_argument(
        "--ci",
        type=_level,
        default=None,
        metavar="LEVEL",
        help="also give bootstrap percentile intervals at this level, e.g. 0.95 (see "
        "docs/uncertainty.md)",
    )
    p.set_defaults(run=_run_evaluate)


def _level(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a level such as 0.95, got {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a level in (0, 1) such as 0.95, got {text!r}")
    return value


def add_bootstrap_options(parser: argparse.ArgumentParser) -> None:
    """``--resamples`` and ``--seed`` of the commands that bootstrap (evaluate, compare)."""
    parser.add_argument(
        "--resamples",
        type=int_option(2, 10**7),
        default=1000,
        metavar="B",
        help="bootstrap resamples (default 1000)",
    )
    parser.add_argument(
        "--seed",
        type=int_option(0, 2**64 - 1),
        default=None,
        help="seed of the resamples (default: drawn at random and reported)",
    )


def interval_rows(boot: Any, level: float) -> list[tuple[Any, ...]]:
    """Rows (measure, estimate, low, high) of a bootstrap's scalar measures, then per class."""
    from fmacro.validation.bootstrap import measure_names

    rows: list[tuple[Any, ...]] = []
    for name in measure_names(boot.kind, per_class=False):
        low, high = boot.interval(name, level)
        rows.append((name, boot.estimate(name), low, high))
    if boot.kind != "binary":
        low, high = boot.interval("per_class_f", level)
        estimate = boot.estimate("per_class_f")
        for j, label in enumerate(boot.class_labels):
            rows.append((f"F of {label}", float(estimate[j]), float(low[j]), float(high[j])))
    return rows


def interval_report(boot: Any, level: float, digits: int = 4) -> str:
    """A table of each measure with its bootstrap interval, and how it was computed."""
    from fmacro.validation.report import format_table

    head = (
        f"bootstrap: {boot.n_resamples} {boot.method} resamples, seed {boot.seed}, "
        f"{level:g} percentile intervals"
    )
    table = format_table(
        ("measure", "value", f"low ({level:g})", f"high ({level:g})"),
        interval_rows(boot, level),
        digits,
    )
    return head + "\n" + table


def _positive_label(text: str | None, expected: Any) -> Any:
    """``--positive`` in the type of the labels (exact integer, or the text as written)."""
    from fmacro.validation.labels import coerce_labels, label_kind

    if text is None:
        return 1
    if label_kind(coerce_labels(expected, name="expected")) != "number":
        return text
    try:
        return int(text)
    except ValueError:
        raise ValueError(
            f"--positive {text!r} is not a label of these files, whose labels are integers"
        ) from None


def _kind(args: argparse.Namespace, expected: Any, predicted: Any) -> Any:
    from fmacro.validation.io import infer_kind

    if args.positive is None:
        return args.kind
    if args.kind not in (None, "binary"):
        raise ValueError(f"--positive applies to --kind binary only, not {args.kind}")
    if args.kind is None:
        import numpy as np

        e, p = np.asarray(expected, dtype=object), np.asarray(predicted, dtype=object)
        if e.ndim != 1 or p.ndim != 1:
            raise ValueError("--positive applies to binary labels, not an indicator matrix")
        values = set(e.tolist()) | set(p.tolist())
        if len(values) > 2:
            raise ValueError(
                f"--positive applies to binary data, but the files hold {len(values)} labels "
                f"({infer_kind(expected, predicted)} data); drop --positive"
            )
    return "binary"


def _run_evaluate(args: argparse.Namespace) -> int:
    import numpy as np

    from fmacro.validation.io import read_label_pair, validation_for

    if args.expected is None:
        source = resources.files("fmacro.validation") / "data" / "scene_predictions.csv"
        with resources.as_file(source) as path:
            pair = read_label_pair(path)
        title = "scene test set (bundled): ridge classifier, single-label images"
    elif args.predicted is None:
        pair = read_label_pair(args.expected, header=args.header)
        title = f"{args.expected} (expected, predicted)"
    else:
        pair = read_label_pair(args.expected, args.predicted, header=args.header)
        title = f"{args.expected} vs {args.predicted}"
    expected, predicted = pair.expected, pair.predicted
    kind = _kind(args, expected, predicted)
    if args.expected is not None and args.predicted is None:
        names = (f"{args.expected} (expected)", f"{args.expected} (predicted)")
    else:
        names = (args.expected or "expected", args.predicted or "predicted")
    shapes: list[tuple[int, ...]] = [tuple(np.shape(x)) for x in (expected, predicted)]
    is_matrix = [len(s) == 2 and s[1] > 1 for s in shapes]
    if kind in (None, "multilabel") and is_matrix[0] != is_matrix[1]:
        m = 0 if is_matrix[0] else 1
        raise ValueError(
            f"{names[m]} holds a {shapes[m][0]} x {shapes[m][1]} indicator matrix but "
            f"{names[1 - m]} one label per line"
        )
    if kind == "multilabel" and not is_matrix[0]:
        raise ValueError(
            f"--kind multilabel needs 0/1 indicator matrices; {names[0]} holds one label per line"
        )
    if kind in ("binary", "multiclass"):
        for name, labels in zip(names, (expected, predicted), strict=True):
            if getattr(labels, "ndim", 1) == 2 and labels.shape[0] == 1 < labels.shape[1]:
                raise ValueError(
                    f"{name}: a (1, n) row is not a label vector; save a 1-D array or an "
                    "(n, 1) column"
                )
            if getattr(labels, "ndim", 1) == 2 and labels.shape[1] > 1:
                raise ValueError(
                    f"{name}: a {labels.shape[0]} x {labels.shape[1]} indicator "
                    f"matrix is multi-label data, not {kind} labels (drop --kind {kind})"
                )
    v = validation_for(
        expected,
        predicted,
        kind,
        beta=args.beta,
        zero_division=args.zero_division,
        positive=_positive_label(args.positive, expected) if kind == "binary" else 1,
        classes=pair.classes,
        keep_outcomes=args.ci is not None,  # the intervals resample each object's outcome
    )
    boot = None
    if args.ci is not None:
        boot = v.bootstrap(args.resamples, seed=args.seed)
    if args.json:
        record = {"source": title, **v.to_dict()}
        if boot is not None:
            record["intervals"] = boot.to_dict(args.ci)
        print(json.dumps(record, indent=2))
    else:
        print(f"# {title}")
        print(v.report())
        if boot is not None:
            print()
            print(interval_report(boot, args.ci))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fmacro",
        description="Evaluate classifiers and optimize F-measures (F-macro, macro-F, F-beta).",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    _register_evaluate(subparsers)
    for name in _SUBCOMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("fmacro")
    except PackageNotFoundError:
        return "unknown"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``fmacro`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    run: Callable[[argparse.Namespace], int] | None = getattr(args, "run", None)
    if run is None:
        parser.print_help()
        return 0
    try:
        return run(args)
    except BrokenPipeError:
        return 0
    except (ValueError, TypeError, OSError, EOFError, ImportError) as exc:
        # One line: the readers name the file (and line); never a traceback for bad input.
        message = " ".join(str(exc).split("\n"))
        print(f"fmacro {args.command}: error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
