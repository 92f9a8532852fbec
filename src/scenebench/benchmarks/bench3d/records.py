"""Ground-truth records of 3DBench in the official JSON shapes, validated into typed records.

Every record has ``pcl`` (point cloud path relative to the benchmark folder), ``id`` (house, a
string or an int) and ``query``, and usually ``question_id``; the task-specific fields are listed in
``docs/formats.md`` and in :func:`validate_record`. A bad record raises :class:`InputError` naming
the file, the record (index and question_id) and the field.

**Ids.** The released writers number ``question_id`` from 1 in every task file, so ids repeat
across tasks: a record is identified by ``(task, question_id)``, and :attr:`Record.key`
(``"<task>:<question_id>"``, e.g. ``"counting:3"``) is its id in runs and results. A record
without ``question_id`` (``VisualGrounding_plus.json`` and the scene text tasks as released) gets
the derived id ``row<i>`` from its 0-based row ``i`` in the file (``"row0"``, ``"row1"``, ...); answers
use it as their ``question_id``. ``scenebench validate 3dbench --list-ids`` prints every id.

Box conventions are kept as the files give them: object boxes ``[cx, cy, cz, dx, dy, dz]`` (y up,
full extents); room boxes ``(x, z, y, lx, lz, h)`` (reordered only when compared in 3D).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.benchmarks.bench3d.tasks import TASKS, TaskDef
from scenebench.errors import InputError
from scenebench.io.files import path_id_problem


@dataclass
class Record:
    """One validated ground-truth sample. ``gt`` holds the task's normalised answer fields."""

    task: str
    question_id: str
    house: str
    pcl: str
    query: str
    gt: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict)
    row: int = 0  # 0-based position in its task file
    derived_id: bool = False  # question_id is row<i> (the record has none)
    # ``"<task>:<question_id>"``: unique across the benchmark (question ids repeat across tasks).
    # Set once (scoring looks it up ~6 times per record; records are never changed).
    key: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.key = record_key(self.task, self.question_id)


def record_key(task: str, question_id: str) -> str:
    return f"{task}:{question_id}"


def derived_question_id(row: int) -> str:
    """The id of a record without ``question_id``: its 0-based row in the task file."""
    return f"row{row}"


# house -> (rooms, objects), from the house metadata (see loader.SceneTruth); None when unknown
SceneTruthFn = Callable[[str], tuple[list[str] | None, list[str] | None] | None]


class _Ctx:
    __slots__ = ("path", "index", "rec")

    def __init__(self, path: str | Path | None, index: int, rec: Any) -> None:
        self.path, self.index, self.rec = path, index, rec

    @property
    def where(self) -> str:  # built only for an error: most records have none
        qid = self.rec.get("question_id") if isinstance(self.rec, dict) else None
        index = self.index
        return f"record {index}" + (f" (question_id {qid!r})" if qid is not None else f" (derived id {derived_question_id(index)!r})")

    def fail(self, message: str, field_: str | None = None, expected: str | None = None) -> InputError:
        return InputError(self.path, message, where=self.where, field=field_, expected=expected)


def _num(x: Any) -> bool:
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        return False
    try:
        return math.isfinite(x)
    except OverflowError:  # an int beyond float range
        return False


def _finite_floats(value: Any, n: int | None) -> list[float] | None:
    """``value`` as floats when it is a list of (non-bool) ints and floats, all finite, of length
    ``n``; None otherwise (then :func:`_numbers` checks it one value at a time and says why)."""
    if type(value) is not list or (n is not None and len(value) != n):
        return None
    for v in value:
        if type(v) is not float and type(v) is not int:
            return None
    try:
        out = [float(v) for v in value]  # an int beyond the float range raises OverflowError
    except OverflowError:
        return None
    return out if all(map(math.isfinite, out)) else None


def _numbers(ctx: _Ctx, value: Any, n: int | None, field_: str, what: str) -> list[float]:
    fast = _finite_floats(value, n)
    if fast is not None:
        return fast
    if not isinstance(value, (list, tuple)) or (n is not None and len(value) != n) or not all(_num(v) for v in value):
        got = f"{type(value).__name__} of length {len(value)}" if isinstance(value, (list, tuple)) else type(value).__name__
        raise ctx.fail(
            f"got {got}" if not isinstance(value, (list, tuple)) or (n is not None and len(value) != n) else "holds a non-number",
            field_,
            what,
        )
    return [float(v) for v in value]


def _str(ctx: _Ctx, rec: dict, key: str, *, required: bool = True, allow_int: bool = False) -> str | None:
    v = rec.get(key)
    if type(v) is str and (not required or v.strip()):  # the usual case, decided at once
        return v
    if key not in rec or rec[key] is None:
        if required:
            raise ctx.fail("is missing", key, "a string")
        return None
    v = rec[key]
    if allow_int and isinstance(v, int) and not isinstance(v, bool):
        return str(v)
    if not isinstance(v, str) or (required and not v.strip()):
        raise ctx.fail(f"got {type(v).__name__} {v!r:.60}", key, "a non-empty string" + (" or an integer" if allow_int else ""))
    return v


