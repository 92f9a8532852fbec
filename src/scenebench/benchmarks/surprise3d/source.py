"""SURPRISE3D for ``scenebench run``: reasoning-segmentation questions, answered by point masks or boxes.

Data folder (``--data``): the annotation list (``surprise-3d-val.json``, else ``surprise-3d-test.json``,
else the only ``*.json`` that is not a train file; or ``annotations=`` explicitly), scenes in
``scenes/`` (else the folder itself), and optionally ``surprise-3d-train.json`` (the train split the
blind prior learns from).

What a model sees per sample: ``query`` = the description, ``task`` = the question type, answer
kind ``mask``. The scene offers ``points`` and ``colors`` (in [0, 1]); models that declare
ground-truth perception also get ``instance_ids`` (per point) and ``objects`` — one
:class:`~scenebench.models.base.SceneObject` per annotated instance (box from its points). Object
labels come from ScanNet++ ``segments_anno.json`` files (``LABELS_DIR/<scene_id>/scans/segments_anno.json``
or ``LABELS_DIR/<scene_id>.json``, read as ``segGroups[].{id, label}``): ``labels_dir`` when given,
else ``scannetpp/`` next to the annotations when it exists (where ``scenebench generate`` writes
them); without them every object is labelled ``"object"``. Scene labels are scene content, shipped
with ScanNet++; the sample's own ``object_name`` is never shown, since the task exists to stop
label shortcuts.

Train answers given to ``fit`` are the target names as :class:`TextPrediction` (train scenes are
not loaded). Predictions are written as ``{"sample_id", "mask_indices"}`` records, or
``{"sample_id", "box"}`` (min-max) for box models; a free-text prediction has no mask and is left
out, so the scorer counts it as missing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.errors import InputError, ScenebenchError
from scenebench.io.files import atomic_write_text, file_fingerprint, read_json
from scenebench.metrics.jobs import ScoringJob
from scenebench.models.base import ModelSample, SceneObject, SceneView
from scenebench.models.predictions import BoxPrediction, MaskPrediction, Prediction, TextPrediction
from scenebench.models.sources.base import instance_objects

TASK_KIND = "mask"
LABELS_FOLDER = "scannetpp"  # default labels_dir inside the data folder
TRAIN_NAMES = ("surprise-3d-train.json",)
EVAL_NAMES = ("surprise-3d-val.json", "surprise-3d-test.json")


def find_annotations(data: Path) -> Path:
    for name in EVAL_NAMES:
        if (data / name).is_file():
            return data / name
    cands = sorted(p for p in data.glob("*.json") if "train" not in p.name)
    if len(cands) == 1:
        return cands[0]
    raise InputError(data, "cannot tell which file holds the annotations", expected=f"{' or '.join(EVAL_NAMES)} (or pass --annotations)")


def labels_file(labels_dir: Path, scene_id: str) -> Path | None:
    """The scene's ``segments_anno.json`` under ``labels_dir`` (ScanNet++ layout, or flat ``<scene_id>.json``)."""
    for p in (labels_dir / scene_id / "scans" / "segments_anno.json", labels_dir / f"{scene_id}.json"):
        if p.is_file():
            return p
    return None


def read_segments_labels(labels_dir: Path, scene_id: str) -> dict[int, str]:
    """Instance labels from a ScanNet++ ``segments_anno.json`` (``segGroups[].id/label``); {} when absent."""
    p = labels_file(labels_dir, scene_id)
    if p is None:
        return {}
    doc = read_json(p, what="ScanNet++ segments_anno")
    groups = doc.get("segGroups") if isinstance(doc, dict) else None
    if not isinstance(groups, list):
        raise InputError(p, "has no segGroups list", field="segGroups", expected="a list of {id, label}")
    out = {}
    for j, g in enumerate(groups):
        if not isinstance(g, dict) or not isinstance(g.get("id"), int) or not isinstance(g.get("label"), str):
            raise InputError(p, f"group {j} lacks an integer id or a string label", field=f"segGroups[{j}]")
        out[int(g["id"])] = g["label"]
    return out


