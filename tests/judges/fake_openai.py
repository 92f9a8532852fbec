"""A tiny real HTTP server on 127.0.0.1 speaking the OpenAI chat-completions protocol, with scripted faults.

Each request to ``/v1/chat/completions`` takes the next action from ``script`` (then ``default``):
``ok`` (a valid completion), ``500``/``502``/``503``/``429``/``400``/``401`` (that HTTP status),
``garbage`` (HTTP 200 with a body that is not JSON), ``nochoices`` (JSON without choices),
``hang`` (sleep ``hang_seconds`` before answering), ``reset`` (close the socket without a reply),
``reject_rf`` (400 when the request has ``response_format``, else ok), ``die`` (stop listening for
good: this and every later connection fails), ``trickle`` (an ``ok`` reply whose body is sent one byte
every ``trickle_seconds``), ``trickle_head`` (the same for the status line and headers too), ``pad`` (an
``ok`` reply whose content is followed by ``pad_bytes`` spaces; ``pad_close``: the same without a
``Content-Length``, ended by closing the connection), ``bigdeclared`` (headers declaring a
``pad_bytes`` body, then nothing).

An ``ok`` reply is a deterministic function of the request: a score request gets
``score = len(answer) % 11`` (as JSON when ``response_format`` is set, else as plain text ``"Score: N"``).
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def fenced_answer(user: str) -> str | None:
    """The answer inside the prompt's fence (``<<<ANSWER n>>>`` ... ``<<<END ANSWER n>>>``), v2 prompts."""
    m = re.search(r"<<<ANSWER (\w+)>>>\n(.*)\n<<<END ANSWER \1>>>", user, re.S)
    return m.group(2) if m else None


def reply_for(body: dict) -> str:
    user = body["messages"][-1]["content"]
    structured = "response_format" in body
    answer = fenced_answer(user)
    if "Score (0-10):" in user and answer is not None:
        n = len(answer) % 11
        return json.dumps({"score": n}) if structured else f"Score: {n}"
    if "Same or different?" in user:
        ans = answer or ""
        v = "same" if "same" in ans else "different"
        return json.dumps({"verdict": v}) if structured else v
    return json.dumps({"option": "A"}) if structured else "A"


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):  # a client that went away mid-reply is expected here
        pass


class FakeOpenAI:
    def __init__(
        self,
        script: list[str] | None = None,
        default: str = "ok",
        hang_seconds: float = 2.0,
        port: int = 0,
        reply=None,
        trickle_seconds: float = 0.3,
        pad_bytes: int = 0,
    ) -> None:
        self.reply = reply or reply_for  # content of an ``ok`` completion, from the request body
        self.script = list(script or [])
        self.default = default
        self.hang_seconds = hang_seconds
        self.trickle_seconds = trickle_seconds
        self.pad_bytes = pad_bytes
        self.requests = 0  # chat requests received (each one a judge call attempt)
        self.bodies: list[dict] = []
        self.headers: list[dict] = []
        self.active = self.max_active = 0  # requests being answered now / at most at once
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):  # keep test output clean
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with fake._lock:
                    fake.requests += 1
                    fake.bodies.append(body)
                    fake.headers.append(dict(self.headers))
                    action = fake.script.pop(0) if fake.script else fake.default
                    fake.active += 1
                    fake.max_active = max(fake.max_active, fake.active)
                try:
                    fake._act(self, action, body)
                finally:
                    with fake._lock:
                        fake.active -= 1

        self.httpd = _QuietServer(("127.0.0.1", port), Handler)
        self.port = self.httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()
        self._dead = False

    def _send(self, h, status: int, payload: bytes, ctype: str = "application/json") -> None:
        h.send_response(status)
        h.send_header("Content-Type", ctype)
        h.send_header("Content-Length", str(len(payload)))
        h.end_headers()
        h.wfile.write(payload)

    def _trickle(self, h, payload: bytes, *, head: bool) -> None:
        head_bytes = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n".encode()
        data = head_bytes + payload
        start = 0 if head else len(head_bytes)
        try:
            h.wfile.write(data[:start])
            h.wfile.flush()
            for i in range(start, len(data)):
                h.wfile.write(data[i : i + 1])
                h.wfile.flush()
                time.sleep(self.trickle_seconds)
        except OSError:  # the client gave up: what the deadline is for
            h.close_connection = True

    def _act(self, h, action: str, body: dict) -> None:
        if action == "hang":
            time.sleep(self.hang_seconds)
            action = "ok"
        if action == "reject_rf":
            action = "400" if "response_format" in body else "ok"
        if action in ("ok", "trickle", "trickle_head", "pad", "pad_close"):
            content = self.reply(body) + (" " * self.pad_bytes if action.startswith("pad") else "")
            out = {
                "id": "chatcmpl-fake",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", "fake"),
                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14},
            }
            if action.startswith("trickle"):
                self._trickle(h, json.dumps(out).encode(), head=action == "trickle_head")
            elif action == "pad_close":
                h.send_response(200)
                h.send_header("Content-Type", "application/json")
                h.send_header("Connection", "close")
                h.end_headers()
                try:
                    h.wfile.write(json.dumps(out).encode())
                except OSError:  # the client stopped reading at its cap
                    pass
                h.close_connection = True
            else:
                self._send(h, 200, json.dumps(out).encode())
        elif action == "bigdeclared":
            h.send_response(200)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(self.pad_bytes))
            h.end_headers()
            h.wfile.flush()
            time.sleep(self.hang_seconds)
        elif action.isdigit():
            self._send(h, int(action), json.dumps({"error": {"message": f"scripted {action}", "type": "x"}}).encode())
        elif action == "garbage":
            self._send(h, 200, b"<html>proxy error</html>", "application/json")
        elif action == "nochoices":
            self._send(h, 200, json.dumps({"id": "x", "object": "chat.completion", "choices": []}).encode())
        elif action == "reset":
            h.connection.shutdown(socket.SHUT_RDWR)
            h.close_connection = True
        elif action == "die":
            with self._lock:  # requests racing the socket close must fail too
                self.script.clear()
                self.default = "reset"
            h.connection.shutdown(socket.SHUT_RDWR)
            h.close_connection = True
            self.kill()
        else:  # pragma: no cover - a typo in a test script
            raise ValueError(action)

    def kill(self) -> None:
        """Stop listening: later connections are refused, like a crashed server."""
        if not self._dead:
            self._dead = True
            threading.Thread(target=lambda: (self.httpd.shutdown(), self.httpd.server_close()), daemon=True).start()
            time.sleep(0.05)

    def close(self) -> None:
        if not self._dead:
            self._dead = True
            self.httpd.shutdown()
            self.httpd.server_close()
