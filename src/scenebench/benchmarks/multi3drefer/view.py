"""Multi3DRefer views: the scene's points (``<scene_id>_aligned_vert.npy`` beside the box tables, when
there, else the box centres) with every target's GT box and every predicted box; the language file,
predictions and box tables are read back from the run's own inputs (checksums verified)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from scenebench.io.arrays import load_npy
from scenebench.io.scannet import by_scene, load_minmax_boxes
from scenebench.report import viewer as vw
from scenebench.report.runs import LoadedRun
from scenebench.report.views import ViewOptions, ViewSet, checked_input, run_inputs

from .data import load_queries
from .predictions import read_predictions


def build_views(run: LoadedRun, sample_ids: list[str], opts: ViewOptions) -> ViewSet:
    inputs, want, vs = run_inputs(run), set(sample_ids), ViewSet()
    queries = load_queries(checked_input(inputs.get("annotations"), "annotations"))
    pred_input = inputs.get("predictions")
    if isinstance(pred_input, dict) and "sha256" not in pred_input:  # an M3DRef-CLIP folder: one record per scene file
        files = {k: checked_input(v, f"predictions of {k}") for k, v in pred_input.items()}
        folder = next(iter(files.values())).parent if files else Path(inputs.get("boxes_dir", ""))
        preds = read_predictions(folder, queries) if files else {}
    else:
        preds = read_predictions(checked_input(pred_input, "predictions"), queries)
    boxes_dir = Path(inputs.get("boxes_dir", ""))
    for scene_id, todo in by_scene([q for q in queries if q.sample_id in want]).items():
        entry = (inputs.get("boxes") or {}).get(scene_id)
        ids, boxes = load_minmax_boxes(checked_input(entry, f"box table of {scene_id}").parent, scene_id)
        vert_path = boxes_dir / f"{scene_id}_aligned_vert.npy"  # drawn only, never scored: not in the run's checksums
        pts = load_npy(vert_path) if vert_path.is_file() else np.pad((boxes[:, :3] + boxes[:, 3:]) / 2, ((0, 0), (0, 3)))
        key = f"multi3drefer:{scene_id}:{str((entry or {}).get('sha256', ''))[:12]}"
        vs.scenes[key] = vw.scene_payload(pts[:, :3], pts[:, 3:6], up="z", key=key, max_points=opts.max_scene_points, seed=opts.seed)
        for q in todo:
            layers = [
                vw.box_layer(f"GT: {q.object_name} (object {o})", boxes[ids == o][0], vw.GT) for o in q.object_ids if (ids == o).any()
            ]
            layers += [vw.box_layer(f"predicted box {i}", b, vw.PRED, dashed=True) for i, b in enumerate(preds.get(q.sample_id, []))]
            note = f"{q.description} [{q.eval_type}]" + ("" if q.sample_id in preds else " (no prediction)")
            vs.views[q.sample_id] = {"scene": key, "layers": layers, "note": note}
            vs.details.setdefault(q.sample_id, {})["description"] = q.description
    return vs
