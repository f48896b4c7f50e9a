"""The ARFF reader against the dataset README's published statistics."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from fmacro.validation.datasets import data_dir, load_arff_data, load_dataset, read_arff


@pytest.mark.parametrize(
    ("name", "split", "n", "d", "n_labels", "cardinality"),
    [
        ("corel5k", "train", 4500, 499, 374, 3.522),
        ("corel5k", "test", 500, 499, 374, 3.526),
        ("yeast", "train", 1500, 103, 14, 4.228),
        ("emotions", "test", 202, 72, 6, 1.975),
        ("enron", "train", 1123, 1001, 53, 3.386),
        ("medical", "train", 333, 1449, 45, 1.255),
        ("genbase", "test", 199, 1186, 27, 1.231),
    ],
)
def test_shapes_and_label_cardinality_match_the_readme(
    name, split, n, d, n_labels, cardinality
) -> None:  # type: ignore[no-untyped-def]
    X, Y = load_dataset(name, split)
    assert X.shape == (n, d)
    assert Y.shape == (n, n_labels)
    assert round(float(Y.sum(axis=1).mean()), 3) == cardinality


def test_sparse_and_dense_agree_and_all_stacks_splits() -> None:
    X, Y = load_dataset("corel5k", "test")
    Xs, Ys = load_dataset("corel5k", "test", sparse=True)
    assert sp.issparse(Xs) and sp.issparse(Ys)
    assert np.array_equal(Xs.toarray(), X) and np.array_equal(Ys.toarray(), Y)
    _, Y_all = load_dataset("corel5k", "all")
    assert Y_all.shape == (5000, 374)
    assert round(float(Y_all.sum(axis=1).mean()), 3) == 3.522
    names = load_arff_data("corel5k", "test").label_names
    assert names[:2] == ("city", "mountain")


def test_birds_quoted_names_and_yes_no_nominals() -> None:
    birds = load_arff_data("birds", "train")
    assert "Swainson's Thrush" in birds.label_names
    genbase = load_arff_data("genbase", "train")
    assert set(np.unique(genbase.X[:, 1:])) <= {0.0, 1.0}


def test_malformed_rows_report_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "bad.arff.gz"
    text = "@relation t\n@attribute a numeric\n@attribute l {0,1}\n@data\n1,0\n2,1,3\n"
    with gzip.open(path, "wt") as handle:
        handle.write(text)
    with pytest.raises(ValueError, match=r"bad.arff.gz:6"):
        read_arff(path, 1)
    with pytest.raises(ValueError, match="n_labels"):
        read_arff(path, 5)
    with pytest.raises(ValueError, match="n_labels or xml"):
        read_arff(path)
    with pytest.raises(ValueError, match="name must be one of"):
        load_dataset("nope")


YEAST = ("yeast-train.arff.gz", "yeast-test.arff.gz", "yeast.xml.gz")
TESTS_DATA = Path(__file__).resolve().parent / "data"


def _yeast_copy(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for name in YEAST:
        shutil.copy(TESTS_DATA / "yeast" / name, folder / name)
    return folder


def test_bundled_data_come_from_the_package_not_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import fmacro.validation

    monkeypatch.delenv("FMACRO_DATA", raising=False)
    monkeypatch.chdir(tmp_path)
    assert data_dir("emotions") == Path(fmacro.validation.__file__).parent / "data"
    X, Y = load_dataset("emotions", "test")
    assert X.shape == (202, 72) and Y.shape == (202, 6)


def test_a_shared_data_folder_next_to_the_working_directory_is_not_searched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _yeast_copy(tmp_path / "shared" / "data" / "yeast")
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    monkeypatch.delenv("FMACRO_DATA", raising=False)
    with pytest.raises(FileNotFoundError) as info:
        load_dataset("yeast")
    message = str(info.value)
    assert "yeast/yeast-train.arff.gz" in message
    assert "path=" in message and "FMACRO_DATA" in message
    assert "corel5k and emotions are bundled" in message


def test_explicit_path_and_fmacro_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    flat = _yeast_copy(tmp_path / "flat")  # the files themselves
    nested = tmp_path / "nested"
    _yeast_copy(nested / "yeast")  # a subfolder per dataset
    monkeypatch.delenv("FMACRO_DATA", raising=False)
    expected = load_dataset("yeast", "test", path=TESTS_DATA)
    for folder in (flat, nested, str(nested)):
        X, Y = load_dataset("yeast", "test", path=folder)
        assert np.array_equal(X, expected[0]) and np.array_equal(Y, expected[1])
    monkeypatch.setenv("FMACRO_DATA", str(nested))
    assert data_dir("yeast") == nested / "yeast"
    assert data_dir("emotions").name == "data"  # bundled copies still found after $FMACRO_DATA
    # an explicit path is the only place searched: no fallback to $FMACRO_DATA or bundled
    with pytest.raises(FileNotFoundError, match=r"searched .*empty\)") as info:
        (tmp_path / "empty").mkdir()
        load_dataset("emotions", path=tmp_path / "empty")
    assert "bundled" not in str(info.value)
