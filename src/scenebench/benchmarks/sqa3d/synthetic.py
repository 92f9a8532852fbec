"""SQA3D data from a generated folder: situated questions about the ScanNet-shaped scenes of the
generator's ScanRefer export (``<out>/scanrefer``), answered from the scene truth
(:mod:`scenebench.synth.scene_truth`), in the released layout: per split ``train`` / ``test`` the
``v1_balanced_questions_<split>_scannetv2.json`` and ``v1_balanced_sqa_annotations_<split>_scannetv2.json``
envelopes, ``answer_dict.json`` (train answers) and the scenes' ``scannet_data`` arrays.

Situations: an agent on a free floor cell of a room (every neighbouring cell is floor, and no
object's footprint within 0.3 m), facing a drawn yaw. Pose convention (written in the annotation):
``position`` = the agent's floor point (x, y, floor z), ``rotation`` = the yaw quaternion about +z
(``_x = _y = 0``); the agent faces the rotated +x axis, its left is the rotated +y axis. An object
is *in front* within 45 degrees of the facing, *on the left* / *on the right* between 45 and 135,
*behind* beyond 135; only objects of the agent's room at least 0.5 m away and 15 degrees from every
sector boundary are talked about. The situation sentence names two such objects (one of their class
in the room) in two sectors, with two alternative wordings; those two objects are never asked about
(the text would give the answer).

Questions whose answers depend on the pose, at most three of each kind per situation (``docs/synth.md``):
``Which direction should I go to reach the <x>?`` (forward / left / right / backward), ``Is the <x>
on my left?`` and the prefix trap ``Isn't the <x> behind me?`` (yes / no, half of each), ``Can I
reach the <x> by turning left?`` (yes / no), ``How many <xs> are on my right?`` (a number word),
``What is the closest object in front of me?`` / ``What color is the <x> on my left?`` (a class or a
colour: a class with one instance in that sector and others elsewhere), ``Should I turn left or
right to face the <x>?``. The answer is a fixed point of every lineage's cleaning (the oracle scores
100 under each). Answers are balanced per kind and split (no answer kept more often than the median
answer's count); records are shuffled and ``question_id`` are distinct random integers.
"""

from __future__ import annotations

import math
import shutil
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.io.files import atomic_write_json
from scenebench.metrics.answers import NUMBER_WORDS, cleaned_fixed_point, normalize
from scenebench.synth.categories import CATEGORIES
from scenebench.synth.scene_truth import CELL, SCENES, Room, Scene, load_generated, plural

EXPORT = "scanrefer"  # the generator's ScanRefer export: the scenes these questions are about
SEGMENTATION = "surprise3d"  # the export whose segment annotations name the scenes' instances


SPLITS = (("train", "train"), ("val", "test"))  # scene split -> SQA3D split
POSES_PER_ROOM = 4
POSE_TRIES = 16  # free cells tried per room (a pose needs two nameable objects in two sectors)
PER_POSE_KIND = 3  # candidates of one kind kept per situation before balancing
# kinds whose answers are a small closed set, balanced exactly (per situation wording, below)
CLOSED = {
    "which": ("forward", "left", "right", "backward"),
    "is": ("yes", "no"),
    "isnt": ("yes", "no"),
    "can": ("yes", "no"),
    "should": ("left", "right"),
    "how": ("zero", "one"),
}
MIN_COLORS = 3  # colour questions only about classes the generator paints in at least this many colours
CLEAR_ANGLE = 15.0  # degrees from a sector boundary
MIN_DIST = 0.5  # metres
FOOTPRINT_MARGIN = 0.3  # metres around an object's box kept free of agents
NEAR_GAP = 0.3  # metres: the closest object of a sector is closer than the next by at least this
SECTORS = ("front", "left", "behind", "right")
PHRASE = {"front": "in front of me", "left": "on my left", "right": "on my right", "behind": "behind me"}
DIRECTION = {"front": "forward", "left": "left", "right": "right", "behind": "backward"}
TURN = {"front": "without turning", "left": "by turning left", "right": "by turning right", "behind": "by turning around"}
INFO = {
    "info": "scenebench synthetic SQA3D (generated houses)",
    "license": "CC BY 4.0",
    "data_type": "scannet",
    "data_subtype": "v2",
}


