"""Multi3DRefer data from a generated folder: the ScanNet-shaped scenes the generator's ScanRefer
export wrote (``<out>/scanrefer``: box tables, points, instance labels, descriptions), re-read as files.

Per scene and described class (``docs/synth.md``): ``mt`` "all the <class>s ..." when the class has
two or more instances; ``st_w_d`` one ScanRefer description of one of them (it names its nearest
neighbour); ``st_wo_d`` "the <class> in this room" when it is the only one; ``zt_w_d`` a present
class with a relation nothing satisfies ("... standing on the ceiling"); ``zt_wo_d`` a class of
another scene that this one lacks. Splits follow ScanRefer's (val = the generator's test houses).
A class with a flat instance (a box of zero volume, IoU 0 even with itself) is not described.
"""

from __future__ import annotations

import shutil
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.io.arrays import load_npy
from scenebench.io.files import atomic_write_json, read_json

SOURCE, SCENES = "scanrefer", "scannet_data"


def write_synthetic(folder: Path, root: Path, summaries: list[dict[str, Any]], rng: np.random.Generator) -> list[Path]:
    src = root / SOURCE
    if not (src / "ScanRefer_filtered_val.json").is_file():
        return []  # derived from the ScanRefer export: without it, nothing to write
    written: list[Path] = []
    (folder / SCENES).mkdir(parents=True, exist_ok=True)
    vocabulary = sorted({r["object_name"] for split in ("train", "val") for r in read_json(src / f"ScanRefer_filtered_{split}.json")})
    for split in ("train", "val"):
        recs = read_json(src / f"ScanRefer_filtered_{split}.json")
        by_scene: dict[str, dict[str, dict[int, list[str]]]] = defaultdict(lambda: defaultdict(dict))
        for r in recs:
            by_scene[r["scene_id"]][r["object_name"]].setdefault(int(r["object_id"]), []).append(r["description"])
        out: list[dict[str, Any]] = []
        for scene, classes in by_scene.items():
            for kind in ("aligned_bbox", "aligned_vert", "ins_label"):
                shutil.copyfile(src / SCENES / f"{scene}_{kind}.npy", folder / SCENES / f"{scene}_{kind}.npy")
                written.append(folder / SCENES / f"{scene}_{kind}.npy")

            table = load_npy(src / SCENES / f"{scene}_aligned_bbox.npy")
            flat = {int(t[7]) for t in table if not (t[3:6] > 0).all()}
            made: list[tuple[list[int], str, str, str]] = []  # (object_ids, eval_type, description, class)
            for name, objs in sorted(classes.items()):
                if flat & set(objs):
                    continue
                label = name.replace("_", " ")
                ids = sorted(objs)
                if len(ids) >= 2:
                    made.append((ids, "mt", f"all the {label}s in this room.", name))
                    k = ids[int(rng.integers(len(ids)))]
                    made.append(([k], "st_w_d", objs[k][0], name))
                else:
                    made.append((ids, "st_wo_d", f"the {label} in this room.", name))
                if rng.random() < 0.5:
                    made.append(([], "zt_w_d", f"the {label} standing on the ceiling.", name))
            absent = [v for v in vocabulary if v not in classes]
            if absent:
                name = absent[int(rng.integers(len(absent)))]
                made.append(([], "zt_wo_d", f"the {name.replace('_', ' ')} in this room.", name))
            for ann, (ids, etype, text, name) in enumerate(made):
                out.append(
                    {"scene_id": scene, "object_name": name, "ann_id": ann, "description": text, "object_ids": ids, "eval_type": etype}
                )
        path = folder / f"multi3drefer_{split}.json"
        atomic_write_json(path, out, indent=None)
        written.append(path)
    return written
