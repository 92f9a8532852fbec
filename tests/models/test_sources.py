import json

import numpy as np
import pytest

from scenebench.models.sources.base import instance_objects, make_source
from scenebench.runtime.runner import run_benchmark


def test_surprise3d_oracle_is_perfect_and_random_is_not(s3d_dir, tmp_path):
    src = make_source("surprise3d", data=str(s3d_dir))
    oracle = run_benchmark(src, "oracle", tmp_path / "o", progress=False).results
    assert oracle.overall() == {"mIoU": 100.0, "A25": 100.0, "A50": 100.0}
    assert oracle.settings["model"] == "oracle"
    assert set(oracle.metrics["by_question_type"]) == {"hi", "rel_pos", "cs"}
    rnd = run_benchmark(src, "random", tmp_path / "r", progress=False).results
    assert rnd.overall()["mIoU"] < 100.0
    rec = json.loads((tmp_path / "o" / "surprise3d_predictions.jsonl").read_text().splitlines()[0])
    assert set(rec) == {"sample_id", "mask_indices"}


def test_surprise3d_limit_scores_only_the_chosen_samples(s3d_dir, tmp_path):
    res = run_benchmark(make_source("surprise3d", data=str(s3d_dir)), "oracle", tmp_path / "o", limit=2, progress=False).results
    assert res.counts.n_samples == 2


def test_surprise3d_scene_never_shows_target_names(s3d_dir):
    src = make_source("surprise3d", data=str(s3d_dir))
    s = src.samples()[0]
    assert "chair" not in json.dumps(s.to_json())
    objs = src.scene(s.scene_id).objects
    assert {o.label for o in objs} == {"object"} and [o.instance_id for o in objs] == [1, 2, 3]


def test_instance_objects_matches_a_plain_loop():
    rng = np.random.default_rng(0)
    pts = rng.normal(size=(500, 3))
    ids = rng.integers(-1, 6, size=500)
    objs = instance_objects(pts, ids, {2: "chair"})
    assert [o.instance_id for o in objs] == sorted(set(ids.tolist()) - {-1})
    for o in objs:
        m = ids == o.instance_id
        lo, hi = pts[m].min(0), pts[m].max(0)
        assert o.box == pytest.approx([*((lo + hi) / 2), *(hi - lo)])
        assert sorted(o.point_indices.tolist()) == np.flatnonzero(m).tolist()
        assert o.label == ("chair" if o.instance_id == 2 else "object")


def test_rio_oracle_is_perfect(rio_dir, tmp_path):
    src = make_source("rio", data=str(rio_dir))
    assert [s.sample_id for s in src.samples()] == ["scan0/1", "scan0/2"]  # the unlisted shelf (3) is static: not a sample
    res = run_benchmark(src, "oracle", tmp_path / "o", progress=False).results
    assert res.overall()["recall_10cm_10deg"] == 100.0 and res.overall()["MTE"] == 0.0
    rec = json.loads((tmp_path / "o" / "rio_predictions.jsonl").read_text().splitlines()[1])
    assert rec["rescan"] == "scan0" and rec["instance"] == 2 and len(rec["pose"]) == 4


def test_rio_scene_hides_rescan_instance_labels(rio_dir):
    view = make_source("rio", data=str(rio_dir)).scene("scan0")
    assert "instance_ids" not in view.fields() and "reference_instance_ids" in view.fields()
    assert view.points.shape == view.get("reference_points").shape


def test_rio_limit_scores_the_chosen_instances_only(rio_dir, tmp_path):
    res = run_benchmark(make_source("rio", data=str(rio_dir)), "baseline:prior", tmp_path / "p", limit=1, progress=False).results
    assert res.counts.n_samples == 1
    # The prior says "nothing moved": right for the chair listed unmoved (1), wrong for the moved table (2).
    assert res.overall()["recall_10cm_10deg"] == 100.0
    full = run_benchmark(make_source("rio", data=str(rio_dir)), "baseline:prior", tmp_path / "p", progress=False).results
    assert full.counts.n_samples == 2 and full.overall()["recall_10cm_10deg"] == 50.0


def test_bench3d_oracle_is_perfect_on_every_rule_scored_task(b3d_dir, tmp_path):
    res = run_benchmark(make_source("3dbench", data=str(b3d_dir)), "oracle", tmp_path / "o", progress=False).results
    prim = res.extra["primary_metric"]
    for task, vals in res.metrics["by_task"].items():
        if vals.get(prim[task]) is not None:
            assert vals[prim[task]] == 100.0, (task, vals)
    assert res.counts.n_invalid == 0 and res.counts.n_missing == 0


def test_bench3d_tasks_and_scene_objects(b3d_dir):
    src = make_source("3dbench", data=str(b3d_dir))
    by_task = {s.task for s in src.samples()}
    assert {"classification", "counting", "detection", "navigation", "scene_caption"} <= by_task
    nav = next(s for s in src.samples() if s.task == "navigation")
    assert nav.inputs["start"] == [0.0, 0.0] and nav.inputs["target"] == "sofa" and nav.answer_kind == "waypoints"
    house = src.scene(nav.scene_id)
    assert {o.label for o in house.objects} == {"chair", "sofa", "diningtable"} and house.get("up_axis") == 1
    obj = next(s for s in src.samples() if s.task == "classification")
    assert src.scene(obj.scene_id).objects == [] and src.scene(obj.scene_id).points.shape == (60, 3)
    assert len(src.train()) > 0


def _copy(src, dst):
    import shutil

    shutil.copytree(src, dst)
    return dst


def _segments_anno(path, groups):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"sceneId": "x", "segGroups": groups}))


