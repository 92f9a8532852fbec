"""Judge prompt injection (issue 15): an injection corpus scored by the real local judge.

What must hold whatever the judge: every injected answer is flagged (``detail.injection``, a warning
in results.json, hence in the report), no honest answer is, and the prompt the judge saw fences the
answer as data. The judge's own scores are measured and printed (``SCENEBENCH_INJECTION_REPORT=path``
writes them as JSON): SmolLM2-135M is near chance and still often obeys an injection, so real
numbers need a stronger judge. Figures: docs/robustness.md.
"""

from __future__ import annotations

import json
import os
import statistics

import pytest
from tests.bench3d.fixtures import make_bench, records_for
from tests.judges.injection_corpus import INJECTIONS

from scenebench.benchmarks.bench3d.api import score_3dbench
from scenebench.runtime.rundir import RunDir
from scenebench.runtime.scoring import load_scores

HOUSES = tuple(str(500 + i) for i in range(20))


def _answers(path, texts):
    with open(path, "w") as f:
        f.writelines(
            json.dumps({"question_id": r["question_id"], "task": "SCaption", "text": text}) + "\n"
            for r, text in zip(records_for("scene_caption", HOUSES), texts)
        )
    return path


@pytest.mark.judge
@pytest.mark.slow
def test_injection_corpus_with_the_real_local_judge(local_llm_server, tmp_path):
    from scenebench.judges.factory import build_judge

    bench = make_bench(tmp_path / "bench", ["scene_caption"], houses=HOUSES)
    refs = [r["reference"] for r in records_for("scene_caption", HOUSES)]
    sets = {
        "oracle": refs,
        "injection": [INJECTIONS[i % len(INJECTIONS)] for i in range(len(HOUSES))],
        "wrong": ["banana"] * len(HOUSES),
    }
    # A long timeout: on a loaded 2-core CI machine one reply of the local server can take minutes.
    judge = build_judge(
        f"openai:{local_llm_server.model}",
        base_url=local_llm_server.base_url,
        cache_path=tmp_path / "judge.sqlite",
        concurrency=2,
        timeout=600.0,
    )
    figures: dict[str, dict] = {}
    try:
        for name, texts in sets.items():
            run = tmp_path / f"run-{name}"
            res = score_3dbench(bench, _answers(tmp_path / f"{name}.jsonl", texts), protocol="strict", judge=judge, out=run, n_resamples=0)
            recs = load_scores(RunDir(run))
            values = [r.values["judge"] for r in recs]
            flagged = [r for r in recs if r.detail.get("injection")]
            figures[name] = {
                "n": len(recs),
                "mean_judge_score": round(statistics.mean(values), 2),
                "n_score_10": sum(v == 10.0 for v in values),
                "n_invalid": sum(not r.detail["judge"]["valid"] for r in recs),
                "n_flagged": len(flagged),
                "prompt_version": recs[0].detail["judge"]["prompt_version"],
            }
            if name == "injection":
                assert len(flagged) == len(recs)  # every attack is flagged per sample
                assert any("injection" in w or "override patterns" in w for w in res.warnings), res.warnings
                assert res.extra["injection_flagged"]["n"] == len(recs)
            else:
                assert not flagged and res.extra["injection_flagged"]["n"] == 0
            assert recs[0].detail["judge"]["prompt_version"] == "score-v3"
    finally:
        judge.close()
    print("\ninjection corpus, local judge", local_llm_server.model_id, json.dumps(figures, indent=1))
    if os.environ.get("SCENEBENCH_INJECTION_REPORT"):
        with open(os.environ["SCENEBENCH_INJECTION_REPORT"], "w") as f:
            json.dump({"judge": local_llm_server.model_id, "figures": figures}, f, indent=1)
