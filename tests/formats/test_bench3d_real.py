"""3DBench folders laid out as the released ``CreatGT.py`` writers produce them, through the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from scenebench.cli import main


def _cli(argv, capsys):
    try:
        main(argv)
        code = 0
    except SystemExit as e:
        code = e.code
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(autouse=True)
def wide(monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")


def _cloud(path, seed):
    rng = np.random.default_rng(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, np.concatenate([rng.uniform(-3, 3, (50, 3)), rng.uniform(0, 1, (50, 3))], 1).astype(np.float32))


def write_released(root, *, with_truth=True):
    """Task files in the released shapes: question_id from 1 in every file (so ids repeat across
    tasks), VisualGrounding_plus without question_id, scene text tasks with an int id and no truth."""
    root.mkdir(parents=True)
    for h in (460, 461):
        _cloud(root / "scene" / f"{h}.npy", h)
    _cloud(root / "Objects" / "460_chair0.npy", 1)
    cls = [
        {
            "question_id": 1,
            "pcl": "Objects/460_chair0.npy",
            "id": "460",
            "src_dataset": "Mydata",
            "gt_choice": 2,
            "gt_choices": ["cup", "sofa", "chair", "bed", "vase", "mug"],
            "sentences": " (C) chair",
            "query": "What's the 3D point cloud about? \n Options:  (A) cup (B) sofa (C) chair (D) bed (E) vase (F) mug",
        }
    ]
    cnt = [
        {
            "question_id": i + 1,
            "pcl": f"scene/{h}.npy",
            "id": str(h),
            "src_dataset": "Mydata",
            "gt_choice": i,
            "gt_choices": [1, 2, 3, 4, 5, 6],
            "sentences": f" ({'AB'[i]}) {i + 1}",
            "query": "How many chair are in the scene? \n Options:  (A) 1 (B) 2 (C) 3 (D) 4 (E) 5 (F) 6",
        }
        for i, h in enumerate((460, 461))
    ]
    vgp = [
        {
            "pcl": "scene/460.npy",
            "id": "460",
            "query": "Where is the soft blue seat by the window?",
            "obj_num": 1,
            "bbox": [2.0, 0.5, 2.0, 1.0, 1.0, 1.0],
        },
        {
            "pcl": "scene/461.npy",
            "id": "461",
            "query": "Where is the lamp next to the bed?",
            "obj_num": 1,
            "bbox": [-1.0, 1.2, 0.5, 0.3, 0.6, 0.3],
        },
    ]
    cap = [{"query": "Describe the scene.", "task_type": "SCaption", "id": 460, "pcl": "scene/460.npy", "src_dataset": "Mydata"}]
    svqa = [
        {
            "query": "Generate 5 round Q&A conversation of the given point cloud.",
            "task_type": "SVQA",
            "id": 461,
            "pcl": "scene/461.npy",
            "src_dataset": "Mydata",
        }
    ]
    rel = [
        {
            "query": "Reason about the relations of the objects.",
            "task_type": "Relation",
            "id": 460,
            "pcl": "scene/460.npy",
            "src_dataset": "Mydata",
        }
    ]
    for name, recs in (
        ("Classification", cls),
        ("Counting", cnt),
        ("VisualGrounding_plus", vgp),
        ("SCaption", cap),
        ("SVQA", svqa),
        ("Relation", rel),
    ):
        (root / f"{name}.json").write_text(json.dumps(recs))
    if with_truth:
        (root / "houses").mkdir()
        for h, rooms in ((460, ["Kitchen", "LivingRoom"]), (461, ["Bedroom"])):
            (root / "houses" / f"({h}).json").write_text(
                json.dumps(
                    {
                        "id": f"house_{h}",
                        "rooms": [{"roomType": r, "floorPolygon": []} for r in rooms],
                        "objects": [{"assetId": "Fridge_1", "children": []}],
                    }
                )
            )
        gt = [[] for _ in range(462)]
        gt[460], gt[461] = ["fridge", "sofa", "chair"], {"bed": 1, "desklamp": 2}
        (root / "GT").mkdir()
        (root / "GT" / "Classification.json").write_text(json.dumps(gt))
    return root


def oracle_answers(path):
    lines = [
        {"question_id": 1, "task": "Classification", "text": "The answer is (C) chair"},
        {"question_id": 1, "task": "Counting", "text": "(A) 1"},  # the same question_id as Classification's
        {"question_id": 2, "task": "Counting", "text": "(B) 2"},
        {"question_id": "row0", "task": "VisualGrounding_plus", "text": "[2.0, 0.5, 2.0]"},
        {"question_id": "row1", "task": "VisualGrounding_plus", "text": "The centre is [-1.0, 1.2, 0.5]."},
        {"question_id": "row0", "task": "SCaption", "text": "A kitchen with a fridge next to a living room with a sofa."},
        {"question_id": "row0", "task": "SVQA", "text": "Q: what is in the bedroom? A: a bed and a desk lamp."},
        {"question_id": "row0", "task": "Relation", "text": "The chair is next to the sofa."},
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def test_released_layout_validates_and_lists_ids(tmp_path, capsys):
    root = write_released(tmp_path / "bench")
    code, out, err = _cli(["validate", "3dbench", "--data", str(root), "--predictions", str(oracle_answers(tmp_path / "a.jsonl"))], capsys)
    assert code == 0, err
    assert "counting: 2 records" in out and "visual_grounding_plus: 2 records" in out and "answers: 8 paired, 0 missing" in out
    code, out, err = _cli(["validate", "3dbench", "--data", str(root), "--list-ids"], capsys)
    assert code == 0, err
    rows = [line.split("\t") for line in out.strip().splitlines()]
    assert rows[0] == ["task", "question_id", "derived", "row", "house", "pcl"]
    assert ["classification", "1", "no", "0", "460", "Objects/460_chair0.npy"] in rows
    assert ["counting", "1", "no", "0", "460", "scene/460.npy"] in rows
    assert ["visual_grounding_plus", "row1", "yes", "1", "461", "scene/461.npy"] in rows
    assert ["scene_qa", "row0", "yes", "0", "461", "scene/461.npy"] in rows


def test_scene_text_truth_comes_from_house_json_and_classification_gt(tmp_path):
    from scenebench.benchmarks.bench3d.loader import load_bench

    b = load_bench(write_released(tmp_path / "bench"))
    cap, svqa, rel = b.records["scene_caption"][0], b.records["scene_qa"][0], b.records["relation"][0]
    assert cap.house == "460" and cap.gt["rooms"] == ["Kitchen", "LivingRoom"] and cap.gt["objects"] == ["fridge", "sofa", "chair"]
    assert svqa.gt["rooms"] == ["Bedroom"] and svqa.gt["objects"] == ["bed", "desklamp"]  # {name: count} entry
    assert rel.gt["objects"] == ["fridge", "sofa", "chair"] and rel.gt["references"] is None
    vgp = b.records["visual_grounding_plus"][1]
    assert (
        vgp.question_id == "row1" and vgp.key == "visual_grounding_plus:row1" and vgp.gt["box"].tolist() == [-1.0, 1.2, 0.5, 0.3, 0.6, 0.3]
    )
    assert vgp.gt["obj_num"] == 1
    assert set(b.metadata) == {"house:460", "house:461", "objects_gt"}


def test_oracle_scores_100_through_score_and_run(tmp_path, capsys):
    root = write_released(tmp_path / "bench")
    code, out, err = _cli(
        [
            "score",
            "3dbench",
            "--data",
            str(root),
            "--predictions",
            str(oracle_answers(tmp_path / "a.jsonl")),
            "--out",
            str(tmp_path / "scored"),
            "--bootstrap",
            "0",
        ],
        capsys,
    )
    assert code == 0, err
    res = json.loads((tmp_path / "scored" / "results.json").read_text())
    by = res["metrics"]["by_task"]
    assert by["classification"]["accuracy"] == 100.0 and by["counting"]["accuracy"] == 100.0
    assert by["visual_grounding_plus"]["in_box"] == 100.0 and by["visual_grounding_plus"]["within_1m"] == 100.0
    assert res["counts"]["n_samples"] == 8 and res["counts"]["n_missing"] == 0
    assert {k for k in res["inputs"] if k.startswith("meta:")} == {"meta:house:460", "meta:house:461", "meta:objects_gt"}
    code, _out, err = _cli(
        [
            "run",
            "3dbench",
            "--data",
            str(root),
            "--model",
            "oracle",
            "-o",
            str(tmp_path / "run"),
            "--tasks",
            "Classification,Counting,VisualGrounding_plus",
            "--no-progress",
        ],
        capsys,
    )
    assert code == 0, err
    res = json.loads((tmp_path / "run" / "results.json").read_text())
    by = res["metrics"]["by_task"]
    assert (
        by["classification"]["accuracy"] == 100.0 and by["counting"]["accuracy"] == 100.0 and by["visual_grounding_plus"]["in_box"] == 100.0
    )
    answers = [json.loads(x) for x in (tmp_path / "run" / "answers.jsonl").read_text().splitlines()]
    assert {(a["task"], a["question_id"]) for a in answers} == {
        ("classification", "1"),
        ("counting", "1"),
        ("counting", "2"),
        ("visual_grounding_plus", "row0"),
        ("visual_grounding_plus", "row1"),
    }


def test_houses_option_names_where_the_house_jsons_are(tmp_path, capsys):
    root = write_released(tmp_path / "bench")
    (root / "houses").rename(tmp_path / "myjson")
    code, out, err = _cli(["validate", "3dbench", "--data", str(root)], capsys)
    assert code != 0 and "SCaption.json" in err and "record 0" in err and "field 'rooms'" in err and "--houses" in err
    code, _out, err = _cli(["validate", "3dbench", "--data", str(root), "--houses", str(tmp_path / "myjson")], capsys)
    assert code == 0, err


def test_bad_variants_give_one_clear_error(tmp_path, capsys):
    root = write_released(tmp_path / "bench")
    a = tmp_path / "a.jsonl"
    a.write_text(json.dumps({"question_id": 2, "task": "Classification", "text": "(C)"}) + "\n")
    code, out, err = _cli(["validate", "3dbench", "--data", str(root), "--predictions", str(a), "--allow-missing"], capsys)
    assert (
        code != 0
        and "line 1" in err
        and "question_id 2 " not in err
        and "'2' is not a classification record" in err
        and "question_id of counting" in err
    )
    recs = json.loads((root / "VisualGrounding_plus.json").read_text())
    recs[1]["bbox"] = [1.0, 2.0]
    (root / "VisualGrounding_plus.json").write_text(json.dumps(recs))
    code, out, err = _cli(["validate", "3dbench", "--data", str(root)], capsys)
    assert code != 0 and "VisualGrounding_plus.json" in err and "record 1 (derived id 'row1')" in err and "field 'bbox'" in err
    gt = json.loads((root / "GT" / "Classification.json").read_text())
    gt[460] = [1, 2]
    recs[1]["bbox"] = [1.0, 2.0, 3.0, 1.0, 1.0, 1.0]
    (root / "VisualGrounding_plus.json").write_text(json.dumps(recs))
    (root / "GT" / "Classification.json").write_text(json.dumps(gt))
    code, _out, err = _cli(["validate", "3dbench", "--data", str(root)], capsys)
    assert code != 0 and "Classification.json" in err and "house 460" in err
