"""The scenebench CLI in a subprocess, as a user runs it: numpy warnings off, no colour, lines wide
enough that no message is wrapped mid-phrase (the fault tests match messages)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

QUIET_ENV = {**os.environ, "PYTHONWARNINGS": "ignore", "NO_COLOR": "1", "COLUMNS": "400"}


def run_cli(
    args: Sequence[object],
    env: Mapping[str, str] | None = None,
    *,
    code: str | None = None,
    cwd: Path | None = None,
    timeout: float = 600,
) -> subprocess.CompletedProcess:
    """``python -m scenebench ARGS``; with ``code``, ``python -c CODE ARGS`` (a CLI run wrapped by a
    test, e.g. one that kills itself at a chosen moment)."""
    head = [sys.executable, "-c", code] if code else [sys.executable, "-m", "scenebench"]
    return subprocess.run([*head, *map(str, args)], env=dict(env or QUIET_ENV), cwd=cwd, capture_output=True, text=True, timeout=timeout)
