"""User-facing text of validation and crossval cites its sources instead of internal labels.

A user has never heard of "seed 003" or "the book": every docstring and message string
of fmacro.validation and fmacro.crossval names a source by author, title and year.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import fmacro.crossval
import fmacro.validation

INTERNAL = re.compile(
    r"\bseed\s*0\d\d\b|\bthe book\b|\bbook's\b|lecture notes C\d+|\bC1\d\b|the dissertation",
    re.IGNORECASE,
)


def _strings(path: Path) -> list[tuple[int, str]]:
    """Every string constant of a module (docstrings, messages) with its line number."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]


@pytest.mark.parametrize("package", [fmacro.validation, fmacro.crossval])
def test_no_internal_source_labels_in_user_text(package) -> None:  # type: ignore[no-untyped-def]
    root = Path(package.__file__).parent
    found = [
        f"{path.relative_to(root)}:{line}: {match.group(0)!r}"
        for path in sorted(root.rglob("*.py"))
        for line, text in _strings(path)
        for match in INTERNAL.finditer(text)
    ]
    assert not found, "\n".join(found)


def test_the_sources_are_cited_by_author_title_and_year() -> None:
    from fmacro.crossval import runner
    from fmacro.validation import averages, binary

    assert "Patrick R. Nicolas, *Scala for Machine Learning*" in (binary.__doc__ or "") + (
        binary.BinFValidation.__doc__ or ""
    )
    assert "Packt, 2015" in (averages.__doc__ or "")
    assert "Evaluating Classifiers and Tuning Parameters" in (runner.__doc__ or "")
