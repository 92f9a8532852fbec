"""The scene truth of a generated folder's ScanNet-shaped scenes, for the writers of question-answering
data (``BenchmarkSpec.synthetic`` hooks that run after a ScanNet-layout export). The callers name
the folders; nothing here names a benchmark.

Read from files and house summaries only, never from a rebuilt house:

- ``<export>/scannet_data/<scene>_aligned_bbox.npy``: the described objects' boxes (z up, metres;
  box row ``object_id`` k is segment group k of the scene's ScanNet++ annotation);
- the scene's ScanNet++ ``segments_anno.json``: every group's label and written instance id,
  structure included (one ``floor`` group per room);
- ``<export>/scannet_data/<scene>_{aligned_vert,ins_label}.npy``: floor points per room;
- the object truth of the house summary: per written id, its colour name and the written id of what
  it stands on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.io.arrays import load_npy
from scenebench.io.files import read_json
from scenebench.synth.scannetpp import FOLDER as SCANNETPP
from scenebench.synth.scannetpp import SEGMENTS_ANNO

SCENES = "scannet_data"
CELL = 0.25  # metres: the floor grid of agent positions
ROOM_REACH = 1.0  # metres: an object farther from every floor cell is in no room


@dataclass(frozen=True)
class SceneObject:
    k: int  # ScanNet object id (box-table row k, instance label k + 1)
    label: str  # ScanNet++ label (the ScanRefer export's object_name with spaces)
    centre: np.ndarray  # (3,) box centre, z up
    size: np.ndarray  # (3,) box extents
    color: str  # colour name of the generator's palette ("" when unknown)
    on: int | None  # object id of the object it stands on (None: floor, wall or unknown)


@dataclass
class Room:
    cells: set[tuple[int, int]]  # floor cells (i, j) = floor((x, y) / CELL)
    floor_z: float
    objects: list[int] = field(default_factory=list)  # object ids whose centre is over this room's floor


@dataclass
class Scene:
    scene_id: str
    split: str  # "train" or "val"
    objects: dict[int, SceneObject]
    rooms: list[Room]

    def count(self, label: str) -> int:
        return sum(o.label == label for o in self.objects.values())


def plural(label: str) -> str:
    """An English plural good enough for the generator's class names."""
    if label.endswith(("s", "x", "ch", "sh")):
        return label + "es"
    if label.endswith("y") and label[-2:-1] not in "aeiou":
        return label[:-1] + "ies"
    return label + "s"


def cell(x: float, y: float) -> tuple[int, int]:
    return int(np.floor(x / CELL)), int(np.floor(y / CELL))


def _rooms(src: Path, scene_id: str, labels: list[str], objects: dict[int, SceneObject]) -> list[Room]:
    vert = load_npy(src / SCENES / f"{scene_id}_aligned_vert.npy")
    ins = load_npy(src / SCENES / f"{scene_id}_ins_label.npy").astype(np.int64)
    rooms: list[Room] = []
    for k, lab in enumerate(labels):
        if lab != "floor":
            continue
        pts = vert[ins == k + 1, :3]
        if len(pts) < 20:
            continue
        cells = {cell(float(x), float(y)) for x, y in pts[:, :2]}
        rooms.append(Room(cells, float(np.median(pts[:, 2]))))
    # an object belongs to the room of the floor cell nearest its centre (the floor under furniture
    # holds no points: the sensor never saw it), when one lies within ROOM_REACH
    grids = [np.array(sorted(r.cells), float) for r in rooms]
    for o in objects.values():
        c = np.array(cell(float(o.centre[0]), float(o.centre[1])), float)
        d = [float(np.min(np.linalg.norm(g - c, axis=1))) * CELL if len(g) else np.inf for g in grids]
        if d and min(d) <= ROOM_REACH:
            rooms[int(np.argmin(d))].objects.append(o.k)
    return rooms


def load_scenes(export: Path, segments: Callable[[str], Path], scenes: list[tuple[str, str, dict[str, Any]]]) -> list[Scene]:
    """The scenes ``(scene_id, split, object truth)`` that the ScanNet-layout export folder ``export``
    holds, in the given order; ``segments(scene_id)`` is the scene's ``segments_anno.json``."""
    out: list[Scene] = []
    for sid, split, truth in scenes:
        anno = segments(sid)
        if not (export / SCENES / f"{sid}_aligned_bbox.npy").is_file() or not anno.is_file():
            continue
        groups = read_json(anno)["segGroups"]
        labels = [str(g["label"]) for g in groups]
        k_of = {int(g["id"]): k for k, g in enumerate(groups)}
        objects: dict[int, SceneObject] = {}
        for row in load_npy(export / SCENES / f"{sid}_aligned_bbox.npy"):
            k = int(row[7])
            t = truth.get(str(int(groups[k]["id"])), {})
            on = k_of.get(int(t.get("on", 0))) if t.get("on") else None
            objects[k] = SceneObject(k, labels[k], np.asarray(row[:3], float), np.asarray(row[3:6], float), str(t.get("color", "")), on)
        objects = {k: o if o.on in objects else SceneObject(o.k, o.label, o.centre, o.size, o.color, None) for k, o in objects.items()}
        out.append(Scene(sid, split, objects, _rooms(export, sid, labels, objects)))
    return out


def load_generated(export: Path, segmentation: Path, summaries: list[dict[str, Any]], scenes_key: str, objects_key: str) -> list[Scene]:
    """The scenes of a generated folder, from its house summaries: ``export`` is the ScanNet-layout
    export, ``segmentation`` the ScanNet++-layout export whose ``segments_anno.json`` name the
    instances; a house summary lists its one-room scenes under ``scenes_key`` (else the house is
    the scene) and their object truth under ``objects_key``. A scene is ``val`` when its house is a
    test house (ScanRefer's rule). The callers name the folders and keys: this module names no
    benchmark."""
    scenes = [
        (sid, "val" if sm["split"] == "test" else "train", sm.get(objects_key, {}))
        for sm in summaries
        for sid in sm.get(scenes_key, [sm["scene_id"]])
    ]
    return load_scenes(export, lambda sid: segmentation / SCANNETPP / sid / "scans" / SEGMENTS_ANNO, scenes)
