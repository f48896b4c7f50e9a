"""``fmacro fdelta``: the F-Delta experiment of Paradowski et al. (2019) from the command line.

:mod:`fmacro.cli` calls :func:`register` with its subparsers object and dispatches to
:func:`run`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["register", "run"]

_PAPER = {"datasets": 20, "repetitions": 50}
_DEFAULT = {"datasets": 10, "repetitions": 20}
_ANCHOR = "paper (RND, |A|/|B| = 1): delta rule F = 0.492, F-Delta F = 0.666"


def _ratio_list(text: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--ratios must be comma-separated numbers such as 100,10,1,0.1,0.01, got {text!r}"
        ) from None
    if not values or any(v <= 0 for v in values):
        raise argparse.ArgumentTypeError(f"--ratios must be positive numbers, got {text!r}")
    return values


def _type_list(text: str) -> list[str]:
    values = [v.strip().upper() for v in text.split(",") if v.strip()]
    bad = [v for v in values if v not in ("LS", "LNS", "RND")]
    if not values or bad:
        raise argparse.ArgumentTypeError(
            f"--types must be a comma list of LS, LNS, RND; got {text!r}"
        )
    return values


def register(subparsers: Any) -> None:
    """Add the ``fdelta`` subcommand (and its options) to an argparse subparsers object."""
    from fmacro.cli import int_option

    p = subparsers.add_parser(
        "fdelta",
        help="F-Delta perceptron vs weighted delta rule (Paradowski et al. 2019)",
        description=(
            "Compare F-Delta (single-class F-score training) with the weighted delta rule on "
            "generated LS/LNS/RND data (Paradowski, Spytkowski and Kwaśnicka, 'A new F-score "
            "gradient-based training rule for the linear model', 2019, section 4), or with "
            "--patsi on Corel5k image annotation (section 5). Prints a table (--json: JSON "
            "instead; -o FILE also saves it)."
        ),
    )
    p.add_argument(
        "--full",
        action="store_true",
        help="the paper's size: 20 data sets x 50 repetitions per cell",
    )
    p.add_argument(
        "--datasets",
        type=int_option(1),
        default=None,
        help=f"data sets per (type, ratio) cell (default {_DEFAULT['datasets']}, 20 with --full)",
    )
    p.add_argument(
        "--repetitions",
        type=int_option(1),
        default=None,
        help=f"trainings per data set (default {_DEFAULT['repetitions']}, 50 with --full)",
    )
    p.add_argument(
        "--types",
        type=_type_list,
        default=["LS", "LNS", "RND"],
        help="comma list of data types (default LS,LNS,RND)",
    )
    p.add_argument(
        "--ratios",
        type=_ratio_list,
        default=[100.0, 10.0, 1.0, 0.1, 0.01],
        help="comma list of class ratios |A|/|B| (default 100,10,1,0.1,0.01)",
    )
    p.add_argument(
        "--n",
        type=int_option(2),
        default=2000,
        help="examples per data set before the 50/50 split (default 2000; not given in the paper)",
    )
    p.add_argument(
        "--max-iter",
        type=int_option(0),
        default=1000,
        help="gradient iterations at most (default 1000)",
    )
    p.add_argument(
        "--epsilon",
        type=float,
        default=0.1,
        help="stop when an iteration gains < epsilon x the first gain; 0: never (default 0.1)",
    )
    p.add_argument(
        "--random-trials",
        type=int_option(0),
        default=100,
        help="random-search candidates (default 100)",
    )
    p.add_argument("--seed", type=int_option(0, None), default=0, help="master seed (default 0)")
    p.add_argument("--jobs", type=int_option(1), default=1, help="worker processes (default 1)")
    p.add_argument(
        "--json", action="store_true", help="print all results as JSON instead of tables"
    )
    p.add_argument(
        "-o",
        "--output",
        type=Path,
        default=None,
        metavar="FILE",
        help="also write all results (per-run values, CDFs, config) to FILE as JSON",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    g = p.add_argument_group("PATSI on Corel5k (section 5)")
    g.add_argument(
        "--patsi",
        action="store_true",
        help="run the PATSI second-tier comparison on Corel5k instead",
    )
    g.add_argument(
        "--folds",
        type=int_option(1),
        default=10,
        help="cross-validation folds, crossval.KFold (default 10); 1 = one 90/10 split",
    )
    g.add_argument(
        "--m", type=int_option(1), default=10, help="neighbours in PATSI's first tier (default 10)"
    )
    g.add_argument(
        "--max-words",
        type=int_option(1),
        default=None,
        help="evaluate only the most frequent words (speed)",
    )
    p.set_defaults(run=run)


def _run_experiment(args: argparse.Namespace) -> tuple[list[str], dict[str, Any]]:
    out: list[str] = []
    from fmacro.optimize.fdelta.experiments import experiment

    sizes = dict(_PAPER if args.full else _DEFAULT)
    if args.datasets is not None:
        sizes["datasets"] = args.datasets
    if args.repetitions is not None:
        sizes["repetitions"] = args.repetitions
    result = experiment(
        types=args.types,
        ratios=args.ratios,
        datasets=sizes["datasets"],
        repetitions=sizes["repetitions"],
        n=args.n,
        max_iter=args.max_iter,
        epsilon=args.epsilon,
        random_trials=args.random_trials,
        seed=args.seed,
        jobs=args.jobs,
        progress=not args.quiet,
    )
    cfg = result.config
    out.append(
        f"F-Delta vs weighted delta rule: {cfg['datasets']} data sets x "
        f"{cfg['repetitions']} repetitions per cell, n = {cfg['n']}, seed = {cfg['seed']}"
    )
    out.append("F = exact F1-score of class a on the test half; t = paired t of eq. 42\n")
    out.append(result.table())
    if "RND" in cfg["types"] and any(abs(r - 1.0) < 1e-12 for r in cfg["ratios"]):
        anchor = result.cell("RND", 1.0).summary()
        out.append(
            f"\nRND, |A|/|B| = 1: delta rule F = {anchor['mean_f_delta']:.3f}, "
            f"F-Delta F = {anchor['mean_f_fdelta']:.3f}; {_ANCHOR}"
        )
    return out, result.to_dict()


def _run_patsi(args: argparse.Namespace) -> tuple[list[str], dict[str, Any]]:
    out: list[str] = []
    from fmacro.optimize.fdelta.patsi import load_corel5k, patsi_experiment

    X, Y = load_corel5k()
    splitter = None
    if args.folds > 1:
        from fmacro.crossval import (
            KFold,  # the CLI may use crossval (lazily); optimize itself does not
        )

        splitter = KFold(k=args.folds, seed=args.seed)
    result = patsi_experiment(
        X,
        Y,
        m=args.m,
        splitter=splitter,
        max_words=args.max_words,
        seed=args.seed,
        max_iter=args.max_iter,
        epsilon=args.epsilon,
        progress=not args.quiet,
    )
    out.append(
        f"PATSI second tiers on Corel5k ({result.config['n_images']} images, "
        f"{result.config['n_words']} words, m = {args.m}, {result.config['folds']} fold(s))"
    )
    out.append("mean per-word F1 of pooled out-of-fold predictions, most frequent words first\n")
    out.append(result.table())
    return out, result.to_dict()


def run(args: argparse.Namespace) -> int:
    """Run the subcommand; returns the process exit code (0 ok, 2 bad input, 1 missing data)."""
    from fmacro.validation.files import check_output_path

    try:
        if args.output is not None:  # before the experiment, not after it
            check_output_path(args.output, (), "-o/--output")
        text, payload = _run_patsi(args) if args.patsi else _run_experiment(args)
    except (ValueError, TypeError) as exc:
        print(f"fmacro fdelta: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except FileNotFoundError as exc:
        print(f"fmacro fdelta: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 1
    print(json.dumps(payload, indent=1) if args.json else "\n".join(text))
    if args.output is not None:
        args.output.write_text(json.dumps(payload, indent=1), encoding="utf-8")
        if not args.json:
            print(f"\nresults written to {args.output}")
    return 0
