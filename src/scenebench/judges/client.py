"""A judge over any OpenAI-compatible chat endpoint (hosted API, vLLM, llama.cpp's server).

Flow per request: rule-first settlement → cache → one chat call (temperature 0, fixed seed, JSON-schema
``response_format`` while the server accepts it) → documented parse → cache write. Calls run on a
bounded thread pool. Timeouts, connection errors, 429, 5xx and unreadable HTTP bodies are retried with
exponential backoff; when one request exhausts its retries the judge stops starting new ones, lets the
ones in flight finish (each is cached as it lands) and raises :class:`JudgeUnavailable`.

``timeout`` is a total deadline for each HTTP request (attempt), however slowly the server sends;
a reply longer than ``max_reply_bytes`` (1 MiB by default, :mod:`scenebench.io.http`) is refused
before it is parsed: that request's verdict is invalid with the reason, and nothing is cached.
Verdicts are cached per endpoint (:func:`scenebench.judges.cache.endpoint_id` of ``base_url``).

The API key is read from the environment by the caller and handed to the ``openai`` client only; it is
never put in the cache, in results or in log messages.
"""

from __future__ import annotations

import random
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from scenebench.io.http import max_reply_bytes as reply_cap
from scenebench.io.http import openai_http_client, refused_reply
from scenebench.judges.api import JudgeRequest, JudgeUnavailable, JudgeVerdict
from scenebench.judges.cache import JudgeCache, cache_key, endpoint_id
from scenebench.judges.prompts import PROMPT_VERSIONS, build_messages, parse_option, parse_same, parse_score, response_schema
from scenebench.judges.rules import settle_by_rule
from scenebench.redact import MIN_SECRET, known_secrets, redact_text

MAX_TOKENS = {"score": 48, "same": 24, "option": 24}


class _Stop(Exception):
    """A request gave up after its retries, or the server refused the configuration (auth, model)."""


@dataclass
class _Reply:
    text: str
    prompt_tokens: int
    completion_tokens: int


def parse_reply(req: JudgeRequest, text: str) -> JudgeVerdict:
    if req.kind == "score":
        v, err = parse_score(text)
        return JudgeVerdict(v, v is not None, text, False, False, err)
    if req.kind == "same":
        v, err = parse_same(text)
        return JudgeVerdict(v, v is not None, text, False, False, err)
    idx, valid, err = parse_option(text, list(req.payload["options"]))
    return JudgeVerdict(idx, valid, text, False, False, err)


