"""Tests for optimize.plot (figures of the F-macro threshold search)."""

from __future__ import annotations

import importlib
import itertools
import math
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import attrs
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.collections import PathCollection, QuadMesh
from matplotlib.figure import Figure

import fmacro.optimize.plot as plot_module
import fmacro.optimize.plot._common as plot_common
import fmacro.optimize.plot._sampling as plot_sampling
from fmacro.optimize import (
    class_points,
    domain,
    fixed_point,
    localize,
    per_class,
)
from fmacro.optimize.plot import (
    PLOT_FILES,
    ArgVDisplay,
    ClassPointsDisplay,
    ConfusionMatrixDisplay,
    DomainDisplay,
    FoldScoresDisplay,
    FThresholdDisplay,
    LocalizationDisplay,
    PrecisionRecallDisplay,
    diagnostics,
    plot_argv,
    plot_class_points,
    plot_domain,
    plot_fold_scores,
    plot_localization,
    save_threshold_plots,
)

# Two classes over five objects (hand-computed below).
# class 0 ranks + - + - + (m = 3): cuts p/r = (0,0) (1,1/3) (1/2,1/3) (2/3,2/3) (1/2,2/3)
#   (3/5,1); its upper-right hull is (1, 1/3) -> (3/5, 1), edge angle atan2(0.4, 2/3).
# class 1 ranks + - + + - (m = 3): cuts (0,0) (1,1/3) (1/2,1/3) (2/3,2/3) (3/4,1) (3/5,1);
#   hull (1, 1/3) -> (3/4, 1), edge angle atan2(1/4, 2/3).
# conv D's upper-right boundary: (1, 1/3) -> (7/8, 2/3) -> (27/40, 1). ArgV jumps over the
# identity at class 0's angle (the "edge" case); the best achievable point is (27/40, 1).
SCORES = np.array([[0.9, 0.1], [0.8, 0.9], [0.7, 0.8], [0.2, 0.3], [0.1, 0.2]])
LABELS = np.array([[1, 0], [0, 1], [1, 0], [0, 1], [1, 1]])
HULL_0 = [[1.0, 1 / 3], [3 / 5, 1.0]]
HULL_1 = [[1.0, 1 / 3], [3 / 4, 1.0]]
BOUNDARY = [[1.0, 1 / 3], [7 / 8, 2 / 3], [27 / 40, 1.0]]
PHI_STAR = math.atan2(0.4, 2 / 3)


def _f1(p: Any, r: Any) -> Any:
    return 2 * np.asarray(p) * np.asarray(r) / (np.asarray(p) + np.asarray(r))


@pytest.fixture(autouse=True)
def _close_figures() -> Iterator[None]:
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def points() -> Any:
    return class_points(SCORES, LABELS)


def _label(artist: Any) -> str:
    return str(artist.get_label())


def _ydata(line: Any) -> np.ndarray:
    return np.asarray(line.get_ydata(), dtype=float)


def _lines_by_label(fig: Figure) -> dict[str, Any]:
    return {_label(line): line for ax in fig.axes for line in ax.get_lines()}


def _labels_starting(fig: Figure, prefix: str) -> list[Any]:
    return [line for name, line in _lines_by_label(fig).items() if name.startswith(prefix)]


def _xy(line: Any) -> np.ndarray:
    return np.column_stack((line.get_xdata(), line.get_ydata())).astype(float)


# --------------------------------------------------------------------------- matplotlib


def test_missing_matplotlib_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    # the package imports without matplotlib; the error comes at the first plot
    for name in sorted(n for n in sys.modules if n.startswith("optimize.plot.")):
        importlib.reload(sys.modules[name])
    module = importlib.reload(plot_module)
    with pytest.raises(ImportError, match="pip install matplotlib"):
        module.plot_domain(SCORES, LABELS)


