"""fmacro.dask refuses bad rows and arrays as the in-memory functions do (issue 26).

Every entry point that takes rows of ``(object, class, score, label)`` or dask arrays
(``reduced_sweep``, ``fixed_point``, ``domain``, ``per_class``, ``global_threshold``,
``tune``, and ``evaluate``/``find_classes`` for arrays) goes through one check: repeated
(object, class) pairs, ids that are not non-negative finite integers, a shape below the
largest id, labels other than 0/1, infinite scores and dask arrays with chunks of unknown
size are refused with an error naming the argument, not summed, truncated or wrapped.
Valid rows still give the in-memory result. Runs on dask's synchronous scheduler.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import fmacro.dask as fd
from fmacro import optimize
from fmacro.optimize.search.result import ThresholdResult
from fmacro.validation import MultiFValidation


@pytest.fixture(autouse=True)
def synchronous() -> Iterator[None]:
    with dask.config.set(scheduler="synchronous"):
        yield


ROW_FUNCTIONS: list[Callable[..., Any]] = [
    fd.reduced_sweep,
    fd.fixed_point,
    fd.domain,
    fd.per_class,
    fd.global_threshold,
    fd.tune,
]
IDS = [f.__name__ for f in ROW_FUNCTIONS]


def refuses(
    error: type[Exception], pattern: str, fn: Callable[..., Any], *args: Any, **kwargs: Any
) -> str:
    """Call ``fn``: it must raise exactly ``error`` with a message matching ``pattern``."""
    with pytest.raises(error, match=pattern) as info:
        fn(*args, **kwargs)
    assert info.type is error, info.value
    return str(info.value)


def data(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scores (no zero, ties), labels and the retrieved entries of 60 objects x 8 classes."""
    rng = np.random.default_rng(seed)
    scores = rng.integers(1, 30, (60, 8)) / 30.0
    labels = (rng.random((60, 8)) < 0.25).astype(np.uint8)
    labels[0, :] = 1  # every class has a positive
    keep = rng.random((60, 8)) < 0.7
    keep[0, 3] = False  # a positive that was not retrieved: a row with a NaN score
    return scores, labels, keep


def frame_of(scores: np.ndarray, labels: np.ndarray, keep: np.ndarray) -> pd.DataFrame:
    """(object, class, score, label) rows of the kept entries and of every positive."""
    obj, cls = np.nonzero(keep | (labels != 0))
    return pd.DataFrame(
        {
            "object": obj,
            "class": cls,
            "score": np.where(keep[obj, cls], scores[obj, cls], np.nan),
            "label": labels[obj, cls],
        }
    )


def rows(frame: pd.DataFrame, npartitions: int = 3) -> Any:
    return dd.from_pandas(frame, npartitions=npartitions)


def good_frame() -> pd.DataFrame:
    return frame_of(*data())


def same_result(got: ThresholdResult, want: ThresholdResult) -> None:
    np.testing.assert_array_equal(got.thresholds, want.thresholds)
    np.testing.assert_array_equal(got.cuts, want.cuts)
    assert (got.f, got.precision, got.recall) == (want.f, want.precision, want.recall)
    assert got.method == want.method


# --------------------------------------------------------------------------- 1. repeated pairs


@pytest.mark.parametrize("fn", ROW_FUNCTIONS, ids=IDS)
@pytest.mark.parametrize("second_label", [0, 1])
def test_a_repeated_pair_is_refused_not_summed(fn: Callable[..., Any], second_label: int) -> None:
    frame = good_frame()
    first = frame.iloc[[10]]
    o, c = int(first["object"].iloc[0]), int(first["class"].iloc[0])
    repeated = pd.concat([frame, first.assign(label=second_label, score=0.5)], ignore_index=True)
    message = refuses(
        ValueError,
        rf"^scores has more than one row for the \(object, class\) pair \({o}, {c}\)",
        fn,
        rows(repeated),
    )
    assert "summed" in message


def test_a_repeated_pair_is_found_in_its_class_partition() -> None:
    # the rows are shuffled by class: a pair repeated in two input partitions is found
    frame = good_frame()
    pair = frame.iloc[[0]]
    split = pd.concat([pair, frame.iloc[1:], pair], ignore_index=True)
    o, c = int(pair["object"].iloc[0]), int(pair["class"].iloc[0])
    refuses(ValueError, rf"pair \({o}, {c}\)", fd.fixed_point, rows(split, npartitions=4))


