"""Plugin model for the Ray worker-kill test (loaded in Ray workers through ``plugin:ray_plugins:...``)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from scenebench.models.predictions import BoxPrediction, option_prediction


class WaitsToBeKilled:
    """On its first attempt at a scene it writes its pid and waits (the test SIGKILLs it); retries answer."""

    name = "waits-to-be-killed"

    def __init__(self, marker_dir: str, **_):
        self.marker_dir = Path(marker_dir)

    def predict(self, batch):
        killed = self.marker_dir / f"{batch.scene_id}.killed"
        if batch.scene_id == "scene1" and not killed.exists():
            (self.marker_dir / f"{batch.scene_id}.pid").write_text(str(os.getpid()))
            deadline = time.time() + 60
            while time.time() < deadline and not killed.exists():
                time.sleep(0.05)
            time.sleep(30)  # the kill arrives here; never answers on this attempt
        return [
            option_prediction(s.sample_id, s.options, 1)
            if s.answer_kind == "option"
            else BoxPrediction(s.sample_id, box=[1, 1, 1, 0.5, 0.5, 0.5])
            for s in batch.samples
        ]
