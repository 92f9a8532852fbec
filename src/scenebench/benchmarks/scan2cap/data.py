"""Scan2Cap ground truth: ScanRefer-format descriptions grouped per object, and the box tables.

Chen, Gholami, Nießner, Chang, "Scan2Cap: Context-aware Dense Captioning in RGB-D Scans", CVPR 2021,
arXiv 2012.02206 (released code ``daveredrum/Scan2Cap``: ``lib/eval_helper.py``, ``benchmark/eval.py``).

- descriptions: ``ScanRefer_filtered_<split>.json`` (or Scan2Cap's ``nr3d_<split>.json`` in the same
  layout), a JSON list of ``{scene_id, object_id, object_name, ann_id, description, token}``; one
  sample per described object, id ``scene_id:object_id``, its references every description of it
  (``token``: the released word list; absent, the description split on whitespace);
- box tables: ``<scene_id>_aligned_bbox.npy``, (K, 8) rows ``[cx, cy, cz, dx, dy, dz, nyu40id,
  object_id]`` (ScanNet preprocessed, axis-aligned).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from scenebench.errors import InputError
from scenebench.io.files import check_path_id, json_records
from scenebench.io.generated import require_finished


@dataclass(frozen=True)
class DescribedObject:
    sample_id: str  # "<scene_id>:<object_id>"
    scene_id: str
    object_id: int
    object_name: str
    descriptions: tuple[str, ...]
    tokens: tuple[tuple[str, ...], ...]  # the released token list of each description


def _int_id(value: object, path: Path, where: str, field: str) -> int:
    if isinstance(value, bool) or not (isinstance(value, int) or (isinstance(value, str) and value.isdigit())):
        raise InputError(path, f"{value!r} is not a non-negative integer id", where=where, field=field)
    return int(value)


def load_objects(path: str | Path) -> list[DescribedObject]:
    """The described objects in order of their first description."""
    p = Path(path)
    require_finished(p)
    expected = "a list of {scene_id, object_id, object_name, ann_id, description, token}"
    groups: dict[tuple[str, int], list[tuple[str, tuple[str, ...]]]] = defaultdict(list)
    names: dict[tuple[str, int], str] = {}
    for where, r in json_records(p, what="Scan2Cap descriptions", expected=expected):
        if not isinstance(r, dict):
            raise InputError(p, "is not an object", where=where)
        for f in ("scene_id", "description"):
            if not isinstance(r.get(f), str):
                raise InputError(p, "missing or not a string", where=where, field=f)
        scene = check_path_id(r["scene_id"], p, where=where, field="scene_id")
        obj = _int_id(r.get("object_id"), p, where, "object_id")
        tok = r.get("token")
        if tok is None:
            tokens = tuple(r["description"].split())
        elif isinstance(tok, list) and all(isinstance(t, str) for t in tok):
            tokens = tuple(tok)
        else:
            raise InputError(p, "not a list of strings", where=where, field="token")
        groups[(scene, obj)].append((r["description"], tokens))
        names.setdefault((scene, obj), str(r.get("object_name", "")))
    return [
        DescribedObject(f"{s}:{o}", s, o, names[(s, o)], tuple(d for d, _ in g), tuple(t for _, t in g)) for (s, o), g in groups.items()
    ]
