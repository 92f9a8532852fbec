"""``baseline:fpfh``: the RIO engineer's FPFH + RANSAC + ICP re-localization, as a model (open3d extra).

The algorithm lives in :mod:`scenebench.benchmarks.rio.fpfh_baseline`; this adapter feeds it what a
RIO scene view offers (rescan cloud in the reference frame, reference cloud with instance labels),
so it runs through ``scenebench run``, resumes, and shards on Ray like any other model. One batch is
one rescan: all its asked instances go to ``relocalize_instances`` together (static ones first use up
their rescan points, so a moved object is not matched onto an unmoved twin). Only RIO samples
(answer kind ``pose``) are answered; other benchmarks get a clear error.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

import numpy as np

from scenebench.errors import ScenebenchError
from scenebench.models.base import SceneBatch
from scenebench.models.predictions import PosePrediction, Prediction


class FPFHModel:
    name = "baseline:fpfh"

    def __init__(self, seed: int = 0, voxel: float = 0.03) -> None:
        from scenebench.benchmarks.rio.fpfh_baseline import FpfhSettings

        self.settings_ = replace(FpfhSettings(), voxel=float(voxel), seed=int(seed))
        self.status_counts: Counter[str] = Counter()  # ok / fallback_identity / too_few_points / no_points

    def settings(self) -> dict[str, Any]:
        return self.settings_.to_json()

    def predict(self, batch: SceneBatch) -> list[Prediction]:
        from scenebench.benchmarks.rio.fpfh_baseline import _o3d, relocalize_instances

        if any(s.answer_kind != "pose" for s in batch.samples):
            raise ScenebenchError("baseline:fpfh answers RIO re-localization (pose) samples only")
        _o3d().utility.random.seed(int(self.settings_.seed))
        scene = batch.scene
        ref_xyz = np.asarray(scene.get("reference_points"), float)
        ref_ids = np.asarray(scene.get("reference_instance_ids"))
        wanted = {int(s.inputs["instance"]) for s in batch.samples}
        found = relocalize_instances({i: ref_xyz[ref_ids == i] for i in sorted(wanted)}, np.asarray(scene.points, float), self.settings_)
        self.status_counts.update(r["status"] for r in found.values())
        return [
            PosePrediction(s.sample_id, pose=np.asarray(found[int(s.inputs["instance"])]["pose"], float).tolist()) for s in batch.samples
        ]
