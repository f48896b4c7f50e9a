"""Held-out F-macro of fmacro's thresholds against scikit-learn's per-label tuner.

scikit-learn's ``TunedThresholdClassifierCV`` tunes one threshold of one binary
classifier; on a multi-label target a scikit-learn user runs one per label
(``scoring="f1"``), which maximizes each label's own F1. fmacro tunes all the labels'
thresholds jointly for F-macro (``optimize.tune``) or, for macro-F1, each label on
smoothed counts (``tune(..., method="per_class")``). This script measures both
against the per-label tuner and against the classifier's default 0.5 threshold.

Data: yeast (14 labels) and enron (53 labels), the official Mulan train/test splits,
read from ``../shared/data`` beside the checkout (or ``--data``). Scorer: one-vs-rest
``LogisticRegression(solver="liblinear", random_state=0)``, scores = ``predict_proba``.
Two protocols, each a deterministic run (no shuffled folds, a seeded split); the methods
of a protocol are timed round-robin, median of ``--repeats`` rounds:

``oof`` (the README's table)
    Through the scikit-learn estimators with their defaults, 5 unshuffled folds:
    ``FMacroThresholdClassifier(ovr)`` (``tune`` on the out-of-fold scores),
    ``FMacroThresholdClassifier(ovr, objective="macro_f")`` (``tune(method="per_class")``
    on them), one ``TunedThresholdClassifierCV(LogisticRegression(...), scoring="f1")``
    per label, and ``ovr`` alone (0.5). Each is fitted on the whole training split
    (5 fold fits and a refit; ``ovr`` alone: one fit) and predicts the test split; the
    time is that ``fit`` and ``predict`` (logistic fits included).
``val``
    One ``ovr`` fitted on a seeded 75% of the training split (``numpy`` generator seed
    0, as the README's Corel5k example); thresholds tuned on the other 25%
    (``tune`` and ``tune(method="per_class")`` on its scores; per label
    ``TunedThresholdClassifierCV(that label's fitted model, cv="prefit",
    refit=False)``), applied to the test scores of the same model. The time is the
    threshold search alone (the model is shared).

A label with fewer than 2 training positives (``oof``: its inner logistic fits need
both classes in every training part), or none among the validation rows or the model's
fit rows (``val``), cannot be tuned by the per-label tuner: that label keeps the default
0.5 decision of its model, which a user would have to arrange by hand; their number is
reported. Measures on the test split, over all labels,
precision 0 when a label predicts nothing: F-macro = F1 of macro-averaged precision
and recall (``fmacro.validation.sklearn.f_macro_score``), macro-F1 and micro-F1
(``sklearn.metrics.f1_score``), and labels predicted per test object against the true
mean. Writes benchmarks/results_vs_ttcv.md.

Usage::

    python benchmarks/bench_vs_ttcv.py [--data ../shared/data] [--repeats 3]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import TunedThresholdClassifierCV
from sklearn.multiclass import OneVsRestClassifier

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _timing import machine_facts, markdown_table  # noqa: E402

from fmacro.optimize import tune  # noqa: E402
from fmacro.optimize.sklearn import FMacroThresholdClassifier  # noqa: E402
from fmacro.validation.datasets import load_dataset  # noqa: E402
from fmacro.validation.sklearn import f_macro_score  # noqa: E402

RESULTS = HERE / "results_vs_ttcv.md"
SHARED_DATA = HERE.parents[1] / "shared" / "data"
DATASETS = ("yeast", "enron")
PROTOCOLS = ("oof", "val")
#: Row names of the table, in order: fmacro's two, scikit-learn's tuner, the default.
METHODS = ("tune", 'tune(method="per_class")', "TTCV per label", "default 0.5")
VALIDATION_SEED = 0


@attrs.frozen
class Row:
    """One method's test measures on one dataset and protocol."""

    dataset: str
    protocol: str
    method: str
    f_macro: float
    macro_f1: float
    micro_f1: float
    labels_per_object: float
    true_labels_per_object: float
    seconds: float
    untuned_labels: int = 0


