"""Reading Mulan multi-label datasets (dense and sparse ARFF, gzip or plain).

The Mulan convention: the labels are the *last* ``L`` attributes of the ARFF header,
with ``L`` taken from the dataset's ``.xml`` label list (or given). Sparse rows
``{i v, j w}`` use 0-based attribute indices; attributes left out are 0.

Nominal features are encoded as numbers: a nominal whose values are all numeric
(e.g. ``{0,1}``) keeps its numeric value, ``{YES,NO}`` becomes 1/0, and any other
nominal becomes the index of its value in the declared list.

Label dtype
-----------
Labels come as int64 0/1 (dense, or the data of the CSR matrix): the dtype scikit-learn
handles for any number of labels. Narrower dtypes are not safe to hand on: scikit-learn
1.9 casts the class list ``arange(n_labels)`` to the dtype of an integer indicator, so
with uint8 labels and more than 256 of them (int8: 128, int16: 32768)
``OneVsRestClassifier`` and ``MLPClassifier`` train their label columns on permuted
targets (Corel5k has 374 labels), and with bool labels ``RidgeClassifier`` sees every
target as 1. The cost is 8 bytes per dense entry instead of 1 (Corel5k train
4500 x 374: 13.5 MB instead of 1.7 MB; delicious train 12920 x 983: 102 MB instead of
13 MB); ``sparse=True`` stores only the positives. fmacro's own functions take any 0/1
dtype, so ``Y.astype(bool)`` is a safe 1-byte copy for them.

Where the data live
-------------------
Never relative to the working directory. :func:`load_dataset` reads a dataset from

* the folder given as ``path=``, and only there, when it is given; otherwise
* the folder named by the environment variable ``FMACRO_DATA``, when it is set, then
* the copies bundled with fmacro (Corel5k and emotions, package data read through
  :mod:`importlib.resources`).

A folder holds either the dataset's files directly or a subfolder per dataset
(``<folder>/yeast/yeast-train.arff.gz``, as the Mulan archives unpack).
:func:`data_dir` says which directory holds a dataset.

pandas
------
``as_frame=True`` (or :meth:`ArffData.to_frames`) gives pandas DataFrames: the features
with the ARFF attribute names as columns (float64), the labels with the dataset's label
names as columns (int64 0/1, the dtype of the arrays), both with a ``RangeIndex``. Given
to fmacro's threshold methods or :class:`~fmacro.optimize.sklearn.FMacroThresholdClassifier`,
the label columns name the results' classes. With ``sparse=True`` the columns are pandas
sparse columns (``pd.DataFrame.sparse.from_spmatrix``: ``Sparse[float64, 0.0]`` and
``Sparse[int64, 0]``, storing only the non-zeros; ``X.sparse.to_coo().tocsr()`` gives the
CSR matrix back). fmacro's functions take them; scikit-learn estimators that need dense
data refuse sparse DataFrames, as they refuse CSR matrices. pandas is optional: imported
only for ``as_frame=True``.
"""

from __future__ import annotations

import gzip
import importlib.resources
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.validation.counts import frozen_array
from fmacro.validation.values import read_only_copies, value_key

__all__ = [
    "DATASETS",
    "DATA_ENV",
    "PANDAS_HINT",
    "ArffData",
    "data_dir",
    "load_arff_data",
    "load_dataset",
    "read_arff",
]

