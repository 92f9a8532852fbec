"""Scan2Cap views: the scene's points (``_aligned_vert.npy`` beside the box tables, else the box
centres), the described object's box and every submitted box of its scene, with the caption scored
for it at 0.5 IoU; inputs are read back from the run (checksums verified)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from scenebench.io.arrays import load_npy
from scenebench.io.scannet import by_scene, load_minmax_boxes
from scenebench.report import viewer as vw
from scenebench.report.runs import LoadedRun
from scenebench.report.views import ViewOptions, ViewSet, checked_input, run_inputs

from .data import load_objects
from .predictions import read_predictions


def build_views(run: LoadedRun, sample_ids: list[str], opts: ViewOptions) -> ViewSet:
    inputs, want, vs = run_inputs(run), set(sample_ids), ViewSet()
    objects = load_objects(checked_input(inputs.get("annotations"), "annotations"))
    preds = read_predictions(checked_input(inputs.get("predictions"), "predictions"), objects)
    boxes_dir = Path(inputs.get("boxes_dir", ""))
    for scene_id, todo in by_scene([o for o in objects if o.sample_id in want]).items():
        entry = (inputs.get("boxes") or {}).get(scene_id)
        ids, boxes = load_minmax_boxes(checked_input(entry, f"box table of {scene_id}").parent, scene_id)
        vert_path = boxes_dir / f"{scene_id}_aligned_vert.npy"  # drawn only, never scored
        pts = load_npy(vert_path) if vert_path.is_file() else np.pad((boxes[:, :3] + boxes[:, 3:]) / 2, ((0, 0), (0, 3)))
        key = f"scan2cap:{scene_id}:{str((entry or {}).get('sha256', ''))[:12]}"
        vs.scenes[key] = vw.scene_payload(pts[:, :3], pts[:, 3:6], up="z", key=key, max_points=opts.max_scene_points, seed=opts.seed)
        pred, captions = preds.get(scene_id, (np.zeros((0, 6)), []))
        for o in todo:
            layers = [vw.box_layer(f"GT: {o.object_name} (object {o.object_id})", b, vw.GT) for b in boxes[ids == o.object_id]]
            layers += [vw.box_layer(f"proposal {j}: {c}", b, vw.PRED, dashed=True) for j, (b, c) in enumerate(zip(pred, captions))]
            vs.views[o.sample_id] = {"scene": key, "layers": layers, "note": o.descriptions[0]}
            vs.details.setdefault(o.sample_id, {})["description"] = o.descriptions[0]
    return vs
