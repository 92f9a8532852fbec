"""SQA3D for ``scenebench run``: a situation and a question in, one answer out.

Data folder (``--data``): ``v1_balanced_questions_<split>_scannetv2.json`` and
``v1_balanced_sqa_annotations_<split>_scannetv2.json`` (default split ``test``; the ``train`` pair,
when there, is the train split of blind baselines) and the ScanNet-layout scene arrays
``scannet_data/<scene_id>_{aligned_vert,ins_label}.npy`` (:mod:`scenebench.io.scannet`). A model
sees the question (``query``, answer kind ``text``) with ``inputs`` = the situation sentence, the
agent's ``position`` (x, y, z, metres) and ``rotation`` (quaternion x, y, z, w), and the scene's
points, colours and instance ids. The oracle answers each question's first reference.
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
from scenebench.models.predictions import Prediction, TextPrediction
from scenebench.models.sources.base import scannet_scene

from .data import Question, load_questions
from .scorer import make_job


def split_files(root: Path, split: str) -> tuple[Path, Path]:
    return root / f"v1_balanced_questions_{split}_scannetv2.json", root / f"v1_balanced_sqa_annotations_{split}_scannetv2.json"


class SQA3DSource:
    benchmark = "sqa3d"
    predictions_name = "sqa3d_predictions.json"

    def __init__(self, data: str, split: str = "test") -> None:
        self.root, self.split = Path(data), split
        self.qfile, self.afile = split_files(self.root, split)
        for f in (self.qfile, self.afile):
            if not f.is_file():
                raise InputError(f, "does not exist", expected="an SQA3D data folder (questions + annotations of the split, scannet_data/)")
        self.scenes = self.root / SCENES
        self.questions = load_questions(self.qfile, self.afile)
        self.by_id = {q.question_id: q for q in self.questions}
        tq, ta = split_files(self.root, "train")
        self.train_questions = load_questions(tq, ta) if split != "train" and tq.is_file() and ta.is_file() else []

    def spec(self) -> dict[str, Any]:
        return {"data": str(self.root), "split": self.split}

    def _truth_inputs(self) -> dict[str, Any]:
        return {"questions": file_fingerprint(self.qfile), "annotations": file_fingerprint(self.afile)}

    def inputs(self) -> dict[str, Any]:
        scenes = sorted({q.scene_id for q in self.questions})
        files = [f"{sid}_{kind}.npy" for sid in scenes for kind in ("aligned_vert", "ins_label")]
        return {**self._truth_inputs(), "scenes": {f: file_fingerprint(self.scenes / f) for f in files}}

    def _sample(self, q: Question) -> ModelSample:
        inputs = {"situation": q.situation, "position": list(q.position), "rotation": list(q.rotation)}
        return ModelSample(q.question_id, q.scene_id, "sqa3d", "text", q.question, inputs=inputs)

    def samples(self) -> list[ModelSample]:
        return [self._sample(q) for q in self.questions]

    def train(self) -> list[tuple[ModelSample, Prediction]]:
        return [(self._sample(q), TextPrediction(q.question_id, text=q.answers[0])) for q in self.train_questions]

    def scene(self, scene_id: str) -> SceneView:
        return scannet_scene(self.scenes, scene_id, {})

    def truth(self, sample: ModelSample) -> Prediction:
        return TextPrediction(sample.sample_id, text=self.by_id[sample.sample_id].answers[0])

    def write_predictions(self, predictions: Mapping[str, Prediction], samples: Sequence[ModelSample], folder: Path) -> Path:
        recs = [{"question_id": int(m.sample_id), "answer": predictions[m.sample_id].to_text()} for m in samples]
        path = Path(folder) / self.predictions_name
        atomic_write_text(path, json.dumps(recs))
        return path

    def scoring_job(self, predictions_path: Path, samples: Sequence[ModelSample], *, protocol: str, **options: Any) -> ScoringJob:
        chosen = {m.sample_id for m in samples}
        return make_job([q for q in self.questions if q.question_id in chosen], self._truth_inputs(), predictions_path, protocol)
