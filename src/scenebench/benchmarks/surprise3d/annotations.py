"""Read the official SURPRISE3D annotation JSON and give every record a stable ``sample_id``.

The file is a JSON list of records ``{scene_id, object_id, description, object_name,
question_type, ...}``; other keys are kept but not required. As in the released loader, which
casts each id with ``int(x)``, ``object_id`` may be an int, a list of ints, or int-like strings
(``"12"``, ``["3", "4"]``); ``object_name`` may be a string, a list or nested lists of strings
(flattened). Each record is checked and an error
names the file, the record index and the field.

**sample_id.** The annotations have no id field, so one is derived from the record's content::

    sample_id = f"{scene_id}:{sha256(json([scene_id, sorted(set(object_ids)), description, question_type]))[:12]}"

(compact JSON, UTF-8, no ASCII escaping). It does not depend on the record's position, so
predictions still match after the annotation file is reordered or filtered. Records whose four
fields are identical would get the same id; the second and later copies get ``#2``, ``#3``, ... in
file order. ``index`` is the record's 0-based row in the file; predictions may use either key.
``scenebench validate surprise3d --list-ids`` prints both for every record.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.errors import InputError
from scenebench.io.files import read_json
from scenebench.io.generated import require_finished

# Scene ids become file names (SCENES_DIR/<scene_id>.pth): no separators, no leading dot, and short
# enough for any filesystem's 255-byte name limit.
SCENE_ID_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]{0,127}$")


@dataclass(frozen=True)
class Sample:
    """One annotation record. ``object_ids`` are ScanNet++ instance ids (the GT is their union)."""

    sample_id: str
    index: int
    scene_id: str
    object_ids: tuple[int, ...]
    description: str
    object_name: tuple[str, ...]
    question_type: str

    @property
    def targets(self) -> np.ndarray:
        return np.asarray(self.object_ids, dtype=np.int64)


@dataclass
class Annotations:
    path: Path
    samples: list[Sample]
    by_id: dict[str, Sample] = field(default_factory=dict)
    by_index: dict[int, Sample] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Keyed by the file row, not by list position: a subset of the samples keeps its rows.
        self.by_id = {s.sample_id: s for s in self.samples}
        self.by_index = {s.index: s for s in self.samples}

    def __len__(self) -> int:
        return len(self.samples)

    def question_types(self) -> dict[str, int]:
        """Question types found in the file with their sample counts (enumerated, not hard-coded)."""
        return dict(sorted(Counter(s.question_type for s in self.samples).items()))

    def scene_ids(self) -> list[str]:
        """Scenes in order of first appearance."""
        return list(dict.fromkeys(s.scene_id for s in self.samples))

    def by_scene(self) -> dict[str, list[Sample]]:
        out: dict[str, list[Sample]] = {}
        for s in self.samples:
            out.setdefault(s.scene_id, []).append(s)
        return out


# What json.dumps(..., ensure_ascii=False, separators=(",", ":")) builds on every call (the same text).
_KEY_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def derive_sample_id(scene_id: str, object_ids: tuple[int, ...], description: str, question_type: str) -> str:
    """The content-derived id documented in the module docstring (without the ``#n`` suffix)."""
    key = _KEY_ENCODER.encode([scene_id, sorted(set(object_ids)), description, question_type])
    return f"{scene_id}:{hashlib.sha256(key.encode('utf-8')).hexdigest()[:12]}"


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


_INT_TEXT = re.compile(r"^\s*[+-]?[0-9]{1,19}\s*$")


def _as_int(x: Any) -> int | None:
    """An instance id as the released loader reads it with ``int(x)``: an int, a whole float or an
    int-like string ("12"); None for anything else (``True``, "1.5", 1.5, "abc")."""
    if _is_int(x):
        return int(x)
    if isinstance(x, float) and x.is_integer() and abs(x) < 2.0**63:
        return int(x)
    if isinstance(x, str) and _INT_TEXT.match(x):
        return int(x)
    return None


def _flat_names(value: Any, depth: int = 0) -> tuple[str, ...] | None:
    """``object_name`` as a flat tuple: a string, a list of strings, or nested lists (some forks)."""
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or depth > 4:
        return None
    out: list[str] = []
    for v in value:
        sub = _flat_names(v, depth + 1)
        if sub is None:
            return None
        out.extend(sub)
    return tuple(out)


def parse_record(path: Path, index: int, rec: Any) -> tuple[str, tuple[int, ...], str, tuple[str, ...], str]:
    where = f"record {index}"
    if not isinstance(rec, dict):
        raise InputError(path, f"record is a {type(rec).__name__}", where=where, expected="a JSON object")
    for key in ("scene_id", "object_id", "description", "object_name", "question_type"):
        if key not in rec:
            raise InputError(path, "missing", where=where, field=key)
    scene_id = rec["scene_id"]
    if not isinstance(scene_id, str) or not SCENE_ID_RE.fullmatch(scene_id):  # fullmatch: "$" accepts a trailing newline
        raise InputError(
            path,
            f"{scene_id!r} is not a usable scene id",
            where=where,
            field="scene_id",
            expected="a string of letters, digits, '_', '-', '.' (e.g. '0a5c013435')",
        )
    oid = rec["object_id"]
    items = oid if isinstance(oid, list) else [oid]
    parsed = [_as_int(o) for o in items]
    if not items or any(o is None for o in parsed):
        raise InputError(
            path,
            f"{str(oid)[:80]}",
            where=where,
            field="object_id",
            expected='an integer or a non-empty list of integers (int-like strings such as "12" accepted)',
        )
    ids: tuple[int, ...] = tuple(parsed)  # type: ignore[arg-type]
    if any(o < 0 for o in ids):
        raise InputError(
            path,
            f"negative instance id in {oid!r}",
            where=where,
            field="object_id",
            expected="instance ids >= 0 (-1 marks unannotated points)",
        )
    if any(o >= 2**63 for o in ids):  # Sample.targets is int64, like the scenes' instance arrays
        raise InputError(
            path, f"instance id too large in {str(oid)[:80]}", where=where, field="object_id", expected="instance ids below 2**63"
        )
    desc = rec["description"]
    if not isinstance(desc, str) or not desc.strip():
        raise InputError(path, f"{desc!r}", where=where, field="description", expected="a non-empty string (the question)")
    names = _flat_names(rec["object_name"])
    if names is None:
        raise InputError(
            path,
            f"{str(rec['object_name'])[:80]}",
            where=where,
            field="object_name",
            expected="a string or a (possibly nested) list of strings",
        )
    qt = rec["question_type"]
    if not isinstance(qt, str) or not qt:
        raise InputError(path, f"{qt!r}", where=where, field="question_type", expected="a non-empty string")
    return scene_id, ids, desc, names, qt


def load_annotations(path: str | Path) -> Annotations:
    """Read and validate the annotation list; every record becomes a :class:`Sample`."""
    p = Path(path)
    require_finished(p)
    data = read_json(p, what="annotation file")
    if not isinstance(data, list):
        raise InputError(p, f"top level is a {type(data).__name__}", expected="a JSON list of annotation records")
    if not data:
        raise InputError(p, "holds no records", expected="a non-empty JSON list")
    samples: list[Sample] = []
    seen: Counter[str] = Counter()
    for i, rec in enumerate(data):
        scene_id, ids, desc, names, qt = parse_record(p, i, rec)
        base = derive_sample_id(scene_id, ids, desc, qt)
        seen[base] += 1
        sid = base if seen[base] == 1 else f"{base}#{seen[base]}"
        samples.append(Sample(sid, i, scene_id, ids, desc, names, qt))
    return Annotations(p, samples)
