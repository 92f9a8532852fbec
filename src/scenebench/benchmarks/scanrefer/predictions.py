"""ScanRefer predictions: the benchmark's submission shape, one box per (scene_id, object_id, ann_id).

A JSON list (``pred.json``) or JSONL of ``{"scene_id", "object_id", "ann_id", "bbox"}``, ``bbox``
the 8 corners (8 x 3, metres, the released ``get_3d_box`` output); the axis-aligned box of the
corners is scored, as the released ``box3d_iou`` does. Returned as min-max rows by sample id.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from scenebench.errors import InputError
from scenebench.io.files import json_records
from scenebench.io.scannet import minmax_of_corners

from .data import Sample


def read_predictions(path: str | Path, samples: list[Sample]) -> dict[str, np.ndarray]:
    p = Path(path)
    rows = json_records(p, what="ScanRefer predictions", expected="a list of {scene_id, object_id, ann_id, bbox}")
    known = {s.sample_id for s in samples}
    out: dict[str, np.ndarray] = {}
    for where, r in rows:
        if not isinstance(r, dict):
            raise InputError(p, "is not an object", where=where)
        for f in ("scene_id", "object_id", "ann_id"):
            if not isinstance(r.get(f), str | int) or isinstance(r.get(f), bool):
                raise InputError(p, "missing or not a string/integer", where=where, field=f)
        sid = ":".join([str(r["scene_id"]), *(str(int(v)) if str(v).isdigit() else str(v) for v in (r["object_id"], r["ann_id"]))])
        if sid not in known:
            raise InputError(p, f"{sid} (scene_id:object_id:ann_id) is no sample of the annotations", where=where)
        if sid in out:
            raise InputError(p, f"a second box for {sid}", where=where, field="ann_id")
        out[sid] = minmax_of_corners(r.get("bbox"), p, where=where, field="bbox")
    return out
