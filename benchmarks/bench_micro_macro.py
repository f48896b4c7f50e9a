"""Held-out micro-F1 and macro-F1 of ``micro_macro`` (a mix of the two) against ``per_class``.

LibMultiLabel's ``train_thresholding`` (Lin and Lin, CIKM 2023) targets micro-F1 and
macro-F1 together; ``optimize.micro_macro(mix=...)`` maximizes ``mix * micro-F1 +
(1 - mix) * macro-F1`` over per-class thresholds, ``per_class`` macro-F1 alone (it is
``micro_macro(mix=0)``). This script measures what each gives on the test split.

Data: medical (45 labels), enron (53) and yeast (14), the official Mulan train/test splits,
read from ``../shared/data`` beside the checkout (or ``--data``), labels as int64. Scorer:
one-vs-rest ``LogisticRegression(solver="liblinear", random_state=0)``; tuning scores are
its 5-fold out-of-fold ``predict_proba`` on the training split
(``cross_val_predict``, unshuffled folds), test scores those of the model refitted on the
whole training split. Thresholds are searched on the out-of-fold scores (labels without a
training positive are never predicted) and applied to the test scores. Test measures over
all labels (precision 0 for a label predicting nothing): micro-F1, macro-F1 (scikit-learn's
``f1_score``) and their mean; the tuning columns are the objective the method maximizes on
the out-of-fold scores (``mix * micro + (1 - mix) * macro``, for ``per_class`` with
mix = 0.5) and the number of labels predicted per test object. The search time is the
median of ``--repeats`` interleaved runs (kernels compiled in a warm-up call; fits
excluded). Writes
benchmarks/results_micro_macro.md.

Usage::

    python benchmarks/bench_micro_macro.py [--data ../shared/data] [--repeats 5]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import cross_val_predict
from sklearn.multiclass import OneVsRestClassifier

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _timing import fmt_seconds, machine_facts, markdown_table, measure_interleaved  # noqa: E402

from fmacro.optimize import ThresholdResult, micro_macro, per_class  # noqa: E402
from fmacro.validation.datasets import load_dataset  # noqa: E402
from fmacro.validation.dispatch import forced  # noqa: E402

RESULTS = HERE / "results_micro_macro.md"
SHARED_DATA = HERE.parents[1] / "shared" / "data"
DATASETS = ("medical", "enron", "yeast")
MIXES = (0.25, 0.5, 0.75, 1.0)
FOLDS = 5


@attrs.frozen
class Row:
    """One method's measures on one dataset."""

    dataset: str
    method: str
    micro_f1: float
    macro_f1: float
    tuning_objective: float
    start_objective: float
    objective_bound: float
    labels_per_object: float
    true_labels_per_object: float
    seconds: float


def one_vs_rest() -> OneVsRestClassifier:
    """One logistic model per label, probabilities as scores."""
    return OneVsRestClassifier(LogisticRegression(solver="liblinear", random_state=0))


def scores(name: str, data: Path) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any], NDArray[Any]]:
    """Out-of-fold training scores, training labels, test scores and test labels."""
    X, Y = load_dataset(name, "train", path=data)
    X_test, Y_test = load_dataset(name, "test", path=data)
    Y, Y_test = np.asarray(Y, dtype=np.int64), np.asarray(Y_test, dtype=np.int64)
    with warnings.catch_warnings():
        # labels absent from a training part: OneVsRestClassifier predicts them never
        warnings.filterwarnings("ignore", "Label not .* is present", UserWarning)
        oof = cross_val_predict(one_vs_rest(), X, Y, cv=FOLDS, method="predict_proba")
        test = one_vs_rest().fit(X, Y).predict_proba(X_test)
    return np.asarray(oof), Y, np.asarray(test), Y_test


