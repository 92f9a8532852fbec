"""3RScan-style reference scan and rescans of one room of a house.

A room with at least three movable objects, chosen at random (any room type; in a sparse house
the room with the most movable objects), becomes a 3RScan scene. Its reference scan is the room's mesh (floor, bordering walls, objects; no ceiling), z up.
Each of 1-3 rescans changes the room the way 3RScan's rescans do: some free-standing objects move
rigidly (a yaw about the vertical axis through their base plus a shift; whatever stands on them
moves along), some are removed, the rest stay. Moves vary in size; about nine in ten go beyond
the 0.1 m / 10 degree thresholds (a shift of 0.15 m or more), the rest are small nudges.

Each rescan is a new capture, not a copy of the reference: its own sweep through the room (4-6
spots, 6-8 of 8 headings each: most of the room, not all of it), ray cast with Kinect-like depth
noise and holes, a fused point cloud on a 1 cm grid on objects (3RScan's meshes are ~1 cm) and
3.5 cm on structure, in its own frame (a random yaw about +Z and a shift), which
``transform`` maps back to the reference. As in 3RScan, ``rigid[]`` holds a ground-truth
transformation for each *changed* object that the rescan shows -- never for structure (walls,
floors, doorways, windows) and never for objects that stayed. Identical objects of the room
(chairs of a set) form ambiguity groups. Matrices are ordinary 4x4 here; the RIO writer stores
them column-major.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from scenebench.geometry.poses import CONTINUOUS_CODE
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
    continuous_symmetry_code: int = CONTINUOUS_CODE  # 3RScan has no code for round objects: scenebench's extension code 3
    small_move_share: float = 0.1  # share of moves that stay under the recall thresholds (nudges)
    min_big_shift: float = 0.15  # metres: a "real" move shifts the object at least this far
    rescan_voxel: float = 0.035  # metres: grid of a rescan's fused point cloud on walls, floors and other structure
    # Objects are what re-localization matches, so they get 3RScan-like density (its meshes are
    # ~1-2 cm): the hand-crafted FPFH baseline needs hundreds of points per object at its 3 cm grid.
    object_max_edge: float = 0.07  # metres: object triangles of the reference mesh are split to this edge length
    rescan_object_voxel: float = 0.01  # metres: grid of a rescan's fused cloud on objects
    rescan_width: int = 240  # pixels of a rescan's depth frames (at least; a larger sensor wins)
    rescan_height: int = 180
    rescan_spots: tuple[int, int] = (4, 6)  # camera spots of a rescan on the room's free floor (inclusive range)
    rescan_headings: tuple[int, int] = (6, 8)  # headings looked at from each spot, of 8 (inclusive range)
    min_rigid_points: int = 1  # a changed object is listed when the rescan shows it with this many points (unseen: not annotated)


@dataclass
class Scan:
    scan_id: str
    vertices: np.ndarray  # (N, 3) metres, z up, in the scan's own frame
    colors: np.ndarray  # (N, 3) uint8
    faces: np.ndarray | None  # (F, 3); None for a captured point cloud (rescans)
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
    return class_code(sym, continuous_code)


def class_code(sym: str, continuous_code: int) -> int:
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
        new = np.concatenate(
            [np.stack([a, m01, m20], 1), np.stack([m01, b, m12], 1), np.stack([m20, m12, c], 1), np.stack([m01, m12, m20], 1)]
        )
        v = np.concatenate([v, mids.reshape(-1, 3)])
        rep = lambda x: np.concatenate([x[~long], np.tile(x[long], (4,) + (1,) * (x.ndim - 1))])  # noqa: B023, E731
        f = np.concatenate([f[~long], new])
        col, inst, sem = rep(col), rep(inst), rep(sem)
    return SceneMesh(v, f, col, inst, sem)


def bisect_objects(mesh: SceneMesh, max_edge: float, n_objects: int, max_iter: int = 24) -> SceneMesh:
    """Split the triangles of instances ``1..n_objects`` at the midpoint of their longest edge until
    no edge is longer than ``max_edge``. Longest-edge bisection adds vertices in proportion to the
    area (1 -> 4 splitting of a long thin triangle multiplies its vertices 4096-fold for no area)."""
    obj = (mesh.face_instance > 0) & (mesh.face_instance <= n_objects)
    verts = [mesh.vertices]
    n_v = len(mesh.vertices)
    done = [np.flatnonzero(~obj)]  # (face, source face) pairs: labels follow the source face
    done_f = [mesh.faces[~obj]]
    f, src = mesh.faces[obj], np.flatnonzero(obj)
    v = mesh.vertices
    for it in range(max_iter + 1):
        tri = v[f]
        edge = np.linalg.norm(tri - np.roll(tri, -1, axis=1), axis=2)  # edge k joins corners k and k+1
        k = np.argmax(edge, axis=1)
        long = edge[np.arange(len(f)), k] > max_edge
        if it == max_iter:
            long[:] = False
        done_f.append(f[~long])
        done.append(src[~long])
        if not long.any():
            break
        lf, lk, ls = f[long], k[long], src[long]
        r = np.arange(len(lf))
        a, b, c = lf[r, lk], lf[r, (lk + 1) % 3], lf[r, (lk + 2) % 3]  # ab is the longest edge
        mids = (v[a] + v[b]) / 2
        m = n_v + r
        n_v += len(lf)
        verts.append(mids)
        v = np.concatenate([v, mids])
        f = np.concatenate([np.stack([a, m, c], 1), np.stack([m, b, c], 1)])
        src = np.concatenate([ls, ls])
    faces, origin = np.concatenate(done_f), np.concatenate(done)
    order = np.argsort(origin, kind="stable")  # faces in their source order, so the labels line up as before
    faces, origin = faces[order], origin[order]
    return SceneMesh(v, faces, mesh.face_colors[origin], mesh.face_instance[origin], mesh.face_semantic[origin])


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


def _moved_objects(
    house: House, room_objs: list[PlacedObject], rng: np.random.Generator, s: RescanSettings = RescanSettings()
) -> tuple[dict[int, np.ndarray], set[int]]:
    """Pick moves (instance -> y-up 4x4) and removals for one rescan; children follow their support."""
    movable = [o for o in room_objs if CATEGORIES[o.category].placement in _MOVABLE]
    if not movable:
        return {}, set()
    n_move = int(rng.integers(max(1, len(movable) // 4), max(1, len(movable) // 2) + 1))
    n_remove = int(rng.integers(0, min(2, max(0, len(movable) - n_move)) + 1))
    order = rng.permutation(len(movable))
    moved = [movable[i] for i in order[:n_move]]
    removed = {movable[i].index for i in order[n_move : n_move + n_remove]}
    moves: dict[int, np.ndarray] = {}
    room_lo = np.min([o.aabb[0] for o in room_objs], axis=0)
    room_hi = np.max([o.aabb[1] for o in room_objs], axis=0)
    for o in moved:
        small = rng.random() < s.small_move_share
        shift = np.zeros(3)
        for _ in range(12):  # a big move must really travel; clipping at the walls may shorten it
            if small:
                a = rng.uniform(0, 2 * np.pi)
                shift = rng.uniform(0.0, 0.07) * np.array([np.cos(a), 0.0, np.sin(a)])
                break
            if o.support:
                sup = house.object(o.support)
                surf = [q for q in sup.surfaces if abs(q[0] - o.position[1]) < 1e-6] or sup.surfaces[:1]
                _, x0, z0, x1, z1, _ = surf[0]
                target = np.array([rng.uniform(x0, x1), o.position[1], rng.uniform(z0, z1)]) if x1 > x0 and z1 > z0 else o.position.copy()
                shift = target - o.position
            else:
                a = rng.uniform(0, 2 * np.pi)
                step = np.exp(rng.uniform(np.log(s.min_big_shift), np.log(1.5))) * np.array([np.cos(a), 0.0, np.sin(a)])
                target = np.clip(o.position + step, room_lo + 0.3, room_hi - 0.3)
                shift = np.array([target[0] - o.position[0], 0.0, target[2] - o.position[2]])
            if np.linalg.norm(shift) >= s.min_big_shift:
                break
        yaw = float(rng.uniform(-np.radians(6), np.radians(6))) if small else float(rng.uniform(-np.pi, np.pi))
        moves[o.index] = yaw_about(o.position, yaw, shift)
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


def capture_room(
    house: House,
    mesh: SceneMesh,
    room: int,
    rng: np.random.Generator,
    sensor: Any,
    s: RescanSettings,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One new RGB-D capture of a room: a sweep of ``s.rescan_spots`` camera spots on its free floor,
    ``s.rescan_headings`` of 8 headings at each, ray cast with the sensor's noise and holes, fused on
    the ``s.rescan_voxel`` grid (``s.rescan_object_voxel`` on objects). Returns y-up world points,
    uint8 colours and instance ids."""
    from scenebench.synth.placement import NAV_RES
    from scenebench.synth.raycast import make_raycaster
    from scenebench.synth.sensing import _look, backproject, render_frames, voxel_downsample

    cells = np.argwhere(house.walkable & (house.nav_room == room))
    if len(cells) == 0:
        cells = np.argwhere(house.walkable)
    k = int(rng.integers(s.rescan_spots[0], s.rescan_spots[1] + 1))
    pick = np.sort(rng.choice(len(cells), size=min(k, len(cells)), replace=False))
    poses = []
    for i, j in cells[pick]:
        eye = np.array([(i + 0.5) * NAV_RES, sensor.eye_height + rng.uniform(-0.3, 0.2), (j + 0.5) * NAV_RES])
        start = rng.uniform(0, 2 * np.pi)
        views = np.sort(rng.choice(8, size=int(rng.integers(s.rescan_headings[0], s.rescan_headings[1] + 1)), replace=False))
        for a in views:
            poses.append(_look(eye, start + a * 2 * np.pi / 8, np.radians(rng.uniform(-40, -10))))
    caster = make_raycaster(mesh.vertices, mesh.faces, sensor.raycaster)
    raw = backproject(render_frames(mesh, poses, sensor, caster, rng), sensor)
    on_object = (raw.instance > 0) & (raw.instance <= len(house.objects))
    cloud = voxel_downsample(raw, s.rescan_voxel, on_object, min(s.rescan_voxel, s.rescan_object_voxel))
    return cloud.xyz.astype(float), np.round(cloud.rgb * 255).astype(np.uint8), cloud.instance.astype(np.int64)


