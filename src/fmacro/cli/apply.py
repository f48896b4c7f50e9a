"""``fmacro apply``: saved thresholds applied to new scores, predictions written to a file.

The middle step of tune, save, apply, evaluate::

    fmacro thresholds val.npz --method exact --save thr.json
    fmacro apply thr.json test.npz -o pred.npz
    fmacro evaluate test.npz pred.npz
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["register", "run"]

_OUTPUTS = (".npz", ".npy", ".csv")


def register(subparsers: Any) -> None:
    """Add the ``apply`` subcommand to an argparse subparsers object."""
    p = subparsers.add_parser(
        "apply",
        help="apply saved thresholds to new scores and write the predictions",
        description=(
            "Predict score >= threshold per class (or each object's top k classes for a top_k "
            "result) with thresholds saved by 'fmacro thresholds --save' (.json or .npy), on "
            "scores in .npz (a 'scores' array; labels optional), .npy or XC/svmlight. Writes "
            "a 0/1 indicator matrix (objects x classes): .npz (array 'predicted', plus "
            "'labels' if the scores file has them, so 'fmacro evaluate' can read it), .npy, "
            "or .csv (with a header of class names when the thresholds carry them)."
        ),
    )
    p.add_argument("thresholds", help="thresholds file (.json or .npy)")
    p.add_argument("scores", help="scores file (.npz, .npy, or XC/svmlight)")
    p.add_argument(
        "-o", "--output", required=True, metavar="FILE", help="predictions file (.npz/.npy/.csv)"
    )
    p.add_argument("--quiet", action="store_true", help="no summary line")
    p.set_defaults(run=run)


def _read_scores(path: str) -> tuple[Any, Any]:
    from fmacro.optimize.io import load_scores_npz, read_xc
    from fmacro.validation._files import checked_path, load_npy

    file = checked_path(path)
    suffix = file.suffix.lower()
    if suffix == ".npz":
        return load_scores_npz(file, require_labels=False)
    if suffix == ".npy":
        return load_npy(file), None
    return read_xc(file)


def _write(path: str, predicted: NDArray[np.bool_], classes: Any, labels: Any) -> None:
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in _OUTPUTS:
        raise ValueError(f"{path}: write predictions as .npz, .npy or .csv, got {suffix!r}")
    as01 = predicted.astype(np.uint8)
    if suffix == ".npy":
        np.save(target, as01)
    elif suffix == ".npz":
        extra: dict[str, Any] = {}
        if classes is not None:
            extra["classes"] = np.asarray(classes, dtype=str)
        if labels is not None:
            from fmacro.validation.checks import is_sparse

            extra["labels"] = (labels.toarray() if is_sparse(labels) else np.asarray(labels)) != 0
        np.savez_compressed(target, predicted=as01, **extra)
    else:
        header = ",".join(classes) if classes is not None else ""
        np.savetxt(target, as01, fmt="%d", delimiter=",", header=header, comments="")


def run(args: argparse.Namespace) -> int:
    """Run the subcommand; returns the exit code (bad input raises, the CLI maps it to 2)."""
    from fmacro.optimize.io import load_rule

    rule, classes = load_rule(args.thresholds)
    scores, labels = _read_scores(args.scores)
    try:
        predicted = rule.apply(scores)
    except ValueError as exc:
        raise ValueError(f"{args.scores}: {exc}") from None
    _write(args.output, predicted, classes, labels)
    if not args.quiet:
        n, m = predicted.shape
        print(
            f"wrote {args.output}: {n} objects x {m} classes, "
            f"{int(predicted.sum())} positive predictions"
        )
    return 0
