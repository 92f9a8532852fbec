"""Points of each changed object in its rescan, for a generated (or real) 3RScan folder.

The figures of docs/synth.md's *RIO density*: how many rescan points a changed object (an entry of
``rigid[]``, the RIO samples) has at the data's own grid and after the FPFH baseline's voxel grid,
and how many vertices it has in the reference scan. Re-localization matches these points, so too
few of them make a hand-crafted matcher fall back to "nothing moved".

    python scripts/rio_density.py OUT/3rscan [--split validation] [--voxel 0.03] [--large 0.5]

Objects are also split by size (the longest side of their box in the reference, ``--large``):
at a 3 cm grid a cup cannot hold 500 points whatever the sensor, a chair or a table can.

Rescan labels of the evaluated split live in the ground-truth tree (``OUT/gt/3rscan``), found the
way ``scenebench score`` finds it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from plyfile import PlyData

from scenebench.benchmarks.rio.loader import ThreeRScan
from scenebench.benchmarks.rio.scans import PLY_NAME


def labelled_ids(scan: ThreeRScan, scan_id: str) -> tuple[np.ndarray, np.ndarray]:
    """``(xyz, objectId)`` of a scan's labelled PLY, from the data folder or else the ground-truth tree."""
    path = scan.root / scan_id / PLY_NAME
    if not path.exists() and scan.gt_root is not None:
        path = Path(scan.gt_root) / scan_id / PLY_NAME
    v = PlyData.read(str(path))["vertex"].data
    return np.stack([v["x"], v["y"], v["z"]], axis=1).astype(float), np.asarray(v["objectId"]).astype(np.int64)


def grid_count(points: np.ndarray, voxel: float) -> int:
    """Occupied cells of a ``voxel`` grid: the points a voxel downsampling keeps."""
    return len(np.unique(np.floor(points / voxel).astype(np.int64), axis=0)) if len(points) else 0


def summary(name: str, values: list[int]) -> str:
    a = np.asarray(values)
    return (
        f"{name}: median {np.median(a):.0f} (p10 {np.percentile(a, 10):.0f}, p25 {np.percentile(a, 25):.0f}, "
        f"p75 {np.percentile(a, 75):.0f}); >= 500: {np.mean(a >= 500):.0%}; >= 30: {np.mean(a >= 30):.0%}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", type=Path, help="a 3RScan folder (3RScan.json and scan folders)")
    ap.add_argument("--split", default="validation")
    ap.add_argument("--voxel", type=float, default=0.03, help="the FPFH baseline's grid (m)")
    ap.add_argument("--large", type=float, default=0.5, help="an object is large when its reference box's longest side is this long (m)")
    a = ap.parse_args()
    scan = ThreeRScan(a.root)
    raw, grid, ref, size = [], [], [], []
    rescans = scan.split_rescans(a.split)
    ref_cache: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for r in rescans:
        xyz, ids = labelled_ids(scan, r.scan_id)
        if r.scene_id not in ref_cache:
            ref_cache = {r.scene_id: labelled_ids(scan, r.scene_id)}
        ref_xyz, ref_ids = ref_cache[r.scene_id]
        for g in scan.ground_truth(r):
            pts = xyz[ids == int(g.instance)]
            own = ref_xyz[ref_ids == int(g.instance)]
            raw.append(len(pts))
            grid.append(grid_count(pts, a.voxel))
            ref.append(len(own))
            size.append(float(np.max(np.ptp(own, axis=0))) if len(own) else 0.0)
    print(f"{len(rescans)} rescans, {len(raw)} changed objects ({a.split})")
    print(summary("rescan points, data grid", raw))
    print(summary(f"rescan points, {a.voxel * 100:g} cm grid", grid))
    print(summary("reference vertices", ref))
    large = np.asarray(size) >= a.large
    for name, keep in ((f"large (>= {a.large:g} m, {large.sum()} objects)", large), (f"small ({(~large).sum()} objects)", ~large)):
        if keep.any():
            print(summary(f"{name}, rescan points, data grid", list(np.asarray(raw)[keep])))
            print(summary(f"{name}, rescan points, {a.voxel * 100:g} cm grid", list(np.asarray(grid)[keep])))


if __name__ == "__main__":
    main()
