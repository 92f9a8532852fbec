"""ScanQA views: the scene's points (``scannet_data/<scene_id>_aligned_vert.npy`` beside the
annotations, when there, else the box centres) with the boxes of the objects the question is about
(``object_ids``, from the box table beside them; drawn only, never scored), the question, its
references and the top answers. Annotations and predictions are read back from the run's inputs
(checksums verified)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from scenebench.io.arrays import load_npy
from scenebench.io.scannet import SCENES, box_path, by_scene, load_boxes
from scenebench.report import viewer as vw
from scenebench.report.runs import LoadedRun
from scenebench.report.views import ViewOptions, ViewSet, checked_input, run_inputs

from .data import load_questions
from .predictions import read_predictions


def build_views(run: LoadedRun, sample_ids: list[str], opts: ViewOptions) -> ViewSet:
    inputs, want, vs = run_inputs(run), set(sample_ids), ViewSet()
    ann = checked_input(inputs.get("annotations"), "annotations")
    questions = load_questions(ann)
    preds = read_predictions(checked_input(inputs.get("predictions"), "predictions"), questions)
    scenes = Path(ann).parent / SCENES
    for scene_id, todo in by_scene([q for q in questions if q.question_id in want]).items():
        table = load_boxes(scenes, scene_id) if box_path(scenes, scene_id).is_file() else np.zeros((0, 8))
        vert = scenes / f"{scene_id}_aligned_vert.npy"
        pts = load_npy(vert) if vert.is_file() else np.pad(table[:, :3], ((0, 0), (0, 3)))
        key = f"scanqa:{scene_id}"
        vs.scenes[key] = vw.scene_payload(pts[:, :3], pts[:, 3:6], up="z", key=key, max_points=opts.max_scene_points, seed=opts.seed)
        rows = {int(r[7]): r for r in table}
        for q in todo:
            layers = []
            for k, name in zip(q.object_ids, q.object_names):
                if k in rows:
                    c, s = rows[k][:3], rows[k][3:6]
                    layers.append(vw.box_layer(f"{name} (object {k})", [*(c - s / 2), *(c + s / 2)], vw.GT, text=name))
            answers = preds.get(q.question_id)
            said = "no prediction" if answers is None else "answered: " + " | ".join(answers[:3])
            note = f"{q.question} (references: {' | '.join(q.answers)}; {said})"
            vs.views[q.question_id] = {"scene": key, "layers": layers, "note": note}
            vs.details.setdefault(q.question_id, {})["question"] = q.question
    return vs