# --------------------------------------------------------------------------- 2. ids


BAD_IDS = [
    ("object", 2.7),
    ("object", np.nan),
    ("object", -1.0),
    ("object", np.inf),
    ("class", 2.5),
    ("class", np.nan),
    ("class", -1.0),
    ("class", -np.inf),
]


def with_id(column: str, value: float, row: int = 4) -> pd.DataFrame:
    frame = good_frame().astype({column: np.float64})
    frame.loc[row, column] = value
    return frame


@pytest.mark.parametrize("fn", ROW_FUNCTIONS, ids=IDS)
@pytest.mark.parametrize(("column", "value"), BAD_IDS)
@pytest.mark.parametrize("shape_given", [False, True])
def test_ids_must_be_non_negative_finite_integers(
    fn: Callable[..., Any], column: str, value: float, shape_given: bool
) -> None:
    shape = {"n_samples": 60, "n_classes": 8} if shape_given else {}
    refuses(
        ValueError,
        rf"^scores column '{column}' must hold {column} ids .* found {value!r}$",
        fn,
        rows(with_id(column, value)),
        **shape,
    )


@pytest.mark.parametrize("column", ["object", "class"])
def test_negative_integer_ids_are_refused_not_wrapped(column: str) -> None:
    frame = good_frame()
    frame.loc[7, column] = -1  # int64 column: -1 would index the last column
    for fn in (fd.fixed_point, fd.tune):
        refuses(ValueError, rf"scores column '{column}' .* found -1$", fn, rows(frame))


def test_integral_float_ids_are_read_as_integers() -> None:
    frame = good_frame()
    as_float = frame.astype({"object": np.float64, "class": np.float64})
    same_result(fd.fixed_point(rows(as_float)), fd.fixed_point(rows(frame)))


def test_ids_of_a_non_numeric_column_are_refused_before_any_work() -> None:
    frame = good_frame().astype({"class": str})
    refuses(TypeError, "scores column 'class' must hold integer", fd.fixed_point, rows(frame))
    frame = good_frame().astype({"object": bool})
    refuses(TypeError, "scores column 'object' must hold integer", fd.tune, rows(frame))
    frame = good_frame().astype({"label": str})
    refuses(TypeError, "scores column 'label' must hold numbers", fd.tune, rows(frame))


def test_rows_without_any_id_are_refused() -> None:
    empty = good_frame().iloc[:0]
    refuses(ValueError, "scores column 'object' has no id", fd.fixed_point, rows(empty, 1))
    all_nan = good_frame().astype({"class": np.float64}).assign(**{"class": np.nan})
    refuses(ValueError, "scores column 'class' has no id", fd.tune, rows(all_nan))


# --------------------------------------------------------------------------- 3. the shape


@pytest.mark.parametrize("fn", ROW_FUNCTIONS, ids=IDS)
def test_n_classes_below_the_largest_class_id_is_a_value_error(fn: Callable[..., Any]) -> None:
    r = rows(good_frame())
    # checked on the client (largest ids found anyway for n_samples) and on the workers
    for shape in ({"n_classes": 5}, {"n_classes": 5, "n_samples": 60}):
        message = refuses(ValueError, r"^n_classes=5 is too small", fn, r, **shape)
        assert "scores column 'class' holds class id" in message
    # with the pass on the client, the largest id of all rows
    assert "holds class id 7," in refuses(ValueError, "n_classes", fn, r, n_classes=5)


def test_n_samples_below_the_largest_object_id_is_a_value_error() -> None:
    r = rows(good_frame())
    for fn in (fd.fixed_point, fd.tune):
        message = refuses(ValueError, r"^n_samples=50 is too small", fn, r, n_samples=50)
        assert "scores column 'object' holds object id 59," in message
        refuses(ValueError, r"^n_samples=50 is too small", fn, r, n_samples=50, n_classes=8)


def test_n_samples_and_n_classes_must_be_positive_integers() -> None:
    r = rows(good_frame())
    refuses(TypeError, "n_samples must be a positive integer", fd.fixed_point, r, n_samples=60.5)
    refuses(TypeError, "n_classes must be a positive integer", fd.tune, r, n_classes=True)
    refuses(ValueError, "n_classes must be a positive integer", fd.per_class, r, n_classes=0)
    scores, labels, _ = data()
    on_array = da.from_array(scores, chunks=(60, 3))
    refuses(ValueError, "n_samples=61 differs", fd.fixed_point, on_array, labels, n_samples=61)
    refuses(ValueError, "n_classes=9 differs", fd.tune, on_array, labels, n_classes=9)


