"""Nr3D / Sr3D tables in the released layout (tests, examples, synthetic data). Writes are atomic."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scenebench.io.files import atomic_write_text
from scenebench.io.scannet import corners_of_minmax

COLUMNS = ("assignmentid", "stimulus_id", "utterance", "correct_guess", "scan_id", "instance_type", "target_id", "tokens",
           "mentions_target_class", "dataset")  # fmt: skip


corners = corners_of_minmax  # an ``aabb`` answer of official:m3drefclip / official:video3dllm


def stimulus_id(scan_id: str, instance_type: str, target_id: int, distractor_ids: Sequence[int]) -> str:
    """ReferIt3D's ``<scan>-<type, spaces as _>-<n_objects>-<target>[-<distractor>...]``."""
    ids = "-".join(str(i) for i in (target_id, *distractor_ids))
    return f"{scan_id}-{instance_type.replace(' ', '_')}-{len(distractor_ids) + 1}-{ids}"


def row(
    scan_id: str, target_id: int, distractor_ids: Sequence[int], utterance: str, *, instance_type: str = "chair",
    tokens: Sequence[str] | None = None, mentions: bool = True, assignment: int = 0, dataset: str = "nr3d",
) -> dict[str, Any]:  # fmt: skip
    toks = list(tokens) if tokens is not None else utterance.lower().replace(",", " ").replace(".", " ").split()
    return {
        "assignmentid": assignment, "stimulus_id": stimulus_id(scan_id, instance_type, target_id, distractor_ids), "utterance": utterance,
        "correct_guess": True, "scan_id": scan_id, "instance_type": instance_type, "target_id": target_id, "tokens": repr(toks),
        "mentions_target_class": mentions, "dataset": dataset,
    }  # fmt: skip


def write_csv(path: str | Path, rows: Sequence[dict[str, Any]]) -> Path:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(COLUMNS))
    w.writeheader()
    w.writerows(rows)
    atomic_write_text(path, buf.getvalue())
    return Path(path)
