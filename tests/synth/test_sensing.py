"""Ray casting backends, pinhole back-projection, fusion, voxel downsampling, coverage."""

from __future__ import annotations

import numpy as np
import pytest

from scenebench.extras import available
from scenebench.synth.house import SceneMesh, build_house
from scenebench.synth.meshes import box
from scenebench.synth.raycast import make_raycaster
from scenebench.synth.sensing import Cloud, SensorSettings, _look, backproject, capture, pixel_rays, render_frames, voxel_downsample

SMALL = SensorSettings(width=32, height=24)


def _wall_scene(distance=2.0):
    """A big wall facing the camera at z = distance (camera at origin looking along +z)."""
    m = box((-5, -5, distance), (5, 5, distance + 0.1), (0.5, 0.5, 0.5))
    return SceneMesh(m.vertices, m.faces, m.colors, np.full(len(m.faces), 3, np.int32), np.full(len(m.faces), 0, np.int32))


def _pose_looking_z(eye=(0.0, 0.0, 0.0)):
    return _look(np.asarray(eye, float), 0.0, 0.0)


def _need(backend):
    need = {
        "open3d": ("open3d", "the open3d extra"),
        "embree": ("embreex", "embreex (render extra)"),
        "trimesh": ("rtree", "rtree (trimesh's ray casting)"),
    }
    if backend in need and not available(need[backend][0]):
        pytest.skip(f"needs {need[backend][1]}")


@pytest.mark.parametrize("backend", ["embree", "numpy", "trimesh", pytest.param("open3d", marks=pytest.mark.open3d)])
def test_depth_is_z_distance_and_backprojection_recovers_the_plane(backend):
    _need(backend)
    mesh = _wall_scene(2.0)
    caster = make_raycaster(mesh.vertices, mesh.faces, backend)
    pose = _pose_looking_z((0.3, 0.2, 0.0))
    (frame,) = render_frames(mesh, [pose], SMALL, caster)
    # z-depth, not ray length: constant over the image for a fronto-parallel wall
    assert np.allclose(frame.depth, 2.0, atol=1e-4)
    assert (frame.instance == 3).all()
    cloud = backproject([frame], SMALL)
    assert len(cloud) == SMALL.width * SMALL.height
    assert np.allclose(cloud.xyz[:, 2], 2.0, atol=1e-4)
    # the pixel grid spans the field of view: tan(45 deg) * 2 m either side of the optical axis
    assert cloud.xyz[:, 0].max() - 0.3 == pytest.approx(2.0 * (1 - 1 / SMALL.width), abs=1e-3)


def test_pinhole_rays_match_intrinsics():
    K = SMALL.intrinsics()
    rays = pixel_rays(SMALL)
    uv = (rays @ K.T)[:, :2]
    u, v = np.meshgrid(np.arange(SMALL.width) + 0.5, np.arange(SMALL.height) + 0.5)
    assert np.allclose(uv, np.stack([u.ravel(), v.ravel()], 1))


@pytest.mark.parametrize("other", ["numpy", pytest.param("open3d", marks=pytest.mark.open3d)])
def test_backends_agree_on_a_house(other):
    _need("embree")
    _need(other)
    h = build_house(5, 0, max_rooms=3)
    mesh = h.scene_mesh()
    rng = np.random.default_rng(0)
    o = rng.uniform([0.5, 1.0, 0.5], [3, 2, 3], (400, 3))
    d = rng.normal(size=(400, 3))
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    t_e, i_e = make_raycaster(mesh.vertices, mesh.faces, "embree").cast(o, d)
    t_t, i_t = make_raycaster(mesh.vertices, mesh.faces, other).cast(o, d)
    hit = np.isfinite(t_e) & np.isfinite(t_t)
    assert hit.mean() > 0.9
    assert np.allclose(t_e[hit], t_t[hit], atol=1e-3)
    assert (mesh.face_instance[i_e[hit]] == mesh.face_instance[i_t[hit]]).mean() > 0.98


def test_voxel_downsample_keeps_one_point_per_voxel_deterministically():
    rng = np.random.default_rng(1)
    xyz = rng.uniform(0, 1, (5000, 3)).astype(np.float32)
    c = Cloud(xyz, np.zeros_like(xyz), np.arange(5000, dtype=np.int32), np.zeros(5000, np.int32))
    out = voxel_downsample(c, 0.1)
    keys = np.floor(out.xyz / 0.1).astype(int)
    assert len(np.unique(keys, axis=0)) == len(out)
    assert len(out) == len(np.unique(np.floor(xyz / 0.1).astype(int), axis=0))
    # the kept point is the first of its voxel in input order (plain reference loop)
    seen, first = set(), []
    for i, k in enumerate(map(tuple, np.floor(xyz / 0.1).astype(int))):
        if k not in seen:
            seen.add(k)
            first.append(i)
    assert np.array_equal(out.instance, np.array(first))


def test_coverage_counts_points_and_hidden_objects_get_none():
    h = build_house(2, 1, max_rooms=3)
    cap = capture(h, SensorSettings(width=48, height=36), np.random.default_rng(0))
    ids, counts = np.unique(cap.cloud.instance, return_counts=True)
    for i, c in zip(ids, counts):
        if i > 0:
            assert cap.coverage[int(i)] == c
    assert all(cap.coverage.get(o.index, 0) == int((cap.cloud.instance == o.index).sum()) for o in h.objects)
    assert not (
        cap.cloud.semantic == len(__import__("scenebench.synth.categories", fromlist=["x"]).SEMANTIC_LABELS) - 1
    ).any()  # no ceiling


def test_noise_and_holes_change_depth_only_where_asked():
    h = build_house(2, 1, max_rooms=3)
    base = capture(h, SensorSettings(width=32, height=24), np.random.default_rng(0))
    holes = capture(h, SensorSettings(width=32, height=24, hole_rate=0.3), np.random.default_rng(0))
    noisy = capture(h, SensorSettings(width=32, height=24, depth_noise=0.01), np.random.default_rng(0))
    assert len(holes.raw) < 0.8 * len(base.raw)
    assert len(noisy.raw) == len(base.raw) and not np.allclose(noisy.raw.xyz, base.raw.xyz)