def test_surprise3d_labels_found_next_to_the_data_or_given_explicitly(s3d_dir, tmp_path):
    from scenebench.errors import InputError

    data = _copy(s3d_dir, tmp_path / "s3d")
    plain = make_source("surprise3d", data=str(data))
    assert plain.labels_dir is None and "labels" not in plain.inputs()
    for sid in ("scene00", "scene01"):
        _segments_anno(
            data / "scannetpp" / sid / "scans" / "segments_anno.json",
            [
                {"id": 1, "objectId": 1, "label": "chair", "segments": [], "obb": {}},
                {"id": 2, "objectId": 2, "label": "table", "segments": [], "obb": {}},
            ],
        )
    src = make_source("surprise3d", data=str(data))
    assert src.spec()["labels_dir"] is None  # workers rebuilding the source find the same default
    objs = src.scene("scene00").objects
    assert [(o.instance_id, o.label) for o in objs] == [(1, "chair"), (2, "table"), (3, "object")]
    assert sorted(src.inputs()["labels"]) == ["scene00", "scene01"]
    assert src.inputs() != plain.inputs()  # a run made without labels does not resume with them
    # the explicit folder wins over the default one (flat <scene_id>.json layout)
    other = tmp_path / "labels"
    _segments_anno(other / "scene00.json", [{"id": 3, "label": "lamp"}])
    src = make_source("surprise3d", data=str(data), labels_dir=str(other))
    assert [o.label for o in src.scene("scene00").objects] == ["object", "object", "lamp"]
    # a broken file names the file and the group
    _segments_anno(other / "scene00.json", [{"id": "3", "label": "lamp"}])
    with pytest.raises(InputError) as e:
        make_source("surprise3d", data=str(data), labels_dir=str(other)).scene("scene00").objects
    assert "scene00.json" in str(e.value) and "segGroups[0]" in str(e.value)


def test_surprise3d_nearest_scores_with_labels_and_not_without(s3d_dir, tmp_path):
    from scenebench.benchmarks.surprise3d.writer import annotation_record, write_annotations

    data = _copy(s3d_dir, tmp_path / "s3d")
    write_annotations(
        data / "surprise-3d-train.json",
        [
            annotation_record("scene00", 1, "Where would you sit down?", ["chair"], "hi"),
            annotation_record("scene00", 2, "Where do the plates go?", ["table"], "cs"),
            annotation_record("scene00", 3, "What gives light at night?", ["lamp"], "cs"),
        ],
    )
    before = run_benchmark(make_source("surprise3d", data=str(data)), "baseline:nearest", tmp_path / "a", progress=False).results
    for sid in ("scene00", "scene01"):
        _segments_anno(
            data / "scannetpp" / sid / "scans" / "segments_anno.json",
            [{"id": 1, "label": "chair"}, {"id": 2, "label": "table"}, {"id": 3, "label": "lamp"}],
        )
    after = run_benchmark(make_source("surprise3d", data=str(data)), "baseline:nearest", tmp_path / "b", progress=False).results
    # without labels every object is "object" and the first one (the chair) is all it can give: 2 of 6
    assert before.overall()["A50"] == pytest.approx(100 * 2 / 6)
    # with labels the word prior's category is found in the scene: every question right
    assert after.overall() == {"mIoU": 100.0, "A25": 100.0, "A50": 100.0}


def _graph(path, objects, rooms=()):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"version": 1, "house_id": path.stem, "rooms": list(rooms), "objects": objects}))


def test_bench3d_scene_graph_replaces_the_record_object_list_when_present(b3d_dir, tmp_path):
    from scenebench.errors import InputError

    data = _copy(b3d_dir, tmp_path / "b3d")
    nav = next(s for s in make_source("3dbench", data=str(data)).samples() if s.task == "navigation")
    house = nav.inputs["house"]
    objs = [{"id": 4, "category": "lamp", "bbox": [0, 1, 0, 0.3, 2, 0.3]}, {"id": 7, "category": "sofa", "bbox": [4, 0.4, 3, 2, 0.8, 0.9]}]
    _graph(data / "scene_graph" / f"{house}.json", objs, [{"index": 0, "type": "bedroom", "bbox": [2.5, 2.5, 1.4, 5, 5, 2.8]}])
    src = make_source("3dbench", data=str(data))
    view = src.scene(nav.scene_id)
    assert [(o.instance_id, o.label, o.box) for o in view.objects] == [
        (4, "lamp", [0.0, 1.0, 0.0, 0.3, 2.0, 0.3]),
        (7, "sofa", [4.0, 0.4, 3.0, 2.0, 0.8, 0.9]),
    ]
    assert view.get("rooms") == [{"type": "bedroom", "box": [2.5, 2.5, 1.4, 5, 5, 2.8]}]
    assert f"scene_graph:{house}" in src.inputs()
    other = next(s for s in src.samples() if s.task == "counting" and s.inputs["house"] != house)
    assert {o.label for o in src.scene(other.scene_id).objects} == {"chair", "sofa", "diningtable"}  # no graph: records
    assert not src.scene(other.scene_id).has("rooms")
    obj = next(s for s in src.samples() if s.task == "classification")
    assert src.scene(obj.scene_id).objects == []  # object clouds still have no scene list
    _graph(data / "scene_graph" / f"{house}.json", [{"id": 4, "category": "lamp", "bbox": [0, 1, 0, 0.3, 2]}])
    with pytest.raises(InputError) as e:
        make_source("3dbench", data=str(data)).scene(nav.scene_id).objects
    assert f"{house}.json" in str(e.value) and "objects[0].bbox" in str(e.value)
    _graph(data / "scene_graph" / f"{house}.json", [{"id": "4", "category": "lamp", "bbox": [0, 1, 0, 0.3, 2, 1]}])
    with pytest.raises(InputError, match=r"objects\[0\]"):
        make_source("3dbench", data=str(data)).scene(nav.scene_id).objects
