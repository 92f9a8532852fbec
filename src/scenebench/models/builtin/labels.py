"""``baseline:labels``: the ground-truth labels plus the question, no geometry.

The shortcut probe of reasoning segmentation: it reads the scene's ground-truth instance labels
(not the points, not the boxes), guesses the target category from the question's words (word to
target-name counts learned from the train split, restricted to labels present in the scene) and
predicts every instance with that label. It needs no spatial reasoning at all, so a benchmark on
which it scores well can be passed by reading labels. Everything else is answered by the blind
prior. Runs with it are marked "ground-truth perception".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from scenebench.models.base import ModelSample, SceneBatch
from scenebench.models.builtin.prior import PriorModel
from scenebench.models.predictions import MaskPrediction, Prediction


class LabelsModel(PriorModel):
    name = "baseline:labels"
    ground_truth_perception = True

    def __init__(self, seed: int = 0, **options: Any) -> None:
        super().__init__(seed=seed, **options)

    def answer(self, batch: SceneBatch, s: ModelSample) -> Prediction:
        if s.answer_kind != "mask":
            return super().answer(batch, s)
        objs = [o for o in batch.scene.objects if o.point_indices is not None]
        label = self.guess_label(s.query, among={o.label for o in objs})
        hits = [o for o in objs if label is not None and o.label == label]
        if not hits:
            hits = objs[:1]
        idx = np.concatenate([np.asarray(o.point_indices) for o in hits]) if hits else np.zeros(0, int)
        return MaskPrediction(s.sample_id, indices=np.asarray(idx, int).tolist())
