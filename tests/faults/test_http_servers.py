"""Judge and model servers that trickle, flood, or serve another model under the same name (issue 28
items 4-6), and model-server faults through the CLI (issue 29 item 9).

Every server here is real: :class:`fake_openai.FakeOpenAI` on 127.0.0.1 in a thread (``trickle`` sends
one byte every ``trickle_seconds``, ``pad``/``pad_close`` append megabytes of spaces to a valid reply,
with and without a ``Content-Length``); the ``openai`` client and our transport run unmodified.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time

import pytest
from cli_run import run_cli

pytest.importorskip("openai", reason="needs the judge extra")
from fake_openai import FakeOpenAI

from scenebench.judges.api import JudgeRequest, JudgeUnavailable
from scenebench.judges.client import OpenAICompatibleJudge
from scenebench.models.builtin.openai_chat import OpenAIChatModel
from scenebench.models.builtin.openai_server import ModelUnavailable

MiB = 1 << 20


@pytest.fixture
def servers():
    made: list[FakeOpenAI] = []

    def make(*a, **kw) -> FakeOpenAI:
        s = FakeOpenAI(*a, **kw)
        made.append(s)
        return s

    yield make
    for s in made:
        s.close()


def score(answer: str) -> JudgeRequest:
    payload = {"task": "VQA", "question": "What is on the table?", "answer": answer, "reference": None}
    return JudgeRequest("score", {**payload, "rooms": None, "objects": None, "level": "object"})


def judge(srv: FakeOpenAI, cache, **kw) -> OpenAICompatibleJudge:
    kw.setdefault("timeout", 5.0)
    kw.setdefault("max_retries", 0)
    kw.setdefault("backoff_base", 0.01)
    return OpenAICompatibleJudge("judge-2024-01-01", base_url=srv.base_url, api_key="x", cache_path=cache, concurrency=1, **kw)


# --- 28.6: a total deadline per request --------------------------------------------------------


@pytest.mark.parametrize("action", ["trickle", "trickle_head"])
def test_a_trickling_judge_server_holds_a_request_no_longer_than_its_deadline(servers, tmp_path, action):
    # One byte every 0.3 s: each read comes well within the 1 s timeout, so per-read timeouts never
    # fire; the ~300-byte reply would take about 90 s.
    srv = servers(default=action, trickle_seconds=0.3)
    t = time.monotonic()
    with judge(srv, tmp_path / "c.sqlite", timeout=1.0, max_retries=1) as j, pytest.raises(JudgeUnavailable) as ei:
        j.judge_many([score("a lamp")])
    took = time.monotonic() - t
    assert srv.requests == 2 and took < 4.0, took  # two attempts of at most 1 s each, plus backoff
    assert "APITimeoutError after 2 attempts" in str(ei.value) and "rerun to resume" in str(ei.value)


def test_a_trickling_model_server_holds_a_request_no_longer_than_its_deadline(servers):
    srv = servers(default="trickle", trickle_seconds=0.3)
    m = OpenAIChatModel("m", base_url=srv.base_url, timeout=1.0, max_retries=0)
    t = time.monotonic()
    with pytest.raises(ModelUnavailable, match=r"no complete reply within the 1 s deadline of a request, after 1 attempt; rerun"):
        m.ask("What is on the table?")
    assert time.monotonic() - t < 2.5


def test_a_slow_but_steady_reply_within_the_deadline_is_read(servers, tmp_path):
    srv = servers(default="trickle", trickle_seconds=0.001)
    with judge(srv, tmp_path / "c.sqlite", timeout=10.0) as j:
        (v,) = j.judge_many([score("a lamp")])
    assert v.valid and v.value == len("a lamp") % 11


# --- 28.5: replies are capped -------------------------------------------------------------------


@pytest.mark.parametrize("action", ["pad", "pad_close", "bigdeclared"])
def test_a_flooding_judge_reply_is_refused_and_nothing_is_stored(servers, tmp_path, action):
    # `{"score": N}` followed by 3 MiB of spaces: with a Content-Length, without one (read to the
    # connection's end), and a Content-Length alone (refused before any body byte is read).
    srv = servers(default=action, pad_bytes=3 * MiB, hang_seconds=5)
    cache = tmp_path / "c.sqlite"
    t = time.monotonic()
    with judge(srv, cache, max_retries=3) as j:
        out = j.judge_many([score(f"answer {i}") for i in range(3)])
        usage = j.usage()
    assert time.monotonic() - t < 4
    assert srv.requests == 3  # refused at once, never retried: at temperature 0 the flood would come again
    for v in out:
        assert not v.valid and v.value is None and v.raw is None
        assert v.error.startswith("judge reply refused: reply of ") and "1,048,576 bytes" in v.error, v.error
    assert usage["failed_calls"] == 3 and usage["invalid"] == 3
    with sqlite3.connect(cache) as db:
        assert db.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0] == 0
    assert sum(p.stat().st_size for p in tmp_path.glob("c.sqlite*")) < 200_000


def test_a_padded_reply_under_the_cap_is_read_and_the_cap_is_configurable(servers, tmp_path, monkeypatch):
    srv = servers(default="pad", pad_bytes=200_000)
    with judge(srv, tmp_path / "c.sqlite") as j:
        (v,) = j.judge_many([score("a lamp")])
    assert v.valid and v.value == len("a lamp") % 11
    monkeypatch.setenv("SCENEBENCH_MAX_REPLY_BYTES", "100000")
    with judge(srv, tmp_path / "d.sqlite") as j:
        (v,) = j.judge_many([score("a lamp")])
    assert not v.valid and "100,000 bytes" in v.error
    monkeypatch.setenv("SCENEBENCH_MAX_REPLY_BYTES", "lots")
    from scenebench.errors import ScenebenchError

    with pytest.raises(ScenebenchError, match="SCENEBENCH_MAX_REPLY_BYTES"):
        judge(srv, tmp_path / "e.sqlite")


def test_a_flooding_model_reply_is_refused_with_the_way_to_raise_the_cap(servers):
    srv = servers(default="pad_close", pad_bytes=3 * MiB)
    m = OpenAIChatModel("m", base_url=srv.base_url, timeout=5.0, max_retries=0)
    with pytest.raises(ModelUnavailable, match=r"more than 1,048,576 bytes refused .*--model-arg max_reply_bytes=N"):
        m.ask("What is on the table?")
    big = OpenAIChatModel("m", base_url=srv.base_url, timeout=5.0, max_retries=0, max_reply_bytes=4 * MiB)
    assert big.ask("Score (0-10):") == "A"  # stripped: the padding is whitespace


# --- 28.4: the cache key holds the endpoint -----------------------------------------------------


def test_verdicts_of_one_server_are_not_reused_for_another_serving_the_same_model_name(servers, tmp_path):
    cache = tmp_path / "c.sqlite"
    reqs = [score(f"answer {'x' * i}") for i in range(4)]
    first = servers()
    other = servers(reply=lambda body: json.dumps({"score": 10}))  # different weights, same model name
    with judge(first, cache) as j:
        a = [v.value for v in j.judge_many(reqs)]
    with judge(other, cache) as j:
        b = j.judge_many(reqs)
        assert j.usage()["cache_hits"] == 0
    assert other.requests == 4 and [v.value for v in b] == [10] * 4 and a != [10] * 4
    # The first server again (restarted at its address): every verdict comes from the cache.
    first.close()
    again = None
    for _ in range(100):
        try:
            again = servers(port=first.port)
            break
        except OSError:
            time.sleep(0.05)
    assert again is not None
    with judge(again, cache) as j:
        c = j.judge_many(reqs)
        assert j.usage()["cache_hits"] == 4
    assert again.requests == 0 and [v.value for v in c] == a


def test_entries_keyed_the_old_way_are_not_reused(servers, tmp_path):
    """A cache written before the endpoint was in the key: its entries miss (key version 2)."""
    cache = tmp_path / "c.sqlite"
    srv = servers()
    req = score("a lamp")
    with judge(srv, cache) as j:
        settings, version = j.settings("score"), j.prompt_versions["score"]
        # The version-1 key: the same canonical JSON without "v" and "endpoint".
        blob = json.dumps(
            {"model": j.model_id, "prompt": version, "kind": "score", "payload": req.payload, "settings": settings},
            sort_keys=True,
            ensure_ascii=False,
            separators=(",", ":"),
            default=str,
        )
        from scenebench.judges.api import JudgeVerdict

        old = hashlib.sha256(blob.encode()).hexdigest()
        j.cache.put(
            old, model_id=j.model_id, prompt_version=version, kind="score", verdict=JudgeVerdict(9, True, '{"score": 9}', False, False)
        )
        assert j.key(req) != old
        (v,) = j.judge_many([req])
    assert srv.requests == 1 and v.value == len("a lamp") % 11 and not v.cached


def test_endpoint_id_ignores_what_does_not_name_the_server():
    from scenebench.judges.cache import endpoint_id

    assert endpoint_id("http://User:pw@LocalHost:80/v1/") == endpoint_id("http://localhost/v1") == "http://localhost/v1"
    assert endpoint_id("http://127.0.0.1:8080/v1") != endpoint_id("http://127.0.0.1:8081/v1")
    assert endpoint_id(None) == "https://api.openai.com/v1"


# --- 29.9: model-server faults through the CLI --------------------------------------------------


_cli = run_cli


def _run_args(fuzz_ctx, srv, out, *extra, tasks="counting"):
    return [
        "run",
        "3dbench",
        "--data",
        fuzz_ctx.b3d,
        "--tasks",
        tasks,
        "--model",
        "openai:m-2024",
        "--base-url",
        srv.base_url,
        "--out",
        out,
        "--model-arg",
        "concurrency=1",
        "--model-arg",
        "max_retries=0",
        "--model-arg",
        "timeout=1",
        "--no-progress",
        *extra,
    ]


@pytest.mark.slow
@pytest.mark.parametrize(
    "fault, says",
    [
        ("500", "HTTP 500 (scripted 500), after 1 attempt"),
        ("garbage", "the reply is not a chat completion"),
        ("401", "HTTP 401: the server refused the key"),
        ("die", "cannot connect or the connection broke"),
        ("trickle", "no complete reply within the 1 s deadline"),
    ],
)
def test_model_server_faults_are_one_line_exit_2_with_how_to_resume(fuzz_ctx, servers, tmp_path, fault, says):
    srv = servers(default=fault, trickle_seconds=0.3)
    r = _cli(_run_args(fuzz_ctx, srv, tmp_path / "run"))
    err = r.stderr.strip()
    assert r.returncode == 2, (r.returncode, err[-2000:])
    assert "Traceback" not in err and "unexpected" not in err and "bug in scenebench" not in err, err
    assert err.startswith(f"error: model openai:m-2024 at {srv.base_url} ") and says in err, err
    assert err.endswith("rerun the same command to resume (scenes predicted so far are saved)"), err


@pytest.mark.slow
def test_model_server_fault_mid_run_keeps_the_scenes_predicted_and_the_rerun_resumes(fuzz_ctx, servers, tmp_path):
    tasks = "counting,classification,object_caption,object_conversation"  # house and object clouds: several scenes
    ref = servers()
    r = _cli(_run_args(fuzz_ctx, ref, tmp_path / "ref", tasks=tasks))
    assert r.returncode == 0, r.stderr[-2000:]
    total = ref.requests

    srv = servers(script=["ok"] * (total // 2), default="500")
    run = tmp_path / "run"
    r = _cli(_run_args(fuzz_ctx, srv, run, tasks=tasks))
    assert r.returncode == 2 and "HTTP 500" in r.stderr and "rerun the same command to resume" in r.stderr, r.stderr[-2000:]
    assert not (run / "results.json").exists()
    from scenebench.runtime.rundir import RunDir
    from scenebench.runtime.runner import PREDICTION_KIND

    with RunDir(run).store() as store:
        saved = sum(1 for _ in store.iter(PREDICTION_KIND))
    assert 0 < saved <= total // 2, (saved, total)
    srv.default = "ok"
    before = srv.requests
    r = _cli(_run_args(fuzz_ctx, srv, run, tasks=tasks))
    assert r.returncode == 0, r.stderr[-2000:]
    assert srv.requests - before == total - saved  # the saved scenes are not asked again

    def normal(p):
        d = json.loads(p.read_text().replace(str(p.parent), "<RUN>"))
        for k in ("created", "command"):
            d.pop(k, None)
        return d

    assert normal(run / "results.json")["metrics"] == normal(tmp_path / "ref" / "results.json")["metrics"]
