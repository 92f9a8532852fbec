"""Procedural floor plans: typed rooms on a 0.5 m grid, walls, doorways, windows.

A rectangle is split recursively (binary space partition); some neighbouring pieces whose shared
edge is only partial are merged, giving L- and T-shaped rooms. Walls lie on grid lines between
cells of different rooms (or outside); doors are cut into shared walls along a random spanning
tree of the room adjacency graph (plus one front door), windows into exterior walls.

Coordinates: metres, world y up; the plan lives in the (x, z) plane with the house's corner at the
origin.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

CELL = 0.5  # metres per plan cell
WALL_T = 0.1  # wall thickness (m)
DOOR_H = 2.1

ROOM_TYPES = ("living room", "kitchen", "bedroom", "bathroom", "dining room", "office")


@dataclass
class WallRun:
    """A straight wall on a grid line. ``axis`` 0: runs along x at z=coord; 1: runs along z at x=coord."""

    axis: int
    coord: float
    start: float
    end: float
    rooms: tuple[int, int]  # room on the low side, room on the high side (-1 = outside)
    openings: list[tuple[float, float, float, float, str]] = field(default_factory=list)  # (s0, s1, y0, y1, kind)

    @property
    def length(self) -> float:
        return self.end - self.start

    def point(self, s: float) -> tuple[float, float]:
        """(x, z) of the position ``s`` along the run."""
        return (s, self.coord) if self.axis == 0 else (self.coord, s)

    def normal_into(self, room: int) -> tuple[float, float]:
        """Unit (x, z) normal pointing from the wall into ``room``."""
        sign = 1.0 if self.rooms[1] == room else -1.0
        return (0.0, sign) if self.axis == 0 else (sign, 0.0)


@dataclass
class Room:
    index: int
    type: str
    mask: np.ndarray  # (nx, nz) bool cells of this room
    polygon: list[tuple[float, float]]  # exterior ring (x, z), counter-clockwise, not closed

    @property
    def area(self) -> float:
        return float(self.mask.sum()) * CELL * CELL


@dataclass
class FloorPlan:
    grid: np.ndarray  # (nx, nz) int room index per cell
    rooms: list[Room]
    runs: list[WallRun]
    height: float

    @property
    def extent(self) -> tuple[float, float]:
        return self.grid.shape[0] * CELL, self.grid.shape[1] * CELL

    def room_runs(self, room: int) -> list[WallRun]:
        return [r for r in self.runs if room in r.rooms]


def _split(rng: np.random.Generator, n_leaves: int, nx: int, nz: int, min_side: int = 5) -> list[tuple[int, int, int, int]]:
    leaves = [(0, 0, nx, nz)]
    while len(leaves) < n_leaves:
        order = sorted(range(len(leaves)), key=lambda k: -(leaves[k][2] - leaves[k][0]) * (leaves[k][3] - leaves[k][1]))
        for k in order:
            i0, j0, i1, j1 = leaves[k]
            w, d = i1 - i0, j1 - j0
            axis = 0 if (w > d or (w == d and rng.random() < 0.5)) else 1
            side = w if axis == 0 else d
            if side < 2 * min_side:
                axis = 1 - axis
                side = w if axis == 0 else d
                if side < 2 * min_side:
                    continue
            cut = int(rng.integers(max(min_side, int(side * 0.35)), min(side - min_side, int(np.ceil(side * 0.65))) + 1))
            if axis == 0:
                a, b = (i0, j0, i0 + cut, j1), (i0 + cut, j0, i1, j1)
            else:
                a, b = (i0, j0, i1, j0 + cut), (i0, j0 + cut, i1, j1)
            leaves[k : k + 1] = [a, b]
            break
        else:
            break  # nothing splittable any more
    return leaves


def _polygon(mask: np.ndarray) -> list[tuple[float, float]]:
    from shapely.geometry import box as sbox
    from shapely.ops import unary_union

    ii, jj = np.nonzero(mask)
    poly = unary_union([sbox(i * CELL, j * CELL, (i + 1) * CELL, (j + 1) * CELL) for i, j in zip(ii, jj)])
    poly = poly.simplify(1e-6)
    from shapely.geometry.polygon import orient

    ring = list(orient(poly, 1.0).exterior.coords)[:-1]
    return [(round(x, 4), round(z, 4)) for x, z in ring]


def _runs(grid: np.ndarray) -> list[WallRun]:
    pad = np.pad(grid, 1, constant_values=-1)
    runs: list[WallRun] = []
    # lines x = i*CELL between columns i-1 and i (runs along z)
    for i in range(grid.shape[0] + 1):
        left, right = pad[i, 1:-1], pad[i + 1, 1:-1]
        runs += _collect(left, right, axis=1, coord=i * CELL)
    for j in range(grid.shape[1] + 1):
        low, high = pad[1:-1, j], pad[1:-1, j + 1]
        runs += _collect(low, high, axis=0, coord=j * CELL)
    return runs


def _collect(a: np.ndarray, b: np.ndarray, axis: int, coord: float) -> list[WallRun]:
    out = []
    start = None
    cur: tuple[int, int] | None = None  # the label pair of the run that starts at `start`
    for k in range(len(a) + 1):
        pair = (int(a[k]), int(b[k])) if k < len(a) else None
        differs = pair is not None and pair[0] != pair[1]
        if start is not None and (not differs or pair != cur):
            out.append(WallRun(axis, coord, start * CELL, k * CELL, cur))
            start = None
        if differs and start is None:
            start, cur = k, pair
    return out


def make_floorplan(rng: np.random.Generator, n_rooms: int) -> FloorPlan:
    """A house of ``n_rooms`` (2-8) typed rooms; some rooms are L/T-shaped unions of pieces."""
    if not 2 <= n_rooms <= 8:
        raise ValueError("n_rooms must be 2..8")
    n_merge = int(rng.integers(0, 1 + (n_rooms + 1) // 3))
    n_leaves = n_rooms + n_merge
    area_cells = n_leaves * rng.uniform(9.0, 15.0) / (CELL * CELL)
    aspect = rng.uniform(1.0, 1.5)
    nx = max(10, int(round(np.sqrt(area_cells * aspect))))
    nz = max(10, int(round(area_cells / nx)))
    if rng.random() < 0.5:
        nx, nz = nz, nx
    leaves = _split(rng, n_leaves, nx, nz)
    grid = np.full((nx, nz), -1, int)
    for k, (i0, j0, i1, j1) in enumerate(leaves):
        grid[i0:i1, j0:j1] = k
    groups = list(range(len(leaves)))  # leaf -> group label
    n_groups = len(leaves)
    while n_groups > n_rooms:
        partial, full = [], []
        for r in _runs(_relabel(grid, groups)):
            a, b = r.rooms
            if a < 0 or b < 0 or a == b or r.length < 2.0:
                continue
            la, lb = _group_side(grid, groups, a, r), _group_side(grid, groups, b, r)
            # a partial but wide shared edge makes an L/T room one can walk through
            (partial if r.length < min(la, lb) - 1e-9 else full).append((a, b))
        cand = partial or full  # fall back to a plain union so the room count is always met
        if not cand:
            break
        a, b = cand[int(rng.integers(len(cand)))]
        groups = [a if g == b else g for g in groups]
        n_groups -= 1
    grid = _relabel(grid, groups)
    # compact labels 0..R-1 ordered by area (largest first) for type assignment
    labels, counts = np.unique(grid, return_counts=True)
    order = labels[np.lexsort((labels, -counts))]
    remap = {int(old): new for new, old in enumerate(order)}
    grid = np.vectorize(remap.get)(grid)
    n = len(order)
    types = _room_types(rng, n)
    rooms = [Room(k, types[k], grid == k, _polygon(grid == k)) for k in range(n)]
    runs = _runs(grid)
    height = float(np.round(rng.uniform(2.5, 3.0), 2))
    plan = FloorPlan(grid, rooms, runs, height)
    _cut_doors(rng, plan)
    _cut_windows(rng, plan)
    return plan


def _relabel(grid: np.ndarray, groups: list[int]) -> np.ndarray:
    return np.asarray(groups)[grid]


def _group_side(grid, groups, g, run: WallRun) -> float:
    """Extent of group ``g`` along the run's direction (m)."""
    mask = _relabel(grid, groups) == g
    idx = np.nonzero(mask.any(axis=1 if run.axis == 0 else 0))[0]
    return (idx.max() - idx.min() + 1) * CELL


