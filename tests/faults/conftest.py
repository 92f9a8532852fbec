"""Fixtures of the fault tests: the fuzz harness's valid context, a fast work folder, outcome counts.

The context (two tiny generated houses in every benchmark format, plus valid prediction files) is
built once per session. Work folders live on tmpfs (``/dev/shm``) when there is one: every scored
case opens a run folder, and fsync on a real disk would dominate the run time.

Every case a test tries is recorded (target, kind of damage, outcome); the totals are printed at
the end of the session and, with ``SCENEBENCH_FAULTS_REPORT=path``, written as JSON.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from faultlog import OUTCOMES


def _fast_tmp() -> str | None:
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


@pytest.fixture(scope="session")
def fast_dir():
    d = Path(tempfile.mkdtemp(prefix="scenebench-faults-", dir=_fast_tmp()))
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="session")
def fuzz_ctx(fast_dir):
    import harness

    return harness.build_context(fast_dir / "context")


@pytest.fixture
def work(fast_dir, request):
    d = fast_dir / "work" / request.node.name.replace("/", "_")[:80]
    yield d
    shutil.rmtree(d, ignore_errors=True)


def pytest_terminal_summary(terminalreporter):
    if not OUTCOMES:
        return
    total = sum(sum(c.values()) for c in OUTCOMES.values())
    terminalreporter.write_sep("-", f"fault cases tried: {total}")
    for key in sorted(OUTCOMES):
        c = OUTCOMES[key]
        terminalreporter.write_line(f"{key}: {sum(c.values())} ({', '.join(f'{k} {v}' for k, v in c.most_common())})")
    out = os.environ.get("SCENEBENCH_FAULTS_REPORT")
    if out:
        Path(out).write_text(json.dumps({k: dict(v) for k, v in sorted(OUTCOMES.items())}, indent=1))