def logistic() -> LogisticRegression:
    """The per-label model: liblinear is 20-40x faster than lbfgs on enron's 1001 features."""
    return LogisticRegression(solver="liblinear", random_state=0)


def one_vs_rest() -> OneVsRestClassifier:
    """One logistic model per label, probabilities as scores."""
    return OneVsRestClassifier(logistic())


def measures(Y_test: NDArray[Any], predicted: NDArray[Any]) -> tuple[float, float, float, float]:
    """Test F-macro, macro-F1, micro-F1 and labels predicted per object."""
    with warnings.catch_warnings():
        # test labels without positives: their F is 0/0, counted as 0 (zero_division=0)
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        macro = f1_score(Y_test, predicted, average="macro", zero_division=0)
        micro = f1_score(Y_test, predicted, average="micro", zero_division=0)
    return (
        f_macro_score(Y_test, predicted),
        float(macro),
        float(micro),
        float(np.asarray(predicted).sum(1).mean()),
    )


def timed(
    fits: Mapping[str, Callable[[], NDArray[Any]]], repeats: int
) -> dict[str, tuple[NDArray[Any], float]]:
    """Each callable's output (the same at every run) and its median wall time.

    The callables run round-robin, each round starting one further along, so a burst of
    load from other processes on the shared machine hits them alike and their ratios stay
    fair (as ``_timing.measure_interleaved``, which keeps no outputs).
    """
    names = list(fits)
    outputs: dict[str, list[NDArray[Any]]] = {name: [] for name in names}
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(repeats):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            start = time.perf_counter()
            outputs[name].append(np.asarray(fits[name]()))
            times[name].append(time.perf_counter() - start)
    for name in names:
        for out in outputs[name][1:]:
            # every protocol is deterministic: a repeat that predicts otherwise is a bug
            np.testing.assert_array_equal(out, outputs[name][0], err_msg=name)
    return {name: (outputs[name][0], float(np.median(times[name]))) for name in names}


class PerLabelTuner:
    """One ``TunedThresholdClassifierCV(scoring="f1")`` per label, as a user writes it.

    A label with fewer than ``min_positives`` positives in ``y``, or for which ``make``
    gives ``None`` (no fitted model to tune), cannot be tuned: with 5 inner folds and one
    positive a training part has none, and no logistic fit takes one class. It keeps
    ``fallback``'s decision for that label.
    """

    def __init__(
        self, make: Callable[[int], TunedThresholdClassifierCV | None], min_positives: int
    ) -> None:
        self.make = make
        self.min_positives = min_positives

    def fit_predict(
        self, X: NDArray[Any], Y: NDArray[Any], X_test: NDArray[Any], fallback: NDArray[Any]
    ) -> tuple[NDArray[Any], int]:
        predicted = np.array(fallback, copy=True)
        untuned = 0
        with warnings.catch_warnings():
            # labels with 2-4 positives: fewer than 5 per stratified fold, a warning only
            warnings.simplefilter("ignore", UserWarning)
            for k in range(Y.shape[1]):
                tuner = self.make(k)
                if tuner is None or Y[:, k].sum() < self.min_positives:
                    untuned += 1
                    continue
                predicted[:, k] = tuner.fit(X, Y[:, k]).predict(X_test)
        return predicted, untuned


