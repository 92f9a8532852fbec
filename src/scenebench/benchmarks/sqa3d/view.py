"""SQA3D views: the scene's points (``scannet_data/<scene_id>_aligned_vert.npy`` beside the
question file, when there; drawn only, never scored) with the agent: a small box at its position
and a 1 m arrow along the direction it faces (the +x axis turned by its quaternion, the convention
of the generated data), the situation, the question, the reference and the answer. Questions,
annotations and predictions are read back from the run's inputs (checksums verified)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from scenebench.io.arrays import load_npy
from scenebench.io.scannet import SCENES, by_scene
from scenebench.report import viewer as vw
from scenebench.report.runs import LoadedRun
from scenebench.report.views import ViewOptions, ViewSet, checked_input, run_inputs

from .data import load_questions
from .predictions import read_predictions

AGENT = 0.3  # metres: the side of the agent's box


def facing(rotation: tuple[float, float, float, float]) -> np.ndarray:
    """The +x axis turned by the quaternion ``(x, y, z, w)``."""
    x, y, z, w = rotation
    return np.array([1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w)])


def build_views(run: LoadedRun, sample_ids: list[str], opts: ViewOptions) -> ViewSet:
    inputs, want, vs = run_inputs(run), set(sample_ids), ViewSet()
    qfile = checked_input(inputs.get("questions"), "questions")
    questions = load_questions(qfile, checked_input(inputs.get("annotations"), "annotations"))
    preds = read_predictions(checked_input(inputs.get("predictions"), "predictions"), questions)
    scenes = Path(qfile).parent / SCENES
    for scene_id, todo in by_scene([q for q in questions if q.question_id in want]).items():
        vert = scenes / f"{scene_id}_aligned_vert.npy"
        pts = load_npy(vert) if vert.is_file() else np.array([q.position + (0.0, 0.0, 0.0) for q in todo])
        key = f"sqa3d:{scene_id}"
        vs.scenes[key] = vw.scene_payload(pts[:, :3], pts[:, 3:6], up="z", key=key, max_points=opts.max_scene_points, seed=opts.seed)
        for q in todo:
            p = np.array(q.position)
            half = np.array([AGENT / 2, AGENT / 2, 0.0])
            top = p + np.array([0.0, 0.0, 1.2])  # the arrow at about eye height, above the furniture
            layers = [
                vw.box_layer("agent", [*(p - half), *(p + half + np.array([0.0, 0.0, 1.6]))], vw.GT, text="agent"),
                vw.path_layer("facing (1 m)", np.stack([top, top + facing(q.rotation)]), vw.GT),
            ]
            answer = preds.get(q.question_id)
            said = "no prediction" if answer is None else f"answered: {answer}"
            vs.views[q.question_id] = {
                "scene": key,
                "layers": layers,
                "note": f"{q.situation} {q.question} (reference: {q.answers[0]}; {said})",
            }
            vs.details.setdefault(q.question_id, {})["situation"] = q.situation
    return vs
