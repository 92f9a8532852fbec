"""The OpenAI-compatible judge against a real local HTTP server with scripted faults."""

from __future__ import annotations

import time

import pytest

from scenebench.errors import ScenebenchError
from scenebench.judges.api import Judge, JudgeRequest, JudgeUnavailable
from scenebench.judges.client import OpenAICompatibleJudge
from scenebench.judges.factory import build_judge

pytest.importorskip("openai", reason="needs the judge extra")


def score(answer: str, reference=None) -> JudgeRequest:
    return JudgeRequest(
        "score",
        {
            "task": "VQA",
            "question": "What is in the room?",
            "answer": answer,
            "reference": reference,
            "rooms": None,
            "objects": None,
            "level": "object",
        },
    )


ANSWERS = [f"answer number {i} " + "x" * i for i in range(12)]


def expected(answer: str) -> float:
    return float(len(answer) % 11)  # what the fake server replies


def judge(server, cache_path, **kw) -> OpenAICompatibleJudge:
    kw.setdefault("backoff_base", 0.01)
    kw.setdefault("max_retries", 3)
    kw.setdefault("concurrency", 4)
    kw.setdefault("timeout", 5.0)
    return OpenAICompatibleJudge("fake-judge-2024", base_url=server.base_url, api_key="sk-test-SECRET", cache_path=cache_path, **kw)


def restarted(fake_openai, srv, **kw):
    """A healthy server on the port of ``srv`` (stopped first): the same endpoint, so the same cache keys."""
    srv.close()
    deadline = time.monotonic() + 5
    while True:
        try:
            return fake_openai(port=srv.port, **kw)
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def test_protocol_and_order_preserved(fake_openai, cache_path):
    srv = fake_openai()
    with judge(srv, cache_path) as j:
        assert isinstance(j, Judge)
        reqs = [score(a) for a in ANSWERS]
        out = j.judge_many(reqs)
        assert [v.value for v in out] == [expected(a) for a in ANSWERS]
        assert all(v.valid and not v.cached and not v.settled_by_rule for v in out)
        u = j.usage()
        assert u["calls"] == len(ANSWERS) == srv.requests
        assert u["prompt_tokens"] == 11 * len(ANSWERS) and u["completion_tokens"] == 3 * len(ANSWERS)
    body = srv.bodies[0]
    assert body["temperature"] == 0 and body["seed"] == 0
    assert body["response_format"]["type"] == "json_schema"


def test_rescore_makes_zero_calls_and_cache_is_shared_across_judges(fake_openai, cache_path):
    srv = fake_openai()
    reqs = [score(a) for a in ANSWERS] + [score("same text", "Same text.")]
    with judge(srv, cache_path) as j:
        first = j.judge_many(reqs)
    n = srv.requests
    assert n == len(ANSWERS)  # the rule settled the last one
    with judge(srv, cache_path) as j2:  # a second run, a new process would look the same
        again = j2.judge_many(reqs)
        assert srv.requests == n, "a re-score must not call the judge"
        assert [v.value for v in again] == [v.value for v in first]
        assert all(v.cached for v in again[:-1]) and again[-1].settled_by_rule
        assert j2.usage() | {} == {**j2.usage(), "calls": 0, "cache_hits": len(ANSWERS), "rule_settled": 1}


def test_identical_requests_share_one_call(fake_openai, cache_path):
    srv = fake_openai()
    with judge(srv, cache_path) as j:
        out = j.judge_many([score("dup answer")] * 5)
    assert srv.requests == 1 and len({v.value for v in out}) == 1 and len(out) == 5


def test_other_model_or_prompt_version_is_not_reused(fake_openai, cache_path):
    srv = fake_openai()
    with judge(srv, cache_path) as j:
        j.judge_many([score("a1")])
    with OpenAICompatibleJudge("other-model", base_url=srv.base_url, api_key="x", cache_path=cache_path) as j2:
        j2.judge_many([score("a1")])
    assert srv.requests == 2
    with judge(srv, cache_path) as j3:
        j3.prompt_versions = {**j3.prompt_versions, "score": "score-v999"}
        j3.judge_many([score("a1")])
    assert srv.requests == 3


@pytest.mark.parametrize("fault", ["500", "502", "503", "429", "garbage", "nochoices", "reset"])
def test_transient_faults_are_retried(fake_openai, cache_path, fault):
    srv = fake_openai(script=[fault, fault])
    with judge(srv, cache_path, concurrency=1) as j:
        out = j.judge_many([score("hello")])
        assert out[0].value == expected("hello") and out[0].valid
        u = j.usage()
    assert srv.requests == 3 and u["retries"] == 2 and u["failed_calls"] == 2 and u["calls"] == 1


