"""Scan2Cap data from a generated folder: the generator's ScanRefer export (``<out>/scanrefer``) is
already Scan2Cap's input (descriptions with ``token`` lists, ScanNet box tables); its val split and
scenes are copied as files, without the descriptions of flat objects (a box of zero volume has IoU 0
even with itself). The ``token`` lists are rebuilt with punctuation as tokens of their own, as in
ScanRefer's released files (``"window ."``, not ``"window."``): the lineages that split ``. `` or
``.``/``,`` off a caption (LEO, Video-3D-LLM) match such references, not the export's whitespace
split."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.io.files import atomic_write_json, read_json
from scenebench.io.scannet import SCENES, copy_scene, load_boxes

SOURCE, VAL = "scanrefer", "ScanRefer_filtered_val.json"
WORD_OR_MARK = re.compile(r"[^\s.,;:!?]+|[.,;:!?]")


def tokens(description: str) -> list[str]:
    """ScanRefer-style tokens: words, and each punctuation mark a token of its own."""
    return WORD_OR_MARK.findall(description)


def write_synthetic(folder: Path, root: Path, summaries: list[dict[str, Any]], rng: np.random.Generator) -> list[Path]:
    src = root / SOURCE
    if not (src / VAL).is_file():
        return []
    (folder / SCENES).mkdir(parents=True, exist_ok=True)
    recs = read_json(src / VAL)
    scenes = sorted({r["scene_id"] for r in recs})
    flat = set()
    for scene in scenes:
        flat |= {(scene, int(t[7])) for t in load_boxes(src / SCENES, scene) if not (t[3:6] > 0).all()}
    kept = [{**r, "token": tokens(r["description"])} for r in recs if (r["scene_id"], int(r["object_id"])) not in flat]
    atomic_write_json(folder / VAL, kept, indent=None)
    written = [folder / VAL]
    for scene in scenes:
        written += copy_scene(src / SCENES, folder / SCENES, scene)
    return written
