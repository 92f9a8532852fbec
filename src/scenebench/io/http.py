"""HTTP clients for OpenAI-compatible servers: a total deadline per request and a cap on reply size.

The ``openai`` client's ``timeout`` bounds each socket read, not the request: a server that sends one
byte every two seconds holds a ``timeout=5`` request for as long as it likes. And it reads a reply of
any size into memory. :func:`openai_http_client` builds the ``http_client`` handed to ``openai.OpenAI``
so that every HTTP request (each attempt of a retried call is one request)

- ends within ``deadline`` seconds from its start, however the server trickles: a watchdog shuts the
  request's socket down when the deadline passes, and the read that was waiting fails at once as a
  timeout (``openai.APITimeoutError``, retried like any timeout);
- is refused (:class:`ReplyTooLarge`, before anything is parsed or stored) when its body passes
  ``max_reply_bytes`` (default :data:`DEFAULT_MAX_REPLY_BYTES`, 1 MiB; env ``SCENEBENCH_MAX_REPLY_BYTES``).
  A declared ``Content-Length`` over the cap is refused before the body is read. Replies are asked
  uncompressed (``Accept-Encoding: identity``) so the cap counts what is decoded; a compressed reply
  is refused.

Each request gets its own connection (no keep-alive) because the watchdog needs the socket, which
the HTTP library shows only when a connection is opened; a chat completion takes far longer than a
connect. Proxies from the environment (``HTTPS_PROXY``/``HTTP_PROXY``/``NO_PROXY``) are honoured.
"""

from __future__ import annotations

import functools
import os
import socket
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from scenebench.errors import ScenebenchError

DEFAULT_MAX_REPLY_BYTES = 1 << 20
ENV_MAX_REPLY = "SCENEBENCH_MAX_REPLY_BYTES"


class ReplyTooLarge(Exception):
    """A reply longer than the cap (or compressed): refused before it is parsed, never stored."""


def max_reply_bytes(value: int | None = None) -> int:
    """The cap to use: ``value``, else env ``SCENEBENCH_MAX_REPLY_BYTES``, else 1 MiB."""
    raw: Any = value if value is not None else os.environ.get(ENV_MAX_REPLY) or DEFAULT_MAX_REPLY_BYTES
    try:
        n = int(raw)
    except (TypeError, ValueError):
        raise ScenebenchError(
            f"reply size cap must be a whole number of bytes, got {raw!r} (env {ENV_MAX_REPLY} or max_reply_bytes)"
        ) from None
    if n < 1024:
        raise ScenebenchError(f"reply size cap must be at least 1024 bytes, got {n} (env {ENV_MAX_REPLY} or max_reply_bytes)")
    return n


def refused_reply(exc: BaseException | None) -> ReplyTooLarge | None:
    """The :class:`ReplyTooLarge` behind ``exc`` (older ``openai`` versions wrap it in APIConnectionError)."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, ReplyTooLarge):
            return exc
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return None


def openai_http_client(openai: Any, base_url: str | None, *, deadline: float, max_bytes: int) -> Any:
    """An ``http_client`` for ``openai.OpenAI(...)`` with the deadline and cap described above."""
    httpx = _httpx_module(openai)
    classes = _classes(httpx)
    inner = httpx.HTTPTransport(limits=httpx.Limits(max_connections=None, max_keepalive_connections=0), proxy=_env_proxy(base_url))
    # trust_env=False: the proxy is set on our transport; the client would otherwise mount its own
    # proxy transports from the environment, past the deadline and the cap.
    return openai.DefaultHttpxClient(transport=classes.Transport(inner, float(deadline), int(max_bytes)), trust_env=False)


def _httpx_module(openai: Any) -> Any:
    """The HTTP library this ``openai`` is built on (``httpx``, or ``httpx2`` in newer releases)."""
    for cls in type.mro(openai.DefaultHttpxClient):
        mod = sys.modules.get(cls.__module__.split(".")[0])
        if cls.__name__ == "Client" and mod is not None and hasattr(mod, "HTTPTransport"):
            return mod
    raise RuntimeError("cannot tell which HTTP library the installed openai package uses")  # pragma: no cover


def _env_proxy(base_url: str | None) -> str | None:
    if not base_url:
        base_url = "https://api.openai.com/v1"
    parts = urlsplit(base_url)
    if parts.hostname and urllib.request.proxy_bypass(parts.hostname):
        return None
    return urllib.request.getproxies().get(parts.scheme or "https")


class _Watchdog:
    """Shuts the request's sockets down when its deadline passes; the blocked read then fails."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.fired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def trace(self, name: str, info: dict[str, Any]) -> None:
        # httpcore's documented ``trace`` extension: "connect_tcp.complete" / "start_tls.complete" carry the stream.
        stream = info.get("return_value")
        get = getattr(stream, "get_extra_info", None)
        sock = get("socket") if callable(get) else None
        if not isinstance(sock, socket.socket):
            return
        with self._lock:
            self._sockets.append(sock)
            late = self.fired
        if late:
            self._shut(sock)

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
            socks = list(self._sockets)
        for s in socks:
            self._shut(s)

    @staticmethod
    def _shut(sock: socket.socket) -> None:
        try:
            # The plain socket's shutdown, also for a TLS socket: the TLS layer is left to the reading thread.
            socket.socket.shutdown(sock, socket.SHUT_RDWR)
        except OSError:
            pass

    def cancel(self) -> None:
        self._timer.cancel()

    def expired(self) -> bool:
        return self.fired


