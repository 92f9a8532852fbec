"""Multi3DRefer ground truth: ``multi3drefer_<split>.json`` and the ScanNet box tables.

Zhang, Gong, Chang, "Multi3DRefer: Grounding Text Description to Multiple 3D Objects", ICCV 2023,
arXiv 2309.05251 (released evaluator: ``3dlg-hcvc/M3DRef-CLIP``, ``evaluate.py`` and
``m3drefclip/evaluation/multi3drefer_evaluator.py``).

- language file: a JSON list of ``{scene_id, ann_id, object_ids, eval_type, object_name,
  description}``; ``object_ids`` are ScanNet aggregation object ids (empty for a zero-target
  description), ``eval_type`` one of :data:`EVAL_TYPES`; a query is keyed ``(scene_id, ann_id)``;
- box tables: ``<scene_id>_aligned_bbox.npy``, (K, 8) rows ``[cx, cy, cz, dx, dy, dz, nyu40id,
  object_id]`` in the axis-aligned frame (ScanNet preprocessing, the same table ScanRefer reads);
  a target's GT box is the axis-aligned box of its row.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from scenebench.errors import InputError
from scenebench.io.files import check_path_id, json_records
from scenebench.io.generated import require_finished

# zero / single / multiple targets, with / without distractors (other objects of the described class)
EVAL_TYPES = ("zt_w_d", "zt_wo_d", "st_w_d", "st_wo_d", "mt")
ZERO_TARGET = ("zt_w_d", "zt_wo_d")


@dataclass(frozen=True)
class Query:
    sample_id: str  # "<scene_id>:<ann_id>"
    scene_id: str
    ann_id: int
    object_ids: tuple[int, ...]  # distinct, in file order
    eval_type: str
    object_name: str
    description: str


def _int(value: object, path: Path, where: str, field: str) -> int:
    if isinstance(value, bool) or not (isinstance(value, int) or (isinstance(value, str) and value.isdigit())) or int(value) < 0:
        raise InputError(path, f"{value!r} is not a non-negative integer", where=where, field=field)
    return int(value)


def load_queries(path: str | Path) -> list[Query]:
    """The queries in file order; a second record of one ``(scene_id, ann_id)`` is an error (the
    released evaluator would silently keep the last one)."""
    p = Path(path)
    require_finished(p)
    expected = "a list of {scene_id, ann_id, object_ids, eval_type, description}"
    out, seen = [], set()
    for where, r in json_records(p, what="Multi3DRefer language file", expected=expected):
        if not isinstance(r, dict):
            raise InputError(p, "is not an object", where=where)
        if not isinstance(r.get("scene_id"), str):
            raise InputError(p, "missing or not a string", where=where, field="scene_id")
        scene = check_path_id(r["scene_id"], p, where=where, field="scene_id")
        ann = _int(r.get("ann_id"), p, where, "ann_id")
        ids = r.get("object_ids")
        if not isinstance(ids, list):
            raise InputError(
                p, "missing or not a list", where=where, field="object_ids", expected="a list of object ids ([] for zero targets)"
            )
        objs = tuple(dict.fromkeys(_int(v, p, where, "object_ids") for v in ids))
        etype = r.get("eval_type")
        if etype not in EVAL_TYPES:
            raise InputError(p, f"{etype!r} is no evaluation type", where=where, field="eval_type", expected=" / ".join(EVAL_TYPES))
        if (scene, ann) in seen:
            raise InputError(p, f"repeats ({scene}, ann_id {ann})", where=where, field="ann_id")
        seen.add((scene, ann))
        name, text = r.get("object_name", ""), r.get("description", "")
        if not isinstance(name, str) or not isinstance(text, str):
            raise InputError(p, "not a string", where=where, field="object_name" if not isinstance(name, str) else "description")
        out.append(Query(f"{scene}:{ann}", scene, ann, objs, str(etype), name, text))
    return out
