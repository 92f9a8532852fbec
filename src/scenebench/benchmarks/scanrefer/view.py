"""ScanRefer views: the scene's points (``<scene_id>_aligned_vert.npy`` beside the box tables, when
there, else the box centres) with the GT box and the predicted box; annotations, labels, predictions and
box tables are read back from the run's own inputs (checksums verified)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from scenebench.io.arrays import load_npy
from scenebench.io.scannet import by_scene
from scenebench.report import viewer as vw
from scenebench.report.runs import LoadedRun
from scenebench.report.views import ViewOptions, ViewSet, checked_input, run_inputs

from .data import load_annotations, load_boxes, read_raw2label
from .predictions import read_predictions
from .scorer import gt_boxes


def build_views(run: LoadedRun, sample_ids: list[str], opts: ViewOptions) -> ViewSet:
    inputs, want, vs = run_inputs(run), set(sample_ids), ViewSet()
    samples = load_annotations(
        checked_input(inputs.get("annotations"), "annotations"), read_raw2label(checked_input(inputs.get("labels"), "labels"))
    )
    preds = read_predictions(checked_input(inputs.get("predictions"), "predictions"), samples)
    boxes_dir = Path(inputs.get("boxes_dir", ""))
    for scene_id, todo in by_scene([s for s in samples if s.sample_id in want]).items():
        entry = (inputs.get("boxes") or {}).get(scene_id)
        table = load_boxes(checked_input(entry, f"box table of {scene_id}").parent, scene_id)
        vert_path = boxes_dir / f"{scene_id}_aligned_vert.npy"  # drawn only, never scored: not in the run's checksums
        pts = load_npy(vert_path) if vert_path.is_file() else np.pad(table[:, :3], ((0, 0), (0, 3)))  # else the box centres
        key = f"scanrefer:{scene_id}:{str((entry or {}).get('sha256', ''))[:12]}"  # checked_input refused a missing entry
        vs.scenes[key] = vw.scene_payload(pts[:, :3], pts[:, 3:6], up="z", key=key, max_points=opts.max_scene_points, seed=opts.seed)
        gt, found = gt_boxes(table, np.array([s.object_id for s in todo]), run.results.protocol)
        for s, g, f in zip(todo, gt, found.tolist()):
            layers = [vw.box_layer(f"GT: {s.object_name} (object {s.object_id})" + ("" if f else ", no row: row 0"), g, vw.GT)]
            if s.sample_id in preds:
                layers.append(vw.box_layer("predicted box", preds[s.sample_id], vw.PRED, dashed=True))
            note = s.description + ("" if s.sample_id in preds else " (no prediction)")
            vs.views[s.sample_id] = {"scene": key, "layers": layers, "note": note}
            vs.details.setdefault(s.sample_id, {})["description"] = s.description
    return vs
