"""One procedural house: floor plan, furniture, structural meshes and the labelled scene mesh.

Everything is drawn from ``numpy.random.default_rng([seed, index])``, so a house depends only on
the run seed and its own index, never on which worker builds it or in which order.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from scenebench.synth.categories import SEMANTIC_LABELS
from scenebench.synth.floorplan import CELL, WALL_T, FloorPlan, make_floorplan
from scenebench.synth.frames import IDENTITY, WorldFrame, draw_world_frame
from scenebench.synth.meshes import Mesh, box
from scenebench.synth.placement import NAV_RES, PlacedObject, Placer

_WALL_COLORS = [(0.93, 0.91, 0.86), (0.88, 0.90, 0.92), (0.92, 0.88, 0.80), (0.85, 0.89, 0.84), (0.95, 0.95, 0.95)]
_FLOOR = {
    "living room": [(0.62, 0.45, 0.30), (0.70, 0.55, 0.38)],
    "bedroom": [(0.66, 0.50, 0.34), (0.55, 0.55, 0.60)],
    "office": [(0.58, 0.42, 0.28), (0.45, 0.47, 0.52)],
    "dining room": [(0.60, 0.44, 0.30)],
    "kitchen": [(0.86, 0.86, 0.84), (0.75, 0.72, 0.68)],
    "bathroom": [(0.90, 0.92, 0.94), (0.80, 0.86, 0.90)],
    "hallway": [(0.64, 0.48, 0.32), (0.58, 0.58, 0.56)],
}
_TILED = {"kitchen", "bathroom"}


@dataclass
class Part:
    """A structural element (one wall run, one room's floor or ceiling) with its own instance id."""

    index: int
    label: str  # wall | floor | ceiling
    room: int  # -1 for walls shared by rooms
    mesh: Mesh
    rooms: tuple[int, ...] = ()  # rooms a wall borders


@dataclass
class SceneMesh:
    vertices: np.ndarray  # (V, 3) float64, world, y up
    faces: np.ndarray  # (F, 3) int64
    face_colors: np.ndarray  # (F, 3) float32 [0, 1]
    face_instance: np.ndarray  # (F,) int32 instance id (objects 1..K, structure after)
    face_semantic: np.ndarray  # (F,) int32 index into SEMANTIC_LABELS


@dataclass
class House:
    house_id: str
    index: int
    seed: int
    plan: FloorPlan
    objects: list[PlacedObject]
    parts: list[Part]
    walkable: np.ndarray  # (nx, nz) bool navigation grid (placement.NAV_RES cells, centres at (i+0.5)*NAV_RES)
    nav_room: np.ndarray  # (nx, nz) room index per navigation cell
    # where the written data puts the house (everything above stays in the local build frame):
    # boxes, navigation waypoints and every written cloud go through it
    world: WorldFrame = IDENTITY

    def scene_mesh(
        self, *, with_ceiling: bool = True, objects: list[PlacedObject] | None = None, rooms: set[int] | None = None
    ) -> SceneMesh:
        objs = self.objects if objects is None else objects
        items: list[tuple[Mesh, int, int]] = []
        for o in objs:
            if rooms is None or o.room in rooms:
                items.append((o.mesh, o.index, SEMANTIC_LABELS.index(o.category)))
        for p in self.parts:
            if p.label == "ceiling" and not with_ceiling:
                continue
            if rooms is not None and p.room not in rooms and not (p.room == -1 and any(r in rooms for r in p.rooms)):
                continue
            items.append((p.mesh, p.index, SEMANTIC_LABELS.index(p.label)))
        m = Mesh.concat([it[0] for it in items])
        inst = np.concatenate([np.full(len(it[0].faces), it[1], np.int32) for it in items])
        sem = np.concatenate([np.full(len(it[0].faces), it[2], np.int32) for it in items])
        return SceneMesh(m.vertices, m.faces, m.colors, inst, sem)

    def object(self, index: int) -> PlacedObject:
        return self.objects[index - 1]

    def symmetry_of(self, instance: int) -> str:
        """The symmetry class of an instance: its model's own when set, else its category's (none for structure)."""
        from scenebench.synth.categories import CATEGORIES

        if instance <= len(self.objects):
            o = self.objects[instance - 1]
            return o.symmetry or CATEGORIES[o.category].symmetry
        return "none"

    def label_of(self, instance: int) -> str:
        if instance <= len(self.objects):
            return self.objects[instance - 1].category
        return self.parts[instance - len(self.objects) - 1].label


def house_id_of(index: int) -> str:
    return f"house_{index:06d}"


def scene_hex(seed: int, index: int, room: int | None = None) -> str:
    """A 10-hex scene id (ScanNet++ style) derived from the seed and house index (and the room, for
    one-room scenes)."""
    key = f"scenebench:{seed}:{index}" + ("" if room is None else f":room{room}")
    return hashlib.sha256(key.encode()).hexdigest()[:10]


def _structure(plan: FloorPlan, rng: np.random.Generator, first_index: int) -> list[Part]:
    parts: list[Part] = []
    wall_c = _WALL_COLORS[int(rng.integers(len(_WALL_COLORS)))]
    H = plan.height
    idx = first_index
    for run in plan.runs:
        pieces: list[Mesh] = []
        shade = wall_c if min(run.rooms) >= 0 else tuple(c * 0.97 for c in wall_c)
        cur = run.start
        for s0, s1, y0, y1, _kind in run.openings:
            if s0 > cur:
                pieces.append(_wall_box(run, cur, s0, 0.0, H, shade))
            if y0 > 0:
                pieces.append(_wall_box(run, s0, s1, 0.0, y0, shade))
            if y1 < H:
                pieces.append(_wall_box(run, s0, s1, y1, H, shade))
            cur = s1
        if run.end > cur:
            pieces.append(_wall_box(run, cur, run.end, 0.0, H, shade))
        parts.append(
            Part(idx, "wall", -1 if min(run.rooms) >= 0 else max(run.rooms), Mesh.concat(pieces), tuple(r for r in run.rooms if r >= 0))
        )
        idx += 1
    for room in plan.rooms:
        choices = _FLOOR[room.type]
        base = choices[int(rng.integers(len(choices)))]
        quads_f, quads_c = [], []
        for i, j in np.argwhere(room.mask):
            x0, z0 = i * CELL, j * CELL
            tint = 0.92 if (room.type in _TILED and (i + j) % 2) else 1.0
            c = tuple(x * tint for x in base)
            quads_f.append(_quad(x0, z0, x0 + CELL, z0 + CELL, 0.0, c, up=True))
            quads_c.append(_quad(x0, z0, x0 + CELL, z0 + CELL, H, (0.96, 0.96, 0.95), up=False))
        parts.append(Part(idx, "floor", room.index, Mesh.concat(quads_f)))
        parts.append(Part(idx + 1, "ceiling", room.index, Mesh.concat(quads_c)))
        idx += 2
    return parts


def _wall_box(run, a, b, y0, y1, color) -> Mesh:
    t = WALL_T / 2
    if run.axis == 0:
        return box((a - (t if a == run.start else 0), y0, run.coord - t), (b + (t if b == run.end else 0), y1, run.coord + t), color)
    return box((run.coord - t, y0, a - (t if a == run.start else 0)), (run.coord + t, y1, b + (t if b == run.end else 0)), color)


def _quad(x0, z0, x1, z1, y, color, up: bool) -> Mesh:
    v = np.array([[x0, y, z0], [x1, y, z0], [x1, y, z1], [x0, y, z1]], float)
    f = np.array([[0, 2, 1], [0, 3, 2]]) if up else np.array([[0, 1, 2], [0, 2, 3]])
    return Mesh(v, f, np.tile(np.asarray(color, np.float32), (2, 1)))


def build_house(
    seed: int,
    index: int,
    *,
    min_rooms: int = 2,
    max_rooms: int = 8,
    density: float = 1.0,
    hallways: bool = True,
    assets: tuple[str, ...] = (),
) -> House:
    """Build house ``index`` of a run with ``seed`` (pure function of its arguments and of the asset
    libraries at ``assets``; none: every object from primitives)."""
    from scenebench.synth.assets.furnish import furnisher_for

    rng = np.random.default_rng([int(seed), int(index)])
    n_rooms = int(rng.integers(min_rooms, max_rooms + 1))
    plan = make_floorplan(rng, n_rooms, hallways=hallways)
    furnisher = furnisher_for(tuple(assets))
    asset_rng = np.random.default_rng([int(seed), int(index), 99]) if furnisher is not None else None
    placer = Placer(plan, rng, density=density, furnisher=furnisher, asset_rng=asset_rng)
    objects = placer.furnish()
    parts = _structure(plan, rng, len(objects) + 1)
    # its own stream: the house's contents are the same with or without the world placement
    world = draw_world_frame(np.random.default_rng([int(seed), int(index), 0, 7]), NAV_RES)
    return House(house_id_of(index), index, int(seed), plan, objects, parts, placer.walkable, placer.nav_room, world)


__all__ = ["House", "Part", "SceneMesh", "build_house", "house_id_of", "scene_hex"]
