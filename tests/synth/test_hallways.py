"""Hallways: how often they appear, their width, that they connect the house, that nothing cuts
into their walls, and that every output naming rooms names them."""

from __future__ import annotations

import json
import re
from collections import deque

import numpy as np
import pytest
from scipy import ndimage

from scenebench.synth.floorplan import CELL, DOOR_H, HALLWAY, PUBLIC_TYPES, WALL_T, make_floorplan
from scenebench.synth.house import build_house
from scenebench.synth.navigation import NavGrid
from scenebench.synth.placement import Placer
from scenebench.synth.sensing import SensorSettings, capture
from scenebench.synth.surprise import SurpriseSettings, surprise_house
from scenebench.synth.tasks3d import TaskSettings, house_tasks

SEED = 5


@pytest.fixture(scope="module")
def houses():
    return [build_house(SEED, i) for i in range(24)]


@pytest.fixture(scope="module")
def hall_houses(houses):
    out = [h for h in houses if _hall(h) is not None]
    assert out
    return out


def _hall(h) -> int | None:
    halls = [r.index for r in h.plan.rooms if r.type == HALLWAY]
    assert len(halls) <= 1
    return halls[0] if halls else None


def _door_graph(plan) -> dict[int, set[int]]:
    adj: dict[int, set[int]] = {r.index: set() for r in plan.rooms}
    for run in plan.runs:
        a, b = run.rooms
        if min(a, b) >= 0 and any(kind == "door" for *_, kind in run.openings):
            adj[a].add(b)
            adj[b].add(a)
    return adj


def _reachable(adj: dict[int, set[int]], start: int, without: int | None = None) -> set[int]:
    seen, todo = {start}, deque([start])
    while todo:
        u = todo.popleft()
        for v in adj[u]:
            if v != without and v not in seen:
                seen.add(v)
                todo.append(v)
    return seen


def test_hallways_appear_in_a_share_of_houses_with_four_or_more_rooms():
    n_hall = n_big = 0
    for i in range(60):
        rng = np.random.default_rng([SEED, i])
        n = int(rng.integers(2, 9))
        plan = make_floorplan(rng, n)
        halls = [r for r in plan.rooms if r.type == HALLWAY]
        assert len(halls) <= 1
        if halls:
            assert len(plan.rooms) == n >= 4  # the hallway is one of the house's rooms
            assert sum(r.type == "bathroom" for r in plan.rooms) >= 1
            assert plan.rooms[0].type == "living room"
        n_hall += bool(halls)
        n_big += n >= 4
        if i < 10:  # off, no house has one
            rng = np.random.default_rng([SEED, i])
            assert all(r.type != HALLWAY for r in make_floorplan(rng, int(rng.integers(2, 9)), hallways=False).rooms)
    assert 0.3 <= n_hall / 60 <= 0.7
    assert n_hall / n_big >= 0.5


def test_hallway_is_a_narrow_long_rectangle(hall_houses):
    for h in hall_houses:
        hall = h.plan.rooms[_hall(h)]
        xy = np.asarray(hall.polygon)
        assert len(xy) == 4  # a straight corridor
        width, length = sorted(xy.max(0) - xy.min(0))
        assert 1.0 <= width <= 1.6, h.house_id
        assert length >= 2.5 * width
        assert hall.area == pytest.approx(width * length)


def test_every_room_is_reached_through_doorways_and_private_rooms_only_through_the_hallway(hall_houses):
    for h in hall_houses:
        hall = _hall(h)
        adj = _door_graph(h.plan)
        assert _reachable(adj, 0) == set(adj), h.house_id  # one connected house
        private = [r.index for r in h.plan.rooms if r.type not in PUBLIC_TYPES and r.index != hall]
        assert len(private) >= 2
        for p in private:
            assert adj[p] == {hall}, (h.house_id, h.plan.rooms[p].type)  # its one door opens onto the hallway
            assert 0 not in _reachable(adj, p, without=hall)  # no way to the living room around the hallway
        # the front door opens into the living room
        assert any(min(r.rooms) < 0 and max(r.rooms) == 0 and any(k == "door" for *_, k in r.openings) for r in h.plan.runs)


def test_walks_between_zones_go_through_the_hallway(hall_houses):
    for h in hall_houses:
        hall = _hall(h)
        assert Placer(h.plan, np.random.default_rng(0)).connected(h.walkable), h.house_id
        grid = NavGrid(h.walkable)
        room = h.nav_room.ravel()
        lab, _ = ndimage.label(h.walkable)
        main = np.bincount(lab[h.walkable]).argmax()
        free = np.flatnonzero(lab.ravel() == main)  # the house's one walkable region (pockets behind furniture left out)
        assert (room[free] == hall).sum() >= 4  # the furnished hallway stays walkable
        living = free[room[free] == 0]
        for p in (r for r in h.plan.rooms if r.type not in PUBLIC_TYPES and r.index != hall):
            start = int(free[room[free] == p.index][0])
            path = grid.path(start, living)
            assert path is not None, (h.house_id, p.type)
            cells = [int(np.floor(x / grid.res)) * h.walkable.shape[1] + int(np.floor(z / grid.res)) for x, z in path]
            assert hall in set(room[cells].tolist()), (h.house_id, p.type)


