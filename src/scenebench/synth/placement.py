"""Furnish a floor plan: furniture against walls or around anchors, small things on supports.

Rules: floor objects stay inside their room, keep clear of doorways and of each other, and may
not cut the walkable floor into pieces (checked on the navigation grid after each placement);
wall-standing furniture has its back to a wall and faces the room; chairs go round tables and
desks, stools at counters, coffee tables in front of sofas; small objects stand on the supports
their category allows (tables, counters, shelves, seats, beds, basins) without overlapping;
paintings hang on free wall stretches. In a hallway, floor things stand against a wall, out of the way.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from scenebench.synth import meshes
from scenebench.synth.categories import CATEGORIES, PALETTE
from scenebench.synth.floorplan import CELL, WALL_T, FloorPlan, WallRun
from scenebench.synth.meshes import Mesh

# room type -> [(category, probability, min count, max count)]
ROOM_CONTENTS: dict[str, list[tuple[str, float, int, int]]] = {
    "living room": [
        ("sofa", 0.95, 1, 1),
        ("tvstand", 0.8, 1, 1),
        ("coffeetable", 0.8, 1, 1),
        ("armchair", 0.5, 1, 2),
        ("sidetable", 0.5, 1, 2),
        ("shelvingunit", 0.5, 1, 1),
        ("floorlamp", 0.4, 1, 1),
        ("houseplant", 0.5, 1, 2),
        ("ottoman", 0.25, 1, 1),
        ("dogbed", 0.15, 1, 1),
        ("garbagecan", 0.25, 1, 1),
        ("vacuumcleaner", 0.1, 1, 1),
        ("basketball", 0.1, 1, 1),
        ("box", 0.15, 1, 1),
        ("painting", 0.7, 1, 2),
        ("television", 1.0, 1, 1),
        ("remotecontrol", 0.6, 1, 1),
        ("book", 0.5, 1, 4),
        ("newspaper", 0.25, 1, 1),
        ("vase", 0.4, 1, 1),
        ("tabletopdecor", 0.3, 1, 1),
        ("candle", 0.25, 1, 2),
        ("tissuebox", 0.25, 1, 1),
        ("statue", 0.25, 1, 1),
        ("pillow", 0.5, 1, 3),
        ("laptop", 0.15, 1, 1),
        ("cellphone", 0.25, 1, 1),
        ("keychain", 0.15, 1, 1),
        ("creditcard", 0.1, 1, 1),
        ("mug", 0.25, 1, 2),
        ("teddybear", 0.1, 1, 1),
        ("cloth", 0.1, 1, 1),
    ],
    "kitchen": [
        ("countertop", 1.0, 2, 3),
        ("fridge", 0.95, 1, 1),
        ("sink", 0.95, 1, 1),
        ("diningtable", 0.25, 1, 1),
        ("chair", 0.25, 1, 2),
        ("stool", 0.35, 1, 3),
        ("garbagecan", 0.7, 1, 1),
        ("garbagebag", 0.15, 1, 1),
        ("cart", 0.1, 1, 1),
        ("washingmachine", 0.1, 1, 1),
        ("faucet", 1.0, 1, 1),
        ("microwave", 0.7, 1, 1),
        ("toaster", 0.5, 1, 1),
        ("coffeemachine", 0.5, 1, 1),
        ("kettle", 0.5, 1, 1),
        ("pot", 0.5, 1, 1),
        ("pan", 0.5, 1, 1),
        ("bowl", 0.5, 1, 3),
        ("plate", 0.5, 1, 3),
        ("cup", 0.4, 1, 2),
        ("mug", 0.4, 1, 3),
        ("fork", 0.4, 1, 2),
        ("spoon", 0.4, 1, 2),
        ("knife", 0.4, 1, 1),
        ("butterknife", 0.3, 1, 1),
        ("spatula", 0.3, 1, 1),
        ("ladle", 0.25, 1, 1),
        ("apple", 0.5, 1, 3),
        ("tomato", 0.4, 1, 2),
        ("potato", 0.3, 1, 3),
        ("lettuce", 0.3, 1, 1),
        ("bread", 0.4, 1, 1),
        ("egg", 0.3, 1, 3),
        ("saltshaker", 0.5, 1, 1),
        ("peppershaker", 0.5, 1, 1),
        ("dishsponge", 0.5, 1, 1),
        ("soapbottle", 0.4, 1, 1),
        ("papertowelroll", 0.4, 1, 1),
        ("winebottle", 0.25, 1, 1),
        ("bottle", 0.3, 1, 2),
        ("spraybottle", 0.2, 1, 1),
        ("houseplant", 0.15, 1, 1),
    ],
    "bedroom": [
        ("bed", 1.0, 1, 1),
        ("dresser", 0.7, 1, 1),
        ("sidetable", 0.8, 1, 2),
        ("desk", 0.35, 1, 1),
        ("chair", 0.35, 1, 1),
        ("shelvingunit", 0.25, 1, 1),
        ("laundryhamper", 0.35, 1, 1),
        ("armchair", 0.15, 1, 1),
        ("floorlamp", 0.25, 1, 1),
        ("houseplant", 0.25, 1, 1),
        ("garbagecan", 0.25, 1, 1),
        ("safe", 0.1, 1, 1),
        ("boots", 0.25, 1, 1),
        ("dumbbell", 0.15, 1, 2),
        ("basketball", 0.1, 1, 1),
        ("box", 0.15, 1, 1),
        ("painting", 0.6, 1, 2),
        ("pillow", 0.9, 1, 3),
        ("desklamp", 0.5, 1, 1),
        ("alarmclock", 0.5, 1, 1),
        ("laptop", 0.25, 1, 1),
        ("book", 0.5, 1, 3),
        ("teddybear", 0.25, 1, 1),
        ("cellphone", 0.3, 1, 1),
        ("watch", 0.25, 1, 1),
        ("baseballbat", 0.1, 1, 1),
        ("tennisracket", 0.1, 1, 1),
        ("cloth", 0.15, 1, 1),
        ("keychain", 0.15, 1, 1),
        ("creditcard", 0.15, 1, 1),
        ("tissuebox", 0.25, 1, 1),
        ("vase", 0.15, 1, 1),
        ("statue", 0.1, 1, 1),
    ],
    "bathroom": [
        ("toilet", 1.0, 1, 1),
        ("sink", 1.0, 1, 1),
        ("washingmachine", 0.25, 1, 1),
        ("clothesdryer", 0.15, 1, 1),
        ("laundryhamper", 0.25, 1, 1),
        ("garbagecan", 0.6, 1, 1),
        ("plunger", 0.5, 1, 1),
        ("shelvingunit", 0.2, 1, 1),
        ("faucet", 1.0, 1, 1),
        ("soapbar", 0.6, 1, 1),
        ("soapbottle", 0.5, 1, 1),
        ("toiletpaper", 0.7, 1, 2),
        ("spraybottle", 0.3, 1, 1),
        ("cloth", 0.3, 1, 1),
        ("tissuebox", 0.25, 1, 1),
    ],
    "dining room": [
        ("diningtable", 1.0, 1, 1),
        ("chair", 1.0, 2, 6),
        ("shelvingunit", 0.35, 1, 1),
        ("houseplant", 0.4, 1, 1),
        ("sidetable", 0.2, 1, 1),
        ("floorlamp", 0.2, 1, 1),
        ("painting", 0.6, 1, 2),
        ("plate", 0.6, 1, 4),
        ("cup", 0.4, 1, 3),
        ("bowl", 0.4, 1, 2),
        ("winebottle", 0.35, 1, 1),
        ("vase", 0.4, 1, 1),
        ("candle", 0.35, 1, 2),
        ("fork", 0.4, 1, 3),
        ("spoon", 0.3, 1, 2),
        ("knife", 0.3, 1, 2),
        ("tabletopdecor", 0.25, 1, 1),
        ("bread", 0.15, 1, 1),
        ("saltshaker", 0.25, 1, 1),
        ("peppershaker", 0.25, 1, 1),
        ("apple", 0.25, 1, 2),
        ("newspaper", 0.1, 1, 1),
    ],
    "office": [
        ("desk", 1.0, 1, 1),
        ("chair", 1.0, 1, 1),
        ("shelvingunit", 0.7, 1, 2),
        ("safe", 0.25, 1, 1),
        ("garbagecan", 0.5, 1, 1),
        ("floorlamp", 0.25, 1, 1),
        ("box", 0.35, 1, 1),
        ("houseplant", 0.35, 1, 1),
        ("armchair", 0.25, 1, 1),
        ("cart", 0.15, 1, 1),
        ("sofa", 0.1, 1, 1),
        ("painting", 0.4, 1, 1),
        ("desktop", 0.7, 1, 1),
        ("laptop", 0.4, 1, 1),
        ("desklamp", 0.5, 1, 1),
        ("book", 0.7, 2, 6),
        ("pen", 0.6, 1, 3),
        ("pencil", 0.5, 1, 3),
        ("cellphone", 0.35, 1, 1),
        ("creditcard", 0.15, 1, 1),
        ("keychain", 0.15, 1, 1),
        ("statue", 0.25, 1, 1),
        ("mug", 0.35, 1, 1),
        ("alarmclock", 0.15, 1, 1),
        ("watch", 0.15, 1, 1),
        ("tabletopdecor", 0.2, 1, 1),
    ],
    # a hallway stays nearly empty: things against its walls, a key dish on a console or shelf
    "hallway": [
        ("shelvingunit", 0.2, 1, 1),
        ("sidetable", 0.25, 1, 1),
        ("houseplant", 0.35, 1, 1),
        ("boots", 0.35, 1, 1),
        ("painting", 0.6, 1, 2),
        ("keychain", 0.35, 1, 1),
        ("vase", 0.2, 1, 1),
    ],
}

# surface items that face the same way as their support rather than a random direction
_FACING = {"television", "desktop", "laptop", "microwave", "coffeemachine", "toaster", "desklamp", "alarmclock", "faucet"}
# surface items narrowed to fit the support they stand on
_FIT_TO_SUPPORT = {"television"}
# furniture that comes in identical sets (same size and colour): interchangeable for 3RScan ambiguity
MATCHING_SETS = {"chair", "stool", "sidetable"}
ROBOT_RADIUS = 0.15
NAV_RES = 0.25


@dataclass
class PlacedObject:
    index: int  # instance id, 1-based, unique in the house
    category: str
    room: int
    size: tuple[float, float, float]
    position: np.ndarray  # bottom centre (x, y, z), world, y up
    yaw: float  # radians about +y
    color: str
    support: int  # instance id of the supporting object, 0 for floor/wall/structure
    mesh: Mesh  # world frame
    surfaces: list[tuple[float, float, float, float, float, float]] = field(default_factory=list)  # (y, x0, z0, x1, z1, clearance)
    local_surfaces: list[tuple[float, float, float, float, float, float]] = field(default_factory=list)  # the same, object frame
    asset: str = ""  # key of the library model it is built from ("" for a primitive)
    symmetry: str = ""  # its own symmetry class when its model's differs from the category's (a round side table)

    @property
    def aabb(self) -> tuple[np.ndarray, np.ndarray]:
        # cached per vertex array: library models have thousands of vertices and the task builders
        # ask for boxes and centres thousands of times per house
        v = self.mesh.vertices
        c = self.__dict__.get("_aabb")
        if c is None or c[0] is not v:
            c = (v, v.min(0), v.max(0))
            self.__dict__["_aabb"] = c
        return c[1].copy(), c[2].copy()

    @property
    def center(self) -> np.ndarray:
        lo, hi = self.aabb
        return (lo + hi) / 2

    @property
    def footprint(self) -> tuple[float, float, float, float]:
        lo, hi = self.aabb
        return float(lo[0]), float(lo[2]), float(hi[0]), float(hi[2])


def _local_surfaces(cat: str, size) -> list[tuple[float, float, float, float, float, float]]:
    c = CATEGORIES[cat]
    w, h, d = size
    m = 0.03
    if c.surface == "top":
        y = h + (0.03 if cat == "bed" else 0.0)
        return [(y, -w / 2 + m, -d / 2 + m, w / 2 - m, d / 2 - m, np.inf)]
    if c.surface == "shelves":
        ys = meshes.shelf_heights(h)
        gap = ys[1] - ys[0] if len(ys) > 1 else h
        out = [(y, -w / 2 + m + 0.03, -d / 2 + m, w / 2 - m - 0.03, d / 2 - m, gap - 0.06) for y in ys]
        return out + [(h, -w / 2 + m, -d / 2 + m, w / 2 - m, d / 2 - m, np.inf)]
    if c.surface == "seat":
        seat = 0.45 * h / 0.85 + 0.08 if cat in ("sofa", "armchair") else h
        arms = 0.18 if cat == "sofa" else 0.16 if cat == "armchair" else 0.0
        back = 0.2 if cat in ("sofa", "armchair") else 0.0
        return [(seat, -w / 2 + arms + m, -d / 2 + back, w / 2 - arms - m, d / 2 - m, np.inf)]
    if c.surface == "basin":
        return [(h - 0.17, -w / 2 + 0.06, -d / 2 + 0.1, w / 2 - 0.06, d / 2 - 0.06, 0.35)]
    return []


def _world_rect(yaw: float, pos, rect) -> tuple[float, float, float, float]:
    x0, z0, x1, z1 = rect
    c, s = np.cos(yaw), np.sin(yaw)
    pts = np.array([[x0, z0], [x1, z0], [x1, z1], [x0, z1]])
    wx = c * pts[:, 0] + s * pts[:, 1] + pos[0]
    wz = -s * pts[:, 0] + c * pts[:, 1] + pos[2]
    return float(wx.min()), float(wz.min()), float(wx.max()), float(wz.max())


class Placer:
    """Stateful placement of one house's objects (deterministic for a given rng)."""

    def __init__(self, plan: FloorPlan, rng: np.random.Generator, density: float = 1.0, furnisher=None, asset_rng=None):
        self.plan = plan
        self.rng = rng
        # real models (synth.assets.furnish.Furnisher): drawn from their own stream, so the primitive
        # path consumes exactly the draws it always did
        self.furnisher = furnisher
        self.asset_rng = asset_rng
        self._chosen: dict[tuple[str, tuple], object] = {}  # (category, fitted size) -> furnish.Choice
        self.density = density
        self.objects: list[PlacedObject] = []
        nx, nz = plan.grid.shape
        k = int(round(CELL / NAV_RES))
        self.nav_shape = (nx * k, nz * k)
        xs = (np.arange(self.nav_shape[0]) + 0.5) * NAV_RES
        zs = (np.arange(self.nav_shape[1]) + 0.5) * NAV_RES
        self.nav_x, self.nav_z = np.meshgrid(xs, zs, indexing="ij")
        self.nav_room = np.repeat(np.repeat(plan.grid, k, 0), k, 1)
        self.walkable = self._base_walkable()
        self.reserved = self._door_zones()
        self._sets: dict[tuple[int, str, tuple], str] = {}  # (room, category, size) -> colour of a matching set

    # --- navigation grid ---------------------------------------------------------------------
    def _solid_segments(self) -> np.ndarray:
        segs = []
        for r in self.plan.runs:
            cur = r.start
            for s0, s1, _y0, _y1, kind in r.openings:
                if kind != "door":
                    continue
                segs.append((r, cur, s0))
                cur = s1
            segs.append((r, cur, r.end))
        out = []
        for r, a, b in segs:
            if b - a <= 1e-9:
                continue
            out.append((*r.point(a), *r.point(b)))
        return np.asarray(out, float)

    def _base_walkable(self) -> np.ndarray:
        segs = self._solid_segments()
        p = np.stack([self.nav_x.ravel(), self.nav_z.ravel()], 1)
        a, b = segs[:, :2], segs[:, 2:]
        ab = b - a
        t = np.clip(((p[:, None, :] - a[None]) * ab[None]).sum(-1) / np.maximum((ab * ab).sum(-1), 1e-12)[None], 0, 1)
        closest = a[None] + t[..., None] * ab[None]
        dist = np.linalg.norm(p[:, None, :] - closest, axis=-1).min(1).reshape(self.nav_shape)
        return dist > ROBOT_RADIUS + WALL_T / 2

    def _door_zones(self) -> list[tuple[float, float, float, float]]:
        zones = []
        for r in self.plan.runs:
            for s0, s1, _y0, _y1, kind in r.openings:
                if kind != "door":
                    continue
                if r.axis == 0:
                    zones.append((s0 - 0.1, r.coord - 0.9, s1 + 0.1, r.coord + 0.9))
                else:
                    zones.append((r.coord - 0.9, s0 - 0.1, r.coord + 0.9, s1 + 0.1))
        return zones

    def _blocked(self, rect, grow=ROBOT_RADIUS) -> np.ndarray:
        x0, z0, x1, z1 = rect
        return (self.nav_x > x0 - grow) & (self.nav_x < x1 + grow) & (self.nav_z > z0 - grow) & (self.nav_z < z1 + grow)

    def connected(self, walkable: np.ndarray) -> bool:
        """True when every room has free floor and all rooms' main free areas form one region."""
        from scipy import ndimage

        lab, n = ndimage.label(walkable)
        if n == 0:
            return False
        R = len(self.plan.rooms)
        counts = np.bincount(self.nav_room[walkable] * (n + 1) + lab[walkable], minlength=R * (n + 1)).reshape(R, n + 1)
        if (counts.sum(1) == 0).any():
            return False
        main = counts.argmax(1)
        if (main != main[0]).any():
            return False
        return counts[:, main[0]].sum() >= 0.8 * walkable.sum()

    # --- helpers ------------------------------------------------------------------------------
    def _inside_room(self, rect, room: int) -> bool:
        x0, z0, x1, z1 = rect
        if x0 < 0 or z0 < 0:
            return False
        i0, j0 = int(np.floor(x0 / CELL + 1e-6)), int(np.floor(z0 / CELL + 1e-6))
        i1, j1 = int(np.ceil(x1 / CELL - 1e-6)), int(np.ceil(z1 / CELL - 1e-6))
        g = self.plan.grid
        if i1 > g.shape[0] or j1 > g.shape[1]:
            return False
        return bool((g[i0:i1, j0:j1] == room).all())

    def _hits_wall(self, rect, room: int) -> bool:
        """True when ``rect`` reaches into the thickness of one of the room's walls (doorways included:
        floor things keep out of them anyway)."""
        t = WALL_T / 2 - 1e-6
        for r in self.plan.room_runs(room):
            lo, hi = r.start - t, r.end + t
            wall = (lo, r.coord - t, hi, r.coord + t) if r.axis == 0 else (r.coord - t, lo, r.coord + t, hi)
            if self._overlap(rect, wall):
                return True
        return False

    @staticmethod
    def _overlap(a, b, gap=0.0) -> bool:
        return a[0] < b[2] + gap and b[0] < a[2] + gap and a[1] < b[3] + gap and b[1] < a[3] + gap

    def _size(self, cat: str, room: int = -1) -> tuple[float, float, float]:
        """Size prior with jitter; chairs/stools of one room usually come as an identical set."""
        if cat in MATCHING_SETS:
            prev = [k[2] for k in self._sets if k[0] == room and k[1] == cat]
            if prev and self.rng.random() < 0.85:
                return prev[0]
        base = np.asarray(CATEGORIES[cat].size)
        s = base * self.rng.uniform(0.9, 1.1) * self.rng.uniform(0.93, 1.07, 3)
        size = tuple(float(x) for x in np.round(s, 3))
        return self._fit_model(cat, size)

    def _fit_model(self, cat: str, size: tuple) -> tuple:
        """With a model library: the size of a model fitted to the sampled ``size`` (remembered for
        :meth:`_make`); the sampled size itself when no model of the category fits."""
        if self.furnisher is None:
            return size
        choice = self.furnisher.choose(cat, size, self.asset_rng)
        if choice is None:
            return size
        fitted = tuple(float(x) for x in np.round(choice.size, 4))
        self._chosen.setdefault((cat, fitted), choice)
        return fitted

    def _make(self, cat: str, room: int, size, pos, yaw, support: int = 0, choice=None) -> PlacedObject:
        c = CATEGORIES[cat]
        color = str(c.colors[int(self.rng.integers(len(c.colors)))])
        if (room, cat, size) in self._sets:
            color = self._sets[(room, cat, size)]
        elif cat in MATCHING_SETS:
            self._sets[(room, cat, size)] = color
        choice = choice or self._chosen.get((cat, tuple(size)))
        if choice is not None:  # a library model: its own colour name and support surfaces
            local = self.furnisher.mesh(choice)
            color = self.furnisher.colour(choice.model)
            surfaces = self.furnisher.surfaces(choice, cat)
        else:
            local = meshes.build(c.archetype, size, PALETTE[color], self.rng)
            surfaces = _local_surfaces(cat, size)
        mesh = local.transformed(yaw, np.asarray(pos, float))
        obj = PlacedObject(len(self.objects) + 1, cat, room, size, np.asarray(pos, float), float(yaw), color, support, mesh)
        obj.surfaces = [(s[0] + pos[1], *_world_rect(yaw, pos, s[1:5]), s[5]) for s in surfaces]
        obj.local_surfaces = list(surfaces)
        obj.asset = choice.model.key if choice is not None else ""
        obj.symmetry = choice.model.symmetry if choice is not None else ""
        return obj

    def _floor_rects(self) -> list[tuple[float, float, float, float]]:
        return [o.footprint for o in self.objects if o.support == 0 and CATEGORIES[o.category].placement in ("floor", "wall_floor")]

    def _try_floor(self, cat: str, room: int, size, pos, yaw) -> PlacedObject | None:
        w, h, d = size
        rect = _world_rect(yaw, pos, (-w / 2, -d / 2, w / 2, d / 2))
        if not self._inside_room(rect, room) or self._hits_wall(rect, room):
            return None
        if any(self._overlap(rect, r, 0.05) for r in self._floor_rects()):
            return None
        if any(self._overlap(rect, z) for z in self.reserved):
            return None
        walk = self.walkable & ~self._blocked(rect)
        if not self.connected(walk):
            return None
        obj = self._make(cat, room, size, pos, yaw)
        self.walkable = walk
        self.objects.append(obj)
        return obj

    # --- placement strategies -----------------------------------------------------------------
    def place_against_wall(self, cat: str, room: int, tries: int = 30) -> PlacedObject | None:
        runs = self.plan.room_runs(room)
        size = self._size(cat, room)
        w, h, d = size
        for _ in range(tries):
            run: WallRun = runs[int(self.rng.integers(len(runs)))]
            if run.length < w + 0.1:
                continue
            blocked = [(s0, s1) for s0, s1, y0, _y1, kind in run.openings if kind == "door" or y0 < h]
            s = self.rng.uniform(run.start + w / 2 + 0.05, run.end - w / 2 - 0.05)
            if any(s - w / 2 < b1 + 0.05 and b0 - 0.05 < s + w / 2 for b0, b1 in blocked):
                continue
            nx, nz = run.normal_into(room)
            x, z = run.point(s)
            off = WALL_T / 2 + d / 2 + 0.02
            pos = (x + nx * off, 0.0, z + nz * off)
            obj = self._try_floor(cat, room, size, pos, np.arctan2(nx, nz))
            if obj is not None:
                return obj
        return None

    def place_free(self, cat: str, room: int, tries: int = 30, anchors: list | None = None) -> PlacedObject | None:
        size = self._size(cat, room)
        cand = list(anchors or [])
        for pos, yaw in cand:
            obj = self._try_floor(cat, room, size, pos, yaw)
            if obj is not None:
                return obj
        cells = np.argwhere(self.plan.grid == room)
        for _ in range(tries):
            i, j = cells[int(self.rng.integers(len(cells)))]
            x, z = (i + self.rng.random()) * CELL, (j + self.rng.random()) * CELL
            yaw = float(self.rng.integers(4)) * np.pi / 2
            obj = self._try_floor(cat, room, size, (x, 0.0, z), yaw)
            if obj is not None:
                return obj
        return None

    def anchors_for(self, cat: str, room: int) -> list:
        """Preferred (position, yaw) spots: chairs round tables, coffee table before the sofa, ..."""
        here = [o for o in self.objects if o.room == room]
        out = []
        size = CATEGORIES[cat].size

        def front_of(o: PlacedObject, dist: float, turn: float = np.pi):
            fx, fz = np.sin(o.yaw), np.cos(o.yaw)
            return ((o.position[0] + fx * dist, 0.0, o.position[2] + fz * dist), o.yaw + turn)

        if cat == "chair":
            for o in here:
                if o.category == "diningtable":
                    w, _, d = o.size
                    for side in self.rng.permutation(4):
                        ang = o.yaw + side * np.pi / 2
                        reach = (d if side % 2 == 0 else w) / 2 + 0.25
                        out.append(((o.position[0] + np.sin(ang) * reach, 0.0, o.position[2] + np.cos(ang) * reach), ang + np.pi))
                elif o.category == "desk":
                    out.append(front_of(o, o.size[2] / 2 + 0.3))
        elif cat == "stool":
            for o in here:
                if o.category == "countertop":
                    out.append(front_of(o, o.size[2] / 2 + 0.35))
        elif cat == "coffeetable":
            for o in here:
                if o.category == "sofa":
                    out.append(front_of(o, o.size[2] / 2 + 0.45 + size[2] / 2, 0.0))
        elif cat == "sidetable":
            for o in here:
                if o.category in ("bed", "sofa"):
                    rx, rz = np.cos(o.yaw), -np.sin(o.yaw)
                    for sgn in (-1, 1):
                        dist = o.size[0] / 2 + size[0] / 2 + 0.08
                        back = -(o.size[2] - size[2]) / 2
                        fx, fz = np.sin(o.yaw), np.cos(o.yaw)
                        out.append(((o.position[0] + sgn * rx * dist + fx * back, 0.0, o.position[2] + sgn * rz * dist + fz * back), o.yaw))
        elif cat == "armchair":
            for o in here:
                if o.category == "coffeetable":
                    for sgn in (-1, 1):
                        rx, rz = np.cos(o.yaw), -np.sin(o.yaw)
                        dist = o.size[0] / 2 + 0.6
                        out.append(((o.position[0] + sgn * rx * dist, 0.0, o.position[2] + sgn * rz * dist), o.yaw - sgn * np.pi / 2))
        return out

    def place_on_support(self, cat: str, room: int, tries: int = 20) -> PlacedObject | None:
        c = CATEGORIES[cat]
        sups = [o for o in self.objects if o.room == room and o.category in c.supports and o.surfaces]
        if not sups:
            return None
        size = self._size(cat)
        w, h, d = size
        for _ in range(tries):
            sup = sups[int(self.rng.integers(len(sups)))]
            if cat == "faucet":
                sw, sh, sd = sup.size
                fx, fz = np.sin(sup.yaw), np.cos(sup.yaw)
                back = -sd / 2 + d / 2
                pos = (sup.position[0] + fx * back, sup.position[1] + sh, sup.position[2] + fz * back)
                if any(o.support == sup.index and o.category == "faucet" for o in self.objects):
                    return None
                obj = self._make(cat, room, size, pos, sup.yaw, support=sup.index)
                self.objects.append(obj)
                return obj
            k = int(self.rng.integers(len(sup.surfaces)))
            y, x0, z0, x1, z1, clear = sup.surfaces[k]
            if h > clear:
                continue
            if cat in _FIT_TO_SUPPORT:  # a TV no wider than its stand's top (else the stand stays bare)
                ls = sup.local_surfaces[k]
                w = min(size[0], round(ls[3] - ls[1] - 0.01, 3))
                choice = self._chosen.get((cat, tuple(size)))
                if choice is not None and w < size[0]:  # a model shrinks uniformly, never squashed
                    choice = self.furnisher.resized(choice.model, choice.scale * w / size[0])
                    size = tuple(float(x) for x in np.round(choice.size, 4))
                    self._chosen.setdefault((cat, size), choice)
                    w, h, d = size
                else:
                    size = (w, h, d)
            yaw = sup.yaw if cat in _FACING else float(self.rng.uniform(0, 2 * np.pi))
            hw, hd = _world_rect(yaw, (0, 0, 0), (-w / 2, -d / 2, w / 2, d / 2))[2:]
            if x1 - x0 < 2 * hw or z1 - z0 < 2 * hd:
                continue
            x = self.rng.uniform(x0 + hw, x1 - hw)
            z = self.rng.uniform(z0 + hd, z1 - hd)
            if cat in _FACING:  # push towards the back of the support, like a real TV or microwave
                fx, fz = np.sin(sup.yaw), np.cos(sup.yaw)
                x = float(np.clip(x - fx * 10, x0 + hw, x1 - hw))
                z = float(np.clip(z - fz * 10, z0 + hd, z1 - hd))
            rect = (x - hw, z - hd, x + hw, z + hd)
            if any(
                o.support == sup.index and abs(o.position[1] - y) < 1e-6 and self._overlap(rect, o.footprint, 0.01) for o in self.objects
            ):
                continue
            obj = self._make(cat, room, size, (x, y, z), yaw, support=sup.index)
            self.objects.append(obj)
            return obj
        return None

    def place_on_wall(self, cat: str, room: int, tries: int = 20) -> PlacedObject | None:
        runs = self.plan.room_runs(room)
        size = self._size(cat)
        w, h, d = size
        for _ in range(tries):
            run = runs[int(self.rng.integers(len(runs)))]
            if run.length < w + 0.4:
                continue
            s = self.rng.uniform(run.start + w / 2 + 0.2, run.end - w / 2 - 0.2)
            y = float(self.rng.uniform(1.2, 1.6))
            if y + h > self.plan.height - 0.1:
                continue
            if any(s - w / 2 < s1 + 0.1 and s0 - 0.1 < s + w / 2 for s0, s1, *_ in run.openings):
                continue
            nx, nz = run.normal_into(room)
            x, z = run.point(s)
            off = WALL_T / 2 + d / 2 + 0.005
            pos = (x + nx * off, y, z + nz * off)
            rect = _world_rect(np.arctan2(nx, nz), pos, (-w / 2, -d / 2, w / 2, d / 2))
            if any(self._overlap(rect, o.footprint, 0.05) and o.aabb[1][1] > y for o in self.objects if o.support == 0):
                continue
            obj = self._make(cat, room, size, pos, np.arctan2(nx, nz))
            self.objects.append(obj)
            return obj
        return None

    def place_structure(self) -> None:
        """Doorway frames in door openings and windows in window openings (they are objects too)."""
        for run in self.plan.runs:
            for s0, s1, y0, y1, kind in run.openings:
                room = max(run.rooms)
                x, z = run.point((s0 + s1) / 2)
                yaw = 0.0 if run.axis == 0 else np.pi / 2
                cat = "doorway" if kind == "door" else "window"
                size = (round(s1 - s0, 3), round(y1 - y0, 3), WALL_T + 0.04)
                # a door or window model fills the opening exactly, as the primitive frame does
                choice = self.furnisher.choose_opening(cat, size, self.asset_rng) if self.furnisher is not None else None
                self.objects.append(self._make(cat, room, size, (x, y0, z), yaw, choice=choice))

    def furnish(self) -> list[PlacedObject]:
        self.place_structure()
        for room in self.plan.rooms:
            spec = ROOM_CONTENTS[room.type]
            # big things first so anchors exist before chairs/stools/coffee tables look for them
            order = sorted(spec, key=lambda e: {"wall_floor": 0, "floor": 1, "wall": 2, "surface": 3}.get(CATEGORIES[e[0]].placement, 4))
            for cat, p, lo, hi in order:
                p_eff = p if p >= 0.95 else min(1.0, p * self.density)
                if self.rng.random() >= p_eff:
                    continue
                tries = 80 if p >= 0.95 else 30  # essentials (the bed, the toilet) get more attempts
                for _ in range(int(self.rng.integers(lo, hi + 1))):
                    kind = CATEGORIES[cat].placement
                    if kind == "wall_floor" or (kind == "floor" and room.type == "hallway"):
                        self.place_against_wall(cat, room.index, tries=tries)
                    elif kind == "floor":
                        self.place_free(cat, room.index, tries=tries, anchors=self.anchors_for(cat, room.index))
                    elif kind == "wall":
                        self.place_on_wall(cat, room.index)
                    elif kind == "surface":
                        self.place_on_support(cat, room.index)
        return self.objects
