"""Scan2Cap predictions: the benchmark server's ``pred.json``.

``{scene_id: [{"caption": "sos ... eos", "box": [[x, y, z] x 8], ...}, ...]}`` (Scan2Cap's
``benchmark/predict.py``; ``sem_prob`` / ``obj_prob`` are accepted and not read). A leading ``sos``
and a trailing ``eos`` word are taken off each caption (each protocol adds its own wrapping). A
scene absent from the file has no proposals. Returned per scene as (P, 6) min-max boxes and P captions,
in file order.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from scenebench.errors import InputError
from scenebench.io.files import read_json
from scenebench.io.scannet import minmax_of_corners

from .data import DescribedObject

EXPECTED = '{scene_id: [{"caption": str, "box": [[x, y, z] x 8]}, ...]}'


def strip_wrapping(caption: str) -> str:
    words = caption.split()
    if words[:1] == ["sos"]:
        words = words[1:]
    if words[-1:] == ["eos"]:
        words = words[:-1]
    return " ".join(words)


def read_predictions(path: str | Path, objects: list[DescribedObject]) -> dict[str, tuple[np.ndarray, list[str]]]:
    p = Path(path)
    doc = read_json(p, what="Scan2Cap predictions")
    if not isinstance(doc, dict):
        raise InputError(p, "is not a JSON object", expected=EXPECTED)
    scenes = {o.scene_id for o in objects}
    out: dict[str, tuple[np.ndarray, list[str]]] = {}
    for scene, props in doc.items():
        if scene not in scenes:
            raise InputError(p, f"{scene!r} is no scene of the descriptions", where=f"scene {scene}")
        if not isinstance(props, list):
            raise InputError(p, "is not a list of proposals", where=f"scene {scene}", expected=EXPECTED)
        boxes, captions = [], []
        for i, r in enumerate(props):
            where = f"scene {scene}, proposal {i}"
            if not isinstance(r, dict) or not isinstance(r.get("caption"), str):
                raise InputError(p, "missing or not a string", where=where, field="caption")
            boxes.append(minmax_of_corners(r.get("box"), p, where=where, field="box"))
            captions.append(strip_wrapping(r["caption"]))
        out[scene] = (np.asarray(boxes, dtype=np.float64).reshape(-1, 6), captions)
    return out
