"""RIO on 3RScan for ``scenebench run``: re-localize each reference instance in a rescan (6DoF pose).

``--data`` is a 3RScan root (``3RScan.json``, ``objects.json``, one folder per scan); ``split``
chooses the rescans (``validation`` by default; test ground truth is hidden). One sample per
changed reference instance, i.e. listed in ``rigid[]`` (``scope="all"`` adds the static ones);
non-rigid and unannotated instances are excluded by the scorer and asked of no model. The samples
of one rescan form one batch.

A model gets ``task="relocalization"``, answer kind ``pose``, ``query`` naming the object, and
``inputs``: ``rescan``, ``reference`` (scan id), ``instance`` (reference instance id), ``label``,
``reference_center`` (the instance's centre in the reference frame, metres) and ``up_axis`` = 2 (+Z).
The scene (one per rescan) offers ``points``/``colors`` = the rescan cloud moved into the reference
frame with the index's ``scans[].transform`` (where poses are expressed), ``reference_points``,
``reference_colors`` and ``reference_instance_ids`` (the reference scan, its instance labels), and
``objects`` = the reference instances (label, box). The rescan's own instance labels are never
exposed: they would give the answer away.

Predictions are written as ``{"rescan", "instance", "pose"}`` JSONL (row-major 4x4).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.benchmarks.rio.loader import ThreeRScan, check_scope
from scenebench.benchmarks.rio.predictions import read_pose_predictions
from scenebench.benchmarks.rio.scorer import RioScorer, build_results, scoring_settings
from scenebench.io.files import atomic_write_text, file_fingerprint
from scenebench.metrics.jobs import ScoringJob
from scenebench.models.base import ModelSample, SceneView
from scenebench.models.predictions import PosePrediction, Prediction
from scenebench.models.sources.base import instance_objects

TASK = "relocalization"


class RIOSource:
    benchmark = "rio"
    predictions_name = "rio_predictions.jsonl"

    def __init__(
        self,
        data: str,
        split: str = "validation",
        units: str = "auto",
        symmetry_codes: Mapping[str, int] | None = None,
        scope: str = "changed",
        gt: str | None = None,
    ) -> None:
        codes = {int(k): int(v) for k, v in (symmetry_codes or {}).items()}
        self.scope = check_scope(scope)
        # the ground truth (the tree of generated data) decides the samples and the score; a model gets
        # only sample inputs and scenes, whose points come from the scan folders (ScanFiles.points)
        self.data = ThreeRScan(data, units=units, symmetry_codes=codes, split=split, gt=gt)
        self.split = split
        self._kwargs: dict[str, Any] = {"data": str(data), "split": split, "units": units}
        if codes:  # JSON-able, so Ray workers rebuild the same source
            self._kwargs["symmetry_codes"] = {str(k): v for k, v in sorted(codes.items())}
        if scope != "changed":
            self._kwargs["scope"] = scope
        if gt is not None:
            self._kwargs["gt"] = str(gt)
        self.rescans = self.data.split_rescans(split)
        self._scans = self.data.scan_reader()  # what scenes read: the scan folders without the index
        self._gt = {r.scan_id: self.data.ground_truth(r, scope) for r in self.rescans}
        self._by_id = {g.sample_id: g for gts in self._gt.values() for g in gts}

    def spec(self) -> dict[str, Any]:
        return dict(self._kwargs)

    def inputs(self) -> dict[str, Any]:
        out = {"index": file_fingerprint(self.data.index_path)}
        if self.data.objects_path.exists():
            out["objects"] = file_fingerprint(self.data.objects_path)
        out["scan_files"] = self.data.scan_files_fingerprint(self.rescans)  # semseg.v2.json + PLY of every scan used
        out.update(self.data.roots())
        return out

    def samples(self) -> list[ModelSample]:
        out = []
        for r in self.rescans:
            for g in self._gt[r.scan_id]:
                if g.excluded is not None:
                    continue
                inputs = {
                    "rescan": g.rescan,
                    "reference": g.scene,
                    "instance": int(g.instance),
                    "label": g.label,
                    "reference_center": [float(v) for v in g.centroid],
                    "up_axis": 2,
                }
                query = f"Find the {g.label} (instance {g.instance} of reference scan {g.scene}) in rescan {g.rescan} and give its pose."
                out.append(ModelSample(g.sample_id, g.rescan, TASK, "pose", query, (), inputs))
        return out

    def train(self) -> list[tuple[ModelSample, Prediction]]:
        return []

    def scene(self, scene_id: str) -> SceneView:
        # The loaders close over a reader of the scan folders and the rescan's transform, never over the
        # source or the index (whose instance poses are the answers).
        scans = self._scans
        rescan = self.data.rescans[scene_id]
        T, reference = np.asarray(rescan.transform, float), rescan.scene_id
        cache: dict[str, Any] = {}

        def cloud(scan_id: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            xyz, rgb, ids = scans.points(scan_id)
            return np.array(xyz, float), np.asarray(rgb, float) / 255.0, np.array(ids)

        def rescan_cloud() -> tuple[np.ndarray, np.ndarray]:
            if "r" not in cache:
                xyz, rgb, _ = cloud(scene_id)
                cache["r"] = (xyz @ T[:3, :3].T + T[:3, 3], rgb)
            return cache["r"]

        def reference_cloud() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            if "ref" not in cache:
                cache["ref"] = cloud(reference)
            return cache["ref"]

        def objects() -> Any:
            xyz, _, ids = reference_cloud()
            labels = {int(i): scans.label(reference, int(i)) for i in np.unique(ids[ids > 0]).tolist()}
            return instance_objects(xyz, np.where(ids > 0, ids, -1), labels)

        return SceneView(
            scene_id,
            {
                "points": lambda: rescan_cloud()[0],
                "colors": lambda: rescan_cloud()[1],
                "reference_points": lambda: reference_cloud()[0],
                "reference_colors": lambda: reference_cloud()[1],
                "reference_instance_ids": lambda: reference_cloud()[2],
                "objects": objects,
                "up_axis": lambda: 2,
            },
        )

    def truth(self, sample: ModelSample) -> Prediction:
        return PosePrediction(sample.sample_id, pose=np.asarray(self._by_id[sample.sample_id].pose, float).tolist())

    def write_predictions(self, predictions: Mapping[str, Prediction], samples: Sequence[ModelSample], folder: Path) -> Path:
        import json

        lines = []
        for s in samples:
            p = predictions[s.sample_id]
            if isinstance(p, PosePrediction):
                lines.append(json.dumps({"rescan": s.inputs["rescan"], "instance": int(s.inputs["instance"]), "pose": p.pose}))
        path = Path(folder) / self.predictions_name
        atomic_write_text(path, "".join(x + "\n" for x in lines))
        return path

    def scoring_job(
        self, predictions_path: Path, samples: Sequence[ModelSample], *, protocol: str, n_resamples: int = 1000, seed: int = 0
    ) -> ScoringJob:
        chosen_rescans = {s.scene_id for s in samples}
        rescans = [r for r in self.rescans if r.scan_id in chosen_rescans]
        # Excluded instances of the chosen rescans stay in the denominator bookkeeping (listed, never scored).
        chosen = {s.sample_id for s in samples} | {g.sample_id for r in rescans for g in self._gt[r.scan_id] if g.excluded is not None}
        preds = read_pose_predictions(
            predictions_path, self.data.reference_instances(), evaluated=[r.scan_id for r in rescans], allow_empty=True
        )
        scorer = RioScorer(self.data, preds, rescans, protocol, self.scope, only=chosen)
        settings = scoring_settings(
            split=self.split,
            scope=self.scope,
            units=self.data.unit_decision,
            symmetry_codes=self._kwargs.get("symmetry_codes"),
            protocol=protocol,
            n_resamples=n_resamples,
            seed=seed,
        )
        inputs = {**self.inputs(), "predictions": file_fingerprint(predictions_path)}

        def summarize(records: list[Any], run: Any) -> Any:
            return build_results(
                records,
                protocol=protocol,
                settings=settings,
                inputs=inputs,
                extra={"n_rescans": len(rescans), "ignored_predictions_not_samples": scorer.n_predictions_not_samples()},
                n_resamples=n_resamples,
                seed=seed,
            )

        return ScoringJob(self.benchmark, protocol, scorer, summarize, settings, inputs, label="scoring rio")
