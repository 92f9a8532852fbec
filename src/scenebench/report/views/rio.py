"""RIO views: the rescan (aligned into the reference frame) with the object drawn three times: where
it was in the reference scan, where the ground-truth pose puts it, and where the predicted pose puts
it. A good prediction's cloud sits on the GT cloud; a symmetric object may look right while rotated.

The data are read back from the run's inputs (index, objects, predictions; checksums verified) with
the benchmark's own loader, in metres, with the unit decision and symmetry codes the run used.
"""

from __future__ import annotations

from collections import defaultdict
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


def build_views(run: LoadedRun, sample_ids: list[str], opts: ViewOptions) -> ViewSet:
    inputs = run_inputs(run)
    index = checked_input(inputs.get("index"), "3RScan index")
    objects = checked_input(inputs["objects"], "3RScan objects") if "objects" in inputs else None
    settings = run.results.settings
    codes = {int(k): int(v) for k, v in (settings.get("symmetry_codes") or {}).items()}
    data = ThreeRScan(index.parent, units=_units(settings.get("units")), symmetry_codes=codes, index_path=index, objects_path=objects)
    rescans = data.split_rescans(str(settings.get("split", "validation")))
    preds = read_pose_predictions(checked_input(inputs.get("predictions"), "predictions"), data.reference_instances(),
                                  evaluated=[r.scan_id for r in rescans], allow_empty=True)
    want = set(sample_ids)
    by_rescan: dict[str, list[Any]] = defaultdict(list)
    vs = ViewSet()
    for r in rescans:
        for g in data.ground_truth(r):
            pose = preds.poses.get((g.rescan, g.instance))
            vs.details[g.sample_id] = {
                "question": f"re-localize {g.label} (instance {g.instance} of reference scan {g.scene}) in rescan {g.rescan}",
                "answer": {"pose (reference -> rescan)": g.pose.round(5).tolist(), "moved": g.moved, "symmetry order": g.symmetry_order},
                "prediction": pose.round(5).tolist() if pose is not None else None,
            }
            if g.sample_id in want and g.excluded is None:
                by_rescan[r.scan_id].append((r, g))
    # Rescans of one reference in a row, so each scan's PLY is parsed once (the loader caches one scan).
    for scan_id, items in sorted(by_rescan.items(), key=lambda kv: (kv[1][0][0].scene_id, kv[0])):
        r = items[0][0]
        xyz, rgb, _ = data.points(scan_id)
        key = f"rio:{scan_id}"
        vs.scenes[key] = vw.scene_payload(apply(r.transform, xyz), rgb, up="z", key=key, max_points=opts.max_scene_points, seed=opts.seed)
        ref_xyz, _, ref_ids = data.points(r.scene_id)
        for _, g in items:
            obj = ref_xyz[ref_ids == g.instance]
            pose = preds.poses.get((g.rescan, g.instance))
            layers = []
            if len(obj):
                k = f"{key}/{g.instance}"
                layers.append(vw.cloud_layer("reference position", obj, vw.EXTRA, key=k, max_points=opts.max_layer_points, seed=opts.seed))
                layers.append(vw.cloud_layer("GT pose", apply(g.pose, obj), vw.GT, key=k, max_points=opts.max_layer_points, seed=opts.seed))
                if pose is not None:
                    layers.append(vw.cloud_layer("predicted pose", apply(pose, obj), vw.PRED, key=k, max_points=opts.max_layer_points, seed=opts.seed))
            note = f"{g.label}: {len(obj)} points in the reference scan; " + ("moved" if g.moved else "static")
            if pose is None:
                note += "; no prediction"
            if not len(obj):
                note += "; the reference scan has no points with this objectId"
            vs.views[g.sample_id] = {"scene": key, "layers": layers, "note": note}
            data.points(scan_id)  # keep the loader's one-scan cache on this rescan for the next item
    return vs
