"""Agreement between two real 3DBench runs scored by two different judges (scripted servers)."""

from __future__ import annotations

import json

import pytest

from scenebench.cli import main

pytest.importorskip("openai", reason="needs the judge extra")

from tests.bench3d.fixtures import make_bench, records_for  # noqa: E402

from scenebench.benchmarks.bench3d.api import score_3dbench  # noqa: E402
from scenebench.judges.factory import build_judge  # noqa: E402


def test_agreement_of_two_judged_3dbench_runs(tmp_path, fake_openai, capsys):
    houses = ("460", "461")
    bench = make_bench(tmp_path / "bench", ["scene_caption", "position_relation"], houses=houses)
    answers = tmp_path / "answers.jsonl"
    captions = records_for("scene_caption", houses)
    with open(answers, "w") as f:
        for i, r in enumerate(captions):
            f.write(
                json.dumps({"question_id": r["question_id"], "task": "SCaption", "text": "A kitchen with a fridge" + " and a sofa" * i})
                + "\n"
            )
        for r in records_for("position_relation", houses):
            f.write(
                json.dumps({"question_id": r["question_id"], "task": "PositionRelation", "text": r["gt_choices"][r["gt_choice"]]}) + "\n"
            )
    generous = fake_openai(
        reply=lambda body: json.dumps({"score": 9}) if "Score" in body["messages"][-1]["content"] else '{"verdict": "same"}'
    )
    runs = {}
    for name, srv in (("a", fake_openai()), ("b", generous)):
        judge = build_judge("openai:judge-" + name, base_url=srv.base_url, cache_path=tmp_path / "judge.sqlite")
        try:
            score_3dbench(bench, answers, protocol="strict", judge=judge, out=tmp_path / f"run_{name}", n_resamples=0)
        finally:
            judge.close()
        runs[name] = tmp_path / f"run_{name}"
    out = tmp_path / "agree.json"
    main(["judge", "agreement", str(runs["a"]), str(runs["b"]), "--json", str(out)])
    res = json.loads(out.read_text())
    n_judged = len(captions) + len(records_for("position_relation", houses))
    assert res["counts"]["n_common"] == n_judged and res["counts"]["invalid_a"] == res["counts"]["invalid_b"] == 0
    assert res["a"]["model_ids"] == ["openai:judge-a"] and res["b"]["model_ids"] == ["openai:judge-b"]
    assert set(res["by_task"]) == {"scene_caption", "position_relation"}
    # position relation answers equal the correct sentence: both sides settle 'same' by rule.
    assert res["by_task"]["position_relation"]["agreement_pct"] == 100.0
    cap = res["by_task"]["scene_caption"]
    assert cap["n_pairs"] == len(captions) and cap["spearman_rho"] is None  # judge b is constant
    assert "judge agreement" in capsys.readouterr().out
