"""The progress display draws only on terminals, when enabled."""

from __future__ import annotations

import io

from fmacro.validation.progress import Progress


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_silent_when_not_a_terminal_or_disabled() -> None:
    pipe = io.StringIO()
    with Progress(3, "work", stream=pipe) as bar:
        for _ in range(3):
            bar.advance()
    assert pipe.getvalue() == ""
    term = FakeTerminal()
    with Progress(3, "work", stream=term, enabled=False) as bar:
        bar.advance(3)
    assert term.getvalue() == ""


def test_draws_bar_counts_and_note_on_a_terminal() -> None:
    term = FakeTerminal()
    with Progress(4, "folds", stream=term, min_interval=0.0) as bar:
        bar.advance(note="fold 1")
        bar.advance(3)
    text = term.getvalue()
    assert "folds [" in text and "1/4" in text and "4/4" in text and "100%" in text
    assert "fold 1" in text and text.endswith("\n")
