"""Multi3DRefer files in the released layouts (tests, examples, synthetic data): the language file,
ScanNet box tables and M3DRef-CLIP prediction folders. Writes are atomic."""

from __future__ import annotations

import io
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.geometry.boxes import minmax_to_center_size
from scenebench.io.files import atomic_write_bytes, atomic_write_json
from scenebench.io.scannet import corners_of_minmax

corners = corners_of_minmax  # M3DRef-CLIP's order: x the fastest bit


def write_box_table(folder: str | Path, scene_id: str, object_ids: Iterable[int], minmax: np.ndarray, nyu40: int = 5) -> Path:
    """``<scene_id>_aligned_bbox.npy``: rows ``[cx, cy, cz, dx, dy, dz, nyu40id, object_id]``."""
    ids = np.asarray(list(object_ids), dtype=float)
    cs = minmax_to_center_size(np.asarray(minmax, dtype=float).reshape(-1, 6))
    table = np.concatenate([cs, np.full((len(ids), 1), float(nyu40)), ids[:, None]], axis=1)
    buf = io.BytesIO()
    np.save(buf, table)
    path = Path(folder) / f"{scene_id}_aligned_bbox.npy"
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, buf.getvalue())
    return path


def language_record(
    scene_id: str, ann_id: int, object_ids: list[int], eval_type: str, description: str = "", name: str = "chair"
) -> dict[str, Any]:
    return {
        "scene_id": scene_id,
        "object_name": name,
        "ann_id": ann_id,
        "description": description,
        "object_ids": object_ids,
        "eval_type": eval_type,
    }


def write_language(path: str | Path, records: list[dict[str, Any]]) -> Path:
    atomic_write_json(path, records)
    return Path(path)


def write_prediction_folder(folder: str | Path, boxes: Mapping[tuple[str, int], np.ndarray]) -> Path:
    """M3DRef-CLIP's layout: ``<folder>/<scene_id>.json`` lists of ``{ann_id, aabb: [8 corners, ...]}``."""
    scenes: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for (scene, ann), b in boxes.items():
        scenes[scene].append({"ann_id": ann, "aabb": [corners(r) for r in np.asarray(b, dtype=float).reshape(-1, 6)]})
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    for scene, rows in scenes.items():
        atomic_write_json(out / f"{scene}.json", rows)
    return out
