"""Nr3D / Sr3D predictions: the chosen object per utterance.

A JSON list or JSONL of records naming the utterance by ``sample_id`` (``scan_id:target_id:k``,
:mod:`.data`) or by ``scan_id`` (or ``scene_id``), ``target_id`` (or ``object_id``) and ``ann_id``
(``k``), with the answer as ``pred_id`` (an object id) or ``pred`` (model text, parsed by the
protocol's rule in :mod:`.scorer`: ``<OBJ012>`` tokens, a bare id). Returned by sample id as an
``int`` or a ``str``.
"""

from __future__ import annotations

from pathlib import Path

from scenebench.errors import InputError
from scenebench.io.files import iter_jsonl, read_json

from .data import Utterance


def _id(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and value >= 0:
        return value
    return int(value) if isinstance(value, str) and value.isdigit() else None


def read_predictions(path: str | Path, utterances: list[Utterance]) -> dict[str, int | str]:
    p = Path(path)
    if p.suffix == ".jsonl":
        rows = [(f"line {n}", r) for n, r in iter_jsonl(p, allow_empty=True)]
    else:
        doc = read_json(p, what="Nr3D/Sr3D predictions")
        if not isinstance(doc, list):
            raise InputError(p, "is not a JSON list", expected="a list of {sample_id | scan_id, target_id, ann_id; pred_id | pred}")
        rows = [(f"record {i}", r) for i, r in enumerate(doc)]
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
        if "pred_id" in r:
            v = _id(r["pred_id"])
            if v is None:
                raise InputError(p, f"{r['pred_id']!r} is not an object id", where=where, field="pred_id")
            out[sid] = v
        elif isinstance(r.get("pred"), str):
            out[sid] = r["pred"]
        else:
            raise InputError(p, "neither pred_id (an object id) nor pred (text)", where=where, field="pred_id")
    return out
