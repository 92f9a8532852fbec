"""Plugin models used by the runner tests (loaded through ``plugin:plugins:Name``)."""

from __future__ import annotations

import os
from pathlib import Path

from scenebench.models.predictions import BoxPrediction, TextPrediction, option_prediction


class CountingModel:
    """Answers option 0 / a unit box, and counts predict() calls and samples seen in a file."""

    name = "counting"

    def __init__(self, calls_file: str, **_):
        self.calls_file = Path(calls_file)
        # Read from the environment, not the options: a "kill" must not change the run's fingerprint.
        fail = os.environ.get("TOY_FAIL_AFTER")
        self.fail_after = int(fail) if fail else None

    def _calls(self) -> list[str]:
        return self.calls_file.read_text().splitlines() if self.calls_file.exists() else []

    def predict(self, batch):
        if self.fail_after is not None and len(self._calls()) >= self.fail_after:
            raise KeyboardInterrupt("simulated kill")
        with self.calls_file.open("a") as fh:
            fh.write(" ".join(s.sample_id for s in batch.samples) + "\n")
        return [
            option_prediction(s.sample_id, s.options, 0)
            if s.answer_kind == "option"
            else BoxPrediction(s.sample_id, box=[0, 0, 0, 1, 1, 1])
            for s in batch.samples
        ]


class FlakyModel:
    """Fails the first time it sees each scene (marker files), then answers: exercises Ray retries."""

    name = "flaky"

    def __init__(self, marker_dir: str, **_):
        self.marker_dir = Path(marker_dir)

    def predict(self, batch):
        marker = self.marker_dir / f"{batch.scene_id}.seen"
        if not marker.exists():
            marker.write_text(str(os.getpid()))
            raise RuntimeError(f"transient failure on {batch.scene_id}")
        return [TextPrediction(s.sample_id, text="ok") for s in batch.samples]


class AlwaysFails:
    name = "always-fails"

    def __init__(self, **_):
        pass

    def predict(self, batch):
        raise RuntimeError("broken model")


class DropsOne:
    name = "drops-one"

    def __init__(self, **_):
        pass

    def predict(self, batch):
        return [TextPrediction(s.sample_id, text="") for s in batch.samples[1:]]


class StatusModel:
    """Reports its own outcome per sample (``extra["status"]``): gives up on every box question."""

    name = "status"

    def __init__(self, **_):
        pass

    def predict(self, batch):
        out = []
        for s in batch.samples:
            if s.answer_kind == "option":
                pred = option_prediction(s.sample_id, s.options, 0)
                pred.extra = {"status": "ok", "tries": 1}
                out.append(pred)
            else:
                extra = {"status": "gave_up", "tries": 3, "fitness": 0.125, "views": [1, 2]}  # lists are not copied
                out.append(BoxPrediction(s.sample_id, box=[0, 0, 0, 1, 1, 1], extra=extra))
        return out
