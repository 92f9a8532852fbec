"""The ``.pth`` reader against files written by the real ``torch.save`` (zip and legacy formats)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from scenebench.errors import InputError
from scenebench.io.arrays import load_pth, read_pth

torch = pytest.importorskip("torch", reason="needs the torch extra to write real .pth files")
pytestmark = pytest.mark.torch

SRC = str(Path(__file__).resolve().parents[2] / "src")


def official_scene(n: int = 7) -> dict:
    """A scene dict as ScanNet++'s prepare_training_data.py saves it: numpy arrays and a scene_id."""
    rng = np.random.default_rng(0)
    return {
        "scene_id": "0a5c013435",
        "sampled_coords": rng.random((n, 3)) * 4.0,  # float64
        "sampled_colors": rng.random((n, 3)),  # float64 in [0, 1]
        "sampled_labels": np.array([3, 3, -100, 7, 7, 7, -100][:n], dtype=np.int16),
        "sampled_instance_anno_id": np.array([5, 5, -100, 9, 9, 9, -100][:n], dtype=np.int16),
        "superpoints": np.arange(n, dtype=np.int64) // 2,
    }


@pytest.mark.parametrize("zipped", [True, False], ids=["zip", "legacy"])
def test_dict_of_numpy_arrays_reads_back_exactly(tmp_path, zipped):
    d = official_scene()
    torch.save(d, tmp_path / "s.pth", _use_new_zipfile_serialization=zipped)
    out = load_pth(tmp_path / "s.pth")
    assert set(out) == set(d) and out["scene_id"] == "0a5c013435"
    for k, v in d.items():
        if k != "scene_id":
            assert out[k].dtype == v.dtype and np.array_equal(out[k], v), k


@pytest.mark.parametrize("zipped", [True, False], ids=["zip", "legacy"])
def test_tensors_become_numpy_arrays_with_their_views(tmp_path, zipped):
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    d = {
        "view": base.t()[1:, 2:],  # non-contiguous view with an offset into a shared storage
        "same_storage": base,
        "long": torch.tensor([-100, 0, 2**40]),
        "bool": torch.tensor([True, False]),
        "half": torch.tensor([0.5, -2.0], dtype=torch.float16),
        "bf16": torch.tensor([1.5, -3.0], dtype=torch.bfloat16),
        "scalar": torch.tensor(7, dtype=torch.int16),
        "nested": {"list": [torch.ones(2), np.zeros(1)], "tuple": (1, "a")},
    }
    torch.save(d, tmp_path / "t.pth", _use_new_zipfile_serialization=zipped)
    out = read_pth(tmp_path / "t.pth")
    assert np.array_equal(out["view"], base.t()[1:, 2:].numpy()) and out["view"].shape == (5, 2)
    assert np.array_equal(out["same_storage"], base.numpy())
    assert out["long"].tolist() == [-100, 0, 2**40] and out["long"].dtype == np.int64
    assert out["bool"].tolist() == [True, False]
    assert out["half"].dtype == np.float16 and out["half"].tolist() == [0.5, -2.0]
    assert out["bf16"].dtype == np.float32 and out["bf16"].tolist() == [1.5, -3.0]  # widened: numpy has no bfloat16
    assert out["scalar"].shape == () and int(out["scalar"]) == 7
    assert out["nested"]["list"][0].tolist() == [1.0, 1.0] and out["nested"]["tuple"] == (1, "a")


class _Evil:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


@pytest.mark.parametrize("zipped", [True, False], ids=["zip", "legacy"])
def test_a_malicious_pickle_is_refused_without_running(tmp_path, zipped):
    marker = tmp_path / "pwned"
    torch.save({"sampled_coords": _Evil(marker)}, tmp_path / "evil.pth", _use_new_zipfile_serialization=zipped)
    with pytest.raises(InputError) as e:
        load_pth(tmp_path / "evil.pth")
    msg = str(e.value)
    assert str(tmp_path / "evil.pth") in msg and "system" in msg and "refuses" in msg
    assert e.value.__cause__ is not None  # the cause is kept
    assert not marker.exists()


def test_object_arrays_and_other_globals_are_refused(tmp_path):
    torch.save({"a": np.array([{"x": 1}], dtype=object)}, tmp_path / "obj.pth")
    with pytest.raises(InputError, match=r"obj\.pth: .*dtype object"):
        load_pth(tmp_path / "obj.pth")
    torch.save({"a": torch.nn.Linear(2, 2)}, tmp_path / "mod.pth")
    with pytest.raises(InputError, match=r"mod\.pth: .*global torch\.nn\.modules\.linear\.Linear"):
        load_pth(tmp_path / "mod.pth")


def test_damaged_and_non_dict_files_give_one_clear_error(tmp_path):
    torch.save(official_scene(), tmp_path / "s.pth")
    raw = (tmp_path / "s.pth").read_bytes()
    (tmp_path / "cut.pth").write_bytes(raw[: len(raw) // 2])
    with pytest.raises(InputError, match=r"cut\.pth"):
        load_pth(tmp_path / "cut.pth")
    torch.save([np.zeros(3)], tmp_path / "list.pth")
    with pytest.raises(InputError, match=r"list\.pth: holds a list \(expected a dict of arrays\)"):
        load_pth(tmp_path / "list.pth")


def test_reading_a_pth_of_numpy_arrays_needs_no_torch(tmp_path):
    torch.save(official_scene(), tmp_path / "s.pth")
    code = (
        "import sys; sys.modules['torch'] = None\n"  # any 'import torch' now raises ImportError
        "from scenebench.benchmarks.surprise3d.scenes import load_scene\n"
        f"s = load_scene({str(tmp_path)!r}, 's')\n"
        "assert 'torch' not in sys.modules or sys.modules['torch'] is None\n"
        "print(s.n_points, s.color_range, sorted(set(s.instance_ids.tolist())))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, env={**os.environ, "PYTHONPATH": SRC}, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "7 [0, 1] [-100, 5, 9]"