def test_columns_must_name_four_distinct_columns() -> None:
    r = rows(good_frame())
    names = ("object", "object", "score", "label")
    refuses(ValueError, "columns must name 4 distinct", fd.fixed_point, r, columns=names)
    refuses(TypeError, "columns must be a sequence", fd.tune, r, columns="ocsl")


# --------------------------------------------------------------------------- 4. unknown chunks


def masked(x: np.ndarray, chunks: Any) -> Any:
    d = da.from_array(x, chunks=chunks)
    out = d[d.sum(axis=1) >= 0]  # every row kept, but the chunk sizes are now unknown
    assert np.isnan(out.shape[0])
    return out


@pytest.mark.parametrize("fn", ROW_FUNCTIONS, ids=IDS)
def test_threshold_arrays_with_unknown_chunks_name_the_remedy(fn: Callable[..., Any]) -> None:
    scores, labels, _ = data()
    refuses(
        ValueError,
        r"^scores has chunks of unknown size .* call scores\.compute_chunk_sizes\(\) first$",
        fn,
        masked(scores, (20, 4)),
        labels,
    )
    refuses(
        ValueError,
        r"^labels has chunks of unknown size .* call labels\.compute_chunk_sizes\(\) first$",
        fn,
        da.from_array(scores, chunks=(20, 4)),
        masked(labels, (20, 4)),
    )


def test_unknown_chunks_are_refused_by_evaluate_and_find_classes() -> None:
    rng = np.random.default_rng(5)
    expected, predicted = rng.integers(0, 3, 40), rng.integers(0, 3, 40)
    e, p = da.from_array(expected, chunks=10), da.from_array(predicted, chunks=10)
    e_unknown = e[e >= 0]
    p_unknown = p[p >= 0]
    for fn in (fd.evaluate, fd.find_classes):
        refuses(
            ValueError, r"^expected has chunks.*expected\.compute_chunk_sizes", fn, e_unknown, p
        )
        refuses(
            ValueError, r"^predicted has chunks.*predicted\.compute_chunk_sizes", fn, e, p_unknown
        )
    from_delayed = da.from_delayed(dask.delayed(expected), shape=(np.nan,), dtype=expected.dtype)
    refuses(ValueError, "expected has chunks of unknown size", fd.evaluate, from_delayed, predicted)
    # the remedy works
    got = fd.evaluate(e_unknown.compute_chunk_sizes(), p_unknown.compute_chunk_sizes())
    assert got == MultiFValidation.from_predictions(expected, predicted)


def test_the_remedy_gives_the_in_memory_result() -> None:
    scores, labels, _ = data()
    unknown = masked(scores, (20, 4))
    same_result(fd.tune(unknown.compute_chunk_sizes(), labels), optimize.tune(scores, labels))


# --------------------------------------------------------------------------- 5. labels, scores


@pytest.mark.parametrize("fn", ROW_FUNCTIONS, ids=IDS)
@pytest.mark.parametrize("value", [2.0, 0.5, np.nan, -1.0])
def test_row_labels_must_be_0_or_1(fn: Callable[..., Any], value: float) -> None:
    frame = good_frame().astype({"label": np.float64})
    negatives = np.flatnonzero(frame["label"].to_numpy() == 0)
    frame.loc[negatives[3], "label"] = value  # a class's negative: not read as != 0
    refuses(
        ValueError,
        rf"^scores column 'label' must hold only 0 and 1, found \[{value!r}\]$",
        fn,
        rows(frame),
    )


@pytest.mark.parametrize("fn", ROW_FUNCTIONS, ids=IDS)
@pytest.mark.parametrize("value", [np.inf, -np.inf])
def test_row_scores_must_be_finite(fn: Callable[..., Any], value: float) -> None:
    frame = good_frame()
    frame.loc[3, "score"] = value
    refuses(
        ValueError,
        rf"^scores column 'score' holds 1 infinite value\(s\) such as {value!r}",
        fn,
        rows(frame),
    )