@functools.cache
def _classes(httpx: Any) -> Any:
    """Transport and stream classes built on the given HTTP library (its base classes are required)."""

    def timeout(dog: _Watchdog, request: Any) -> Exception:
        err: Exception = httpx.ReadTimeout(f"no complete reply within the {dog.seconds:g} s deadline of one request", request=request)
        return err

    class Stream(httpx.SyncByteStream):  # type: ignore[misc]
        def __init__(self, inner: Any, dog: _Watchdog, limit: int, request: Any) -> None:
            self._inner, self._dog, self._limit, self._request = inner, dog, limit, request

        def __iter__(self) -> Iterator[bytes]:
            got = 0
            try:
                for chunk in self._inner:
                    got += len(chunk)
                    if got > self._limit:
                        raise ReplyTooLarge(f"reply of more than {self._limit:,} bytes refused (the cap on one reply)")
                    if self._dog.expired():
                        raise timeout(self._dog, self._request)
                    yield chunk
            except ReplyTooLarge:
                raise
            except Exception as exc:
                if self._dog.expired():
                    raise timeout(self._dog, self._request) from exc
                raise

        def close(self) -> None:
            self._dog.cancel()
            self._inner.close()

    class Transport(httpx.BaseTransport):  # type: ignore[misc]
        def __init__(self, inner: Any, deadline: float, limit: int) -> None:
            self._inner, self._deadline, self._limit = inner, deadline, limit

        def handle_request(self, request: Any) -> Any:
            dog = _Watchdog(self._deadline)
            previous = request.extensions.get("trace")

            def trace(name: str, info: dict[str, Any]) -> None:
                dog.trace(name, info)
                if previous is not None:
                    previous(name, info)

            request.extensions = {**request.extensions, "trace": trace}
            request.headers["Accept-Encoding"] = "identity"
            t0 = time.monotonic()
            try:
                resp = self._inner.handle_request(request)
            except Exception as exc:
                dog.cancel()
                if dog.expired() or time.monotonic() - t0 >= self._deadline:
                    raise timeout(dog, request) from exc
                raise
            try:
                declared = int(resp.headers.get("Content-Length") or 0)
            except ValueError:
                declared = 0
            encoding = resp.headers.get("Content-Encoding", "identity").strip().lower()
            problem = None
            if declared > self._limit:
                problem = f"reply of {declared:,} bytes refused (more than the cap of {self._limit:,} bytes on one reply)"
            elif encoding not in ("", "identity"):
                problem = f"compressed reply ({encoding}) refused: its decoded size cannot be capped before it is read"
            if problem is not None:
                dog.cancel()
                resp.close()
                raise ReplyTooLarge(problem)
            return httpx.Response(
                status_code=resp.status_code,
                headers=resp.headers,
                stream=Stream(resp.stream, dog, self._limit, request),
                extensions=resp.extensions,
            )

        def close(self) -> None:
            self._inner.close()

    class Classes:
        pass

    Classes.Transport = Transport  # type: ignore[attr-defined]
    Classes.Stream = Stream  # type: ignore[attr-defined]
    return Classes
