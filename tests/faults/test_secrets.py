"""An API key read from the environment never reaches a file: run folder, judge cache, report, logs.

The real CLI runs a judged OpenAI-compatible 3DBench run against a scripted server on 127.0.0.1
(the model *and* the judge go through it), then writes the HTML/LaTeX report. The server proves the
key was really used (it arrives in the Authorization header); afterwards every byte of every file
in the run folder, the judge cache (with its SQLite WAL), the report and the process output is
searched for the key.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cli_run import run_cli

pytest.importorskip("openai", reason="needs the judge extra (openai client)")

from fake_openai import FakeOpenAI

CANARY = "sk-scenebench-CANARY-7f3a9c1e5b2d4086"


def _cli(*args, env, cwd):
    return run_cli(args, env, cwd=cwd)


def _holders(root: Path, needle: bytes) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


@pytest.mark.slow
def test_api_key_never_written(fuzz_ctx, tmp_path):
    srv = FakeOpenAI()
    try:
        env = {**os.environ, "OPENAI_API_KEY": CANARY, "SCENEBENCH_JUDGE_CACHE": str(tmp_path / "cache" / "judge.sqlite"), "NO_COLOR": "1"}
        env.pop("OPENAI_BASE_URL", None)
        run = tmp_path / "run"
        r = _cli(
            "run",
            "3dbench",
            "--data",
            fuzz_ctx.b3d,
            "--model",
            "openai:test-model",
            "--base-url",
            srv.base_url,
            "--judge",
            "openai:judge-2024-01-01",
            "--judge-base-url",
            srv.base_url,
            "--judge-cache",
            tmp_path / "cache" / "judge.sqlite",
            "--out",
            run,
            "--no-progress",
            env=env,
            cwd=tmp_path,
        )
        assert r.returncode == 0, r.stderr[-3000:]
        rep = _cli(
            "report",
            run,
            "--html",
            tmp_path / "report" / "report.html",
            "--latex",
            tmp_path / "report" / "table.tex",
            "--markdown",
            env=env,
            cwd=tmp_path,
        )
        assert rep.returncode == 0, rep.stderr[-3000:]
    finally:
        srv.httpd.shutdown()
    # The key was used (so a leak would have had the chance to happen) ...
    auth = {h.get("Authorization") or h.get("authorization") for h in srv.headers}
    assert auth == {f"Bearer {CANARY}"}
    judged = [b for b in srv.bodies if b["model"] == "judge-2024-01-01"]
    assert judged and len(srv.bodies) > len(judged)  # both the model and the judge asked the server
    # ... and is nowhere on disk or in the output.
    assert (
        (tmp_path / "cache" / "judge.sqlite").exists()
        and (run / "results.json").exists()
        and (tmp_path / "report" / "report.html").exists()
    )
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) >= 6
    needle = CANARY.encode()
    assert _holders(tmp_path, needle) == []
    assert _holders(tmp_path, needle[8:]) == []  # not even a fragment
    for out in (r.stdout, r.stderr, rep.stdout, rep.stderr):
        assert CANARY not in out and CANARY[8:] not in out
