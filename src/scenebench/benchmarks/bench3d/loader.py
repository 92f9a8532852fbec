"""Read a 3DBench folder: one JSON list per task (``Classification.json`` or ``Test_Classification.json``)."""

from __future__ import annotations

import tokenize
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from scenebench.benchmarks.bench3d.records import Record, validate_records
from scenebench.benchmarks.bench3d.tasks import TASKS
from scenebench.errors import InputError
from scenebench.io.files import file_fingerprint, read_json


@dataclass
class Bench:
    root: Path
    records: dict[str, list[Record]]  # task -> records, in file order
    files: dict[str, Path] = field(default_factory=dict)
    n_in_file: dict[str, int] = field(default_factory=dict)  # records per task file, before any subsetting

    def all_records(self) -> list[Record]:
        return [r for t in self.records for r in self.records[t]]

    def fingerprints(self) -> dict[str, dict]:
        return {t: file_fingerprint(p) for t, p in self.files.items()}


def task_file(root: Path, task: str) -> Path | None:
    """The task's file in ``root``; both the plain and the ``Test_`` name present is refused."""
    stem = TASKS[task].stem
    found = [p for p in (root / f"{stem}.json", root / f"Test_{stem}.json") if p.is_file()]
    if len(found) == 2:
        raise InputError(root, f"holds both {found[0].name} and {found[1].name}", expected="one file per task")
    return found[0] if found else None


def load_bench(root: str | Path, tasks: list[str] | None = None, *, require_all: bool = False) -> Bench:
    """Load and validate the task files present (or the ``tasks`` asked for, which must exist)."""
    root = Path(root)
    if not root.is_dir():
        raise InputError(root, "benchmark folder does not exist" if not root.exists() else "is not a folder")
    wanted = tasks or list(TASKS)
    records: dict[str, list[Record]] = {}
    files: dict[str, Path] = {}
    owner: dict[str, str] = {}
    for t in wanted:
        p = task_file(root, t)
        if p is None:
            if tasks or require_all:
                raise InputError(root, f"has no file for task '{t}'", expected=f"{TASKS[t].filename} (or Test_{TASKS[t].filename})")
            continue
        recs = validate_records(t, read_json(p, what=f"{t} task file"), path=p)
        for i, r in enumerate(recs):
            if r.question_id in owner:
                raise InputError(p, f"question_id {r.question_id!r} is also used by task '{owner[r.question_id]}'", where=f"record {i}", field="question_id", expected="ids unique across the benchmark")
            owner[r.question_id] = t
        records[t], files[t] = recs, p
    if not records:
        raise InputError(root, "holds no 3DBench task file", expected=", ".join(TASKS[t].filename for t in wanted))
    return Bench(root, records, files, {t: len(rs) for t, rs in records.items()})


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