def run_oof(
    name: str,
    X: NDArray[Any],
    Y: NDArray[Any],
    X_test: NDArray[Any],
    Y_test: NDArray[Any],
    repeats: int,
) -> list[Row]:
    """The estimators with their defaults, fitted on the training split (5 folds + refit)."""
    fallback = one_vs_rest().fit(X, Y).predict(X_test)
    tuner = PerLabelTuner(lambda k: TunedThresholdClassifierCV(logistic(), scoring="f1"), 2)
    untuned: list[int] = []

    def per_label() -> NDArray[Any]:
        predicted, n = tuner.fit_predict(X, Y, X_test, fallback)
        untuned.append(n)
        return predicted

    fits: dict[str, Callable[[], NDArray[Any]]] = {
        METHODS[0]: lambda: FMacroThresholdClassifier(one_vs_rest()).fit(X, Y).predict(X_test),
        METHODS[1]: lambda: (
            FMacroThresholdClassifier(one_vs_rest(), objective="macro_f").fit(X, Y).predict(X_test)
        ),
        METHODS[2]: per_label,
        METHODS[3]: lambda: one_vs_rest().fit(X, Y).predict(X_test),
    }
    true_mean = float(Y_test.sum(1).mean())
    return [
        Row(
            name,
            "oof",
            method,
            *measures(Y_test, predicted),
            true_mean,
            seconds,
            untuned[0] if method == METHODS[2] else 0,
        )
        for method, (predicted, seconds) in timed(fits, repeats).items()
    ]