def test_timeout_is_retried(fake_openai, cache_path):
    srv = fake_openai(script=["hang"], hang_seconds=1.5)
    with judge(srv, cache_path, concurrency=1, timeout=0.5) as j:
        out = j.judge_many([score("slow")])
        assert out[0].valid and j.usage()["retries"] == 1


def test_backoff_grows_exponentially(fake_openai, cache_path):
    srv = fake_openai(default="503")
    with judge(srv, cache_path, concurrency=1, max_retries=4, backoff_base=0.2) as j:
        j.backoff_base = 0.2
        import scenebench.judges.client as client

        sleeps: list[float] = []
        real = client.time.sleep
        client.time.sleep = lambda s: sleeps.append(s)  # record, don't wait
        try:
            with pytest.raises(JudgeUnavailable):
                j.judge_many([score("x")])
        finally:
            client.time.sleep = real
    assert len(sleeps) == 4 and srv.requests == 5
    caps = [0.2 * 2**i for i in range(4)]
    assert all(0 <= s <= c for s, c in zip(sleeps, caps))


def test_server_stays_down_stops_and_keeps_everything_judged(fake_openai, cache_path):
    # Four good replies, then the server answers 503 forever.
    srv = fake_openai(script=["ok"] * 4, default="503")
    reqs = [score(a) for a in ANSWERS]
    with judge(srv, cache_path, concurrency=1, max_retries=2) as j:
        with pytest.raises(JudgeUnavailable) as ei:
            j.judge_many(reqs)
    assert ei.value.done == 4 and ei.value.pending == len(ANSWERS) - 4
    assert "rerun to resume" in str(ei.value)
    # Resume against the healthy server restarted at its address: only the unjudged items are asked.
    srv2 = restarted(fake_openai, srv)
    with judge(srv2, cache_path) as j:
        out = j.judge_many(reqs)
        assert srv2.requests == len(ANSWERS) - 4
        assert sum(v.cached for v in out) == 4
        assert [v.value for v in out] == [expected(a) for a in ANSWERS]


def test_server_dies_mid_run_then_resume_asks_nothing_already_judged(fake_openai, cache_path):
    srv = fake_openai(script=["ok"] * 5 + ["die"])
    reqs = [score(a) for a in ANSWERS]
    with judge(srv, cache_path, concurrency=2, max_retries=2) as j:
        with pytest.raises(JudgeUnavailable) as ei:
            j.judge_many(reqs)
    assert ei.value.done == 5
    srv2 = restarted(fake_openai, srv)
    with judge(srv2, cache_path) as j:
        out = j.judge_many(reqs)
    assert srv2.requests == len(ANSWERS) - 5
    asked = {b["messages"][-1]["content"] for b in srv2.bodies}
    first = {b["messages"][-1]["content"] for b in srv.bodies[:5]}
    assert not asked & first
    assert [v.value for v in out] == [expected(a) for a in ANSWERS]


def test_auth_error_stops_at_once(fake_openai, cache_path):
    srv = fake_openai(default="401")
    with judge(srv, cache_path, concurrency=1) as j:
        with pytest.raises(JudgeUnavailable, match="refused the judge configuration"):
            j.judge_many([score("a"), score("b")])
    assert srv.requests == 1


def test_request_refused_is_invalid_not_cached(fake_openai, cache_path):
    srv = fake_openai(script=["400", "400"])  # structured and plain attempt both refused
    with judge(srv, cache_path, concurrency=1) as j:
        out = j.judge_many([score("too long")])
        assert not out[0].valid and out[0].value is None and "refused" in out[0].error
        assert j.usage()["invalid"] == 1
        again = j.judge_many([score("too long")])
        assert again[0].valid and srv.requests == 3  # not cached: asked again, judged this time


def test_server_without_structured_output_falls_back_to_plain_text(fake_openai, cache_path):
    srv = fake_openai(default="reject_rf")
    with judge(srv, cache_path, concurrency=1) as j:
        out = j.judge_many([score("abc"), score("abcd")])
    assert [v.value for v in out] == [3.0, 4.0]
    assert [v.raw for v in out] == ["Score: 3", "Score: 4"]
    assert srv.requests == 3  # one refused structured request, then plain text only
    assert "response_format" not in srv.bodies[-1]


def test_invalid_reply_is_counted_cached_and_never_guessed(fake_openai, cache_path):
    srv = fake_openai(reply=lambda body: "I cannot grade this.")
    with judge(srv, cache_path) as j:
        v = j.judge_many([score("unjudgeable")])[0]
        assert not v.valid and v.value is None and v.error == "no number in the reply" and v.raw == "I cannot grade this."
        assert j.usage()["invalid"] == 1
        v2 = j.judge_many([score("unjudgeable")])[0]  # the reply is what it is at temperature 0: cached
        assert v2.cached and not v2.valid and srv.requests == 1 and j.usage()["invalid"] == 2


