"""SURPRISE3D's synthetic data: per house (``BenchmarkSpec.synthetic_house``) the scenes (one per
house, or one per room), their ScanNet++ segment annotations and the house's question records;
then (``BenchmarkSpec.synthetic``) the annotation lists of a ``scenebench generate`` output.

A plug-in module of the generator (:mod:`scenebench.synth`: the question generator, the ScanNet++
layout); it writes the released format with :mod:`.writer`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from scenebench.synth.house import scene_hex
from scenebench.synth.pipeline import HouseContext, npz_bytes, save_json
from scenebench.synth.scannetpp import FOLDER as SCANNETPP
from scenebench.synth.scannetpp import SEGMENTS_ANNO, segments_anno
from scenebench.synth.surprise import SurpriseSettings, instance_ids, point_rooms, relabel, scene_arrays, surprise_house

from .writer import scene_arrays as official_arrays
from .writer import write_annotations, write_scene

SUMMARY_KEY = "surprise3d"  # a house summary's SURPRISE3D records
# the scene truth the written files do not carry, by written instance id: each object's colour name and
# the written id of what it stands on (0: floor, wall or structure); ScanQA's and SQA3D's writers read it
OBJECTS_KEY = "surprise3d_objects"
SPLIT_FILES = (("train", "surprise-3d-train.json"), ("test", "surprise-3d-val.json"))
FOLDER = "surprise3d"  # its data folder (the declaration's data_folder)


def stage_house(ctx: HouseContext) -> dict[str, Any]:
    """The house's scenes (``scenes/<scene>.npz``, and ``.pth`` when asked), their segment
    annotations and the records (stream 3 of the house; per room 3 + 100 (room + 1))."""
    s, house, cap, index = ctx.settings, ctx.house, ctx.capture, ctx.index
    # written ids: a seeded permutation of the placement indices, records shuffled (a sub-stream of stage 3)
    id_rng = np.random.default_rng([int(s.seed), int(index), 3, 1])
    ids = instance_ids(len(house.objects) + len(house.parts), id_rng)
    placement = np.argsort(ids[1:]) + 1  # written id - 1 -> placement index
    scenes: list[tuple[int | None, str, np.ndarray | None, np.random.Generator]]
    if s.surprise_scenes == "room":
        where = point_rooms(house, cap.cloud)
        scenes = [
            (r, scene_hex(s.seed, index, r), np.flatnonzero(where == r), ctx.rng(3 + 100 * (r + 1))) for r in range(len(house.plan.rooms))
        ]
    else:
        scenes = [(None, ctx.scene_id, None, ctx.rng(3))]
    recs, written_scenes = [], []
    for room, scene_id, keep, rng in scenes:
        if keep is not None and not len(keep):
            continue
        written_scenes.append(scene_id)
        recs += surprise_house(house, cap, rng, scene_id, SurpriseSettings(min_points=s.min_points), room)
        arr = scene_arrays(cap, SurpriseSettings().superpoint_size, ids, keep, house.world)
        _write_scene(ctx.stage / FOLDER / "scenes", scene_id, arr, bool(s.surprise_pth))
        doc = segments_anno(scene_id, arr["coords"], arr["instance"], arr["superpoints"], lambda i: house.label_of(int(placement[i - 1])))
        save_json(ctx.stage / FOLDER / SCANNETPP / scene_id / "scans" / SEGMENTS_ANNO, doc)
    out: dict[str, Any] = {SUMMARY_KEY: relabel(recs, ids, id_rng)}
    out[OBJECTS_KEY] = {str(int(ids[o.index])): {"color": o.color, "on": int(ids[o.support]) if o.support else 0} for o in house.objects}
    if s.surprise_scenes == "room":
        out[SUMMARY_KEY + "_scenes"] = written_scenes
    return out


def _write_scene(folder: Path, sid: str, arr: dict[str, np.ndarray], pth: bool) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    parts = (arr["coords"], arr["colors"], arr["instance"], arr["superpoints"], arr.get("labels"))
    (folder / f"{sid}.npz").write_bytes(npz_bytes(official_arrays(*parts)))
    if pth:
        write_scene(folder / f"{sid}.pth", *parts)


def write_synthetic(folder: Path, root: Path, summaries: list[dict[str, Any]], rng: np.random.Generator) -> list[Path]:
    written = []
    for split, name in SPLIT_FILES:
        recs = [r for sm in summaries if sm["split"] == split for r in sm.get(SUMMARY_KEY, [])]
        written.append(write_annotations(folder / name, recs))
    (folder / "scenes").mkdir(parents=True, exist_ok=True)
    return written
