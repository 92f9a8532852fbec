"""Rich progress bars that stay out of the way: off when not a terminal or when disabled."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def progress_bar(total: int, label: str, enabled: bool = True, unit: str = "samples") -> Iterator[Callable[[int], None]]:
    """Yield ``advance(n)``; draws a bar with rate and ETA on a terminal (stderr)."""
    if not enabled or total <= 0 or not sys.stderr.isatty():
        yield lambda n=1: None
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
