"""RIO views: the reference scan and the rescan (aligned into the reference frame) side by side; the
object in the reference scan (its points and box), and in the rescan where the ground-truth pose
and the predicted pose put it: its points and its box moved by each pose, with the pose's axes
drawn from the box centre. Each scan is cropped to the object's neighbourhood (three times its size,
0.75 to 1.5 m, around its boxes; the viewer's "full scene" shows the whole rescan). A good prediction's box sits on the GT box with the same axes; a
symmetric object may look right while rotated, which the axes show.

The data are read back from the run's inputs (index, objects, predictions; checksums verified) with
the benchmark's own loader, in metres, with the unit decision and symmetry codes the run used.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.benchmarks.rio.loader import ThreeRScan
from scenebench.benchmarks.rio.predictions import read_pose_predictions
from scenebench.report import viewer as vw
from scenebench.report.runs import LoadedRun
from scenebench.report.views import ViewOptions, ViewSet, checked_input, run_inputs


def _units(decision: Any) -> str:
    """The ``units`` argument that reproduces the run's decision (a user's choice is kept, else auto)."""
    text = str(decision or "")
    if "set by the user" in text:
        return "mm" if text.startswith("millimetres") else "m"
    return "auto"


def apply(T: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """(N, 3) points moved by the 4x4 rigid transform ``T``."""
    return pts @ T[:3, :3].T + T[:3, 3]


CROP_MARGIN = (0.75, 1.5)  # metres of scan shown around the object's boxes: 3x the object's size, within these


def _crop(lo: np.ndarray, hi: np.ndarray, scan: np.ndarray, margin: float) -> list[float]:
    """``[x0, y0, z0, x1, y1, z1]``: the box ``lo``-``hi`` grown by ``margin`` in x and y, kept
    inside the scan's own extent, over the scan's full height."""
    if len(scan):
        s_lo, s_hi = scan.min(axis=0), scan.max(axis=0)
    else:
        s_lo, s_hi = lo, hi
    x0, y0 = np.maximum(lo[:2] - margin, np.minimum(s_lo[:2], lo[:2]))
    x1, y1 = np.minimum(hi[:2] + margin, np.maximum(s_hi[:2], hi[:2]))
    return [float(x0), float(y0), float(min(s_lo[2], lo[2])), float(x1), float(y1), float(max(s_hi[2], hi[2]))]


def build_views(run: LoadedRun, sample_ids: list[str], opts: ViewOptions) -> ViewSet:
    inputs = run_inputs(run)
    index = checked_input(inputs.get("index"), "3RScan index")
    objects = checked_input(inputs["objects"], "3RScan objects") if "objects" in inputs else None
    settings = run.results.settings
    codes = {int(k): int(v) for k, v in (settings.get("symmetry_codes") or {}).items()}
    # with a ground-truth tree the recorded index is the tree's; the scans are in the recorded data root
    root = Path(inputs["data_root"]["path"]) if isinstance(inputs.get("data_root"), dict) else index.parent
    gt = Path(inputs["gt_root"]["path"]) if isinstance(inputs.get("gt_root"), dict) else None
    data = ThreeRScan(root, units=_units(settings.get("units")), symmetry_codes=codes, index_path=index, objects_path=objects, gt=gt)
    rescans = data.split_rescans(str(settings.get("split", "validation")))
    preds = read_pose_predictions(
        checked_input(inputs.get("predictions"), "predictions"),
        data.reference_instances(),
        evaluated=[r.scan_id for r in rescans],
        allow_empty=True,
    )
    want = set(sample_ids)
    by_rescan: dict[str, list[Any]] = defaultdict(list)
    vs = ViewSet()
    scope = str(settings.get("scope", "all"))  # runs before 0.2.0's scope setting scored every kept instance
    for r in rescans:
        for g in data.ground_truth(r, scope):
            pose = preds.poses.get((g.rescan, g.instance))
            vs.details[g.sample_id] = {
                "question": f"re-localize {g.label} (instance {g.instance} of reference scan {g.scene}) in rescan {g.rescan}",
                "answer": {"pose (reference -> rescan)": g.pose.round(5).tolist(), "moved": g.moved, "symmetry order": g.symmetry_order},
                "prediction": pose.round(5).tolist() if pose is not None else None,
            }
            if g.sample_id in want and g.excluded is None:
                by_rescan[r.scan_id].append((r, g))
    # Rescans of one reference in a row, the reference held while they are drawn: each scan's PLY
    # is parsed once.
    held: tuple[str, Any] | None = None
    for scan_id, items in sorted(by_rescan.items(), key=lambda kv: (kv[1][0][0].scene_id, kv[0])):
        r = items[0][0]
        xyz, rgb, _ = data.points(scan_id)
        aligned = apply(r.transform, xyz)
        key = f"rio:{scan_id}"
        vs.scenes[key] = vw.scene_payload(aligned, rgb, up="z", key=key, max_points=opts.max_scene_points, seed=opts.seed)
        if held is None or held[0] != r.scene_id:
            held = (r.scene_id, data.points(r.scene_id))
        ref_xyz, ref_rgb, ref_ids = held[1]
        ref_key = f"rio:{r.scene_id}"
        if ref_key not in vs.scenes:
            vs.scenes[ref_key] = vw.scene_payload(ref_xyz, ref_rgb, up="z", key=ref_key, max_points=opts.max_scene_points, seed=opts.seed)
        for _, g in items:
            obj = ref_xyz[ref_ids == g.instance]
            pose = preds.poses.get((g.rescan, g.instance))
            layers: list[dict[str, Any]] = []
            # Each scan is shown around the object only (3x its size, 0.75-1.5 m, beyond the object's
            # boxes), the reference crop to the left of the rescan crop: a chair stays a chair,
            # not a speck in a whole apartment. "full scene" in the viewer shows the whole scans.
            rescan_crop = ref_crop = None
            offset = [0.0, 0.0, 0.0]
            if len(obj):
                k = f"{key}/{g.instance}"
                lo, hi = obj.min(axis=0), obj.max(axis=0)
                center, size = (lo + hi) / 2, np.maximum(hi - lo, 0.02)
                boxes = [vw.box_corners(center, size) @ g.pose[:3, :3].T + g.pose[:3, 3]]
                if pose is not None and np.all(np.isfinite(pose)):
                    boxes.append(vw.box_corners(center, size) @ pose[:3, :3].T + pose[:3, 3])
                pts = np.concatenate(boxes)
                margin = float(np.clip(3 * np.max(size), *CROP_MARGIN))
                rescan_crop = _crop(pts.min(axis=0), pts.max(axis=0), aligned, margin)
                ref_crop = _crop(lo, hi, ref_xyz, margin)
                gap = 0.5
                offset = [
                    float(rescan_crop[0] - ref_crop[3] - gap),
                    float((rescan_crop[1] + rescan_crop[4]) / 2 - (ref_crop[1] + ref_crop[4]) / 2),
                    0.0,
                ]
                ref_layer = vw.cloud_layer(
                    "object in the reference scan", obj, vw.EXTRA, key=k, max_points=opts.max_layer_points, seed=opts.seed
                )
                ref_box = vw.box_layer("its box in the reference scan", [*lo, *hi], vw.EXTRA, text=f"{g.label} (reference)")
                layers += [{**ref_layer, "offset": offset}, {**ref_box, "offset": offset}]
                layers.append(vw.cloud_layer("GT pose", apply(g.pose, obj), vw.GT, key=k, max_points=opts.max_layer_points, seed=opts.seed))
                layers += vw.pose_layers("GT pose box", g.pose, center, size, vw.GT, text=f"{g.label} GT")
                if pose is not None:
                    layers.append(
                        vw.cloud_layer("predicted pose", apply(pose, obj), vw.PRED, key=k, max_points=opts.max_layer_points, seed=opts.seed)
                    )
                    layers += vw.pose_layers("predicted pose box", pose, center, size, vw.PRED, dashed=True, text="prediction")
            note = (
                f"{g.label}: {len(obj)} points in the reference scan; "
                + ("moved" if g.moved else "static")
                + "; left: the reference scan, right: the rescan (aligned to the reference)"
            )
            if pose is None:
                note += "; no prediction"
            if not len(obj):
                note += "; the reference scan has no points with this objectId"
            view: dict[str, Any] = {
                "scene": key,
                "scene_label": "rescan",
                "layers": layers,
                "note": note,
                "scenes": [{"scene": ref_key, "label": "reference scan", "offset": offset}],
            }
            if rescan_crop is not None and ref_crop is not None:
                view["crop"] = rescan_crop
                view["scenes"][0]["crop"] = ref_crop
            vs.views[g.sample_id] = view
    return vs
