"""Write 3DBench task files in the official shapes (one JSON list per task), validated first.

The synthetic-data pipeline and the tests produce benchmark folders with :func:`write_task`, so
every file scenebench writes is one that :mod:`scenebench.benchmarks.bench3d.loader` accepts.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.benchmarks.bench3d.records import validate_records
from scenebench.benchmarks.bench3d.tasks import TASK_FILES, TASKS, task_key
from scenebench.io.files import atomic_write_json, to_plain

__all__ = ["TASK_FILES", "write_task", "write_point_cloud"]




def write_task(bench_dir: str | Path, task: str, records: Sequence[dict[str, Any]], *, prefix: str = "") -> Path:
    """Validate ``records`` of ``task`` (key or official stem) and write ``BENCH_DIR/<prefix><Stem>.json``.

    Raises :class:`scenebench.errors.InputError` for a record the scorer would refuse.
    """
    key = task_key(task)
    if key is None:
        raise ValueError(f"unknown 3DBench task '{task}'; known: {', '.join(TASKS)}")
    path = Path(bench_dir) / f"{prefix}{TASK_FILES[key]}"
    plain = [to_plain(r) for r in records]
    validate_records(key, plain, path=path)
    atomic_write_json(path, plain, indent=None)
    return path


def write_point_cloud(bench_dir: str | Path, rel_path: str, points: np.ndarray) -> Path:
    """Save an (N, 6) float32 xyz+rgb cloud at ``BENCH_DIR/rel_path`` (the record's ``pcl``)."""
    arr = np.asarray(points, dtype=np.float32)
    if arr.ndim != 2 or arr.shape[1] != 6:
        raise ValueError(f"point cloud must be (N, 6) xyz+rgb, got {arr.shape}")
    path = Path(bench_dir) / rel_path
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, arr, allow_pickle=False)
    return path
