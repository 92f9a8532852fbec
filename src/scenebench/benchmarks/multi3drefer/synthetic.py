"""Multi3DRefer data from a generated folder: the ScanNet-shaped scenes the generator's ScanRefer
export wrote (``<out>/scanrefer``: box tables, points, instance labels, descriptions), re-read as files.

Per scene and described class (``docs/synth.md``): ``mt`` "the two <class>s closest to the
<anchor>" when the class has three or more instances and an object of another class has two of them
clearly nearer than the rest (a strict subset: the class alone does not give the answer);
``st_w_d`` one ScanRefer description of one of several instances (it names its nearest neighbour);
``st_wo_d`` "the <class> in this room" when it is the only one; ``zt_w_d`` a present class "next to
the <anchor>" with an anchor class this scene lacks (the same wording as a true relation, so the
text does not give the empty answer away); ``zt_wo_d`` a class of another scene that this one
lacks. Splits follow ScanRefer's (val = the generator's test houses).
A class with a flat instance (a box of zero volume, IoU 0 even with itself) is not described.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.io.files import atomic_write_json, read_json
from scenebench.io.scannet import SCENES, copy_scene, load_boxes

SOURCE = "scanrefer"


def _two_closest(ids: list[int], anchors: list[tuple[int, str]], centre: dict[int, np.ndarray]) -> tuple[list[int], str] | None:
    """The two instances nearest an anchor object (and its class) when both are at least 0.3 m nearer
    than the third: the first such anchor in order, else None."""
    for o, anchor in anchors:
        if o not in centre:
            continue
        d = sorted((float(np.linalg.norm(centre[i] - centre[o])), i) for i in ids if i in centre)
        if len(d) >= 3 and d[2][0] - d[1][0] >= 0.3:
            return sorted([d[0][1], d[1][1]]), anchor
    return None


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
            written += copy_scene(src / SCENES, folder / SCENES, scene)
            table = load_boxes(src / SCENES, scene)
            flat = {int(t[7]) for t in table if not (t[3:6] > 0).all()}
            made: list[tuple[list[int], str, str, str]] = []  # (object_ids, eval_type, description, class)
            centre = {int(t[7]): t[:3] for t in table}
            absent = [v for v in vocabulary if v not in classes]
            for name, objs in sorted(classes.items()):
                if flat & set(objs):
                    continue
                label = name.replace("_", " ")
                ids = sorted(objs)
                if len(ids) >= 3:
                    pair = _two_closest(ids, [(o, n) for n, os_ in sorted(classes.items()) if n != name for o in sorted(os_)], centre)
                    if pair is not None:
                        (a, b), anchor = pair
                        made.append(([a, b], "mt", f"the two {label}s closest to the {anchor.replace('_', ' ')}.", name))
                if len(ids) >= 2:
                    k = ids[int(rng.integers(len(ids)))]
                    made.append(([k], "st_w_d", objs[k][0], name))
                else:
                    made.append((ids, "st_wo_d", f"the {label} in this room.", name))
                if absent and rng.random() < 0.5:
                    other = absent[int(rng.integers(len(absent)))].replace("_", " ")
                    made.append(([], "zt_w_d", f"the {label} next to the {other}.", name))
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