@pytest.mark.parametrize("fn", [fd.fixed_point, fd.tune], ids=["fixed_point", "tune"])
def test_infinite_row_score_of_a_class_without_positives_is_refused(fn: Callable[..., Any]) -> None:
    # the class's block is skipped (no positive): its rows are checked all the same
    frame = good_frame()
    frame = frame[frame["class"] != 6]
    negative = pd.DataFrame({"object": [1, 2], "class": [6, 6], "score": [0.5, np.inf], "label": 0})
    frame = pd.concat([frame, negative], ignore_index=True)
    refuses(ValueError, "scores column 'score' holds 1 infinite", fn, rows(frame))


@pytest.mark.parametrize(
    ("fn", "in_memory"),
    [
        (fd.fixed_point, optimize.fixed_point),
        (fd.per_class, optimize.per_class),
        (fd.domain, optimize.domain),
        (fd.global_threshold, optimize.global_threshold),
        (fd.tune, optimize.tune),
    ],
    ids=["fixed_point", "per_class", "domain", "global_threshold", "tune"],
)
def test_array_inputs_are_refused_as_in_memory(fn: Callable[..., Any], in_memory: Any) -> None:
    scores, labels, _ = data()
    d_scores = da.from_array(scores, chunks=(20, 2))  # 4 column blocks
    bad = scores.copy()
    bad[5, 6] = np.nan
    no_positive = labels.copy()
    no_positive[:, 6:] = 0  # the block of columns 6-7 is skipped: its scores still checked
    for score_values, label_values in ((bad, labels), (bad, no_positive)):
        pattern = "scores contains 1 NaN or infinite value"
        refuses(ValueError, pattern, in_memory, score_values, label_values)
        refuses(ValueError, pattern, fn, da.from_array(score_values, chunks=(20, 2)), label_values)
    for value in (2, 0.5, np.nan):
        odd = labels.astype(np.float64)
        odd[9, 1] = value
        pattern = "labels must hold only 0 and 1"
        refuses(ValueError, pattern, in_memory, scores, odd)
        refuses(ValueError, pattern, fn, d_scores, odd)
        refuses(ValueError, pattern, fn, d_scores, da.from_array(odd, chunks=(30, 8)))


def test_labels_must_be_an_array_with_an_array_of_scores() -> None:
    scores, labels, _ = data()
    d_scores = da.from_array(scores, chunks=(60, 4))
    frame = dd.from_pandas(pd.DataFrame(labels), npartitions=2)
    refuses(TypeError, "labels must be a dask array", fd.fixed_point, d_scores, frame)
    # a list is read as an array, as in memory
    same_result(
        fd.fixed_point(d_scores, labels.tolist()),
        optimize.fixed_point(scores, labels, exact=False),
    )


# --------------------------------------------------------------------------- valid rows


def test_valid_rows_give_the_in_memory_results() -> None:
    scores, labels, keep = data(1)
    frame = frame_of(scores, labels, keep).astype({"object": np.float64, "label": bool})
    frame = frame.sample(frac=1.0, random_state=0)  # rows in any order
    r = rows(frame, npartitions=4)
    s = sp.csr_matrix(np.where(keep, scores, 0.0))
    y = sp.csr_matrix(labels)
    same_result(fd.tune(r), optimize.tune(s, y))
    same_result(fd.tune(r, prior=1.0, beta=2.0), optimize.tune(s, y, prior=1.0, beta=2.0))
    same_result(fd.fixed_point(r), optimize.fixed_point(s, y, exact=False))
    same_result(fd.per_class(r), optimize.per_class(s, y))
    same_result(fd.domain(r), optimize.domain(s, y))
    same_result(fd.global_threshold(r), optimize.global_threshold(s, y))
    # a shape larger than the ids: objects and classes without rows
    wide = (sp.hstack([s, sp.csr_matrix((60, 2))]), sp.hstack([y, sp.csr_matrix((60, 2))]))
    same_result(
        fd.fixed_point(r, n_samples=60, n_classes=10, empty_classes="include"),
        optimize.fixed_point(*wide, empty_classes="include", exact=False),
    )
    same_result(fd.tune(r, n_classes=10), optimize.tune(*wide))
    # the caller's frame is not changed
    pd.testing.assert_frame_equal(
        frame,
        frame_of(scores, labels, keep)
        .astype({"object": np.float64, "label": bool})
        .sample(frac=1.0, random_state=0),
    )
