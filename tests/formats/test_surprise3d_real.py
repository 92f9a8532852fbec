"""SURPRISE3D files laid out as the released tools write them, through the CLI."""

from __future__ import annotations

import json
import logging

import numpy as np
import pytest

from scenebench.cli import main

from .test_pth_reader import official_scene

torch = pytest.importorskip("torch", reason="needs the torch extra to write real .pth files")
pytestmark = pytest.mark.torch


def _cli(argv, capsys):
    try:
        main(argv)
        code = 0
    except SystemExit as e:
        code = e.code
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def real_layout(tmp_path):
    """surprise-3d-val.json + scenes/<id>.pth (torch.save of numpy arrays, colours in [0, 1], -100)
    + one older-style .npz scene (colours in [0, 255], -1 unannotated)."""
    root = tmp_path / "data"
    (root / "scenes").mkdir(parents=True)
    torch.save(official_scene(), root / "scenes" / "0a5c013435.pth")
    old = official_scene()
    np.savez(
        root / "scenes" / "1b2c3d4e5f.npz",
        sampled_coords=old["sampled_coords"],
        sampled_colors=old["sampled_colors"] * 255.0,
        sampled_instance_anno_id=np.where(old["sampled_instance_anno_id"] < 0, -1, old["sampled_instance_anno_id"]).astype(np.int32),
    )
    ann = [
        {
            "scene_id": "0a5c013435",
            "object_id": [5],
            "description": "Where would you sit?",
            "object_name": ["chair"],
            "question_type": "hi",
        },
        {
            "scene_id": "0a5c013435",
            "object_id": ["5", "9"],
            "description": "What can hold both?",
            "object_name": [["chair"], ["table"]],
            "question_type": "cs",
        },
        {
            "scene_id": "0a5c013435",
            "object_id": 9,
            "ann_id": 0,
            "description": "The thing ahead of you.",
            "object_name": "table",
            "question_type": "first_view",
        },
        {
            "scene_id": "1b2c3d4e5f",
            "object_id": [9],
            "description": "The thing on your left.",
            "object_name": ["table"],
            "question_type": "first_view",
        },
    ]
    (root / "surprise-3d-val.json").write_text(json.dumps(ann))
    return root


def test_real_layout_validates_and_oracle_scores_100(real_layout, tmp_path, capsys, caplog, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")
    caplog.set_level(logging.INFO, logger="scenebench.surprise3d")
    code, out, err = _cli(
        ["validate", "surprise3d", "-a", str(real_layout / "surprise-3d-val.json"), "-s", str(real_layout / "scenes")], capsys
    )
    assert code == 0, err
    assert "4 samples in 2 scenes" in out and "empty ground-truth masks: 0" in out and "valid" in out
    assert "colours in [0, 1]: 1 scene" in out and "colours in [0, 255]: 1 scene" in out
    logged = caplog.text
    assert "0a5c013435.pth: sampled_colors in [0, 1]" in logged and "1b2c3d4e5f.npz: sampled_colors in [0, 255]" in logged
    code, out, err = _cli(
        ["run", "surprise3d", "--data", str(real_layout), "--model", "oracle", "-o", str(tmp_path / "run"), "--no-progress"], capsys
    )
    assert code == 0, err
    res = json.loads((tmp_path / "run" / "results.json").read_text())
    assert res["metrics"]["overall"] == {"mIoU": pytest.approx(100.0), "A25": 100.0, "A50": 100.0}
    assert res["counts"]["n_scored"] == 4 and res["counts"]["n_missing"] == 0


def test_models_see_colours_in_0_1_for_both_ranges(real_layout):
    from scenebench.benchmarks.surprise3d.source import Surprise3DSource

    src = Surprise3DSource(str(real_layout))
    a = np.asarray(src.scene("0a5c013435").get("colors"))
    b = np.asarray(src.scene("1b2c3d4e5f").get("colors"))
    assert a.max() <= 1.0 and np.allclose(a, official_scene()["sampled_colors"], atol=1e-6)
    assert np.allclose(a, b, atol=1e-6)  # the [0, 255] file gives the same colours
    assert np.array_equal(src.scene("0a5c013435").get("instance_ids"), [5, 5, -100, 9, 9, 9, -100])
    assert [o.instance_id for o in src.scene("1b2c3d4e5f").get("objects")] == [5, 9]  # -1 and -100 are no instance


def test_bad_variants_give_one_clear_error(real_layout, capsys):
    bad = json.loads((real_layout / "surprise-3d-val.json").read_text())
    bad[2]["object_id"] = "nine"
    (real_layout / "bad.json").write_text(json.dumps(bad))
    code, out, err = _cli(["validate", "surprise3d", "-a", str(real_layout / "bad.json")], capsys)
    assert code != 0 and "record 2" in err and "field 'object_id'" in err and "nine" in err
    d = official_scene()
    d["sampled_colors"] = d["sampled_colors"] * 300.0
    torch.save(d, real_layout / "scenes" / "0a5c013435.pth")
    code, _out, err = _cli(
        ["validate", "surprise3d", "-a", str(real_layout / "surprise-3d-val.json"), "-s", str(real_layout / "scenes")], capsys
    )
    assert code != 0 and "0a5c013435.pth" in err and "field 'sampled_colors'" in err and "[0, 1] or [0, 255]" in err