def test_measures(Y_test: NDArray[Any], predicted: NDArray[Any]) -> tuple[float, float, float]:
    """Test micro-F1, macro-F1 and labels predicted per object."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        micro = f1_score(Y_test, predicted, average="micro", zero_division=0)
        macro = f1_score(Y_test, predicted, average="macro", zero_division=0)
    return float(micro), float(macro), float(np.asarray(predicted).sum(1).mean())


def methods(S: NDArray[Any], Y: NDArray[Any]) -> dict[str, Callable[[], ThresholdResult]]:
    """The searches compared, by row name."""
    out: dict[str, Callable[[], ThresholdResult]] = {"per_class": lambda: per_class(S, Y)}
    for mix in MIXES:
        out[f"micro_macro(mix={mix})"] = lambda mix=mix: micro_macro(S, Y, mix=mix)
    return out


@attrs.frozen
class Note:
    """Why ``per_class`` predicts so much: the labels with one training positive."""

    dataset: str
    n_train: int
    single_positive: int
    every_object: int


def measure_dataset(name: str, data: Path, repeats: int) -> tuple[list[Row], Note]:
    """Every method's row for one dataset, and its note."""
    S, Y, S_test, Y_test = scores(name, data)
    tuned = per_class(S, Y).tuning
    assert tuned is not None
    note = Note(
        name,
        len(S),
        int((Y.sum(0) == 1).sum()),
        int((np.asarray(tuned.predicted) == len(S)).sum()),
    )
    searches = methods(S, Y)
    with forced("compiled"):  # machine code, compiled (or loaded) in the warm-up
        times = measure_interleaved(searches, repeats=repeats, warmup=1)
    true_mean = float(Y_test.sum(1).mean())
    rows = []
    for method, search in searches.items():
        res = search()
        micro, macro, per_object = test_measures(Y_test, res.apply(S_test))
        if method == "per_class":
            found = micro_macro(S, Y, mix=0.5, start=res)  # for its tuning objective only
            objective = start = found.diagnostics["start_objective"]
        else:
            found = res
            objective = res.diagnostics["objective"]
            start = res.diagnostics["start_objective"]
        bound = found.diagnostics["objective_bound"]
        rows.append(
            Row(
                name,
                method,
                micro,
                macro,
                float(objective),
                float(start),
                float(bound),
                per_object,
                true_mean,
                times[method].median,
            )
        )
    return rows, note


def table(rows: Sequence[Row]) -> str:
    """Markdown table of every row."""
    body = [
        [
            row.dataset,
            f"`{row.method}`",
            f"{row.micro_f1:.3f}",
            f"{row.macro_f1:.3f}",
            f"{(row.micro_f1 + row.macro_f1) / 2:.3f}",
            f"{row.tuning_objective:.4f} ({row.start_objective:.4f}; {row.objective_bound:.4f})",
            f"{row.labels_per_object:.2f} ({row.true_labels_per_object:.2f})",
            fmt_seconds(row.seconds),
        ]
        for row in rows
    ]
    header = [
        "data",
        "thresholds",
        "micro-F1",
        "macro-F1",
        "mean",
        "tuning objective (per_class cuts; bound)",
        "labels/object (true)",
        "search time",
    ]
    return markdown_table(header, body)


def notes_text(notes: Sequence[Note]) -> str:
    """One sentence per dataset: training rows, single-positive labels, all-object cuts."""
    return " ".join(
        f"{n.dataset}: {n.n_train} training rows, {n.single_positive} labels with one "
        f"training positive, {n.every_object} labels whose `per_class` cut predicts every "
        "training row."
        for n in notes
    )


def report(rows: Sequence[Row], notes: Sequence[Note], repeats: int) -> str:
    """results_micro_macro.md."""
    facts = machine_facts()
    lines = [
        "# micro_macro: a mix of micro-F1 and macro-F1",
        "",
        "Written by `benchmarks/bench_micro_macro.py` (one deterministic run; search times "
        f"are medians of {repeats} runs, the methods interleaved, on a shared 2-core "
        "machine). Official Mulan train/test splits; one-vs-rest "
        '`LogisticRegression(solver="liblinear", random_state=0)`; thresholds searched on '
        f"its {FOLDS}-fold out-of-fold `predict_proba` of the training split "
        "(`cross_val_predict`, unshuffled folds), applied to the test scores of the model "
        "refitted on the whole training split. Test measures over all labels (precision 0 "
        "for a label predicting nothing): micro-F1 and macro-F1 (scikit-learn's `f1_score`) "
        "and their mean. Tuning objective: `mix * micro-F1 + (1 - mix) * macro-F1` on the "
        "out-of-fold scores, what the method maximizes (for `per_class`, mix = 0.5), with "
        "in brackets its value at the `per_class` cuts, where the search starts, and the "
        "bound `mix * (micro-F1 optimum) + (1 - mix) * (macro-F1 optimum)` (no thresholds "
        "reach more; the search finds both optima exactly). "
        "labels/object: labels predicted per test object (the true mean in brackets).",
        "",
        table(rows),
        "",
        "A label with one training positive: the model of that positive's fold never saw "
        "one and scores it 0, the lowest out-of-fold score of the label, so the label's "
        "best F1 cut on the out-of-fold scores predicts every row. " + notes_text(notes),
        "",
        "Machine: " + ", ".join(f"{k} {v}" for k, v in facts.items()) + ".",
        "",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    rows: list[Row] = []
    notes: list[Note] = []
    for name in DATASETS:
        start = time.perf_counter()
        found, note = measure_dataset(name, args.data, args.repeats)
        rows += found
        notes.append(note)
        print(f"{name}: {time.perf_counter() - start:.0f} s", file=sys.stderr)
    RESULTS.write_text(report(rows, notes, args.repeats), encoding="utf-8")
    return RESULTS


if __name__ == "__main__":
    print("wrote", main())
