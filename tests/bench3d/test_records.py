import json

import numpy as np
import pytest
from tests.bench3d.fixtures import make_bench, records_for

from scenebench.benchmarks.bench3d.loader import check_point_clouds, load_bench
from scenebench.benchmarks.bench3d.records import validate_record
from scenebench.benchmarks.bench3d.tasks import TASK_FILES, TASKS, parse_task_list, task_key
from scenebench.benchmarks.bench3d.writer import write_task
from scenebench.errors import InputError


def test_every_task_roundtrips_through_writer_and_loader(tmp_path):
    make_bench(tmp_path, list(TASKS))
    bench = load_bench(tmp_path)
    assert set(bench.records) == set(TASKS)
    det = bench.records["detection"][0]
    assert det.gt["labels"] == ["chair", "chair", "sofa"]  # {name, BoundingBox} and {label, bbox} both read
    assert det.gt["boxes"].shape == (3, 6)
    assert bench.records["navigation"][0].gt["positions"].shape == (4, 2)
    assert check_point_clouds(bench) == []


def test_test_prefix_is_accepted_and_both_names_refused(tmp_path):
    make_bench(tmp_path, ["counting"], prefix="Test_")
    assert load_bench(tmp_path).files["counting"].name == "Test_Counting.json"
    write_task(tmp_path, "Counting", records_for("counting"))
    with pytest.raises(InputError, match="both"):
        load_bench(tmp_path)


def test_task_names():
    assert task_key("SVQA") == "scene_qa" and task_key("Test_DescriptionObj") == "object_caption"
    assert TASK_FILES["relation"] == "Relation.json"
    assert parse_task_list("counting, Navigation") == ["counting", "navigation"]
    with pytest.raises(ValueError, match="unknown 3DBench task 'foo'"):
        parse_task_list("foo")


@pytest.mark.parametrize(
    ("task", "patch", "field"),
    [
        ("classification", {"gt_choice": 6}, "gt_choice"),
        ("classification", {"gt_choice": True}, "gt_choice"),
        ("counting", {"gt_choices": [1, "two", 3]}, "gt_choices"),
        ("visual_grounding", {"object": [1, 2, 3]}, "object"),
        ("visual_grounding", {"object": [1, 2, 3, 4, 5, "x"]}, "object"),
        ("detection", {"object": [{"name": "chair", "BoundingBox": [1, 2]}]}, "object[0].BoundingBox"),
        ("detection", {"object": [{"label": "", "bbox": [1, 2, 3, 4, 5, 6]}]}, "object[0].label"),
        ("navigation", {"positions": []}, "positions"),
        ("navigation", {"positions": [[0, 0], [1]]}, "positions[1]"),
        ("scene_caption", {"rooms": "Kitchen"}, "rooms"),
        ("object_caption", {"reference": 3}, "reference"),
        ("counting", {"question_id": [1]}, "question_id"),
        ("counting", {"pcl": 5}, "pcl"),
    ],
)
def test_bad_records_name_file_record_and_field(tmp_path, task, patch, field):
    rec = {**records_for(task)[0], **patch}
    with pytest.raises(InputError) as ei:
        write_task(tmp_path, task, [rec])
    msg = str(ei.value)
    assert f"field '{field}'" in msg and "record 0" in msg and TASKS[task].filename in msg


def test_duplicate_ids_refused_within_a_task_but_repeat_across_tasks(tmp_path):
    recs = records_for("counting")
    with pytest.raises(InputError, match="repeats record 0"):
        write_task(tmp_path, "counting", [recs[0], recs[0]])
    write_task(tmp_path, "counting", recs)
    other = [{**records_for("classification")[0], "question_id": recs[0]["question_id"]}]
    write_task(tmp_path, "classification", other)
    bench = load_bench(tmp_path)  # as released: every task file numbers its questions from 1
    keys = [r.key for r in bench.all_records()]
    assert (
        len(set(keys)) == len(keys) and f"classification:{recs[0]['question_id']}" in keys and f"counting:{recs[0]['question_id']}" in keys
    )


def test_bad_json_and_wrong_shapes(tmp_path):
    (tmp_path / "Counting.json").write_text("[{")
    with pytest.raises(InputError, match="invalid JSON"):
        load_bench(tmp_path)
    (tmp_path / "Counting.json").write_text(json.dumps({"a": 1}))
    with pytest.raises(InputError, match="holds a dict"):
        load_bench(tmp_path)
    (tmp_path / "Counting.json").unlink()
    with pytest.raises(InputError, match="no 3DBench task file"):
        load_bench(tmp_path)
    with pytest.raises(InputError, match="does not exist"):
        load_bench(tmp_path / "missing")


def test_point_cloud_problems_are_listed(tmp_path):
    make_bench(tmp_path, ["counting"])
    np.save(tmp_path / "pcl/460.npy", np.zeros((5, 3), np.float32))
    probs = check_point_clouds(load_bench(tmp_path))
    assert probs and "(N, 6)" in probs[0] and "field 'pcl'" in probs[0]


def test_validate_record_returns_typed_fields():
    r = validate_record("counting", records_for("counting")[0])
    assert r.gt["choices"] == ["1", "2", "3", "4", "5", "12"] and r.house == "460"


def test_every_metric_card_named_in_info_exists():
    from pathlib import Path

    from scenebench.benchmarks.bench3d.info import INFO

    root = Path(__file__).resolve().parents[2]
    for m in INFO.metrics:
        assert (root / m.card).is_file(), m.card


def test_every_test_named_in_a_3dbench_metric_card_exists():
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    cards = sorted((root / "docs" / "metrics").glob("bench3d_*.md"))
    assert len(cards) >= 15
    for card in cards:
        text = card.read_text()
        refs = re.findall(r"`(tests/[\w/]+\.py)::(\w+)", text) + [
            (prev, name)
            for prev, names in re.findall(r"`(tests/[\w/]+\.py)::\w+`((?:, `::\w+`)+)", text)
            for name in re.findall(r"::(\w+)", names)
        ]
        assert refs, card.name
        for path, name in refs:
            src = (root / path).read_text()
            assert re.search(rf"^\s*def {name}\(", src, re.M), f"{card.name}: {path}::{name}"
