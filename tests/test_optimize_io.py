"""Tests for optimize.io: the reference ranked-lists format, .npz and the XC format."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fmacro.optimize.baselines import per_class
from fmacro.optimize.io import (
    load_scores_npz,
    parse_ranked_lists,
    ranked_lists_from_scores,
    read_ranked_lists,
    read_support,
    read_xc,
    save_scores_npz,
    write_ranked_lists,
    write_support,
)
from fmacro.optimize.search.brute_force import brute_force
from fmacro.optimize.search.points import class_points


def _dense(x: Any) -> np.ndarray:
    return np.asarray(x.toarray())


def _write(tmp_path: Path, text: str, name: str = "lists.txt") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_read_dissertation_instance(tmp_path: Path) -> None:
    # T_b gives 2/3, the optimum is 12/17: labels by rank (0,0,1) and (1,0,1)
    path = _write(tmp_path, "# two classes\n3 0 0 1\n\n5 1 0 1\n")
    pts = read_ranked_lists(path, n_samples=3, support={3: 1, 5: 2})
    assert pts.indptr.tolist() == [0, 4, 8]
    assert pts.tp.tolist() == [0, 0, 0, 1, 0, 1, 1, 2]
    assert pts.fp.tolist() == [0, 1, 2, 2, 0, 0, 1, 1]
    assert pts.support.tolist() == [1, 2]
    assert per_class(points=pts).f == pytest.approx(2 / 3)
    assert brute_force(points=pts).f == pytest.approx(12 / 17)
    parsed = parse_ranked_lists(path)
    assert parsed.class_ids.tolist() == [3, 5]
    assert parsed.line_numbers.tolist() == [2, 4]
    assert parsed.list_for(1).tolist() == [1, 0, 1]


def test_truncated_lists_use_true_class_size(tmp_path: Path) -> None:
    # class 0 retrieved only 2 of 10 objects and has 4 positives in total
    path = _write(tmp_path, "0 1 0\n1 1 1 0\n")
    sizes_path = tmp_path / "sizes.txt"
    sizes_path.write_text("0 4\n1 2\n")
    pts = read_ranked_lists(path, n_samples=10, support=sizes_path)
    s0 = pts.class_slice(0)
    # empty, top 1, top 2, all objects (tp = 4, fp = 6)
    assert pts.tp[s0].tolist() == [0, 1, 1, 4]
    assert pts.fp[s0].tolist() == [0, 0, 1, 6]
    np.testing.assert_allclose(pts.recall[s0], [0, 0.25, 0.25, 1.0])
    assert pts.threshold[s0].tolist() == [math.inf, 0.0, -1.0, -math.inf]
    # the same with an array indexed by class id
    pts2 = read_ranked_lists(path, n_samples=10, support=np.array([4, 2]))
    assert pts2.tp.tolist() == pts.tp.tolist()


def test_positives_file_and_writers_round_trip(tmp_path: Path) -> None:
    lists = {7: [1, 0, 0, 1], 2: [0, 1], 9: []}
    sizes = {7: 3, 2: 1, 9: 2}
    write_ranked_lists(tmp_path / "l.txt", lists)
    write_support(tmp_path / "s.txt", sizes)
    assert (tmp_path / "l.txt").read_text() == "7 1 0 0 1\n2 0 1\n9\n"
    assert read_support(tmp_path / "s.txt") == sizes
    parsed = parse_ranked_lists(tmp_path / "l.txt")
    assert parsed.class_ids.tolist() == [7, 2, 9]
    assert parsed.list_for(2).tolist() == []
    pts = parsed.to_points(n_samples=6, support=tmp_path / "s.txt")
    assert pts.n_classes == 3 and pts.support.tolist() == [3, 1, 2]


@settings(max_examples=25, deadline=None)
@given(
    labels=hnp.arrays(
        np.int64, st.tuples(st.integers(3, 8), st.integers(1, 4)), elements=st.integers(0, 1)
    ),
    data=st.data(),
)
def test_text_round_trip_matches_class_points(
    tmp_path_factory: pytest.TempPathFactory, labels: np.ndarray, data: st.DataObject
) -> None:
    labels = labels.copy()
    labels[0, :] = 1
    n = labels.shape[0]
    # distinct scores so the ranking has no ties (the text format cannot express them)
    perm = data.draw(st.permutations(range(n * labels.shape[1])))
    scores = np.asarray(perm, dtype=float).reshape(labels.shape)
    lists, sizes = ranked_lists_from_scores(scores, labels)
    d = tmp_path_factory.mktemp("rt")
    write_ranked_lists(d / "l.txt", lists)
    write_support(d / "s.txt", sizes)
    from_text = read_ranked_lists(d / "l.txt", n_samples=n, support=d / "s.txt")
    direct = class_points(scores, labels)
    assert from_text.tp.tolist() == direct.tp.tolist()
    assert from_text.fp.tolist() == direct.fp.tolist()
    assert per_class(points=from_text).f == pytest.approx(per_class(points=direct).f)
    # truncated to the top 2: recall still divides by the full class size
    lists2, _ = ranked_lists_from_scores(scores, labels, top=2)
    write_ranked_lists(d / "l2.txt", lists2)
    trunc = read_ranked_lists(d / "l2.txt", n_samples=n, support=sizes)
    assert trunc.support.tolist() == direct.support.tolist()
    last = trunc.indptr[1:] - 1
    assert trunc.tp[last].tolist() == direct.support.tolist()


@pytest.mark.parametrize(
    ("text", "kwargs", "match"),
    [
        ("0 1 0\n1 1 2 0\n", {}, r"line 2: label 2 of class 1 is '2'; expected 0 or 1"),
        ("0 1 0\n\nx 1 0\n", {}, r"line 3: the class id \(first field\) must be a non-negative"),
        ("0 1 0\n-1 1 0\n", {}, r"line 2: the class id \(first field\) must be >= 0"),
        ("0 1 0\n0 1 1\n", {}, r"line 2: class id 0 repeats the class of line 1"),
        ("0 1 0 1 1\n", {"n_samples": 3}, r"line 1 \(class 0\): ranked list has 4 entries"),
        ("0 1 0\n1 1 1 1\n", {}, r"line 2 \(class 1\): ranked list holds 3 positives"),
        ("0 1 0 0 0\n", {"support": {0: 4}}, r"line 1 \(class 0\): ranked list holds 3 neg"),
        ("0 1\n4 1\n", {}, r"support has no entry for class 4 \(.*lists\.txt, line 2\)"),
        ("# nothing\n\n", {}, r"holds no class line"),
    ],
)
def test_malformed_files(tmp_path: Path, text: str, kwargs: dict[str, object], match: str) -> None:
    path = _write(tmp_path, text)
    args: dict[str, object] = {"n_samples": 4, "support": {0: 1, 1: 2}}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        read_ranked_lists(path, **args)  # type: ignore[arg-type]


def test_bad_positives(tmp_path: Path) -> None:
    path = _write(tmp_path, "0 1 0\n3 1\n")
    with pytest.raises(
        ValueError, match=r"support has 2 entries \(indexed by class id\) but line 2"
    ):
        read_ranked_lists(path, n_samples=4, support=np.array([1, 1]))
    with pytest.raises(TypeError, match="support must be a mapping"):
        read_ranked_lists(path, n_samples=4, support=np.array([1.5, 1.0, 1.0, 1.0]))
    with pytest.raises(ValueError, match="support must be >= 0"):
        read_ranked_lists(path, n_samples=4, support={0: 1, 3: -1})
    sizes = _write(tmp_path, "0 1\n3 1 2\n", "sizes.txt")
    with pytest.raises(ValueError, match=r"line 2: expected 'class_id size', got 3 fields"):
        read_ranked_lists(path, n_samples=4, support=sizes)
    with pytest.raises(ValueError, match="n_samples must be a positive integer"):
        read_ranked_lists(path, n_samples=0, support={0: 1, 3: 1})
    with pytest.raises(ValueError, match=r"line 1 \(class 0\): support 9 exceeds n_samples=4"):
        read_ranked_lists(path, n_samples=4, support={0: 9, 3: 1})


def test_npz_round_trip_dense_and_sparse(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    scores = rng.random((5, 3))
    labels = (rng.random((5, 3)) < 0.5).astype(np.uint8)
    save_scores_npz(tmp_path / "d.npz", scores, labels)
    s, y = load_scores_npz(tmp_path / "d.npz")
    np.testing.assert_array_equal(s, scores)
    np.testing.assert_array_equal(y, labels)
    save_scores_npz(tmp_path / "s.npz", sp.csr_matrix(scores), sp.csr_matrix(labels))
    s2, y2 = load_scores_npz(tmp_path / "s.npz")
    assert sp.issparse(s2) and sp.issparse(y2)
    np.testing.assert_array_equal(_dense(s2), scores)
    np.testing.assert_array_equal(_dense(y2), labels)
    np.savez(tmp_path / "other.npz", x=scores)
    with pytest.raises(ValueError, match="has no 'scores' array"):
        load_scores_npz(tmp_path / "other.npz")


def test_read_xc(tmp_path: Path) -> None:
    path = _write(tmp_path, "3 4 5\n0,2 0:0.5 3:1.5\n 1:2.0\n4 \n", "xc.txt")
    x, y = read_xc(path)
    assert x.shape == (3, 4) and y.shape == (3, 5)
    np.testing.assert_array_equal(x.toarray(), [[0.5, 0, 0, 1.5], [0, 2.0, 0, 0], [0, 0, 0, 0]])
    np.testing.assert_array_equal(y.toarray(), [[1, 0, 1, 0, 0], [0] * 5, [0, 0, 0, 0, 1]])
    bad = _write(tmp_path, "2 4 5\n0 0:0.5\n1 9:1\n", "bad.txt")
    with pytest.raises(ValueError, match="line 3: an index is out of the header's range"):
        read_xc(bad)
    bad2 = _write(tmp_path, "1 4 5\n0 0=0.5\n", "bad2.txt")
    with pytest.raises(ValueError, match="line 2: expected"):
        read_xc(bad2)
    short = _write(tmp_path, "3 4 5\n0 0:0.5\n", "short.txt")
    with pytest.raises(ValueError, match="header says 3 rows, found 1"):
        read_xc(short)
