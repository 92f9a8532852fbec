"""A sighted counting probe of ``scenebench audit``: classify the ground-truth instance clouds of a
house, count those of the asked category (or the pieces of furniture standing on the floor of the
asked room), pick the option nearest the count.

3DBench ships a house as one cloud with no instances, so the probe reads the instance segmentation
of a ``scenebench generate`` output: the SURPRISE3D scene of the same house (``surprise3d/scenes/
<scene>.npz`` beside the 3DBench folder, the house's scene id from the run's ``manifest.json``),
its points only; the instances' categories come from a random forest on
:func:`~scenebench.benchmarks.bench3d.audit.cloud_features` fitted on the **train** houses'
instances (their labels from ``segments_anno.json``). Rooms come from the house's
``RoomDetection.json`` boxes. It is the "[ground-truth perception]" counterpart of the blind
counting probes: segmentation given, recognition learned, what looking adds.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

SKIPPED = frozenset({"wall", "floor", "ceiling"})  # not objects: never classified
NOT_FURNITURE = frozenset({"doorway", "window"})  # openings: never counted
SUPPORT_GAP = 0.1  # metres: a cloud whose bottom lies this close to another's top, above it, stands on it
MIN_POINTS = 10  # instances with fewer points are not classified (no shape to read)


def _zup_to_yup(xyz: np.ndarray) -> np.ndarray:
    """Scene points (z up, as SURPRISE3D writes them) -> the y-up frame of 3DBench."""
    return np.stack([xyz[:, 0], xyz[:, 2], -xyz[:, 1]], 1)


def house_instances(data_root: Path, house: str) -> list[tuple[str, np.ndarray]] | None:
    """(label, (N, 6) y-up cloud with rgb in [0, 1]) of every object instance of ``house`` in the
    SURPRISE3D export of ``data_root`` (a ``scenebench generate`` output); None when absent."""
    from scenebench.io.arrays import load_npz

    scene_id = _scene_ids(data_root).get(house)
    if scene_id is None:
        return None
    scene = data_root / "surprise3d" / "scenes" / f"{scene_id}.npz"
    anno = data_root / "surprise3d" / "scannetpp" / scene_id / "scans" / "segments_anno.json"
    if not scene.is_file() or not anno.is_file():
        return None
    arr = load_npz(scene, only=("sampled_coords", "sampled_colors", "sampled_instance_anno_id"))
    labels = {int(g["objectId"]): str(g["label"]) for g in json.loads(anno.read_text()).get("segGroups", []) if isinstance(g, dict)}
    xyz = _zup_to_yup(np.asarray(arr["sampled_coords"], float))
    rgb = np.asarray(arr["sampled_colors"], float)
    rgb = rgb / 255.0 if rgb.size and rgb.max() > 1.0 else rgb
    inst = np.asarray(arr["sampled_instance_anno_id"]).reshape(-1)
    order = np.argsort(inst, kind="stable")
    ids, starts = np.unique(inst[order], return_index=True)
    out = []
    for i, a, b in zip(ids, starts, [*starts[1:], len(inst)]):
        label = labels.get(int(i))
        if i < 0 or label is None or label in SKIPPED or b - a < MIN_POINTS:
            continue
        rows = order[a:b]
        out.append((label, np.concatenate([xyz[rows], rgb[rows]], 1)))
    return out


_MANIFESTS: dict[Path, dict[str, str]] = {}


def _scene_ids(data_root: Path) -> dict[str, str]:
    if data_root not in _MANIFESTS:
        path = data_root / "manifest.json"
        try:
            doc = json.loads(path.read_text())
        except (OSError, ValueError):
            doc = {}
        per_house = doc.get("per_house", []) if isinstance(doc, dict) else []
        _MANIFESTS[data_root] = {str(h["house_id"]): str(h["scene_id"]) for h in per_house if isinstance(h, dict) and "scene_id" in h}
    return _MANIFESTS[data_root]


def room_boxes(folder: Path) -> dict[str, list[tuple[str, np.ndarray]]]:
    """House id -> (room type, [x_min, x_max, z_min, z_max]) from ``RoomDetection.json`` (boxes
    ``[x, z, y, lx, lz, h]``)."""
    path = folder / "RoomDetection.json"
    if not path.is_file():
        return {}
    out: dict[str, list[tuple[str, np.ndarray]]] = {}
    for rec in json.loads(path.read_text()):
        house = Path(str(rec.get("pcl", ""))).stem
        for room in rec.get("object", []) or []:
            x, z, _y, lx, lz, _h = (float(v) for v in room["bbox"])
            out.setdefault(house, []).append((str(room["label"]), np.array([x - lx / 2, x + lx / 2, z - lz / 2, z + lz / 2])))
    return out


def floor_standing(clouds: list[np.ndarray]) -> np.ndarray:
    """Per cloud: True unless something holds it up: it is off the floor (bottom above
    ``SUPPORT_GAP``) and another cloud whose floor footprint overlaps its own reaches from below it
    up to its bottom (a table under a mug, a sofa under a pillow, a shelf around a book); wall-hung
    things, with nothing under them up to their bottom, count as standing."""
    lo = np.array([c[:, :3].min(0) for c in clouds]).reshape(-1, 3)
    hi = np.array([c[:, :3].max(0) for c in clouds]).reshape(-1, 3)
    out = np.ones(len(clouds), bool)
    for k in range(len(clouds)):
        if lo[k, 1] < SUPPORT_GAP:
            continue  # on the floor
        overlap = (np.minimum(hi[:, 0], hi[k, 0]) > np.maximum(lo[:, 0], lo[k, 0])) & (
            np.minimum(hi[:, 2], hi[k, 2]) > np.maximum(lo[:, 2], lo[k, 2])
        )
        holds = (lo[:, 1] < lo[k, 1]) & (hi[:, 1] >= lo[k, 1] - SUPPORT_GAP)
        holds[k] = False
        out[k] = not (overlap & holds).any()
    return out


def room_of(centres: np.ndarray, rooms: list[tuple[str, np.ndarray]]) -> np.ndarray:
    """Per floor-plane centre ``(x, z)`` the index in ``rooms`` of the smallest room box holding it
    (-1: none): an L-shaped room's box also covers its neighbours, whose own boxes are smaller."""
    out = np.full(len(centres), -1)
    best = np.full(len(centres), np.inf)
    for j, (_label, b) in enumerate(rooms):
        inside = (centres[:, 0] >= b[0]) & (centres[:, 0] <= b[1]) & (centres[:, 1] >= b[2]) & (centres[:, 1] <= b[3])
        area = (b[1] - b[0]) * (b[3] - b[2])
        take = inside & (area < best)
        out[take], best[take] = j, area
    return out