def run_val(
    name: str,
    X: NDArray[Any],
    Y: NDArray[Any],
    X_test: NDArray[Any],
    Y_test: NDArray[Any],
    repeats: int,
) -> list[Row]:
    """One model on 75% of the training split; thresholds tuned on the other 25%."""
    val = np.random.default_rng(VALIDATION_SEED).permutation(len(X))[: len(X) // 4]
    fit = np.setdiff1d(np.arange(len(X)), val)
    model = one_vs_rest().fit(X[fit], Y[fit])
    S_val, S_test = model.predict_proba(X[val]), model.predict_proba(X_test)
    default = model.predict(X_test)

    def prefit(k: int) -> TunedThresholdClassifierCV | None:
        # a label constant on the fit rows has a constant predictor, not a model to tune
        est = model.estimators_[k]
        if not isinstance(est, LogisticRegression):
            return None
        return TunedThresholdClassifierCV(est, scoring="f1", cv="prefit", refit=False)

    tuner = PerLabelTuner(prefit, 1)
    untuned: list[int] = []

    def per_label() -> NDArray[Any]:
        predicted, n = tuner.fit_predict(X[val], Y[val], X_test, default)
        untuned.append(n)
        return predicted

    # fmacro's searches return thresholds (applied below, untimed); the tuner predicts
    searches: dict[str, Callable[[], NDArray[Any]]] = {
        METHODS[0]: lambda: tune(S_val, Y[val]).thresholds,
        METHODS[1]: lambda: tune(S_val, Y[val], method="per_class").thresholds,
        METHODS[2]: per_label,
    }
    found = timed(searches, repeats)
    predictions = {
        METHODS[0]: S_test >= found[METHODS[0]][0],
        METHODS[1]: S_test >= found[METHODS[1]][0],
        METHODS[2]: found[METHODS[2]][0],
        METHODS[3]: default,
    }
    true_mean = float(Y_test.sum(1).mean())
    return [
        Row(
            name,
            "val",
            method,
            *measures(Y_test, predicted),
            true_mean,
            found[method][1] if method in found else 0.0,
            untuned[0] if method == METHODS[2] else 0,
        )
        for method, predicted in predictions.items()
    ]


def measure_dataset(name: str, data: Path, protocols: Sequence[str], repeats: int) -> list[Row]:
    """Every protocol's rows for one dataset."""
    X, Y = load_dataset(name, "train", path=data)
    X_test, Y_test = load_dataset(name, "test", path=data)
    runs = {"oof": run_oof, "val": run_val}
    return [
        row for protocol in protocols for row in runs[protocol](name, X, Y, X_test, Y_test, repeats)
    ]


def fmt_time(seconds: float) -> str:
    """Seconds to about 2 significant figures, in ms below a second."""
    if seconds < 1:
        ms = seconds * 1e3
        return f"{ms:.0f} ms" if ms >= 10 else f"{ms:.1f} ms"
    return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"


def table(rows: Sequence[Row], protocol: str, time_header: str) -> str:
    """Markdown table of one protocol's rows (the README quotes the oof one)."""
    body = []
    for row in rows:
        if row.protocol != protocol:
            continue
        name = f"`{row.method}`" if row.method.startswith("tune") else row.method
        body.append(
            [
                row.dataset,
                name,
                f"{row.f_macro:.3f}",
                f"{row.macro_f1:.3f}",
                f"{row.micro_f1:.3f}",
                f"{row.labels_per_object:.1f} ({row.true_labels_per_object:.1f})",
                "" if protocol == "val" and row.method == METHODS[3] else fmt_time(row.seconds),
            ]
        )
    header = ["data", "thresholds", "F-macro", "macro-F1", "micro-F1", "labels/object (true)"]
    return markdown_table([*header, time_header], body)


def report(rows: Sequence[Row], repeats: int) -> str:
    """results_vs_ttcv.md: both protocols, the untuned labels and the machine."""
    untuned = {
        (row.dataset, row.protocol): row.untuned_labels for row in rows if row.method == METHODS[2]
    }
    notes = ", ".join(f"{d}/{p}: {n}" for (d, p), n in untuned.items())
    facts = machine_facts()
    lines = [
        "# fmacro against scikit-learn's TunedThresholdClassifierCV (per label)",
        "",
        "Written by `benchmarks/bench_vs_ttcv.py` (one deterministic run; times are medians "
        f"of {repeats} runs, the methods interleaved, on a shared 2-core machine). Official "
        "Mulan train/test splits; "
        'one-vs-rest `LogisticRegression(solver="liblinear", random_state=0)`, scores = '
        "`predict_proba`. "
        "Test measures over all labels (precision 0 for a label predicting nothing): "
        "F-macro = F1 of macro-averaged precision and recall, macro-F1 = mean per-label F1, "
        "micro-F1 = F1 of the pooled counts; labels/object = labels predicted per test "
        "object (the true mean in brackets). `TTCV per label` = one "
        '`TunedThresholdClassifierCV(scoring="f1")` per label; a label with fewer than 2 '
        "training positives (oof), or without a positive among the validation or the fit "
        "rows (val), cannot be tuned by it and keeps its 0.5 decision "
        f"(labels concerned: {notes}).",
        "",
        "## 5-fold out-of-fold scores, through the estimators (the README's table)",
        "",
        "`FMacroThresholdClassifier(ovr)` (`tune`), `FMacroThresholdClassifier(ovr, "
        'objective="macro_f")` (`tune(method="per_class")`), `TunedThresholdClassifierCV'
        '(LogisticRegression(...), scoring="f1")` per label, and `ovr` alone (0.5): each '
        "with its default 5 unshuffled folds, fitted on the training split and refitted; "
        "time = `fit` and `predict` (every logistic fit included; `ovr` alone fits once).",
        "",
        table(rows, "oof", "fit + tune"),
        "",
        "## Seeded 25% validation split",
        "",
        "One `ovr` fitted on 75% of the training split (seed 0); thresholds tuned on the "
        "other 25% (`optimize.tune` on its scores; per label "
        '`TunedThresholdClassifierCV(model.estimators_[k], cv="prefit", refit=False)`); '
        "time = the threshold search alone.",
        "",
        table(rows, "val", "tune time"),
        "",
        "Machine: " + ", ".join(f"{k} {v}" for k, v in facts.items()) + ".",
        "",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    rows = []
    for name in DATASETS:
        start = time.perf_counter()
        with warnings.catch_warnings():
            # enron's labels absent from a training part: OneVsRestClassifier says so for
            # each (it then predicts them never), which is what the fallback counts
            warnings.filterwarnings("ignore", "Label not .* is present", UserWarning)
            rows += measure_dataset(name, args.data, PROTOCOLS, args.repeats)
        print(f"{name}: {time.perf_counter() - start:.0f} s", file=sys.stderr)
    RESULTS.write_text(report(rows, args.repeats), encoding="utf-8")
    return RESULTS


if __name__ == "__main__":
    print("wrote", main())