def test_headless_detection(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert plot_common._headless()
    monkeypatch.setenv("DISPLAY", ":0")
    assert not plot_common._headless()


# --------------------------------------------------------------------------- class points


def test_class_points_hand_example(points: Any) -> None:
    fig = plot_class_points(points=points)
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    ax = fig.axes[0]
    assert ax.get_xlabel() == "precision p of the class"
    assert ax.get_ylabel() == "recall r of the class"
    hull_lines = _labels_starting(fig, "class ")
    assert [_label(h) for h in hull_lines] == [
        "class 0 (m = 3, 6 cuts)",
        "class 1 (m = 3, 6 cuts)",
    ]
    np.testing.assert_allclose(_xy(hull_lines[0]), HULL_0)
    np.testing.assert_allclose(_xy(hull_lines[1]), HULL_1)
    scatters = [c for c in ax.collections if isinstance(c, PathCollection)]
    # per class: its cut points and its chosen cut; plus the two legend proxies
    assert len(scatters) == 2 * 2 + 2
    cuts_0 = np.asarray(scatters[0].get_offsets())
    np.testing.assert_allclose(
        cuts_0, np.array([[0, 0], [1, 1 / 3], [0.5, 1 / 3], [2 / 3, 2 / 3], [0.5, 2 / 3], [0.6, 1]])
    )
    # the F-macro optimum takes every object of class 0 and the top four of class 1
    np.testing.assert_allclose(np.asarray(scatters[1].get_offsets()), [[3 / 5, 1.0]])
    np.testing.assert_allclose(np.asarray(scatters[3].get_offsets()), [[3 / 4, 1.0]])
    assert fig.legends and "F-macro optimum" in " ".join(
        t.get_text() for t in fig.legends[0].get_texts()
    )


def test_class_points_sample_and_choice() -> None:
    rng = np.random.default_rng(3)
    y = (rng.random((60, 12)) < 0.3).astype(np.uint8)
    s = y + rng.normal(0, 1, y.shape)
    fig = plot_class_points(s, y, max_classes=4, seed=1, mark_optimum=False)
    shown = _labels_starting(fig, "class ")
    assert len(shown) == 4
    sizes = y.sum(axis=0)
    for line in shown:  # drawn from the classes of at least median size
        col = int(_label(line).split()[1])
        assert sizes[col] >= np.median(sizes)
    fig = plot_class_points(s, y, classes=[7, 2])
    # drawn in the order asked for
    assert [_label(ln).split()[1] for ln in _labels_starting(fig, "class ")] == ["7", "2"]
    # every cut point lies on or below each hull edge's line (upper-right hull)
    pts = class_points(s, y)
    for line, j in zip(_labels_starting(fig, "class "), [7, 2], strict=True):
        hull = _xy(line)
        sl = pts.class_slice(j)
        cloud = np.column_stack((pts.precision[sl], pts.recall[sl]))
        for a, b in itertools.pairwise(hull):
            cross = (b[0] - a[0]) * (cloud[:, 1] - a[1]) - (b[1] - a[1]) * (cloud[:, 0] - a[0])
            assert (cross >= -1e-12).all() or (cross <= 1e-12).all()


def test_class_points_bad_input(points: Any) -> None:
    with pytest.raises(ValueError, match="max_classes"):
        plot_class_points(points=points, max_classes=0)
    with pytest.raises(TypeError, match="max_classes"):
        plot_class_points(points=points, max_classes=2.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="classes: column 5"):
        plot_class_points(points=points, classes=[5])
    with pytest.raises(TypeError, match="classes must be integer"):
        plot_class_points(points=points, classes=[0.5])
    with pytest.raises(ValueError, match="classes must name"):
        plot_class_points(points=points, classes=[])
    with pytest.raises(TypeError, match="ax must be a matplotlib Axes"):
        plot_class_points(points=points, ax="left")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="beta"):
        plot_class_points(points=points, beta=0.0)
    with pytest.raises(ValueError, match="not both"):
        plot_class_points(SCORES, LABELS, points=points)


# --------------------------------------------------------------------------- domain


def test_domain_hand_example(points: Any) -> None:
    fig = plot_domain(points=points, n_angles=5)
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 1  # everything is coarse: no zoom panel
    ax = fig.axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("macro precision P", "macro recall R")
    lines = _lines_by_label(fig)
    np.testing.assert_allclose(_xy(lines["upper-right boundary of conv D (exact)"]), BOUNDARY)
    support = domain(points=points, n_angles=5)
    np.testing.assert_allclose(
        _xy(lines["support polygon, 5 directions"]), support.diagnostics["outer_polygon"]
    )
    opt = _labels_starting(fig, "fixed_point optimum")
    np.testing.assert_allclose(_xy(opt[0]), [[27 / 40, 1.0]])
    # level curves: F = f through the optimum, F = upper bound (dashed) above it
    fp = fixed_point(points=points, exact=False)
    assert fp.diagnostics["status"] == "edge" and fp.upper_bound > fp.f
    found = _xy(_labels_starting(fig, "F_β = 0.8060 (found")[0])
    np.testing.assert_allclose(_f1(found[:, 0], found[:, 1]), fp.f, rtol=1e-9)
    bound = _xy(_labels_starting(fig, "F_β = 0.8097 (its upper bound")[0])
    np.testing.assert_allclose(_f1(bound[:, 0], bound[:, 1]), fp.upper_bound, rtol=1e-9)
    assert _labels_starting(fig, "domain lower bound F = 0.8060")
    # every one of the 6 x 6 cut vectors is drawn, no more
    sample = ax.collections[0]
    drawn = np.asarray(sample.get_offsets())
    p = np.asarray(points.precision).reshape(2, 6)
    r = np.asarray(points.recall).reshape(2, 6)
    brute = np.array(
        [[(p[0, a] + p[1, b]) / 2, (r[0, a] + r[1, b]) / 2] for a in range(6) for b in range(6)]
    )
    assert drawn.shape == (36, 2)
    np.testing.assert_allclose(np.sort(drawn, axis=0), np.sort(brute, axis=0))
    assert "all 36 cut vectors" in _label(sample)
    assert fig.legends and len(fig.legends[0].get_texts()) == 10


def test_domain_results_zoom_and_ax(points: Any) -> None:
    pc = per_class(points=points)
    fp = fixed_point(points=points)
    fig = plot_domain(points=points, results=[pc, fp], zoom=True)
    assert len(fig.axes) == 2
    for ax in fig.axes:
        marked = [ln for ln in ax.get_lines() if _label(ln).startswith("per_class")]
        assert len(marked) == 1
        np.testing.assert_allclose(_xy(marked[0]), [[pc.precision, pc.recall]])
        # the fixed_point result is the optimum already drawn: not repeated
        assert not any(_label(ln).startswith("fixed_point:") for ln in ax.get_lines())
    lo, hi = fig.axes[1].get_xlim()
    assert hi - lo < fig.axes[0].get_xlim()[1] - fig.axes[0].get_xlim()[0]
    _, ax = plt.subplots()
    assert plot_domain(points=points, ax=ax) is ax.figure
    assert ax.get_legend() is not None and len(ax.figure.axes) == 1


