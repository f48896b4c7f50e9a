"""A dependency-free progress display for long work (cross-validation, searches, experiments).

It draws on stderr only when enabled *and* the stream is a terminal, so pipes, logs, CI
and tests stay silent. Use it as a context manager::

    with Progress(total=10, label="folds", enabled=progress) as bar:
        for fold in folds:
            ...
            bar.advance()
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import TextIO

__all__ = ["Progress"]


class Progress:
    """``label [#####.....] 12/30  40%  eta 0:07  note``, redrawn in place.

    Parameters
    ----------
    total
        Number of steps.
    label
        Text before the bar.
    enabled
        ``False`` silences it; it is also silent when ``stream`` is not a terminal.
    stream
        Where to draw (default ``sys.stderr``).
    width
        Bar width in characters.
    min_interval
        Seconds between redraws (the last step always draws).
    """

    def __init__(
        self,
        total: int,
        label: str = "",
        *,
        enabled: bool = True,
        stream: TextIO | None = None,
        width: int = 30,
        min_interval: float = 0.1,
    ) -> None:
        self.total = max(int(total), 0)
        self.label = label
        self.stream = sys.stderr if stream is None else stream
        isatty = getattr(self.stream, "isatty", None)
        self.active = bool(enabled and callable(isatty) and isatty())
        self.width = width
        self.min_interval = min_interval
        self.done = 0
        self.note = ""
        self._start = time.monotonic()
        self._last_draw = -float("inf")

    def __enter__(self) -> Progress:
        self._start = time.monotonic()
        self._draw(force=True)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def advance(self, steps: int = 1, note: str | None = None) -> None:
        """Count ``steps`` more steps done (0 just updates the note)."""
        self.done = min(self.total, self.done + steps) if self.total else self.done + steps
        if note is not None:
            self.note = note
        self._draw(force=self.done >= self.total)

    def close(self) -> None:
        """End the line (only if something was drawn)."""
        if self.active:
            self._draw(force=True)
            self.stream.write("\n")
            self.stream.flush()
            self.active = False

    def _draw(self, force: bool = False) -> None:
        if not self.active:
            return
        now = time.monotonic()
        if not force and now - self._last_draw < self.min_interval:
            return
        self._last_draw = now
        frac = self.done / self.total if self.total else 1.0
        filled = round(frac * self.width)
        bar = "#" * filled + "." * (self.width - filled)
        elapsed = now - self._start
        eta = ""
        if 0 < self.done < self.total:
            remaining = elapsed * (self.total - self.done) / self.done
            eta = f"  eta {int(remaining // 60)}:{int(remaining % 60):02d}"
        text = f"\r{self.label} [{bar}] {self.done}/{self.total} {frac:4.0%}{eta}  {self.note}"
        self.stream.write(text.ljust(self.width + 40))
        self.stream.flush()