class Surprise3DSource:
    benchmark = "surprise3d"
    predictions_name = "surprise3d_predictions.jsonl"

    def __init__(
        self, data: str, annotations: str | None = None, scenes: str | None = None, train: str | None = None, labels_dir: str | None = None
    ) -> None:
        from scenebench.benchmarks.surprise3d.annotations import load_annotations

        root = Path(data)
        if not root.is_dir():
            raise InputError(root, "data folder does not exist" if not root.exists() else "is not a folder")
        self.data = str(root)
        self.ann_path = Path(annotations) if annotations else find_annotations(root)
        self.scenes_dir = Path(scenes) if scenes else (root / "scenes" if (root / "scenes").is_dir() else root)
        tr = Path(train) if train else next((root / n for n in TRAIN_NAMES if (root / n).is_file()), None)
        self.train_path = tr if tr is not None and tr.resolve() != self.ann_path.resolve() else None
        default_labels = root / LABELS_FOLDER
        self.labels_dir = Path(labels_dir) if labels_dir else (default_labels if default_labels.is_dir() else None)
        self._kwargs = {"data": self.data, "annotations": annotations, "scenes": scenes, "train": train, "labels_dir": labels_dir}
        self.annotations = load_annotations(self.ann_path)
        self._by_id = self.annotations.by_id

    def spec(self) -> dict[str, Any]:
        return dict(self._kwargs)

    def inputs(self) -> dict[str, Any]:
        out: dict[str, Any] = {"annotations": file_fingerprint(self.ann_path)}
        if self.train_path:
            out["train"] = file_fingerprint(self.train_path)
        from scenebench.benchmarks.surprise3d.scenes import scene_path

        # Scene files change the ground-truth masks (and what models see): hashed by content, every one.
        scene_ids = sorted({s.scene_id for s in self.annotations.samples})
        out["scenes"] = {sid: file_fingerprint(scene_path(self.scenes_dir, sid)) for sid in scene_ids}
        if self.labels_dir is not None:  # labels change what models see: a run made without them must not resume with them
            out["labels"] = {
                sid: file_fingerprint(p)
                for sid in sorted({s.scene_id for s in self.annotations.samples})
                if (p := labels_file(self.labels_dir, sid)) is not None
            }
        return out

    def samples(self) -> list[ModelSample]:
        return [ModelSample(s.sample_id, s.scene_id, s.question_type, TASK_KIND, s.description) for s in self.annotations.samples]

    def train(self) -> list[tuple[ModelSample, Prediction]]:
        if self.train_path is None:
            return []
        from scenebench.benchmarks.surprise3d.annotations import load_annotations

        return [
            (
                ModelSample(s.sample_id, s.scene_id, s.question_type, TASK_KIND, s.description),
                TextPrediction(s.sample_id, text="; ".join(s.object_name)),
            )
            for s in load_annotations(self.train_path).samples
        ]

    def _scene_arrays(self, scene_id: str) -> Any:
        from scenebench.benchmarks.surprise3d.scenes import load_scene

        return load_scene(self.scenes_dir, scene_id)

    def scene(self, scene_id: str) -> SceneView:
        from scenebench.benchmarks.surprise3d.scenes import load_scene, load_scene_for_scoring

        # The loaders close over paths and their own caches, never over the source (whose truth() holds
        # the answers); the sensor cache keeps coordinates and colours only, so the instance ids (ground
        # truth) are reachable from no field a model without ground-truth perception is given.
        scenes_dir, labels_dir = self.scenes_dir, self.labels_dir
        sensed: dict[str, Any] = {}
        annotated: dict[str, Any] = {}

        def arrays() -> tuple[Any, Any]:
            if "s" not in sensed:
                s = load_scene(scenes_dir, scene_id)
                sensed["s"] = (s.coords, s.colors)
            return sensed["s"]

        def instance_ids() -> Any:
            if "i" not in annotated:
                annotated["i"] = load_scene_for_scoring(scenes_dir, scene_id).instance_ids
            return annotated["i"]

        def objects() -> list[SceneObject]:
            labels = read_segments_labels(labels_dir, scene_id) if labels_dir else {}
            return instance_objects(arrays()[0], instance_ids(), labels)

        return SceneView(
            scene_id,
            {
                "points": lambda: arrays()[0],
                "colors": lambda: arrays()[1],  # in [0, 1] whatever the file held (scenes.normalise_colors)
                "instance_ids": instance_ids,
                "objects": objects,
                "up_axis": lambda: 2,
            },
        )

    def truth(self, sample: ModelSample) -> Prediction:
        ann = self._by_id[sample.sample_id]
        ids = self._scene_arrays(sample.scene_id).instance_ids
        return MaskPrediction(sample.sample_id, indices=np.flatnonzero(np.isin(ids, ann.targets)).tolist())

    def write_predictions(self, predictions: Mapping[str, Prediction], samples: Sequence[ModelSample], folder: Path) -> Path:
        import json

        from scenebench.geometry.boxes import center_size_to_minmax

        lines, kinds = [], set()
        for s in samples:
            p = predictions[s.sample_id]
            if isinstance(p, MaskPrediction):
                rec: dict[str, Any] = {"sample_id": s.sample_id, "mask_indices": p.indices}
            elif isinstance(p, BoxPrediction):
                rec = {"sample_id": s.sample_id, "box": [round(float(v), 6) for v in center_size_to_minmax(p.box)]}
            else:
                continue  # free text carries no mask: the scorer counts the sample as missing
            kinds.add("box" if "box" in rec else "mask")
            lines.append(json.dumps(rec))
        if len(kinds) > 1:
            raise ScenebenchError("the model returned masks for some samples and boxes for others; SURPRISE3D scores one kind per run")
        path = Path(folder) / self.predictions_name
        atomic_write_text(path, "".join(x + "\n" for x in lines))
        return path

    def scoring_job(self, predictions_path: Path, samples: Sequence[ModelSample], *, protocol: str, **options: Any) -> ScoringJob:
        from scenebench.benchmarks.surprise3d.annotations import Annotations
        from scenebench.benchmarks.surprise3d.scorer import Surprise3DScorer, build_results, input_fingerprints, protocol_settings

        chosen = {s.sample_id for s in samples}
        ann = Annotations(self.ann_path, [s for s in self.annotations.samples if s.sample_id in chosen])
        # The file is the run's own: empty when the model abstained on every sample, which scores 0, all missing.
        scorer = Surprise3DScorer(ann, self.scenes_dir, predictions_path, protocol=protocol, allow_empty=True)
        settings = protocol_settings(protocol, scorer.score_threshold)
        inputs = input_fingerprints(ann, self.scenes_dir, predictions_path)

        def summarize(records: list[Any], run: Any) -> Any:
            return build_results(records, annotations=ann, protocol=protocol, settings=settings, inputs=inputs)

        return ScoringJob(self.benchmark, protocol, scorer, summarize, settings, inputs, label="scoring surprise3d")
