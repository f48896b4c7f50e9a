"""``fmacro apply``: saved thresholds applied to new scores, predictions written to a file.

The middle step of tune, save, apply, evaluate::

    fmacro thresholds val.npz --method exact --save thr.json
    fmacro apply thr.json test.npz -o pred.npz
    fmacro evaluate test.npz pred.npz

Inputs. Scores in ``.npz`` (``scores``, optional ``labels`` and ``classes``), ``.npy``,
XC/svmlight, or CSV/parquet with a header of class names (:mod:`fmacro.optimize.score_files`),
with optional 0/1 labels in another file (``--labels``). When the scores file names its
columns, the names must be the thresholds' classes, in order (thresholds are applied by
position).

A label budget. ``--max-labels K`` keeps in each object at most its ``K`` highest-scored
labels among those the thresholds predict (:func:`fmacro.optimize.label_budget.cap_labels`:
equal scores go to the lower column; a missing sparse entry ranks below every stored one);
the summary line counts the capped predictions and how many the cap dropped.

Outputs. ``.npy``: the 0/1 matrix. ``.npz``: arrays ``predicted`` (0/1), ``labels`` (the
scores file's 0/1 labels, when it has them) and ``classes`` (the class names as a JSON
list, names keeping their kind, when the thresholds carry them, else the scores file's
names). ``.csv``: the 0/1 rows
under a header of class names (when known) whose every field is quoted, written with the
csv module: fmacro and pandas read it back with the same columns whatever the names
(``"0"``, ``"a,b"``, a quote or a line break included).
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fmacro.cli import int_option

__all__ = ["register", "run", "write_predictions"]

_OUTPUTS = (".npz", ".npy", ".csv")


def register(subparsers: Any) -> None:
    """Add the ``apply`` subcommand to an argparse subparsers object."""
    p = subparsers.add_parser(
        "apply",
        help="apply saved thresholds to new scores and write the predictions",
        description=(
            "Predict score >= threshold per class (or each object's top k classes for a top_k "
            "result) with thresholds saved by 'fmacro thresholds --save' (.json or .npy), on "
            "scores in .npz (a 'scores' array; 0/1 labels and 'classes' optional), .npy, "
            "XC/svmlight, or .csv/.tsv/.parquet (a header of class names; --labels for their "
            "labels). Scores whose file names the classes must name the thresholds' classes, "
            "in the same order. "
            "Writes a 0/1 indicator matrix (objects x classes): .npz (array 'predicted', plus "
            "'labels' if the scores file has them and 'classes' if the thresholds name them, "
            "so 'fmacro evaluate' can read it), .npy, or .csv (with a header of class names "
            "when the thresholds carry them, every name quoted). The output may not be one "
            "of the input files."
        ),
    )
    p.add_argument("thresholds", help="thresholds file (.json or .npy)")
    p.add_argument("scores", help="scores file (.npz, .npy, .csv/.tsv, .parquet, or XC/svmlight)")
    p.add_argument(
        "--labels",
        metavar="FILE",
        help="0/1 labels of the scores (.csv/.tsv/.parquet/.npz/.npy), copied into an .npz "
        "output; paired with the scores by class name when both files name them",
    )
    p.add_argument(
        "-o", "--output", required=True, metavar="FILE", help="predictions file (.npz/.npy/.csv)"
    )
    p.add_argument(
        "--max-labels",
        type=int_option(minimum=1),
        metavar="K",
        help="keep at most K labels per object: its K highest-scored among those predicted "
        "(equal scores: the lower column first; a missing sparse entry ranks last)",
    )
    p.add_argument("--quiet", action="store_true", help="no summary line")
    p.set_defaults(run=run)


def _read_scores(path: str, labels: str | None = None) -> tuple[Any, Any, Any]:
    """Scores, labels (or None) and the files' column names (``ColumnNames`` or None)."""
    from fmacro.optimize.io import read_xc
    from fmacro.optimize.score_files import NAMED_SUFFIXES, read_scores
    from fmacro.validation.files import checked_path, load_npy

    file = checked_path(path)
    suffix = file.suffix.lower()
    if suffix == ".npy" and labels is None:
        return load_npy(file), None, None
    if suffix in NAMED_SUFFIXES:
        read = read_scores(file, labels, require_labels=False)
        return read.scores, read.labels, read.names
    if labels is not None:
        raise ValueError(
            f"{path}: --labels goes with scores in {', '.join(NAMED_SUFFIXES)} files; "
            "this file holds its own labels"
        )
    values, xc_labels = read_xc(file)
    return values, xc_labels, None


def _check_score_names(path: str, saved: Any, named: Any) -> None:
    """Scores whose files name their columns must name the thresholds' classes, in order.

    Thresholds are applied by position; a scores file naming its columns otherwise would
    get thresholds of other classes. Names are compared as text (a CSV header holds text).
    """
    from fmacro.validation.names import describe_names, text_names

    if named is None or saved.classes is None:
        return
    ours, theirs = text_names(saved.classes), text_names(named.names)
    if ours != theirs:
        where = f"{named.file}[classes]" if named.file.lower().endswith(".npz") else named.file
        raise ValueError(
            f"{where} names the score columns {describe_names(named.names)} but the "
            f"thresholds are for {describe_names(list(saved.classes))}, in that order"
        )


