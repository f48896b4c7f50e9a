"""``fmacro compare EXPECTED A B``: is prediction file A better than B on the same objects?

The paired bootstrap of :func:`fmacro.validation.compare.compare`: both prediction files
are validated against the expected labels and resampled with the same resamples; the
difference A - B of the measure gets a percentile interval and a two-sided p-value.
Files as in ``fmacro evaluate`` (same formats, same label rules).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import numpy as np

from fmacro.cli import add_bootstrap_options, add_common_options

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "compare",
        help="paired bootstrap comparison of two prediction files against expected labels",
        description=(
            "Validate two prediction files of the same objects against the expected labels "
            "and compare a measure (default F-macro) with a paired bootstrap: both are "
            "resampled with the same resamples. Prints both values, the difference A - B, "
            "its percentile interval and a two-sided p-value of no difference."
        ),
        epilog="Files: as in 'fmacro evaluate' (see its --help and docs/glossary.md).",
    )
    p.add_argument("expected", help="file of expected labels")
    p.add_argument("predicted_a", metavar="A", help="file of model A's predicted labels")
    p.add_argument("predicted_b", metavar="B", help="file of model B's predicted labels")
    p.add_argument(
        "--measure",
        default="f_macro",
        help="measure to compare (default f_macro; binary: f1, f_beta, precision, ...)",
    )
    p.add_argument(
        "--kind",
        choices=("binary", "multiclass", "multilabel"),
        help="override the inferred problem kind (default: multilabel for indicator "
        "matrices, binary with --positive, else multiclass)",
    )
    p.add_argument("--positive", default=None, help="positive label (implies --kind binary)")
    p.add_argument("--level", type=float, default=0.95, help="level of the interval (default 0.95)")
    header = p.add_mutually_exclusive_group()
    header.add_argument(
        "--header", dest="header", action="store_const", const=True, default=None,
        help="the first line of each text file is a header",
    )  # fmt: skip
    header.add_argument(
        "--no-header", dest="header", action="store_const", const=False,
        help="the first line of each text file is data",
    )  # fmt: skip
    add_common_options(p)
    add_bootstrap_options(p)
    p.set_defaults(run=run)


def _positive(text: str | None, expected: Any) -> Any:
    if text is None:
        return None
    from fmacro.validation.labels import coerce_labels, label_kind

    if label_kind(coerce_labels(expected, name="expected")) != "number":
        return text
    try:
        return int(text)
    except ValueError:
        raise ValueError(
            f"--positive {text!r} is not a label of these files, whose labels are integers"
        ) from None


def run(args: argparse.Namespace) -> int:
    from fmacro.validation.compare import compare
    from fmacro.validation.io import read_label_pair
    from fmacro.validation.report import format_table

    pair_a = read_label_pair(args.expected, args.predicted_a, header=args.header)
    pair_b = read_label_pair(args.expected, args.predicted_b, header=args.header)
    if pair_a.classes != pair_b.classes:
        raise ValueError(
            f"{args.predicted_a} and {args.predicted_b} name different classes "
            f"({pair_a.classes} and {pair_b.classes})"
        )
    for name, pair in ((args.predicted_a, pair_a), (args.predicted_b, pair_b)):
        if np.shape(pair.predicted) != np.shape(pair_a.expected):
            raise ValueError(
                f"{name} holds labels of shape {np.shape(pair.predicted)} but "
                f"{args.expected} of shape {np.shape(pair_a.expected)}"
            )
    expected = pair_a.expected
    kind = args.kind
    if kind is None and np.ndim(expected) == 2 and np.shape(expected)[1] > 1:
        kind = "multilabel"
    elif kind is None and np.ndim(expected) == 2:  # one column: labels
        expected = np.asarray(expected).reshape(-1)
    options: dict[str, Any] = {}
    if kind != "multilabel" and np.ndim(pair_a.predicted) == 2:
        options = {
            "a": np.asarray(pair_a.predicted).reshape(-1),
            "b": np.asarray(pair_b.predicted).reshape(-1),
        }
    result = compare(
        expected,
        options.get("a", pair_a.predicted),
        options.get("b", pair_b.predicted),
        measure=args.measure,
        n_resamples=args.resamples,
        seed=args.seed,
        level=args.level,
        kind=kind,
        positive=_positive(args.positive, expected),
        beta=args.beta,
        zero_division=args.zero_division,
    )
    if args.json:
        record = {
            "expected": str(args.expected),
            "a": str(args.predicted_a),
            "b": str(args.predicted_b),
            **result.to_dict(),
        }
        print(json.dumps(record, indent=2))
        return 0
    print(f"# {args.predicted_a} (A) vs {args.predicted_b} (B), expected {args.expected}")
    print(
        f"paired bootstrap: {result.n_resamples} {result.method} resamples, seed "
        f"{result.seed}, {result.level:g} percentile interval, {result.kind} labels"
    )
    rows = [
        (f"{result.measure} of A", result.estimate_a),
        (f"{result.measure} of B", result.estimate_b),
        ("difference A - B", result.difference),
        (f"low ({result.level:g})", result.low),
        (f"high ({result.level:g})", result.high),
        ("p-value (two-sided)", result.p_value),
    ]
    print(format_table(("", "value"), rows))
    return 0
