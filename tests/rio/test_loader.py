import json
import shutil

import numpy as np
import pytest

from scenebench.benchmarks.rio.loader import ThreeRScan
from scenebench.errors import InputError, ScenebenchError

from .rooms import OBJECTS, REF, RESCAN_A, RESCAN_B, _centre


def _gt(data, rescan, scope="all"):
    return {g.instance: g for g in data.ground_truth(data.rescans[rescan], scope)}


@pytest.mark.parametrize("fixture", ["room_m", "room_mm"])
def test_ground_truth_poses_in_metres_for_both_unit_conventions(request, fixture):
    room = request.getfixturevalue(fixture)
    data = ThreeRScan(room.root)
    assert ("millimetres" if room.units == "mm" else "metres") in data.unit_decision
    assert "detected" in data.unit_decision
    for rescan, truth in room.truth.items():
        gt = _gt(data, rescan)
        for iid, T in truth.items():
            assert np.allclose(gt[iid].pose, T, atol=1e-9), (rescan, iid)
        assert np.allclose(data.rescans[rescan].transform, room.scan_transform[rescan], atol=1e-9)


def test_unit_override_is_recorded(room_mm):
    data = ThreeRScan(room_mm.root, units="m")
    assert "set by the user" in data.unit_decision
    # read as metres, the 0.6 m move of chair 4 becomes 600 m
    assert _gt(data, RESCAN_A)[4].pose[0, 3] > 100


def test_samples_moved_removed_nonrigid_symmetry_and_partners(room_m):
    data = ThreeRScan(room_m.root)
    a = _gt(data, RESCAN_A)
    assert 7 not in a  # removed: not in the rescan, not a sample
    assert a[8].excluded and "nonrigid" in a[8].excluded
    assert {i for i, g in a.items() if g.moved} == {3, 4, 5}
    assert a[3].symmetry_order == 2 and a[5].symmetry_order == 4 and a[4].symmetry_order == 1
    assert a[4].partners == [6] and a[6].partners == [4] and len(a[4].candidates) == 2
    b = _gt(data, RESCAN_B)
    assert set(b) == set(OBJECTS)
    assert {i for i, g in b.items() if g.moved} == {6}
    # static in B: symmetry comes from the scene's other rescan (table) or objects.json
    assert b[3].symmetry_order == 2 and b[5].symmetry_order == 4
    assert np.allclose(b[4].candidates[1], b[6].pose @ OBJECTS[6][3] @ np.linalg.inv(OBJECTS[4][3]))


def test_changed_scope_samples_are_the_rigid_and_nonrigid_entries_only(room_m):
    data = ThreeRScan(room_m.root)
    a = _gt(data, RESCAN_A, "changed")
    assert set(a) == {3, 4, 5, 8} and a[8].excluded and not any(a[i].excluded for i in (3, 4, 5))
    # chair 6 is static in A, so not a sample, but still chair 4's interchangeable partner
    assert a[4].partners == [6] and np.allclose(a[4].candidates[1], OBJECTS[6][3] @ np.linalg.inv(OBJECTS[4][3]))
    assert set(_gt(data, RESCAN_B, "changed")) == {6}
    with pytest.raises(InputError, match="scope"):
        data.ground_truth(data.rescans[RESCAN_A], "moved")


def test_centroid_is_obb_centre_and_loads_no_geometry(room_m, monkeypatch):
    import plyfile

    def boom(*a, **k):
        raise AssertionError("PLY read although every instance has an obb")

    monkeypatch.setattr(plyfile.PlyData, "read", boom)
    data = ThreeRScan(room_m.root)
    a = _gt(data, RESCAN_A)
    for iid in (3, 4, 5, 6):
        assert a[iid].centroid_source == "obb"
        assert np.allclose(a[iid].centroid, _centre(iid), atol=0.02)


