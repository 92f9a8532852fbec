"""Read a 3DBench folder: one JSON list per task (``Classification.json`` or ``Test_Classification.json``).

Records are paired with answers by ``(task, question_id)``: the released writers number every task
file from 1, so the same ``question_id`` appears in several tasks (see
:mod:`scenebench.benchmarks.bench3d.records` for derived ids of records without one).

**Scene text tasks** (``SCaption``, ``SVQA``, ``Relation``) as released carry no ground truth: the
released judge takes the rooms from the house JSON (``<houses>/(<id>).json``, ``rooms[].roomType``)
and the objects from ``GT/Classification.json`` (a list indexed by the house number, each entry the
house's object names; a ``{name: count}`` entry gives its names). :class:`SceneTruth` reads them the
same way: ``houses`` defaults to ``<data>/houses`` and the classification GT to
``<data>/GT/Classification.json``. Records that carry ``rooms``/``objects`` themselves keep them.
"""

from __future__ import annotations

import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.benchmarks.bench3d.records import Record, validate_records
from scenebench.benchmarks.bench3d.tasks import TASKS
from scenebench.errors import InputError
from scenebench.io.files import file_fingerprint, read_json
from scenebench.io.generated import require_finished


@dataclass
class Bench:
    root: Path
    records: dict[str, list[Record]]  # task -> records, in file order
    files: dict[str, Path] = field(default_factory=dict)
    n_in_file: dict[str, int] = field(default_factory=dict)  # records per task file, before any subsetting
    metadata: dict[str, Path] = field(default_factory=dict)  # house JSONs / classification GT the records' truth came from

    def all_records(self) -> list[Record]:
        return [r for t in self.records for r in self.records[t]]

    def fingerprints(self) -> dict[str, dict]:
        return {t: file_fingerprint(p) for t, p in self.files.items()}

    def metadata_fingerprints(self) -> dict[str, dict]:
        """House JSONs and classification GT the scene text truth came from, as ``meta:<what>`` input keys."""
        return {f"meta:{k}": file_fingerprint(p) for k, p in sorted(self.metadata.items())}


HOUSES_DIR = "houses"  # <data>/houses/(<id>).json: ProcTHOR house JSONs (rooms[].roomType)
OBJECTS_GT = ("GT", "Classification.json")  # <data>/GT/Classification.json: object names per house


_HOUSE_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]{0,99}$")  # ids that can name a file in the folder


def house_json_path(houses: Path, house: str) -> Path | None:
    """``(<id>).json`` as the released judge names it, else ``<id>.json``; None for ids that cannot
    be a file name there (separators, too long)."""
    if not _HOUSE_ID.match(house):
        return None
    for name in (f"({house}).json", f"{house}.json"):
        try:
            if (houses / name).is_file():
                return houses / name
        except OSError:
            return None
    return None


class SceneTruth:
    """Rooms and objects of a house from the house metadata, read lazily and cached (see the module docstring)."""

    def __init__(self, houses: Path | None, objects_gt: Path | None) -> None:
        self.houses = houses
        self.objects_gt = objects_gt
        self._objects: Any = None
        self._cache: dict[str, tuple[list[str] | None, list[str] | None]] = {}
        self.used: dict[str, Path] = {}  # files read (fingerprinted into runs)

    def rooms(self, house: str) -> list[str] | None:
        if self.houses is None:
            return None
        p = house_json_path(self.houses, house)
        if p is None:
            return None
        doc = read_json(p, what="house JSON")
        rooms = doc.get("rooms") if isinstance(doc, dict) else None
        if not isinstance(rooms, list):
            raise InputError(p, "has no rooms list", field="rooms", expected="a list of {roomType, ...} (ProcTHOR house JSON)")
        out = []
        for j, r in enumerate(rooms):
            t = r.get("roomType") if isinstance(r, dict) else None
            if not isinstance(t, str) or not t:
                raise InputError(p, f"got {str(r)[:60]}", field=f"rooms[{j}].roomType", expected="a room type string")
            out.append(t)
        self.used[f"house:{house}"] = p
        return out

    def objects(self, house: str) -> list[str] | None:
        p = self.objects_gt
        if p is None or not p.is_file():
            return None
        if self._objects is None:
            self._objects = read_json(p, what="3DBench classification GT")
            if not isinstance(self._objects, (list, dict)):
                raise InputError(
                    p, f"holds a {type(self._objects).__name__}", expected="a list indexed by house number (or an object keyed by house id)"
                )
        doc = self._objects
        entry: Any = None
        if isinstance(doc, dict):
            entry = doc.get(house)
        elif house.isdecimal() and int(house) < len(doc):  # the released judge: obj[int(id)]
            entry = doc[int(house)]
        if entry is None:
            return None
        if isinstance(entry, dict):
            entry = list(entry)
        if not isinstance(entry, list) or not all(isinstance(x, str) for x in entry):
            raise InputError(
                p,
                f"entry of house {house} is {str(entry)[:60]}",
                field=f"[{house}]",
                expected="a list of object names or a {name: count} object",
            )
        self.used["objects_gt"] = p
        return list(entry)

    def __call__(self, house: str) -> tuple[list[str] | None, list[str] | None] | None:
        if house not in self._cache:
            self._cache[house] = (self.rooms(house), self.objects(house))
        rooms, objects = self._cache[house]
        return None if rooms is None and objects is None else (rooms, objects)


