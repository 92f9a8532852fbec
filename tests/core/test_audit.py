"""``scenebench audit``: flags by hand-worked numbers, and an end-to-end run on a tiny generated dataset."""

from __future__ import annotations

import json

import pytest

from scenebench.commands.audit import flag_rows, format_table
from scenebench.declarations import catalog


def test_flags_probes_more_than_the_margin_above_chance():
    rows = [
        {
            "benchmark": "3dbench",
            "task": "counting",
            "group": "all",
            "metric": "accuracy",
            "chance": 20.0,
            "blind": 30.0,
            "labels": 30.5,
            "identity": None,
            "random": 15.0,
            "oracle": 100.0,
        },
        {
            "benchmark": "rio",
            "task": "relocalization",
            "group": "changed",
            "metric": "recall",
            "chance": 0.0,
            "blind": 9.0,
            "labels": None,
            "identity": 9.0,
            "random": 0.0,
            "oracle": 100.0,
        },
    ]
    flag_rows(rows, 10.0)
    # 30.0 is not > 20 + 10; 30.5 is
    assert rows[0]["flags"] == ["labels"]
    assert rows[1]["flags"] == []
    flag_rows(rows, 5.0)
    assert rows[1]["flags"] == ["blind", "identity"]
    table = format_table(rows)
    assert table.splitlines()[0].startswith("| benchmark | task | group")
    assert "| 3dbench | counting | all | accuracy | 20.0 | 30.0 | 30.5 | - | 15.0 | 100.0 | blind, labels |" in table


@pytest.mark.slow
@pytest.mark.timeout(1500)  # generate + every probe on generator 8 data: 440 s on a loaded 2-core box
def test_audit_end_to_end_on_generated_houses(tmp_path):
    from typer.testing import CliRunner

    from scenebench.cli import build_app

    app = build_app()
    from scenebench.report.runs import GT_MARK, load_run
    from scenebench.synth.pipeline import GenerateSettings, run

    data = tmp_path / "data"
    run(data, GenerateSettings(seed=3, houses=4, test_every=2, width=64, height=48, surprise_pth=False), progress=False)
    out = tmp_path / "audit"
    res = CliRunner().invoke(app, ["audit", str(data), "--out", str(out), "--quiet"])
    assert res.exit_code == 0, res.output
    doc = json.loads((out / "audit.json").read_text())
    rows = doc["rows"]
    assert {r["benchmark"] for r in rows} == {s.name for s in catalog.specs() if s.audit and s.data_folder}
    for r in rows:
        if r["oracle"] is not None:
            assert r["oracle"] == pytest.approx(100.0), r
    by = {(r["benchmark"], r["group"] if r["benchmark"] != "3dbench" else r["task"]): r for r in rows}
    assert by[("3dbench", "counting")]["chance"] == pytest.approx(100 / 6)
    assert by[("surprise3d", "all")]["blind"] == 0.0  # the blind prior points at nothing
    # identity scores little on the protocol's samples: rigid[] lists changed objects only
    assert by[("rio", "changed (rigid[], the protocol's samples)")]["identity"] <= 34.0
    assert by[("rio", "moved (not the identity)")]["oracle"] == pytest.approx(100.0)
    assert "flagged" in res.output and (out / "audit.md").read_text().startswith("| benchmark")
    # trained text probes (a template answer, a retrieved train answer, a slot and a named template) against a random train answer
    from scenebench.extras import available

    text = [t for t in doc.get("trained", []) if t["metric"] == "bleu4_py"]
    if available("sklearn"):  # the audit extra: installed in CI
        assert {t["task"] for t in text} == {"object_caption", "object_conversation", "relation", "scene_caption", "scene_qa"}
        for t in text:
            assert t["probe"] in ("template", "retrieval", "slot", "named") and t["n"] > 0 and t["low"] is None
            assert t["chance"] is not None and t["chance"] >= 0.0, t
            assert t["flag"] is (t["score"] > 1.5 * t["chance"]), t
        # the template probe says one answer, a train reference, to every test question of a task
        said: dict[str, set[str]] = {}
        for line in (out / "3dbench" / "trained" / "template" / "answers.jsonl").read_text().splitlines():
            a = json.loads(line)
            said.setdefault(a["task"], set()).add(a["text"])
        assert set(said) == {t["task"] for t in text} and all(len(v) == 1 for v in said.values()), said
        train_refs = {
            r["reference"] for f in (data / "3dbench" / "train").glob("*.json") for r in json.loads(f.read_text()) if "reference" in r
        }
        assert all(v <= train_refs for v in said.values())
        # the named template says train references too, one per set of names a question gives
        named_said = [json.loads(x)["text"] for x in (out / "3dbench" / "trained" / "named" / "answers.jsonl").read_text().splitlines()]
        assert named_said and set(named_said) <= train_refs
        # the slot template fills every slot with a name of its own question: no placeholder is said
        slot_said = [json.loads(x)["text"] for x in (out / "3dbench" / "trained" / "slot" / "answers.jsonl").read_text().splitlines()]
        assert slot_said and not any("xxslot" in a for a in slot_said)
    # runs that read ground-truth labels are marked in results.json and in report labels
    labels = json.loads((out / "surprise3d" / "labels" / "results.json").read_text())
    blind = json.loads((out / "surprise3d" / "blind" / "results.json").read_text())
    assert labels["ground_truth_perception"] is True and blind["ground_truth_perception"] is False
    assert GT_MARK in load_run(out / "surprise3d" / "labels").label and GT_MARK not in load_run(out / "surprise3d" / "blind").label
