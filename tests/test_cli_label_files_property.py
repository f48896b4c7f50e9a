"""Random labels written in every supported layout: ``fmacro evaluate --json`` agrees with
scikit-learn on the same labels (issue 10).

Layouts: CSV, TSV, space-free TXT (``;`` for an index column) and NPY; with and without a
header line, with pandas' index column, with a UTF-8 byte-order mark, with CRLF line ends;
two files, or one file of two columns.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import accuracy_score, f1_score

from fmacro.cli import main

# Text labels that look like no number and no header name: they stay text.
WORDS = st.text(alphabet="abcdéX-_", min_size=1, max_size=3).filter(
    lambda w: w.strip() == w and w[0] not in "-_"
)
INTS = st.one_of(st.integers(-3, 5), st.sampled_from([2**53, 2**53 + 1, 10**19 + 7]))

Layout = dict[str, Any]
LAYOUT = st.fixed_dictionaries(
    {
        "suffix": st.sampled_from([".csv", ".tsv", ".txt", ".npy"]),
        "bom": st.booleans(),
        "crlf": st.booleans(),
        "index": st.booleans(),
    }
)


@st.composite
def problems(draw: st.DrawFn) -> tuple[list[Any], list[Any]]:
    pool = draw(
        st.lists(WORDS if draw(st.booleans()) else INTS, min_size=1, max_size=5, unique=True)
    )
    n = draw(st.integers(1, 25))
    pick = st.sampled_from(pool)
    return draw(st.lists(pick, min_size=n, max_size=n)), draw(
        st.lists(pick, min_size=n, max_size=n)
    )


def _delimiter(suffix: str) -> str:
    return {".csv": ",", ".tsv": "\t", ".txt": ";"}[suffix]


def write_text(
    path: Path, columns: list[list[Any]], names: list[str] | None, layout: Layout
) -> None:
    sep = _delimiter(layout["suffix"])
    index = layout["index"] and names is not None  # pandas writes an index under a header
    rows = [[str(v) for v in r] for r in zip(*columns, strict=True)]
    if index:
        rows = [[str(i), *r] for i, r in enumerate(rows)]
    if names is not None:
        rows.insert(0, ([""] if index else []) + names)
    end = "\r\n" if layout["crlf"] else "\n"
    data = end.join(sep.join(r) for r in rows) + end
    path.write_bytes((b"\xef\xbb\xbf" if layout["bom"] else b"") + data.encode())


def evaluate(tmp: Path, *argv: str) -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["evaluate", "--json", *argv])
    assert code == 0
    return json.loads(out.getvalue())


def check(payload: dict[str, Any], y_true: list[Any], y_pred: list[Any]) -> None:
    if payload["kind"] == "binary":
        assert payload["per_class"][0]["f"] == f1_score(y_true, y_pred, zero_division=0)
        assert payload["measures"]["accuracy"] == accuracy_score(y_true, y_pred)
        return
    assert payload["kind"] == "multiclass"
    # As text for scikit-learn, which reads Python ints beyond int64 as floats: the same
    # partition into classes, so the same accuracy and macro-F.
    y_true, y_pred = [str(v) for v in y_true], [str(v) for v in y_pred]
    assert payload["measures"]["accuracy"] == accuracy_score(y_true, y_pred)
    want = f1_score(y_true, y_pred, average="macro", zero_division=0)
    assert abs(payload["averages"]["macro"]["f"] - want) < 1e-12
    assert sorted(payload["classes"]) == sorted({str(v) for v in [*y_true, *y_pred]})


@settings(max_examples=60, deadline=None)
@given(problems(), LAYOUT, LAYOUT, st.booleans())
def test_two_files_agree_with_scikit_learn(
    labels: tuple[list[Any], list[Any]], layout_e: Layout, layout_p: Layout, header: bool
) -> None:
    y_true, y_pred = labels
    text = isinstance(y_true[0], str)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        files = []
        for name, values, layout, title in (
            ("e", y_true, layout_e, "y_true"),
            ("p", y_pred, layout_p, "y_pred"),
        ):
            path = tmp / f"{name}{layout['suffix']}"
            big = any(isinstance(v, int) and abs(v) >= 2**63 for v in values)
            if layout["suffix"] == ".npy" and not big:
                np.save(path, np.array(values))
            else:
                suffix = ".csv" if path.suffix == ".npy" else path.suffix
                path = path.with_suffix(suffix)
                write_text(
                    path, [values], [title] if header else None, {**layout, "suffix": suffix}
                )
            files.append(str(path))
        try:
            payload = evaluate(tmp, *files)
        except AssertionError:
            # Only a headerless first line of text labels seen once is refused (ambiguous).
            assert text and not header
            payload = evaluate(tmp, *files, "--no-header")
        check(payload, y_true, y_pred)


@settings(max_examples=40, deadline=None)
@given(problems(), LAYOUT, st.sampled_from([None, ["y_true", "y_pred"], ["y_pred", "y_true"]]))
def test_pair_file_agrees_with_scikit_learn(
    labels: tuple[list[Any], list[Any]], layout: Layout, names: list[str] | None
) -> None:
    y_true, y_pred = labels
    suffix = ".csv" if layout["suffix"] == ".npy" else layout["suffix"]
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / f"pairs{suffix}"
        columns = [y_pred, y_true] if names == ["y_pred", "y_true"] else [y_true, y_pred]
        write_text(path, columns, names, {**layout, "suffix": suffix})
        check(evaluate(Path(d), str(path)), y_true, y_pred)
