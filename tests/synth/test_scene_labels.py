"""generate: ScanNet++ object labels for SURPRISE3D scenes, the 3DBench scene graph, Ray on loopback."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from scenebench.benchmarks.bench3d.loader import load_bench
from scenebench.benchmarks.surprise3d.annotations import load_annotations
from scenebench.benchmarks.surprise3d.scenes import load_scene
from scenebench.extras import available
from scenebench.synth.scannetpp import segments_anno

from .conftest import TINY


def _plain_segments_anno(coords, instance, superpoints, label_of):
    groups = []
    for i in sorted(set(instance.tolist()) - {-1}):
        m = instance == i
        lo, hi = coords[m].min(0), coords[m].max(0)
        groups.append(
            {
                "id": i,
                "objectId": i,
                "label": label_of(i),
                "segments": sorted(set(superpoints[m].tolist())),
                "obb": {
                    "centroid": [round(float(v), 4) for v in (lo + hi) / 2],
                    "axesLengths": [round(float(v), 4) for v in hi - lo],
                    "normalizedAxes": [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
                },
            }
        )
    return groups


@pytest.mark.parametrize("seed", range(5))
def test_segments_anno_matches_a_plain_loop(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 400))
    coords = rng.normal(size=(n, 3)).astype(np.float32)
    instance = rng.integers(-1, 9, size=n).astype(np.int32)
    superpoints = rng.integers(0, 30, size=n).astype(np.int32)
    label_of = lambda i: f"cat{i % 3}"  # noqa: E731
    doc = segments_anno("abc", coords, instance, superpoints, label_of)
    assert doc["sceneId"] == "abc"
    assert doc["segGroups"] == _plain_segments_anno(coords, instance, superpoints, label_of)


def test_segments_anno_golden_case():
    coords = np.array([[0, 0, 0], [2, 1, 1], [5, 5, 5], [1, 1, 1]], float)
    doc = segments_anno("s", coords, np.array([4, 4, -1, 2]), np.array([7, 3, 9, 7]), {2: "chair", 4: "wall"}.__getitem__)
    assert doc["segGroups"] == [
        {
            "id": 2,
            "objectId": 2,
            "label": "chair",
            "segments": [7],
            "obb": {"centroid": [1.0, 1.0, 1.0], "axesLengths": [0.0, 0.0, 0.0], "normalizedAxes": [1.0, 0, 0, 0, 1.0, 0, 0, 0, 1.0]},
        },
        {
            "id": 4,
            "objectId": 4,
            "label": "wall",
            "segments": [3, 7],
            "obb": {"centroid": [1.0, 0.5, 0.5], "axesLengths": [2.0, 1.0, 1.0], "normalizedAxes": [1.0, 0, 0, 0, 1.0, 0, 0, 0, 1.0]},
        },
    ]


def test_generate_writes_scannetpp_labels_for_every_surprise3d_scene(tiny_run):
    from scenebench.models.sources.base import make_source

    out, manifest = tiny_run
    s3 = out / "surprise3d"
    names: dict[tuple[str, int], str] = {}
    for split in ("surprise-3d-train.json", "surprise-3d-val.json"):
        for s in load_annotations(s3 / split).samples:
            for t in s.targets:
                names[(s.scene_id, int(t))] = s.object_name[0]
    assert names
    for h in manifest["per_house"]:
        sid = h["scene_id"]
        doc = json.loads((s3 / "scannetpp" / sid / "scans" / "segments_anno.json").read_text())
        scene = load_scene(s3 / "scenes", sid)
        ids = scene.instance_ids
        assert doc["sceneId"] == sid
        # ids are exactly the scene's sampled_instance_anno_id values (unannotated -1 excluded)
        assert [g["id"] for g in doc["segGroups"]] == np.unique(ids[ids >= 0]).tolist()
        labels = {g["id"]: g["label"] for g in doc["segGroups"]}
        assert {"wall", "floor"} <= set(labels.values())
        for g in doc["segGroups"][:5]:
            assert g["segments"] == np.unique(scene.superpoints[ids == g["id"]]).tolist()
        for (scene_id, oid), name in names.items():  # a target's scene label is its object_name
            if scene_id == sid:
                assert labels[oid] == name
    # the run source finds the labels next to the data without --labels-dir
    src = make_source("surprise3d", data=str(s3))
    assert src.labels_dir == s3 / "scannetpp" and "labels" in src.inputs()
    sample = src.samples()[0]
    objs = src.scene(sample.scene_id).objects
    assert len({o.label for o in objs}) > 3 and "object" not in {o.label for o in objs}


def test_generate_writes_a_scene_graph_per_house_covering_the_task_answers(tiny_run):
    out, manifest = tiny_run
    bench = out / "3dbench"
    assert not (bench / "scene_graph").exists()  # ground truth stays out of the data handed to models
    gt = out / "gt" / "3dbench" / "scene_graph"
    graphs = {h["house_id"]: json.loads((gt / f"{h['house_id']}.json").read_text()) for h in manifest["per_house"]}
    for hid, g in graphs.items():
        assert g["house_id"] == hid and g["up_axis"] == "y" and g["min_points"] == TINY.min_points
        assert all(o["points"] >= TINY.min_points for o in g["objects"])
        assert len(g["objects"]) <= next(h["n_objects"] for h in manifest["per_house"] if h["house_id"] == hid)
        assert sorted(o["id"] for o in g["objects"]) == sorted({o["id"] for o in g["objects"]})
    for root in (bench, bench / "train"):
        b = load_bench(root)
        for r in b.all_records():
            g = graphs[f"house_{int(r.house):06d}"]  # released-shape files give the house number
            objs = {(o["category"], tuple(o["bbox"])) for o in g["objects"]}
            det = {(o["detection_class"], tuple(o["bbox"])) for o in g["objects"]}
            if r.task == "visual_grounding":
                assert (r.gt["name"], tuple(np.round(np.asarray(r.gt["box"], float), 2))) in objs
            elif r.task == "visual_grounding_plus":  # released shape {pcl, id, query, obj_num, bbox}: no name
                assert tuple(np.round(np.asarray(r.gt["box"], float), 2)) in {box for _, box in objs}
            elif r.task == "detection":
                for lab, box in zip(r.gt["labels"], np.asarray(r.gt["boxes"]).tolist()):
                    assert (lab, tuple(box)) in det
            elif r.task == "room_detection":
                assert [(x["type"], x["bbox"]) for x in g["rooms"]] == [
                    (lab, box) for lab, box in zip(r.gt["labels"], np.asarray(r.gt["boxes"]).tolist())
                ]


def test_run_ray_keeps_the_cluster_on_loopback_even_after_an_early_ray_import(monkeypatch, tmp_path):
    if not available("ray"):
        pytest.skip("needs the ray extra")
    import ray
    from ray._private import ray_constants

    from scenebench.synth import pipeline

    # as if ray had been imported before anything set the variable: Ray already decided to allow a cluster
    monkeypatch.setattr(ray_constants, "ENABLE_RAY_CLUSTER", True)
    monkeypatch.setenv("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "1")
    seen = {}

    class Stop(Exception):
        pass

    def fake_init(**kwargs):
        seen.update(kwargs, cluster=ray_constants.ENABLE_RAY_CLUSTER, env=os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"])
        raise Stop

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", fake_init)
    with pytest.raises(Stop):
        pipeline._run_ray(tmp_path, [0], TINY, 2, None, lambda sm: None)
    assert seen["cluster"] is False and seen["env"] == "0" and seen["_node_ip_address"] == "127.0.0.1"
