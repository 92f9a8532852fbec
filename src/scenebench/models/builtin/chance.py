"""``random``: chance level, seeded per sample (the same answers whatever the batching or backend).

What "chance" means per answer kind (documented because it sets the floor every table is read against):

- option: a uniform option;
- mask / box: a uniform object of the scene's instance list (chance *given perfect proposals*); a
  scene without an instance list gets a 1 m cube around a uniform scene point;
- boxes: 1-3 uniform objects of the scene, each with a uniform label of the task's train vocabulary
  (the object's own label when there is no train split);
- pose: a uniform rotation about the up axis that puts the object's reference centre
  (``inputs["reference_center"]``) on a uniform point of the scene;
- waypoints: from the start (``inputs["start"]``) straight to a uniform scene point;
- text: a uniform train answer of the same task ("" without a train split).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np

from scenebench.models.base import ModelSample, SceneBatch
from scenebench.models.execution import seeded_rng
from scenebench.models.predictions import (
    BoxesPrediction,
    BoxPrediction,
    LabelledBox,
    MaskPrediction,
    PosePrediction,
    Prediction,
    TextPrediction,
    WaypointsPrediction,
    option_prediction,
)


def yaw_pose(angle: float, center: np.ndarray, target: np.ndarray, up: int = 2) -> list[list[float]]:
    """4x4 rotation by ``angle`` radians about the ``up`` axis that maps ``center`` onto ``target``."""
    c, s = np.cos(angle), np.sin(angle)
    a, b = [i for i in range(3) if i != up]
    r = np.eye(3)
    r[a, a], r[a, b], r[b, a], r[b, b] = c, -s, s, c
    m = np.eye(4)
    m[:3, :3] = r
    m[:3, 3] = np.asarray(target, float) - r @ np.asarray(center, float)
    return m.tolist()


class RandomModel:
    name = "random"
    ground_truth_perception = True  # picks among the ground-truth instances (masks, boxes)

    def __init__(self, seed: int = 0) -> None:
        self.seed = int(seed)
        self._texts: dict[str, list[str]] = defaultdict(list)
        self._labels: dict[str, set[str]] = defaultdict(set)

    def settings(self) -> dict[str, Any]:
        return {"seed": self.seed}

    def fit(self, train: list[tuple[ModelSample, Prediction]]) -> None:
        for s, answer in train:
            if answer.kind == "text":
                self._texts[s.task].append(answer.text)  # type: ignore[attr-defined]
            elif answer.kind == "boxes":
                self._labels[s.task].update(b.label for b in answer.boxes)  # type: ignore[attr-defined]

    def predict(self, batch: SceneBatch) -> list[Prediction]:
        return [self._one(batch, s) for s in batch.samples]

    def _one(self, batch: SceneBatch, s: ModelSample) -> Prediction:
        rng = seeded_rng(self.seed, s.sample_id)
        scene, kind = batch.scene, s.answer_kind
        if kind == "option" and s.options:
            return option_prediction(s.sample_id, s.options, int(rng.integers(len(s.options))))
        if kind in ("text", "ranked_text", "option"):
            texts = self._texts.get(s.task) or [""]
            return TextPrediction(s.sample_id, text=texts[int(rng.integers(len(texts)))])
        objects = scene.objects
        if kind in ("mask", "box"):
            if objects:
                obj = objects[int(rng.integers(len(objects)))]
                if kind == "box":
                    return BoxPrediction(s.sample_id, box=list(obj.box))
                if obj.point_indices is not None:
                    return MaskPrediction(s.sample_id, indices=np.asarray(obj.point_indices).tolist())
            pts = np.asarray(scene.points, float)
            centre = pts[int(rng.integers(len(pts)))]
            if kind == "box":
                return BoxPrediction(s.sample_id, box=[*centre.tolist(), 1.0, 1.0, 1.0])
            inside = np.all(np.abs(pts - centre) <= 0.5, axis=1)
            return MaskPrediction(s.sample_id, indices=np.flatnonzero(inside).tolist())
        if kind == "boxes":
            if not objects:
                return BoxesPrediction(s.sample_id, boxes=[])
            vocab = sorted(self._labels.get(s.task, ()))
            k = min(len(objects), int(rng.integers(1, 4)))
            picks = rng.choice(len(objects), size=k, replace=False)
            boxes = [
                LabelledBox(vocab[int(rng.integers(len(vocab)))] if vocab else objects[i].label, list(objects[i].box))
                for i in picks.tolist()
            ]
            return BoxesPrediction(s.sample_id, boxes=boxes)
        pts = np.asarray(scene.points, float)
        target = pts[int(rng.integers(len(pts)))]
        if kind == "pose":
            centre = np.asarray(s.inputs.get("reference_center", [0.0, 0.0, 0.0]), float)
            return PosePrediction(
                s.sample_id, pose=yaw_pose(float(rng.uniform(0, 2 * np.pi)), centre, target, up=int(s.inputs.get("up_axis", 2)))
            )
        if kind == "waypoints":
            start = list(s.inputs.get("start", [target[0], target[2]]))[:2]
            return WaypointsPrediction(s.sample_id, points=[start, [float(target[0]), float(target[2])]])
        return TextPrediction(s.sample_id, text="")
