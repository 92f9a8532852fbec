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
    assert np.array_equal(scene.colors, colors.astype(np.float32))
    assert np.array_equal(scene.instance_ids, inst)
    assert np.array_equal(scene.superpoints, sp)


def test_pth_is_a_dict_of_tensors_readable_with_weights_only(tmp_path):
    torch = pytest.importorskip("torch", reason="torch extra not installed")
    coords, colors, inst, _ = _arrays()
    write_scene(tmp_path / "s1.pth", coords, colors, inst)
    obj = torch.load(tmp_path / "s1.pth", weights_only=True)
    assert set(obj) == {"sampled_coords", "sampled_colors", "sampled_instance_anno_id"}
    assert obj["sampled_coords"].dtype == torch.float32
    assert obj["sampled_instance_anno_id"].dtype == torch.int32


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
    assert data[0] == {"scene_id": "0a5c013435", "object_id": 3, "description": "Where would you sit?",
                       "object_name": ["chair"], "question_type": "hi"}
    assert data[1]["object_id"] == [1, 2] and data[1]["source"] == "synth"
