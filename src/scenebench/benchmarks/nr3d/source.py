"""Nr3D / Sr3D for ``scenebench run``: an utterance in, one of the scan's objects out.

Data folder (``--data``): ``nr3d.csv`` (``sr3d.csv``), ``test_scans.txt`` (when there: the scans
evaluated, a JSON list as ReferIt3D ships it; else every row), and ``scannet_data/`` with the ScanNet
preprocessed ``<scan_id>_aligned_bbox.npy`` (the scan's objects), ``_aligned_vert.npy`` and
``_ins_label.npy``. A model sees the utterance and the scan's objects as options
(``"object <id>: <class>"``, answer kind ``option``); every object is given, the model only chooses.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from scenebench.errors import InputError
from scenebench.io.files import atomic_write_text, file_fingerprint
from scenebench.io.scannet import SCENES, box_path, load_boxes
from scenebench.metrics.jobs import ScoringJob
from scenebench.models.base import ModelSample, SceneView
from scenebench.models.predictions import OptionPrediction, Prediction, TextPrediction
from scenebench.models.sources.base import scannet_scene

from .data import Utterance
from .scorer import make_job, truth


class _ReferIt3DSource:
    benchmark = ""
    csv = ""

    def __init__(self, data: str) -> None:
        self.root = Path(data)
        if not (self.root / self.csv).is_file():
            raise InputError(self.root / self.csv, "does not exist", expected=f"a {self.benchmark} data folder")
        scans = self.root / "test_scans.txt"
        self.utterances, self.truth_inputs = truth(self.root / self.csv, scans if scans.is_file() else None)
        self.by_id = {u.sample_id: u for u in self.utterances}
        self.scenes = self.root / SCENES
        self.labels: dict[tuple[str, int], str] = {}
        for u in self.utterances:
            self.labels.update({(u.scan_id, o): u.instance_type for o in (u.target_id, *u.distractor_ids)})

    @property
    def predictions_name(self) -> str:
        return f"{self.benchmark}_predictions.json"

    def spec(self) -> dict[str, Any]:
        return {"data": str(self.root)}

    def inputs(self) -> dict[str, Any]:
        scans = sorted({u.scan_id for u in self.utterances})
        return {**self.truth_inputs, "scenes": {s: file_fingerprint(box_path(self.scenes, s)) for s in scans}}

    @functools.cache  # noqa: B019 - one source per run; the object ids of a scan are read once
    def object_ids(self, scan_id: str) -> tuple[int, ...]:
        return tuple(int(v) for v in load_boxes(self.scenes, scan_id)[:, 7])

    def _options(self, scan_id: str) -> tuple[str, ...]:
        return tuple(f"object {o}: {self.labels.get((scan_id, o), 'object')}" for o in self.object_ids(scan_id))

    def samples(self) -> list[ModelSample]:
        return [
            ModelSample(u.sample_id, u.scan_id, "object_identification", "option", u.utterance, self._options(u.scan_id))
            for u in self.utterances
        ]

    def train(self) -> list[tuple[ModelSample, Prediction]]:
        return []

    def scene(self, scene_id: str) -> SceneView:
        return scannet_scene(self.scenes, scene_id, {o: n for (sc, o), n in self.labels.items() if sc == scene_id})

    def truth(self, sample: ModelSample) -> Prediction:
        u: Utterance = self.by_id[sample.sample_id]
        ids = self.object_ids(u.scan_id)
        index = ids.index(u.target_id) if u.target_id in ids else -1
        return OptionPrediction(u.sample_id, index=index, option=sample.options[index] if index >= 0 else "")

    def write_predictions(self, predictions: Mapping[str, Prediction], samples: Sequence[ModelSample], folder: Path) -> Path:
        recs: list[dict[str, Any]] = []
        for m in samples:
            p, u = predictions[m.sample_id], self.by_id[m.sample_id]
            ids = self.object_ids(u.scan_id)
            if isinstance(p, OptionPrediction) and 0 <= p.index < len(ids):
                recs.append({"sample_id": u.sample_id, "pred_id": ids[p.index]})
            elif isinstance(p, TextPrediction):
                recs.append({"sample_id": u.sample_id, "pred": p.text})
        path = Path(folder) / self.predictions_name
        atomic_write_text(path, json.dumps(recs))
        return path

    def scoring_job(self, predictions_path: Path, samples: Sequence[ModelSample], *, protocol: str, **options: Any) -> ScoringJob:
        chosen = {m.sample_id for m in samples}
        return make_job(
            self.benchmark, [u for u in self.utterances if u.sample_id in chosen], self.truth_inputs, predictions_path, protocol,
            boxes=self.scenes,
        )  # fmt: skip


class Nr3dSource(_ReferIt3DSource):
    benchmark = "nr3d"
    csv = "nr3d.csv"


class Sr3dSource(_ReferIt3DSource):
    benchmark = "sr3d"
    csv = "sr3d.csv"
