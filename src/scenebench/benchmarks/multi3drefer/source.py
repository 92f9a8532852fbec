"""Multi3DRefer for ``scenebench run``: a description in, a set of boxes out (possibly empty).

Data folder (``--data``): ``multi3drefer_val.json`` is evaluated, ``multi3drefer_train.json`` (when
there) is the train split of blind baselines; ``scannet_data/`` holds the ScanNet preprocessed
``<scene_id>_aligned_bbox.npy`` box tables and, for models that look at the scene,
``_aligned_vert.npy`` (x y z r g b) and ``_ins_label.npy`` (``object_id + 1`` per point, 0: none).
A model sees the description (``query``, answer kind ``boxes``) and the scene: points, colours,
instance ids and ``objects`` labelled with the names the language file gives its targets.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.errors import InputError
from scenebench.geometry.boxes import center_size_to_minmax, minmax_to_center_size
from scenebench.io.files import atomic_write_text, file_fingerprint
from scenebench.io.scannet import SCENES, box_path, load_minmax_boxes
from scenebench.metrics.jobs import ScoringJob
from scenebench.models.base import ModelSample, SceneView
from scenebench.models.predictions import BoxesPrediction, LabelledBox, Prediction, TextPrediction
from scenebench.models.sources.base import scannet_scene

from .data import Query, load_queries
from .scorer import make_job
from .writer import corners

VAL, TRAIN = "multi3drefer_val.json", "multi3drefer_train.json"


class Multi3DReferSource:
    benchmark = "multi3drefer"
    predictions_name = "multi3drefer_predictions.json"

    def __init__(self, data: str) -> None:
        self.root = Path(data)
        if not (self.root / VAL).is_file():
            raise InputError(self.root / VAL, "does not exist", expected="a Multi3DRefer data folder")
        self.ann, self.scenes = self.root / VAL, self.root / SCENES
        self.queries = load_queries(self.ann)
        self.truth_inputs = {"annotations": file_fingerprint(self.ann)}
        self.by_id = {q.sample_id: q for q in self.queries}
        self.train_queries = load_queries(self.root / TRAIN) if (self.root / TRAIN).is_file() else []
        self.names = {(q.scene_id, o): q.object_name.replace("_", " ") for q in [*self.queries, *self.train_queries] for o in q.object_ids}
        self._boxes: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def spec(self) -> dict[str, Any]:
        return {"data": str(self.root)}

    def inputs(self) -> dict[str, Any]:
        scenes = sorted({q.scene_id for q in self.queries})
        return {
            **self.truth_inputs,
            "scenes": {f"{s}_aligned_bbox.npy": file_fingerprint(box_path(self.scenes, s)) for s in scenes},
        }

    def _sample(self, q: Query) -> ModelSample:
        return ModelSample(q.sample_id, q.scene_id, "multi_target_grounding", "boxes", q.description)

    def samples(self) -> list[ModelSample]:
        return [self._sample(q) for q in self.queries]

    def train(self) -> list[tuple[ModelSample, Prediction]]:
        return [(self._sample(q), TextPrediction(q.sample_id, text=q.object_name)) for q in self.train_queries]

    def scene(self, scene_id: str) -> SceneView:
        return scannet_scene(self.scenes, scene_id, {o: n for (sc, o), n in self.names.items() if sc == scene_id})

    def truth(self, sample: ModelSample) -> Prediction:
        q = self.by_id[sample.sample_id]
        if q.scene_id not in self._boxes:  # truth is asked per sample: read each scene's table once
            self._boxes = {q.scene_id: load_minmax_boxes(self.scenes, q.scene_id)}
        ids, boxes = self._boxes[q.scene_id]
        rows = np.flatnonzero(np.isin(ids, q.object_ids))
        cs = minmax_to_center_size(boxes[rows]).tolist()
        return BoxesPrediction(q.sample_id, boxes=[LabelledBox(q.object_name, [float(v) for v in b]) for b in cs])

    def write_predictions(self, predictions: Mapping[str, Prediction], samples: Sequence[ModelSample], folder: Path) -> Path:
        recs = []
        for m in samples:
            p, q = predictions[m.sample_id], self.by_id[m.sample_id]
            if isinstance(p, BoxesPrediction):  # free text has no boxes: the scorer counts the query as missing
                mm = center_size_to_minmax(np.asarray([b.box for b in p.boxes], dtype=float).reshape(-1, 6))
                recs.append({"scene_id": q.scene_id, "ann_id": q.ann_id, "aabb": [corners(b) for b in mm]})
        path = Path(folder) / self.predictions_name
        atomic_write_text(path, json.dumps(recs))
        return path

    def scoring_job(self, predictions_path: Path, samples: Sequence[ModelSample], *, protocol: str, **options: Any) -> ScoringJob:
        chosen = {m.sample_id for m in samples}
        return make_job([q for q in self.queries if q.sample_id in chosen], self.truth_inputs, self.scenes, predictions_path, protocol)
