"""Multi3DRefer predictions: 0…N boxes per query, each as 8 corners.

Two layouts (``docs/metrics/multi3drefer_f1.md``):

- M3DRef-CLIP's folder: ``<folder>/<scene_id>.json`` per scene, a JSON list of ``{"ann_id": int,
  "aabb": [[[x, y, z] x 8], ...]}`` (the released ``evaluate.py`` reader); a scene without a file
  has no predictions;
- one file: a JSON list (or JSONL) of ``{"scene_id", "ann_id", "aabb"}``.

``"aabb": []`` is an explicit "no target" answer; a query with no record is *missing*. The
axis-aligned box of each box's corners is scored, as released. Returned as (P, 6) min-max arrays by
sample id.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from scenebench.errors import InputError
from scenebench.io.files import file_fingerprint, json_records

from .data import Query

EXPECTED = "[] or [[[x, y, z] x 8], ...]"


def boxes_of(value: object, p: Path, where: str) -> np.ndarray:
    """(P, 6) min-max boxes of a list of 8-corner boxes (``[]``: no box)."""
    if isinstance(value, list) and not value:
        return np.zeros((0, 6))
    try:
        corners = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        corners = np.zeros(0)
    if corners.ndim != 3 or corners.shape[1:] != (8, 3) or not np.isfinite(corners).all():
        raise InputError(p, "not a list of 8-corner boxes of finite numbers", where=where, field="aabb", expected=EXPECTED)
    return np.concatenate([corners.min(1), corners.max(1)], axis=1)


def prediction_files(path: str | Path, queries: list[Query]) -> list[Path]:
    """The files a score depends on: the one file, or each scene's file that exists in the folder."""
    p = Path(path)
    if not p.is_dir():
        return [p]
    return [f for f in (p / f"{s}.json" for s in dict.fromkeys(q.scene_id for q in queries)) if f.is_file()]


def fingerprints(path: str | Path, queries: list[Query]) -> Any:
    p = Path(path)
    if not p.is_dir():
        return file_fingerprint(p)
    return {f.stem: file_fingerprint(f) for f in prediction_files(p, queries)}


def read_predictions(path: str | Path, queries: list[Query]) -> dict[str, np.ndarray]:
    p = Path(path)
    if not p.exists():
        raise InputError(p, "does not exist", expected="a predictions file or an M3DRef-CLIP folder of <scene_id>.json")
    known = {q.sample_id for q in queries}
    out: dict[str, np.ndarray] = {}
    for f in prediction_files(p, queries):
        scene = f.stem if p.is_dir() else None
        for where, r in json_records(f, what="Multi3DRefer predictions", expected="a list of {ann_id, aabb} records"):
            if not isinstance(r, dict):
                raise InputError(f, "is not an object", where=where)
            if scene is None and not isinstance(r.get("scene_id"), str):
                raise InputError(f, "missing or not a string", where=where, field="scene_id")
            ann = r.get("ann_id")
            if isinstance(ann, bool) or not (isinstance(ann, int) or (isinstance(ann, str) and ann.isdigit())):
                raise InputError(f, f"{ann!r} is not an integer id", where=where, field="ann_id")
            sid = f"{scene if scene is not None else r['scene_id']}:{int(ann)}"
            if sid not in known:
                raise InputError(f, f"{sid} (scene_id:ann_id) is no query of the language file", where=where, field="ann_id")
            if sid in out:
                raise InputError(f, f"a second record for {sid}", where=where, field="ann_id")
            if "aabb" not in r:
                raise InputError(f, "missing", where=where, field="aabb", expected=EXPECTED)
            out[sid] = boxes_of(r["aabb"], f, where)
    return out
