"""``baseline:fpfh``: the RIO engineer's FPFH + RANSAC + ICP re-localization, as a model (open3d extra).

A plug-in module of the RIO package (it implements the model interface, :mod:`scenebench.models.base`),
declared by RIO's ``extra_models``, so the model registry finds it through the catalog and no shared
module names it. The algorithm lives in :mod:`.fpfh_baseline`; this adapter feeds it what a
RIO scene view offers (rescan cloud in the reference frame, reference cloud with instance labels),
so it runs through ``scenebench run``, resumes, and shards on Ray like any other model. One batch is
one rescan: all its asked instances go to ``relocalize_instances`` together (static ones first use up
their rescan points, so a moved object is not matched onto an unmoved twin). Only RIO samples
(answer kind ``pose``) are answered; other benchmarks get a clear error.

Every prediction carries the baseline's own account in ``extra``: ``status`` (``ok``,
``fallback_identity``, ``too_few_points``, ``no_points``: the last three predict the identity),
``method``, ``fitness``, ``rmse``, ``n_points`` and ``voxel`` (the object's grid, m). The runner counts the statuses and lists the
failures in ``results.json`` ``extra.model_diagnostics``, next to the seconds each rescan took.
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

    def __init__(
        self, seed: int = 0, voxel: float = 0.03, voxel_per_extent: float = 0.0, change_margin: float = 0.0, static_capture: float = 0.0
    ) -> None:
        from .fpfh_baseline import FpfhSettings

        # voxel_per_extent=0.05 (each object on a grid of 1/20 of its size), static_capture=0.05 (coarse-to-fine
        # static ICP) and change_margin=0.1 (search near changes) are opt-in: on generated data none
        # beat the single grid clearly (docs/synth.md, *FPFH on small objects*)
        self.settings_ = replace(
            FpfhSettings(),
            voxel=float(voxel),
            seed=int(seed),
            voxel_per_extent=float(voxel_per_extent),
            change_margin=float(change_margin),
            static_capture=float(static_capture),
        )

    def settings(self) -> dict[str, Any]:
        return self.settings_.to_json()

    def predict(self, batch: SceneBatch) -> list[Prediction]:
        from .fpfh_baseline import relocalize_instances

        if any(s.answer_kind != "pose" for s in batch.samples):
            raise ScenebenchError("baseline:fpfh answers RIO re-localization (pose) samples only")
        # relocalize_instances seeds Open3D and runs it on one thread: the same poses on every run
        scene = batch.scene
        ref_xyz = np.asarray(scene.get("reference_points"), float)
        ref_ids = np.asarray(scene.get("reference_instance_ids"))
        wanted = {int(s.inputs["instance"]) for s in batch.samples}
        targets = {i: ref_xyz[ref_ids == i] for i in sorted(wanted)}
        # the whole reference tells where the rescan changed, where the global search looks
        found = relocalize_instances(targets, np.asarray(scene.points, float), self.settings_, reference_points=ref_xyz)
        out: list[Prediction] = []
        for s in batch.samples:
            r = found[int(s.inputs["instance"])]
            out.append(PosePrediction(s.sample_id, pose=np.asarray(r["pose"], float).tolist(), extra=diagnostics(r)))
        return out


def diagnostics(row: dict[str, Any]) -> dict[str, Any]:
    """The small JSON account of one instance's search kept with its prediction (``Prediction.extra``)."""
    out: dict[str, Any] = {"status": row["status"], "method": row.get("method")}
    for key, digits in (("fitness", 4), ("rmse", 5)):
        v = row.get(key)
        out[key] = None if v is None or not np.isfinite(v) else round(float(v), digits)
    out["n_points"] = int(row.get("n_points", 0))
    out["voxel"] = None if row.get("voxel") is None else float(row["voxel"])
    return out
