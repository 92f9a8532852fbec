"""Procedural floor plans: typed rooms on a 0.5 m grid, walls, doorways, windows.

A rectangle is split recursively (binary space partition); some neighbouring pieces whose shared
edge is only partial are merged, giving L- and T-shaped rooms. Walls lie on grid lines between
cells of different rooms (or outside); doors are cut into shared walls along a random spanning
tree of the room adjacency graph (plus one front door), windows into exterior walls.

Houses of four or more rooms usually get a hallway instead (``_hallway_layout``), as ProcTHOR-like
houses do: a public zone (living room, kitchen, maybe a dining room) at one end and a straight
corridor 1.0 or 1.5 m wide running from it through the private zone, with bedrooms, bathrooms and
offices on both sides. Every private room has its one door into the hallway and the hallway one
into the public room at its end, so walking between zones goes through the hallway.

Coordinates: metres, world y up; the plan lives in the (x, z) plane with the house's corner at the
origin.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

CELL = 0.5  # metres per plan cell
WALL_T = 0.1  # wall thickness (m)
DOOR_H = 2.1

HALLWAY = "hallway"
ROOM_TYPES = ("living room", "kitchen", "bedroom", "bathroom", "dining room", "office", HALLWAY)
PUBLIC_TYPES = ("living room", "kitchen", "dining room")
HALLWAY_WIDTHS = (2, 3)  # plan cells between the hallway's wall centres: 1.0 or 1.5 m
# chance of a hallway by room count (the hallway is one of the ``n_rooms``)
HALLWAY_CHANCE = {4: 0.5, 5: 0.75, 6: 0.75, 7: 0.75, 8: 0.75}


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


def make_floorplan(rng: np.random.Generator, n_rooms: int, *, hallways: bool = True) -> FloorPlan:
    """A house of ``n_rooms`` (2-8) typed rooms; some rooms are L/T-shaped unions of pieces. With
    ``hallways``, a house of four or more rooms gets a hallway (one of its rooms) with the chance
    ``HALLWAY_CHANCE``."""
    if not 2 <= n_rooms <= 8:
        raise ValueError("n_rooms must be 2..8")
    if hallways and rng.random() < HALLWAY_CHANCE.get(n_rooms, 0.0):
        grid, types = _hallway_layout(rng, n_rooms)
        return _finish(rng, grid, types)
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
    types = _room_types(rng, len(order))
    return _finish(rng, grid, types)


def _finish(rng: np.random.Generator, grid: np.ndarray, types: list[str]) -> FloorPlan:
    """Rooms, walls, ceiling height, doors and windows of a labelled grid (labels 0..R-1)."""
    n = len(types)
    rooms = [Room(k, types[k], grid == k, _polygon(grid == k)) for k in range(n)]
    runs = _runs(grid)
    height = float(np.round(rng.uniform(2.5, 3.0), 2))
    plan = FloorPlan(grid, rooms, runs, height)
    _cut_doors(rng, plan)
    _cut_windows(rng, plan)
    return plan


def _pieces(rng: np.random.Generator, total: int, n: int, min_len: int) -> list[int]:
    """``n`` lengths of at least ``min_len`` cells summing to ``total``."""
    extra = rng.multinomial(total - n * min_len, [1.0 / n] * n)
    return [min_len + int(e) for e in extra]


def _hallway_layout(rng: np.random.Generator, n_rooms: int) -> tuple[np.ndarray, list[str]]:
    """A labelled grid with a straight hallway and its room types (living room 0, hallway last).

    Built with x along the hallway: the public zone fills x < ``ip`` over the whole depth; beyond
    it the hallway (``w`` cells wide) runs to the far outside wall with private rooms on both
    sides. Public pieces are cut so that the hallway's end wall borders one public room only.
    The grid is then mirrored and/or transposed at random.
    """
    m = n_rooms - 1  # rooms besides the hallway
    if m == 3:
        pub = ["living room"]
    else:
        pub = ["living room", "kitchen", "dining room"][: 3 if (m >= 6 and rng.random() < 0.5) else 2]
    n_priv = m - len(pub)
    w = int(HALLWAY_WIDTHS[int(rng.integers(len(HALLWAY_WIDTHS)))])
    d_a, d_b = (int(d) for d in rng.integers(5, 9, size=2))  # private rooms 2.5-4 m deep
    n_a = (n_priv + int(rng.integers(2))) // 2
    n_b = n_priv - n_a
    # 2.5-4 m per room along the hallway, and a hallway at least 4 m long
    length = max(8, int(rng.integers(5, 9, size=max(n_a, n_b)).sum()))
    nz = d_a + w + d_b
    jc = d_a  # hallway rows jc .. jc + w - 1
    area = (rng.uniform(16.0, 24.0) + sum(rng.uniform(9.0, 16.0) for _ in pub[1:])) / (CELL * CELL)
    ip = max(10 if len(pub) == 3 else 6, int(round(area / nz)))
    grid = np.full((ip + length, nz), -1, int)
    # public pieces (x0, z0, x1, z1), the one holding the hallway's end first
    pieces: list[tuple[int, int, int, int]] = [(0, 0, ip, nz)]
    if len(pub) >= 2:
        if len(pub) == 2 and ip >= 10 and rng.random() < 0.5:
            c = int(rng.integers(5, ip - 4))
            pieces = [(c, 0, ip, nz), (0, 0, c, nz)]
        else:  # along the hallway's wall line, so its end stays within one room
            c = jc if rng.random() < 0.5 else jc + w
            near, far = ((0, c, ip, nz), (0, 0, ip, c)) if c == jc else ((0, 0, ip, c), (0, c, ip, nz))
            pieces = [near, far]
            if len(pub) == 3:
                k = int(rng.integers(2))
                x0, z0, x1, z1 = pieces[k]
                c = int(rng.integers(5, ip - 4))
                pieces[k : k + 1] = [(c, z0, x1, z1), (x0, z0, c, z1)]
    for k, (x0, z0, x1, z1) in enumerate(pieces):
        grid[x0:x1, z0:z1] = k
    lab = len(pieces)
    priv: list[int] = []
    for z0, z1, n_side in ((0, jc, n_a), (jc + w, nz, n_b)):
        x = ip
        for ln in _pieces(rng, length, n_side, 4):
            grid[x : x + ln, z0:z1] = lab
            priv.append(lab)
            x += ln
            lab += 1
    hall = lab
    grid[ip:, jc : jc + w] = hall
    # types: the largest public piece is the living room; the smallest private room a bathroom,
    # the largest a bedroom, the rest bedrooms or offices
    areas = np.bincount(grid.ravel(), minlength=hall + 1)
    types: dict[int, str] = {}
    for t, k in zip(pub, sorted(range(len(pieces)), key=lambda k: (-areas[k], k))):
        types[k] = t
    by_area = sorted(priv, key=lambda k: (-areas[k], k))
    types[by_area[-1]] = "bathroom"
    types[by_area[0]] = "bedroom"
    for k in by_area[1:-1]:
        types[k] = str(rng.choice(["bedroom", "office", "bedroom"]))
    types[hall] = HALLWAY
    # indices: living room 0, then by area (largest first), the hallway last
    order = sorted(range(hall), key=lambda k: (types[k] != "living room", -areas[k], k)) + [hall]
    remap = np.empty(hall + 1, int)
    remap[order] = np.arange(hall + 1)
    grid = remap[grid]
    if rng.random() < 0.5:
        grid = grid[::-1]
    if rng.random() < 0.5:
        grid = grid[:, ::-1]
    if rng.random() < 0.5:
        grid = grid.T
    return np.ascontiguousarray(grid), [types[k] for k in order]


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
    halls = [r.index for r in plan.rooms if r.type == HALLWAY]
    if halls:
        _cut_hallway_doors(rng, plan, halls[0])
        return
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


def _cut_hallway_doors(rng: np.random.Generator, plan: FloorPlan, hall: int) -> None:
    """One door from the hallway into every room it borders (an open archway over the whole end
    wall when that is too short for a door), doors between the public rooms along a random
    spanning tree, and the front door into the living room. Private rooms get no other doors, so
    every way between two of them or to the public zone leads through the hallway."""
    connected = {hall}
    for r in plan.runs:
        if hall not in r.rooms or min(r.rooms) < 0:
            continue
        other = r.rooms[0] if r.rooms[1] == hall else r.rooms[1]
        if other in connected:
            continue
        if _open(rng, r, "door", 0.0, DOOR_H):
            connected.add(other)
        elif r.length >= 2 * CELL - 1e-9 and not r.openings:
            r.openings.append((r.start, r.end, 0.0, DOOR_H, "door"))
            connected.add(other)
    public = {r.index for r in plan.rooms if r.type in PUBLIC_TYPES}
    shared = [r for r in plan.runs if set(r.rooms) <= public and r.rooms[0] != r.rooms[1] and r.length >= 3 * CELL]
    order = list(rng.permutation(len(shared)))
    while not public <= connected:
        for k in order:
            a, b = shared[k].rooms
            if (a in connected) != (b in connected) and _open(rng, shared[k], "door", 0.0, DOOR_H):
                connected |= {a, b}
                break
        else:
            break
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
    s0 = float(np.round(rng.uniform(a, max(a, b - width)), 2))  # b - width can round below a when b - a == width
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
