"""Floor plans (typed rooms, L shapes, doors, windows) and the placement rules."""

from __future__ import annotations

import numpy as np
import pytest

from scenebench.synth.categories import CATEGORIES
from scenebench.synth.floorplan import CELL, ROOM_TYPES, make_floorplan
from scenebench.synth.house import build_house
from scenebench.synth.placement import Placer


@pytest.fixture(scope="module")
def houses():
    return [build_house(3, i) for i in range(8)]


def test_room_counts_types_and_shapes():
    n_rect = n_other = 0
    for seed in range(60):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(2, 9))
        plan = make_floorplan(rng, n)
        assert 2 <= len(plan.rooms) <= 8
        assert all(r.type in ROOM_TYPES for r in plan.rooms)
        assert sum(r.type == "bathroom" for r in plan.rooms) >= 1
        # every cell belongs to exactly one room and the room polygon has the room's area
        assert (plan.grid >= 0).all()
        for r in plan.rooms:
            xy = np.asarray(r.polygon)
            area = 0.5 * abs(np.dot(xy[:, 0], np.roll(xy[:, 1], 1)) - np.dot(xy[:, 1], np.roll(xy[:, 0], 1)))
            assert area == pytest.approx(r.area)
            n_rect += len(r.polygon) == 4
            n_other += len(r.polygon) > 4
    assert n_other > 0 and n_rect > 0  # not all rooms are rectangles


def test_doors_windows_and_walls(houses):
    for h in houses:
        for run in h.plan.runs:
            for s0, s1, y0, y1, kind in run.openings:
                assert run.start <= s0 < s1 <= run.end
                if kind == "window":
                    assert min(run.rooms) < 0 and 0 < y0 < y1 < h.plan.height  # windows only in outside walls
                else:
                    assert y0 == 0
        # walls lie exactly where neighbouring cells belong to different rooms
        for run in h.plan.runs:
            assert run.rooms[0] != run.rooms[1]
            assert (run.coord / CELL) == pytest.approx(round(run.coord / CELL))
        n_win = sum(o.category == "window" for o in h.objects)
        n_door = sum(o.category == "doorway" for o in h.objects)
        assert n_door >= len(h.plan.rooms) - 1 and n_win >= 1


def test_all_rooms_reachable_on_foot(houses):
    for h in houses:
        placer = Placer(h.plan, np.random.default_rng(0))
        assert placer.connected(h.walkable)


def test_support_clearance_and_rooms(houses):
    for h in houses:
        floor = [o for o in h.objects if o.support == 0 and CATEGORIES[o.category].placement in ("floor", "wall_floor")]
        for i, a in enumerate(floor):
            lo, hi = a.aabb
            assert lo[1] == pytest.approx(0.0, abs=1e-6)  # stands on the floor
            cells = h.plan.grid[
                int(lo[0] / CELL + 1e-6) : int(np.ceil(hi[0] / CELL - 1e-6)), int(lo[2] / CELL + 1e-6) : int(np.ceil(hi[2] / CELL - 1e-6))
            ]
            assert (cells == a.room).all()  # inside its own room
            for b in floor[i + 1 :]:
                fa, fb = a.footprint, b.footprint
                overlap = fa[0] < fb[2] and fb[0] < fa[2] and fa[1] < fb[3] and fb[1] < fa[3]
                assert not overlap, (a.category, b.category)
        for o in h.objects:
            if not o.support:
                continue
            sup = h.object(o.support)
            assert o.category in ("faucet",) or sup.category in CATEGORIES[o.category].supports
            y = o.aabb[0][1]
            heights = [s[0] for s in sup.surfaces] + ([sup.aabb[1][1]] if o.category == "faucet" else [])  # faucets sit on the rim
            assert min(abs(y - s) for s in heights) < 1e-6, (o.category, sup.category)
            if o.category != "faucet":
                fx0, fz0, fx1, fz1 = o.footprint
                ok = any(s[1] - 1e-6 <= fx0 and fx1 <= s[3] + 1e-6 and s[2] - 1e-6 <= fz0 and fz1 <= s[4] + 1e-6 for s in sup.surfaces)
                assert ok, (o.category, sup.category)


def test_house_is_a_pure_function_of_seed_and_index():
    a, b = build_house(11, 4), build_house(11, 4)
    ma, mb = a.scene_mesh(), b.scene_mesh()
    assert np.array_equal(ma.vertices, mb.vertices) and np.array_equal(ma.face_instance, mb.face_instance)
    assert [o.category for o in a.objects] == [o.category for o in b.objects]
    assert [o.category for o in build_house(12, 4).objects] != [o.category for o in a.objects]


def test_default_density_furnishes_houses_and_every_tv_stand_holds_a_tv():
    houses = [build_house(0, i) for i in range(12)]
    n = [len(h.objects) for h in houses]
    assert 50 <= np.mean(n) <= 110
    for h in houses:
        for stand in (o for o in h.objects if o.category == "tvstand" and h.plan.rooms[o.room].type == "living room"):
            assert any(o.category == "television" and o.support == stand.index for o in h.objects), h.house_id


def test_a_door_fills_a_wall_whose_free_stretch_is_exactly_its_width():
    """A 1.4 m wall with 0.2 m margins leaves a free stretch of exactly 1 m, a door's width, and
    1.2 - 1.0 rounds below 0.2 in floating point: the door's start is drawn from an empty range
    there (seed 31337 house 69 crashed on a 1.3 m window this way)."""
    from scenebench.synth.floorplan import WallRun, _open

    run = WallRun(0, 0.0, 0.0, 1.4, (0, 1))
    assert _open(np.random.default_rng(0), run, "door", 0.0, 2.0)
    assert run.openings == [(0.2, 1.2, 0.0, 2.0, "door")]
