"""Issue 42 audit probes: file write order, the goal prior of navigation, object-cloud features
and the sighted classifier, the SURPRISE3D mean-IoU rows (hand-made inputs, golden values)."""

from __future__ import annotations

import os
from types import SimpleNamespace

import numpy as np
import pytest

from scenebench.benchmarks.bench3d.audit import (
    CLOUD_FEATURES,
    choice_items,
    cloud_features,
    file_ranks,
    goal_prior_paths,
    sighted_classification,
)


def test_file_ranks_follow_modification_time_then_inode_per_house(tmp_path):
    objects = tmp_path / "Objects"
    objects.mkdir()
    # written a, b, c for house_000001 (inodes rise with creation), mtimes set c < a < b
    for name, mtime in (("house_000001_aa", 20), ("house_000001_bb", 30), ("house_000001_cc", 10), ("house_000002_zz", 5)):
        p = objects / f"{name}.npy"
        p.write_bytes(b"x")
        os.utime(p, ns=(mtime * 10**9, mtime * 10**9))
    ranks = file_ranks(tmp_path)
    assert ranks["Objects/house_000001_cc.npy"][0] == 0.0
    assert ranks["Objects/house_000001_aa.npy"][0] == 0.5
    assert ranks["Objects/house_000001_bb.npy"][0] == 1.0
    assert ranks["Objects/house_000002_zz.npy"] == (0.0, 0.0)  # alone in its house
    inodes = sorted(("aa", "bb", "cc"), key=lambda n: (objects / f"house_000001_{n}.npy").stat().st_ino)
    assert [ranks[f"Objects/house_000001_{n}.npy"][1] for n in inodes] == [0.0, 0.5, 1.0]
    # the probe's view of a record is its file's ranks in tenths
    rec = SimpleNamespace(
        key="k",
        task="classification",
        house="1",
        pcl="Objects/house_000001_bb.npy",
        query="What is it?",
        gt={"choices": ["a", "b"], "answer": 0},
        raw={},
        row=0,
        question_id="1",
    )
    (item,) = choice_items([rec], "file_order", ranks)
    assert item.context == ("mtime_tenth=9", f"inode_tenth={min(9, int(10 * ranks['Objects/house_000001_bb.npy'][1]))}")


def test_goal_prior_walks_to_the_train_mean_goal_of_the_named_category():
    def rec(target, start, goal, query=""):
        return SimpleNamespace(raw={"target": target}, gt={"start": start, "positions": [start, goal]}, query=query)

    train = [rec("sofa", [0, 0], [2.0, 4.0]), rec("sofa", [1, 1], [4.0, 6.0]), rec("bed", [0, 0], [10.0, 0.0])]
    test = [rec("sofa", [5.0, 5.0], None, "to the sofa"), rec("toilet", [1.0, 2.0], None, "to the toilet")]
    paths = goal_prior_paths(train, test)
    assert paths["to the sofa"] == [[5.0, 5.0], [3.0, 5.0]]
    # no train route to a toilet: the mean goal of every train route, (16/3, 10/3)
    assert paths["to the toilet"] == [[1.0, 2.0], [pytest.approx(16 / 3), pytest.approx(10 / 3)]]


def _box_cloud(rng, size, colour, n=400):
    xyz = rng.uniform(0, 1, (n, 3)) * np.asarray(size)
    rgb = np.clip(np.asarray(colour) + rng.normal(0, 0.02, (n, 3)), 0, 1)
    return np.concatenate([xyz, rgb], 1)


def test_cloud_features_ignore_where_the_house_sits():
    from scenebench.synth.frames import WorldFrame

    rng = np.random.default_rng(0)
    cloud = _box_cloud(rng, (2.0, 0.5, 1.0), (0.8, 0.2, 0.2))
    f = cloud_features(cloud)
    assert f.shape == (CLOUD_FEATURES,)
    assert f[1] == pytest.approx(np.ptp(cloud[:, 1]))  # height
    assert f[3] > f[4]  # the long floor extent first: about 2 m against 1 m
    assert f[3] == pytest.approx(2.0, abs=0.05) and f[4] == pytest.approx(1.0, abs=0.05)
    moved = WorldFrame(1, 30.0, -12.0).points(cloud)
    assert np.allclose(cloud_features(moved), f, atol=1e-6)
    assert np.array_equal(cloud_features(np.zeros((0, 6))), np.zeros(CLOUD_FEATURES))


def test_sighted_classifier_reads_the_category_off_the_cloud(tmp_path):
    rng = np.random.default_rng(1)
    shapes = {
        "table": ((1.2, 0.75, 0.8), (0.5, 0.3, 0.1)),
        "lamp": ((0.3, 1.5, 0.3), (0.9, 0.9, 0.8)),
        "rug": ((2.0, 0.02, 1.4), (0.2, 0.3, 0.7)),
    }
    (tmp_path / "Objects").mkdir()
    recs = []
    for k in range(36):
        cat = list(shapes)[k % 3]
        name = f"Objects/h_{k:02d}.npy"
        np.save(tmp_path / name, _box_cloud(rng, *shapes[cat]).astype(np.float32))
        choices = list(shapes)[::-1] if k % 2 else list(shapes)
        recs.append(SimpleNamespace(pcl=name, gt={"choices": choices, "answer": choices.index(cat)}))
    chosen = sighted_classification(tmp_path, recs[:24], recs[24:], seed=0)
    assert chosen == [r.gt["answer"] for r in recs[24:]]
    missing = [SimpleNamespace(pcl="Objects/none.npy", gt=recs[0].gt)]
    assert sighted_classification(tmp_path, recs[:24], missing, seed=0) is None


