"""fmacro.dask.evaluate names multi-label classes by DataFrame columns, as in memory.

Issue 28, item 4 (dask part): ``MultiLabelFValidation.from_predictions`` names the labels
by the columns of a pandas DataFrame (either input; two frames must agree). The dask path
must give the same validation for dask DataFrames. Run on dask's synchronous scheduler.
"""

from __future__ import annotations

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import fmacro.dask as fd
from fmacro.validation import MultiLabelFValidation


def _frames(columns: list[object]) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(0)
    Y = (rng.random((40, len(columns))) < 0.4).astype(np.int64)
    P = (rng.random((40, len(columns))) < 0.4).astype(np.int64)
    return pd.DataFrame(Y, columns=columns), pd.DataFrame(P, columns=columns)


@pytest.mark.parametrize("columns", [["cat", "dog", "bird"], [3, 1, 2], ["x", 0, 1.5]])
def test_dask_frames_name_the_labels_by_their_columns(columns: list[object]) -> None:
    Y, P = _frames(columns)
    want = MultiLabelFValidation.from_predictions(Y, P)
    assert want.labels == tuple(columns)  # the in-memory rule being mirrored
    got = fd.evaluate(
        dd.from_pandas(Y, npartitions=3), dd.from_pandas(P, npartitions=3), scheduler="sync"
    )
    assert got.labels == tuple(columns)
    assert [type(c) for c in got.labels] == [type(c) for c in columns]  # kinds kept
    assert got == want
    assert got.class_counts.tp.tolist() == want.class_counts.tp.tolist()


def test_one_frame_names_the_labels_of_a_dask_array_pair() -> None:
    Y, P = _frames(["cat", "dog", "bird"])
    dY, dP = dd.from_pandas(Y, npartitions=2), dd.from_pandas(P, npartitions=4)
    want = MultiLabelFValidation.from_predictions(Y, P.to_numpy())
    assert want.labels == ("cat", "dog", "bird")
    # a frame against a dask array (e.g. the other frame's .to_dask_array): its columns
    for expected, predicted in [
        (dY, dP.to_dask_array(lengths=True)),
        (dY.to_dask_array(lengths=True), dP),
        (da.from_array(Y.to_numpy(), chunks=(15, 3)), P),  # a pandas predicted
    ]:
        got = fd.evaluate(expected, predicted, scheduler="sync")
        assert got.labels == ("cat", "dog", "bird")
        assert got == want
    # arrays alone carry no names: 0..L-1 as in memory
    plain = fd.evaluate(
        dY.to_dask_array(lengths=True), dP.to_dask_array(lengths=True), scheduler="sync"
    )
    assert plain.labels is None
    assert plain == MultiLabelFValidation.from_predictions(Y.to_numpy(), P.to_numpy())


def test_given_labels_win_over_the_columns() -> None:
    Y, P = _frames(["cat", "dog", "bird"])
    got = fd.evaluate(
        dd.from_pandas(Y, npartitions=2),
        dd.from_pandas(P, npartitions=2),
        labels=["a", "b", "c"],
        scheduler="sync",
    )
    assert got.labels == ("a", "b", "c")
    assert got == MultiLabelFValidation.from_predictions(Y, P, labels=["a", "b", "c"])


def test_frames_with_different_columns_are_refused_as_in_memory() -> None:
    Y, P = _frames(["cat", "dog", "bird"])
    for other in (P[["dog", "cat", "bird"]], P.set_axis(["cat", "dog", "fish"], axis=1)):
        with pytest.raises(ValueError, match="different columns") as in_memory:
            MultiLabelFValidation.from_predictions(Y, other)
        with pytest.raises(ValueError, match="different columns") as on_dask:
            fd.evaluate(
                dd.from_pandas(Y, npartitions=2),
                dd.from_pandas(other, npartitions=2),
                scheduler="sync",
            )
        assert str(on_dask.value) == str(in_memory.value)
    # the remedy the message names works
    aligned = P[["dog", "cat", "bird"]][Y.columns]
    got = fd.evaluate(
        dd.from_pandas(Y, npartitions=2), dd.from_pandas(aligned, npartitions=2), scheduler="sync"
    )
    assert got == MultiLabelFValidation.from_predictions(Y, P)
