"""Reading and writing rankings: the reference text format, .npz and the XC sparse format.

Each format with a short example: docs/glossary.md of the source repository.

The reference text format
-------------------------
One line per class: the class id (a non-negative integer), then the 0/1 labels of
that class's ranked list, best-ranked object first, separated by whitespace::

    0 1 1 0 1 0
    1 0 1 1
    7 1 0 0 0 0 1

A list may hold every object or only the top of the ranking (truncated by a
retrieval model). The number of objects ``n_samples`` and each class's true size
(number of positives, also those not retrieved) are given separately. Blank lines
and lines starting with ``#`` are skipped. The format has no scores, so a ranked list
cannot express ties: every position is its own cut.

Column ``j`` of the resulting :class:`~fmacro.optimize.search.points.ClassPoints` (and of a
:class:`~fmacro.optimize.ThresholdResult` computed from it) is the ``j``-th class
line of the file; :func:`parse_ranked_lists` returns the ids in that order.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import numpy as np
from numpy.typing import ArrayLike, NDArray

from fmacro.optimize.inputs import as_binary_labels
from fmacro.optimize.offsets import indptr_from_counts
from fmacro.optimize.rules import PerClassThresholds, TopK
from fmacro.optimize.search.points import ClassPoints
from fmacro.optimize.search.result import ThresholdResult
from fmacro.validation.checks import as_float_array, is_sparse
from fmacro.validation.counts import frozen_array
from fmacro.validation.files import (
    check_numpy_file,
    checked_path,
    load_npy,
    pickled_data,
    read_text,
    reading,
)
from fmacro.validation.names import ClassName

__all__ = [
    "RankedLists",
    "SavedRule",
    "load_rule",
    "load_scores_npz",
    "parse_ranked_lists",
    "ranked_lists_from_scores",
    "read_ranked_lists",
    "read_rule",
    "read_support",
    "read_xc",
    "save_scores_npz",
    "write_ranked_lists",
    "write_support",
]

PathLike = str | os.PathLike[str]
_INT64_MAX = int(np.iinfo(np.int64).max)
Support = Mapping[int, int] | ArrayLike | PathLike


@attrs.frozen(eq=False)
class RankedLists:
    """The parsed content of a ranked-lists file.

    Attributes
    ----------
    class_ids : ndarray of int64, shape (n_classes,)
        Class id of each line, in file order.
    labels : ndarray of uint8
        All lists concatenated; class ``j`` owns ``labels[indptr[j]:indptr[j + 1]]``.
    indptr : ndarray of int64, shape (n_classes + 1,)
    line_numbers : ndarray of int64, shape (n_classes,)
        1-based line number of each class in the file (for messages).
    """

    class_ids: NDArray[np.int64]
    labels: NDArray[np.uint8]
    indptr: NDArray[np.int64]
    line_numbers: NDArray[np.int64]

    @property
    def n_classes(self) -> int:
        return int(self.class_ids.size)

    def list_for(self, j: int) -> NDArray[np.uint8]:
        """The ranked 0/1 list of the ``j``-th class (file order)."""
        return self.labels[self.indptr[j] : self.indptr[j + 1]]

    def to_points(
        self,
        *,
        n_samples: int,
        support: Support,
        zero_division: float = 0.0,
        empty_classes: str = "exclude",
    ) -> ClassPoints:
        """Per-class points; see :func:`read_ranked_lists` for the parameters."""
        _check_n_samples(n_samples)
        sizes = _resolve_support(support, self)
        return ClassPoints.from_ranked_arrays(
            self.labels,
            self.indptr,
            sizes,
            n_samples,
            zero_division=zero_division,
            empty_classes=empty_classes,
            where=lambda j: f"line {int(self.line_numbers[j])} (class {int(self.class_ids[j])})",
        )


def _check_n_samples(n_samples: Any) -> None:
    """Refuse an ``n_samples`` beyond int64 here, where the message can say so."""
    is_int = isinstance(n_samples, (int, np.integer)) and not isinstance(n_samples, bool)
    if is_int and int(n_samples) > _INT64_MAX:
        raise ValueError(f"n_samples {int(n_samples)} is too large (at most 2^63 - 1)")


def _parse_id(token: str, path: Path, line_no: int, what: str) -> int:
    try:
        value = int(token)
    except ValueError:
        raise ValueError(
            f"{path}, line {line_no}: {what} must be a non-negative integer, got {token!r}"
        ) from None
    if value < 0:
        raise ValueError(f"{path}, line {line_no}: {what} must be >= 0, got {value}")
    if value > _INT64_MAX:
        raise ValueError(f"{path}, line {line_no}: {what} {token} is too large (at most 2^63 - 1)")
    return value


def _data_lines(path: Path, what: str) -> Iterable[tuple[int, list[str]]]:
    # One opener for every reader: a directory, a denied or non-UTF-8 file is one line.
    text = read_text(path, what)
    for line_no, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        yield line_no, stripped.split()


def parse_ranked_lists(path: PathLike) -> RankedLists:
    """Parse a ranked-lists file (see the module docstring) without class sizes.

    Raises
    ------
    ValueError
        A malformed line (bad class id, a label other than 0/1, a repeated class
        id) - the message names the file and the 1-based line number - or a file
        without any class line.
    """
    p = Path(path)
    ids: list[int] = []
    lines: list[int] = []
    chunks: list[NDArray[np.uint8]] = []
    seen: dict[int, int] = {}
    for line_no, tokens in _data_lines(p, "ranked-lists file"):
        cid = _parse_id(tokens[0], p, line_no, "the class id (first field)")
        if cid in seen:
            raise ValueError(
                f"{p}, line {line_no}: class id {cid} repeats the class of line {seen[cid]}"
            )
        seen[cid] = line_no
        arr = np.asarray(tokens[1:], dtype=str)
        ones = arr == "1"
        ok = ones | (arr == "0")
        if not ok.all():
            pos = int(np.flatnonzero(~ok)[0])
            raise ValueError(
                f"{p}, line {line_no}: label {pos + 1} of class {cid} is {str(arr[pos])!r}; "
                "expected 0 or 1"
            )
        ids.append(cid)
        lines.append(line_no)
        chunks.append(ones.astype(np.uint8))
    if not ids:
        raise ValueError(f"{p} holds no class line; expected 'class_id label label ...' lines")
    lengths = np.fromiter((c.size for c in chunks), dtype=np.int64, count=len(chunks))
    indptr = indptr_from_counts(lengths)
    flat = np.concatenate(chunks) if indptr[-1] else np.zeros(0, dtype=np.uint8)
    return RankedLists(
        # frozen_array copies what this function just built: one byte per label (and
        # 8 per line), small next to the text those labels were parsed from
        class_ids=frozen_array(ids, np.int64),
        labels=frozen_array(flat),
        indptr=frozen_array(indptr),
        line_numbers=frozen_array(lines, np.int64),
    )


def read_support(path: PathLike) -> dict[int, int]:
    """Read a class-sizes file: one ``class_id size`` pair per line.

    Blank lines and ``#`` comments are skipped; malformed lines raise ``ValueError``
    naming the line number.
    """
    p = Path(path)
    out: dict[int, int] = {}
    for line_no, tokens in _data_lines(p, "class-sizes file"):
        if len(tokens) != 2:
            raise ValueError(
                f"{p}, line {line_no}: expected 'class_id size', got {len(tokens)} fields"
            )
        cid = _parse_id(tokens[0], p, line_no, "the class id")
        size = _parse_id(tokens[1], p, line_no, "the class size")
        if cid in out:
            raise ValueError(f"{p}, line {line_no}: class id {cid} appears twice")
        out[cid] = size
    return out


def _resolve_support(
    support: Support, lists: RankedLists, lists_path: PathLike | None = None
) -> NDArray[np.int64]:
    if isinstance(support, (str, os.PathLike)):
        source = str(support)
        try:
            return _resolve_support(read_support(support), lists, lists_path)
        except ValueError as exc:
            if str(exc).startswith(source):
                raise
            raise ValueError(f"{source}: {exc}") from None
    if isinstance(support, Mapping):
        out = np.empty(lists.n_classes, dtype=np.int64)
        for j, cid in enumerate(lists.class_ids.tolist()):
            if cid not in support:
                raise ValueError(
                    f"support has no entry for class {cid} "
                    f"({lists_path or 'ranked lists'}, line {int(lists.line_numbers[j])})"
                )
            size = support[cid]
            if isinstance(size, (float, np.floating)) and float(size).is_integer():
                size = int(size)  # 3.0 is 3; 2.5 and nan are refused below
            if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
                raise TypeError(f"support[{cid}] must be an integer class size, got {size!r}")
            if not -_INT64_MAX <= int(size) <= _INT64_MAX:
                raise ValueError(f"support[{cid}] = {int(size)} is too large (at most 2^63 - 1)")
            out[j] = int(size)
    else:
        arr = np.asarray(support)
        if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
            raise TypeError(
                "support must be a mapping {class_id: size}, a 1-D integer array indexed "
                f"by class id, or a path; got {type(support).__name__} "
                f"with dtype {arr.dtype} and shape {arr.shape}"
            )
        too_big = lists.class_ids >= arr.size
        if too_big.any():
            j = int(np.flatnonzero(too_big)[0])
            raise ValueError(
                f"support has {arr.size} entries (indexed by class id) but line "
                f"{int(lists.line_numbers[j])} has class id {int(lists.class_ids[j])}"
            )
        picked = arr[lists.class_ids]
        if picked.dtype == np.uint64 and (picked > _INT64_MAX).any():
            j = int(np.flatnonzero(picked > _INT64_MAX)[0])
            raise ValueError(
                f"support of class {int(lists.class_ids[j])} is {int(picked[j])}: too large "
                "(at most 2^63 - 1)"
            )
        out = picked.astype(np.int64)
    if (out < 0).any():
        j = int(np.flatnonzero(out < 0)[0])
        raise ValueError(f"support must be >= 0; class {int(lists.class_ids[j])} has {int(out[j])}")
    return out


def read_ranked_lists(
    path: PathLike,
    *,
    n_samples: int,
    support: Support,
    zero_division: float = 0.0,
    empty_classes: str = "exclude",
) -> ClassPoints:
    """Per-class points from a file in the reference text format.

    Parameters
    ----------
    path
        The ranked-lists file (see the module docstring).
    n_samples
        Number of objects N (the all-objects cut has ``N - m_k`` false positives).
    support
        True number of positives of each class (its support): a mapping ``{class_id: size}``, a
        1-D integer array indexed by class id, or the path of a file of
        ``class_id size`` lines.
    zero_division, empty_classes
        As in :func:`fmacro.optimize.search.points.class_points`.

    Returns
    -------
    ClassPoints
        Column ``j`` is the ``j``-th class line of the file; thresholds are
        ``-rank`` (cut ``c`` keeps the top ``c`` of the list; ``-inf`` = all objects).

    Raises
    ------
    ValueError
        Malformed lines (with the line number), a class missing from
        ``support``, a list longer than ``n_samples``, more positives in a list
        than its class size, more negatives than ``n_samples - size``, or
        ``n_samples`` or a class size beyond int64 (2^63 - 1).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "lists.txt").write_text("0 1 0 0 1\\n1 1 0 1 0\\n")
    >>> pts = read_ranked_lists(d / "lists.txt", n_samples=4, support=[2, 2])
    >>> pts.tp.tolist()
    [0, 1, 1, 1, 2, 0, 1, 1, 2, 2]
    """
    _check_n_samples(n_samples)
    lists = parse_ranked_lists(path)
    sizes = _resolve_support(support, lists, path)
    # Consistency errors name the ranked-lists file, not only its line (two files are read).
    return ClassPoints.from_ranked_arrays(
        lists.labels,
        lists.indptr,
        sizes,
        n_samples,
        zero_division=zero_division,
        empty_classes=empty_classes,
        where=lambda j: (
            f"{path}, line {int(lists.line_numbers[j])} (class {int(lists.class_ids[j])})"
        ),
    )


def write_ranked_lists(
    path: PathLike, lists: Mapping[int, ArrayLike] | Sequence[tuple[int, ArrayLike]]
) -> None:
    """Write ranked 0/1 lists in the reference text format.

    Parameters
    ----------
    path
        Output file (overwritten).
    lists
        ``{class_id: ranked 0/1 labels}`` or a sequence of ``(class_id, labels)``
        pairs; written in the given order.
    """
    items = list(lists.items()) if isinstance(lists, Mapping) else list(lists)
    with open(path, "w", encoding="utf-8") as fh:
        for cid, labels in items:
            arr = as_binary_labels(np.asarray(labels).reshape(-1), f"lists[{cid}]")
            body = " ".join("1" if v else "0" for v in arr.tolist())
            fh.write(f"{int(cid)} {body}\n" if body else f"{int(cid)}\n")


def write_support(path: PathLike, sizes: Mapping[int, int]) -> None:
    """Write ``class_id size`` lines (readable by :func:`read_support`)."""
    with open(path, "w", encoding="utf-8") as fh:
        for cid, size in sizes.items():
            fh.write(f"{int(cid)} {int(size)}\n")


def ranked_lists_from_scores(
    scores: ArrayLike, labels: ArrayLike, *, top: int | None = None
) -> tuple[dict[int, NDArray[np.uint8]], dict[int, int]]:
    """Ranked lists and class sizes from dense scores and labels (class id = column).

    Each column is ranked by decreasing score (equal scores: lower row first - the
    text format cannot express ties) and truncated to its first ``top`` entries.

    Returns
    -------
    lists, sizes
        ``{column: ranked 0/1 labels}`` and ``{column: number of positives}``, ready
        for :func:`write_ranked_lists` and :func:`write_support`.
    """
    s = as_float_array(scores, "scores", ndim=2)
    y = as_binary_labels(labels)
    if y.shape != s.shape:
        raise ValueError(
            f"scores and labels must have the same shape, got scores {s.shape} and labels {y.shape}"
        )
    order = np.argsort(-s, axis=0, kind="stable")
    ranked = np.take_along_axis(y, order, axis=0).astype(np.uint8)
    if top is not None:
        if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 0:
            raise ValueError(f"top must be a non-negative integer, got {top!r}")
        ranked = ranked[: int(top)]
    lists = {j: ranked[:, j].copy() for j in range(s.shape[1])}
    sizes = {j: int(c) for j, c in enumerate(y.sum(axis=0).tolist())}
    return lists, sizes


# --------------------------------------------------------------------------- .npz


def save_scores_npz(path: PathLike, scores: Any, labels: Any) -> None:
    """Save scores and labels (dense arrays or scipy sparse) to one ``.npz`` file.

    The file is written under exactly the given name (numpy would turn ``r.NPZ`` into
    ``r.NPZ.npz``).
    """
    parts: dict[str, Any] = {}
    for name, x in (("scores", scores), ("labels", labels)):
        if is_sparse(x):
            csr = x.tocsr()
            parts[f"{name}_data"] = csr.data
            parts[f"{name}_indices"] = csr.indices
            parts[f"{name}_indptr"] = csr.indptr
            parts[f"{name}_shape"] = np.asarray(csr.shape, dtype=np.int64)
        else:
            parts[name] = np.asarray(x)
    with open(path, "wb") as fh:
        np.savez_compressed(fh, **parts)


def load_scores_npz(path: PathLike, *, require_labels: bool = True) -> tuple[Any, Any]:
    """Load ``(scores, labels)`` saved by :func:`save_scores_npz`.

    A file with plain ``scores`` and ``labels`` arrays (``np.savez``) also works.
    Sparse parts come back as ``scipy.sparse.csr_matrix``. With ``require_labels=False`` a
    file without labels gives ``(scores, None)``.

    Raises
    ------
    ValueError
        Naming the file (and array): not an npz, pickled data, a missing array, scores
        that are not finite real numbers, labels other than 0 and 1 (NaN included), or
        labels of another shape than the scores.
    """
    file = check_numpy_file(path, ".npz")
    with reading(path, ".npz file"):
        try:
            with np.load(file, allow_pickle=False) as z:
                if not hasattr(z, "files"):
                    raise ValueError(f"{path}: a .npy array, not a .npz archive")
                out = [_npz_part(z, name, path, require_labels) for name in ("scores", "labels")]
        except ValueError as exc:
            if "pickle" in str(exc):
                raise pickled_data(path) from None
            raise
    scores, labels = out
    if labels is not None and labels.shape != scores.shape:
        raise ValueError(
            f"{path}: labels of shape {labels.shape} do not match scores of shape {scores.shape}"
        )
    return scores, labels


def _npz_part(z: Any, name: str, path: PathLike, require_labels: bool) -> Any:
    if name in z.files:
        arr = _real(np.array(z[name]), f"{path}[{name}]", name == "scores")
        return arr if name == "scores" else _zero_one(arr, f"{path}[{name}]")
    if f"{name}_data" in z.files:
        import scipy.sparse as sp

        parts = ("data", "indices", "indptr", "shape")
        missing = [f"{name}_{k}" for k in parts if f"{name}_{k}" not in z.files]
        if missing:
            raise ValueError(f"{path}: sparse '{name}' lacks {', '.join(missing)}")
        shape = np.asarray(z[f"{name}_shape"])
        if shape.shape != (2,) or shape.dtype.kind not in "iu" or (shape < 0).any():
            raise ValueError(f"{path}: {name}_shape must be two non-negative integers")
        rows, cols = (int(v) for v in shape)
        data = _real(np.asarray(z[f"{name}_data"]), f"{path}[{name}_data]", name == "scores")
        if name == "labels":
            data = _zero_one(data, f"{path}[{name}_data]")
        indices, indptr = np.asarray(z[f"{name}_indices"]), np.asarray(z[f"{name}_indptr"])
        bad_ptr = (
            indptr.ndim != 1
            or indptr.size != rows + 1
            or indptr.dtype.kind not in "iu"
            or indptr[0] != 0
            or (np.diff(indptr) < 0).any()
            or indptr[-1] != data.size
        )
        if bad_ptr or indices.dtype.kind not in "iu" or indices.shape != data.shape:
            raise ValueError(f"{path}: sparse '{name}' parts do not fit together")
        if indices.size and (indices.min() < 0 or indices.max() >= cols):
            raise ValueError(
                f"{path}: {name}_indices holds column {int(indices.max())} outside the shape "
                f"({rows}, {cols})"
            )
        return sp.csr_matrix((data, indices, indptr), shape=(rows, cols))
    if name == "labels" and not require_labels:
        return None
    raise ValueError(f"{path} has no '{name}' array; found {sorted(z.files)}")


def _real(arr: NDArray[Any], where: str, finite: bool) -> NDArray[Any]:
    """A numeric array: complex, text and object arrays refused; scores finite."""
    if arr.dtype.kind not in "biuf":
        kind = "complex numbers" if arr.dtype.kind == "c" else f"dtype {arr.dtype}"
        raise ValueError(f"{where}: expected real numbers, got {kind}")
    if finite and arr.dtype.kind == "f" and not np.isfinite(arr).all():
        bad = int(arr.size - np.count_nonzero(np.isfinite(arr)))
        raise ValueError(f"{where}: {bad} NaN or infinite score(s)")
    return arr


def _zero_one(arr: NDArray[Any], where: str) -> NDArray[Any]:
    """Labels hold 0 and 1 only (NaN, 2 and 0.5 refused, never read as ``!= 0``)."""
    bad = (arr != 0) & (arr != 1)
    if bad.any():
        found = np.unique(arr[bad])[:5].tolist()
        raise ValueError(
            f"{where}: labels must be 0 or 1; {int(bad.sum())} entries are not (such as {found})"
        )
    return arr


@attrs.frozen
class SavedRule:
    """A thresholds file read by :func:`read_rule`: its rule, class names and width.

    Attributes
    ----------
    rule : PerClassThresholds or TopK
    classes : tuple of class names, or None
        As recorded (names keep their kind in JSON); ``None`` for ``.npy`` or when unknown.
    n_columns : int
        Number of class columns the rule was found on; scores must have as many.
    """

    rule: PerClassThresholds | TopK
    classes: tuple[ClassName, ...] | None
    n_columns: int


def read_rule(path: PathLike) -> SavedRule:
    """The decision rule saved in a thresholds file, its class names and its width.

    ``.json``: a :meth:`ThresholdResult.save <fmacro.optimize.ThresholdResult.save>` record
    (per-class thresholds or top-k); ``.npy``: a 1-D array of per-class thresholds.

    Raises
    ------
    ValueError
        Naming the file: unreadable, not a thresholds record, a malformed field, or NaN
        thresholds.
    """
    file = checked_path(path)
    if file.suffix.lower() == ".npy":
        values = load_npy(file)
        if values.ndim != 1 or values.dtype.kind not in "fiu" or values.size == 0:
            raise ValueError(
                f"{path}: expected a 1-D numeric array of thresholds (not empty), got "
                f"{values.dtype} {values.shape}"
            )
        if np.isnan(values.astype(np.float64)).any():
            raise ValueError(f"{path}: thresholds contain NaN")
        return SavedRule(PerClassThresholds(values), None, int(values.size))
    try:
        result = ThresholdResult.load(file)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError) as exc:
        # The record is data from a file: any error reading it is that file's fault.
        message = str(exc)
        if message.startswith(str(path)):
            raise ValueError(message) from None
        raise ValueError(f"{path}: not a valid thresholds record ({message})") from None
    n_columns = int(np.asarray(result.thresholds).shape[0])
    if isinstance(result.rule, PerClassThresholds):
        values = np.asarray(result.rule.thresholds, dtype=np.float64)
        if np.isnan(values).any():
            raise ValueError(f"{path}: thresholds contain NaN")
    if n_columns == 0:
        raise ValueError(f"{path}: the record has no class columns")
    classes = None if result.classes is None else tuple(result.classes)
    return SavedRule(result.rule, classes, n_columns)


def load_rule(path: PathLike) -> tuple[PerClassThresholds | TopK, tuple[ClassName, ...] | None]:
    """The decision rule saved in a thresholds file, and its class names if recorded.

    ``.json``: a :meth:`ThresholdResult.save <fmacro.optimize.ThresholdResult.save>` record
    (per-class thresholds or top-k); ``.npy``: a 1-D array of per-class thresholds.
    :func:`read_rule` also gives the number of class columns.
    """
    saved = read_rule(path)
    return saved.rule, saved.classes


# --------------------------------------------------------------------------- XC format


def read_xc(path: PathLike) -> tuple[Any, Any]:
    """Read the Extreme Classification Repository sparse format.

    The first line is ``n_rows n_features n_labels``; each following line is
    ``l1,l2,... f:v f:v ...`` (labels may be empty, then the line starts with a
    space). Use it for feature files, or for score files where the "features" are
    class scores (then ``n_features`` is the number of classes).

    Returns
    -------
    values, labels
        ``scipy.sparse.csr_matrix`` of shapes ``(n_rows, n_features)`` (float64) and
        ``(n_rows, n_labels)`` (uint8).

    Raises
    ------
    ValueError
        A bad header, a malformed entry, an index out of range, a column given twice in
        one line or a NaN/infinite value (with the line number), or a row count different
        from the header. A label id listed twice in one line counts once.
    """
    import scipy.sparse as sp

    p = Path(path)
    lines = read_text(p, "XC/svmlight file").splitlines()
    header = lines[0].split() if lines else []
    if len(header) != 3:
        raise ValueError(f"{p}, line 1: expected 'n_rows n_features n_labels'")
    n_rows, n_feat, n_lab = (_parse_id(t, p, 1, "a header field") for t in header)
    f_idx: list[int] = []
    f_val: list[float] = []
    f_ptr = [0]
    l_idx: list[int] = []
    l_ptr = [0]
    for line_no, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        if line[0].isspace():
            lab_part, feat_part = "", line
        else:
            lab_part, _, feat_part = line.partition(" ")
            if ":" in lab_part:
                lab_part, feat_part = "", line
        try:
            labs = [int(t) for t in lab_part.split(",") if t]
            pairs = [t.split(":") for t in feat_part.split()]
            fi = [int(a) for a, _ in pairs]
            fv = [float(b) for _, b in pairs]
        except ValueError:
            raise ValueError(f"{p}, line {line_no}: expected 'l1,l2,... index:value ...'") from None
        if any(not 0 <= v < n_lab for v in labs) or any(not 0 <= v < n_feat for v in fi):
            raise ValueError(f"{p}, line {line_no}: an index is out of the header's range")
        if len(set(fi)) != len(fi):
            # Summing repeated pairs would invent a score nobody wrote: refuse.
            twice = next(v for v in fi if fi.count(v) > 1)
            raise ValueError(f"{p}, line {line_no}: column {twice} appears twice")
        if not all(map(math.isfinite, fv)):
            bad = next(b for (_, b), v in zip(pairs, fv, strict=True) if not math.isfinite(v))
            raise ValueError(f"{p}, line {line_no}: the value {bad!r} is not a finite number")
        l_idx.extend(labs)
        l_ptr.append(len(l_idx))
        f_idx.extend(fi)
        f_val.extend(fv)
        f_ptr.append(len(f_idx))
    rows = len(l_ptr) - 1
    if rows != n_rows:
        raise ValueError(f"{p}: header says {n_rows} rows, found {rows}")
    values = sp.csr_matrix(
        (np.asarray(f_val, dtype=np.float64), np.asarray(f_idx, dtype=np.int64), f_ptr),
        shape=(n_rows, n_feat),
    )
    labels = sp.csr_matrix(
        (np.ones(len(l_idx), dtype=np.uint8), np.asarray(l_idx, dtype=np.int64), l_ptr),
        shape=(n_rows, n_lab),
    )
    values.sort_indices()
    labels.sum_duplicates()  # a label id listed twice is one label (a set)
    labels.data[:] = 1
    return values, labels