def rescan_scene(house: House, rng: np.random.Generator, s: RescanSettings, split: str, sensor: Any = None) -> RioScene | None:
    """The 3RScan scene of ``house`` (None when no room has a movable object).

    ``sensor`` (:class:`scenebench.synth.sensing.SensorSettings`) sets the rescans' camera and
    noise; default: ``s.rescan_width x s.rescan_height`` frames (at least), Kinect-like noise
    (0.0025 / m^2) and 2% holes."""
    from scenebench.synth.sensing import SensorSettings

    if sensor is None:
        sensor = SensorSettings(depth_noise=0.0025, hole_rate=0.02)
    sensor = replace(sensor, width=max(sensor.width, s.rescan_width), height=max(sensor.height, s.rescan_height))
    rooms: dict[int, int] = {}
    for o in house.objects:
        if CATEGORIES.get(o.category) is not None and CATEGORIES[o.category].placement in _MOVABLE:
            rooms[o.room] = rooms.get(o.room, 0) + 1
    ok = sorted(r for r, n in rooms.items() if n >= 3)
    if not ok and rooms:  # sparse houses: the room with the most movable objects
        ok = [max(sorted(rooms), key=lambda r: rooms[r])]
    if not ok:
        return None
    room = ok[int(rng.integers(len(ok)))]
    room_objs = [o for o in house.objects if o.room == room]
    ref_mesh = _used(house.scene_mesh(with_ceiling=False, rooms={room}))
    ids_present = sorted(set(np.unique(ref_mesh.face_instance).tolist()))

    def instances(ids) -> list[dict[str, Any]]:
        out = []
        for i in ids:
            label = house.label_of(i)
            sym_class = house.symmetry_of(i)  # a library model may differ from its category (a round side table)
            out.append(
                {
                    "id": int(i),
                    "global_id": SEMANTIC_LABELS.index(label) + 1,
                    "label": label,
                    "symmetry": class_code(sym_class, s.continuous_symmetry_code),
                    "attributes": {"symmetry_class": [sym_class]},
                }
            )
        return out

    def make_scan(k: int, mesh: SceneMesh, frame: np.ndarray) -> Scan:
        dense = bisect_objects(subdivide(mesh, s.max_edge), s.object_max_edge, len(house.objects))
        colors, ids = _vertex_attrs(dense)
        v = points_to_zup(dense.vertices)
        inv = np.linalg.inv(frame)
        v = v @ inv[:3, :3].T + inv[:3, 3]
        present = sorted(set(np.unique(ids).tolist()) - {0})
        return Scan(scan_id(house.seed, house.index, k), v, colors, dense.faces, ids, instances(present))

    def capture_scan(k: int, mesh: SceneMesh, frame: np.ndarray) -> Scan:
        xyz, colors, ids = capture_room(house, mesh, room, rng, sensor, s)
        v = points_to_zup(xyz)
        inv = np.linalg.inv(frame)
        v = v @ inv[:3, :3].T + inv[:3, 3]
        present = sorted(set(np.unique(ids).tolist()) - {0})
        return Scan(scan_id(house.seed, house.index, k), v, colors, None, ids, instances(present))

    scans = [make_scan(0, ref_mesh, np.eye(4))]
    entries = []
    n_rescans = int(rng.integers(s.min_rescans, s.max_rescans + 1))
    for k in range(1, n_rescans + 1):
        moves, removed = _moved_objects(house, room_objs, rng, s)
        objs = []
        for o in house.objects:
            if o.room != room or o.index in removed:
                continue
            if o.index in moves:
                m = moves[o.index]
                o = PlacedObject(
                    o.index,
                    o.category,
                    o.room,
                    o.size,
                    o.position,
                    o.yaw,
                    o.color,
                    o.support,
                    type(o.mesh)(o.mesh.vertices @ m[:3, :3].T + m[:3, 3], o.mesh.faces, o.mesh.colors),
                )
            objs.append(o)
        mesh = _used(house.scene_mesh(with_ceiling=False, rooms={room}, objects=objs))
        theta = float(rng.uniform(-np.pi, np.pi))
        frame = np.eye(4)  # rescan frame -> reference frame (z up)
        frame[:3, :3] = [[np.cos(theta), -np.sin(theta), 0], [np.sin(theta), np.cos(theta), 0], [0, 0, 1]]
        frame[:3, 3] = [rng.uniform(-2, 2), rng.uniform(-2, 2), 0.0]
        scan = capture_scan(k, mesh, frame)
        scans.append(scan)
        rigid = []
        shown = dict(zip(*np.unique(scan.object_ids, return_counts=True)))
        for i in ids_present:
            if i in removed or i not in moves or shown.get(i, 0) < s.min_rigid_points:
                continue  # only changed objects the rescan shows; structure never moves
            rigid.append(
                {
                    "instance_reference": int(i),
                    "instance_rescan": int(i),
                    "symmetry": class_code(house.symmetry_of(i), s.continuous_symmetry_code),
                    "transform": transform_to_zup(moves[i]),
                }
            )
        entries.append(
            {
                "reference": scan.scan_id,
                "transform": frame,
                "rigid": rigid,
                "nonrigid": [],
                "removed": sorted(int(i) for i in removed if i in ids_present),
            }
        )
    # ambiguity: identical objects (same category, size, colour) can be swapped
    groups: dict[tuple, list[PlacedObject]] = {}
    for o in room_objs:
        if CATEGORIES[o.category].placement in _MOVABLE:
            groups.setdefault((o.category, o.size, o.color), []).append(o)
    ambiguity = []
    for objs in groups.values():
        if len(objs) < 2:
            continue
        ambiguity.append(
            [
                {"instance_source": a.index, "instance_target": b.index, "transform": transform_to_zup(_pose(b) @ np.linalg.inv(_pose(a)))}
                for a in objs
                for b in objs
                if a.index != b.index
            ]
        )
    entry = {"reference": scans[0].scan_id, "type": split, "ambiguity": ambiguity, "scans": entries}
    return RioScene(entry, scans)