def sector(angle: float) -> tuple[str, float]:
    """The sector of an egocentric angle (degrees, 0 ahead, +90 left) and its distance to the nearest boundary."""
    a = (angle + 180.0) % 360.0 - 180.0
    margin = min(abs(abs(a) - 45.0), abs(abs(a) - 135.0))
    if abs(a) < 45.0:
        return "front", margin
    if abs(a) > 135.0:
        return "behind", margin
    return ("left" if a > 0 else "right"), margin


def free_cells(scene: Scene, room: Room) -> list[tuple[int, int]]:
    boxes = [
        (o.centre[:2] - o.size[:2] / 2 - FOOTPRINT_MARGIN, o.centre[:2] + o.size[:2] / 2 + FOOTPRINT_MARGIN) for o in scene.objects.values()
    ]
    out = []
    for i, j in sorted(room.cells):
        if not all((i + di, j + dj) in room.cells for di in (-1, 0, 1) for dj in (-1, 0, 1)):
            continue
        p = (np.array([i, j], float) + 0.5) * CELL
        if any(bool(np.all(p >= lo) and np.all(p <= hi)) for lo, hi in boxes):
            continue
        out.append((i, j))
    return out


Candidate = tuple[str, str, str]  # (kind, question, answer)


def _possibly(angle: float, s: str) -> bool:
    """Whether an egocentric angle is in sector ``s`` or within :data:`CLEAR_ANGLE` of it."""
    a = (angle + 180.0) % 360.0 - 180.0
    centre = {"front": 0.0, "left": 90.0, "behind": 180.0, "right": -90.0}[s]
    off = abs((a - centre + 180.0) % 360.0 - 180.0)
    return off < 45.0 + CLEAR_ANGLE


def _pose_questions(
    scene: Scene, room: Room, p: np.ndarray, yaw: float, rng: np.random.Generator
) -> tuple[list[str], tuple[str, ...], list[Candidate]] | None:
    """The situation sentences (main first), the two sectors they name (sorted) and the question
    candidates of one pose, or None.

    Every object of the scene is placed around the agent; the situation and the questions name
    only objects of the agent's room whose class has no instance elsewhere in the scene (the room
    and the scene then give the same answer), each clear of the sector boundaries."""
    fwd, left = np.array([math.cos(yaw), math.sin(yaw)]), np.array([-math.sin(yaw), math.cos(yaw)])
    angle: dict[int, float] = {}
    dist: dict[int, float] = {}
    seen: dict[int, str] = {}  # object -> sector, for objects clear of every boundary and not too close
    for k, o in scene.objects.items():
        d = o.centre[:2] - p
        dist[k] = float(np.linalg.norm(d))
        angle[k] = math.degrees(math.atan2(float(d @ left), float(d @ fwd)))
        sec, margin = sector(angle[k])
        if margin >= CLEAR_ANGLE and dist[k] >= MIN_DIST:
            seen[k] = sec
    label = {k: o.label for k, o in scene.objects.items()}
    instances: dict[str, list[int]] = defaultdict(list)
    for k in sorted(scene.objects):
        instances[label[k]].append(k)
    here = set(room.objects)
    local = {name for name, ks in instances.items() if set(ks) <= here}  # every instance in the agent's room
    single = [k for k in sorted(seen) if label[k] in local and len(instances[label[k]]) == 1]
    if len(single) < 2:
        return None
    order = rng.permutation(len(single))
    a = single[int(order[0])]
    b = next((single[int(i)] for i in order[1:] if seen[single[int(i)]] != seen[a]), None)
    if b is None:
        return None
    la, sa, lb, sb = label[a], PHRASE[seen[a]], label[b], PHRASE[seen[b]]
    situations = [
        f"I am standing with the {la} {sa} and the {lb} {sb}.",
        f"The {lb} is {sb} and the {la} is {sa}.",
        f"I stand so that the {la} is {sa}, while the {lb} is {sb}.",
    ]
    mentioned = {la, lb}
    cands: list[Candidate] = []

    def other_sector(s: str) -> str:
        return [x for x in SECTORS if x != s][int(rng.integers(3))]

    for k in single:
        x, s = label[k], seen[k]
        if x in mentioned:
            continue
        cands.append(("which", f"Which direction should I go to reach the {x}?", DIRECTION[s]))
        # both answers of each yes/no kind: the balancing then keeps as many yes as no
        for ask in (s, other_sector(s)):
            answer = "yes" if ask == s else "no"
            if rng.random() < 0.5:
                cands.append(("is", f"Is the {x} {PHRASE[ask]}?", answer))
            else:
                cands.append(("isnt", f"Isn't the {x} {PHRASE[ask]}?", answer))
            cands.append(("can", f"Can I reach the {x} {TURN[ask]}?", answer))
        if s in ("left", "right"):
            cands.append(("should", f"Should I turn left or right to face the {x}?", s))
    for name in sorted(local - mentioned):
        ks = instances[name]
        if len(ks) > 20 or not all(k in seen for k in ks):
            continue
        colors = [scene.objects[k].color for k in ks]
        painted = len(CATEGORIES[name].colors) if name in CATEGORIES else 0
        for s in SECTORS:
            n = sum(seen[k] == s for k in ks)
            if NUMBER_WORDS[n] in CLOSED["how"]:
                cands.append(("how", f"How many {plural(name)} are {PHRASE[s]}?", NUMBER_WORDS[n]))
            # one colour for every instance would not need the pose; a class painted in few colours is guessed blind
            if len(ks) >= 2 and n == 1 and all(colors) and len(set(colors)) > 1 and painted >= MIN_COLORS:
                (k,) = [k for k in ks if seen[k] == s]
                cands.append(("what_color", f"What color is the {name} {PHRASE[s]}?", scene.objects[k].color))
    for s in SECTORS:
        near = sorted((dist[k], k) for k in scene.objects if _possibly(angle[k], s))
        if not near or near[0][1] not in here or seen.get(near[0][1]) != s or label[near[0][1]] in mentioned:
            continue
        if len(near) > 1 and near[1][0] - near[0][0] < NEAR_GAP:
            continue
        cands.append(("what", f"What is the closest object {PHRASE[s]}?", label[near[0][1]]))
    return situations, tuple(sorted((seen[a], seen[b]))), cands


