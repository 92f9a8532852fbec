"""3DBench text tasks judged by a real local LLM server (llama.cpp + SmolLM2): plumbing, not quality."""

import json

import pytest
from tests.bench3d.fixtures import make_bench, records_for

from scenebench.benchmarks.bench3d.api import score_3dbench
from scenebench.runtime.rundir import RunDir
from scenebench.runtime.scoring import load_scores


@pytest.mark.judge
def test_scene_caption_and_position_relation_with_a_real_judge(local_llm_server, tmp_path):
    from scenebench.judges.factory import build_judge

    bench = make_bench(tmp_path / "bench", ["scene_caption", "position_relation"], houses=("460",))
    with open(tmp_path / "a.jsonl", "w") as f:
        for r in records_for("scene_caption", ("460",)):
            f.write(
                json.dumps(
                    {
                        "question_id": r["question_id"],
                        "task": "SCaption",
                        "text": "A kitchen with a fridge next to a living room with a sofa.",
                    }
                )
                + "\n"
            )
        for r in records_for("position_relation", ("460",)):
            f.write(
                json.dumps({"question_id": r["question_id"], "task": "PositionRelation", "text": r["gt_choices"][r["gt_choice"]]}) + "\n"
            )
    judge = build_judge(f"openai:{local_llm_server.model}", base_url=local_llm_server.base_url, cache_path=tmp_path / "judge.sqlite")
    try:
        res = score_3dbench(bench, tmp_path / "a.jsonl", protocol="strict", judge=judge, out=tmp_path / "run", n_resamples=0)
    finally:
        judge.close()
    js = res.metrics["by_task"]["scene_caption"]["judge_score"]
    assert js is not None and 0.0 <= js <= 10.0  # an invalid reply counts 0 and is counted, never dropped
    assert res.metrics["by_task"]["position_relation"]["judge_same"] is not None
    assert res.extra["judge"]["model_id"] and res.extra["judge"]["prompt_versions"]
    scores = {s.sample_id: s for s in load_scores(RunDir(tmp_path / "run"))}
    cap = scores["scene_caption:" + records_for("scene_caption", ("460",))[0]["question_id"]]
    assert set(cap.detail["judge"]) >= {"value", "valid", "model_id", "prompt_version", "raw"}
