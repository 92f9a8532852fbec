"""SURPRISE3D views: the scene's points with the GT mask and the predicted mask (or box) overlaid.

Reads the run's own inputs (annotations, predictions, scene files; checksums verified) with the
benchmark's loaders. Masks are split into agreement / missed / wrongly added points; a box
prediction also shows its box and the axis-aligned box of the GT points it was compared with.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from scenebench.benchmarks.surprise3d.annotations import load_annotations
from scenebench.benchmarks.surprise3d.predictions import DEFAULT_SCORE_THRESHOLD, read_predictions
from scenebench.benchmarks.surprise3d.scenes import load_scene
from scenebench.errors import ScenebenchError
from scenebench.geometry.boxes import points_aabb, points_in_minmax
from scenebench.report import viewer as vw
from scenebench.report.runs import LoadedRun
from scenebench.report.views import ViewOptions, ViewSet, checked_input, run_inputs


def build_views(run: LoadedRun, sample_ids: list[str], opts: ViewOptions) -> ViewSet:
    inputs = run_inputs(run)
    ann = load_annotations(checked_input(inputs.get("annotations"), "annotations"))
    threshold = float(run.results.settings.get("score_threshold", DEFAULT_SCORE_THRESHOLD))
    preds = read_predictions(checked_input(inputs.get("predictions"), "predictions"), ann, score_threshold=threshold,
                             protocol=run.results.protocol)
    scenes_dir = Path(inputs.get("scenes_dir", ""))
    scene_sums = inputs.get("scenes") or {}
    want = set(sample_ids)
    vs = ViewSet()
    for scene_id, samples in ann.by_scene().items():
        todo = [s for s in samples if s.sample_id in want]
        if not todo:
            continue
        entry = scene_sums.get(scene_id)
        if entry is None:
            raise ScenebenchError(f"the run does not record a checksum for scene {scene_id}")
        checked_input(entry, f"scene {scene_id}")
        scene = load_scene(scenes_dir, scene_id)
        key = f"surprise3d:{scene_id}:{str(entry.get('sha256', ''))[:12]}"
        vs.scenes[key] = vw.scene_payload(scene.coords, scene.colors, up="z", key=key, max_points=opts.max_scene_points, seed=opts.seed)
        n = scene.n_points
        for s in todo:
            gt = np.isin(scene.instance_ids, s.targets)
            p = preds.by_sample.get(s.sample_id)
            pred = None
            if p is not None and p.kind == "box":
                pred = points_in_minmax(scene.coords, p.box)
            elif p is not None and p.indices is not None:
                pred = np.zeros(n, dtype=bool)
                pred[p.indices[p.indices < n]] = True
            layers = vw.mask_layers(scene.coords, gt, pred, key=f"{key}/{s.sample_id}", max_points=opts.max_layer_points, seed=opts.seed)
            if p is not None and p.kind == "box":
                layers.append(vw.box_layer("predicted box", p.box, vw.PRED, dashed=True))
                if gt.any():
                    layers.append(vw.box_layer("box of the GT points", points_aabb(scene.coords[gt]), vw.GT))
            if p is None:
                note = "no prediction for this sample: only the ground truth is drawn"
            else:
                note = f"prediction: {p.kind.replace('_', ' ')}, {int(pred.sum()) if pred is not None else 0} of {n} points; GT: {int(gt.sum())} points"
            vs.views[s.sample_id] = {"scene": key, "layers": layers, "note": note}
    return vs