#: Known datasets: key -> (folder, {split: file name}, xml file name).
DATASETS: dict[str, tuple[str, dict[str, str], str]] = {
    "corel5k": (
        "corel5k",
        {"train": "Corel5k-train-sparse.arff.gz", "test": "Corel5k-test-sparse.arff.gz"},
        "Corel5k.xml.gz",
    ),
    "bibtex": (
        "bibtex",
        {"train": "bibtex-train.arff.gz", "test": "bibtex-test.arff.gz"},
        "bibtex.xml.gz",
    ),
    "birds": (
        "birds",
        {"train": "birds-train.arff.gz", "test": "birds-test.arff.gz"},
        "birds.xml.gz",
    ),
    "cal500": ("cal500", {"all": "cal500.arff.gz"}, "cal500.xml.gz"),
    "corel16k": ("corel16k", {"test": "Corel16k001-test.arff.gz"}, "Corel16k001.xml.gz"),
    "delicious": (
        "delicious",
        {"train": "delicious-train.arff.gz", "test": "delicious-test.arff.gz"},
        "delicious.xml.gz",
    ),
    "emotions": (
        "emotions",
        {"train": "emotions-train.arff.gz", "test": "emotions-test.arff.gz"},
        "emotions.xml.gz",
    ),
    "enron": (
        "enron",
        {"train": "enron-train.arff.gz", "test": "enron-test.arff.gz"},
        "enron.xml.gz",
    ),
    "flags": (
        "flags",
        {"train": "flags-train.arff.gz", "test": "flags-test.arff.gz"},
        "flags.xml.gz",
    ),
    "foodtruck": ("foodtruck", {"all": "foodtruck.arff.gz"}, "foodtruck.xml.gz"),
    "genbase": (
        "genbase",
        {"train": "genbase-train.arff.gz", "test": "genbase-test.arff.gz"},
        "genbase.xml.gz",
    ),
    "medical": (
        "medical",
        {"train": "medical-train.arff.gz", "test": "medical-test.arff.gz"},
        "medical.xml.gz",
    ),
    "scene": (
        "scene",
        {"train": "scene-train.arff.gz", "test": "scene-test.arff.gz"},
        "scene.xml.gz",
    ),
    "tmc2007": (
        "tmc2007",
        {"train": "tmc2007-500-train.arff.gz", "test": "tmc2007-500-test.arff.gz"},
        "tmc2007-500.xml.gz",
    ),
    "yeast": (
        "yeast",
        {"train": "yeast-train.arff.gz", "test": "yeast-test.arff.gz"},
        "yeast.xml.gz",
    ),
    "rcv1subset1": (
        "rcv1subset1",
        {"all": "rcv1subset1500.orig.arff.gz"},
        "rcv1subset1500.xml.gz",
    ),
}

#: Environment variable naming a folder of datasets (see the module docstring).
DATA_ENV = "FMACRO_DATA"

#: dtype of the label indicators (see the module docstring's "Label dtype").
_LABEL_DTYPE = np.int64

#: The ImportError of ``as_frame=True`` without pandas (fmacro is not on a package index
#: yet, so the hint names pandas itself, as the other optional imports do).
PANDAS_HINT = (
    "as_frame=True needs pandas, which is not installed; install it with: pip install pandas"
)


def _is_frame(value: Any) -> bool:
    """A pandas DataFrame, by duck typing (pandas stays optional)."""
    return hasattr(value, "columns") and hasattr(value, "dtypes") and hasattr(value, "iloc")


def _read_only_data(value: Any) -> Any:
    """A dense array as a read-only copy (a value never aliases a caller's array).

    A DataFrame is copied (it cannot be made read-only); scipy sparse matrices are kept as
    they are: they cannot be made read-only either.
    """
    if isinstance(value, np.ndarray):
        return frozen_array(value)
    if _is_frame(value):
        return value.copy(deep=True)
    return value


def _data_key(value: Any) -> Any:
    """:func:`value_key` of an array or sparse matrix; of a DataFrame, its columns, dtypes,
    index and values (a DataFrame's ``==`` is element-wise)."""
    if not _is_frame(value):
        return value_key(value)
    sparse = len(value.columns) > 0 and all(hasattr(dtype, "fill_value") for dtype in value.dtypes)
    values = value.sparse.to_coo() if sparse else value.to_numpy()
    return (
        "DataFrame",
        value_key(list(value.columns)),
        tuple(str(dtype) for dtype in value.dtypes),
        value_key(np.asarray(value.index)),
        value_key(values),
    )


def _pandas() -> Any:
    try:
        import pandas as pd
    except ImportError as exc:
        raise ImportError(PANDAS_HINT) from exc
    return pd


def _frame(values: Any, columns: tuple[str, ...]) -> Any:
    """A DataFrame of an array or a scipy sparse matrix (sparse columns), or the DataFrame
    given; not copied here: :class:`ArffData`'s converter copies it."""
    pd = _pandas()
    if _is_frame(values):
        return values
    if isinstance(values, np.ndarray):
        return pd.DataFrame(values, columns=list(columns), copy=False)
    return pd.DataFrame.sparse.from_spmatrix(values, columns=list(columns))


