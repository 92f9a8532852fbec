"""RIO runs scored by the real scorer, then reported: the object at its reference, GT and predicted poses."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from scenebench.benchmarks.rio.api import score_rio
from scenebench.benchmarks.rio.view import apply
from scenebench.benchmarks.rio.writer import write_index, write_scan
from scenebench.report.html import build_payload
from scenebench.report.runs import load_run
from scenebench.report.tables import tables_for, to_markdown

REF, RESCAN = "ref-0001", "rescan-0001"


def turn(deg: float, t) -> np.ndarray:
    a = np.deg2rad(deg)
    T = np.eye(4)
    T[:2, :2] = [[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]
    T[:3, 3] = t
    return T


MOVE = turn(90, [1.0, 0.5, 0.0])  # the box (instance 2), reference -> rescan
SCAN_T = turn(30, [0.3, -0.2, 0.0])  # rescan frame -> reference frame


def room(root: Path) -> None:
    rng = np.random.default_rng(0)
    floor = np.c_[rng.uniform(-2, 2, (800, 2)), np.zeros(800)]
    box = rng.uniform([-0.3, -0.2, 0.0], [0.3, 0.2, 0.5], (400, 3))
    insts = [{"id": 1, "global_id": 1, "label": "floor", "symmetry": 0}, {"id": 2, "global_id": 2, "label": "box", "symmetry": 0}]
    for scan, T_obj in ((REF, np.eye(4)), (RESCAN, MOVE)):
        world = np.r_[floor, apply(T_obj, box)]
        own = apply(np.linalg.inv(SCAN_T), world) if scan == RESCAN else world
        write_scan(root / scan, own, np.full((len(own), 3), 120, np.uint8), None, np.r_[np.full(800, 1), np.full(400, 2)], insts)
    write_index(
        root,
        [
            {
                "reference": REF,
                "type": "validation",
                "scans": [
                    {
                        "reference": RESCAN,
                        "transform": SCAN_T,
                        "rigid": [
                            # instance 1 is listed unmoved (a "static" sample); 2 moved
                            {"instance_reference": 1, "instance_rescan": 1, "symmetry": 0, "transform": np.eye(4)},
                            {"instance_reference": 2, "instance_rescan": 2, "symmetry": 0, "transform": MOVE},
                        ],
                        "removed": [],
                        "nonrigid": [],
                    }
                ],
            }
        ],
        {REF: insts, RESCAN: insts},
    )


def test_object_is_drawn_at_reference_gt_and_predicted_poses(tmp_path):
    room(tmp_path / "3rscan")
    wrong = turn(0, [1.0, 0.5, 0.0])  # right place, not turned
    preds = tmp_path / "poses.jsonl"
    preds.write_text(json.dumps({"rescan": RESCAN, "instance": 2, "pose": wrong.tolist()}) + "\n")
    score_rio(tmp_path / "3rscan", preds, out=tmp_path / "run", progress=False, n_resamples=50)
    run = load_run(tmp_path / "run")
    data = build_payload([run])
    views = data["views"]["0"]
    sid = f"{RESCAN}/2"
    assert set(views) == {sid, f"{RESCAN}/1"}
    layers = {layer["label"]: layer for layer in views[sid]["layers"]}
    assert list(layers) == [
        "object in the reference scan",
        "its box in the reference scan",
        "GT pose",
        "GT pose box",
        "GT pose box x axis",
        "GT pose box y axis",
        "GT pose box z axis",
        "predicted pose",
        "predicted pose box",
        "predicted pose box x axis",
        "predicted pose box y axis",
        "predicted pose box z axis",
    ]
    gt_cloud, ref_cloud = layers["GT pose"]["cloud"], layers["object in the reference scan"]["cloud"]
    # reference and rescan side by side: the reference scan and its object shifted left by the same offset
    # each scan cropped to 1.5 m around the object's boxes (inside the 4 m floor), the reference crop
    # half a metre left of the rescan crop. Reference box [-0.3, 0.3] x [-0.2, 0.2] -> crop x [-1.8, 1.8],
    # y [-1.7, 1.7]; GT box (turned 90°, moved by (1, 0.5)) x [0.8, 1.2] y [0.2, 0.8] and predicted box
    # x [0.7, 1.3] y [0.3, 0.7] -> crop x [-0.8, 2.0 (floor edge)], y [-1.3, 2.0]
    extra = views[sid]["scenes"][0]
    offset = extra["offset"]
    assert extra["scene"] == f"rio:{REF}" and layers["object in the reference scan"]["offset"] == offset
    assert extra["crop"][0] == pytest.approx(-1.8, abs=0.02) and extra["crop"][4] == pytest.approx(1.7, abs=0.02)
    assert views[sid]["crop"][:2] == pytest.approx([-0.8, -1.3], abs=0.02) and views[sid]["crop"][3:5] == pytest.approx(
        [2.0, 2.0], abs=0.02
    )
    assert offset == pytest.approx([-0.8 - 1.8 - 0.5, (-1.3 + 2.0) / 2, 0.0], abs=0.03)
    # the boxes: the object's box in the reference scan, moved by each pose; axes from the moved centre
    ref_lo, ref_hi = (
        np.array(layers["its box in the reference scan"]["minmax"][:3]),
        np.array(layers["its box in the reference scan"]["minmax"][3:]),
    )
    gt_corners = np.array(layers["GT pose box"]["corners"])
    assert gt_corners.mean(0) == pytest.approx(apply(MOVE, ((ref_lo + ref_hi) / 2)[None])[0], abs=1e-3)
    x_axis = np.array(layers["GT pose box x axis"]["points"])
    assert (x_axis[1] - x_axis[0]) / np.linalg.norm(x_axis[1] - x_axis[0]) == pytest.approx([0, 1, 0], abs=1e-3)  # turned 90°: x -> y
    px = np.array(layers["predicted pose box x axis"]["points"])
    assert (px[1] - px[0]) / np.linalg.norm(px[1] - px[0]) == pytest.approx([1, 0, 0], abs=1e-3)  # the prediction is not turned
    assert layers["predicted pose box"]["dashed"] and layers["GT pose box"]["text"] == "box GT"
    assert gt_cloud["n"] == 400
    # the GT cloud is the reference cloud moved by MOVE: compare the bounds
    lo, hi = np.array(ref_cloud["lo"]), np.array(ref_cloud["hi"])
    corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
    moved = apply(MOVE, corners)
    assert gt_cloud["lo"] == pytest.approx(moved.min(0), abs=1e-6) and gt_cloud["hi"] == pytest.approx(moved.max(0), abs=1e-6)
    assert "moved" in views[sid]["note"] and "no prediction" in views[f"{RESCAN}/1"]["note"]
    # the rescan is shown in the reference frame: its floor spans the same square as the reference's
    scene = data["scenes"][views[sid]["scene"]]["cloud"]
    assert scene["total"] == 1200 and scene["lo"][2] == pytest.approx(0.0, abs=1e-6)
    sample = next(s for s in data["runs"][0]["samples"] if s["id"] == sid)
    assert sample["detail"]["prediction"][0][3] == 1.0 and sample["detail"]["answer"]["moved"] is True
    assert sample["values"]["r_err"] == pytest.approx(90.0, abs=1e-3)
    # every moved instance gets a view whatever --max-views says; the byte cap can still drop it
    assert set(build_payload([run], max_views=0)["views"]["0"]) == {sid}
    capped = build_payload([run], max_views=0, max_view_bytes=1000)
    assert capped["views"]["0"] == {} and capped["scenes"] == {}
    assert any("1 view left out" in n and "--max-view-mb" in n for n in capped["runs"][0]["view_notes"])
    md = to_markdown(tables_for([run]))
    assert "All instances R@10cm,10°" in md and "Moved MRE (°)" in md
