"""Scene-graph facts shared by the task generators: visibility, boxes, unique descriptions, relations.

Position relations follow 3DBench's 0.5 m rule on object centres (world x/z, y up): above/below
when |dy| > 0.5 and both horizontal offsets are < 0.5; left/right when |dx| > 0.5 and |dz| < 0.5;
front/behind when |dz| > 0.5 and |dx| < 0.5; diagonal when both |dx| and |dz| > 0.5. scenebench's
words: *left* = smaller x, *front* = larger z (towards the bottom of the top-down preview).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from scenebench.synth.categories import CATEGORIES
from scenebench.synth.frames import IDENTITY, WorldFrame
from scenebench.synth.house import House
from scenebench.synth.placement import PlacedObject

THRESHOLD = 0.5
RELATIONS = ("left", "right", "front", "behind", "front-left", "front-right", "behind-left", "behind-right", "above", "below")
VERTICAL = {"above", "below"}
_PHRASE = {
    "left": "is to the left of",
    "right": "is to the right of",
    "front": "is in front of",
    "behind": "is behind",
    "front-left": "is in front of and to the left of",
    "front-right": "is in front of and to the right of",
    "behind-left": "is behind and to the left of",
    "behind-right": "is behind and to the right of",
    "above": "is above",
    "below": "is below",
}


def relation(a_center: np.ndarray, b_center: np.ndarray, thr: float = THRESHOLD) -> str | None:
    """Relation of A to B by the 0.5 m rule, or None when no rule applies."""
    dx, dy, dz = (np.asarray(a_center, float) - np.asarray(b_center, float))[:3]
    ax, ay, az = abs(dx), abs(dy), abs(dz)
    if ay > thr and ax < thr and az < thr:
        return "above" if dy > 0 else "below"
    if ax > thr and az < thr:
        return "right" if dx > 0 else "left"
    if az > thr and ax < thr:
        return "front" if dz > 0 else "behind"
    if ax > thr and az > thr:
        return ("front" if dz > 0 else "behind") + "-" + ("right" if dx > 0 else "left")
    return None


def sentence(rel: str, a: str, b: str) -> str:
    return f"The {a} {_PHRASE[rel]} the {b}."


def viewer_frame(eye: np.ndarray, look_at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit (forward, right) vectors in the floor plane (world x, z) of someone standing at ``eye``
    and facing ``look_at`` (y up; right = forward x up)."""
    fwd = np.asarray(look_at, float)[[0, 2]] - np.asarray(eye, float)[[0, 2]]
    fwd = fwd / max(float(np.linalg.norm(fwd)), 1e-9)
    return fwd, np.array([-fwd[1], fwd[0]])


def view_relation(a_center: np.ndarray, b_center: np.ndarray, fwd: np.ndarray, right: np.ndarray, thr: float = THRESHOLD) -> str | None:
    """Relation of A to B seen by a viewer with floor-plane axes ``fwd``/``right`` (0.5 m rule).

    *front* = nearer the viewer than B (offset against the viewing direction), *behind* = farther;
    *left*/*right* are the viewer's. Vertical relations as in :func:`relation`."""
    d = np.asarray(a_center, float) - np.asarray(b_center, float)
    dxz = d[[0, 2]]
    r, f = float(dxz @ right), float(dxz @ fwd)
    local = np.array([r, d[1], -f])  # x = viewer's right, z = towards the viewer: the world rule then applies
    return relation(local, np.zeros(3), thr)


def box6(o: PlacedObject, world: WorldFrame = IDENTITY) -> list[float]:
    """Axis-aligned box ``[cx, cy, cz, dx, dy, dz]`` (y up) in the house's ``world`` frame, rounded to 2 decimals."""
    lo, hi = o.aabb
    c, s = (lo + hi) / 2, hi - lo
    return world.box6([float(v) for v in (*c, *s)])


def room_box(house: House, room_index: int) -> list[float]:
    """Room box ``[x, z, y, lx, lz, h]`` from the floor polygon up to the ceiling, rounded to 2 decimals."""
    poly = np.asarray(house.plan.rooms[room_index].polygon)
    x0, z0 = poly.min(0)
    x1, z1 = poly.max(0)
    h = house.plan.height
    return house.world.room_box([float(v) for v in ((x0 + x1) / 2, (z0 + z1) / 2, h / 2, x1 - x0, z1 - z0, h)])


def words(cat: str) -> str:
    return CATEGORIES[cat].words


class SceneFacts:
    """What questions may rely on: visible objects, counts, unique categories, descriptions."""

    def __init__(self, house: House, coverage: dict[int, int], min_points: int):
        self.house = house
        self.coverage = coverage
        self.min_points = min_points
        self.visible = [o for o in house.objects if coverage.get(o.index, 0) >= min_points]
        self.counts = Counter(o.category for o in house.objects)
        self.visible_ids = {o.index for o in self.visible}

    def room_type(self, o: PlacedObject) -> str:
        return self.house.plan.rooms[o.room].type

    def all_visible(self, cat: str) -> bool:
        """Every instance of ``cat`` is seen well enough to be counted/detected."""
        return all(o.index in self.visible_ids for o in self.house.objects if o.category == cat)

    def unique_visible(self) -> list[PlacedObject]:
        return [o for o in self.visible if self.counts[o.category] == 1]

    def support_cat(self, o: PlacedObject) -> str | None:
        return self.house.object(o.support).category if o.support else None

    _PATTERNS = (
        (False, False, False),
        (True, False, False),
        (False, True, False),
        (True, True, False),
        (False, False, True),
        (True, False, True),
        (True, True, True),
    )

    def _key(self, o: PlacedObject, use: tuple[bool, bool, bool]) -> tuple:
        color, room, sup = use
        return (o.category, o.color if color else None, self.room_type(o) if room else None, self.support_cat(o) if sup else None)

    def describe(self, o: PlacedObject) -> str | None:
        """Shortest description that fits ``o`` and no other object of the house, or None."""
        if not hasattr(self, "_key_counts"):
            self._key_counts = [Counter(self._key(p, use) for p in self.house.objects) for use in self._PATTERNS]
            self._described: dict[int, str | None] = {}
        if o.index in self._described:
            return self._described[o.index]
        text = None
        for use, counts in zip(self._PATTERNS, self._key_counts):
            if use[2] and not o.support:
                continue
            if counts[self._key(o, use)] == 1:
                text = (f"{o.color} " if use[0] else "") + words(o.category)
                if use[2]:
                    text += f" on the {words(self.support_cat(o))}"
                if use[1]:
                    text += f" in the {self.room_type(o)}"
                break
        self._described[o.index] = text
        return text

    def nearest(self, o: PlacedObject) -> PlacedObject | None:
        others = [p for p in self.visible if p.index != o.index and p.category not in ("doorway", "window") and p.category != o.category]
        if not others:
            return None
        d = [float(np.linalg.norm(p.center - o.center)) for p in others]
        return others[int(np.argmin(d))]