def _room_types(rng: np.random.Generator, n: int) -> list[str]:
    """Largest room is the living room; then kitchen, bedroom, bathroom (smallest); the rest varies."""
    if n == 2:
        return ["living room", "bathroom"] if rng.random() < 0.5 else ["bedroom", "bathroom"]
    core = ["living room", "kitchen", "bedroom"]
    extra = list(rng.choice(["bedroom", "dining room", "office", "bedroom"], size=max(0, n - 4)))
    types = core + [str(e) for e in extra]
    types = types[: n - 1] + ["bathroom"]
    return types


def _cut_doors(rng: np.random.Generator, plan: FloorPlan) -> None:
    n = len(plan.rooms)
    shared = [r for r in plan.runs if min(r.rooms) >= 0 and r.length >= 3 * CELL]
    connected = {0}
    order = list(rng.permutation(len(shared)))
    # random spanning tree (Prim-like over shuffled candidate walls)
    while len(connected) < n:
        for k in order:
            r = shared[k]
            a, b = r.rooms
            if (a in connected) != (b in connected) and _open(rng, r, "door", 0.0, DOOR_H):
                connected |= {a, b}
                break
        else:
            break  # disconnected plan (cannot happen for BSP pieces with long shared walls)
    # maybe one extra door for loops
    spare = [r for r in shared if not r.openings]
    if spare and rng.random() < 0.3:
        _open(rng, spare[int(rng.integers(len(spare)))], "door", 0.0, DOOR_H)
    front = [r for r in plan.runs if min(r.rooms) < 0 and max(r.rooms) == 0 and r.length >= 3 * CELL]
    if front:
        _open(rng, front[int(rng.integers(len(front)))], "door", 0.0, DOOR_H)


