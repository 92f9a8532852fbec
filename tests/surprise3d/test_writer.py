import json

import numpy as np
import pytest

from scenebench.benchmarks.surprise3d.scenes import load_scene
from scenebench.benchmarks.surprise3d.writer import annotation_record, write_annotations, write_scene


def _arrays(n=50, seed=0):
    rng = np.random.default_rng(seed)
    coords = rng.random((n, 3)) * 4
    colors = rng.integers(0, 256, (n, 3))
    inst = rng.integers(-1, 5, n)
    sp = rng.integers(0, 10, n)
    return coords, colors, inst, sp


@pytest.mark.parametrize("suffix", [".npz", pytest.param(".pth", marks=pytest.mark.torch)])
def test_scene_round_trip_keeps_keys_and_dtypes(tmp_path, suffix):
    if suffix == ".pth":
        pytest.importorskip("torch", reason="torch extra not installed")
    coords, colors, inst, sp = _arrays()
    write_scene(tmp_path / f"s0{suffix}", coords, colors, inst, sp)
    scene = load_scene(tmp_path, "s0")
    assert scene.coords.dtype == np.float32 and scene.coords.shape == (50, 3)
    assert np.allclose(scene.coords, coords.astype(np.float32))
    # written in [0, 1] as the official preprocessing does; read back in [0, 1]
    assert scene.color_range == "[0, 1]"
    assert np.allclose(scene.colors, colors / 255.0, atol=1e-6)
    assert np.array_equal(scene.instance_ids, np.where(inst < 0, -100, inst))
    assert np.array_equal(scene.superpoints, sp)


@pytest.mark.torch
def test_pth_is_a_dict_of_numpy_arrays_as_the_official_preprocessing_writes(tmp_path):
    torch = pytest.importorskip("torch", reason="torch extra not installed")
    coords, colors, inst, sp = _arrays()
    labels = np.where(inst < 0, -1, inst + 10)
    write_scene(tmp_path / "s1.pth", coords, colors, inst, sp, labels=labels)
    obj = torch.load(tmp_path / "s1.pth", weights_only=False)  # as Reason3D loads them
    assert set(obj) == {"scene_id", "sampled_coords", "sampled_colors", "sampled_labels", "sampled_instance_anno_id", "superpoints"}
    assert obj["scene_id"] == "s1"
    assert all(isinstance(obj[k], np.ndarray) for k in obj if k != "scene_id")
    assert obj["sampled_coords"].dtype == np.float64 and obj["sampled_colors"].dtype == np.float64
    assert obj["sampled_colors"].max() <= 1.0 and np.allclose(obj["sampled_colors"] * 255, colors)
    assert obj["sampled_instance_anno_id"].dtype == np.int16
    assert np.array_equal(obj["sampled_instance_anno_id"], np.where(inst < 0, -100, inst))
    assert np.array_equal(obj["sampled_labels"], np.where(inst < 0, -100, inst + 10))
    with pytest.raises(Exception, match="numpy"):  # weights_only=True refuses numpy globals: why scenebench has its own reader
        torch.load(tmp_path / "s1.pth", weights_only=True)


def test_writer_refuses_mismatched_shapes_and_unknown_suffix(tmp_path):
    coords, colors, inst, _ = _arrays()
    with pytest.raises(ValueError, match="colors"):
        write_scene(tmp_path / "a.npz", coords, colors[:-1], inst)
    with pytest.raises(ValueError, match="instance_ids"):
        write_scene(tmp_path / "a.npz", coords, colors, inst[:-1])
    with pytest.raises(ValueError, match=".pth or .npz"):
        write_scene(tmp_path / "a.ply", coords, colors, inst)


def test_annotations_are_the_official_json_list(tmp_path):
    recs = [
        annotation_record("0a5c013435", 3, "Where would you sit?", ["chair"], "hi"),
        annotation_record("0a5c013435", [1, 2], "What keeps food cold?", ["fridge", "freezer"], "cs", source="synth"),
    ]
    write_annotations(tmp_path / "val.json", recs)
    data = json.loads((tmp_path / "val.json").read_text())
    assert data[0] == {
        "scene_id": "0a5c013435",
        "object_id": [3],
        "description": "Where would you sit?",
        "object_name": ["chair"],
        "question_type": "hi",
    }
    assert data[1]["object_id"] == [1, 2] and data[1]["source"] == "synth"
