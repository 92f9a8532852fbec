"""Persistent judge cache: one SQLite file shared by every run (WAL, synchronous=FULL).

A verdict is stored the moment its reply arrives, keyed by ``sha256(key version, endpoint, model id,
prompt version, kind, exact inputs, generation settings)``, so a killed run loses at most the replies
in flight and a re-score of the same items makes no call at all. Only judge replies are stored (the
reply text, the parsed verdict and token counts) — never the API key, the base URL or request headers
(the endpoint is only hashed into the key).

The endpoint is in the key because a model name says little about the model: two ``judge serve``
servers (or two vLLM hosts) can serve different weights under the same name. Keys of version 1
(before the endpoint was part of them) are never looked up again: those entries simply miss.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from scenebench.io.sqlite import connect_durable
from scenebench.judges.api import JudgeVerdict

ENV_CACHE = "SCENEBENCH_JUDGE_CACHE"
KEY_VERSION = 2


def default_cache_path() -> Path:
    """Env ``SCENEBENCH_JUDGE_CACHE``, else ``$XDG_CACHE_HOME/scenebench/judge.sqlite`` (``~/.cache`` by default)."""
    env = os.environ.get(ENV_CACHE)
    if env:
        return Path(env).expanduser()
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return root / "scenebench" / "judge.sqlite"


def endpoint_id(base_url: str | None) -> str:
    """The server a reply came from, as a key part: scheme, host, port and path, lower-cased where
    case does not matter; credentials, query and a trailing slash are dropped (a rotated password or
    ``/v1/`` vs ``/v1`` is the same server)."""
    from urllib.parse import urlsplit

    parts = urlsplit((base_url or "https://api.openai.com/v1").strip())
    scheme = (parts.scheme or "https").lower()
    host = (parts.hostname or "").lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    default = {"http": 80, "https": 443}.get(scheme)
    netloc = host if port in (None, default) else f"{host}:{port}"
    return f"{scheme}://{netloc}{parts.path.rstrip('/')}"


def cache_key(
    model_id: str, prompt_version: str, kind: str, payload: dict[str, Any], settings: dict[str, Any], *, endpoint: str = ""
) -> str:
    """Canonical JSON (sorted keys, exact strings) of everything that decides the reply, hashed.

    ``endpoint``: :func:`endpoint_id` of the server, or a fixed name when ``model_id`` alone pins the
    weights (``local``: the id holds the GGUF file's hash and the port changes every start)."""
    blob = json.dumps(
        {
            "v": KEY_VERSION,
            "endpoint": endpoint,
            "model": model_id,
            "prompt": prompt_version,
            "kind": kind,
            "payload": payload,
            "settings": settings,
        },
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
        default=str,
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class JudgeCache:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = connect_durable(self.path)
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS verdicts ("
            " key TEXT PRIMARY KEY, model_id TEXT NOT NULL, prompt_version TEXT NOT NULL, kind TEXT NOT NULL,"
            " value TEXT, valid INTEGER NOT NULL, raw TEXT, error TEXT,"
            " prompt_tokens INTEGER NOT NULL DEFAULT 0, completion_tokens INTEGER NOT NULL DEFAULT 0,"
            " created REAL NOT NULL)"
        )

    def get(self, key: str) -> JudgeVerdict | None:
        with self._lock:
            row = self._db.execute("SELECT value, valid, raw, error FROM verdicts WHERE key=?", (key,)).fetchone()
        if row is None:
            return None
        return JudgeVerdict(json.loads(row[0]), bool(row[1]), row[2], True, False, row[3])

    def put(
        self,
        key: str,
        *,
        model_id: str,
        prompt_version: str,
        kind: str,
        verdict: JudgeVerdict,
        prompt_tokens: int = 0,
        completion_tokens: int = 0,
    ) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO verdicts VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (
                    key,
                    model_id,
                    prompt_version,
                    kind,
                    json.dumps(verdict.value),
                    int(verdict.valid),
                    verdict.raw,
                    verdict.error,
                    prompt_tokens,
                    completion_tokens,
                    time.time(),
                ),
            )

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()
