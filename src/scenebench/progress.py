"""Progress that stays out of the way: a Rich bar on a terminal; off a terminal (a log file, CI,
``nohup``), one plain line every :func:`log_interval` seconds, so a long ``generate``, ``run`` or
judge pass shows it is alive without filling a log with bar redraws; nothing when disabled."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

LOG_INTERVAL_ENV = "SCENEBENCH_PROGRESS_INTERVAL"
DEFAULT_LOG_INTERVAL = 30.0  # seconds between two progress lines off a terminal


def log_interval() -> float:
    """Seconds between progress lines off a terminal (env ``SCENEBENCH_PROGRESS_INTERVAL``; 0: every step)."""
    try:
        return max(0.0, float(os.environ.get(LOG_INTERVAL_ENV, DEFAULT_LOG_INTERVAL)))
    except ValueError:
        return DEFAULT_LOG_INTERVAL


@contextmanager
def progress_lines(total: int, label: str, unit: str = "samples", interval: float | None = None) -> Iterator[Callable[[int], None]]:
    """Yield ``advance(n)``; writes ``label: done/total unit (rate/s, elapsed, ETA)`` to stderr at
    most every ``interval`` seconds, and a last line when any was written (a pass shorter than
    the interval stays silent)."""
    every = log_interval() if interval is None else interval
    start = last = time.monotonic()
    done = 0
    wrote = False

    def line(now: float) -> None:
        spent = now - start
        rate = done / spent if spent > 0 else 0.0
        eta = f", ETA {(total - done) / rate:.0f} s" if rate > 0 and done < total else ""
        sys.stderr.write(f"{label}: {done:,}/{total:,} {unit} ({rate:,.1f} {unit}/s, {spent:.0f} s elapsed{eta})\n")
        sys.stderr.flush()

    def advance(n: int = 1) -> None:
        nonlocal done, last, wrote
        done += n
        now = time.monotonic()
        if now - last >= every:
            line(now)
            last, wrote = now, True

    try:
        yield advance
    finally:
        if wrote and done:
            line(time.monotonic())


@contextmanager
def progress_bar(total: int, label: str, enabled: bool = True, unit: str = "samples") -> Iterator[Callable[[int], None]]:
    """Yield ``advance(n)``; draws a bar with rate and ETA on a terminal (stderr), plain periodic
    lines elsewhere (:func:`progress_lines`)."""
    if not enabled or total <= 0:
        yield lambda n=1: None
        return
    if not sys.stderr.isatty():
        with progress_lines(total, label, unit) as advance:
            yield advance
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class RateColumn(ProgressColumn):
        def render(self, task):  # type: ignore[override]
            speed = task.finished_speed or task.speed
            return Text(f"{speed:,.1f} {unit}/s" if speed else f"- {unit}/s")

    with Progress(
        TextColumn("{task.description}", markup=False),  # labels hold user text (model names)
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=Console(stderr=True, markup=False),
    ) as prog:
        task = prog.add_task(label, total=total)
        yield lambda n=1: prog.advance(task, n)
