"""3DBench runs scored by the real scorer, then reported: texts read back, boxes and paths drawn."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from scenebench.benchmarks.bench3d.api import score_3dbench
from scenebench.benchmarks.bench3d.writer import write_point_cloud, write_task
from scenebench.report.compare import compare_runs
from scenebench.report.html import build_payload
from scenebench.report.runs import load_run, load_runs
from scenebench.report.tables import tables_for, to_markdown

from .conftest import EVIL


def make_bench(root: Path) -> Path:
    rng = np.random.default_rng(0)
    floor = np.c_[rng.uniform(-4, 4, 4000), np.full(4000, 0.0), rng.uniform(-4, 4, 4000)]
    furniture = np.c_[rng.uniform(-4, 4, 1000), rng.uniform(0, 2, 1000), rng.uniform(-4, 4, 1000)]
    cloud = np.c_[np.r_[floor, furniture], rng.uniform(0, 1, (5000, 3))]
    write_point_cloud(root, "pcl/460.npy", cloud)
    write_point_cloud(root, "pcl/460_obj0.npy", np.c_[rng.normal(0, 0.2, (300, 3)), rng.uniform(0, 1, (300, 3))])
    base = {"id": "460", "pcl": "pcl/460.npy"}
    write_task(
        root,
        "visual_grounding",
        [{**base, "question_id": "vg-0", "query": "Find the red vase.", "object": [1.0, 0.5, -1.0, 0.4, 1.0, 0.4], "name": "vase"}],
    )
    write_task(
        root,
        "detection",
        [
            {
                **base,
                "question_id": "det-0",
                "query": "Detect the chairs.",
                "object": [
                    {"name": "chair", "BoundingBox": [1.0, 0.5, 1.0, 0.5, 1.0, 0.5]},
                    {"name": "chair", "BoundingBox": [-1.0, 0.5, 2.0, 0.5, 1.0, 0.5]},
                ],
            }
        ],
    )
    write_task(
        root,
        "room_detection",
        [
            {
                **base,
                "question_id": "room-0",
                "query": "Detect every room.",
                "object": [{"label": "Kitchen", "bbox": [2.0, 2.0, 1.25, 4.0, 4.0, 2.5]}],
            }
        ],
    )
    write_task(
        root,
        "navigation",
        [
            {
                **base,
                "question_id": "nav-0",
                "query": "Go to the fridge.",
                "positions": [[0.0, 0.0], [1.0, 0.0], [2.0, 1.0]],
                "start": [0.0, 0.0],
                "target": "fridge",
            }
        ],
    )
    write_task(
        root,
        "classification",
        [
            {
                **base,
                "pcl": "pcl/460_obj0.npy",
                "question_id": "cls-0",
                "query": "What is this? (A) chair (B) cup",
                "gt_choices": ["chair", "cup"],
                "gt_choice": 1,
            }
        ],
    )
    return root


ANSWERS = {
    ("vg-0", "visual_grounding"): "The vase is at [1.1, 0.5, -1.0, 0.4, 1.0, 0.4].",
    ("det-0", "detection"): "chair [1.0, 0.5, 1.0, 0.5, 1.0, 0.5] chair [3.0, 0.5, 3.0, 0.5, 1.0, 0.5]",
    ("room-0", "room_detection"): "Kitchen [2.0, 2.0, 1.25, 4.0, 4.0, 2.5]",
    ("nav-0", "navigation"): "Path: [0, 0], [1, 0.5], [2, 1]",
    ("cls-0", "classification"): "The answer is (B). " + EVIL,
}


def answers_file(path: Path, answers: dict) -> Path:
    path.write_text("".join(json.dumps({"question_id": q, "task": t, "text": x}) + "\n" for (q, t), x in answers.items()))
    return path


@pytest.fixture
def scored(tmp_path):
    bench = make_bench(tmp_path / "bench")
    score_3dbench(bench, answers_file(tmp_path / "answers.jsonl", ANSWERS), out=tmp_path / "run", n_resamples=50)
    return tmp_path


def test_texts_and_geometry_come_from_the_runs_inputs(scored):
    run = load_run(scored / "run")
    data = build_payload([run])
    samples = {s["id"]: s for s in data["runs"][0]["samples"]}
    cls = samples["classification:cls-0"]["detail"]  # sample ids are <task>:<question_id>
    assert cls["question"].startswith("What is this?") and cls["answer"] == "(B) cup"
    assert cls["prediction"] == ANSWERS[("cls-0", "classification")] and cls["options"] == ["(A) chair", "(B) cup"]
    views = data["views"]["0"]
    views = {k.split(":", 1)[1]: v for k, v in views.items()}
    assert set(views) == {"vg-0", "det-0", "room-0", "nav-0", "cls-0"}
    vg = [(layer["kind"], layer["label"]) for layer in views["vg-0"]["layers"]]
    assert vg == [("box", "GT box (vase)"), ("box", "predicted box 1")]
    assert views["vg-0"]["layers"][1]["minmax"] == pytest.approx([0.9, 0.0, -1.2, 1.3, 1.0, -0.8])
    det = [layer["label"] for layer in views["det-0"]["layers"]]
    assert det == ["GT chair", "GT chair", "predicted box 1", "predicted box 2"]
    room = views["room-0"]["layers"][0]  # (x, z, y, lx, lz, h) -> y-up min-max
    assert room["minmax"] == pytest.approx([0.0, 0.0, 0.0, 4.0, 2.5, 4.0])
    nav = {layer["label"]: layer["points"] for layer in views["nav-0"]["layers"]}
    assert nav["GT path"] == [[0.0, 0.05, 0.0], [1.0, 0.05, 0.0], [2.0, 0.05, 1.0]]
    assert nav["predicted path"][1] == [1.0, 0.05, 0.5]
    scene = data["scenes"][views["nav-0"]["scene"]]
    assert scene["up"] == "y" and scene["cloud"]["total"] == 5000
    assert data["scenes"][views["cls-0"]["scene"]]["cloud"]["total"] == 300


def test_paper_table_shows_each_tasks_primary_metric(scored):
    md = to_markdown(tables_for([load_run(scored / "run")]), ci=False)
    first = md.splitlines()[2]
    assert first.startswith("| Method | Cls. accuracy | Det. ")
    assert "Nav. success" in first and "Mean mean_rule" in first and "mean_judged" not in first  # no judge: no judged tasks
    assert "by task" in md  # the long per-task tables follow


def test_compare_3dbench_runs_per_task(scored):
    worse = dict(ANSWERS)
    worse[("cls-0", "classification")] = "(A)"
    score_3dbench(scored / "bench", answers_file(scored / "worse.jsonl", worse), out=scored / "run2", n_resamples=50)
    (c,) = compare_runs(load_runs([scored / "run", scored / "run2"]), n_resamples=200)
    # the aggregates are recomputed from per-sample values (issue 27 item 2): both headlines compare
    ov = {d.metric: d for d in c.overall}
    run_a = load_runs([scored / "run"])[0].results.metrics["overall"]
    assert ov["mean_rule"].a == pytest.approx(run_a["mean_rule"]) and ov["mean_rule"].diff < 0
    assert ov["mean_judged"].a is None and not any("mean_primary" in s or "mean_rule" in s for s in c.skipped)
    acc = next(d for d in c.groups["task"]["classification"] if d.metric == "accuracy")
    assert (acc.a, acc.b, acc.diff) == (100.0, 0.0, -100.0)
    assert "navigation" in c.groups["task"]
    assert {d.metric for d in c.groups["level"]["scene"]} == {"mean_primary", "mean_rule", "mean_judged"}  # by_level: the aggregates