def balance(cands: list[tuple[Any, Candidate]], rng: np.random.Generator) -> list[tuple[Any, Candidate]]:
    """Seeded picks. A closed kind keeps, for each pair of sectors a situation names, as many of
    each answer of its set as the rarest has (a situation-only reader learns nothing of the
    answer from which sectors are described); an open kind (a class, a colour) keeps at most the
    median answer's count of each answer."""
    groups: dict[tuple[str, tuple[str, ...], str], list[tuple[Any, Candidate]]] = defaultdict(list)
    for item in cands:
        kind, answer = item[1][0], normalize(item[1][2])
        groups[(kind, item[0][-1] if kind in CLOSED else (), answer)].append(item)
    kept: list[tuple[Any, Candidate]] = []
    for kind, sig in sorted({(k, g) for k, g, _ in groups}):
        if kind in CLOSED:
            cap = min(len(groups.get((kind, sig, a), [])) for a in CLOSED[kind])
        else:
            cap = max(1, math.ceil(float(np.median([len(v) for (k, _, _), v in groups.items() if k == kind]))))
        for key in sorted(g for g in groups if g[:2] == (kind, sig)):
            g = groups[key]
            kept += [g[int(i)] for i in sorted(rng.permutation(len(g))[:cap])]
    return kept


def situated(scenes: list[Scene], rng: np.random.Generator) -> dict[str, list[dict[str, Any]]]:
    """The records of each SQA3D split: question, situation, pose and answer."""
    out: dict[str, list[dict[str, Any]]] = {}
    for scene_split, split in SPLITS:
        picked: list[tuple[Any, Candidate]] = []
        for scene in (s for s in scenes if s.split == scene_split):
            for room in scene.rooms:
                cells = free_cells(scene, room)
                if len(room.objects) < 3 or not cells:
                    continue
                made_here = 0
                for i in rng.permutation(len(cells))[:POSE_TRIES]:
                    if made_here == POSES_PER_ROOM:
                        break
                    c = cells[int(i)]
                    p = (np.array(c, float) + 0.5) * CELL
                    yaw = float(rng.uniform(0.0, 2 * math.pi))
                    made = _pose_questions(scene, room, p, yaw, rng)
                    if made is None:
                        continue
                    situations, named, cands = made
                    made_here += 1
                    pose = (scene.scene_id, situations, (float(p[0]), float(p[1]), room.floor_z), yaw, named)
                    by_kind: dict[str, list[Candidate]] = defaultdict(list)
                    for cand in cands:
                        by_kind[cand[0]].append(cand)
                    for kind in sorted(by_kind):
                        opts = by_kind[kind]
                        picked += [(pose, opts[int(i)]) for i in sorted(rng.permutation(len(opts))[:PER_POSE_KIND])]
        kept = balance(picked, rng)
        kept = [kept[int(i)] for i in rng.permutation(len(kept))]
        ids = sorted(int(v) for v in rng.choice(10**6, size=len(kept), replace=False))
        recs = []
        for qid, ((sid, situations, pos, yaw, _), (_kind, question, answer)) in zip(ids, kept):
            recs.append(
                {
                    "scene_id": sid,
                    "situation": situations[0],
                    "alternative_situation": situations[1:],
                    "question": question,
                    "question_id": qid,
                    "answer": cleaned_fixed_point(answer),
                    "position": {"x": round(pos[0], 4), "y": round(pos[1], 4), "z": round(pos[2], 4)},
                    "yaw": yaw,
                }
            )
        out[split] = recs
    return out


