"""A tiny in-memory benchmark for runner tests: 3 scenes, option and box questions, exact-match scoring.

Importable by Ray workers (tests put this folder on their PYTHONPATH), so it takes only JSON kwargs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.metrics.aggregate import Mean
from scenebench.metrics.jobs import ScoringJob
from scenebench.metrics.records import SampleScore, summarize_scores
from scenebench.models.base import ModelSample, SceneObject, SceneView
from scenebench.models.predictions import BoxPrediction, option_prediction
from scenebench.results import Results


class ToySource:
    benchmark = "toy"
    predictions_name = "toy_predictions.jsonl"

    def __init__(self, n_scenes: int = 3, per_scene: int = 2, log: str | None = None) -> None:
        self.n_scenes, self.per_scene, self.log = n_scenes, per_scene, log
        self._samples = []
        for k in range(n_scenes):
            for j in range(per_scene):
                if j % 2 == 0:
                    self._samples.append(ModelSample(f"s{k}-{j}", f"scene{k}", "choice", "option", f"q{k}{j}", ("a", "b", "c")))
                else:
                    self._samples.append(ModelSample(f"s{k}-{j}", f"scene{k}", "ground", "box", f"where {k}{j}"))

    def spec(self) -> dict[str, Any]:
        return {"n_scenes": self.n_scenes, "per_scene": self.per_scene, "log": self.log}

    def inputs(self) -> dict[str, Any]:
        return {}

    def samples(self) -> list[ModelSample]:
        return list(self._samples)

    def train(self):
        return []

    def scene(self, scene_id: str) -> SceneView:
        if self.log:  # one line per scene load, to check that a scene is loaded once per batch
            with open(self.log, "a") as fh:
                fh.write(scene_id + "\n")
        k = int(scene_id[5:])
        rng = np.random.default_rng(k)
        pts = rng.uniform(0, 4, size=(50, 3))
        objs = [SceneObject(i, f"thing{i}", [float(i), 1.0, 1.0, 0.5, 0.5, 0.5], np.arange(i * 10, i * 10 + 10)) for i in range(3)]
        return SceneView(scene_id, {"points": lambda: pts, "objects": lambda: objs})

    def truth(self, s: ModelSample):
        k = int(s.scene_id[5:])
        if s.answer_kind == "option":
            return option_prediction(s.sample_id, s.options, k % 3)
        return BoxPrediction(s.sample_id, box=[float(k % 3), 1.0, 1.0, 0.5, 0.5, 0.5])

    def write_predictions(self, predictions, samples, folder: Path) -> Path:
        path = Path(folder) / self.predictions_name
        path.write_text("".join(json.dumps(predictions[s.sample_id].to_json()) + "\n" for s in samples))
        return path

    def scoring_job(self, predictions_path, samples, *, protocol, **options):
        """Exact match per sample, scored by the shared driver like every benchmark."""
        recs = {r["sample_id"]: r for r in map(json.loads, Path(predictions_path).read_text().splitlines())}
        truth = {s.sample_id: self.truth(s).to_json() for s in samples}

        class Scorer:
            benchmark = "toy"

            def __init__(self):
                self.protocol = protocol

            def sample_ids(self):
                return [s.sample_id for s in samples]

            def iter_scores(self, skip):
                for s in samples:
                    if s.sample_id not in skip:
                        hit = float(recs.get(s.sample_id) == truth[s.sample_id])
                        yield [SampleScore(s.sample_id, s.scene_id, "scored", {"hit": hit}, {"task": s.task})]

        def summarize(records, run):
            summ = summarize_scores(records, [Mean("accuracy", "hit", scale=100)], groups=("task",), n_resamples=0)
            return Results(benchmark="toy", protocol=protocol, metrics=summ.metrics, counts=summ.counts)

        return ScoringJob("toy", protocol, Scorer(), summarize)
