"""Per-class constraints through the estimator, the CLI and rate_caps."""

from __future__ import annotations

import contextlib
import io
import json
import warnings

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.multiclass import OneVsRestClassifier

from fmacro import optimize
from fmacro.cli import main
from fmacro.optimize.sklearn import FMacroThresholdClassifier

RNG = np.random.default_rng(7)
X = RNG.normal(size=(240, 5))
Y = (X[:, :4] + RNG.normal(scale=1.5, size=(240, 4)) > np.array([0.5, 1.5, 2.0, 2.5])).astype(
    np.int64
)


def test_rate_caps_bound_labels_per_object():
    caps = optimize.rate_caps(Y, 2.0)
    np.testing.assert_allclose(caps, np.minimum(1.0, 2 * Y.mean(axis=0)))
    scores = X[:, :4]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        free = optimize.tune(scores, Y)
    capped = optimize.tune(scores, Y, max_predicted_rate=caps)
    predicted = scores >= capped.thresholds
    assert (predicted.mean(axis=0) <= caps).all()
    assert predicted.sum(axis=1).mean() <= 2 * Y.sum(axis=1).mean()
    assert capped.f <= free.f + 1e-12  # a constraint only removes cuts (in-sample values)


def test_estimator_takes_the_constraints_and_clones():
    from sklearn.base import clone

    caps = optimize.rate_caps(Y, 1.5)
    est = FMacroThresholdClassifier(
        OneVsRestClassifier(LogisticRegression()), max_predicted_rate=caps, min_precision=0.2
    )
    est.fit(X, Y)
    diag = est.threshold_result_.diagnostics["constraints"]
    assert diag["max_predicted_rate"] == caps.tolist()
    assert diag["min_precision"] == [0.2] * 4
    assert clone(est).get_params()["min_precision"] == 0.2
    # the same as tune on the estimator's out-of-fold scores under the same constraints
    plain = FMacroThresholdClassifier(OneVsRestClassifier(LogisticRegression())).fit(X, Y)
    assert plain.threshold_result_.diagnostics.get("constraints") is None


def test_estimator_refuses_constraints_on_one_shared_threshold():
    est = FMacroThresholdClassifier(
        OneVsRestClassifier(LogisticRegression()), objective="micro_f", min_precision=0.5
    )
    with pytest.raises(ValueError, match="shares one threshold"):
        est.fit(X, Y)


def test_binary_f_beta_takes_the_positive_class_value():
    y = Y[:, 0]
    est = FMacroThresholdClassifier(
        LogisticRegression(), objective="f_beta", max_predicted_rate=[1.0, 0.1]
    ).fit(X, y)
    assert est.threshold_result_.diagnostics["constraints"]["max_predicted_rate"] == [0.1]
    with pytest.raises(ValueError, match=r"max_predicted_rate must be .* shape \(2,\)"):
        FMacroThresholdClassifier(
            LogisticRegression(), objective="f_beta", max_predicted_rate=[0.1, 0.1, 0.1]
        ).fit(X, y)


