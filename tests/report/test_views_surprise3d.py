"""SURPRISE3D runs scored by the real scorer, then reported: masks and boxes drawn from the run's inputs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from scenebench.benchmarks.surprise3d.annotations import load_annotations
from scenebench.benchmarks.surprise3d.api import score_run
from scenebench.benchmarks.surprise3d.writer import annotation_record, write_annotations, write_scene
from scenebench.report.html import build_payload, write_html_report
from scenebench.report.runs import load_run
from scenebench.report.tables import tables_for, to_latex, to_markdown
from scenebench.report.views import ViewOptions

SCENES = {"0a5c013435": 3000, "1b7d02a6ff": 500}
RECORDS = [("0a5c013435", 1, "cs"), ("0a5c013435", [2, 3], "rel_pos"), ("1b7d02a6ff", 1, "hi"), ("1b7d02a6ff", 9, "abs")]


def dataset(root: Path) -> tuple[Path, Path, dict[str, np.ndarray], dict[str, np.ndarray], list[str]]:
    rng = np.random.default_rng(0)
    inst, xyz_all = {}, {}
    for sid, n in SCENES.items():
        ids = rng.integers(-1, 5, n)
        xyz = rng.random((n, 3)) + np.where(ids >= 0, ids, 6)[:, None] * np.array([2.0, 0, 0])
        write_scene(root / "scenes" / f"{sid}.npz", xyz, rng.integers(0, 256, (n, 3)), ids)
        inst[sid], xyz_all[sid] = ids, xyz.astype(np.float32)  # as stored, so boxes from it hold the points exactly
    recs = [annotation_record(s, o, f"<b>question {i}</b>", [f"object{i}"], q) for i, (s, o, q) in enumerate(RECORDS)]
    ann = write_annotations(root / "ann.json", recs)
    ids = [s.sample_id for s in load_annotations(ann).samples]
    return ann, root / "scenes", inst, xyz_all, ids


def test_mask_run_views_split_gt_and_prediction(tmp_path):
    ann, scenes, inst, _, ids = dataset(tmp_path)
    gt0 = np.flatnonzero(inst["0a5c013435"] == 1)
    pred0 = np.r_[gt0[: len(gt0) // 2], np.flatnonzero(inst["0a5c013435"] == 4)[:10]]  # half the GT + 10 wrong points
    preds = tmp_path / "preds.jsonl"
    preds.write_text(
        json.dumps({"sample_id": ids[0], "mask_indices": pred0.tolist()})
        + "\n"
        + json.dumps({"sample_id": ids[2], "mask_indices": np.flatnonzero(inst["1b7d02a6ff"] == 1).tolist()})
        + "\n"
    )
    score_run(ann, scenes, preds, tmp_path / "run", progress=False, n_resamples=50)
    run = load_run(tmp_path / "run")
    data = build_payload([run], max_views=10)
    views = data["views"]["0"]
    assert set(views) == {ids[0], ids[1], ids[2]}  # ids[3] has an empty GT mask: excluded, no view
    labels = [layer["label"] for layer in views[ids[0]]["layers"]]
    assert labels == [
        f"GT ∩ prediction: {len(gt0) // 2} pts",
        f"GT only (missed): {len(gt0) - len(gt0) // 2} pts",
        "prediction only (wrong): 10 pts",
    ]
    assert "no prediction" in views[ids[1]]["note"]
    assert views[ids[2]]["layers"][0]["label"].startswith("GT ∩ prediction")  # perfect
    scene = data["scenes"][views[ids[0]]["scene"]]
    assert scene["up"] == "z" and scene["cloud"]["total"] == 3000
    # downsampled for the viewer only: the small scene is kept whole, the scores are untouched
    small = build_payload([run], max_views=10, view_options=ViewOptions(max_scene_points=1000))
    assert small["scenes"][views[ids[0]]["scene"]]["cloud"]["n"] == 1000
    assert small["runs"][0]["metrics"] == data["runs"][0]["metrics"]
    # question text comes through as data, for textContent
    s0 = next(s for s in data["runs"][0]["samples"] if s["id"] == ids[0])
    assert s0["detail"]["question"] == "<b>question 0</b>"
    md = to_markdown(tables_for([run]))
    assert "| Method | Common sense A25 |" in md and "Relative position" in md
    assert "\\multicolumn" in to_latex(tables_for([run]))


def test_box_run_draws_boxes_and_a_changed_input_disables_views(tmp_path):
    ann, scenes, inst, xyz, ids = dataset(tmp_path)
    m = inst["0a5c013435"] == 1
    box = np.r_[xyz["0a5c013435"][m].min(0), xyz["0a5c013435"][m].max(0)].tolist()
    preds = tmp_path / "boxes.jsonl"
    preds.write_text(json.dumps({"sample_id": ids[0], "box": box}) + "\n")
    score_run(ann, scenes, preds, tmp_path / "run", progress=False, n_resamples=50)
    data = build_payload([load_run(tmp_path / "run")])
    kinds = [(layer["kind"], layer["label"]) for layer in data["views"]["0"][ids[0]]["layers"]]
    assert ("box", "predicted box") in kinds and ("box", "box of the GT points") in kinds
    assert kinds[0] == ("cloud", f"GT ∩ prediction: {int(m.sum())} pts")
    preds.write_text(preds.read_text() + "\n")  # the predictions changed after scoring
    out = write_html_report(tmp_path / "run", tmp_path / "r.html")
    data = build_payload([load_run(tmp_path / "run")])
    assert data["views"]["0"] == {} and "changed since the run was scored" in data["runs"][0]["view_notes"][0]
    assert out.exists()


@pytest.mark.browser
@pytest.mark.skipif(not Path("/usr/bin/chromium").exists(), reason="needs Debian's chromium at /usr/bin/chromium")
def test_surprise3d_report_renders_in_browser(tmp_path):
    from .test_browser import ARGS, SHOTS

    sync_api = pytest.importorskip("playwright.sync_api")
    ann, scenes, inst, _, ids = dataset(tmp_path)
    pred0 = np.flatnonzero(np.isin(inst["0a5c013435"], [1, 2]))
    preds = tmp_path / "preds.jsonl"
    preds.write_text(json.dumps({"sample_id": ids[0], "mask_indices": pred0.tolist()}) + "\n")
    score_run(ann, scenes, preds, tmp_path / "run", progress=False, n_resamples=50)
    out = write_html_report(tmp_path / "run", tmp_path / "run" / "report.html")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        page = b.new_page(viewport={"width": 1500, "height": 1000})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(out.as_uri())
        page.wait_for_selector("body[data-ready='1']")
        page.click(f"tr.sample-row[data-sample='{ids[0]}']")
        page.wait_for_selector("#sb-canvas")
        fg = page.evaluate("""() => { const c = document.getElementById('sb-canvas');
            const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let n = 0;
            for (let i = 0; i < d.length; i += 4) if (d[i] !== 23 || d[i+1] !== 26 || d[i+2] !== 30) n++; return n; }""")
        assert fg > 2000
        assert page.locator("#sb-detail dd[data-key='question']").inner_text() == "<b>question 0</b>"
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.locator("#sb-browser").screenshot(path=str(SHOTS / "surprise3d_sample.png"))
        b.close()
        assert errors == []


def test_anchor_objects_the_question_names_are_outlined_and_labelled(tmp_path):
    from scenebench.benchmarks.surprise3d.view import find_anchors

    # labels as ScanNet++ ships them, where `scenebench generate` puts them: scannetpp/ beside the annotations
    labels = {1: "chair", 2: "coffeemachine", 3: "table", 4: "object", 0: "chair"}
    _, scenes, inst, xyz, _ = dataset(tmp_path)
    d = tmp_path / "scannetpp" / "0a5c013435" / "scans"
    d.mkdir(parents=True)
    (d / "segments_anno.json").write_text(json.dumps({"segGroups": [{"id": i, "label": lab} for i, lab in labels.items()]}))
    q = "Which chair stands closest to the coffee machine, not by the other chairs?"
    ann = write_annotations(tmp_path / "ann.json", [annotation_record("0a5c013435", 1, q, ["chair"], "rel_pos")])
    sid = load_annotations(ann).samples[0].sample_id
    preds = tmp_path / "p.jsonl"
    preds.write_text(json.dumps({"sample_id": sid, "mask_indices": np.flatnonzero(inst["0a5c013435"] == 3).tolist()}) + "\n")
    score_run(ann, scenes, preds, tmp_path / "run", progress=False, n_resamples=50)
    # "coffee machine" -> coffeemachine, "chairs" -> chair; the target (1) is not its own anchor; "object" is too generic
    assert find_anchors(q, labels, {1}) == [(0, "chair"), (2, "coffeemachine")]
    data = build_payload([load_run(tmp_path / "run")])
    view = data["views"]["0"][sid]
    anchors = [layer for layer in view["layers"] if layer["label"].startswith("anchor")]
    assert [a["text"] for a in anchors] == ["chair", "coffeemachine"]
    assert {a["group"] for a in anchors} == {"anchors: objects the question names"}
    pts = xyz["0a5c013435"][inst["0a5c013435"] == 2]
    assert anchors[1]["minmax"] == pytest.approx([*pts.min(0), *pts.max(0)], abs=1e-5)
    assert anchors[1]["color"] == [240, 228, 66] and "anchors: chair, coffeemachine" in view["note"]
    sample = data["runs"][0]["samples"][0]
    assert sample["detail"]["anchors"] == ["chair", "coffeemachine"]


def test_without_label_files_the_view_says_anchors_are_not_marked(tmp_path):
    ann, scenes, _inst, _, ids = dataset(tmp_path)
    preds = tmp_path / "p.jsonl"
    preds.write_text(json.dumps({"sample_id": ids[0], "mask_indices": [0, 1]}) + "\n")
    score_run(ann, scenes, preds, tmp_path / "run", progress=False, n_resamples=50)
    view = build_payload([load_run(tmp_path / "run")])["views"]["0"][ids[0]]
    assert "anchors not marked" in view["note"] and not any(layer["label"].startswith("anchor") for layer in view["layers"])
