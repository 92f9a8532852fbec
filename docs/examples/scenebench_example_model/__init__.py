"""A complete third-party model for scenebench, used by docs/model-template.md and tested in CI.

Run it without installing anything (the folder only has to be importable):

    PYTHONPATH=docs/examples scenebench run 3dbench --data DATA --model plugin:scenebench_example_model:LargestObjectModel

or register it as an entry point in your package's ``pyproject.toml`` and call it by name::

    [project.entry-points."scenebench.models"]
    largest-object = "scenebench_example_model:LargestObjectModel"
"""

from __future__ import annotations

from typing import Any

import numpy as np

from scenebench.models.base import ModelSample, SceneBatch
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


class LargestObjectModel:
    """Answers every question with the scene's largest object (a toy; replace the body of _answer).

    - box / mask: the largest object of the scene's object list (its box, its points);
    - boxes: that object with its label;
    - option: the option that mentions its label, else the first option;
    - waypoints: from the start straight to it;
    - pose: the identity (nothing moved);
    - text: a sentence naming it.
    """

    name = "largest-object"
    # It reads the scene's object list (labels, boxes, point indices): annotation, not perception. A
    # model gets that list only when it declares so, and its runs are labelled "[ground-truth
    # perception]" (an upper bound). Without this line ``batch.scene.objects`` is empty and the model
    # abstains on everything but poses; a model of the points alone reads ``batch.scene.points``.
    ground_truth_perception = True

    def __init__(self, seed: int = 0, min_size: float = 0.0) -> None:
        # Everything the constructor takes can be set from the CLI: --model-arg min_size=0.5. No
        # **kwargs: scenebench then refuses a misspelled --model-arg (min_sise=0.5) naming the
        # accepted ones, instead of running with the default and a different fingerprint.
        self.seed = seed
        self.min_size = float(min_size)

    def settings(self) -> dict[str, Any]:
        # Enters the run's fingerprint: other settings start a new run instead of mixing answers.
        return {"min_size": self.min_size, "version": 1}

    def fit(self, train: list[tuple[ModelSample, Prediction]]) -> None:
        # Called once with the benchmark's train split (samples and answers), when there is one.
        self.n_train = len(train)

    def predict(self, batch: SceneBatch) -> list[Prediction]:
        # One call per scene: load and encode the scene once, then answer all its questions.
        objects = [o for o in batch.scene.objects if max(o.box[3:]) >= self.min_size]
        largest = max(objects, key=lambda o: float(np.prod(o.box[3:]))) if objects else None
        return [self._answer(s, largest) for s in batch.samples]

    def _answer(self, s: ModelSample, obj: Any) -> Prediction:
        kind, sid = s.answer_kind, s.sample_id
        if kind == "pose":
            return PosePrediction(sid, pose=np.eye(4).tolist())
        if obj is None:
            return TextPrediction(sid, text="")  # abstain: scored as wrong, never guessed
        if kind == "box":
            return BoxPrediction(sid, box=list(obj.box))
        if kind == "mask" and obj.point_indices is not None:
            return MaskPrediction(sid, indices=np.asarray(obj.point_indices).tolist())
        if kind == "boxes":
            return BoxesPrediction(sid, boxes=[LabelledBox(obj.label, list(obj.box))])
        if kind == "option" and s.options:
            hits = [i for i, o in enumerate(s.options) if obj.label in o.lower()]
            return option_prediction(sid, s.options, hits[0] if hits else 0)
        if kind == "waypoints" and "start" in s.inputs:
            return WaypointsPrediction(sid, points=[list(s.inputs["start"]), [obj.box[0], obj.box[2]]])
        return TextPrediction(sid, text=f"The largest object here is a {obj.label}.")
