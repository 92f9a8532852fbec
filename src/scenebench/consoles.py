"""The Rich consoles of every command: tables are never cut when the output is not a terminal.

Rich lays out for 80 columns when stdout is a pipe or a file (``scenebench score ... > log``,
CI logs, ``subprocess`` capture), which folds a table's numbers over several lines
(``0.00 [0.00,`` / ``0.00]``) and cuts long names. Off a terminal the width is
:data:`PLAIN_WIDTH` (or ``$COLUMNS`` when set), so each row stays one line a script or a reader of
the log can take whole; on a terminal Rich's own width is kept.
"""

from __future__ import annotations

import os
import sys
from typing import Any

PLAIN_WIDTH = 400


def output_width(stderr: bool = False) -> int | None:
    """The width for a console on stdout (or stderr): None (Rich decides) on a terminal."""
    stream = sys.stderr if stderr else sys.stdout
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stream
        tty = False
    if tty:
        return None
    cols = os.environ.get("COLUMNS", "")
    return int(cols) if cols.isdigit() and int(cols) > 0 else PLAIN_WIDTH


def make_console(*, stderr: bool = False, **kw: Any) -> Any:
    """A ``rich.console.Console`` with ``markup=False`` (user text is never markup) and the width of
    :func:`output_width`."""
    from rich.console import Console

    kw.setdefault("markup", False)
    width = output_width(stderr)
    if width is not None:
        kw.setdefault("width", width)
    return Console(stderr=stderr, **kw)
