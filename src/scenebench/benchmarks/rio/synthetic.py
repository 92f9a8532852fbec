"""RIO's synthetic data: per house (``BenchmarkSpec.synthetic_house``) the reference scan and its
rescans (an evaluated rescan's labels in the ground-truth tree); then
(``BenchmarkSpec.synthetic``) the ``3RScan.json`` and ``objects.json`` of a ``scenebench
generate`` output, from the per-house scenes.

The model-facing index hides the evaluated split's answers (:func:`scenebench.synth.rescans.public_index`);
the full index goes to the ground-truth tree (``OUT/gt/3rscan``, :data:`.loader.GT_TREE`). A
plug-in module of the generator (:mod:`scenebench.synth`); it writes with :mod:`.writer`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from scenebench.io.files import to_plain
from scenebench.synth.pipeline import HouseContext
from scenebench.synth.rescans import RescanSettings, public_index, renumber, rescan_scene

from .loader import GT_TREE
from .writer import write_index, write_scan

SUMMARY_KEY = "3rscan"  # a house summary's 3RScan part: {"scene": index entry, "objects": {scan_id: [...]}}
FOLDER = "3rscan"  # its data folder (the declaration's data_folder)


def stage_house(ctx: HouseContext) -> dict[str, Any]:
    """The house's scans (stream 4 of the house), nothing for a house without a rescan."""
    s, index = ctx.settings, ctx.index
    rs = RescanSettings(max_edge=s.rio_max_edge, continuous_symmetry_code=s.rio_continuous_symmetry_code)
    scene = rescan_scene(ctx.house, ctx.rng(4), rs, "validation" if ctx.test else "train", sensor=ctx.sensor)
    if scene is None:
        return {}
    # written ids: a seeded permutation per scene (a sub-stream of stage 4), not placement order
    scene = renumber(scene, np.random.default_rng([int(s.seed), int(index), 4, 1]))
    for k, scan in enumerate(scene.scans):
        # plain writes: the staging folder's rename commits the house; an evaluated rescan's
        # labels go to the ground-truth tree (they would give every changed object's pose)
        write_scan(
            ctx.stage / FOLDER / scan.scan_id,
            scan.vertices,
            scan.colors,
            scan.faces,
            scan.object_ids,
            scan.instances,
            atomic=False,
            labels_dir=ctx.stage.joinpath(*GT_TREE) / scan.scan_id if ctx.test and k > 0 else None,
        )
    return {SUMMARY_KEY: {"scene": to_plain(scene.index_entry), "objects": {sc.scan_id: sc.instances for sc in scene.scans}}}


def write_synthetic(folder: Path, root: Path, summaries: list[dict[str, Any]], rng: np.random.Generator) -> list[Path]:
    scenes = [sm[SUMMARY_KEY]["scene"] for sm in summaries if SUMMARY_KEY in sm]
    objects: dict[str, list] = {}
    for sm in summaries:
        if SUMMARY_KEY in sm:
            objects.update(sm[SUMMARY_KEY]["objects"])
    public_scenes, public_objects = public_index(scenes, objects)
    written = list(write_index(folder, public_scenes, public_objects, units="m").values())
    if public_scenes != scenes:  # the full index (the evaluated split's answers) only in the ground-truth tree
        written += list(write_index(root.joinpath(*GT_TREE), scenes, objects, units="m").values())
    return written
