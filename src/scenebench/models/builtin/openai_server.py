"""The HTTP side shared by the ``openai:`` and ``openai-vision:`` adapters: client and server faults.

The client (:func:`make_client`) bounds every HTTP request by a total deadline (``timeout``) and every
reply by a size cap (``max_reply_bytes``, 1 MiB by default; :mod:`scenebench.io.http`), with the
``openai`` client's own retries (``max_retries``, backoff) on timeouts, connection errors, 429 and 5xx.

A server that is down, answers 5xx, 401, something that is not a chat completion, too slowly or too
much, is a fault of the server, not of scenebench: :func:`chat` turns each into
:class:`ModelUnavailable`, one line naming the model, the server (without credentials) and the fault,
which the CLI prints with exit code 2. The run loop saves each scene's predictions before it asks
about the next, so everything predicted before the fault is kept and the same command resumes.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from scenebench.errors import ScenebenchError
from scenebench.extras import require
from scenebench.io.http import max_reply_bytes as reply_cap
from scenebench.io.http import openai_http_client, refused_reply
from scenebench.redact import redact_url

RESUME = "rerun the same command to resume (scenes predicted so far are saved)"


class ModelUnavailable(ScenebenchError):
    """The model's server failed a request after every retry (or refused it): stop, keep what is saved."""


def make_client(purpose: str, base_url: str | None, *, timeout: float, max_retries: int, max_reply_bytes: int | None) -> Any:
    openai = require("openai", "judge", purpose)
    http = openai_http_client(openai, base_url, deadline=timeout, max_bytes=reply_cap(max_reply_bytes))
    return openai.OpenAI(
        base_url=base_url,
        api_key=os.environ.get("OPENAI_API_KEY", "EMPTY"),
        timeout=timeout,
        max_retries=max_retries,
        http_client=http,
    )


def chat(
    name: str, base_url: str | None, timeout: float, max_retries: int, call: Callable[[], Any], *, passthrough: tuple[type, ...] = ()
) -> Any:
    """``call()`` (one chat completion), with server faults raised as :class:`ModelUnavailable`.

    ``passthrough``: exception types the caller handles itself (a context overflow it can shorten)."""
    openai = require("openai", "judge", f"the {name} model adapter")
    where = f"model {name} at {redact_url(base_url or 'https://api.openai.com/v1')}"
    tries = f"after {max_retries + 1} attempt{'s' * bool(max_retries)}"
    try:
        r = call()
    except passthrough:
        raise
    except Exception as exc:
        refused = refused_reply(exc)
        if refused is not None:
            raise ModelUnavailable(
                f"{where}: {refused}; a larger cap: --model-arg max_reply_bytes=N (or env SCENEBENCH_MAX_REPLY_BYTES); then {RESUME}"
            ) from exc
        if isinstance(exc, openai.APITimeoutError):
            what = f"no complete reply within the {timeout:g} s deadline of a request, {tries}"
        elif isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__
            detail = f" ({type(cause).__name__}: {str(cause).strip().splitlines()[0][:200]})" if cause and str(cause).strip() else ""
            what = f"cannot connect or the connection broke{detail}, {tries}"
        elif isinstance(exc, (openai.AuthenticationError, openai.PermissionDeniedError)):
            what = f"HTTP {exc.status_code}: the server refused the key (env OPENAI_API_KEY)"
        elif isinstance(exc, openai.APIStatusError):
            what = f"HTTP {exc.status_code} ({error_message(exc)}), {tries}"
        elif isinstance(exc, (openai.APIResponseValidationError, json.JSONDecodeError, UnicodeDecodeError)):
            what = f"the reply is not a chat completion ({type(exc).__name__})"
        else:
            raise
        raise ModelUnavailable(f"{where} unavailable: {what}; {RESUME}") from exc
    choices = getattr(r, "choices", None)
    if isinstance(choices, list) and choices:
        return r
    # A 200 whose body is not JSON comes back as a string; one without choices answers nothing.
    raise ModelUnavailable(f"{where} unavailable: the reply is not a chat completion (no choices); {RESUME}")


def error_message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    msg = body.get("message") if isinstance(body, dict) else None
    text = str(msg if msg else getattr(exc, "message", "") or "").strip()
    return (text.splitlines()[0][:200] if text else "no message") or "no message"