def test_option_and_same_requests(fake_openai, cache_path):
    srv = fake_openai()
    reqs = [
        JudgeRequest("option", {"question": "q", "answer": "something", "options": ["x", "y", "z"]}),
        JudgeRequest("same", {"question": "q", "answer": "the same side", "reference": "left"}),
        JudgeRequest("same", {"question": "q", "answer": "opposite", "reference": "left"}),
    ]
    with judge(srv, cache_path) as j:
        out = j.judge_many(reqs)
    assert [v.value for v in out] == [0, 1, 0] and all(v.valid for v in out)
    schemas = [b["response_format"]["json_schema"]["schema"]["properties"] for b in srv.bodies]
    assert {"option": {"type": "string", "enum": ["A", "B", "C", "none"]}} in schemas


def test_api_key_from_env_only_and_never_stored(fake_openai, cache_path, monkeypatch):
    srv = fake_openai()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret-123")
    monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
    j = build_judge("openai:fake-judge-2024", cache_path=cache_path)
    try:
        assert j.model_id == "openai:fake-judge-2024"
        j.judge_many([score("k1"), score("k2")])
    finally:
        j.close()
    assert {k.lower(): v for k, v in srv.headers[0].items()}["authorization"] == "Bearer sk-very-secret-123"
    for f in cache_path.parent.iterdir():
        assert b"sk-very-secret-123" not in f.read_bytes(), f


def test_make_judge_specs(cache_path):
    assert build_judge(None) is None and build_judge("none") is None and build_judge("None") is None
    with pytest.raises(ScenebenchError, match="unknown --judge"):
        build_judge("gpt4", cache_path=cache_path)
    with pytest.raises(ScenebenchError, match="needs a model id"):
        build_judge("openai:", cache_path=cache_path)


def test_concurrency_is_bounded(fake_openai, cache_path):
    srv = fake_openai(default="hang", hang_seconds=0.3)
    with judge(srv, cache_path, concurrency=4) as j:
        j.judge_many([score(f"c{i}") for i in range(10)])
    assert srv.requests == 10 and srv.max_active == 4
    srv1 = fake_openai(default="hang", hang_seconds=0.05)
    with judge(srv1, cache_path, concurrency=1) as j:
        j.judge_many([score(f"d{i}") for i in range(4)])
    assert srv1.max_active == 1


def test_killed_judging_process_resumes_without_reasking(fake_openai, cache_path):
    """SIGKILL the judging process mid-run: replies already received are in the cache; a rerun asks only the rest."""
    import signal
    import subprocess
    import sys
    import textwrap

    srv = fake_openai(script=["ok"] * 3, default="hang", hang_seconds=5)
    code = textwrap.dedent(f"""
        from scenebench.judges.api import JudgeRequest
        from scenebench.judges.client import OpenAICompatibleJudge
        answers = {ANSWERS!r}
        reqs = [JudgeRequest("score", {{"task": "VQA", "question": "What is in the room?", "answer": a, "reference": None,
                                       "rooms": None, "objects": None, "level": "object"}}) for a in answers]
        j = OpenAICompatibleJudge("fake-judge-2024", base_url={srv.base_url!r}, api_key="x", cache_path={str(cache_path)!r},
                                  concurrency=1, timeout=60)
        j.judge_many(reqs)
    """)
    child = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.monotonic() + 60
        while srv.requests < 4 and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.02)
        assert srv.requests == 4, "the child should be waiting on its 4th request"
        child.send_signal(signal.SIGKILL)
        child.wait(10)
    finally:
        if child.poll() is None:
            child.kill()
    srv2 = restarted(fake_openai, srv)
    with judge(srv2, cache_path) as j:
        out = j.judge_many([score(a) for a in ANSWERS])
        assert j.usage()["cache_hits"] == 3
    assert srv2.requests == len(ANSWERS) - 3
    assert [v.value for v in out] == [expected(a) for a in ANSWERS]


def test_cached_replies_are_reparsed_with_the_current_rules(fake_openai, cache_path):
    from scenebench.judges.api import JudgeVerdict

    srv = fake_openai()
    with judge(srv, cache_path) as j:
        req = score("old reply")
        # A verdict parsed by an older (wrong) rule is stored with its raw reply.
        j.cache.put(
            j.key(req),
            model_id=j.model_id,
            prompt_version="score-v1",
            kind="score",
            verdict=JudgeVerdict(None, False, '{"score": 6}', False, False, "old parser failed"),
        )
        v = j.judge_many([req])[0]
    assert v.cached and v.valid and v.value == 6.0 and srv.requests == 0