def _solid_wall_boxes(plan, run):
    """(x0, y0, z0, x1, y1, z1) of a wall run's solid pieces, as house._structure builds them."""
    t = WALL_T / 2
    pieces, cur = [], run.start
    for s0, s1, y0, y1, _kind in run.openings:
        if s0 > cur:
            pieces.append((cur, s0, 0.0, plan.height))
        if y0 > 0:
            pieces.append((s0, s1, 0.0, y0))
        if y1 < plan.height:
            pieces.append((s0, s1, y1, plan.height))
        cur = s1
    if run.end > cur:
        pieces.append((cur, run.end, 0.0, plan.height))
    out = []
    for a, b, y0, y1 in pieces:
        a, b = a - (t if a == run.start else 0), b + (t if b == run.end else 0)
        if run.axis == 0:
            out.append((a, y0, run.coord - t, b, y1, run.coord + t))
        else:
            out.append((run.coord - t, y0, a, run.coord + t, y1, b))
    return out


def test_nothing_cuts_into_the_hallway_walls_and_the_hallway_holds_few_things(hall_houses):
    n_things = []
    for h in hall_houses:
        hall = _hall(h)
        boxes = [b for run in h.plan.room_runs(hall) for b in _solid_wall_boxes(h.plan, run)]
        for o in h.objects:
            if o.category in ("doorway", "window"):
                continue
            lo, hi = o.aabb
            for b in boxes:
                inside = all(lo[k] < b[k + 3] - 1e-6 and b[k] + 1e-6 < hi[k] for k in range(3))
                assert not inside, (h.house_id, o.category, h.plan.rooms[o.room].type)
        things = [o for o in h.objects if o.room == hall and o.category not in ("doorway", "window")]
        n_things.append(len(things))
        for o in things:  # inside the hallway's cells
            x0, z0, x1, z1 = o.footprint
            cells = h.plan.grid[
                int(x0 / CELL + 1e-6) : int(np.ceil(x1 / CELL - 1e-6)), int(z0 / CELL + 1e-6) : int(np.ceil(z1 / CELL - 1e-6))
            ]
            assert (cells == hall).all()
        # doorways into the hallway are as high as doors
        for run in h.plan.room_runs(hall):
            assert all(y1 == DOOR_H for _s0, _s1, y0, y1, k in run.openings if k == "door")
    assert max(n_things) <= 8 and np.mean(n_things) <= 4


def test_tv_stands_hold_their_tv_and_objects_keep_their_share_of_points(houses):
    for h in houses:
        for stand in (o for o in h.objects if o.category == "tvstand"):
            assert any(o.category == "television" and o.support == stand.index for o in h.objects), h.house_id
    for h in houses[:4]:
        cap = capture(h, SensorSettings(width=64, height=48), np.random.default_rng([SEED, h.index, 1]))
        ids = cap.cloud.instance
        share = float(((ids >= 1) & (ids <= len(h.objects))).mean())  # doorways and windows included, as in docs/synth.md
        assert share >= 0.2, (h.house_id, share)


def test_hallways_appear_in_3dbench_and_surprise3d_like_every_room(hall_houses):
    for h in hall_houses[:3]:
        hall = _hall(h)
        cap = capture(h, SensorSettings(width=64, height=48), np.random.default_rng([SEED, h.index, 1]))
        b = house_tasks(h, cap.coverage, np.random.default_rng([SEED, h.index, 2]), TaskSettings(), test=True)
        for rec in b.records["RoomDetection"]:
            assert [it["label"] for it in rec["object"]] == [r.type for r in h.plan.rooms]
            assert HALLWAY in [it["label"] for it in rec["object"]]
        for stem in ("SCaption", "SVQA", "Relation"):
            for rec in b.records[stem]:
                assert HALLWAY in rec["rooms"]
        recs = surprise_house(h, cap, np.random.default_rng([SEED, h.index, 3]), "0123456789", SurpriseSettings())
        for r in recs:
            text = r["description"].lower()
            for name in ("living room", "dining room"):
                text = text.replace(name, "")
            assert "room" not in re.findall(r"[a-z]+", text)  # a hallway is named as such, never as "this room"
            if HALLWAY in text:  # only the room part of a use question names it, and it holds the target
                assert "in the hallway" in text and r["question_type"] in ("cs", "hi"), r["description"]
                assert h.object(r["object_id"]).room == hall


def test_generated_house_json_lists_the_hallway(tmp_path):
    from scenebench.synth.pipeline import GenerateSettings, run

    s = GenerateSettings(seed=SEED, houses=2, min_rooms=6, max_rooms=8, test_every=1, width=48, height=36, voxel=0.06, formats=("3dbench",))
    out = tmp_path / "run"
    run(out, s, workers=1, progress=False)
    found = 0
    for i in range(2):
        h = build_house(SEED, i, min_rooms=6, max_rooms=8)
        doc = json.loads((out / "3dbench" / "houses" / f"({i}).json").read_text())
        assert [r["roomType"] for r in doc["rooms"]] == [r.type for r in h.plan.rooms]
        graph = json.loads((out / "gt" / "3dbench" / "scene_graph" / f"{h.house_id}.json").read_text())
        assert [r["type"] for r in graph["rooms"]] == [r.type for r in h.plan.rooms]
        found += HALLWAY in [r.type for r in h.plan.rooms]
    assert found >= 1
