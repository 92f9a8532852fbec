"""``baseline:fpfh``: the RIO engineer's FPFH + RANSAC + ICP re-localization, as a model (open3d extra).

The algorithm lives in :mod:`scenebench.benchmarks.rio.fpfh_baseline`; this adapter feeds it what a
RIO scene view offers (rescan cloud in the reference frame, reference cloud with instance labels),
so it runs through ``scenebench run``, resumes, and shards on Ray like any other model. The rescan's
features are computed once per batch (one rescan), then every asked instance is registered against
them. Only RIO samples (answer kind ``pose``) are answered; other benchmarks get a clear error.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from scenebench.errors import ScenebenchError
from scenebench.models.base import SceneBatch
from scenebench.models.predictions import PosePrediction, Prediction


class FPFHModel:
    name = "baseline:fpfh"

    def __init__(self, seed: int = 0, voxel: float = 0.03, **_: Any) -> None:
        from scenebench.benchmarks.rio.fpfh_baseline import FpfhSettings

        self.settings_ = replace(FpfhSettings(), voxel=float(voxel), seed=int(seed))

    def settings(self) -> dict[str, Any]:
        return self.settings_.to_json()

    def predict(self, batch: SceneBatch) -> list[Prediction]:
        from scenebench.benchmarks.rio import fpfh_baseline as F

        if any(s.answer_kind != "pose" for s in batch.samples):
            raise ScenebenchError("baseline:fpfh answers RIO re-localization (pose) samples only")
        o3d = F._o3d()
        o3d.utility.random.seed(int(self.settings_.seed))
        scene = batch.scene
        target = F._cloud(np.asarray(scene.points, float), self.settings_)
        target_f = F._features(target, self.settings_)
        ref_xyz = np.asarray(scene.get("reference_points"), float)
        ref_ids = np.asarray(scene.get("reference_instance_ids"))
        out: list[Prediction] = []
        for s in batch.samples:
            pts = ref_xyz[ref_ids == int(s.inputs["instance"])]
            pose = np.eye(4) if len(pts) == 0 else F.relocalize_instance(pts, target, target_f, self.settings_)["pose"]
            out.append(PosePrediction(s.sample_id, pose=np.asarray(pose, float).tolist()))
        return out