def test_domain_sample_of_many_classes() -> None:
    rng = np.random.default_rng(0)
    y = (rng.random((40, 30)) < 0.3).astype(np.uint8)
    y[0] = 1
    s = y * 1.5 + rng.normal(0, 1, y.shape)
    fig = plot_domain(s, y, n_samples=300, n_angles=6, seed=2)
    sample = fig.axes[0].collections[0]
    assert np.asarray(sample.get_offsets()).shape == (300, 2)
    assert "300 random cut vectors" in _label(sample)
    assert len(plot_domain(s, y, n_samples=10, zoom=False).axes) == 1
    again = plot_domain(s, y, n_samples=300, n_angles=6, seed=2)
    np.testing.assert_array_equal(
        np.asarray(again.axes[0].collections[0].get_offsets()), np.asarray(sample.get_offsets())
    )


def test_domain_bad_input(points: Any) -> None:
    with pytest.raises(ValueError, match="n_angles must be >= 3"):
        plot_domain(points=points, n_angles=2)
    with pytest.raises(ValueError, match="n_samples"):
        plot_domain(points=points, n_samples=0)
    with pytest.raises(TypeError, match=r"results\[1\] must be a ThresholdResult"):
        plot_domain(points=points, results=[fixed_point(points=points), (1, 2)])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="zoom"):
        plot_domain(points=points, zoom="yes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="scores and labels are required"):
        plot_domain()
    with pytest.raises(ValueError, match="same shape"):
        plot_domain(SCORES, LABELS[:, :1])


def test_inputs_not_modified() -> None:
    s = SCORES.copy()
    y = LABELS.copy()
    plot_domain(s, y)
    plot_argv(s, y)
    plot_class_points(s, y)
    np.testing.assert_array_equal(s, SCORES)
    np.testing.assert_array_equal(y, LABELS)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), n_cls=st.integers(1, 7), exhaustive=st.booleans())
def test_domain_sample_points_are_achievable(seed: int, n_cls: int, exhaustive: bool) -> None:
    rng = np.random.default_rng(seed)
    n_obj = 6 if exhaustive else 9
    y = (rng.random((n_obj, n_cls)) < 0.4).astype(np.uint8)
    y[0] = 1
    s = rng.normal(0, 1, y.shape).round(1)  # ties too
    pts = class_points(s, y)
    p_arr, r_arr, all_of_them = plot_sampling._sample_domain(pts, 500, np.random.default_rng(1))
    n = pts.n_classes
    per_class_pr = [
        (np.asarray(pts.precision[pts.class_slice(j)]), np.asarray(pts.recall[pts.class_slice(j)]))
        for j in range(n)
    ]
    total = math.prod(len(pr[0]) for pr in per_class_pr)
    assert all_of_them == (total <= 20_000)
    if all_of_them:
        assert p_arr.size == total
        brute = sorted(
            (round(sum(c[0] for c in combo) / n, 9), round(sum(c[1] for c in combo) / n, 9))
            for combo in itertools.product(*[list(zip(*pr, strict=True)) for pr in per_class_pr])
        )
        got = sorted(zip(np.round(p_arr, 9), np.round(r_arr, 9), strict=True))
        assert got == brute
    else:
        assert p_arr.size == 500
    # every point lies in conv D: below each support line h(phi) = mean of per-class maxima
    for phi in np.linspace(0, 2 * math.pi, 24, endpoint=False):
        c, si = math.cos(phi), math.sin(phi)
        h = sum(float(np.max(c * pp + si * rr)) for pp, rr in per_class_pr) / n
        assert (c * p_arr + si * r_arr <= h + 1e-9).all()


# --------------------------------------------------------------------------- ArgV


def test_argv_hand_example(points: Any) -> None:
    fig = plot_argv(points=points)
    ax = fig.axes[0]
    assert ax.get_xlabel().startswith("direction φ")
    assert ax.get_ylabel() == "ArgV(φ) (radians)"
    lines = ax.get_lines()
    assert len(lines) == 4  # identity, ArgV steps, crossing marker, guide at phi*
    identity = _xy(lines[0])
    np.testing.assert_allclose(identity, np.array([[0, 0], [1, 1]]) * math.pi / 2)
    steps = _xy(lines[1])
    # V: (1, 1/3) until class 1's edge angle, (7/8, 2/3) until class 0's, then (27/40, 1)
    a1 = math.atan2(0.25, 2 / 3)
    np.testing.assert_allclose(steps[:, 0], [0.0, a1, PHI_STAR, math.pi / 2])
    argv_hand = [
        math.atan2(1.0, 1 / 9),
        math.atan2((7 / 8) ** 2, (2 / 3) ** 2),
        math.atan2((27 / 40) ** 2, 1.0),
    ]
    np.testing.assert_allclose(steps[:, 1], [*argv_hand, argv_hand[-1]])
    np.testing.assert_allclose(_xy(lines[2]), [[PHI_STAR, PHI_STAR]])
    assert "edge case" in _label(lines[2])
    # beta = 2 moves ArgV up by atan2(4 P^2, R^2)
    fig2 = plot_argv(points=points, beta=2.0)
    np.testing.assert_allclose(_xy(fig2.axes[0].get_lines()[1])[0, 1], math.atan2(4.0, 1 / 9))


def test_argv_fixed_point_case() -> None:
    rng = np.random.default_rng(5)
    y = (rng.random((80, 40)) < 0.25).astype(np.uint8)
    y[0] = 1
    s = y + rng.normal(0, 1, y.shape)
    fig = plot_argv(s, y)
    fp = fixed_point(s, y)
    crossing = _xy(fig.axes[0].get_lines()[2])
    phi = fp.diagnostics["phi"]
    np.testing.assert_allclose(crossing, [[phi, phi]])
    steps = _xy(fig.axes[0].get_lines()[1])
    assert (np.diff(steps[:, 1]) <= 1e-15).all()  # non-increasing
    assert (np.diff(steps[:, 0]) > 0).all()


