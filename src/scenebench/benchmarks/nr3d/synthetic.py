"""Nr3D / Sr3D data from a generated folder: the generator's ScanRefer export (``<out>/scanrefer``:
box tables, points, instance labels, descriptions), re-read as files.

Only classes with two or more instances in a scene make stimuli (the target among same-class
distractors: easy with one, hard with more). Nr3D-like rows reuse the export's free-text
descriptions, some made view-dependent ("..., on the left when facing the door"), some longer than
24 tokens, some not naming the class (``mentions_target_class`` False). Sr3D rows are templates of
a computed relation: the target is the instance of its class closest to (or farthest from) an
anchor of another class, or (view-dependent, :data:`ALLOCENTRIC`) the one on the left / right / in
front of / behind an anchor in the anchor's frame. ``test_scans.txt`` lists the val scenes.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.io.files import atomic_write_json, read_json
from scenebench.io.scannet import SCENES, copy_scene, load_boxes

from .writer import row, write_csv

SOURCE = "scanrefer"
# Sr3D's allocentric relations (view-dependent): the target is on one side of an anchor in the
# anchor's own frame. The export keeps no orientation (axis-aligned boxes), so an anchor faces the
# middle of its scene's objects (furniture stands facing into the room); front = towards it, right =
# front x up (z up). The target lies beyond SIDE_MARGIN on that side and every same-class distractor
# beyond it on the other, so the relation picks it alone.
ALLOCENTRIC = {
    "left": "the {t} that is on the left of the {a}",
    "right": "the {t} that is on the right of the {a}",
    "front": "the {t} that is in front of the {a}",
    "back": "the {t} that is behind the {a}",
}
SIDE_MARGIN = 0.15  # metres


def allocentric(centre: dict[int, np.ndarray], anchor: int, target: int, others: list[int], middle: np.ndarray) -> list[str]:
    """The sides of ``anchor`` (keys of :data:`ALLOCENTRIC`) on which ``target`` lies and no distractor does."""
    facing = (middle - centre[anchor])[:2]
    if np.linalg.norm(facing) < SIDE_MARGIN:
        return []  # an anchor in the middle faces nowhere in particular
    front = facing / np.linalg.norm(facing)
    right = np.array([front[1], -front[0]])
    axes = {"front": front, "back": -front, "right": right, "left": -right}
    out = []
    for side, axis in axes.items():
        along = {o: float((centre[o] - centre[anchor])[:2] @ axis) for o in (target, *others)}
        if along[target] >= SIDE_MARGIN and all(along[o] <= -SIDE_MARGIN for o in others):
            out.append(side)
    return out


LONG_TAIL = " and it is the one you would reach first if you walked in through the door and kept going straight ahead"


def _rows(src: Path, rng: np.random.Generator, dataset: str) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    out: list[dict[str, Any]] = []
    scenes: dict[str, list[str]] = {"train": [], "val": []}
    for split in ("train", "val"):
        recs = read_json(src / f"ScanRefer_filtered_{split}.json")
        by_scene: dict[str, dict[str, dict[int, list[str]]]] = defaultdict(lambda: defaultdict(dict))
        for r in recs:
            by_scene[r["scene_id"]][r["object_name"].replace("_", " ")].setdefault(int(r["object_id"]), []).append(r["description"])
        for scene, classes in by_scene.items():
            table = load_boxes(src / SCENES, scene)
            centre = {int(t[7]): t[:3] for t in table}
            middle = table[:, :3].mean(0)  # where the anchors face (ALLOCENTRIC)
            for label, objs in sorted(classes.items()):
                if len(objs) < 2:
                    continue
                scenes[split].append(scene)
                for target in sorted(objs):
                    others = [o for o in sorted(objs) if o != target]
                    if dataset == "nr3d":
                        text = objs[target][0].rstrip(".")
                        u = float(rng.random())
                        mentions = u >= 0.1
                        if not mentions:
                            text = text.replace(label, "thing", 1)
                        elif u < 0.3:
                            text += ", on the left when facing the door"
                        elif u < 0.4:
                            text += LONG_TAIL
                        out.append(
                            row(scene, target, others, text, instance_type=label, mentions=mentions, assignment=len(out), dataset="nr3d")
                        )
                    else:
                        anchors = [(o, c) for name, ob in classes.items() if name != label for o in ob for c in [centre[o]]]
                        if not anchors:
                            continue
                        a, c = anchors[int(rng.integers(len(anchors)))]
                        dist = {o: float(np.linalg.norm(centre[o] - c)) for o in objs}
                        anchor_name = next(n for n, ob in classes.items() if a in ob)
                        texts = []
                        if dist[target] == min(dist.values()):
                            texts.append(f"the {label} that is closest to the {anchor_name}")
                        elif dist[target] == max(dist.values()):
                            texts.append(f"the {label} that is farthest from the {anchor_name}")
                        sides = [
                            ALLOCENTRIC[side].format(t=label, a=name)
                            for name, ob in sorted(classes.items()) if name != label for o in sorted(ob)
                            for side in allocentric(centre, o, target, others, middle)
                        ]  # fmt: skip
                        if sides and (not texts or rng.random() < 0.5):  # view-dependent when a side holds
                            texts = [sides[int(rng.integers(len(sides)))]]
                        if not texts:
                            continue
                        out.append(row(scene, target, others, texts[0], instance_type=label, assignment=len(out), dataset="sr3d"))
    return out, sorted(set(scenes["val"])), sorted(set(scenes["train"]) | set(scenes["val"]))


def _write(folder: Path, root: Path, rng: np.random.Generator, dataset: str) -> list[Path]:
    src = root / SOURCE
    if not (src / "ScanRefer_filtered_val.json").is_file():
        return []
    rows, test, every = _rows(src, rng, dataset)
    (folder / SCENES).mkdir(parents=True, exist_ok=True)
    written = [write_csv(folder / f"{dataset}.csv", rows)]
    atomic_write_json(folder / "test_scans.txt", test, indent=None)
    written.append(folder / "test_scans.txt")
    for scene in every:
        written += copy_scene(src / SCENES, folder / SCENES, scene)
    return written


def write_nr3d(folder: Path, root: Path, summaries: list[dict[str, Any]], rng: np.random.Generator) -> list[Path]:
    return _write(folder, root, rng, "nr3d")


def write_sr3d(folder: Path, root: Path, summaries: list[dict[str, Any]], rng: np.random.Generator) -> list[Path]:
    return _write(folder, root, rng, "sr3d")
