"""ScanRefer ground truth: ``ScanRefer_filtered_<split>.json``, ScanNet box tables and the label TSV.

Chen, Chang, Niessner, "ScanRefer: 3D Object Localization in RGB-D Scans using Natural Language",
ECCV 2020, arXiv 1912.08830 (released code: ``lib/dataset.py``, ``data/scannet/load_scannet_data.py``).

- annotations: a JSON list of ``{scene_id, object_id, object_name, ann_id, description, ...}``
  (ids as strings in the release; integers are accepted);
- box tables: ``<scene_id>_aligned_bbox.npy``, (K, 8) rows ``[cx, cy, cz, dx, dy, dz, nyu40id,
  object_id]`` of the axis-aligned ScanNet scene (row ``object_id`` in the release);
- ``scannetv2-labels.combined.tsv``: ``raw_category`` -> ``nyu40class``, which makes the 18 ScanRefer
  classes (anything else is ``others``, class 17) behind the unique/multiple split.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scenebench.errors import InputError
from scenebench.io.files import check_path_id, read_json
from scenebench.io.generated import require_finished
from scenebench.io.scannet import box_path, load_boxes  # the ScanNet box tables: shared by every ScanNet benchmark

CLASSES: tuple[str, ...] = (
    "cabinet",
    "bed",
    "chair",
    "sofa",
    "table",
    "door",
    "window",
    "bookshelf",
    "picture",
    "counter",
    "desk",
    "curtain",
)
CLASSES += ("refrigerator", "shower curtain", "toilet", "sink", "bathtub", "others")
OTHERS = CLASSES.index("others")  # 17
MAX_NUM_OBJ = 128  # the released loader keeps the first 128 rows of a box table
FIELDS = ("scene_id", "object_id", "object_name", "ann_id", "description")


__all__ = ["CLASSES", "OTHERS", "Sample", "box_path", "load_annotations", "load_boxes", "read_raw2label"]


@dataclass(frozen=True)
class Sample:
    sample_id: str
    scene_id: str
    object_id: int
    ann_id: int
    object_name: str
    description: str
    unique: bool  # the released _get_unique_multiple_lookup: no other object of its class in the scene


def _int_id(value: object, path: Path, where: str, field: str) -> int:
    if isinstance(value, bool) or not (isinstance(value, int) or (isinstance(value, str) and value.isdigit())):
        raise InputError(path, f"{value!r} is not a non-negative integer id", where=where, field=field)
    return int(value)


MAX_TSV_FIELD = 10_000  # characters of one label TSV field (the released file's longest is under 100)


def read_raw2label(path: str | Path) -> dict[str, int]:
    """``raw_category`` -> ScanRefer class index (released ``_get_raw2label``; columns found by header name)."""
    p = Path(path)
    if not p.is_file():
        raise InputError(p, "label TSV does not exist", expected="scannetv2-labels.combined.tsv")
    raw_bytes = p.read_bytes()
    try:
        text = raw_bytes.decode("utf-8-sig")
    except UnicodeDecodeError as exc:  # e.g. a Latin-1 "é" (one byte 0xE9)
        line = raw_bytes.count(b"\n", 0, exc.start) + 1
        raise InputError(
            p,
            f"not UTF-8 text (byte 0x{raw_bytes[exc.start]:02x} at offset {exc.start})",
            where=f"line {line}",
            expected="a UTF-8 TSV (re-save it as UTF-8)",
        ) from None
    reader = csv.reader(text.splitlines(), delimiter="\t")
    rows = []
    try:
        for row in reader:
            longest = max(map(len, row), default=0)
            if longest > MAX_TSV_FIELD:
                raise InputError(
                    p,
                    f"holds a field of {longest:,} characters",
                    where=f"line {reader.line_num}",
                    expected=f"fields of at most {MAX_TSV_FIELD:,} characters (label names)",
                )
            rows.append(row)
    except csv.Error as exc:  # a quoted field past csv's own limit, a stray quote at the end of a file
        raise InputError(p, f"is not a readable TSV: {exc}", where=f"line {reader.line_num}", expected="the ScanNet v2 label TSV") from None
    head = rows[0] if rows else []
    for name in ("raw_category", "nyu40class"):
        if name not in head:
            raise InputError(p, "header lacks a column", where="line 1", field=name, expected="the ScanNet v2 label TSV header")
    raw, nyu = head.index("raw_category"), head.index("nyu40class")
    out = {}
    for n, row in enumerate(rows[1:], start=2):
        if len(row) <= max(raw, nyu):
            raise InputError(p, f"has {len(row)} columns", where=f"line {n}", field="nyu40class")
        out[row[raw]] = CLASSES.index(row[nyu]) if row[nyu] in CLASSES else OTHERS
    return out


def load_annotations(path: str | Path, raw2label: dict[str, int]) -> list[Sample]:
    """The samples in file order, each with its unique/multiple flag over this file (the evaluated split)."""
    p = Path(path)
    require_finished(p)
    doc = read_json(p, what="ScanRefer annotations")
    if not isinstance(doc, list):
        raise InputError(p, "is not a JSON list", expected="a list of {scene_id, object_id, object_name, ann_id, description}")
    recs, seen = [], set()
    for i, r in enumerate(doc):
        where = f"record {i}"
        if not isinstance(r, dict):
            raise InputError(p, "is not an object", where=where)
        for f in FIELDS:
            if not isinstance(r.get(f), str | int) or isinstance(r.get(f), bool):
                raise InputError(p, "missing or not a string", where=where, field=f)
        scene = check_path_id(str(r["scene_id"]), p, where=where, field="scene_id")
        obj, ann = _int_id(r["object_id"], p, where, "object_id"), _int_id(r["ann_id"], p, where, "ann_id")
        if (scene, obj, ann) in seen:
            raise InputError(p, f"repeats ({scene}, {obj}, {ann})", where=where, field="ann_id")
        seen.add((scene, obj, ann))
        name = str(r["object_name"])
        recs.append((scene, obj, ann, name, str(r["description"]), raw2label.get(" ".join(name.split("_")), OTHERS)))
    classes: dict[str, dict[int, int]] = defaultdict(dict)
    for scene, obj, _, _, _, label in recs:
        classes[scene].setdefault(obj, label)  # the first record of an object names its class, as released
    counts = {s: np.bincount(list(c.values()), minlength=len(CLASSES)) for s, c in classes.items()}
    return [Sample(f"{s}:{o}:{a}", s, o, a, n, d, bool(counts[s][lab] == 1)) for s, o, a, n, d, lab in recs]
