"""A judge server that dies or answers garbage mid-run, through the real CLI.

The judges engineer's tests (tests/judges/test_client.py: test_transient_faults_are_retried,
test_backoff_grows_exponentially, test_server_stays_down_stops_and_keeps_everything_judged,
test_server_dies_mid_run_then_resume_asks_nothing_already_judged,
test_invalid_reply_is_counted_cached_and_never_guessed) cover the client. What they leave out is the
whole command: ``scenebench score 3dbench --judge openai:...`` must retry with backoff, then stop with
one clear line (exit code 2, no traceback) that says how to resume, keep every verdict judged before
the failure, and on rerun against a healthy server ask only what is left and give the results of an
uninterrupted run.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from cli_run import run_cli

pytest.importorskip("openai", reason="needs the judge extra")
from fake_openai import FakeOpenAI

pytestmark = pytest.mark.slow
GOOD = 6


_cli = run_cli


@pytest.fixture(scope="module")
def judged_bench(fuzz_ctx, tmp_path_factory):
    from scenebench.benchmarks.bench3d.loader import load_bench
    from scenebench.benchmarks.bench3d.predictions import expected_ids

    root = tmp_path_factory.mktemp("judged")
    bench = root / "b3d"
    shutil.copytree(fuzz_ctx.b3d, bench)
    for stem in ("SCaption", "SVQA", "DescriptionObj"):
        f = bench / f"{stem}.json"
        recs = json.loads(f.read_text())
        f.write_text(
            json.dumps([dict(r, question_id=f"{r.get('question_id', f'row{j}')}-{k}") for k in range(3) for j, r in enumerate(recs)])
        )
    ids = expected_ids(load_bench(bench), False)
    answers = root / "answers.jsonl"
    answers.write_text(
        "".join(
            json.dumps({"question_id": q.split(":", 1)[1], "task": t, "text": f"answer {i}: a sofa near the window"}) + "\n"
            for i, (q, t) in enumerate(ids.items())
        )
    )
    return bench, answers


def _args(bench, answers, srv, out, cache):
    return [
        "score",
        "3dbench",
        "--data",
        bench,
        "--predictions",
        answers,
        "--judge",
        "openai:judge-2024-01-01",
        "--judge-base-url",
        srv.base_url,
        "--judge-cache",
        cache,
        "--judge-concurrency",
        "1",
        "--out",
        out,
        "--bootstrap",
        "0",
    ]


def _results(run: Path):
    d = json.loads((run / "results.json").read_text().replace(str(run), "<RUN>"))
    for k in ("created", "command"):
        d.pop(k, None)
    d["extra"]["judge"].pop("usage", None)
    d["extra"]["judge"].pop("endpoint", None)  # the reference run asked another server (another port)
    return d


@pytest.mark.parametrize("fault", ["garbage", "die"])
def test_judge_fault_mid_run_stops_cleanly_and_resumes(judged_bench, tmp_path, fault):
    bench, answers = judged_bench
    ref_srv = FakeOpenAI()
    try:
        r = _cli(_args(bench, answers, ref_srv, tmp_path / "ref", tmp_path / "ref.sqlite"))
        assert r.returncode == 0, r.stderr[-2000:]
        distinct = {json.dumps(b["messages"]) for b in ref_srv.bodies}
    finally:
        ref_srv.httpd.shutdown()
    assert len(distinct) > GOOD + 2

    bad = FakeOpenAI(script=["ok"] * GOOD + [fault], default=fault if fault != "die" else "ok")
    t = time.perf_counter()
    try:
        r = _cli(_args(bench, answers, bad, tmp_path / "run", tmp_path / "cache.sqlite"))
    finally:
        took = time.perf_counter() - t
        bad.httpd.shutdown()
        bad.httpd.server_close()
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    err = r.stderr.strip()
    assert "Traceback" not in err and err.startswith("error:") and "rerun" in err, err
    assert not (tmp_path / "run" / "results.json").exists()  # no partial numbers
    if fault != "die":
        # The failing request was tried 1 + max_retries (5) times (the backoff between tries, full
        # jitter, is tested in tests/judges/test_client.py::test_backoff_grows_exponentially).
        assert len(bad.bodies) == GOOD + 6 and len({json.dumps(b["messages"]) for b in bad.bodies[GOOD:]}) == 1
        assert took < 250  # bounded retries, not a hang (a loaded 2-core machine took 133 s)
    from scenebench.judges.cache import JudgeCache

    cache = JudgeCache(tmp_path / "cache.sqlite")
    try:
        assert len(cache) == GOOD  # every verdict before the failure was kept
    finally:
        cache.close()

    # The judge cache is keyed by endpoint (issue 28.4): a resume means the same server address again.
    good = FakeOpenAI(port=bad.port)
    try:
        r = _cli(_args(bench, answers, good, tmp_path / "run", tmp_path / "cache.sqlite"))
        assert r.returncode == 0, r.stderr[-2000:]
    finally:
        good.httpd.shutdown()
    asked_again = {json.dumps(b["messages"]) for b in good.bodies} & {json.dumps(b["messages"]) for b in bad.bodies[:GOOD]}
    assert not asked_again and len(good.bodies) == len(distinct) - GOOD
    assert _results(tmp_path / "run") == _results(tmp_path / "ref")
