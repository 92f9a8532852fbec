"""The 3DBench scene graph of one house: ``OUT/gt/3dbench/scene_graph/<house_id>.json``.

It is ground truth, so it lives outside the data folder handed to models (``OUT/3dbench``); the
3DBench run source finds it at ``<data>/../gt/3dbench`` (or ``--gt``). Objects are listed in a
seeded random order, not placement order.

3DBench's own files only mention the objects its detection and grounding questions happen to be
about, so a scene-graph-as-text model built from them sees an incomplete house. This file lists
the whole house as the generator knows it: rooms with their type and box, and every object the
fused cloud shows well enough (coverage >= ``min_points``, the same rule the questions follow),
with its category and axis-aligned box. It is ground-truth perception: a model reading it is an
upper bound on what a model perceiving the cloud could do, and results must say so.

Frame and boxes as in the task files: world, y up, metres; objects ``[cx, cy, cz, dx, dy, dz]``,
rooms ``[x, z, y, lx, lz, h]`` (RoomDetection's order), both rounded to 2 decimals.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from scenebench.synth.categories import DETECTION_NAME
from scenebench.synth.house import House
from scenebench.synth.relations import box6, room_box

GT_DIR = "gt"  # OUT/gt/<benchmark>/: ground truth kept out of the benchmark data folders
FOLDER = "scene_graph"
VERSION = 1


def scene_graph(house: House, coverage: dict[int, int], min_points: int, rng: np.random.Generator | None = None) -> dict[str, Any]:
    """The scene graph document of ``house``; ``coverage``: instance id -> points in the fused cloud;
    ``rng`` shuffles the object list."""
    rooms = [{"index": r.index, "type": r.type, "bbox": room_box(house, r.index)} for r in house.plan.rooms]
    objects = []
    for o in house.objects:
        n = int(coverage.get(o.index, 0))
        if n < min_points:
            continue
        objects.append(
            {
                "id": int(o.index),
                "category": o.category,
                "detection_class": DETECTION_NAME.get(o.category),
                "room": int(o.room),
                "bbox": box6(o, house.world),
                "support": int(o.support) or None,
                "points": n,
            }
        )
    if rng is not None:
        objects = [objects[i] for i in rng.permutation(len(objects))]
    return {
        "version": VERSION,
        "house_id": house.house_id,
        "up_axis": "y",
        "units": "m",
        "box_format": {"objects": "[cx, cy, cz, dx, dy, dz]", "rooms": "[x, z, y, lx, lz, h]"},
        "min_points": int(min_points),
        "rooms": rooms,
        "objects": objects,
    }


__all__ = ["FOLDER", "GT_DIR", "scene_graph"]
