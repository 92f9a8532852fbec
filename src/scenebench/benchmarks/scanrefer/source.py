"""ScanRefer for ``scenebench run``: a description in, one box out.

Data folder (``--data``, the layout of :mod:`.writer`): ``ScanRefer_filtered_val.json`` is
evaluated, ``ScanRefer_filtered_train.json`` (when there) is the train split of blind baselines.
A model sees the description (``query``, answer kind ``box``) and the scene from
``scannet_data/<scene_id>_aligned_vert.npy`` / ``_ins_label.npy``: points and colors; instance ids
and ``objects`` labelled with the annotations' ``object_name`` are ground truth, seen only by models
that declare ground-truth perception.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.errors import InputError
from scenebench.geometry.boxes import center_size_to_minmax
from scenebench.io.files import atomic_write_text, file_fingerprint
from scenebench.io.scannet import SCENE_FILES, SCENES, TSV, load_boxes
from scenebench.metrics.jobs import ScoringJob
from scenebench.models.base import ModelSample, SceneView
from scenebench.models.predictions import BoxPrediction, Prediction, TextPrediction
from scenebench.models.sources.base import scannet_scene

from .scorer import make_job, truth_files

CORNERS = np.array([[i >> 2 & 1, i >> 1 & 1, i & 1] for i in range(8)])  # which of min/max per axis


class ScanReferSource:
    benchmark = "scanrefer"
    predictions_name = "scanrefer_predictions.json"

    def __init__(self, data: str) -> None:
        self.root = Path(data)
        if not (self.root / "ScanRefer_filtered_val.json").is_file():
            raise InputError(self.root / "ScanRefer_filtered_val.json", "does not exist", expected="a ScanRefer data folder")
        self.ann, self.labels, self.scenes = self.root / "ScanRefer_filtered_val.json", self.root / TSV, self.root / SCENES
        self.samples_, self.truth_inputs = truth_files(self.ann, self.labels)
        self.by_id = {s.sample_id: s for s in self.samples_}
        train = self.root / "ScanRefer_filtered_train.json"
        self.train_samples = truth_files(train, self.labels)[0] if train.is_file() else []
        self._tables: dict[str, np.ndarray] = {}
        self.names = {(s.scene_id, s.object_id): s.object_name for s in [*self.samples_, *self.train_samples]}

    def spec(self) -> dict[str, Any]:
        return {"data": str(self.root)}

    def inputs(self) -> dict[str, Any]:
        scenes = sorted({s.scene_id for s in self.samples_})
        files = [f"{sid}_{kind}.npy" for sid in scenes for kind in SCENE_FILES]
        return {**self.truth_inputs, "scenes": {f: file_fingerprint(self.scenes / f) for f in files}}

    def _sample(self, s: Any) -> ModelSample:
        return ModelSample(s.sample_id, s.scene_id, "visual_grounding", "box", s.description)

    def samples(self) -> list[ModelSample]:
        return [self._sample(s) for s in self.samples_]

    def train(self) -> list[tuple[ModelSample, Prediction]]:
        return [(self._sample(s), TextPrediction(s.sample_id, text=s.object_name)) for s in self.train_samples]

    def scene(self, scene_id: str) -> SceneView:
        return scannet_scene(self.scenes, scene_id, {o: n.replace("_", " ") for (sc, o), n in self.names.items() if sc == scene_id})

    def truth(self, sample: ModelSample) -> Prediction:
        s = self.by_id[sample.sample_id]
        if s.scene_id not in self._tables:  # truth is asked per sample: read each scene's table once
            self._tables = {s.scene_id: load_boxes(self.scenes, s.scene_id)}
        table = self._tables[s.scene_id]
        row = table[table[:, 7].astype(np.int64) == s.object_id]
        return BoxPrediction(s.sample_id, box=[float(v) for v in (row[0, :6] if len(row) else np.zeros(6))])

    def write_predictions(self, predictions: Mapping[str, Prediction], samples: Sequence[ModelSample], folder: Path) -> Path:
        recs = []
        for m in samples:
            p, s = predictions[m.sample_id], self.by_id[m.sample_id]
            if isinstance(p, BoxPrediction):  # free text has no box: the scorer counts the sample as missing
                mm = center_size_to_minmax(np.asarray(p.box)).reshape(2, 3)
                corners = np.where(CORNERS == 1, mm[1], mm[0]).tolist()
                recs.append({"scene_id": s.scene_id, "object_id": str(s.object_id), "ann_id": str(s.ann_id), "bbox": corners})
        path = Path(folder) / self.predictions_name
        atomic_write_text(path, json.dumps(recs))
        return path

    def scoring_job(self, predictions_path: Path, samples: Sequence[ModelSample], *, protocol: str, **options: Any) -> ScoringJob:
        chosen = {m.sample_id for m in samples}
        return make_job([s for s in self.samples_ if s.sample_id in chosen], self.truth_inputs, self.scenes, predictions_path, protocol)
