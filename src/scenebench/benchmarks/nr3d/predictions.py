"""Nr3D / Sr3D predictions: the chosen object per utterance.

A JSON list or JSONL of records naming the utterance by ``sample_id`` (``scan_id:target_id:k``,
:mod:`.data`) or by ``scan_id`` (or ``scene_id``), ``target_id`` (or ``object_id``) and ``ann_id``
(``k``), with the answer as ``pred_id`` (an object id) or ``pred`` (model text, parsed by the
protocol's rule in :mod:`.scorer`: ``<OBJ012>`` tokens, a bare id). Returned by sample id as an
``int`` or a ``str``. A record may also carry ``aabb``, the chosen object's box as 8 corners (or a
list holding one such box: M3DRef-CLIP's per-query layout); ``official:m3drefclip`` scores that box
(collected into ``boxes``), the identity protocols read only the id, and a record with a box and no
id answers ``""`` there (no id: invalid).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from scenebench.errors import InputError
from scenebench.io.files import json_records
from scenebench.io.scannet import minmax_of_corners

from .data import Utterance


def _id(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and value >= 0:
        return value
    return int(value) if isinstance(value, str) and value.isdigit() else None


def _box(value: object, p: Path, where: str) -> np.ndarray:
    """(6,) min-max box of 8 corners, or of a list holding one 8-corner box."""
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], list) and len(value[0]) == 8:
        value = value[0]  # M3DRef-CLIP's per-query layout: a list holding the one box
    return minmax_of_corners(value, p, where=where, field="aabb", expected="[[x, y, z] x 8] or [[[x, y, z] x 8]]")


def read_predictions(path: str | Path, utterances: list[Utterance], boxes: dict[str, np.ndarray] | None = None) -> dict[str, int | str]:
    p = Path(path)
    rows = json_records(p, what="Nr3D/Sr3D predictions", expected="a list of {sample_id | scan_id, target_id, ann_id; pred_id | pred}")
    known = {u.sample_id for u in utterances}
    out: dict[str, int | str] = {}
    for where, r in rows:
        if not isinstance(r, dict):
            raise InputError(p, "is not an object", where=where)
        if "sample_id" in r:
            sid = r["sample_id"]
        else:
            scan = r.get("scan_id", r.get("scene_id"))
            ids = [_id(r.get("target_id", r.get("object_id"))), _id(r.get("ann_id"))]
            for name, v in zip(("target_id", "ann_id"), ids):
                if v is None:
                    raise InputError(p, "missing or not an integer id", where=where, field=name)
            sid = f"{scan}:{ids[0]}:{ids[1]}"
        if sid not in known:
            raise InputError(p, f"{sid!r} (scan_id:target_id:ann_id) is no utterance of the ground truth", where=where, field="sample_id")
        if sid in out:
            raise InputError(p, f"a second record for {sid}", where=where, field="sample_id")
        if "aabb" in r:
            box = _box(r["aabb"], p, where)
            if boxes is not None:
                boxes[sid] = box
        if "pred_id" in r:
            v = _id(r["pred_id"])
            if v is None:
                raise InputError(p, f"{r['pred_id']!r} is not an object id", where=where, field="pred_id")
            out[sid] = v
        elif isinstance(r.get("pred"), str):
            out[sid] = r["pred"]
        elif "aabb" in r:
            out[sid] = ""  # a box alone names no object id
        else:
            raise InputError(p, "neither pred_id (an object id), pred (text) nor aabb (a box)", where=where, field="pred_id")
    return out
