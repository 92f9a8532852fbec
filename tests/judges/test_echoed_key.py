"""A server that echoes the API key in its replies does not get it stored or shown (issue 41).

The model and the judge both talk to a scripted OpenAI-compatible server on 127.0.0.1 whose replies
quote the ``Authorization`` header they received. Before, the model's answer was stored as it came
(run store, results' sample browser, CSV export) and handed to the judge with the key inside it, and
the judge's raw reply went into the judge cache and each sample's detail. Now every byte of the run
folder, the judge cache, the HTML report and the export is free of the key and of any 6-character
piece of it; and the judge's prompt (what the server received) holds only the masked answer.
"""

from __future__ import annotations

import json

import pytest
from tests.bench3d.fixtures import make_bench

pytest.importorskip("openai", reason="needs the judge extra (openai client)")

from tests.judges.fake_openai import FakeOpenAI, fenced_answer

import scenebench
from scenebench.judges.factory import build_judge
from scenebench.report.html import write_html_report
from scenebench.report.runs import load_runs
from scenebench.samples import export_samples

CANARY = "sk-echo-CANARY-5d1e9b7a3c2f4e60"


def _echo(body):
    """The server's reply: the key it was sent, quoted back (a debug field, an error text)."""
    if body["model"] == "judge-echo":
        return f"Score: 7 (request signed with {CANARY})"
    return f"A kitchen with a fridge. [debug: Authorization: Bearer {CANARY}; key tail {CANARY[-10:]}]"


def _holders(root, needle: bytes):
    return [str(p) for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


def test_an_echoed_api_key_is_masked_in_every_stored_text(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    bench = make_bench(tmp_path / "bench", ["scene_caption"])
    srv = FakeOpenAI(reply=_echo)
    judge = build_judge("openai:judge-echo", base_url=srv.base_url, cache_path=tmp_path / "cache" / "judge.sqlite")
    try:
        res = scenebench.run(
            "3dbench",
            "openai:test-model",
            data=bench,
            tasks=["scene_caption"],
            out=tmp_path / "run",
            model_options={"base_url": srv.base_url},
            score_options={"judge": judge},
        )
    finally:
        judge.close()
        srv.httpd.shutdown()
    assert {h.get("Authorization") or h.get("authorization") for h in srv.headers} == {f"Bearer {CANARY}"}  # the key was really used
    assert res.metrics["by_task"]["scene_caption"]["judge_score"] == pytest.approx(7.0)  # the echoing reply still parses
    judged = [fenced_answer(b["messages"][-1]["content"]) for b in srv.bodies if b["model"] == "judge-echo"]
    assert judged and all("A kitchen with a fridge" in a and "***" in a and CANARY[8:14] not in a for a in judged)
    write_html_report(load_runs([tmp_path / "run"]), tmp_path / "report.html")
    export_samples(tmp_path / "run", tmp_path / "samples.csv", "csv")
    samples = (tmp_path / "samples.csv").read_text()
    assert "***" in samples  # the answer and the judge's reply are there, masked
    needle = CANARY.encode()
    for i in range(0, len(needle) - 6 + 1):  # not the key, nor any 6-byte piece of it
        assert _holders(tmp_path / "run", needle[i : i + 6]) == []
        assert _holders(tmp_path / "cache", needle[i : i + 6]) == []
    assert CANARY[-10:] not in (tmp_path / "report.html").read_text() and CANARY[-10:] not in samples
    rows = [json.loads(x) for x in open(export_samples(tmp_path / "run", tmp_path / "s.jsonl", "jsonl"))]
    assert all("***" in json.loads(r["detail"])["judge"]["raw"] for r in rows)