class OpenAICompatibleJudge:
    """:class:`scenebench.judges.api.Judge` over ``base_url`` (which ends in ``/v1``)."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None,
        api_key: str,
        cache_path: str | Path,
        model_id: str | None = None,
        concurrency: int = 4,
        timeout: float = 60.0,
        max_retries: int = 5,
        seed: int = 0,
        backoff_base: float = 0.5,
        backoff_max: float = 30.0,
        structured: bool = True,
        on_close: Callable[[], None] | None = None,
        endpoint: str | None = None,
        max_reply_bytes: int | None = None,
    ) -> None:
        import os

        from scenebench.extras import require

        openai = require("openai", "judge", "LLM judges")
        self._openai = openai
        self.model = model
        self.model_id = model_id or f"openai:{model}"
        self.prompt_versions = dict(PROMPT_VERSIONS)
        self.concurrency = max(1, int(concurrency))
        self.max_retries = max(0, int(max_retries))
        self.seed = seed
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self._structured = structured
        self._on_close = on_close
        url = base_url or os.environ.get("OPENAI_BASE_URL")
        # ``endpoint`` overrides the URL only where the model id alone pins the weights (local).
        self.endpoint = endpoint if endpoint is not None else endpoint_id(url)
        self.max_reply_bytes = reply_cap(max_reply_bytes)
        http = openai_http_client(openai, url, deadline=timeout, max_bytes=self.max_reply_bytes)
        # Retries are ours (counted, with our backoff and stop rule), so the client's own are off.
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=0, http_client=http)
        # A judge reply that echoes the key (or any secret this process knows) is cached and shown masked.
        self._secrets = sorted(
            {*known_secrets(argv=sys.argv[1:]), *([api_key] if len(api_key) >= MIN_SECRET else [])}, key=len, reverse=True
        )
        self.cache = JudgeCache(cache_path)
        self._lock = threading.Lock()
        self._usage = dict(
            calls=0, cache_hits=0, rule_settled=0, invalid=0, prompt_tokens=0, completion_tokens=0, retries=0, failed_calls=0
        )
        self._closed = False

    # --- public -------------------------------------------------------------------------------

    def settings(self, kind: str) -> dict[str, Any]:
        """Generation settings that decide a reply of this kind; part of every cache key."""
        return {"temperature": 0, "seed": self.seed, "max_tokens": MAX_TOKENS[kind]}

    def key(self, req: JudgeRequest) -> str:
        return cache_key(
            self.model_id, self.prompt_versions[req.kind], req.kind, req.payload, self.settings(req.kind), endpoint=self.endpoint
        )

    def usage(self) -> dict[str, int]:
        with self._lock:
            return dict(self._usage)

    def judge_many(self, requests: list[JudgeRequest], *, progress: bool = False) -> list[JudgeVerdict]:
        from scenebench.progress import progress_bar

        out: list[JudgeVerdict | None] = [None] * len(requests)
        todo: dict[str, list[int]] = {}  # identical requests share one call
        for i, req in enumerate(requests):
            ruled = settle_by_rule(req)
            if ruled is not None:
                out[i] = ruled
                self._count(rule_settled=1)
                continue
            k = self.key(req)
            hit = self.cache.get(k)
            if hit is not None:
                if hit.raw is not None:
                    # Re-parse the stored reply: a fixed parsing rule applies to old replies too.
                    hit = replace(parse_reply(req, hit.raw), cached=True)
                out[i] = hit
                self._count(cache_hits=1, invalid=int(not hit.valid))
                continue
            todo.setdefault(k, []).append(i)

        done = 0
        failure: BaseException | None = None
        with progress_bar(len(todo), "judging", enabled=progress, unit="items") as advance, ThreadPoolExecutor(self.concurrency) as pool:
            pending: dict[Future, str] = {}
            queue = deque(todo.items())
            while queue or pending:
                while queue and failure is None and len(pending) < self.concurrency:
                    k, idxs = queue.popleft()
                    pending[pool.submit(self._ask, requests[idxs[0]], k)] = k
                if not pending:
                    break
                finished, _ = wait(list(pending), return_when=FIRST_COMPLETED)
                for fut in finished:
                    k = pending.pop(fut)
                    try:
                        verdict = fut.result()
                    except _Stop as exc:
                        failure = failure or exc
                        continue
                    for i in todo[k]:
                        out[i] = verdict
                    self._count(invalid=len(todo[k]) * int(not verdict.valid))  # per verdict returned
                    done += 1
                    advance(1)
        if failure is not None:
            left = sum(1 for v in out if v is None)
            raise JudgeUnavailable(
                f"judge {self.model_id} unavailable: {failure}. {done} verdicts judged in this call are saved in the "
                f"cache {self.cache.path}; rerun to resume ({left} requests still to judge)",
                done=done,
                pending=left,
            ) from failure
        return out  # type: ignore[return-value]

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self._client.close()
        finally:
            self.cache.close()
            if self._on_close is not None:
                self._on_close()

    def __enter__(self) -> OpenAICompatibleJudge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- internals ----------------------------------------------------------------------------

    def _count(self, **inc: int) -> None:
        with self._lock:
            for k, v in inc.items():
                self._usage[k] += v

    def _ask(self, req: JudgeRequest, key: str) -> JudgeVerdict:
        try:
            reply = self._call_with_retries(req)
        except _RefusedReply as exc:
            # Nothing of the reply is kept (not even as ``raw``): no cache entry, no sample record.
            return JudgeVerdict(None, False, None, False, False, f"judge reply refused: {exc}")
        except _BadRequest as exc:
            # The server refused this one request (e.g. longer than its context): invalid, not cached,
            # so a later run with a larger context can still judge it.
            return JudgeVerdict(None, False, None, False, False, f"judge refused the request: {exc}")
        verdict = parse_reply(req, reply.text)
        if verdict.raw is not None:
            verdict = replace(verdict, raw=redact_text(verdict.raw, self._secrets))
        self.cache.put(
            key,
            model_id=self.model_id,
            prompt_version=self.prompt_versions[req.kind],
            kind=req.kind,
            verdict=verdict,
            prompt_tokens=reply.prompt_tokens,
            completion_tokens=reply.completion_tokens,
        )
        return verdict

    def _call_with_retries(self, req: JudgeRequest) -> _Reply:
        oa = self._openai
        attempt = 0
        while True:
            try:
                try:
                    return self._call_once(req)
                except Exception as exc:
                    refused = refused_reply(exc)
                    if refused is None:
                        raise
                    # Not retried: at temperature 0 asking again fetches the same flood.
                    raise _RefusedReply(str(refused)) from exc
            except (oa.AuthenticationError, oa.PermissionDeniedError, oa.NotFoundError) as exc:
                self._count(failed_calls=1)
                raise _Stop(f"the server refused the judge configuration ({type(exc).__name__}, HTTP {exc.status_code})") from exc
            except _BadRequest:
                self._count(failed_calls=1)
                raise
            except (
                oa.APIConnectionError,
                oa.RateLimitError,
                oa.APIStatusError,
                oa.APIResponseValidationError,
                _Garbage,
                ValueError,
            ) as exc:
                self._count(failed_calls=1)
                status = getattr(exc, "status_code", None)
                if isinstance(exc, oa.APIStatusError) and status is not None and status < 500 and status not in (408, 409, 429):
                    raise _BadRequest(f"HTTP {status}") from exc
                if attempt >= self.max_retries:
                    what = f"HTTP {status}" if status else type(exc).__name__
                    raise _Stop(f"{what} after {attempt + 1} attempts") from exc
                self._count(retries=1)
                # Full-jitter exponential backoff: spreads retries of parallel workers apart.
                time.sleep(random.uniform(0, min(self.backoff_max, self.backoff_base * 2**attempt)))
                attempt += 1

    def _call_once(self, req: JudgeRequest) -> _Reply:
        oa = self._openai
        kwargs: dict[str, Any] = dict(
            model=self.model,
            messages=build_messages(req.kind, req.payload),
            **self.settings(req.kind),
        )
        structured = self._structured
        if structured:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": f"{req.kind}_verdict", "schema": response_schema(req.kind, req.payload), "strict": True},
            }
        try:
            resp = self._client.chat.completions.create(**kwargs)
        except oa.BadRequestError:
            if not structured:
                raise
            # Servers without structured output refuse response_format: fall back to plain text for good.
            kwargs.pop("response_format")
            resp = self._client.chat.completions.create(**kwargs)
            self._structured = False
        if not getattr(resp, "choices", None):
            raise _Garbage("reply without choices")
        text = resp.choices[0].message.content
        if text is None:
            raise _Garbage("reply without message content")
        usage = getattr(resp, "usage", None)
        pt = int(getattr(usage, "prompt_tokens", 0) or 0)
        ct = int(getattr(usage, "completion_tokens", 0) or 0)
        self._count(calls=1, prompt_tokens=pt, completion_tokens=ct)
        return _Reply(text, pt, ct)


class _Garbage(Exception):
    """An HTTP 200 whose body is not a chat completion: treated like a transient server fault."""


class _BadRequest(Exception):
    """HTTP 4xx for one request (not auth/rate limit): that request is invalid, the run goes on."""


class _RefusedReply(_BadRequest):
    """A reply over the size cap (or compressed): that request is invalid, nothing of it is stored."""
