"""``scenebench audit`` on RIO: identity, random and oracle poses, scored like any predictions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

POSE_PROBES = ("identity", "random", "oracle")


def _num(v: Any) -> float | None:
    return None if v is None else float(v)


def rows(root: Path, out: Path, *, seed: int, split: str, progress: bool) -> list[dict[str, Any]]:
    """The audit rows of a 3RScan folder: identity, random and oracle poses written and scored (recall at 0.1 m, 10 deg)."""
    import numpy as np

    from scenebench.benchmarks.rio.api import score_rio
    from scenebench.benchmarks.rio.loader import ThreeRScan
    from scenebench.benchmarks.rio.predictions import write_pose_predictions
    from scenebench.runtime.runner import seeded_rng

    scan = ThreeRScan(root)
    rescans = scan.split_rescans(split)
    rows_by_probe: dict[str, list[dict[str, Any]]] = {p: [] for p in POSE_PROBES}
    for r in rescans:
        for g in scan.ground_truth(r):
            if g.excluded is not None:
                continue
            base = {"rescan": r.scan_id, "instance": int(g.instance)}
            rows_by_probe["identity"].append({**base, "pose": np.eye(4)})
            rows_by_probe["oracle"].append({**base, "pose": np.asarray(g.pose, float)})
            rng = seeded_rng(seed, r.scan_id, str(g.instance))
            th = float(rng.uniform(-np.pi, np.pi))
            c, s_ = np.cos(th), np.sin(th)
            m = np.eye(4)
            m[:3, :3] = [[c, -s_, 0], [s_, c, 0], [0, 0, 1]]
            centroid = np.asarray(g.centroid, float)
            shift = np.r_[rng.uniform(-1.0, 1.0, 2), 0.0]
            m[:3, 3] = centroid - m[:3, :3] @ centroid + shift  # turn about the object's vertical axis, then shift
            rows_by_probe["random"].append({**base, "pose": m})
    results = {}
    for probe, rows in rows_by_probe.items():
        folder = out / "rio" / probe
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "poses.jsonl"
        write_pose_predictions(path, rows)
        results[probe], _ = score_rio(root, path, split=split, out=folder / "score", overwrite=True, progress=progress, seed=seed)
    out_rows = []
    for name, get in (
        ("changed (rigid[], the protocol's samples)", lambda r: r.metrics.get("overall", {})),
        ("moved (not the identity)", lambda r: r.metrics.get("by_motion", {}).get("moved", {})),
    ):
        row: dict[str, Any] = {"benchmark": "rio", "task": "relocalization", "group": name, "metric": "recall_10cm_10deg", "n": None}
        for probe in POSE_PROBES:
            row[probe] = _num(_recall(get(results[probe])))
        row["blind"] = row["identity"]  # the blind answer to "where is it now?" is "where it was"
        row["labels"] = None
        row["chance"] = row["random"]
        out_rows.append(row)
    return out_rows


def _recall(block: dict[str, Any]) -> float | None:
    for k in ("recall_0.1m_10deg", "recall_10cm_10deg", "Recall(0.1m,10deg)", "recall@0.1m10deg", "R@0.1m,10deg"):
        if k in block:
            return block[k]
    cands = [k for k in block if "recall" in k.lower() and ("0.1" in k or "10" in k) and "20" not in k and "0.2" not in k]
    return block[cands[0]] if cands else None
