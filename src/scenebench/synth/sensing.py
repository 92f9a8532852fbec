"""Virtual RGB-D sensing: teleported cameras, ray-cast frames, back-projection and fusion.

The camera is "teleported" to free floor spots in each room (the 3DBench acquisition method) and
turned round in equal yaw steps, looking slightly down. Each frame is ray cast into depth (z along
the optical axis, metres), RGB, instance and semantic images; frames are back-projected with the
pinhole model, fused into one cloud, voxel-downsampled, and optionally degraded with depth noise
and dropout holes. Camera convention: x right, y down, z forward (OpenCV), world y up.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from scenebench.synth.categories import SEMANTIC_LABELS
from scenebench.synth.house import House, SceneMesh
from scenebench.synth.placement import NAV_RES
from scenebench.synth.raycast import RayCaster, make_raycaster

CEILING = SEMANTIC_LABELS.index("ceiling")


@dataclass(frozen=True)
class SensorSettings:
    width: int = 128
    height: int = 96
    hfov_deg: float = 90.0
    eye_height: float = 1.5
    pitch_deg: float = -20.0
    yaws: int = 6  # views per camera position
    positions_per_10m2: float = 0.8
    max_positions: int = 4
    voxel: float = 0.055  # fused-cloud voxel size (m) of walls, floors and ceilings
    object_scene_voxel: float = 0.02  # fused-cloud voxel size (m) on objects: small things keep their shape
    object_voxel: float = 0.008  # object-cloud voxel size (m)
    object_points: int = 2048  # cap for object clouds
    depth_noise: float = 0.0  # std of depth noise per metre^2 of depth (Kinect-like ~0.0025)
    hole_rate: float = 0.0  # share of pixels dropped (occlusion / dropout holes)
    keep_ceiling: bool = False
    max_depth: float = 12.0
    raycaster: str = "auto"

    def intrinsics(self) -> np.ndarray:
        fx = self.width / 2 / np.tan(np.radians(self.hfov_deg) / 2)
        return np.array([[fx, 0, self.width / 2], [0, fx, self.height / 2], [0, 0, 1]], float)


@dataclass
class Frame:
    pose: np.ndarray  # (4, 4) camera-to-world
    depth: np.ndarray  # (H, W) float32 metres, 0 = no return
    rgb: np.ndarray  # (H, W, 3) float32 [0, 1]
    instance: np.ndarray  # (H, W) int32, 0 = none
    semantic: np.ndarray  # (H, W) int32, -1 = none


@dataclass
class Cloud:
    xyz: np.ndarray  # (N, 3) float32 world, y up
    rgb: np.ndarray  # (N, 3) float32 [0, 1]
    instance: np.ndarray  # (N,) int32
    semantic: np.ndarray  # (N,) int32

    def __len__(self) -> int:
        return len(self.xyz)

    def take(self, idx) -> Cloud:
        return Cloud(self.xyz[idx], self.rgb[idx], self.instance[idx], self.semantic[idx])


@dataclass
class Capture:
    frames_poses: list[np.ndarray]
    cloud: Cloud  # fused and downsampled
    raw: Cloud  # fused before downsampling (for object clouds)
    coverage: dict[int, int] = field(default_factory=dict)  # instance id -> points in the fused cloud
    centre_ids: list[int] = field(default_factory=list)  # per frame: instance filling the central 5x5 pixels, else 0
    centre_share: list[float] = field(default_factory=list)  # per frame: share of the image that instance covers


def camera_poses(house: House, s: SensorSettings, rng: np.random.Generator) -> list[np.ndarray]:
    """Camera-to-world poses: a few free spots per room, ``yaws`` headings each."""
    poses = []
    for room in house.plan.rooms:
        cells = np.argwhere(house.walkable & (house.nav_room == room.index))
        if len(cells) == 0:
            continue
        k = int(np.clip(round(room.area / 10 * s.positions_per_10m2 * 1.0 + 0.5), 1, s.max_positions))
        pick = rng.choice(len(cells), size=min(k, len(cells)), replace=False)
        for i, j in cells[np.sort(pick)]:
            x, z = (i + 0.5) * NAV_RES, (j + 0.5) * NAV_RES
            y = s.eye_height + rng.uniform(-0.1, 0.1)
            start = rng.uniform(0, 2 * np.pi)
            for a in range(s.yaws):
                poses.append(_look(np.array([x, y, z]), start + a * 2 * np.pi / s.yaws, np.radians(s.pitch_deg)))
    return poses


def _look(eye: np.ndarray, yaw: float, pitch: float) -> np.ndarray:
    fwd = np.array([np.sin(yaw) * np.cos(pitch), np.sin(pitch), np.cos(yaw) * np.cos(pitch)])
    right = np.cross(fwd, [0.0, 1.0, 0.0])
    right /= np.linalg.norm(right)
    down = np.cross(fwd, right)
    pose = np.eye(4)
    pose[:3, 0], pose[:3, 1], pose[:3, 2], pose[:3, 3] = right, down, fwd, eye
    return pose


def pixel_rays(s: SensorSettings) -> np.ndarray:
    """(H*W, 3) camera-frame ray directions through pixel centres with z = 1."""
    K = s.intrinsics()
    u, v = np.meshgrid(np.arange(s.width) + 0.5, np.arange(s.height) + 0.5)
    return np.stack([(u - K[0, 2]) / K[0, 0], (v - K[1, 2]) / K[1, 1], np.ones_like(u)], -1).reshape(-1, 3)


def face_normals(mesh: SceneMesh) -> np.ndarray:
    v = mesh.vertices[mesh.faces]
    n = np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0])
    return n / np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-12)


def render_frames(
    mesh: SceneMesh, poses: list[np.ndarray], s: SensorSettings, caster: RayCaster, rng: np.random.Generator | None = None
) -> list[Frame]:
    """Ray cast all poses in one batch; returns one :class:`Frame` per pose."""
    if not poses:
        return []
    rays_cam = pixel_rays(s)
    norm = np.linalg.norm(rays_cam, axis=1)
    P = np.stack(poses)  # (V, 4, 4)
    dirs = np.matmul((rays_cam / norm[:, None])[None], P[:, :3, :3].transpose(0, 2, 1)).reshape(-1, 3)
    origins = np.repeat(P[:, :3, 3], len(rays_cam), axis=0)
    t, tri = caster.cast(origins, dirs)
    hit = (tri >= 0) & (t < s.max_depth)
    depth = np.where(hit, t / np.tile(norm, len(poses)), 0.0).astype(np.float32)
    tri_c = np.where(hit, tri, 0)
    shade = 0.55 + 0.45 * np.abs((face_normals(mesh)[tri_c] * dirs).sum(1))
    rgb = np.clip(mesh.face_colors[tri_c] * shade[:, None], 0, 1).astype(np.float32)
    inst = np.where(hit, mesh.face_instance[tri_c], 0).astype(np.int32)
    sem = np.where(hit, mesh.face_semantic[tri_c], -1).astype(np.int32)
    if rng is not None and s.depth_noise > 0:
        depth = np.where(depth > 0, depth + rng.normal(0, 1, depth.shape).astype(np.float32) * s.depth_noise * depth**2, 0).astype(
            np.float32
        )
    if rng is not None and s.hole_rate > 0:
        depth[rng.random(depth.shape) < s.hole_rate] = 0
    H, W = s.height, s.width
    out = []
    for k, pose in enumerate(poses):
        sl = slice(k * H * W, (k + 1) * H * W)
        out.append(Frame(pose, depth[sl].reshape(H, W), rgb[sl].reshape(H, W, 3), inst[sl].reshape(H, W), sem[sl].reshape(H, W)))
    return out


def backproject(frames: list[Frame], s: SensorSettings) -> Cloud:
    """Pinhole back-projection of every valid depth pixel into world coordinates."""
    if not frames:
        return Cloud(np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32), np.zeros(0, np.int32), np.zeros(0, np.int32))
    rays = pixel_rays(s)  # z = 1 so camera point = depth * ray
    D = np.stack([f.depth.reshape(-1) for f in frames])  # (V, HW)
    P = np.stack([f.pose for f in frames])
    pts = np.matmul(D[..., None] * rays[None], P[:, :3, :3].transpose(0, 2, 1)) + P[:, None, :3, 3]
    valid = (D > 0).reshape(-1)
    return Cloud(
        pts.reshape(-1, 3)[valid].astype(np.float32),
        np.concatenate([f.rgb.reshape(-1, 3) for f in frames])[valid],
        np.concatenate([f.instance.reshape(-1) for f in frames])[valid],
        np.concatenate([f.semantic.reshape(-1) for f in frames])[valid],
    )


def voxel_downsample(cloud: Cloud, voxel: float, fine: np.ndarray | None = None, fine_voxel: float | None = None) -> Cloud:
    """Keep the first point (in input order) of every occupied voxel; deterministic.

    ``fine`` (bool per point) selects points downsampled on the finer grid ``fine_voxel`` instead
    (objects, so that a pen keeps more than two points); the two grids never share a cell."""
    if len(cloud) == 0:
        return cloud
    if fine is None or fine_voxel is None:
        fine = np.zeros(len(cloud), bool)
        fine_voxel = voxel
    size = np.where(fine, fine_voxel, voxel)[:, None]
    q = np.floor(cloud.xyz / size).astype(np.int64)
    q -= q.min(0)
    dims = q.max(0) + 1
    key = ((q[:, 0] * dims[1] + q[:, 1]) * dims[2] + q[:, 2]) * 2 + fine.astype(np.int64)
    _, first = np.unique(key, return_index=True)
    return cloud.take(np.sort(first))


def capture(
    house: House, s: SensorSettings, rng: np.random.Generator, caster: RayCaster | None = None, mesh: SceneMesh | None = None
) -> Capture:
    mesh = mesh or house.scene_mesh()
    caster = caster or make_raycaster(mesh.vertices, mesh.faces, s.raycaster)
    poses = camera_poses(house, s, rng)
    frames = render_frames(mesh, poses, s, caster, rng)
    raw = backproject(frames, s)
    if not s.keep_ceiling:
        raw = raw.take(raw.semantic != CEILING)
    on_object = (raw.instance > 0) & (raw.instance <= len(house.objects))
    cloud = voxel_downsample(raw, s.voxel, on_object, min(s.voxel, s.object_scene_voxel))
    ids, counts = np.unique(cloud.instance, return_counts=True)
    cov = {int(i): int(c) for i, c in zip(ids, counts) if i > 0}
    centre_ids, shares = [], []
    for f in frames:
        h, w = f.instance.shape
        patch = f.instance[h // 2 - 2 : h // 2 + 3, w // 2 - 2 : w // 2 + 3]
        cid = int(patch[0, 0]) if (patch == patch[0, 0]).all() else 0
        centre_ids.append(cid)
        shares.append(float((f.instance == cid).mean()) if cid else 0.0)
    return Capture(poses, cloud, raw, cov, centre_ids, shares)


def object_cloud(raw: Cloud, instance: int, s: SensorSettings, rng: np.random.Generator) -> np.ndarray:
    """(N, 6) float32 xyz (world, y up) + rgb of one instance, thinned to ``object_points``."""
    part = raw.take(raw.instance == instance)
    part = voxel_downsample(part, s.object_voxel)
    if len(part) > s.object_points:
        keep = np.sort(rng.choice(len(part), s.object_points, replace=False))
        part = part.take(keep)
    return np.concatenate([part.xyz, part.rgb], 1).astype(np.float32)
