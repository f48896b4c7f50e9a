"""Tiny shared timing helper for the benchmark scripts (standard library only).

- :func:`measure` times one callable: ``repeats`` runs after ``warmup`` untimed ones,
  ``time.perf_counter``, summarised by the median (the figure we report) and the spread.
- :func:`measure_interleaved` times several callables round-robin, so a burst of load from
  other processes on a shared machine hits all of them alike and their *ratios* stay fair.
- :func:`markdown_table` renders rows as a GitHub markdown table.
- :func:`machine_facts` lists CPU count, load average, Python and package versions.

Example
-------
>>> t = measure(lambda: sum(range(1000)), repeats=5)
>>> t.repeats, t.min <= t.median <= t.max
(5, True)
>>> print(markdown_table(["case", "s"], [["a", fmt_seconds(0.0123)]]))
| case | s |
|---|---|
| a | 12.3 ms |
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any

__all__ = [
    "Timing",
    "fmt_ratio",
    "fmt_seconds",
    "machine_facts",
    "markdown_table",
    "measure",
    "measure_interleaved",
]


@dataclass(frozen=True)
class Timing:
    """Wall-clock times (seconds) of repeated runs of one callable."""

    times: tuple[float, ...]

    @property
    def repeats(self) -> int:
        return len(self.times)

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def min(self) -> float:
        return min(self.times)

    @property
    def max(self) -> float:
        return max(self.times)

    @property
    def spread(self) -> float:
        """(max - min) / median: a crude noise figure (0.1 = runs vary by 10 %)."""
        return (self.max - self.min) / self.median if self.median > 0 else 0.0

    def scaled(self, factor: float) -> Timing:
        """The same timing multiplied by ``factor`` (for linear extrapolation)."""
        return Timing(tuple(t * factor for t in self.times))

    def describe(self) -> str:
        """``median (min..max, n=R)`` in readable units."""
        return (
            f"{fmt_seconds(self.median)} ({fmt_seconds(self.min)}..{fmt_seconds(self.max)}, "
            f"n={self.repeats})"
        )


def _time_once(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def measure(fn: Callable[[], Any], repeats: int = 7, warmup: int = 1) -> Timing:
    """Time ``fn()`` ``repeats`` times after ``warmup`` untimed calls."""
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    for _ in range(warmup):
        fn()
    return Timing(tuple(_time_once(fn) for _ in range(repeats)))


def measure_interleaved(
    fns: Mapping[str, Callable[[], Any]],
    repeats: int | Mapping[str, int] = 7,
    warmup: int = 1,
) -> dict[str, Timing]:
    """Time several callables round-robin, so load bursts hit them all alike.

    ``repeats`` is one count for all, or a count per name: a callable with fewer repeats
    (a slow reference, say) runs in evenly spread rounds, so every callable is sampled
    over the same stretch of time. Returns one :class:`Timing` per name. Interleaving keeps
    the *ratios* between callables fair on a shared machine whose load drifts.
    """
    names = list(fns)
    counts = {n: repeats if isinstance(repeats, int) else repeats[n] for n in names}
    if any(c < 1 for c in counts.values()):
        raise ValueError(f"repeats must be >= 1, got {counts}")
    for _ in range(warmup):
        for name in names:
            fns[name]()
    rounds = max(counts.values())
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            c = counts[name]
            # run in round r if floor(r*c/R) steps up there: c runs spread over R rounds
            if (r * c) // rounds != ((r + 1) * c) // rounds:
                times[name].append(_time_once(fns[name]))
    return {name: Timing(tuple(ts)) for name, ts in times.items()}


def fmt_seconds(seconds: float) -> str:
    """Seconds in a readable unit with three significant digits."""
    if seconds != seconds:  # NaN
        return "n/a"
    if seconds >= 1.0:
        return f"{seconds:.3g} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} µs"


def fmt_ratio(ratio: float) -> str:
    """A ratio such as ``2.31x`` or ``154x``."""
    if ratio != ratio:
        return "n/a"
    return f"{ratio:.2f}x" if ratio < 10 else f"{ratio:.0f}x"


def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """Render a GitHub markdown table (cells are converted with ``str``; ``|`` escaped)."""

    def cell(value: Any) -> str:
        return str(value).replace("|", "\\|")

    lines = [
        "| " + " | ".join(cell(h) for h in headers) + " |",
        "|" + "|".join("---" for _ in headers) + "|",
    ]
    lines.extend("| " + " | ".join(cell(v) for v in row) + " |" for row in rows)
    return "\n".join(lines)


def machine_facts(packages: Sequence[str] = ()) -> dict[str, str]:
    """CPU count, load average, platform, Python and the installed versions of ``packages``."""
    facts = {
        "nproc": str(os.cpu_count()),
        "usable cpus": str(len(os.sched_getaffinity(0)))
        if hasattr(os, "sched_getaffinity")
        else "n/a",
        "load average (1, 5, 15 min)": ", ".join(f"{x:.2f}" for x in os.getloadavg())
        if hasattr(os, "getloadavg")
        else "n/a",
        "platform": platform.platform(),
        "processor": _cpu_model(),
        "python": platform.python_version(),
    }
    for name in packages:
        try:
            facts[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            facts[name] = "not installed"
    return facts


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"
