"""ScanNet-layout scene I/O (``scenebench.io.scannet``): box tables from points, axis alignment,
the vertex / label arrays, and errors that name the file."""

from __future__ import annotations

import numpy as np
import pytest

from scenebench.errors import InputError
from scenebench.io.scannet import (
    align_points,
    boxes_from_points,
    copy_scene,
    load_boxes,
    load_instance_labels,
    load_minmax_boxes,
    load_vertices,
    minmax_of_corners,
    nyu40class,
    read_axis_alignment,
    write_axis_alignment,
    write_scene,
)


def test_boxes_from_points_are_min_max_per_object_in_the_given_row_order():
    pts = np.array([[0, 0, 0], [2, 1, 4], [5, 5, 5], [7, 9, 5], [1, 1, 1]], float)
    ids = np.array([3, 3, 0, 0, -1])  # the last point is unannotated
    table = boxes_from_points(pts, ids, nyu40=[5, 7, 40], object_ids=[3, 0, 8])  # object 8 has no points
    # object 3: min (0,0,0) max (2,1,4) -> centre (1, .5, 2), size (2, 1, 4); object 0: (6, 7, 5), (2, 4, 0)
    assert table.tolist() == [[1, 0.5, 2, 2, 1, 4, 5, 3], [6, 7, 5, 2, 4, 0, 7, 0], [0, 0, 0, 0, 0, 0, 40, 8]]


def test_axis_alignment_read_applied_and_absent(tmp_path):
    # a quarter turn about z then a shift of (1, 2, 3): (1, 0, 0) -> (0, 1, 0) + shift = (1, 3, 3)
    m = np.array([[0, -1, 0, 1], [1, 0, 0, 2], [0, 0, 1, 3], [0, 0, 0, 1]], float)
    meta = write_axis_alignment(tmp_path / "scene0000_00.txt", m, extra=["colorHeight = 968"])
    got = read_axis_alignment(meta)
    assert got is not None and got.tolist() == m.tolist()
    pts = np.array([[1.0, 0.0, 0.0, 200, 100, 50]])
    assert align_points(pts, got).tolist() == [[1.0, 3.0, 3.0, 200, 100, 50]]  # colours kept
    assert align_points(pts, None).tolist() == pts.tolist()
    test_scan = write_axis_alignment(tmp_path / "scene0707_00.txt", None, extra=["colorHeight = 968"])
    assert read_axis_alignment(test_scan) is None  # test scans keep the raw frame
    (tmp_path / "bad.txt").write_text("sceneType = x\naxisAlignment = 1 0 0\n")
    with pytest.raises(InputError, match=r"bad\.txt.*line 2.*axisAlignment"):
        read_axis_alignment(tmp_path / "bad.txt")


def test_scene_arrays_round_trip_and_bad_shapes_name_the_file(tmp_path):
    table = np.array([[1, 2, 3, 1, 1, 1, 5, 0]], float)
    vert = np.array([[0, 0, 0, 255, 0, 0], [1, 1, 1, 0, 255, 0]], float)
    write_scene(tmp_path, "scene0001_00", table, vert, np.array([1, 0]))
    assert load_boxes(tmp_path, "scene0001_00").tolist() == table.tolist()
    assert load_vertices(tmp_path, "scene0001_00").tolist() == vert.tolist()
    assert load_instance_labels(tmp_path, "scene0001_00", 2).tolist() == [0, -1]
    with pytest.raises(InputError, match=r"scene0001_00_ins_label\.npy.*expected \(3,\) integers"):
        load_instance_labels(tmp_path, "scene0001_00", 3)
    write_scene(tmp_path, "scene0002_00", table, vert[:, :3], np.array([1, 0]))
    with pytest.raises(InputError, match=r"scene0002_00_aligned_vert\.npy: vertex array has shape \(2, 3\)"):
        load_vertices(tmp_path, "scene0002_00")


def test_nyu40_class_is_the_longest_class_name_a_raw_label_ends_with():
    assert [nyu40class(x) for x in ("side table", "shower curtain", "curtain", "lamp")] == [
        "table",
        "shower curtain",
        "curtain",
        "otherprop",
    ]


def test_minmax_boxes_corners_copies_and_the_scene_view(tmp_path):
    from scenebench.models.sources.base import scannet_scene

    # object 7: centre (1, 2, 3), size (2, 4, 6) -> min (0, 0, 0), max (2, 4, 6)
    pts = np.array([[0, 0, 0, 255, 0, 0], [2, 4, 6, 0, 0, 255], [9, 9, 9, 0, 0, 0]], np.float32)
    write_scene(tmp_path / "a", "scene0000_00", [[1, 2, 3, 2, 4, 6, 5, 7]], pts, np.array([8, 8, 0]))
    ids, boxes = load_minmax_boxes(tmp_path / "a", "scene0000_00")
    assert ids.tolist() == [7] and boxes.tolist() == [[0, 0, 0, 2, 4, 6]]
    (tmp_path / "b").mkdir()
    copies = copy_scene(tmp_path / "a", tmp_path / "b", "scene0000_00")
    assert [p.name for p in copies] == [f"scene0000_00_{k}.npy" for k in ("aligned_bbox", "aligned_vert", "ins_label")]
    view = scannet_scene(tmp_path / "b", "scene0000_00", {7: "chair"})
    assert view.get("colors")[0].tolist() == [1.0, 0.0, 0.0] and view.get("instance_ids").tolist() == [7, 7, -1]
    [obj] = view.get("objects")
    assert obj.label == "chair" and obj.box == [1.0, 2.0, 3.0, 2.0, 4.0, 6.0]
    corners = [[x, y, z] for x in (0, 2) for y in (0, 4) for z in (0, 6)]
    assert minmax_of_corners(corners, tmp_path / "p.json", where="record 0", field="bbox").tolist() == [0, 0, 0, 2, 4, 6]
    with pytest.raises(InputError, match=r"p\.json.*record 3.*bbox.*8 corners"):
        minmax_of_corners(corners[:7], tmp_path / "p.json", where="record 3", field="bbox")
