"""3RScan-style reference scan and rescans of one room of a house.

The room with the most objects becomes a 3RScan scene. Its reference scan is the room's mesh
(floor, bordering walls, objects; no ceiling), z up. Each of 1-3 rescans changes the room the way
3RScan's rescans do: some free-standing objects move rigidly (a yaw about the vertical axis
through their base plus a shift; whatever stands on them moves along), some are removed, the rest
stay. Each rescan is also captured in its own frame (a random yaw about +Z and a shift), which
``transform`` maps back to the reference. Identical objects of the room (chairs of a set) form
ambiguity groups. Matrices are ordinary 4x4 here; the RIO writer stores them column-major.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from scenebench.synth.categories import CATEGORIES, SEMANTIC_LABELS
from scenebench.synth.frames import points_to_zup, transform_to_zup
from scenebench.synth.house import House, SceneMesh
from scenebench.synth.placement import PlacedObject

SYMMETRY_CODE = {"none": 0, "2-fold": 1, "4-fold": 2}
_MOVABLE = ("floor", "surface")


@dataclass(frozen=True)
class RescanSettings:
    min_rescans: int = 1
    max_rescans: int = 3
    max_edge: float = 0.5  # metres; long triangles are split so scans carry enough vertices
    continuous_symmetry_code: int = 2  # 3RScan has no code for round objects; 2 (4-fold) is the nearest documented one


@dataclass
class Scan:
    scan_id: str
    vertices: np.ndarray  # (N, 3) metres, z up, in the scan's own frame
    colors: np.ndarray  # (N, 3) uint8
    faces: np.ndarray  # (F, 3)
    object_ids: np.ndarray  # (N,)
    instances: list[dict[str, Any]]


@dataclass
class RioScene:
    index_entry: dict[str, Any]  # for write_index(scenes=[...])
    scans: list[Scan]


def scan_id(seed: int, house_index: int, k: int) -> str:
    """UUID-shaped id (3RScan scan ids are UUIDs), derived from seed, house and scan number."""
    h = hashlib.sha256(f"scenebench-3rscan:{seed}:{house_index}:{k}".encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def yaw_about(p: np.ndarray, theta: float, shift: np.ndarray) -> np.ndarray:
    """y-up 4x4: rotate by ``theta`` about the vertical line through ``p``, then translate by ``shift``."""
    c, s = np.cos(theta), np.sin(theta)
    m = np.eye(4)
    m[:3, :3] = [[c, 0, s], [0, 1, 0], [-s, 0, c]]
    m[:3, 3] = p + shift - m[:3, :3] @ p
    return m


def symmetry_code(category: str, continuous_code: int) -> int:
    sym = CATEGORIES[category].symmetry if category in CATEGORIES else "none"
    return continuous_code if sym == "continuous" else SYMMETRY_CODE[sym]


def subdivide(mesh: SceneMesh, max_edge: float, max_iter: int = 6) -> SceneMesh:
    """Split triangles 1 -> 4 until no edge is longer than ``max_edge`` (labels carried along)."""
    v, f = mesh.vertices, mesh.faces
    col, inst, sem = mesh.face_colors, mesh.face_instance, mesh.face_semantic
    for _ in range(max_iter):
        tri = v[f]
        longest = np.max(np.linalg.norm(tri - np.roll(tri, 1, axis=1), axis=2), axis=1)
        long = longest > max_edge
        if not long.any():
            break
        lf = f[long]
        mids = (v[lf] + v[np.roll(lf, -1, axis=1)]) / 2  # (L, 3, 3): midpoints of edges 01, 12, 20
        base = len(v)
        m = base + np.arange(len(lf) * 3).reshape(-1, 3)
        a, b, c = lf[:, 0], lf[:, 1], lf[:, 2]
        m01, m12, m20 = m[:, 0], m[:, 1], m[:, 2]
        new = np.concatenate([np.stack([a, m01, m20], 1), np.stack([m01, b, m12], 1), np.stack([m20, m12, c], 1), np.stack([m01, m12, m20], 1)])
        v = np.concatenate([v, mids.reshape(-1, 3)])
        rep = lambda x: np.concatenate([x[~long], np.tile(x[long], (4,) + (1,) * (x.ndim - 1))])  # noqa: E731
        f = np.concatenate([f[~long], new])
        col, inst, sem = rep(col), rep(inst), rep(sem)
    return SceneMesh(v, f, col, inst, sem)


def _vertex_attrs(mesh: SceneMesh) -> tuple[np.ndarray, np.ndarray]:
    colors = np.zeros((len(mesh.vertices), 3), np.uint8)
    ids = np.zeros(len(mesh.vertices), np.int64)
    for k in range(3):
        colors[mesh.faces[:, k]] = np.round(mesh.face_colors * 255).astype(np.uint8)
        ids[mesh.faces[:, k]] = mesh.face_instance
    return colors, ids


def _used(mesh: SceneMesh) -> SceneMesh:
    """Drop vertices no face uses (the scan should hold only what it shows)."""
    keep = np.unique(mesh.faces)
    remap = np.full(len(mesh.vertices), -1, np.int64)
    remap[keep] = np.arange(len(keep))
    return SceneMesh(mesh.vertices[keep], remap[mesh.faces], mesh.face_colors, mesh.face_instance, mesh.face_semantic)


def _moved_objects(house: House, room_objs: list[PlacedObject], rng: np.random.Generator) -> tuple[dict[int, np.ndarray], set[int]]:
    """Pick moves (instance -> y-up 4x4) and removals for one rescan; children follow their support."""
    movable = [o for o in room_objs if CATEGORIES[o.category].placement in _MOVABLE]
    if not movable:
        return {}, set()
    n_move = int(rng.integers(1, max(1, len(movable) // 3) + 1))
    n_remove = int(rng.integers(0, min(2, max(0, len(movable) - n_move)) + 1))
    order = rng.permutation(len(movable))
    moved = [movable[i] for i in order[:n_move]]
    removed = {movable[i].index for i in order[n_move:n_move + n_remove]}
    moves: dict[int, np.ndarray] = {}
    room_lo = np.min([o.aabb[0] for o in room_objs], axis=0)
    room_hi = np.max([o.aabb[1] for o in room_objs], axis=0)
    for o in moved:
        if o.support:
            sup = house.object(o.support)
            surf = [s for s in sup.surfaces if abs(s[0] - o.position[1]) < 1e-6] or sup.surfaces[:1]
            _, x0, z0, x1, z1, _ = surf[0]
            target = np.array([rng.uniform(x0, x1), o.position[1], rng.uniform(z0, z1)]) if x1 > x0 and z1 > z0 else o.position.copy()
            shift = target - o.position
        else:
            step = rng.uniform(0.2, 0.8) * np.array([np.cos(a := rng.uniform(0, 2 * np.pi)), 0.0, np.sin(a)])
            target = np.clip(o.position + step, room_lo + 0.3, room_hi - 0.3)
            shift = np.array([target[0] - o.position[0], 0.0, target[2] - o.position[2]])
        moves[o.index] = yaw_about(o.position, float(rng.uniform(-np.pi, np.pi)), shift)
    # things standing on moved/removed objects follow them
    changed = True
    while changed:
        changed = False
        for o in room_objs:
            if o.support in moves and o.index not in moves and o.index not in removed:
                moves[o.index] = moves[o.support]
                changed = True
            if o.support in removed and o.index not in removed:
                removed.add(o.index)
                moves.pop(o.index, None)
                changed = True
    return moves, removed


def _pose(o: PlacedObject) -> np.ndarray:
    return yaw_about(np.zeros(3), o.yaw, o.position)


def rio_scene(house: House, rng: np.random.Generator, s: RescanSettings, split: str) -> RioScene | None:
    rooms = {}
    for o in house.objects:
        if o.category not in ("doorway", "window"):
            rooms[o.room] = rooms.get(o.room, 0) + 1
    if not rooms:
        return None
    room = max(sorted(rooms), key=lambda r: rooms[r])
    room_objs = [o for o in house.objects if o.room == room]
    ref_mesh = _used(house.scene_mesh(with_ceiling=False, rooms={room}))
    ids_present = sorted(set(np.unique(ref_mesh.face_instance).tolist()))

    def instances(ids) -> list[dict[str, Any]]:
        out = []
        for i in ids:
            label = house.label_of(i)
            sym_class = CATEGORIES[label].symmetry if label in CATEGORIES else "none"
            out.append({"id": int(i), "global_id": SEMANTIC_LABELS.index(label) + 1, "label": label,
                        "symmetry": symmetry_code(label, s.continuous_symmetry_code),
                        "attributes": {"symmetry_class": [sym_class]}})
        return out

    def make_scan(k: int, mesh: SceneMesh, frame: np.ndarray) -> Scan:
        dense = subdivide(mesh, s.max_edge)
        colors, ids = _vertex_attrs(dense)
        v = points_to_zup(dense.vertices)
        inv = np.linalg.inv(frame)
        v = v @ inv[:3, :3].T + inv[:3, 3]
        present = sorted(set(np.unique(ids).tolist()) - {0})
        return Scan(scan_id(house.seed, house.index, k), v, colors, dense.faces, ids, instances(present))

    scans = [make_scan(0, ref_mesh, np.eye(4))]
    entries = []
    n_rescans = int(rng.integers(s.min_rescans, s.max_rescans + 1))
    for k in range(1, n_rescans + 1):
        moves, removed = _moved_objects(house, room_objs, rng)
        objs = []
        for o in house.objects:
            if o.room != room or o.index in removed:
                continue
            if o.index in moves:
                m = moves[o.index]
                o = PlacedObject(o.index, o.category, o.room, o.size, o.position, o.yaw, o.color, o.support,
                                 type(o.mesh)(o.mesh.vertices @ m[:3, :3].T + m[:3, 3], o.mesh.faces, o.mesh.colors))
            objs.append(o)
        mesh = _used(house.scene_mesh(with_ceiling=False, rooms={room}, objects=objs))
        theta = float(rng.uniform(-np.pi, np.pi))
        frame = np.eye(4)  # rescan frame -> reference frame (z up)
        frame[:3, :3] = [[np.cos(theta), -np.sin(theta), 0], [np.sin(theta), np.cos(theta), 0], [0, 0, 1]]
        frame[:3, 3] = [rng.uniform(-2, 2), rng.uniform(-2, 2), 0.0]
        scan = make_scan(k, mesh, frame)
        scans.append(scan)
        rigid = []
        for i in ids_present:
            if i in removed:
                continue
            label = house.label_of(i)
            rigid.append({"instance_reference": int(i), "instance_rescan": int(i),
                          "symmetry": symmetry_code(label, s.continuous_symmetry_code),
                          "transform": transform_to_zup(moves.get(i, np.eye(4)))})
        entries.append({"reference": scan.scan_id, "transform": frame, "rigid": rigid, "nonrigid": [],
                        "removed": sorted(int(i) for i in removed if i in ids_present)})
    # ambiguity: identical objects (same category, size, colour) can be swapped
    groups: dict[tuple, list[PlacedObject]] = {}
    for o in room_objs:
        if CATEGORIES[o.category].placement in _MOVABLE:
            groups.setdefault((o.category, o.size, o.color), []).append(o)
    ambiguity = []
    for objs in groups.values():
        if len(objs) < 2:
            continue
        ambiguity.append([{"instance_source": a.index, "instance_target": b.index,
                           "transform": transform_to_zup(_pose(b) @ np.linalg.inv(_pose(a)))}
                          for a in objs for b in objs if a.index != b.index])
    entry = {"reference": scans[0].scan_id, "type": split, "ambiguity": ambiguity, "scans": entries}
    return RioScene(entry, scans)