def write_predictions(
    path: str | Path, predicted: NDArray[np.bool_], classes: Any = None, labels: Any = None
) -> None:
    """Write a 0/1 prediction matrix as ``.npy``, ``.npz`` or ``.csv`` (see the module).

    ``classes`` (one name per column, or ``None``) are written as JSON in an npz and as a
    quoted header in a CSV; ``labels`` (0/1, same shape, dense or sparse; npz only) are
    stored as uint8. The file is written under exactly the given name (numpy would add a
    suffix to ``pred.NPZ``).

    Raises
    ------
    ValueError
        Another suffix, names that are not one per column, or labels of another shape
        or with values other than 0 and 1.
    """
    from fmacro.validation.checks import is_sparse
    from fmacro.validation.names import check_class_names, names_to_json, text_names

    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in _OUTPUTS:
        raise ValueError(f"{path}: write predictions as .npz, .npy or .csv, got {suffix!r}")
    as01 = np.asarray(predicted).astype(np.uint8)
    names = check_class_names(classes, "classes")
    if names is not None and len(names) != as01.shape[1]:
        raise ValueError(f"{path}: {len(names)} class names for {as01.shape[1]} prediction columns")
    if suffix == ".npy":
        with open(target, "wb") as fh:
            np.save(fh, as01)
    elif suffix == ".npz":
        extra: dict[str, Any] = {}
        if names is not None:
            extra["classes"] = np.asarray(json.dumps(names_to_json(names)))
        if labels is not None:
            dense = np.asarray(labels.toarray() if is_sparse(labels) else labels)
            if dense.shape != as01.shape:
                raise ValueError(
                    f"{path}: labels of shape {dense.shape} do not match the "
                    f"{as01.shape[0]} x {as01.shape[1]} predictions"
                )
            if ((dense != 0) & (dense != 1)).any():
                raise ValueError(f"{path}: labels must be 0 or 1")
            extra["labels"] = dense.astype(np.uint8)
        with open(target, "wb") as fh:
            np.savez_compressed(fh, predicted=as01, **extra)
    else:
        with open(target, "w", encoding="utf-8", newline="") as fh:
            if names is not None:
                # Every field quoted: read back as a header whatever the names (issue 26).
                csv.writer(fh, quoting=csv.QUOTE_ALL, lineterminator="\n").writerow(
                    text_names(names)
                )
            csv.writer(fh, lineterminator="\n").writerows(as01.tolist())


def run(args: argparse.Namespace) -> int:
    """Run the subcommand; returns the exit code (bad input raises, the CLI maps it to 2)."""
    from fmacro.optimize.io import read_rule
    from fmacro.optimize.label_budget import cap_labels
    from fmacro.validation.files import check_output_path

    if Path(args.output).suffix.lower() not in _OUTPUTS:
        raise ValueError(
            f"{args.output}: write predictions as .npz, .npy or .csv, got "
            f"{Path(args.output).suffix.lower()!r}"
        )
    check_output_path(args.output, (args.thresholds, args.scores, args.labels), "-o/--output")
    saved = read_rule(args.thresholds)
    scores, labels, named = _read_scores(args.scores, args.labels)
    _check_score_names(args.scores, saved, named)
    width = scores.shape[1] if len(scores.shape) == 2 else None
    if width != saved.n_columns:
        raise ValueError(
            f"{args.scores}: scores must have shape (n_samples, {saved.n_columns}) for the "
            f"thresholds of {args.thresholds}, got {scores.shape}"
        )
    try:
        uncapped = saved.rule.apply(scores)
        predicted = (
            uncapped if args.max_labels is None else cap_labels(scores, uncapped, args.max_labels)
        )
    except ValueError as exc:
        raise ValueError(f"{args.scores}: {exc}") from None
    to_npz = Path(args.output).suffix.lower() == ".npz"
    if to_npz and labels is not None and labels.shape != predicted.shape:
        raise ValueError(
            f"{args.scores}: labels of shape {labels.shape} do not match the scores' "
            f"{predicted.shape}; they cannot go into {args.output} beside the predictions"
        )
    # The thresholds' names, else (thresholds saved as .npy) the scores file's own.
    classes = saved.classes if saved.classes is not None or named is None else named.names
    write_predictions(args.output, predicted, classes, labels)
    if not args.quiet:
        n, m = predicted.shape
        positives = int(np.count_nonzero(predicted))
        budget = ""
        if args.max_labels is not None:
            dropped = int(np.count_nonzero(uncapped)) - positives
            budget = f" (at most {args.max_labels}; the cap dropped {dropped} predictions)"
        print(
            f"wrote {args.output}: {n} objects x {m} classes, "
            f"{positives} positive predictions, {positives / max(n, 1):.4f} labels per object"
            f"{budget}"
        )
    return 0