def _cut_windows(rng: np.random.Generator, plan: FloorPlan) -> None:
    for room in plan.rooms:
        ext = [r for r in plan.runs if min(r.rooms) < 0 and max(r.rooms) == room.index and r.length >= 3 * CELL]
        rng.shuffle(ext)
        k = int(rng.integers(1, 3)) if room.type != "bathroom" else int(rng.integers(0, 2))
        for r in ext[:k]:
            sill = float(np.round(rng.uniform(0.8, 1.0), 2))
            _open(rng, r, "window", sill, min(plan.height - 0.3, sill + float(np.round(rng.uniform(1.0, 1.3), 2))))


def _open(rng: np.random.Generator, run: WallRun, kind: str, y0: float, y1: float) -> bool:
    width = 1.0 if kind == "door" else float(np.round(rng.uniform(0.8, 1.4), 2))
    margin = 0.2
    free = _free_intervals(run, margin)
    free = [(a, b) for a, b in free if b - a >= width]
    if not free:
        return False
    a, b = free[int(rng.integers(len(free)))]
    s0 = float(np.round(rng.uniform(a, b - width), 2))
    run.openings.append((s0, s0 + width, y0, y1, kind))
    run.openings.sort()
    return True


def _free_intervals(run: WallRun, margin: float) -> list[tuple[float, float]]:
    out = []
    cur = run.start + margin
    for s0, s1, *_ in sorted(run.openings):
        if s0 - margin > cur:
            out.append((cur, s0 - margin))
        cur = max(cur, s1 + margin)
    if run.end - margin > cur:
        out.append((cur, run.end - margin))
    return out
