"""ScanQA for ``scenebench run``: a question in, ranked answers out.

Data folder (``--data``): ``ScanQA_v1.0_<split>.json`` (default ``val``; ``ScanQA_v1.0_train.json``,
when there, is the train split of blind baselines) and the ScanNet-layout scene arrays
``scannet_data/<scene_id>_{aligned_vert,ins_label}.npy`` (:mod:`scenebench.io.scannet`, as
ScanRefer's preprocessing writes them). A model sees the question (``query``, answer kind
``ranked_text``: a :class:`~scenebench.models.predictions.RankedTextPrediction`, or plain text as
the top-1) and the scene: points, colours, instance ids and the objects the split's questions name.
The oracle answers each question's first reference; the prediction file is the EvalAI list.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from scenebench.errors import InputError
from scenebench.io.files import atomic_write_text, file_fingerprint
from scenebench.io.scannet import SCENES
from scenebench.metrics.jobs import ScoringJob
from scenebench.models.base import ModelSample, SceneView
from scenebench.models.predictions import Prediction, RankedTextPrediction, TextPrediction
from scenebench.models.sources.base import scannet_scene

from .data import load_questions
from .scorer import make_job


class ScanQASource:
    benchmark = "scanqa"
    predictions_name = "scanqa_predictions.json"

    def __init__(self, data: str, split: str = "val") -> None:
        self.root, self.split = Path(data), split
        self.ann = self.root / f"ScanQA_v1.0_{split}.json"
        if not self.ann.is_file():
            raise InputError(self.ann, "does not exist", expected="a ScanQA data folder (ScanQA_v1.0_<split>.json, scannet_data/)")
        self.scenes = self.root / SCENES
        self.questions = load_questions(self.ann)
        self.by_id = {q.question_id: q for q in self.questions}
        train = self.root / "ScanQA_v1.0_train.json"
        self.train_questions = load_questions(train) if train.is_file() and split != "train" else []
        self.names: dict[tuple[str, int], str] = {}
        for q in [*self.questions, *self.train_questions]:
            self.names.update({(q.scene_id, i): n for i, n in zip(q.object_ids, q.object_names)})

    def spec(self) -> dict[str, Any]:
        return {"data": str(self.root), "split": self.split}

    def inputs(self) -> dict[str, Any]:
        scenes = sorted({q.scene_id for q in self.questions})
        files = [f"{sid}_{kind}.npy" for sid in scenes for kind in ("aligned_vert", "ins_label")]
        return {"annotations": file_fingerprint(self.ann), "scenes": {f: file_fingerprint(self.scenes / f) for f in files}}

    def _sample(self, q: Any) -> ModelSample:
        return ModelSample(q.question_id, q.scene_id, "scanqa", "ranked_text", q.question)

    def samples(self) -> list[ModelSample]:
        return [self._sample(q) for q in self.questions]

    def train(self) -> list[tuple[ModelSample, Prediction]]:
        # plain text: what the blind baselines learn answers from
        return [(self._sample(q), TextPrediction(q.question_id, text=q.answers[0])) for q in self.train_questions]

    def scene(self, scene_id: str) -> SceneView:
        return scannet_scene(self.scenes, scene_id, {o: n for (sc, o), n in self.names.items() if sc == scene_id})

    def truth(self, sample: ModelSample) -> Prediction:
        return RankedTextPrediction(sample.sample_id, answers=[self.by_id[sample.sample_id].answers[0]])

    def write_predictions(self, predictions: Mapping[str, Prediction], samples: Sequence[ModelSample], folder: Path) -> Path:
        recs = []
        for m in samples:
            p = predictions[m.sample_id]
            answers = p.answers[:10] if isinstance(p, RankedTextPrediction) else [p.to_text()]
            recs.append({"scene_id": m.scene_id, "question_id": m.sample_id, "answer_top10": answers or [""], "bbox": []})
        path = Path(folder) / self.predictions_name
        atomic_write_text(path, json.dumps(recs))
        return path

    def scoring_job(self, predictions_path: Path, samples: Sequence[ModelSample], *, protocol: str, **options: Any) -> ScoringJob:
        chosen = {m.sample_id for m in samples}
        qs = [q for q in self.questions if q.question_id in chosen]
        return make_job(
            qs, {"annotations": file_fingerprint(self.ann)}, predictions_path, protocol, meteor=bool(options.get("meteor", True))
        )