# --------------------------------------------------------------------------- localization


def test_localization(points: Any) -> None:
    rng = np.random.default_rng(2)
    y = (rng.random((60, 20)) < 0.3).astype(np.uint8)
    y[0] = 1
    s = y * 2 + rng.normal(0, 1, y.shape)
    loc = localize(s, y, grid=12)
    fig = plot_localization(s, y, grid=12)
    assert len(fig.axes) == 2  # the plot and its colour bar
    ax = fig.axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("macro precision P", "macro recall R")
    meshes = [c for c in ax.collections if isinstance(c, QuadMesh)]
    assert len(meshes) == 2
    np.testing.assert_allclose(np.asarray(meshes[0].get_array()).reshape(12, 12), loc.spread.T)
    candidates: Any = np.ma.asarray(meshes[1].get_array()).reshape(12, 12)
    np.testing.assert_array_equal(~np.ma.getmaskarray(candidates), loc.mask.T)
    texts = [t.get_text() for t in fig.legends[0].get_texts()]
    assert texts[0] == f"candidate cells ({int(loc.mask.sum())} of 144)"
    fp = fixed_point(s, y)
    assert loc.contains(fp.precision, fp.recall)
    star = _labels_starting(fig, "fixed_point optimum")
    np.testing.assert_allclose(_xy(star[0]), [[fp.precision, fp.recall]])
    # a prebuilt result is drawn as is
    fig2 = plot_localization(localization=loc, mark_optimum=False)
    np.testing.assert_allclose(
        np.asarray(fig2.axes[0].collections[0].get_array()).reshape(12, 12), loc.spread.T
    )


def test_localization_bad_input(points: Any) -> None:
    loc = localize(points=points, grid=4)
    with pytest.raises(ValueError, match=r"beta=2\.0"):
        plot_localization(points=points, beta=2.0, localization=loc)
    with pytest.raises(TypeError, match="localization must be a LocalizeResult"):
        plot_localization(points=points, localization=np.zeros((4, 4)))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="needs scores and labels"):
        plot_localization()
    with pytest.raises(ValueError, match="grid must be >= 1"):
        plot_localization(points=points, grid=0)
    many = class_points(np.c_[SCORES, SCORES], np.c_[LABELS, LABELS])
    with pytest.raises(ValueError, match="2 classes but the points have 4"):
        plot_localization(points=many, localization=loc)


# --------------------------------------------------------------------------- cross-validation


def test_fold_scores_duck_typed() -> None:
    cv = SimpleNamespace(
        fold_scores=np.array([0.5, 0.7, 0.9]),
        pooled=SimpleNamespace(score=0.72),
        mean=0.7,
        std=float(np.std([0.5, 0.7, 0.9])),
    )
    fig = plot_fold_scores(cv, score_label="F1")
    ax = fig.axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("fold", "F1")
    lines = {_label(ln).split()[0]: ln for ln in ax.get_lines()}
    np.testing.assert_allclose(_ydata(lines["pooled"]), [0.72, 0.72])
    np.testing.assert_allclose(_ydata(lines["fold"]), [0.7, 0.7])
    np.testing.assert_allclose(_xy(lines["score"]), [[1, 0.5], [2, 0.7], [3, 0.9]])
    band: Any = ax.patches[0]
    assert len(ax.patches) == 1
    assert band.get_y() == pytest.approx(0.7 - cv.std)
    assert band.get_y() + band.get_height() == pytest.approx(0.7 + cv.std)
    assert "pooled 0.7200 vs fold mean 0.7000" in ax.get_title()


def test_fold_scores_cross_validation() -> None:
    from fmacro.crossval import KFold, cross_validate

    x = np.arange(20.0)
    y = (x >= 10).astype(int)

    def fit(x_train: Any, y_train: Any) -> Any:
        cut = x_train[y_train == 1].min()
        return lambda x_val: (x_val >= cut).astype(int)

    cv = cross_validate(fit, x, y, KFold(k=4, seed=0))
    fig = plot_fold_scores(cv)
    lines = {_label(ln).split()[0]: ln for ln in fig.axes[0].get_lines()}
    assert _ydata(lines["pooled"])[0] == pytest.approx(0.9474, abs=1e-4)
    assert _ydata(lines["fold"])[0] == pytest.approx(0.95, abs=1e-4)
    np.testing.assert_allclose(_ydata(lines["score"]), cv.fold_scores)


def test_fold_scores_bad_input() -> None:
    with pytest.raises(TypeError, match="'fold_scores'"):
        plot_fold_scores(SimpleNamespace(pooled=SimpleNamespace(score=1), mean=1, std=0))
    with pytest.raises(TypeError, match=r"pooled\.score"):
        plot_fold_scores(SimpleNamespace(fold_scores=[1.0], pooled=1.0, mean=1, std=0))
    empty = SimpleNamespace(fold_scores=[], pooled=SimpleNamespace(score=1), mean=1, std=0)
    with pytest.raises(ValueError, match="fold_scores is empty"):
        plot_fold_scores(empty)


# --------------------------------------------------------------------------- files


