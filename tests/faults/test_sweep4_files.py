"""Issue 29, items 2, 3, 4, 6 and 8: what ``--overwrite`` may delete, secrets in messages and logs,
where traceback logs go, credentials in a ``--base-url`` query string, a damaged ``samples.sqlite``.
Through the real CLI (a subprocess) unless a function is the whole story."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from fixtures import make_bench3d, make_rio

CANARY = "sk-scenebench-CANARY-29b3-4f0d8e2a91c7"


def cli(*args, env=None, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "scenebench", *map(str, args)],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1", **(env or {})},
    )


@pytest.fixture
def rio(tmp_path):
    data = make_rio(tmp_path / "3rscan")
    pred = tmp_path / "pred.jsonl"
    pred.write_text("".join(json.dumps({"rescan": "scan0", "instance": i, "pose": np.eye(4).tolist()}) + "\n" for i in (1, 2, 3)))
    return data, pred


def _score(data, pred, out, *extra, cwd=None):
    return cli("score", "rio", "--data", data, "--predictions", pred, "--out", out, "--bootstrap", "0", "--no-progress", *extra, cwd=cwd)


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and p.name != ".lock"}


# -- item 2: --overwrite deletes only what scenebench proves it wrote ---------------------------------


def test_overwrite_in_a_user_folder_keeps_the_users_reports(rio, tmp_path):
    data, pred = rio
    home = tmp_path / "thesis"
    (home / "report").mkdir(parents=True)
    (home / "report.md").write_text("my thesis\n")
    (home / "report.html").write_text("<p>mine</p>\n")
    (home / "report" / "figure.svg").write_text("<svg/>\n")
    before = _tree(home)
    p = _score(data.resolve(), pred.resolve(), ".", "--overwrite", cwd=home)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "--overwrite refused" in p.stderr and "report.md" in p.stderr and "report/" in p.stderr and "nothing was deleted" in p.stderr
    assert _tree(home) == before  # every byte kept, and nothing scored into it


def test_overwrite_refuses_a_foreign_or_other_benchmarks_run_json(rio, tmp_path):
    data, pred = rio
    out = tmp_path / "out"
    out.mkdir()
    (out / "run.json").write_text('{"name": "my experiment", "lr": 0.1}\n')  # another tool's run.json
    (out / "results.json").write_text("{}\n")
    p = _score(data, pred, out, "--overwrite")
    assert p.returncode == 2 and "run.json" in p.stderr and "results.json" in p.stderr and "nothing was deleted" in p.stderr, p.stderr
    assert (out / "run.json").read_text() == '{"name": "my experiment", "lr": 0.1}\n'
    other = {"benchmark": "surprise3d", "protocol": "strict", "fingerprint": "0123456789abcdef"}
    (out / "run.json").write_text(json.dumps(other))
    p = _score(data, pred, out, "--overwrite")
    assert p.returncode == 2 and "for a rio run" in p.stderr, p.stderr
    assert json.loads((out / "run.json").read_text()) == other


def test_overwrite_removes_the_reports_scenebench_wrote_and_refuses_others(rio, tmp_path):
    data, pred = rio
    run = tmp_path / "run"
    assert _score(data, pred, run).returncode == 0
    p = cli("report", run, "--latex", run / "report.tex")
    assert p.returncode == 0, p.stderr
    ledger = json.loads((run / ".scenebench-written.json").read_text())
    assert ledger == {"tool": "scenebench", "written": ["report.html", "report.tex"]}
    p = _score(data, pred, run, "--overwrite")
    assert p.returncode == 0, p.stderr
    assert not (run / "report.html").exists() and not (run / "report.tex").exists() and not (run / ".scenebench-written.json").exists()
    assert (run / "results.json").is_file()
    (run / "report.md").write_text("notes I wrote\n")  # not in any ledger
    p = _score(data, pred, run, "--overwrite")
    assert p.returncode == 2 and "report.md" in p.stderr, p.stderr
    assert (run / "report.md").read_text() == "notes I wrote\n" and (run / "results.json").is_file()


# -- item 8: a damaged samples.sqlite -------------------------------------------------------------------


@pytest.mark.parametrize("damage", ["random", "header"])
def test_damaged_store_is_one_line_and_overwrite_resets_it(rio, tmp_path, damage):
    data, pred = rio
    run = tmp_path / "run"
    assert _score(data, pred, run).returncode == 0
    good = json.loads((run / "results.json").read_text())["metrics"]
    store = run / "samples.sqlite"
    if damage == "random":
        store.write_bytes(np.random.default_rng(29).integers(0, 256, 4096, dtype=np.uint8).tobytes())
    else:  # a valid header over garbage pages: "database disk image is malformed" at the first read
        raw = bytearray(store.read_bytes())
        raw[100:] = b"\xa5" * (len(raw) - 100)
        store.write_bytes(bytes(raw))
    for args in (("score", "rio", "--data", data, "--predictions", pred, "--out", run, "--bootstrap", "0", "--no-progress"),
                 ("report", run, "--no-html", "--markdown")):  # fmt: skip
        p = cli(*args)
        assert p.returncode == 2, (args[0], p.stdout, p.stderr)
        lines = p.stderr.strip().splitlines()
        assert len(lines) == 1 and str(store) in lines[0] and "damaged" in lines[0] and "--overwrite" in lines[0], lines
        assert "a bug" not in p.stderr and "Traceback" not in p.stderr
    p = _score(data, pred, run, "--overwrite")
    assert p.returncode == 0, p.stderr
    assert json.loads((run / "results.json").read_text())["metrics"] == good


def test_damaged_store_on_run_rerun(tmp_path):
    data = make_rio(tmp_path / "3rscan")
    run = tmp_path / "run"
    args = ("run", "rio", "--data", data, "--model", "oracle", "--out", run, "--no-progress")
    assert cli(*args).returncode == 0
    (run / "samples.sqlite").write_bytes(b"not a database at all, " * 200)
    p = cli(*args)
    assert p.returncode == 2 and "samples.sqlite" in p.stderr and "damaged" in p.stderr and "a bug" not in p.stderr, p.stderr
    p = cli(*args, "--overwrite")
    assert p.returncode == 0 and "0 reused" in p.stdout, (p.stdout, p.stderr)


# -- items 3 and 6: a server echoing the key; a credential in the --base-url query -------------------


class _EchoKey401(BaseHTTPRequestHandler):
    """An OpenAI-like server that refuses the key and quotes it back, whole and shortened."""

    def do_POST(self):  # noqa: N802 - http.server's name
        key = self.headers.get("Authorization", "").removeprefix("Bearer ")
        self.server.seen.append(key)  # type: ignore[attr-defined]
        msg = f"Incorrect API key provided: {key}. Short form: {key[:9]}****{key[-6:]}. url: {self.path}"
        body = json.dumps({"error": {"message": msg, "type": "invalid_request_error", "code": "invalid_api_key"}}).encode()
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def _fragments(secret: str, n: int = 6) -> set[str]:
    return {secret[i : i + n] for i in range(len(secret) - n + 1)}


def test_api_key_echoed_by_a_401_reply_is_masked_on_stderr_and_in_logs(tmp_path):
    pytest.importorskip("openai", reason="needs the openai client (the openai: model adapter)")
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _EchoKey401)
    srv.seen = []  # type: ignore[attr-defined]
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    query_secret = "qs-CANARY-77e1c0ffee"
    try:
        data = make_bench3d(tmp_path / "b3d", with_train=False)
        run = tmp_path / "run"
        url = f"http://127.0.0.1:{srv.server_address[1]}/v1?api-key={query_secret}"
        env = {"OPENAI_API_KEY": CANARY, "TMPDIR": str(tmp_path / "tmp")}
        (tmp_path / "tmp").mkdir()
        p = cli("run", "3dbench", "--data", data, "--model", "openai:toy", "--base-url", url, "--tasks", "counting", "--out", run,
                "--no-progress", "--limit", "1", env=env)  # fmt: skip
    finally:
        srv.shutdown()
        srv.server_close()
    assert CANARY in srv.seen  # type: ignore[attr-defined]  # the key really went out
    assert p.returncode != 0 and "***" in p.stderr, (p.stdout, p.stderr)
    written = [f for f in run.rglob("*") if f.is_file()] + [f for f in (tmp_path / "tmp").rglob("*") if f.is_file()]
    assert any(f.parent.name == "logs" or "scenebench-logs" in str(f) for f in written) or "full traceback" not in p.stderr
    for secret in (CANARY, query_secret):
        for text, where in [(p.stdout + p.stderr, "output"), *((f.read_text(errors="replace"), str(f)) for f in written)]:
            leaked = [g for g in _fragments(secret) if g in text]
            assert not leaked, (where, leaked[:3])


@pytest.mark.parametrize(
    ("userinfo", "query", "kept"),
    [
        # a password: the user name stays readable
        ("alice:CANARY-hunter2@", "", ["alice:***@127.0.0.1"]),
        # a bare token as user name, and a key in the query (Azure's api-key): both masked, other parameters kept
        ("tok-CANARY-5512ab@", "?api-version=2024&api-key=az-CANARY-9d8e7f6a", ["api-key=***", "api-version=2024", "://***@127.0.0.1"]),
    ],
    ids=["password", "token-and-query-key"],
)
def test_base_url_credentials_are_masked_in_run_and_results(tmp_path, userinfo, query, kept):
    pytest.importorskip("openai", reason="needs the openai client (the openai: model adapter)")
    from tests.judges.fake_openai import FakeOpenAI

    data = make_bench3d(tmp_path / "b3d", with_train=False)
    srv = FakeOpenAI()
    try:
        url = srv.base_url.replace("http://", "http://" + userinfo) + query
        run = tmp_path / "run"
        p = cli(
            "run",
            "3dbench",
            "--data",
            data,
            "--model",
            "openai:toy",
            "--base-url",
            url,
            "--tasks",
            "counting",
            "--out",
            run,
            "--no-progress",
        )
        assert p.returncode == 0, (p.stdout, p.stderr)
    finally:
        srv.close()
    for name in ("run.json", "results.json"):
        text = (run / name).read_text()
        assert "CANARY" not in text and all(k in text for k in kept), name
    assert "CANARY" not in p.stdout + p.stderr


def test_redaction_units():
    from scenebench.redact import is_secret_env, known_secrets, redact_argv, redact_text, redact_url

    assert redact_url("https://h/v1?api-key=XYZ&x=1&sig=abc") == "https://h/v1?api-key=***&x=1&sig=***"
    assert redact_url("https://ghp_TOKEN@h/v1") == "https://***@h/v1"
    assert redact_url("https://h/v1?x=1") == "https://h/v1?x=1"
    assert is_secret_env("OPENAI_API_KEY", "sk-1234567890")
    assert not is_secret_env("HF_TOKEN_PATH", "/home/me/.token") and not is_secret_env("TOKENIZERS_PARALLELISM", "false")
    assert not is_secret_env("MY_KEY", "/etc/ssl/private/key.pem")
    env = {"OPENAI_API_KEY": "sk-abcdefghijklmnop", "HOME": "/root"}
    secrets = known_secrets(env, ["--model-arg", "api_key=ma-secret-123", "--judge-base-url", "http://h/?token=tk-7777777"])
    assert set(secrets) == {"sk-abcdefghijklmnop", "ma-secret-123", "tk-7777777"}
    msg = "key sk-abcdefghijklmnop, or sk-abcdef...mnop, at http://u:pw-9@h/v1?key=zz"
    assert redact_text(msg, secrets) == "key ***, or ***...mnop, at http://u:***@h/v1?key=***"
    assert redact_argv(["--model-arg", "api_key=ma-secret-123", "--base-url", "http://h/?api-key=q"]) == [
        "--model-arg",
        "api_key=***",
        "--base-url",
        "http://h/?api-key=***",
    ]


# -- item 4: traceback logs never in a shared folder, never through a symlink --------------------------


def test_traceback_log_goes_to_a_private_folder_and_never_follows_links(tmp_path, monkeypatch):
    import tempfile

    from scenebench import cli as sb_cli

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    private = tmp_path / f"scenebench-logs-{os.getuid()}"

    private.symlink_to(tmp_path / "elsewhere", target_is_directory=True)  # planted by another user
    (tmp_path / "elsewhere").mkdir()
    assert sb_cli._write_traceback_log(RuntimeError("boom"), []) is None
    assert not any((tmp_path / "elsewhere").iterdir())
    private.unlink()

    private.mkdir(mode=0o755)  # exists but others can read it
    os.chmod(private, 0o755)
    assert sb_cli._write_traceback_log(RuntimeError("boom"), []) is None
    private.rmdir()

    log = sb_cli._write_traceback_log(RuntimeError("boom"), [])
    assert log is not None and log.parent == private and "RuntimeError: boom" in log.read_text()
    assert stat.S_IMODE(os.stat(private).st_mode) == 0o700 and stat.S_IMODE(os.stat(log).st_mode) == 0o600

    link = private / "planted.log"  # a link at the very name the writer picks: O_EXCL|O_NOFOLLOW, a new name
    link.symlink_to(victim)
    assert sb_cli.write_private_file(private, "planted.log", "x") == private / "planted-1.log"
    assert victim.read_text() == "precious\n"

    run = tmp_path / "run"
    (run).mkdir()
    (run / "run.json").write_text("{}")
    log = sb_cli._write_traceback_log(RuntimeError("in a run"), ["run", "x", "--out", str(run)])
    assert log is not None and log.parent == run / "logs"