EVALUATED = "validation"  # the scene type of test houses: the split scored, whose answers stay hidden


def public_index(scenes: list[dict[str, Any]], objects: dict[str, list]) -> tuple[list[dict[str, Any]], dict[str, list]]:
    """The model-facing ``3RScan.json`` scenes and ``objects.json`` lists: for the evaluated split,
    rescans keep their reference and frame ``transform`` (input: it aligns the rescan) but no
    ``rigid`` / ``nonrigid`` / ``removed`` lists, and rescans have no object list (which instances a
    rescan still holds). The full ones go to the ground-truth tree, as the real test split's are hidden."""
    hidden: set[str] = set()
    out = []
    for sc in scenes:
        if sc.get("type") != EVALUATED:
            out.append(sc)
            continue
        hidden.update(str(r["reference"]) for r in sc["scans"])
        out.append({**sc, "scans": [{**r, "rigid": [], "nonrigid": [], "removed": []} for r in sc["scans"]]})
    return out, {k: v for k, v in objects.items() if k not in hidden}


def renumber(scene: RioScene, rng: np.random.Generator) -> RioScene:
    """The scene with its instance ids replaced by a seeded permutation of 1..K (K instances in its scans).

    ``rescan_scene`` numbers instances by placement index: room by room, supports before what stands on
    them, objects before walls and floors, so written ids would tell a reader of the reference what
    stands on what. One permutation serves the whole scene, as in 3RScan, where an object keeps its
    id in the reference and every rescan: the scans' ``objectId``s, their instance tables (in the new
    id order), ``rigid[]``, ``removed`` and the ambiguity groups all go through it."""
    named = {int(g[k]) for group in scene.index_entry["ambiguity"] for g in group for k in ("instance_source", "instance_target")}
    present = sorted(set().union(named, *(set(np.unique(sc.object_ids).tolist()) for sc in scene.scans)) - {0})
    lut = np.zeros(max(present, default=0) + 1, np.int64)
    lut[present] = rng.permutation(len(present)) + 1

    def new(i: Any) -> int:
        return int(lut[int(i)])

    scans = []
    for sc in scene.scans:
        inst = sorted(({**d, "id": new(d["id"])} for d in sc.instances), key=lambda d: d["id"])
        scans.append(replace(sc, object_ids=lut[sc.object_ids], instances=inst))
    e = scene.index_entry
    entries = [
        {
            **r,
            "rigid": sorted(
                (
                    {**g, "instance_reference": new(g["instance_reference"]), "instance_rescan": new(g["instance_rescan"])}
                    for g in r["rigid"]
                ),
                key=lambda g: g["instance_reference"],
            ),
            "removed": sorted(new(i) for i in r["removed"]),
        }
        for r in e["scans"]
    ]
    ambiguity = [
        sorted(
            ({**g, "instance_source": new(g["instance_source"]), "instance_target": new(g["instance_target"])} for g in group),
            key=lambda g: (g["instance_source"], g["instance_target"]),
        )
        for group in e["ambiguity"]
    ]
    return RioScene({**e, "ambiguity": ambiguity, "scans": entries}, scans)
