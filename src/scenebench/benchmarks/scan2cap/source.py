"""Scan2Cap for ``scenebench run``, in the **oracle-box** setting: each described object's ground-truth
box in, a caption out.

A text model has no detector, so ``run`` gives it the box (LEO's ``pc_type=gt`` mode) and writes
``pred.json`` with that box and the caption: every object is matched at IoU 1 and the numbers measure
captioning alone. ``results.json`` says so (``settings.boxes``): they are not m@kIoU of a detector and
must not be put beside such numbers.

Data folder (``--data``): ``ScanRefer_filtered_val.json`` (the described objects) and ``scannet_data/``
with ``<scene_id>_aligned_bbox.npy`` (+ ``_aligned_vert.npy`` and ``_ins_label.npy`` for models that
look at the scene).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.errors import InputError
from scenebench.geometry.boxes import minmax_to_center_size
from scenebench.io.files import atomic_write_text, file_fingerprint
from scenebench.io.scannet import SCENES, box_path, corners_of_minmax, load_minmax_boxes
from scenebench.metrics.jobs import ScoringJob
from scenebench.models.base import ModelSample, SceneView
from scenebench.models.predictions import Prediction, TextPrediction
from scenebench.models.sources.base import scannet_scene

from .data import DescribedObject, load_objects
from .scorer import make_job

VAL = "ScanRefer_filtered_val.json"


class Scan2CapSource:
    benchmark = "scan2cap"
    predictions_name = "pred.json"

    def __init__(self, data: str) -> None:
        self.root = Path(data)
        if not (self.root / VAL).is_file():
            raise InputError(self.root / VAL, "does not exist", expected="a Scan2Cap data folder")
        self.scenes = self.root / SCENES
        self.objects = load_objects(self.root / VAL)
        self.truth_inputs = {"annotations": file_fingerprint(self.root / VAL)}
        self.by_id = {o.sample_id: o for o in self.objects}

    def spec(self) -> dict[str, Any]:
        return {"data": str(self.root)}

    def inputs(self) -> dict[str, Any]:
        return {
            **self.truth_inputs,
            "scenes": {s: file_fingerprint(box_path(self.scenes, s)) for s in sorted({o.scene_id for o in self.objects})},
        }

    @functools.cache  # noqa: B019 - one source per run: each scene's table is read once
    def gt_box(self, scene_id: str, object_id: int) -> np.ndarray | None:
        ids, boxes = load_minmax_boxes(self.scenes, scene_id)
        rows = np.flatnonzero(ids == object_id)
        return boxes[rows[0]] if len(rows) else None

    def _sample(self, o: DescribedObject) -> ModelSample:
        box = self.gt_box(o.scene_id, o.object_id)
        cs = [] if box is None else [round(float(v), 3) for v in minmax_to_center_size(box)]
        return ModelSample(o.sample_id, o.scene_id, "dense_captioning", "text", f"Describe the object in the box {cs}.", inputs={"box": cs})

    def samples(self) -> list[ModelSample]:
        return [self._sample(o) for o in self.objects]

    def train(self) -> list[tuple[ModelSample, Prediction]]:
        return []

    def scene(self, scene_id: str) -> SceneView:
        return scannet_scene(
            self.scenes, scene_id, {o.object_id: o.object_name.replace("_", " ") for o in self.objects if o.scene_id == scene_id}
        )

    def truth(self, sample: ModelSample) -> Prediction:
        # the first description as its token sequence ("... window ."): a Scan2Cap model emits tokens,
        # and the lineages that score whitespace tokens compare them with the released token lists
        return TextPrediction(sample.sample_id, text=" ".join(self.by_id[sample.sample_id].tokens[0]))

    def write_predictions(self, predictions: Mapping[str, Prediction], samples: Sequence[ModelSample], folder: Path) -> Path:
        out: dict[str, list[dict[str, Any]]] = {}
        for m in samples:
            p, o = predictions[m.sample_id], self.by_id[m.sample_id]
            box = self.gt_box(o.scene_id, o.object_id)
            if isinstance(p, TextPrediction) and box is not None:
                out.setdefault(o.scene_id, []).append({"caption": " ".join(p.text.split()), "box": corners_of_minmax(box)})
        path = Path(folder) / self.predictions_name
        atomic_write_text(path, json.dumps(out))
        return path

    def scoring_job(self, predictions_path: Path, samples: Sequence[ModelSample], *, protocol: str, **options: Any) -> ScoringJob:
        chosen = {m.sample_id for m in samples}
        objs = [o for o in self.objects if o.sample_id in chosen]
        meteor = bool(options.get("meteor", False))
        return make_job(objs, self.truth_inputs, self.scenes, predictions_path, protocol, oracle_boxes=True, meteor=meteor)