def _str_list(ctx: _Ctx, rec: dict, key: str, *, required: bool) -> list[str] | None:
    if key not in rec or rec[key] is None:
        if required:
            raise ctx.fail("is missing", key, "a list of strings")
        return None
    v = rec[key]
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise ctx.fail(f"got {type(v).__name__}", key, "a list of strings")
    return list(v)


def _choices(ctx: _Ctx, rec: dict, task: TaskDef) -> dict[str, Any]:
    ch = rec.get("gt_choices")
    if not isinstance(ch, list) or len(ch) < 2:
        raise ctx.fail(
            f"got {type(ch).__name__}" + (f" of length {len(ch)}" if isinstance(ch, list) else ""),
            "gt_choices",
            "a list of at least 2 options",
        )
    if len(ch) > 26:
        raise ctx.fail(f"has {len(ch)} options", "gt_choices", "at most 26 options (letters A-Z)")
    if task.key == "counting":
        out = []
        for c in ch:
            # isdecimal + isascii: "²" and "١" pass str.isdigit but int() refuses them.
            if isinstance(c, bool) or not (
                isinstance(c, int)
                or (isinstance(c, float) and c.is_integer())
                or (isinstance(c, str) and c.strip().isascii() and c.strip().isdecimal())
            ):
                raise ctx.fail(f"option {c!r} is not a whole number", "gt_choices", "integers")
            out.append(str(c) if isinstance(c, int) else str(int(float(c))))
        choices = out
    else:
        if not all(isinstance(c, str) and c.strip() for c in ch):
            raise ctx.fail("holds a non-string or empty option", "gt_choices", "non-empty strings")
        choices = [str(c) for c in ch]
    gi = rec.get("gt_choice")
    if isinstance(gi, bool) or not isinstance(gi, int) or not 0 <= gi < len(choices):
        raise ctx.fail(f"got {gi!r}", "gt_choice", f"an integer index in 0..{len(choices) - 1}")
    gt: dict[str, Any] = {"choices": choices, "answer": gi}
    if task.key == "counting":
        gt["object"] = _str(ctx, rec, "object", required=False)
    if task.key == "position_relation" and "objects" in rec:
        objs = rec["objects"]
        if not isinstance(objs, list):
            raise ctx.fail(f"got {type(objs).__name__}", "objects", "a list [A, B]")
        gt["objects"] = objs
    return gt


def _labelled_boxes(ctx: _Ctx, rec: dict, *, rooms: bool) -> dict[str, Any]:
    objs = rec.get("object")
    if not isinstance(objs, list):
        raise ctx.fail(f"got {type(objs).__name__}", "object", "a list of {name, BoundingBox} or {label, bbox}")
    labels: list[str] = []
    boxes: list[list[float]] = []
    for j, o in enumerate(objs):
        f = f"object[{j}]"
        if not isinstance(o, dict):
            raise ctx.fail(f"got {type(o).__name__}", f, "an object {name, BoundingBox} or {label, bbox}")
        if "BoundingBox" in o or "name" in o:
            name, box = o.get("name"), o.get("BoundingBox")
            nk, bk = "name", "BoundingBox"
        else:
            name, box = o.get("label"), o.get("bbox")
            nk, bk = "label", "bbox"
        if not isinstance(name, str) or not name.strip():
            raise ctx.fail(f"got {name!r:.60}", f"{f}.{nk}", "a non-empty label")
        what = "six numbers (x, z, y, lx, lz, h)" if rooms else "six numbers [cx, cy, cz, dx, dy, dz]"
        boxes.append(_numbers(ctx, box, 6, f"{f}.{bk}", what))
        labels.append(name)
    return {"labels": labels, "boxes": np.asarray(boxes, dtype=float).reshape(-1, 6)}


def _point_list(ctx: _Ctx, value: Any, field_: str) -> np.ndarray:
    if not isinstance(value, list) or not value:
        raise ctx.fail(
            f"got {type(value).__name__}" + (" (empty)" if isinstance(value, list) else ""), field_, "a non-empty list of [x, z]"
        )
    if all(type(p) is list and len(p) == 2 for p in value):  # one check of all numbers at once
        flat = _finite_floats([v for p in value for v in p], None)
        if flat is not None:
            return np.array(flat, dtype=float).reshape(-1, 2)
    pts = [_numbers(ctx, p, 2, f"{field_}[{j}]", "two numbers [x, z]") for j, p in enumerate(value)]
    return np.asarray(pts, dtype=float)


