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
_SUBCOMMAND_MODULES = ("fmacro.cli.thresholds", "fmacro.cli.apply", "fmacro.cli.fdelta")


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
            "the scene test set (bundled). Files: .npy, .csv or .tsv; one column of labels, "
            "or a 0/1 indicator matrix for multi-label data."
        ),
    )
    p.add_argument("expected", nargs="?", help="file of expected labels")
    p.add_argument("predicted", nargs="?", help="file of predicted labels")
    p.add_argument(
        "--kind",
        choices=("binary", "multiclass", "multilabel"),
        help="override the inferred problem kind",
    )
    p.add_argument("--positive", default="1", help="positive label for binary data (default 1)")
    add_common_options(p)
    p.set_defaults(run=_run_evaluate)


def _run_evaluate(args: argparse.Namespace) -> int:
    from fmacro.validation.io import read_labels, read_prediction_pairs, validation_for

    if (args.expected is None) != (args.predicted is None):
        raise ValueError("give both EXPECTED and PREDICTED files, or neither for the bundled demo")
    if args.expected is None:
        source = resources.files("fmacro.validation") / "data" / "scene_predictions.csv"
        with resources.as_file(source) as path:
            expected, predicted = read_prediction_pairs(path)
        title = "scene test set (bundled): ridge classifier, single-label images"
    else:
        expected, predicted = read_labels(args.expected), read_labels(args.predicted)
        title = f"{args.expected} vs {args.predicted}"
    positive: Any = int(args.positive) if args.positive.lstrip("-").isdigit() else args.positive
    v = validation_for(
        expected,
        predicted,
        args.kind,
        beta=args.beta,
        zero_division=args.zero_division,
        positive=positive,
    )
    if args.json:
        print(dump_json({"source": title, **v.summary()}))
    else:
        print(f"# {title}")
        print(v.report())
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
    except (ValueError, TypeError, FileNotFoundError, ImportError) as exc:
        print(f"fmacro {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