def test_save_threshold_plots(points: Any, tmp_path: Path) -> None:
    results = [
        (fixed_point(points=points), 0.01),
        (domain(points=points, n_angles=7), 0.02),
        (per_class(points=points), 0.01),
    ]
    out = tmp_path / "nested" / "plots"
    written = save_threshold_plots(points, results, out)
    assert [w.name for w in written] == list(PLOT_FILES)
    # the figures for users first, then the captioned diagnostics
    assert PLOT_FILES[:2] == ("pr_curves.png", "f_threshold.png")
    for path in written:
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    assert plt.get_fignums() == []  # every figure was closed
    # again into the same folder, bare results accepted
    again = save_threshold_plots(points, [r for r, _ in results], out, beta=1.0)
    assert again == written


def test_save_threshold_plots_bad_input(points: Any, tmp_path: Path) -> None:
    fp = fixed_point(points=points)
    with pytest.raises(TypeError, match="points must be a ClassPoints"):
        save_threshold_plots(SCORES, [(fp, 0.0)], tmp_path)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"results\[0\]"):
        save_threshold_plots(points, [("fixed_point", 0.0)], tmp_path)
    with pytest.raises(ValueError, match=r"beta=2\.0"):
        save_threshold_plots(points, [(fp, 0.0)], tmp_path, beta=2.0)
    file = tmp_path / "a_file"
    file.write_text("x")
    with pytest.raises(ValueError, match="not a directory"):
        save_threshold_plots(points, [(fp, 0.0)], file)
    assert plt.get_fignums() == []


# --------------------------------------------------------------------------- displays

# class 1 of SCORES/LABELS, cut by cut (empty cut first): thresholds +inf .9 .8 .3 .2 .1
CLASS_1_P = [0.0, 1.0, 1 / 2, 2 / 3, 3 / 4, 3 / 5]
CLASS_1_R = [0.0, 1 / 3, 1 / 3, 2 / 3, 1.0, 1.0]
CLASS_1_F = [0.0, 1 / 2, 2 / 5, 2 / 3, 6 / 7, 3 / 4]


def _brute_pr(scores: np.ndarray, labels: np.ndarray, t: float) -> tuple[float, float]:
    pred = scores >= t
    tp = int(np.sum(pred & (labels == 1)))
    return (tp / pred.sum() if pred.sum() else 0.0), tp / int(labels.sum())


def test_precision_recall_display_hand_example() -> None:
    d = PrecisionRecallDisplay.from_scores(SCORES, LABELS, column=1)
    np.testing.assert_allclose(d.precision, CLASS_1_P)
    np.testing.assert_allclose(d.recall, CLASS_1_R)
    np.testing.assert_array_equal(d.thresholds, [np.inf, 0.9, 0.8, 0.3, 0.2, 0.1])
    assert d.chosen == 4  # the class's own F1 optimum, 6/7 at threshold 0.2
    assert d.operating_point == pytest.approx((1.0, 3 / 4, 0.2))
    assert (d.class_name, d.support) == ("class 1", 3)
    # a given threshold: the cut predicting exactly score >= threshold
    at = PrecisionRecallDisplay.from_scores(SCORES[:, 1], LABELS[:, 1], threshold=0.5)
    assert at.chosen == 2 and at.operating_point[:2] == pytest.approx((1 / 3, 1 / 2))
    assert PrecisionRecallDisplay.from_scores(SCORES, LABELS, 1, threshold=np.inf).chosen == 0
    assert PrecisionRecallDisplay.from_scores(SCORES, LABELS, 1, threshold=-np.inf).chosen == 5
    with pytest.raises(ValueError, match="column 2 is out of range: scores has 2 columns"):
        PrecisionRecallDisplay.from_scores(SCORES, LABELS, column=2)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), n_cls=st.integers(1, 4))
def test_displays_from_result_match_brute_force(seed: int, n_cls: int) -> None:
    rng = np.random.default_rng(seed)
    y = (rng.random((25, n_cls)) < 0.4).astype(np.uint8)
    y[0] = 1  # every class has a positive
    s = np.round(y * 0.3 + rng.random(y.shape), 2)  # ties on purpose
    pts = class_points(s, y)
    result = fixed_point(points=pts)
    for k in range(n_cls):
        pr = PrecisionRecallDisplay.from_result(result, pts, k)
        r, p, t = pr.operating_point
        assert t == result.thresholds[k]
        assert (p, r) == pytest.approx(_brute_pr(s[:, k], y[:, k], t))
        ft = FThresholdDisplay.from_result(result, pts, k)
        assert ft.chosen_threshold == result.thresholds[k]
        for thr, f in zip(ft.thresholds, ft.f, strict=True):
            bp, br = _brute_pr(s[:, k], y[:, k], thr)
            assert f == pytest.approx(_f1(bp, br) if bp + br else 0.0)
        assert ft.thresholds.size == np.unique(s[:, k]).size  # one per tie group


def test_f_threshold_display_hand_example() -> None:
    d = FThresholdDisplay.from_scores(SCORES, LABELS, column=1, name="sports")
    np.testing.assert_array_equal(d.thresholds, [0.9, 0.8, 0.3, 0.2, 0.1])
    np.testing.assert_allclose(d.f, CLASS_1_F[1:])
    assert (d.chosen_threshold, d.chosen_f, d.class_name) == (0.2, pytest.approx(6 / 7), "sports")


