"""``scenebench validate rio``: check a 3RScan folder (and optionally predictions); scores nothing."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from .loader import ThreeRScan
from .predictions import read_pose_predictions


def validate_rio(
    data_root: str | Path,
    *,
    split: str = "validation",
    predictions: str | Path | None = None,
    geometry: bool = False,
    units: str = "auto",
    scope: str = "changed",
    gt: str | Path | None = None,
) -> dict[str, Any]:
    """Load the index, every evaluated rescan's ground truth (and PLYs with ``geometry``); return a summary.

    Raises :class:`scenebench.errors.InputError` on the first problem, naming file, record and field.
    """
    data = ThreeRScan(data_root, units=units, split=split, gt=gt)
    rescans = data.split_rescans(split)
    counts: Counter[str] = Counter()
    for r in rescans:
        for g in data.ground_truth(r, scope):
            counts["instances"] += 1
            if g.excluded:
                counts["excluded"] += 1
                continue
            counts["moved" if g.moved else "static"] += 1
            counts[f"symmetry_order_{g.symmetry_order}"] += 1
            counts[f"centroid_from_{g.centroid_source}"] += 1
            if g.partners:
                counts["with_interchangeable_partner"] += 1
        counts["removed"] += len(r.removed)
        if geometry:
            for sid in (r.scene_id, r.scan_id):
                data.points(sid)
    out: dict[str, Any] = {
        "index": str(data.index_path),
        **({"ground_truth": str(data.gt_root)} if data.gt_root is not None else {}),
        "units": data.unit_decision,
        "scenes_by_split": dict(Counter(s.split for s in data.scenes)),
        "split": split,
        "scope": scope,
        "rescans": len(rescans),
        "ground_truth": dict(counts),
    }
    if predictions is not None:
        preds = read_pose_predictions(predictions, data.reference_instances(), evaluated=[r.scan_id for r in rescans], allow_empty=True)
        out["predictions"] = {"records_in_split": len(preds.poses), "ignored_other_split": preds.ignored_other_split}
    return out


def validate_command(
    data: Path, predictions: Path | None = None, *, split: str, scope: str, units: str, geometry: bool = False, gt: Path | None = None
) -> None:
    """``scenebench validate rio``: the summary of :func:`validate_rio` as JSON."""
    import json

    summary = validate_rio(data, split=split, predictions=predictions, geometry=geometry, units=units, scope=scope, gt=gt)
    print(json.dumps(summary, indent=2))
