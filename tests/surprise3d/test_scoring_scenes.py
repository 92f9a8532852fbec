"""load_scene_for_scoring (issue 18): reads a .npz scene's instance ids and only the headers of
its other arrays; it must agree with load_scene on every scene and give the same structural errors."""

import numpy as np
import pytest

from scenebench.benchmarks.surprise3d.scenes import ScoringScene, load_scene, load_scene_for_scoring
from scenebench.errors import InputError
from scenebench.io.arrays import ArrayHeader, load_npz


def _scene(rng, n, *, colors_255=False, inst_dtype=np.int64, superpoints=False):
    d = {
        "sampled_coords": rng.normal(size=(n, 3)).astype(rng.choice([np.float32, np.float64])),
        "sampled_colors": rng.random((n, 3)) * (255 if colors_255 else 1),
        "sampled_instance_anno_id": rng.integers(-100, 30, n).astype(inst_dtype),
    }
    if superpoints:
        d["superpoints"] = rng.integers(0, 50, n).astype(np.int32)
    return d


@pytest.mark.parametrize("seed", range(12))
def test_agrees_with_load_scene_on_random_scenes(tmp_path, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    d = _scene(
        rng, n, colors_255=bool(seed % 2), inst_dtype=[np.int64, np.int32, np.int16, np.float64][seed % 4], superpoints=seed % 3 == 0
    )
    save = np.savez_compressed if seed % 2 else np.savez
    save(tmp_path / "s.npz", **d)
    ref = load_scene(tmp_path, "s")
    fast = load_scene_for_scoring(tmp_path, "s")
    assert isinstance(fast, ScoringScene)
    assert fast.n_points == ref.n_points == n and fast.scene_id == "s" and fast.path == ref.path
    assert fast.instance_ids.dtype == ref.instance_ids.dtype and np.array_equal(fast.instance_ids, ref.instance_ids)
    # the other arrays on first use, fully checked
    assert np.array_equal(fast.coords, ref.coords) and np.array_equal(fast.colors, ref.colors)
    assert fast.color_range == ref.color_range
    assert (fast.superpoints is None) == (ref.superpoints is None)


def test_headers_only_for_the_other_members(tmp_path):
    rng = np.random.default_rng(0)
    np.savez_compressed(tmp_path / "s.npz", **_scene(rng, 10))
    got = load_npz(tmp_path / "s.npz", only=("sampled_instance_anno_id",))
    assert isinstance(got["sampled_instance_anno_id"], np.ndarray)
    assert got["sampled_coords"] == ArrayHeader((10, 3), got["sampled_coords"].dtype)
    assert got["sampled_colors"].shape == (10, 3) and got["sampled_colors"].dtype == np.float64


def _base():
    return _scene(np.random.default_rng(1), 20)


@pytest.mark.parametrize(
    "mutate,field,expected",
    [
        (lambda d: d.pop("sampled_coords"), "sampled_coords", "key missing"),
        (lambda d: d.pop("sampled_colors"), "sampled_colors", "key missing"),
        (lambda d: d.update(sampled_coords=d["sampled_coords"][:, :2]), "sampled_coords", "(N, 3)"),
        (lambda d: d.update(sampled_coords=np.zeros((0, 3))), "sampled_coords", "N > 0"),
        (lambda d: d.update(sampled_coords=d["sampled_coords"].astype(bool)), "sampled_coords", "numbers"),
        (lambda d: d.update(sampled_colors=d["sampled_colors"][:5]), "sampled_colors", "(20, 3)"),
        (lambda d: d.update(sampled_colors=d["sampled_colors"].astype("U3")), "sampled_colors", "numbers in [0, 1]"),
        (lambda d: d.update(sampled_instance_anno_id=d["sampled_instance_anno_id"][:5]), "sampled_instance_anno_id", "(20,)"),
        (lambda d: d.update(sampled_instance_anno_id=np.full(20, 0.5)), "sampled_instance_anno_id", "non-integer"),
        (lambda d: d.update(superpoints=np.zeros(3, np.int32)), "superpoints", "(20,) integers"),
    ],
)
def test_same_structural_errors_as_load_scene(tmp_path, mutate, field, expected):
    d = _base()
    mutate(d)
    np.savez(tmp_path / "s.npz", **d)
    with pytest.raises(InputError) as ref:
        load_scene(tmp_path, "s")
    with pytest.raises(InputError) as fast:
        load_scene_for_scoring(tmp_path, "s")
    assert str(fast.value) == str(ref.value)
    assert "s.npz" in str(fast.value) and f"field '{field}'" in str(fast.value) and expected in str(fast.value)


@pytest.mark.parametrize(
    "mutate,message",
    [
        (lambda d: d["sampled_coords"].__setitem__((4, 1), np.nan), "non-finite coordinate at point 4"),
        (lambda d: d.update(sampled_colors=d["sampled_colors"] * 300), "[0, 1] or [0, 255]"),
    ],
)
def test_value_errors_come_when_the_values_are_used(tmp_path, mutate, message):
    d = _base()
    mutate(d)
    np.savez(tmp_path / "s.npz", **d)
    s = load_scene_for_scoring(tmp_path, "s")
    assert s.n_points == 20  # mask scoring needs neither coordinates nor colours
    with pytest.raises(InputError, match=message.replace("[", r"\[").replace("]", r"\]")):
        _ = s.coords


def test_pickled_members_are_refused_without_being_read(tmp_path):
    d = _base()
    d["sampled_colors"] = np.array([object()] * 20, dtype=object)
    np.savez(tmp_path / "s.npz", **d)
    with pytest.raises(InputError, match="pickled"):
        load_scene_for_scoring(tmp_path, "s")


@pytest.mark.parametrize("save", [np.savez, np.savez_compressed])
def test_damaged_archives_give_the_same_outcome_as_load_scene(tmp_path, save):
    # random byte damage: both loaders accept the file or both refuse it with an InputError
    rng = np.random.default_rng(3)
    save(tmp_path / "s.npz", **_base())
    good = (tmp_path / "s.npz").read_bytes()

    def outcome(load):
        try:
            load(tmp_path, "s")
            return "ok"
        except InputError:
            return "InputError"

    for _ in range(300):
        b = bytearray(good)
        for _ in range(int(rng.integers(1, 4))):
            b[int(rng.integers(0, len(b)))] = int(rng.integers(0, 256))
        (tmp_path / "s.npz").write_bytes(bytes(b))
        assert outcome(load_scene_for_scoring) == outcome(load_scene)
