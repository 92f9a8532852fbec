"""A scan written with ``labels_dir`` (the evaluated rescans of generated data): labels in the ground-truth
tree, geometry with colours in the scan folder; released-shape folders (no tree) read as before."""

from __future__ import annotations

import numpy as np
import pytest

from scenebench.benchmarks.rio.loader import ThreeRScan, ground_truth_root
from scenebench.benchmarks.rio.scans import obj_points
from scenebench.benchmarks.rio.writer import OBJ_NAME, PLY_NAME, SEGS_NAME, SEMSEG_NAME, write_index, write_scan
from scenebench.errors import InputError


def _scan(seed=0, n=30):
    rng = np.random.default_rng(seed)
    v = rng.random((n, 3)) * 2
    colors = rng.integers(0, 256, (n, 3)).astype(np.uint8)
    ids = np.r_[np.full(n // 2, 1), np.full(n - n // 2, 2)]
    return v, colors, ids, [{"id": 1, "global_id": 3, "label": "chair"}, {"id": 2, "global_id": 4, "label": "table"}]


def test_labels_dir_splits_labels_from_coloured_geometry(tmp_path):
    v, c, ids, inst = _scan()
    write_scan(tmp_path / "plain" / "s", v, c, None, ids, inst)
    write_scan(tmp_path / "data" / "s", v, c, None, ids, inst, labels_dir=tmp_path / "gt" / "s")
    assert sorted(p.name for p in (tmp_path / "data" / "s").iterdir()) == [OBJ_NAME]
    for name in (PLY_NAME, SEMSEG_NAME, SEGS_NAME):  # the label files are the same bytes, elsewhere
        assert (tmp_path / "gt" / "s" / name).read_bytes() == (tmp_path / "plain" / "s" / name).read_bytes()
    assert "v %.6f %.6f %.6f\n" % tuple(v[0]) in (tmp_path / "plain" / "s" / OBJ_NAME).read_text()  # released shape unchanged
    xyz, rgb, got = obj_points(tmp_path / "data" / "s" / OBJ_NAME)
    assert np.abs(xyz - v).max() <= 5e-7 and np.array_equal(rgb, c) and not got.any()
    xyz3, rgb3, _ = obj_points(tmp_path / "plain" / "s" / OBJ_NAME)  # no colours: grey
    assert np.abs(xyz3 - v).max() <= 5e-7 and (rgb3 == 128).all()


def test_a_tree_supplies_index_labels_and_only_scan_folder_points(tmp_path):
    v, c, ids, inst = _scan()
    data, gt = tmp_path / "3rscan", tmp_path / "gt" / "3rscan"
    write_scan(data / "ref", v, c, None, ids, inst)
    write_scan(data / "res", v + [0.5, 0, 0], c, None, ids, inst, labels_dir=gt / "res")
    m = np.eye(4)
    m[0, 3] = 0.5
    scene = {
        "reference": "ref",
        "type": "validation",
        "scans": [{"reference": "res", "rigid": [{"instance_reference": 1, "transform": m}]}],
    }
    write_index(data, [{**scene, "scans": [{"reference": "res", "rigid": []}]}], {"ref": inst})
    write_index(gt, [scene], {"ref": inst, "res": inst})
    assert ground_truth_root(data) == gt
    d = ThreeRScan(data)
    assert d.index_path == gt / "3RScan.json" and d.label("res", 2) == "table"
    (g,) = d.ground_truth(d.rescans["res"])
    assert g.instance == 1 and np.allclose(g.pose, m)
    xyz, rgb, got = d.points("res")  # the model-facing geometry, no ids
    assert np.abs(xyz - (v + [0.5, 0, 0])).max() <= 5e-7 and np.array_equal(rgb, c) and not got.any()
    assert d.roots() == {"data_root": {"path": str(data)}, "gt_root": {"path": str(gt)}}
    fp = d.scan_files_fingerprint([d.rescans["res"]])
    assert fp["n_files"] == 4  # semseg + PLY of both scans, the rescan's from the tree


def test_without_a_tree_nothing_changes(tmp_path):
    v, c, ids, inst = _scan()
    write_scan(tmp_path / "3rscan" / "ref", v, c, None, ids, inst)
    write_index(tmp_path / "3rscan", [{"reference": "ref", "type": "validation", "scans": []}], {"ref": inst})
    assert ground_truth_root(tmp_path / "3rscan") is None
    d = ThreeRScan(tmp_path / "3rscan")
    assert d.gt_root is None and d.roots() == {} and d.index_path == tmp_path / "3rscan" / "3RScan.json"


def test_bad_vertex_lines_name_the_file(tmp_path):
    p = tmp_path / OBJ_NAME
    p.write_text("v 0 0 0 1 1 1\nv 1 1 1\n")
    with pytest.raises(InputError, match=OBJ_NAME):
        obj_points(p)
    p.write_text("v 0 0 x\n")
    with pytest.raises(InputError, match="not a number"):
        obj_points(p)