@read_only_copies
@attrs.frozen
class ArffData:
    """Features and label indicators read from one ARFF file.

    Attributes
    ----------
    X : ndarray (N, d) float64, or scipy CSR when read with ``sparse=True``
    Y : ndarray (N, L) int64 0/1 indicator, or scipy CSR (int64 data) when read with
        ``sparse=True`` (int64: see the module docstring's "Label dtype")
    feature_names, label_names : tuple of str
    relation : str
        The ARFF ``@relation`` name.

    Read with ``as_frame=True`` (or made by :meth:`to_frames`), ``X`` and ``Y`` are pandas
    DataFrames named by ``feature_names`` and ``label_names`` (see the module docstring).
    The value copies a DataFrame it is given and compares by columns, dtypes, index and
    values; unlike an array, a DataFrame cannot be made read-only.
    """

    X: Any = attrs.field(converter=_read_only_data, eq=_data_key)
    Y: Any = attrs.field(converter=_read_only_data, eq=_data_key)
    feature_names: tuple[str, ...]
    label_names: tuple[str, ...]
    relation: str

    def to_frames(self) -> ArffData:
        """The same data with ``X`` and ``Y`` as pandas DataFrames (needs pandas).

        ``X`` has the ARFF attribute names as columns (float64), ``Y`` the label names
        (int64 0/1), both a ``RangeIndex``; sparse matrices become sparse columns. The
        frames are new copies: changing them changes no array of this value.

        Examples
        --------
        >>> frames = load_arff_data("emotions", "test").to_frames()
        >>> list(frames.Y.columns[:2]), frames.Y.dtypes.iloc[0], frames.X.shape
        (['amazed-suprised', 'happy-pleased'], dtype('int64'), (202, 72))
        """
        return attrs.evolve(
            self, X=_frame(self.X, self.feature_names), Y=_frame(self.Y, self.label_names)
        )


