import json

import numpy as np
import pytest
from plyfile import PlyData

from scenebench.benchmarks.rio.writer import column_major, gravity_aligned_obb, write_index, write_scan


def _box_points(centre, size, yaw, n=200, seed=0):
    rng = np.random.default_rng(seed)
    local = (rng.random((n, 3)) - 0.5) * np.asarray(size)
    local[:8] = np.array([[sx, sy, sz] for sx in (-0.5, 0.5) for sy in (-0.5, 0.5) for sz in (-0.5, 0.5)]) * np.asarray(size)
    c, s = np.cos(yaw), np.sin(yaw)
    R = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    return local @ R.T + np.asarray(centre)


def test_obb_recovers_rotated_box_centre_and_extents():
    # A regular grid is exactly symmetric, so the x-y PCA axes are the box's own axes.
    g = np.stack(np.meshgrid(np.linspace(-1, 1, 5), np.linspace(-0.25, 0.25, 4), np.linspace(-0.5, 0.5, 3)), -1).reshape(-1, 3)
    c, s = np.cos(np.deg2rad(30)), np.sin(np.deg2rad(30))
    pts = g @ np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]).T + [1.0, 2.0, 0.5]
    obb = gravity_aligned_obb(pts)
    assert np.allclose(obb["centroid"], [1.0, 2.0, 0.5], atol=1e-9)
    assert np.allclose(obb["axesLengths"], [2.0, 0.5, 1.0], atol=1e-9)
    axes = np.array(obb["normalizedAxes"]).reshape(3, 3)
    assert np.allclose(axes @ axes.T, np.eye(3))
    assert np.allclose(axes[2], [0, 0, 1])
    assert abs(abs(axes[0] @ [np.cos(np.deg2rad(30)), np.sin(np.deg2rad(30)), 0]) - 1) < 1e-9


def test_write_scan_files_follow_3rscan_layout(tmp_path):
    a = _box_points([0, 0, 0.5], [1, 1, 1], 0.0, n=50)
    b = _box_points([3, 0, 0.4], [1.2, 0.6, 0.8], 0.3, n=40, seed=1)
    floor = np.c_[np.random.default_rng(2).random((30, 2)) * 4, np.zeros(30)]
    v = np.vstack([a, b, floor])
    ids = np.r_[np.full(50, 1), np.full(40, 2), np.zeros(30, int)]
    colors = np.full((len(v), 3), 128, np.uint8)
    faces = np.array([[0, 1, 2], [3, 4, 5]])
    insts = [{"id": 1, "global_id": 7, "label": "table", "nyu40": 7, "eigen13": 6, "rio27": 9}, {"id": 2, "global_id": 5, "label": "chair"}]
    paths = write_scan(tmp_path / "scanA", v, colors, faces, ids, insts)
    ply = PlyData.read(str(paths["ply"]))
    assert ply.text
    names = [p.name for p in ply["vertex"].properties]
    assert names == ["x", "y", "z", "red", "green", "blue", "objectId", "globalId", "NYU40", "Eigen13", "RIO27"]
    vert = ply["vertex"].data
    assert np.array_equal(vert["objectId"], ids)
    assert set(vert["globalId"][ids == 1]) == {7} and set(vert["NYU40"][ids == 1]) == {7}
    assert set(vert["globalId"][ids == 0]) == {0}
    assert len(ply["face"].data) == 2
    obj_lines = paths["obj"].read_text().splitlines()
    assert sum(line.startswith("v ") for line in obj_lines) == len(v)
    assert "f 1 2 3" in obj_lines
    sem = json.loads(paths["semseg"].read_text())
    g = {x["id"]: x for x in sem["segGroups"]}
    assert g[1]["label"] == "table" and g[1]["objectId"] == 1 and g[1]["segments"] == [1]
    assert np.allclose(g[2]["obb"]["centroid"], [3, 0, 0.4], atol=1e-6)
    segs = json.loads(paths["segs"].read_text())
    assert segs["segIndices"] == ids.tolist()


def test_write_scan_rejects_inconsistent_input(tmp_path):
    v = np.zeros((3, 3))
    with pytest.raises(ValueError, match="no entry"):
        write_scan(tmp_path / "s", v, np.zeros((3, 3), np.uint8), None, np.array([0, 1, 2]), [{"id": 1, "global_id": 1, "label": "x"}])
    with pytest.raises(ValueError, match="colors"):
        write_scan(tmp_path / "s", v, np.zeros((2, 3), np.uint8), None, np.zeros(3, int), [])


@pytest.mark.parametrize("units,scale", [("m", 1.0), ("mm", 1000.0)])
def test_write_index_is_column_major_with_units(tmp_path, units, scale):
    T = np.eye(4)
    T[:3, :3] = [[0, -1, 0], [1, 0, 0], [0, 0, 1]]
    T[:3, 3] = [0.5, -1.25, 0.1]
    scenes = [
        {
            "reference": "ref",
            "type": "validation",
            "ambiguity": [[{"instance_source": 3, "instance_target": 4, "transform": T}]],
            "scans": [
                {
                    "reference": "res",
                    "transform": T,
                    "rigid": [{"instance_reference": 2, "instance_rescan": 2, "symmetry": 1, "transform": T}],
                    "removed": [5],
                    "nonrigid": [6],
                }
            ],
        }
    ]
    paths = write_index(tmp_path, scenes, {"ref": [{"id": 2, "global_id": 9, "label": "table", "symmetry": 1}]}, units=units)
    idx = json.loads(paths["index"].read_text())
    flat = idx[0]["scans"][0]["rigid"][0]["transform"]
    assert len(flat) == 16
    # column-major: the translation is the last column, i.e. entries 12..14
    assert flat[12:15] == pytest.approx([0.5 * scale, -1.25 * scale, 0.1 * scale])
    assert flat[15] == 1.0 and flat[3] == 0.0
    # R[1,0] = 1 sits at column 0, row 1
    assert flat[1] == 1.0 and flat[4] == -1.0
    assert column_major(T, scale) == flat
    assert idx[0]["scans"][0]["removed"] == [5] and idx[0]["scans"][0]["nonrigid"] == [6]
    assert idx[0]["ambiguity"][0][0]["instance_target"] == 4
    objs = json.loads(paths["objects"].read_text())
    assert objs["scans"][0]["objects"][0]["id"] == "2" and objs["scans"][0]["objects"][0]["symmetry"] == 1
    with pytest.raises(ValueError, match="units"):
        write_index(tmp_path, scenes, {}, units="cm")