def _rotation(yaw: float, w_first: bool) -> dict[str, float]:
    q = {"_x": 0.0, "_y": 0.0, "_z": round(math.sin(yaw / 2), 6), "_w": round(math.cos(yaw / 2), 6)}
    return {"_w": q["_w"], "_x": 0.0, "_y": 0.0, "_z": q["_z"]} if w_first else q


def write_split(folder: Path, split: str, recs: list[dict[str, Any]]) -> list[Path]:
    """The questions and annotations envelopes of one split (the train split's rotations list ``_w``
    first, as the docs' example; the test split's last, as the released test file)."""
    qs = [{k: r[k] for k in ("scene_id", "situation", "alternative_situation", "question", "question_id")} for r in recs]
    anns = [
        {
            "scene_id": r["scene_id"],
            "question_type": "N/A",
            "answer_type": "other",
            "question_id": r["question_id"],
            "answers": [{"answer": r["answer"], "answer_confidence": "yes", "answer_id": 1}],
            "position": r["position"],
            "rotation": _rotation(r["yaw"], split == "train"),
        }
        for r in recs
    ]
    qpath = folder / f"v1_balanced_questions_{split}_scannetv2.json"
    apath = folder / f"v1_balanced_sqa_annotations_{split}_scannetv2.json"
    atomic_write_json(qpath, {**INFO, "task_type": "Situated question answering", "questions": qs}, indent=None)
    atomic_write_json(apath, {**INFO, "annotations": anns}, indent=None)
    return [qpath, apath]


def write_synthetic(folder: Path, root: Path, summaries: list[dict[str, Any]], rng: np.random.Generator) -> list[Path]:
    src = root / EXPORT
    if not (src / "ScanRefer_filtered_val.json").is_file():
        return []  # derived from the ScanRefer export: without it, nothing to write
    splits = situated(load_generated(root / EXPORT, root / SEGMENTATION, summaries, "surprise3d_scenes", "surprise3d_objects"), rng)
    (folder / SCENES).mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for split, recs in splits.items():
        written += write_split(folder, split, recs)
    answers = sorted({r["answer"] for r in splits["train"]})
    atomic_write_json(
        folder / "answer_dict.json", [{a: i for i, a in enumerate(answers)}, {str(i): a for i, a in enumerate(answers)}], indent=None
    )
    written.append(folder / "answer_dict.json")
    for scene in sorted({r["scene_id"] for recs in splits.values() for r in recs}):
        for kind in ("aligned_bbox", "aligned_vert", "ins_label"):
            shutil.copyfile(src / SCENES / f"{scene}_{kind}.npy", folder / SCENES / f"{scene}_{kind}.npy")
            written.append(folder / SCENES / f"{scene}_{kind}.npy")
    return written