def _open_text(path: Path) -> Iterator[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        yield from handle


_ATTRIBUTE = re.compile(r"@attribute\s+('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|\S+)\s+(.*)$", re.I)


def _unquote(token: str) -> str:
    token = token.strip()
    if len(token) >= 2 and token[0] == token[-1] and token[0] in "'\"":
        return re.sub(r"\\(.)", r"\1", token[1:-1])
    return token


def _nominal_encoder(spec: str) -> dict[str, float] | None:
    """Return the value -> number map of a nominal ``{a,b,...}`` type, or None if numeric."""
    spec = spec.strip()
    if not spec.startswith("{"):
        return None
    values = [_unquote(v) for v in spec.strip("{}").split(",")]
    try:
        return {v: float(v) for v in values}
    except ValueError:
        pass
    if sorted(v.upper() for v in values) == ["NO", "YES"]:
        return {v: 1.0 if v.upper() == "YES" else 0.0 for v in values}
    return {v: float(i) for i, v in enumerate(values)}


def _label_count_from_xml(path: Path) -> int:
    text = "".join(_open_text(path))
    return len(re.findall(r"<label\b", text))


def read_arff(
    path: str | os.PathLike[str],
    n_labels: int | None = None,
    *,
    xml: str | os.PathLike[str] | None = None,
    sparse: bool = False,
) -> ArffData:
    """Read a Mulan ARFF file (dense or sparse rows, optionally gzip-compressed).

    Parameters
    ----------
    path
        The ``.arff`` or ``.arff.gz`` file.
    n_labels
        Number of label attributes (the last ones). If omitted, ``xml`` is read.
    xml
        The Mulan ``.xml`` label list; used when ``n_labels`` is not given.
    sparse
        Return scipy CSR matrices (needs scipy) instead of dense arrays.

    Returns
    -------
    ArffData

    Raises
    ------
    ValueError
        If the file is malformed (the message gives the line number) or the label
        count is missing or larger than the number of attributes.
    """
    path = Path(path)
    if n_labels is None:
        if xml is None:
            raise ValueError("read_arff needs n_labels or xml= to know which attributes are labels")
        n_labels = _label_count_from_xml(Path(xml))
    names: list[str] = []
    encoders: list[dict[str, float] | None] = []
    relation = ""
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    n_rows = 0
    in_data = False
    for line_no, raw in enumerate(_open_text(path), start=1):
        line = raw.strip()
        if not line or line.startswith("%"):
            continue
        if not in_data:
            lower = line.lower()
            if lower.startswith("@relation"):
                relation = _unquote(line[len("@relation") :])
            elif lower.startswith("@attribute"):
                match = _ATTRIBUTE.match(line)
                if match is None:
                    raise ValueError(f"{path}:{line_no}: malformed @attribute line")
                names.append(_unquote(match.group(1)))
                encoders.append(_nominal_encoder(match.group(2)))
            elif lower.startswith("@data"):
                in_data = True
                if not 0 < n_labels <= len(names):
                    raise ValueError(
                        f"n_labels must be between 1 and the {len(names)} attributes, "
                        f"got {n_labels}"
                    )
            continue
        try:
            entries = _parse_row(line, len(names))
        except (ValueError, IndexError) as exc:
            raise ValueError(f"{path}:{line_no}: malformed data row: {exc}") from None
        for j, token in entries:
            enc = encoders[j]
            try:
                value = float(token) if enc is None else enc[token]
            except (KeyError, ValueError):
                raise ValueError(
                    f"{path}:{line_no}: value {token!r} is not valid for attribute {names[j]!r}"
                ) from None
            if value != 0.0:
                rows.append(n_rows)
                cols.append(j)
                vals.append(value)
        n_rows += 1
    if not in_data:
        raise ValueError(f"{path}: no @data section found")
    n_features = len(names) - n_labels
    return _assemble(
        np.asarray(rows, dtype=np.int64),
        np.asarray(cols, dtype=np.int64),
        np.asarray(vals, dtype=np.float64),
        n_rows,
        n_features,
        n_labels,
        tuple(names),
        relation,
        sparse,
    )


def _parse_row(line: str, n_attributes: int) -> Iterable[tuple[int, str]]:
    if line.startswith("{"):
        if not line.endswith("}"):
            raise ValueError("sparse row does not end with '}'")
        body = line[1:-1].strip()
        if not body:
            return []
        out = []
        for item in body.split(","):
            index, token = item.strip().split(None, 1)
            j = int(index)
            if not 0 <= j < n_attributes:
                raise IndexError(f"attribute index {j} outside 0..{n_attributes - 1}")
            out.append((j, _unquote(token)))
        return out
    tokens = line.split(",")
    if len(tokens) != n_attributes:
        raise ValueError(f"expected {n_attributes} values, found {len(tokens)}")
    return [(j, _unquote(t)) for j, t in enumerate(tokens) if _unquote(t) not in ("0", "0.0")]


def _assemble(
    rows: NDArray[np.int64],
    cols: NDArray[np.int64],
    vals: NDArray[np.float64],
    n_rows: int,
    n_features: int,
    n_labels: int,
    names: tuple[str, ...],
    relation: str,
    sparse: bool,
) -> ArffData:
    is_label = cols >= n_features
    x_rows, x_cols, x_vals = rows[~is_label], cols[~is_label], vals[~is_label]
    y_rows, y_cols = rows[is_label], cols[is_label] - n_features
    if sparse:
        from scipy import sparse as sp

        X: Any = sp.csr_matrix((x_vals, (x_rows, x_cols)), shape=(n_rows, n_features))
        Y: Any = sp.csr_matrix(
            (np.ones(y_rows.size, dtype=_LABEL_DTYPE), (y_rows, y_cols)),
            shape=(n_rows, n_labels),
        )
    else:
        X = np.zeros((n_rows, n_features), dtype=np.float64)
        X[x_rows, x_cols] = x_vals
        Y = np.zeros((n_rows, n_labels), dtype=_LABEL_DTYPE)
        Y[y_rows, y_cols] = 1
    return ArffData(X, Y, names[:n_features], names[n_features:], relation)


def _bundled_root() -> Path:
    """The package-data folder of fmacro.validation, wherever fmacro is installed."""
    return Path(str(importlib.resources.files("fmacro.validation").joinpath("data")))


def _candidate_roots(path: str | os.PathLike[str] | None) -> list[Path]:
    if path is not None:
        return [Path(path)]
    roots = []
    env = os.environ.get(DATA_ENV)
    if env:
        roots.append(Path(env))
    roots.append(_bundled_root())
    return roots


def data_dir(name: str, path: str | os.PathLike[str] | None = None) -> Path:
    """Return the directory that holds dataset ``name`` (see the module docstring).

    ``path`` is a folder to search instead of ``$FMACRO_DATA`` and the bundled copies.
    """
    if name not in DATASETS:
        raise ValueError(f"name must be one of {sorted(DATASETS)}, got {name!r}")
    folder, files, _ = DATASETS[name]
    first = next(iter(files.values()))
    roots = _candidate_roots(path)
    for root in roots:
        for candidate in (root / folder, root):
            if (candidate / first).is_file():
                return candidate
    searched = ", ".join(str(r) for r in roots)
    bundled = "corel5k and emotions are bundled; " if path is None else ""
    raise FileNotFoundError(
        f"dataset {name!r} not found (searched {searched}); {bundled}point at the folder "
        f"holding {folder}/{first} (or {first} itself) with load_dataset({name!r}, "
        f"path=...) or the environment variable {DATA_ENV}"
    )


def load_dataset(
    name: str,
    split: Literal["train", "test", "all"] = "train",
    *,
    sparse: bool = False,
    path: str | os.PathLike[str] | None = None,
    as_frame: bool = False,
) -> tuple[Any, Any]:
    """Load a Mulan dataset as ``(X, Y)``.

    Parameters
    ----------
    name
        A key of :data:`DATASETS`, e.g. ``"corel5k"``, ``"yeast"``, ``"scene"``.
    split
        ``"train"``, ``"test"``, or ``"all"`` (train and test stacked, in that order,
        or the single file of a dataset without an official split).
    sparse
        Return scipy CSR matrices instead of dense arrays.
    path
        Folder holding the dataset (its files, or a subfolder named after it). Without
        it, ``$FMACRO_DATA`` and then the bundled copies are searched; the working
        directory never is.
    as_frame
        Return pandas DataFrames (needs pandas; an ``ImportError`` says how to install it
        otherwise): ``X`` with the ARFF attribute names as columns, ``Y`` with the
        dataset's label names, same dtypes, a ``RangeIndex``; with ``sparse=True``, sparse
        columns (see the module docstring).

    Returns
    -------
    X : (N, d) float64 features; Y : (N, L) int64 0/1 label indicators
        (safe to pass to any scikit-learn estimator; see the module docstring).

    Examples
    --------
    >>> X, Y = load_dataset("corel5k", "test")
    >>> X.shape, Y.shape
    ((500, 499), (500, 374))

    With ``as_frame=True`` the label columns name the classes of fmacro's results:

    >>> X, Y = load_dataset("emotions", "test", as_frame=True)
    >>> Y.columns[:3].tolist(), Y.dtypes.iloc[0]
    (['amazed-suprised', 'happy-pleased', 'relaxing-calm'], dtype('int64'))
    >>> X.columns[0], X.index
    ('Mean_Acc1298_Mean_Mem40_Centroid', RangeIndex(start=0, stop=202, step=1))
    """
    data = load_arff_data(name, split, sparse=sparse, path=path, as_frame=as_frame)
    return data.X, data.Y


def load_arff_data(
    name: str,
    split: Literal["train", "test", "all"] = "train",
    *,
    sparse: bool = False,
    path: str | os.PathLike[str] | None = None,
    as_frame: bool = False,
) -> ArffData:
    """Like :func:`load_dataset` but return the :class:`ArffData` with names.

    With ``as_frame=True`` its ``X`` and ``Y`` are DataFrames (:meth:`ArffData.to_frames`).
    """
    if as_frame:
        _pandas()  # say so before reading the files
    data = _load_arrays(name, split, sparse=sparse, path=path)
    return data.to_frames() if as_frame else data


def _load_arrays(
    name: str,
    split: Literal["train", "test", "all"],
    *,
    sparse: bool,
    path: str | os.PathLike[str] | None,
) -> ArffData:
    folder_path = data_dir(name, path)
    _, files, xml = DATASETS[name]
    n_labels = _label_count_from_xml(folder_path / xml)
    if split in files:
        return read_arff(folder_path / files[split], n_labels, sparse=sparse)
    if split == "all":
        parts = [read_arff(folder_path / f, n_labels, sparse=sparse) for f in files.values()]
        stack: Any
        if sparse:
            from scipy import sparse as sp

            stack = sp.vstack
        else:
            stack = np.vstack
        first = parts[0]
        return ArffData(
            stack([p.X for p in parts]).tocsr() if sparse else stack([p.X for p in parts]),
            stack([p.Y for p in parts]).tocsr() if sparse else stack([p.Y for p in parts]),
            first.feature_names,
            first.label_names,
            first.relation,
        )
    raise ValueError(f"split must be one of {sorted([*files, 'all'])} for {name!r}, got {split!r}")