def _cli(args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(args)
        except SystemExit as stop:  # argparse refuses an option's value this way
            code = stop.code
    return code, out.getvalue(), err.getvalue()


def test_cli_rate_factor_equals_the_library(tmp_path):
    scores = X[:, :4]
    np.savez(tmp_path / "r.npz", scores=scores, labels=Y)
    code, out, _ = _cli(
        ["thresholds", str(tmp_path / "r.npz"), "--json", "--quiet", "--max-rate-factor", "2"]
    )
    assert code == 0
    report = json.loads(out)
    assert report["skipped"] == ["global_threshold", "proportional", "top_k"]
    rows = {row["method"]: row for row in report["results"]}
    want = optimize.fixed_point(scores, Y, max_predicted_rate=optimize.rate_caps(Y, 2.0))
    assert rows["fixed_point"]["f_macro"] == pytest.approx(want.f, abs=1e-12)


@pytest.mark.parametrize(
    "extra",
    [
        ["--max-rate-factor", "0"],
        ["--max-predicted-rate", "1.2"],
        ["--min-precision", "x"],
        ["--max-rate-factor", "2", "--max-predicted-rate", "0.5"],
    ],
)
def test_cli_refuses_bad_constraints_with_exit_2(extra):
    code, _, err = _cli(["thresholds", "--quiet", *extra])
    assert code == 2
    assert "Traceback" not in err and err.strip()


def test_estimator_micro_macro_objective():
    from sklearn.metrics import f1_score

    est = FMacroThresholdClassifier(
        OneVsRestClassifier(LogisticRegression()), objective="micro_macro", mix=0.25
    ).fit(X, Y)
    diag = est.threshold_result_.diagnostics
    assert est.threshold_result_.method == "micro_macro" and diag["mix"] == 0.25
    # the tuning objective measured on the out-of-fold decisions is the search's own
    assert est.best_score_ == pytest.approx(diag["objective"], abs=1e-12)
    pred = est.predict(X)
    want = 0.25 * f1_score(Y, pred, average="micro") + 0.75 * f1_score(
        Y, pred, average="macro", zero_division=0
    )
    assert est.score(X, Y) == pytest.approx(want, abs=1e-12)
    with pytest.raises(ValueError, match="mix"):
        FMacroThresholdClassifier(LogisticRegression(), mix=1.5).fit(X, Y[:, 0])
    with pytest.raises(ValueError, match="needs a multi-label target"):
        FMacroThresholdClassifier(LogisticRegression(), objective="micro_macro").fit(X, Y[:, 0])


def test_cli_micro_macro_equals_the_library(tmp_path):
    scores = X[:, :4]
    np.savez(tmp_path / "r.npz", scores=scores, labels=Y)
    args = ["thresholds", str(tmp_path / "r.npz"), "--json", "--quiet", "--method"]
    code, out, _ = _cli([*args, "micro_macro", "--mix", "0.25"])
    assert code == 0
    (row,) = json.loads(out)["results"]
    want = optimize.micro_macro(scores, Y, mix=0.25)
    assert row["method"] == "micro_macro"
    assert row["f_macro"] == pytest.approx(want.f, abs=1e-12)


def test_a_labelled_series_is_refused_not_read_by_position():
    import pandas as pd

    scores = pd.DataFrame(X[:, :4], columns=["a", "b", "c", "d"])
    labels = pd.DataFrame(Y, columns=["a", "b", "c", "d"])
    caps = pd.Series({"d": 0.1, "c": 0.2, "b": 0.3, "a": 0.4})
    with pytest.raises(TypeError, match="matched to the class columns by position"):
        optimize.fixed_point(scores, labels, max_predicted_rate=caps)
    ordered = caps[list(scores.columns)].to_numpy()
    res = optimize.fixed_point(scores, labels, max_predicted_rate=ordered)
    assert res.diagnostics["constraints"]["max_predicted_rate"] == [0.4, 0.3, 0.2, 0.1]
    # a Series from a plain list (index 0..n-1) is positional by construction
    plain = optimize.fixed_point(scores, labels, max_predicted_rate=pd.Series(ordered))
    assert plain.thresholds.tolist() == res.thresholds.tolist()


@pytest.mark.parametrize(
    ("factor", "error", "match"),
    [
        (0, ValueError, "factor must be a finite number > 0"),
        (-1.0, ValueError, "factor must be a finite number > 0"),
        (float("nan"), ValueError, "factor must be a finite number > 0"),
        (float("inf"), ValueError, "factor must be a finite number > 0"),
        (True, TypeError, "factor must be a number > 0"),
        ("2", TypeError, "factor must be a number > 0"),
    ],
)
def test_rate_caps_refuses_bad_factors_by_name(factor, error, match):
    with pytest.raises(error, match=match):
        optimize.rate_caps(Y, factor)


def test_rate_caps_inputs_weights_and_unchanged_labels():
    import scipy.sparse as sp

    labels = Y.copy()
    w = np.arange(Y.shape[0], dtype=float) % 3
    np.testing.assert_array_equal(
        optimize.rate_caps(sp.csr_matrix(labels), 1.5), optimize.rate_caps(labels, 1.5)
    )
    rows = np.repeat(np.arange(Y.shape[0]), w.astype(int))  # integer weights: repeated rows
    np.testing.assert_allclose(
        optimize.rate_caps(labels, 2.0, sample_weight=w), optimize.rate_caps(labels[rows], 2.0)
    )
    np.testing.assert_array_equal(labels, Y)
    with pytest.raises(ValueError, match="must hold only 0 and 1"):
        optimize.rate_caps(labels * 2, 2.0)
    with pytest.raises(ValueError, match="sample_weight is all zero"):
        optimize.rate_caps(labels, 2.0, sample_weight=np.zeros(Y.shape[0]))


@pytest.mark.parametrize("value", ["nan", "1.5", "-0.1", "x"])
def test_cli_mix_out_of_range_exits_2(value):
    code, _, err = _cli(["thresholds", "--quiet", "--method", "micro_macro", "--mix", value])
    assert code == 2 and "--mix" in err and "Traceback" not in err
