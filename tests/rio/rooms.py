"""Small 3RScan-format rooms for tests, written with scenebench.benchmarks.rio.writer.

One scene: a reference scan and two rescans.

- ids 1 floor, 2 wall (static); 3 table (2-fold), 4 and 6 two identical chairs (asymmetric,
  interchangeable: an ``ambiguity`` link), 5 a cube cabinet (4-fold), 7 a lamp, 8 a curtain.
- rescan A (same frame as the reference): the table turned 180 deg about its centre (moved but
  pose-equivalent), chair 4 moved and turned 60 deg, the cabinet turned 90 deg and shifted, the lamp
  removed, the curtain non-rigid.
- rescan B (its own frame: ``transform`` is a 30 deg turn plus a shift): chair 6 moved.

Points are sampled on the object surfaces afresh per scan (like two real captures), 2 mm noise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from scenebench.benchmarks.rio.writer import write_index, write_scan
from scenebench.geometry.poses import about_pivot, compose, invert, rotation_z

REF, RESCAN_A, RESCAN_B = "ref-0001", "rescan-000a", "rescan-000b"


def _box_surface(rng, lo, hi, density):
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    d = hi - lo
    pts = []
    for axis in range(3):
        a, b = [i for i in range(3) if i != axis]
        area = d[a] * d[b]
        n = max(8, int(area * density))
        for side in (lo[axis], hi[axis]):
            p = np.empty((n, 3))
            p[:, axis] = side
            p[:, a] = lo[a] + rng.random(n) * d[a]
            p[:, b] = lo[b] + rng.random(n) * d[b]
            pts.append(p)
    return np.vstack(pts)


def _legs(rng, x0, x1, y0, y1, h, density, w=0.04):
    return [_box_surface(rng, [x, y, 0], [x + w, y + w, h], density) for x in (x0, x1 - w) for y in (y0, y1 - w)]


def table(rng, density):
    return np.vstack(
        [_box_surface(rng, [-0.6, -0.35, 0.70], [0.6, 0.35, 0.74], density), *_legs(rng, -0.6, 0.6, -0.35, 0.35, 0.70, density)]
    )


def chair(rng, density):
    seat = _box_surface(rng, [-0.22, -0.22, 0.42], [0.22, 0.22, 0.46], density)
    back = _box_surface(rng, [-0.22, 0.18, 0.46], [0.22, 0.22, 0.95], density)
    return np.vstack([seat, back, *_legs(rng, -0.22, 0.22, -0.22, 0.22, 0.42, density)])


def cabinet(rng, density):
    return _box_surface(rng, [-0.25, -0.25, 0.0], [0.25, 0.25, 0.5], density)


def lamp(rng, density):
    return np.vstack(
        [
            _box_surface(rng, [-0.1, -0.1, 0], [0.1, 0.1, 0.03], density),
            _box_surface(rng, [-0.015, -0.015, 0.03], [0.015, 0.015, 1.4], density),
            _box_surface(rng, [-0.15, -0.15, 1.4], [0.15, 0.15, 1.6], density),
        ]
    )


def curtain(rng, density, wave=0.0):
    n = int(1.2 * 2.0 * density)
    y, z = rng.random(n) * 1.2 - 0.6, rng.random(n) * 2.0
    return np.c_[0.05 * np.sin(8 * y + wave), y, z]


def floor(rng, density):
    n = int(5 * 4 * density * 0.25)
    return np.c_[rng.random(n) * 5 - 1, rng.random(n) * 4 - 2, np.zeros(n)]


def wall(rng, density):
    n = int(4 * 2.5 * density * 0.25)
    return np.c_[np.full(n, -1.0), rng.random(n) * 4 - 2, rng.random(n) * 2.5]


# id -> (label, global_id, maker, placement in the reference, symmetry code)
OBJECTS = {
    1: ("floor", 1, floor, np.eye(4), 0),
    2: ("wall", 2, wall, np.eye(4), 0),
    3: ("table", 3, table, compose(rotation_z(np.deg2rad(10)), [1.0, 0.0, 0.0]), 1),
    4: ("chair", 4, chair, compose(rotation_z(np.deg2rad(-90)), [1.0, 1.0, 0.0]), 0),
    5: ("cabinet", 5, cabinet, compose(np.eye(3), [-0.4, -1.3, 0.0]), 2),
    6: ("chair", 4, chair, compose(rotation_z(np.deg2rad(90)), [1.0, -1.0, 0.0]), 0),
    7: ("lamp", 7, lamp, compose(np.eye(3), [-0.5, 1.5, 0.0]), 0),
    8: ("curtain", 8, curtain, compose(np.eye(3), [-0.9, 0.0, 0.0]), 0),
}


def _centre(iid: int) -> np.ndarray:
    """Box centre of an object in the reference (what the writer's obb reports, up to sampling)."""
    local = {3: [0, 0, 0.37], 4: [0, 0, 0.475], 5: [0, 0, 0.25], 6: [0, 0, 0.475]}[iid]
    return (OBJECTS[iid][3] @ np.append(local, 1.0))[:3]


@dataclass
class Room:
    root: Path
    units: str
    truth: dict[str, dict[int, np.ndarray]] = field(default_factory=dict)  # rescan -> instance -> pose
    scan_transform: dict[str, np.ndarray] = field(default_factory=dict)


def moves() -> dict[str, dict[int, np.ndarray]]:
    """Ground-truth rigid transforms (reference frame) per rescan."""
    return {
        RESCAN_A: {
            3: about_pivot(rotation_z(np.pi), _centre(3)),
            4: compose(np.eye(3), [0.6, 0.3, 0.0]) @ about_pivot(rotation_z(np.deg2rad(60)), _centre(4)),
            5: compose(np.eye(3), [0.5, 0.0, 0.0]) @ about_pivot(rotation_z(np.pi / 2), _centre(5)),
        },
        RESCAN_B: {6: compose(np.eye(3), [-0.5, -0.4, 0.0]) @ about_pivot(rotation_z(np.deg2rad(-45)), _centre(6))},
    }


def write_room(root: Path, *, units: str = "m", density: float = 2500.0, seed: int = 0, split: str = "validation") -> Room:
    rng = np.random.default_rng(seed)
    mv = moves()
    scan_T = {REF: np.eye(4), RESCAN_A: np.eye(4), RESCAN_B: compose(rotation_z(np.deg2rad(30)), [0.7, -0.2, 0.0])}
    gone = {RESCAN_A: {7}, RESCAN_B: set()}
    colours = {i: np.array([40 * i % 255, 90 * i % 255, 150 * i % 255], np.uint8) for i in OBJECTS}
    instances_by_scan = {}
    for scan in (REF, RESCAN_A, RESCAN_B):
        verts, ids, cols, insts = [], [], [], []
        for iid, (label, gid, maker, place, sym) in OBJECTS.items():
            if scan != REF and iid in gone[scan]:
                continue
            pts = maker(rng, density, 1.5) if (maker is curtain and scan == RESCAN_A) else maker(rng, density)
            pts = pts + rng.normal(scale=0.002, size=pts.shape)
            pose = mv.get(scan, {}).get(iid, np.eye(4)) @ place  # reference frame
            world = pts @ pose[:3, :3].T + pose[:3, 3]
            own = world @ invert(scan_T[scan])[:3, :3].T + invert(scan_T[scan])[:3, 3]  # into the scan's own frame
            verts.append(own)
            ids.append(np.full(len(own), iid))
            cols.append(np.tile(colours[iid], (len(own), 1)))
            insts.append({"id": iid, "global_id": gid, "label": label, "symmetry": sym})
        write_scan(root / scan, np.vstack(verts), np.vstack(cols), None, np.concatenate(ids), insts)
        instances_by_scan[scan] = insts
    scenes = [
        {
            "reference": REF,
            "type": split,
            "ambiguity": [[{"instance_source": 4, "instance_target": 6, "transform": OBJECTS[6][3] @ invert(OBJECTS[4][3])}]],
            "scans": [
                {
                    "reference": RESCAN_A,
                    "transform": scan_T[RESCAN_A],
                    "rigid": [
                        {"instance_reference": i, "instance_rescan": i, "symmetry": OBJECTS[i][4], "transform": T}
                        for i, T in mv[RESCAN_A].items()
                    ],
                    "removed": [7],
                    "nonrigid": [8],
                },
                {
                    "reference": RESCAN_B,
                    "transform": scan_T[RESCAN_B],
                    "rigid": [
                        {"instance_reference": i, "instance_rescan": i, "symmetry": OBJECTS[i][4], "transform": T}
                        for i, T in mv[RESCAN_B].items()
                    ],
                    "removed": [],
                    "nonrigid": [],
                },
            ],
        }
    ]
    # Symmetry of static objects lives in objects.json only for the reference (see the loader docs).
    objects = {s: [{k: v for k, v in o.items() if s == REF or k != "symmetry"} for o in insts] for s, insts in instances_by_scan.items()}
    write_index(root, scenes, objects, units=units)
    truth = {}
    for rescan in (RESCAN_A, RESCAN_B):
        truth[rescan] = {i: mv[rescan].get(i, np.eye(4)) for i in OBJECTS if not (rescan == RESCAN_A and i in (7, 8))}
    return Room(root, units, truth, scan_T)
