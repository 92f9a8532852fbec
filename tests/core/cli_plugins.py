"""Plugin models for the CLI error-handling tests (loaded as ``plugin:cli_plugins:Name``)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from scenebench.models.predictions import MaskPrediction


class InterruptOnce:
    """Answers with the ground-truth-free mask [0]; the first time it meets its second scene it sends
    SIGINT to its own process (what Ctrl-C does), so the interrupt lands in the middle of a run."""

    name = "interrupt-once"

    def __init__(self, marker: str, **_):
        self.marker = Path(marker)
        self.calls = 0

    def predict(self, batch):
        self.calls += 1
        if self.calls == 2 and not self.marker.exists():
            self.marker.write_text(str(os.getpid()))
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(30)  # the KeyboardInterrupt is raised here
        return [MaskPrediction(s.sample_id, indices=[0, 1, 2]) for s in batch.samples]


class BuggyModel:
    """A model with a bug: a KeyError escapes predict()."""

    name = "buggy"

    def __init__(self, **_):
        pass

    def predict(self, batch):
        return {}["no-such-key"]


class BrokenConstructor:
    """Fails before any run folder exists (the traceback log goes to the temp folder)."""

    name = "broken"

    def __init__(self, **_):
        raise RuntimeError("constructor exploded [bold]not markup[/bold]")