def test_confusion_matrix_display_matches_sklearn() -> None:
    from sklearn.metrics import confusion_matrix

    from fmacro.validation import MultiFValidation

    rng = np.random.default_rng(2)
    y, p = rng.integers(0, 3, 50), rng.integers(0, 3, 50)
    names = np.array(["ant", "bee", "cat"])
    v = MultiFValidation.from_predictions(names[y], names[p])
    d = ConfusionMatrixDisplay.from_validation(v)
    np.testing.assert_array_equal(d.matrix, confusion_matrix(y, p))
    assert d.classes == ("ant", "bee", "cat")
    for how in ("true", "pred", "all"):
        normed = ConfusionMatrixDisplay.from_validation(v, normalize=how).matrix
        np.testing.assert_allclose(normed, confusion_matrix(y, p, normalize=how))
    with pytest.raises(ValueError, match="normalize must be one of"):
        ConfusionMatrixDisplay.from_validation(v, normalize="rows")
    with pytest.raises(TypeError, match="validation must be a MultiFValidation"):
        ConfusionMatrixDisplay.from_validation(object())


def test_fold_scores_display_from_cross_validation() -> None:
    from fmacro.crossval import KFold, cross_validate

    x = np.arange(20.0)
    y = (x >= 10).astype(int)

    def fit(x_train: Any, y_train: Any) -> Any:
        cut = x_train[y_train == 1].min()
        return lambda x_val: (x_val >= cut).astype(int)

    cv = cross_validate(fit, x, y, KFold(k=4, seed=0))
    d = FoldScoresDisplay.from_cross_validation(cv, score_label="F1")
    np.testing.assert_array_equal(d.fold_scores, cv.fold_scores)
    assert d.pooled == pytest.approx(0.9474, abs=1e-4)  # 18 / 19 (as plot_fold_scores)
    assert d.mean == pytest.approx(0.95, abs=1e-4)  # (1 + 1 + 1 + 0.8) / 4
    assert d.std == pytest.approx(float(np.std(cv.fold_scores)))
    with pytest.raises(TypeError, match=r"cv must be a crossval\.CrossValidation"):
        FoldScoresDisplay.from_cross_validation([0.5, 0.6])


def test_displays_draw_on_agg_and_return_themselves() -> None:
    from fmacro.validation import MultiFValidation

    assert matplotlib.get_backend().lower() == "agg"
    pr = PrecisionRecallDisplay.from_scores(SCORES, LABELS, column=1)
    drawn = pr.plot()
    assert pr.ax_ is None and drawn.ax_ is not None and drawn.figure_ is drawn.ax_.figure
    np.testing.assert_array_equal(drawn.precision, pr.precision)
    ax = drawn.ax_
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("recall", "precision")
    lines = ax.get_lines()
    np.testing.assert_allclose(lines[0].get_xdata(), CLASS_1_R[1:])  # recall on x
    np.testing.assert_allclose(lines[0].get_ydata(), CLASS_1_P[1:])
    assert (lines[1].get_xdata()[0], lines[1].get_ydata()[0]) == (1.0, 0.75)
    # a second class on the same axes, as scikit-learn's displays
    other = PrecisionRecallDisplay.from_scores(SCORES, LABELS, column=0).plot(ax=ax)
    assert other.ax_ is ax and len(ax.get_lines()) == 4
    ft = FThresholdDisplay.from_scores(SCORES, LABELS, column=1).plot()
    assert ft.ax_.get_lines()[1].get_xdata()[0] == 0.2  # the chosen threshold's line
    v = MultiFValidation.from_predictions([0, 1, 2, 2], [0, 2, 2, 1])
    cm = ConfusionMatrixDisplay.from_validation(v).plot()
    assert [t.get_text() for t in cm.ax_.texts] == ["1", "0", "0", "0", "0", "1", "0", "1", "1"]
    assert (cm.ax_.get_xlabel(), cm.ax_.get_ylabel()) == ("predicted class", "expected class")
    folds = SimpleNamespace(fold_scores=[0.5, 0.7], pooled=SimpleNamespace(score=0.6))
    fs = FoldScoresDisplay.from_cross_validation(folds).plot()
    assert [p.get_height() for p in fs.ax_.patches[:2]] == [0.5, 0.7]


def test_diagnostics_are_captioned(points: Any, tmp_path: Path) -> None:
    assert set(diagnostics.CAPTIONS) == {"class_points", "domain", "argv", "localization"}
    fig = diagnostics.plot_argv(points=points)
    fig.savefig(tmp_path / "plain.png", dpi=50)
    diagnostics.save_captioned(fig, "argv", tmp_path / "captioned.png", dpi=50)
    plain = plt.imread(tmp_path / "plain.png")
    captioned = plt.imread(tmp_path / "captioned.png")
    assert captioned.shape[0] > plain.shape[0] + 20  # room for the caption underneath
    with pytest.raises(ValueError, match="name must be one of"):
        diagnostics.save_captioned(fig, "hulls", tmp_path / "x.png")


def test_class_points_title_says_which_classes_and_why() -> None:
    rng = np.random.default_rng(3)
    y = (rng.random((60, 12)) < 0.3).astype(np.uint8)
    s = y + rng.normal(0, 1, y.shape)
    title = plot_class_points(s, y, max_classes=4, seed=1).axes[0].get_title()
    assert "4 of 12 classes, drawn at random (seed 1)" in title.replace("\n", " ")
    assert "median number of positives" in title.replace("\n", " ")
    assert "the classes asked for" in plot_class_points(s, y, classes=[7, 2]).axes[0].get_title()
    assert "all 2 classes" in plot_class_points(SCORES, LABELS).axes[0].get_title()


# --------------------------------------------------------------------------- diagnostic displays
# compute (from_points) without drawing, checked against the search functions and the hand
# example at the top; then draw on Agg and check the artists hold the computed arrays