def test_centroid_falls_back_to_vertex_mean_without_obb(room_m, tmp_path):
    root = tmp_path / "room"
    shutil.copytree(room_m.root, root)
    sem_path = root / REF / "semseg.v2.json"
    sem = json.loads(sem_path.read_text())
    for g in sem["segGroups"]:
        g.pop("obb")
    sem_path.write_text(json.dumps(sem))
    data = ThreeRScan(root)
    g = _gt(data, RESCAN_A)[5]
    xyz, _, ids = data.points(REF)
    assert g.centroid_source == "vertices"
    assert np.allclose(g.centroid, xyz[ids == 5].mean(axis=0))


def test_mesh_and_points_read_lazily(room_m):
    data = ThreeRScan(room_m.root)
    V, F = data.mesh(REF)
    xyz, rgb, ids = data.points(REF)
    assert V.shape == xyz.shape and F.shape == (0, 3)
    assert set(np.unique(ids)) == set(OBJECTS)


def test_splits(room_m):
    data = ThreeRScan(room_m.root)
    assert [r.scan_id for r in data.split_rescans("validation")] == [RESCAN_A, RESCAN_B]
    assert len(data.split_rescans("all")) == 2
    with pytest.raises(ScenebenchError, match="hidden ground truth"):
        data.split_rescans("test")
    with pytest.raises(ScenebenchError, match="no rescans in the 'train' split"):
        data.split_rescans("train")
    with pytest.raises(ScenebenchError, match="unknown split"):
        data.split_rescans("val")


def _write_index(room, tmp_path, mutate):
    root = tmp_path / "r"
    shutil.copytree(room.root, root)
    idx = json.loads((root / "3RScan.json").read_text())
    mutate(idx)
    (root / "3RScan.json").write_text(json.dumps(idx))
    return root


@pytest.mark.parametrize(
    "mutate,field,text",
    [
        (lambda idx: idx[0]["scans"][0]["rigid"][0].update(symmetry=5), "symmetry", "unknown symmetry code 5"),
        (lambda idx: idx[0]["scans"][0]["rigid"][0].update(transform=[1.0] * 15), "transform", "16 finite numbers"),
        (
            lambda idx: idx[0]["scans"][0]["rigid"][0].update(transform=[2.0] + [0.0] * 4 + [1.0] + [0.0] * 4 + [1.0] + [0.0] * 4 + [1.0]),
            "transform",
            "not a rigid transform",
        ),
        (lambda idx: idx[0].update(type="holdout"), "type", "holdout"),
        (lambda idx: idx[0]["scans"][0]["rigid"][0].update(instance_reference="x"), "instance_reference", "'x'"),
    ],
)
def test_bad_index_records_name_file_record_and_field(room_m, tmp_path, mutate, field, text):
    root = _write_index(room_m, tmp_path, mutate)
    with pytest.raises(InputError) as exc:
        ThreeRScan(root)
    msg = str(exc.value)
    assert "3RScan.json" in msg and f"field '{field}'" in msg and text in msg and "scene 0" in msg


def test_extra_symmetry_code_can_be_configured(room_m, tmp_path):
    root = _write_index(room_m, tmp_path, lambda idx: idx[0]["scans"][0]["rigid"][0].update(symmetry=5))
    data = ThreeRScan(root, symmetry_codes={5: 8})
    assert _gt(data, RESCAN_A)[3].symmetry_order == 8


def test_continuous_symmetry_code_is_read(room_m, tmp_path):
    # scenebench's extension code 3: continuous symmetry about the up axis (group order 0)
    root = _write_index(room_m, tmp_path, lambda idx: idx[0]["scans"][0]["rigid"][0].update(symmetry=3))
    assert _gt(ThreeRScan(root), RESCAN_A)[3].symmetry_order == 0


def test_missing_root_and_index(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        ThreeRScan(tmp_path / "nope")
    with pytest.raises(InputError, match="3RScan.json"):
        ThreeRScan(tmp_path)