def test_surprise_mean_iou_rows_resample_scenes_and_flag_above_the_labels_goal():
    from scenebench.benchmarks.surprise3d.audit import LABELS_GOAL, _mean_iou_row

    row = _mean_iou_row("labels-fewest-points", "all", [1.0, 0.0, 0.5, 0.5], ["a", "a", "b", "b"], 1.0, seed=0)
    assert row["score"] == pytest.approx(50.0) and row["n"] == 4
    # both scenes have mean 0.5: every resample gives 50
    assert row["low"] == pytest.approx(50.0) and row["high"] == pytest.approx(50.0)
    assert row["flag"] is (50.0 > LABELS_GOAL)
    low = _mean_iou_row("labels-random-instance", "cs", [0.1, 0.0], ["a", "b"], 1.0, seed=0)
    assert low["score"] == pytest.approx(5.0) and 0.0 <= low["low"] <= 5.0 <= low["high"] <= 10.0 and low["flag"] is False
    # sighted rows are never flagged: a model that looks should score high
    assert _mean_iou_row("sighted", "all", [1.0], ["a"], 1.0, seed=0)["flag"] is False


def _cube(lo, hi, n=4):
    """(n^3, 6) y-up points filling the box lo..hi, grey."""
    axes = [np.linspace(a, b, n) for a, b in zip(lo, hi)]
    xyz = np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, 3)
    return np.concatenate([xyz, np.full_like(xyz, 0.5)], 1)


def test_sighted_count_reads_floor_standing_things_per_room():
    from scenebench.benchmarks.bench3d.sighted_count import count_answer, floor_standing, room_of

    clouds = [
        _cube((0.0, 0.0, 0.0), (1.0, 0.7, 1.0)),  # table, room A
        _cube((0.4, 0.7, 0.4), (0.5, 0.8, 0.5)),  # mug on the table: held up
        _cube((0.0, 1.2, 0.0), (0.05, 1.8, 0.8)),  # painting on the wall: nothing under it up to its bottom
        _cube((1.5, 0.0, 1.5), (2.0, 0.9, 2.0)),  # chair, room A
        _cube((3.5, 0.0, 0.5), (4.0, 0.9, 1.0)),  # chair in room B (inside A's L-shaped box too)
        _cube((2.0, 0.0, 3.0), (2.5, 2.0, 3.2)),  # doorway of room A: never furniture
    ]
    assert floor_standing(clouds).tolist() == [True, False, True, True, True, True]
    rooms = [("living room", np.array([0.0, 5.0, 0.0, 4.0])), ("kitchen", np.array([3.0, 5.0, 0.0, 2.0]))]
    centres = np.array([c[:, [0, 2]].mean(0) for c in clouds])
    assert room_of(centres, rooms).tolist() == [0, 0, 0, 0, 1, 0]
    predicted = ["sidetable", "mug", "painting", "chair", "chair", "doorway"]
    q = "How many pieces of furniture standing on the floor of the living room does the house have?"
    assert count_answer(q, "furniture", predicted, clouds, rooms) == 3.0  # table, painting, chair
    assert count_answer("How many chairs?", "chair", predicted, clouds, rooms) == 2.0
    assert count_answer("... on the floor of the garage?", "furniture", predicted, clouds, rooms) is None


def test_sighted_count_reads_instances_from_the_surprise_export(tmp_path):
    """house_instances: the house's scene id from manifest.json, its points (z up -> y up) and
    instance ids from the SURPRISE3D npz, labels from segments_anno.json; walls and tiny instances
    left out."""
    import json

    from scenebench.benchmarks.bench3d.sighted_count import house_instances

    (tmp_path / "manifest.json").write_text(json.dumps({"per_house": [{"house_id": "house_000001", "scene_id": "abc"}]}))
    scenes = tmp_path / "surprise3d" / "scenes"
    scenes.mkdir(parents=True)
    coords = np.array([[1.0, 2.0, 0.5]] * 12 + [[0.0, 0.0, 0.0]] * 12 + [[5.0, 5.0, 5.0]] * 3)
    inst = np.array([7] * 12 + [3] * 12 + [9] * 3)
    np.savez(scenes / "abc.npz", sampled_coords=coords, sampled_colors=np.full((27, 3), 0.5), sampled_instance_anno_id=inst)
    anno = tmp_path / "surprise3d" / "scannetpp" / "abc" / "scans"
    anno.mkdir(parents=True)
    groups = [{"objectId": 7, "label": "chair"}, {"objectId": 3, "label": "wall"}, {"objectId": 9, "label": "mug"}]
    (anno / "segments_anno.json").write_text(json.dumps({"segGroups": groups}))
    got = house_instances(tmp_path, "house_000001")
    assert [label for label, _ in got] == ["chair"]  # the wall is structure, the mug has 3 points
    assert got[0][1].shape == (12, 6)
    assert np.allclose(got[0][1][0], [1.0, 0.5, -2.0, 0.5, 0.5, 0.5])  # (x, y, z) z-up -> (x, z, -y) y-up
    assert house_instances(tmp_path, "house_000002") is None
