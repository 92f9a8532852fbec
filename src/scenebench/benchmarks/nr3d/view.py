"""Nr3D / Sr3D views: when the run recorded the scans' box tables (``scenebench run``), the scene's
points (or box centres) with the target's box and the chosen object's box; a ``score`` run records
no geometry and gets no 3D view (its per-sample table still lists every answer)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from scenebench.geometry.boxes import center_size_to_minmax
from scenebench.io.arrays import load_npy
from scenebench.report import viewer as vw
from scenebench.report.runs import LoadedRun
from scenebench.report.views import ViewOptions, ViewSet, checked_input, run_inputs

from .data import load_scan_list, load_utterances
from .predictions import read_predictions
from .scorer import parse_answer


def build_views(run: LoadedRun, sample_ids: list[str], opts: ViewOptions) -> ViewSet:
    inputs, want, vs = run_inputs(run), set(sample_ids), ViewSet()
    tables = inputs.get("scenes") or {}
    if not tables:
        return vs
    utterances = load_utterances(checked_input(inputs.get("annotations"), "annotations"))
    if inputs.get("scans"):
        keep = load_scan_list(checked_input(inputs["scans"], "scans"))
        utterances = [u for u in utterances if u.scan_id in keep]
    preds = read_predictions(checked_input(inputs.get("predictions"), "predictions"), utterances)
    for u in (u for u in utterances if u.sample_id in want and u.scan_id in tables):
        path = checked_input(tables[u.scan_id], f"box table of {u.scan_id}")
        table = load_npy(path)
        key = f"{run.results.benchmark}:{u.scan_id}:{str(tables[u.scan_id].get('sha256', ''))[:12]}"
        if key not in vs.scenes:
            vert = Path(path).parent / f"{u.scan_id}_aligned_vert.npy"  # drawn only, never scored
            pts = load_npy(vert) if vert.is_file() else np.pad(table[:, :3], ((0, 0), (0, 3)))
            vs.scenes[key] = vw.scene_payload(pts[:, :3], pts[:, 3:6], up="z", key=key, max_points=opts.max_scene_points, seed=opts.seed)
        ids = table[:, 7].astype(np.int64)
        boxes = center_size_to_minmax(table[:, :6].astype(float))
        layers = [vw.box_layer(f"target: {u.instance_type} (object {u.target_id})", b, vw.GT) for b in boxes[ids == u.target_id]]
        raw = preds.get(u.sample_id)
        chosen = None if raw is None else parse_answer(raw, run.results.protocol)
        if chosen is not None:
            layers += [vw.box_layer(f"chosen: object {chosen}", b, vw.PRED, dashed=True) for b in boxes[ids == chosen]]
        vs.views[u.sample_id] = {"scene": key, "layers": layers, "note": u.utterance + ("" if raw is not None else " (no prediction)")}
        vs.details.setdefault(u.sample_id, {})["utterance"] = u.utterance
    return vs
