"""Generated 3RScan: the evaluated split's answers live in OUT/gt/3rscan, never in the model-facing folder
(issue 25 item 1). Before, a validation rescan's labelled PLY and semseg.v2.json carried the reference's
instance ids, so reading them gave every changed object's pose (a probe reached 48-58% R@0.1m,10deg)."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from typer.testing import CliRunner

from scenebench.benchmarks.rio.loader import ThreeRScan
from scenebench.benchmarks.rio.scans import obj_points
from scenebench.benchmarks.rio.source import RIOSource
from scenebench.benchmarks.rio.writer import OBJ_NAME, PLY_NAME, SEGS_NAME, SEMSEG_NAME
from scenebench.cli import build_app
from scenebench.errors import InputError

LABEL_FILES = (PLY_NAME, SEMSEG_NAME, SEGS_NAME)


def _index(path):
    return {sc["reference"]: sc for sc in json.loads(path.read_text())}


def test_evaluated_rescans_keep_geometry_only_and_the_tree_has_the_labels(tiny_run):
    out, _ = tiny_run
    data, gt = out / "3rscan", out / "gt" / "3rscan"
    public, full = _index(data / "3RScan.json"), _index(gt / "3RScan.json")
    assert public.keys() == full.keys()
    objects = {e["scan"] for e in json.loads((data / "objects.json").read_text())["scans"]}
    objects_gt = {e["scan"] for e in json.loads((gt / "objects.json").read_text())["scans"]}
    n_hidden = 0
    for ref, sc in full.items():
        pub = public[ref]
        assert (data / ref / PLY_NAME).is_file() and not (gt / ref).exists()  # a reference scan is input
        for r, p in zip(sc["scans"], pub["scans"]):
            sid = r["reference"]
            assert p["transform"] == r["transform"]  # the frame alignment is input
            if sc["type"] != "validation":
                assert p == r and all((data / sid / f).is_file() for f in LABEL_FILES) and not (gt / sid).exists()
                assert sid in objects
                continue
            n_hidden += 1
            assert p["rigid"] == p["removed"] == p["nonrigid"] == [] and r["rigid"]
            assert sorted(x.name for x in (data / sid).iterdir()) == [OBJ_NAME]
            assert all((gt / sid / f).is_file() for f in LABEL_FILES)
            assert sid not in objects and sid in objects_gt
            # the same cloud as the labelled PLY, without its ids
            xyz, rgb, ids = obj_points(data / sid / OBJ_NAME)
            ref_xyz, ref_rgb, ref_ids = _ply(gt / sid / PLY_NAME)
            assert np.abs(xyz - ref_xyz).max() < 1e-5 and np.array_equal(rgb, ref_rgb) and not ids.any() and ref_ids.any()
    assert n_hidden > 0


def _ply(path):
    from plyfile import PlyData

    v = PlyData.read(str(path))["vertex"].data
    return (
        np.stack([v["x"], v["y"], v["z"]], 1).astype(float),
        np.stack([v["red"], v["green"], v["blue"]], 1).astype(np.uint8),
        np.asarray(v["objectId"]),
    )


def test_the_run_source_asks_the_evaluated_split_and_shows_only_scan_folder_points(tiny_run):
    out, _ = tiny_run
    src = RIOSource(str(out / "3rscan"))
    assert src.data.gt_root == out / "gt" / "3rscan" and src.samples()
    sid = src.rescans[0].scan_id
    view = src.scene(sid)
    xyz, rgb, _ = obj_points(out / "3rscan" / sid / OBJ_NAME)
    T = src.rescans[0].transform
    assert np.allclose(view.get("points"), xyz @ T[:3, :3].T + T[:3, 3])
    assert np.allclose(view.get("colors"), rgb / 255.0)
    assert not any("instance" in k and "reference" not in k for k in view.fields())


app = build_app()


def _recall(folder):
    return json.loads((folder / "results.json").read_text())["metrics"]["overall"]["recall_10cm_10deg"]


@pytest.mark.slow
def test_run_and_score_oracle_100_with_the_tree_found_or_given(tiny_run, tmp_path):
    out, _ = tiny_run
    cli = CliRunner()
    res = cli.invoke(app, ["run", "rio", "--data", str(out / "3rscan"), "-m", "oracle", "-o", str(tmp_path / "run"), "--bootstrap", "20"])
    assert res.exit_code == 0, res.output
    assert _recall(tmp_path / "run") == 100.0
    preds = tmp_path / "run" / "rio_predictions.jsonl"
    res = cli.invoke(
        app, ["score", "rio", "--data", str(out / "3rscan"), "-p", str(preds), "-o", str(tmp_path / "s1"), "--bootstrap", "20"]
    )
    assert res.exit_code == 0, res.output
    assert _recall(tmp_path / "s1") == 100.0
    # the data folder copied away from its tree: refused with a clear message, accepted with --gt
    alone = tmp_path / "copy"
    shutil.copytree(out / "3rscan", alone / "3rscan")
    shutil.copytree(out / "gt" / "3rscan", tmp_path / "answers")
    res = cli.invoke(
        app,
        ["score", "rio", "--data", str(alone / "3rscan"), "--gt", str(tmp_path / "answers"), "-p", str(preds), "-o", str(tmp_path / "s2")],
    )
    assert res.exit_code == 0, res.output
    assert _recall(tmp_path / "s2") == 100.0


def test_generated_data_without_its_tree_is_refused(tiny_run, tmp_path):
    out, _ = tiny_run
    copy = tmp_path / "out"
    shutil.copytree(out / "3rscan", copy / "3rscan")
    shutil.copytree(out / ".houses", copy / ".houses")
    shutil.copy(out / "manifest.json", copy / "manifest.json")
    with pytest.raises(InputError, match="gt/3rscan"):
        ThreeRScan(copy / "3rscan")
    with pytest.raises(InputError, match="ground-truth folder does not exist"):
        ThreeRScan(out / "3rscan", gt=tmp_path / "nowhere")