def _text(ctx: _Ctx, rec: dict, task: TaskDef, house: str, scene_truth: SceneTruthFn | None) -> dict[str, Any]:
    gt: dict[str, Any] = {}
    ref = rec.get("reference")
    if ref is None:
        gt["references"] = None
    elif isinstance(ref, str):
        gt["references"] = [ref] if ref.strip() else None
    elif isinstance(ref, list) and all(isinstance(r, str) for r in ref):
        refs = [r for r in ref if r.strip()]
        gt["references"] = refs or None
    else:
        raise ctx.fail(f"got {type(ref).__name__}", "reference", "a string or a list of strings")
    if task.level == "scene":
        # As the released judge: rooms from the house JSON, objects from GT/Classification.json, unless
        # the record carries its own (scenebench's older shape).
        truth = scene_truth(house) if scene_truth is not None and (rec.get("rooms") is None or rec.get("objects") is None) else None
        rooms, objects = truth if truth is not None else (None, None)
        hint = "; or give the house metadata (--houses folder of (<id>).json and GT/Classification.json)"
        if rec.get("rooms") is not None or rooms is None:
            rooms = _str_list(ctx, rec, "rooms", required=False)
        if rooms is None and task.key != "relation":
            raise ctx.fail("is missing and no house metadata gives the rooms", "rooms", "a list of strings" + hint)
        if rec.get("objects") is not None or objects is None:
            objects = _str_list(ctx, rec, "objects", required=False)
        if objects is None:
            raise ctx.fail("is missing and no house metadata gives the objects", "objects", "a list of strings" + hint)
        gt["rooms"], gt["objects"] = rooms, objects
    else:
        obj = rec.get("object")
        if obj is not None and not isinstance(obj, str):
            raise ctx.fail(f"got {type(obj).__name__}", "object", "the object's category name (a string)")
        gt["object"] = obj
    # the scene facts the reference was built from (generated data); shown to the judge when present
    gt["facts"] = _str_list(ctx, rec, "facts", required=False)
    return gt


def validate_record(
    task: str | TaskDef, rec: Any, *, path: str | Path | None = None, index: int = 0, scene_truth: SceneTruthFn | None = None
) -> Record:
    """Check one record of ``task`` and return it typed; raise :class:`InputError` on the first problem.

    ``scene_truth``: house -> (rooms, objects) for scene text records that do not carry them.
    """
    t = TASKS[task] if isinstance(task, str) else task
    ctx = _Ctx(path, index, rec)
    if not isinstance(rec, dict):
        raise ctx.fail(f"is a {type(rec).__name__}", None, "a JSON object")
    derived = rec.get("question_id") is None
    qid = derived_question_id(index) if derived else _str(ctx, rec, "question_id", allow_int=True)
    house = _str(ctx, rec, "id", allow_int=True)
    assert house is not None  # required: _str raised otherwise
    # the id names scene_graph/<id>.json: it must not leave the folder (ASCII letters and digits never do)
    if not (house.isascii() and house.isalnum()) and path_id_problem(house) is not None:
        raise ctx.fail(f"{house[:80]!r} {path_id_problem(house)}", "id", "a house id without '/', '\\' or '..'")
    pcl = _str(ctx, rec, "pcl")
    query = _str(ctx, rec, "query")
    if t.kind == "choice":
        gt = _choices(ctx, rec, t)
    elif t.kind in ("detection", "room_detection"):
        gt = _labelled_boxes(ctx, rec, rooms=t.kind == "room_detection")
    elif t.kind in ("grounding", "grounding_plus"):
        # VisualGrounding_plus as released: {pcl, id, query, obj_num, bbox} (the scorer takes bbox[:3] as the centre)
        bkey = "bbox" if t.kind == "grounding_plus" and "object" not in rec else "object"
        gt = {"box": np.asarray(_numbers(ctx, rec.get(bkey), 6, bkey, "six numbers [cx, cy, cz, dx, dy, dz]"))}
        gt["name"] = _str(ctx, rec, "name", required=False)
        if t.kind == "grounding_plus":
            gt["caption"] = _str(ctx, rec, "caption", required=False)
            n = rec.get("obj_num")
            if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 0):
                raise ctx.fail(f"got {n!r:.40}", "obj_num", "a count (integer >= 0)")
            gt["obj_num"] = n
    elif t.kind == "navigation":
        gt = {"positions": _point_list(ctx, rec.get("positions"), "positions")}
        if rec.get("start") is not None:
            gt["start"] = np.asarray(_numbers(ctx, rec["start"], 2, "start", "two numbers [x, z]"))
        gt["target"] = _str(ctx, rec, "target", required=False)
    else:
        gt = _text(ctx, rec, t, house, scene_truth)  # type: ignore[arg-type]
    return Record(task=t.key, question_id=qid, house=house, pcl=pcl, query=query, gt=gt, raw=rec, row=index, derived_id=derived)  # type: ignore[arg-type]


def validate_records(task: str, recs: Any, *, path: str | Path | None = None, scene_truth: SceneTruthFn | None = None) -> list[Record]:
    """Validate a task file's list; question ids (given or derived) must be unique within it."""
    if not isinstance(recs, list):
        raise InputError(path, f"holds a {type(recs).__name__}", expected=f"a JSON list of {TASKS[task].stem} records")
    out = [validate_record(task, r, path=path, index=i, scene_truth=scene_truth) for i, r in enumerate(recs)]
    seen: dict[str, int] = {}
    for i, r in enumerate(out):
        if r.question_id in seen:
            raise InputError(
                path,
                f"question_id {r.question_id!r} repeats record {seen[r.question_id]}",
                where=f"record {i}",
                field="question_id",
                expected="ids unique within the task file (a record without question_id is row<i>)",
            )
        seen[r.question_id] = i
    return out