def _assert_read_only(*arrays: np.ndarray) -> None:
    for arr in arrays:
        with pytest.raises(ValueError, match="read-only"):
            arr[...] = 0


def test_class_points_display_computes_hand_values(points: Any) -> None:
    d = ClassPointsDisplay.from_points(points)
    assert plt.get_fignums() == []  # computing draws nothing
    np.testing.assert_array_equal(d.columns, [0, 1])
    assert d.why == "all 2 classes with positives"
    np.testing.assert_allclose(d.precision[0], [0, 1, 1 / 2, 2 / 3, 1 / 2, 3 / 5])
    np.testing.assert_allclose(d.recall[0], [0, 1 / 3, 1 / 3, 2 / 3, 2 / 3, 1])
    np.testing.assert_allclose(d.precision[1], CLASS_1_P)
    np.testing.assert_allclose(np.column_stack((d.hull_p[0], d.hull_r[0])), HULL_0)
    np.testing.assert_allclose(np.column_stack((d.hull_p[1], d.hull_r[1])), HULL_1)
    # the optimum's cuts, as fixed_point chose them: all of class 0, the top 4 of class 1
    fp = fixed_point(points=points)
    np.testing.assert_array_equal(fp.cuts, [5, 4])
    assert d.chosen_p is not None and d.chosen_r is not None
    np.testing.assert_allclose(d.chosen_p, [3 / 5, 3 / 4])
    np.testing.assert_allclose(d.chosen_r, [1.0, 1.0])
    np.testing.assert_array_equal(d.support, [3, 3])
    np.testing.assert_array_equal(d.n_cuts, [6, 6])
    _assert_read_only(d.columns, d.precision[0], d.hull_r[1], d.chosen_p, d.support)
    # the classes asked for, in that order; no optimum when not asked
    rng = np.random.default_rng(3)
    y = (rng.random((60, 12)) < 0.3).astype(np.uint8)
    s = y + rng.normal(0, 1, y.shape)
    asked = ClassPointsDisplay.from_scores(s, y, classes=[7, 2], mark_optimum=False)
    np.testing.assert_array_equal(asked.columns, [7, 2])
    assert asked.chosen_p is None and asked.why == "the classes asked for"
    pts = class_points(s, y)
    np.testing.assert_array_equal(asked.recall[0], pts.recall[pts.class_slice(7)])
    sample = ClassPointsDisplay.from_points(pts, max_classes=4, seed=1)
    assert sample.columns.size == 4 and sample.n_classes == 12
    assert (y.sum(axis=0)[sample.columns] >= np.median(y.sum(axis=0))).all()
    assert "4 of 12 classes, drawn at random (seed 1)" in sample.why


def test_domain_display_computes_hand_values(points: Any) -> None:
    pc = per_class(points=points)
    fp = fixed_point(points=points)
    d = DomainDisplay.from_points(points, n_angles=5, results=[pc, fp])
    assert plt.get_fignums() == []
    np.testing.assert_allclose(d.boundary, BOUNDARY)
    support = domain(points=points, n_angles=5)
    np.testing.assert_allclose(d.support_polygon, support.diagnostics["outer_polygon"])
    np.testing.assert_allclose(d.support_points, support.diagnostics["support_points"])
    assert (d.optimum.precision, d.optimum.recall) == pytest.approx((27 / 40, 1.0))
    assert d.optimum.f == pytest.approx(fp.f) and d.support.f == pytest.approx(support.f)
    # the fixed_point result sits on the optimum already drawn: only per_class is marked
    assert [r.method for r in d.others] == ["per_class"]
    # all 6 x 6 cut vectors of D, by brute force
    assert d.exhaustive and d.sample_p.size == 36
    p = np.asarray(points.precision).reshape(2, 6)
    r = np.asarray(points.recall).reshape(2, 6)
    brute_p = sorted((p[0, a] + p[1, b]) / 2 for a in range(6) for b in range(6))
    np.testing.assert_allclose(np.sort(d.sample_p), brute_p)
    np.testing.assert_allclose(np.sort(d.sample_r), np.sort((r[0][:, None] + r[1]) / 2, None))
    # the full view holds every point drawn; two classes need no zoom
    x0, x1, y0, y1 = d.full_window
    assert x0 <= d.sample_p.min() and d.sample_p.max() <= x1 <= 1.02
    assert y0 <= d.sample_r.min() and d.sample_r.max() <= y1 <= 1.02
    assert not d.zoom_suggested
    assert (d.n_classes, d.n_angles, d.beta) == (2, 5, 1.0)
    _assert_read_only(d.sample_p, d.boundary, d.support_polygon)
    same = DomainDisplay.from_scores(SCORES, LABELS, n_angles=5, seed=0)
    np.testing.assert_array_equal(same.sample_p, d.sample_p)
    with pytest.raises(TypeError, match="points must be a ClassPoints"):
        DomainDisplay.from_points(None)  # type: ignore[arg-type]


