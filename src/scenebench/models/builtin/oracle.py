"""``oracle``: returns the ground truth. Not a model, a check of every evaluator: it must score 100
on every task of every benchmark (through the same prediction files and parsers as real models;
3DBench answers go through the text parser as "[cx, cy, cz, dx, dy, dz]" and "(B) option")."""

from __future__ import annotations

from typing import Any

from scenebench.errors import ScenebenchError
from scenebench.models.base import SceneBatch
from scenebench.models.predictions import Prediction


class OracleModel:
    name = "oracle"
    needs_ground_truth = True

    def settings(self) -> dict[str, Any]:
        return {}

    def predict(self, batch: SceneBatch) -> list[Prediction]:
        if batch.truth is None:
            raise ScenebenchError("the oracle was given no ground truth (the run source must provide truth())")
        return [batch.truth[s.sample_id] for s in batch.samples]