def scene_truth_for(root: Path, houses: str | Path | None = None, objects_gt: str | Path | None = None) -> SceneTruth:
    """The defaults of the module docstring; a folder or file named explicitly must exist."""
    if houses is not None and not Path(houses).is_dir():
        raise InputError(houses, "house JSON folder does not exist", field="--houses", expected="a folder of (<id>).json house files")
    if objects_gt is not None and not Path(objects_gt).is_file():
        raise InputError(objects_gt, "classification GT file does not exist", field="--objects-gt", expected="GT/Classification.json")
    h = Path(houses) if houses is not None else (root / HOUSES_DIR if (root / HOUSES_DIR).is_dir() else None)
    o = Path(objects_gt) if objects_gt is not None else root.joinpath(*OBJECTS_GT)
    return SceneTruth(h, o)


def task_file(root: Path, task: str) -> Path | None:
    """The task's file in ``root``; both the plain and the ``Test_`` name present is refused."""
    stem = TASKS[task].stem
    found = [p for p in (root / f"{stem}.json", root / f"Test_{stem}.json") if p.is_file()]
    if len(found) == 2:
        raise InputError(root, f"holds both {found[0].name} and {found[1].name}", expected="one file per task")
    return found[0] if found else None


def load_bench(
    root: str | Path,
    tasks: list[str] | None = None,
    *,
    require_all: bool = False,
    houses: str | Path | None = None,
    objects_gt: str | Path | None = None,
) -> Bench:
    """Load and validate the task files present (or the ``tasks`` asked for, which must exist).

    ``houses`` / ``objects_gt``: where scene text tasks' rooms and objects come from (module docstring).
    """
    root = Path(root)
    if not root.is_dir():
        raise InputError(root, "benchmark folder does not exist" if not root.exists() else "is not a folder")
    require_finished(root)
    wanted = tasks or list(TASKS)
    records: dict[str, list[Record]] = {}
    files: dict[str, Path] = {}
    truth = scene_truth_for(root, houses, objects_gt)
    for t in wanted:
        p = task_file(root, t)
        if p is None:
            if tasks or require_all:
                raise InputError(root, f"has no file for task '{t}'", expected=f"{TASKS[t].filename} (or Test_{TASKS[t].filename})")
            continue
        recs = validate_records(t, read_json(p, what=f"{t} task file"), path=p, scene_truth=truth)
        records[t], files[t] = recs, p
    if not records:
        raise InputError(root, "holds no 3DBench task file", expected=", ".join(TASKS[t].filename for t in wanted))
    bench = Bench(root, records, files, {t: len(rs) for t, rs in records.items()})
    bench.metadata = dict(truth.used)
    return bench


def check_point_clouds(bench: Bench) -> list[str]:
    """Problems with the ``pcl`` files the records name (missing, not (N, 6) float); reads headers only."""
    problems: list[str] = []
    seen: dict[str, str | None] = {}
    for t, recs in bench.records.items():
        for i, r in enumerate(recs):
            if r.pcl not in seen:
                seen[r.pcl] = _check_cloud(bench.root, r.pcl)
            if seen[r.pcl]:
                problems.append(f"{bench.files[t]}: record {i} (question_id {r.question_id!r}): field 'pcl': {seen[r.pcl]}")
    return problems


def _check_cloud(root: Path, rel: str) -> str | None:
    p = (root / rel).resolve()
    if root.resolve() not in p.parents:
        return f"{rel} points outside the benchmark folder"
    try:
        exists = p.is_file()
    except OSError as exc:  # e.g. a name longer than the filesystem allows
        return f"{rel[:80]} is not a usable path ({exc.strerror})"
    if not exists:
        return f"{rel} does not exist"
    try:
        arr = np.load(p, mmap_mode="r", allow_pickle=False)
    except (ValueError, OSError, EOFError, SyntaxError, tokenize.TokenError) as exc:  # numpy parses the header with ast
        return f"{rel} is not a readable .npy array ({exc})"
    if arr.ndim != 2 or arr.shape[1] != 6 or arr.dtype.kind != "f":
        return f"{rel} has shape {arr.shape} dtype {arr.dtype} (expected (N, 6) float xyz+rgb)"
    return None