def test_argv_display_computes_hand_values(points: Any) -> None:
    d = ArgVDisplay.from_points(points)
    assert plt.get_fignums() == []
    a1 = math.atan2(0.25, 2 / 3)
    np.testing.assert_allclose(d.phi, [0.0, a1, PHI_STAR, math.pi / 2])
    argv_hand = [
        math.atan2(1.0, 1 / 9),
        math.atan2((7 / 8) ** 2, (2 / 3) ** 2),
        math.atan2((27 / 40) ** 2, 1.0),
    ]
    np.testing.assert_allclose(d.argv, [*argv_hand, argv_hand[-1]])
    fp = fixed_point(points=points)
    assert d.phi_star == pytest.approx(PHI_STAR) == fp.diagnostics["phi"]
    assert (d.status, d.n_jumps, d.n_classes) == ("edge", 2, 2)
    assert d.f == pytest.approx(fp.f)
    _assert_read_only(d.phi, d.argv)
    assert ArgVDisplay.from_points(points, beta=2.0).argv[0] == pytest.approx(
        math.atan2(4.0, 1 / 9)
    )
    np.testing.assert_array_equal(ArgVDisplay.from_scores(SCORES, LABELS).argv, d.argv)


def test_localization_display_computes_localize(points: Any) -> None:
    loc = localize(points=points, grid=6)
    d = LocalizationDisplay.from_points(points, grid=6)
    assert plt.get_fignums() == []
    for name in ("p_edges", "r_edges", "spread", "mask"):
        np.testing.assert_array_equal(getattr(d.localization, name), getattr(loc, name))
    assert d.n_candidates == int(loc.mask.sum())
    assert d.boundary is not None and d.optimum is not None
    np.testing.assert_allclose(d.boundary, BOUNDARY)
    assert (d.optimum.precision, d.optimum.recall) == pytest.approx((27 / 40, 1.0))
    assert loc.contains(d.optimum.precision, d.optimum.recall)
    # a prebuilt grid: without points nothing to mark; beta taken from the grid
    bare = LocalizationDisplay.from_localization(loc)
    assert bare.localization is loc and bare.boundary is None and bare.optimum is None
    assert LocalizationDisplay.from_points(points, grid=6, mark_optimum=False).optimum is None
    with pytest.raises(ValueError, match=r"beta=2\.0"):
        LocalizationDisplay.from_localization(loc, points, beta=2.0)
    with pytest.raises(TypeError, match="localization must be a LocalizeResult"):
        LocalizationDisplay.from_localization(loc.spread)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="grid must be >= 1"):
        LocalizationDisplay.from_points(points, grid=0)


def test_diagnostic_displays_draw_on_agg(points: Any) -> None:
    assert matplotlib.get_backend().lower() == "agg"
    cp = ClassPointsDisplay.from_points(points)
    drawn = cp.plot()
    assert cp.ax_ is None and drawn.figure_ is drawn.ax_.figure
    hulls = [ln for ln in drawn.ax_.get_lines() if _label(ln).startswith("class ")]
    np.testing.assert_allclose(_xy(hulls[1]), np.column_stack((cp.hull_p[1], cp.hull_r[1])))
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        cp.why = "changed"  # type: ignore[misc]

    dd = DomainDisplay.from_points(points, n_angles=5)
    fig = dd.plot(zoom=True).figure_
    assert len(fig.axes) == 2
    lines = _lines_by_label(fig)
    np.testing.assert_allclose(_xy(lines["upper-right boundary of conv D (exact)"]), dd.boundary)
    x0, x1, _, _ = dd.zoom_window
    assert fig.axes[1].get_xlim() == pytest.approx((x0, x1))
    with pytest.raises(TypeError, match="zoom"):
        dd.plot(zoom="yes")  # type: ignore[arg-type]

    # several displays on the axes of one figure, as scikit-learn's displays
    fig, (ax_a, ax_b) = plt.subplots(1, 2)
    av = ArgVDisplay.from_points(points).plot(ax=ax_b, title="ArgV")
    assert av.ax_ is ax_b and av.figure_ is fig and ax_b.get_title() == "ArgV"
    steps = _xy(ax_b.get_lines()[1])
    np.testing.assert_allclose(steps, np.column_stack((av.phi, av.argv)))
    loc = LocalizationDisplay.from_points(points, grid=6).plot(ax=ax_a)
    assert loc.ax_ is ax_a and loc.figure_ is fig
    mesh = next(c for c in ax_a.collections if isinstance(c, QuadMesh))
    np.testing.assert_allclose(
        np.asarray(mesh.get_array()).reshape(6, 6), loc.localization.spread.T
    )
    assert ax_a.get_legend() is not None


def test_forced_zoom_stays_a_quarter_of_d() -> None:
    rng = np.random.default_rng(0)
    y = (rng.random((300, 25)) < 0.2).astype(np.uint8)
    y[0] = 1
    s = y * 1.2 + rng.normal(0, 1, y.shape)
    d = DomainDisplay.from_points(class_points(s, y))
    # the domain lower bound lies far from the optimum here: no zoom suggested, and a
    # zoom asked for is a square a quarter of the full view across, centred on the optimum
    assert not d.zoom_suggested
    x0, x1, y0, y1 = d.zoom_window
    full = d.full_window
    extent = max(full[1] - full[0], full[3] - full[2])
    assert x1 - x0 == pytest.approx(0.25 * extent) == y1 - y0
    assert ((x0 + x1) / 2, (y0 + y1) / 2) == pytest.approx((d.optimum.precision, d.optimum.recall))


def test_diagnostic_displays_compute_without_matplotlib(
    points: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [n for n in sys.modules if n == "matplotlib" or n.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    assert ClassPointsDisplay.from_points(points).chosen_p is not None
    assert DomainDisplay.from_points(points, n_angles=5).sample_p.size == 36
    assert ArgVDisplay.from_points(points).n_jumps == 2
    assert LocalizationDisplay.from_points(points, grid=4).optimum is not None
    with pytest.raises(ImportError, match="pip install matplotlib"):
        ArgVDisplay.from_points(points).plot()