def count_answer(
    query: str, asked: str, predicted: list[str], clouds: list[np.ndarray], rooms: list[tuple[str, np.ndarray]]
) -> float | None:
    """The count the probe reads for a question: instances predicted ``asked``, or for furniture
    the floor-standing instances (openings left out) whose centre lies in the named room's box."""
    if asked != "furniture":
        return float(sum(p == asked for p in predicted))
    low = query.lower()
    named = [j for j, (label, _box) in enumerate(rooms) if f"floor of the {label}" in low]
    if not named:
        return None
    standing = floor_standing(clouds)
    where = room_of(np.array([c[:, [0, 2]].mean(0) for c in clouds]).reshape(-1, 2), rooms)
    j = named[0]
    return float(sum(1 for k, p in enumerate(predicted) if where[k] == j and standing[k] and p not in NOT_FURNITURE))


def sighted_counting(root: Path, train: list[Any], test: list[Any], *, seed: int, features: Callable[[Any], Any]) -> list[int] | None:
    """Per test counting question (3DBench records of ``root``, the test folder) the option nearest
    the count read from the classified instance clouds; None when the run has no SURPRISE3D
    export of the houses (nothing to segment with) or its train houses hold under two labels."""
    from scenebench.extras import require

    require("sklearn", "audit", "the sighted counting probe of scenebench audit")
    from sklearn.ensemble import RandomForestClassifier

    data_root = root.parent
    train_houses = sorted({Path(r.pcl).stem for r in train})
    test_houses = sorted({Path(r.pcl).stem for r in test})
    xs, ys = [], []
    for h in train_houses:
        inst = house_instances(data_root, h)
        if inst is None:
            return None
        xs += [features(c) for _, c in inst]
        ys += [label for label, _ in inst]
    if len(set(ys)) < 2:
        return None
    model = RandomForestClassifier(n_estimators=200, random_state=seed, n_jobs=1).fit(np.array(xs), ys)
    rooms = room_boxes(root)
    seen: dict[str, tuple[list[str], list[np.ndarray]]] = {}
    for h in test_houses:
        inst = house_instances(data_root, h)
        if inst is None:
            return None
        clouds = [c for _, c in inst]
        seen[h] = ([str(p) for p in model.predict(np.array([features(c) for c in clouds]))] if clouds else [], clouds)
    chosen = []
    for r in test:
        h = Path(r.pcl).stem
        predicted, clouds = seen[h]
        asked = str(r.raw.get("object") or _asked_category(r.query))
        n = count_answer(r.query, asked, predicted, clouds, rooms.get(h, []))
        values = [float(v) for v in r.gt["choices"]]
        chosen.append(0 if n is None else int(np.argmin([abs(v - n) for v in values])))
    return chosen


def _asked_category(query: str) -> str:
    m = re.search(r"how many (\w+)", query.lower())
    return m.group(1) if m else ""
