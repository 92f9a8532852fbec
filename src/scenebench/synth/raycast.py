"""Closest-hit ray casting behind one small interface, with three interchangeable backends.

- ``embree``: Intel Embree through ``embreex`` (x86_64 wheels; trimesh's fast path). Default.
- ``open3d``: ``open3d.t.geometry.RaycastingScene`` (open3d extra; needs Debian's libusb-1.0-0).
- ``trimesh``: trimesh's pure-numpy triangle intersector (needs ``rtree``), ~100x slower.
- ``numpy``: brute-force Moller-Trumbore in numpy, no dependency at all; for tiny scenes and tests.

All return, per ray, the hit distance ``t`` (``inf`` for a miss; directions are unit vectors, so
``t`` is metres) and the hit triangle index (``-1`` for a miss).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from scenebench.extras import available, require

BACKENDS = ("embree", "open3d", "trimesh", "numpy")


class RayCaster(Protocol):
    name: str

    def cast(self, origins: np.ndarray, directions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``origins``, ``directions``: (N, 3) float; returns ``t`` (N,) float32 and ``tri`` (N,) int64."""
        ...


class EmbreeCaster:
    name = "embree"

    def __init__(self, vertices: np.ndarray, faces: np.ndarray):
        from embreex import rtcore_scene
        from embreex.mesh_construction import TriangleMesh

        self._scene = rtcore_scene.EmbreeScene()
        TriangleMesh(self._scene, np.ascontiguousarray(vertices[faces], dtype=np.float32))

    def cast(self, origins, directions):
        res = self._scene.run(np.ascontiguousarray(origins, np.float32), np.ascontiguousarray(directions, np.float32), output=1)
        tri = res["primID"].astype(np.int64)
        t = res["tfar"].astype(np.float32)
        t[tri < 0] = np.inf
        return t, tri


class Open3DCaster:
    name = "open3d"

    def __init__(self, vertices: np.ndarray, faces: np.ndarray):
        o3d = require("open3d", "open3d", purpose="ray casting with open3d's RaycastingScene")
        self._o3d = o3d
        self._scene = o3d.t.geometry.RaycastingScene()
        self._scene.add_triangles(
            o3d.core.Tensor(np.ascontiguousarray(vertices, np.float32)), o3d.core.Tensor(np.ascontiguousarray(faces, np.uint32))
        )

    def cast(self, origins, directions):
        rays = np.concatenate([origins, directions], 1).astype(np.float32)
        res = self._scene.cast_rays(self._o3d.core.Tensor(rays))
        t = res["t_hit"].numpy().astype(np.float32)
        ids = res["primitive_ids"].numpy().astype(np.int64)
        miss = ~np.isfinite(t)
        ids[miss] = -1
        return t, ids


class TrimeshCaster:
    name = "trimesh"

    def __init__(self, vertices: np.ndarray, faces: np.ndarray):
        import trimesh
        from trimesh.ray.ray_triangle import RayMeshIntersector

        self._mesh = trimesh.Trimesh(vertices, faces, process=False)
        self._ray = RayMeshIntersector(self._mesh)

    def cast(self, origins, directions):
        tri, ray, loc = self._ray.intersects_id(origins, directions, multiple_hits=False, return_locations=True)
        t = np.full(len(origins), np.inf, np.float32)
        ids = np.full(len(origins), -1, np.int64)
        t[ray] = np.linalg.norm(loc - origins[ray], axis=1)
        ids[ray] = tri
        return t, ids


class NumpyCaster:
    """Every ray against every triangle (chunked); exact closest hit, ties to the lowest index."""

    name = "numpy"

    def __init__(self, vertices: np.ndarray, faces: np.ndarray, chunk: int = 512):
        tri = np.asarray(vertices, float)[np.asarray(faces)]
        self._v0 = tri[:, 0]
        self._e1 = tri[:, 1] - tri[:, 0]
        self._e2 = tri[:, 2] - tri[:, 0]
        self._chunk = chunk

    def cast(self, origins, directions):
        o_all = np.asarray(origins, float)
        d_all = np.asarray(directions, float)
        t_out = np.full(len(o_all), np.inf, np.float32)
        ids = np.full(len(o_all), -1, np.int64)
        for s0 in range(0, len(o_all), self._chunk):
            o, d = o_all[s0 : s0 + self._chunk, None], d_all[s0 : s0 + self._chunk, None]
            p = np.cross(d, self._e2[None])
            det = (self._e1[None] * p).sum(-1)
            ok = np.abs(det) > 1e-12
            inv = np.where(ok, 1.0 / np.where(ok, det, 1.0), 0.0)
            tv = o - self._v0[None]
            u = (tv * p).sum(-1) * inv
            q = np.cross(tv, self._e1[None])
            v = (d * q).sum(-1) * inv
            t = (self._e2[None] * q).sum(-1) * inv
            hit = ok & (u >= 0) & (v >= 0) & (u + v <= 1) & (t > 1e-9)
            t = np.where(hit, t, np.inf)
            best = np.argmin(t, axis=1)
            tb = t[np.arange(len(t)), best]
            found = np.isfinite(tb)
            t_out[s0 : s0 + self._chunk] = np.where(found, tb, np.inf)
            ids[s0 : s0 + self._chunk] = np.where(found, best, -1)
        return t_out, ids


def default_backend() -> str:
    if available("embreex"):
        return "embree"
    if available("open3d"):
        return "open3d"
    if available("trimesh") and available("rtree"):
        return "trimesh"
    return "numpy"


def make_raycaster(vertices: np.ndarray, faces: np.ndarray, backend: str = "auto") -> RayCaster:
    if backend == "auto":
        backend = default_backend()
    if backend == "embree":
        require("embreex", "render", purpose="fast ray casting (or use --raycaster trimesh)")
        return EmbreeCaster(vertices, faces)
    if backend == "open3d":
        return Open3DCaster(vertices, faces)
    if backend == "trimesh":
        require("trimesh", "render", purpose="ray casting")
        require("rtree", "render", purpose="trimesh's ray casting (or use --raycaster numpy)")
        return TrimeshCaster(vertices, faces)
    if backend == "numpy":
        return NumpyCaster(vertices, faces)
    raise ValueError(f"unknown ray-casting backend {backend!r}; choose one of {', '.join(BACKENDS)} or auto")
