"""Per-benchmark 3D views for the HTML report's sample browser.

A view builder reads the run's own inputs (the paths and checksums in ``run.json``) with the
benchmark's loader and returns, per sample, the scene's points and overlays of the ground truth
and the prediction (:mod:`scenebench.report.viewer` payloads). Builders are registered by name,
lazily, like benchmarks, so a report of one benchmark imports nothing of the others.

A builder's signature::

    build(run: LoadedRun, sample_ids: list[str], opts: ViewOptions) -> ViewSet

When the data a run was scored on is no longer where ``run.json`` says, the report is still
written (tables, charts, samples) and says why the 3D views are missing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scenebench.errors import ScenebenchError
from scenebench.registry import Registry
from scenebench.report.runs import LoadedRun

VIEW_BUILDERS = Registry("3D view builder")


@dataclass(frozen=True)
class ViewOptions:
    max_scene_points: int = 30000  # per scene, for the viewer only
    max_layer_points: int = 4000  # per overlay cloud (a mask, a moved object)
    seed: int = 0


@dataclass
class ViewSet:
    scenes: dict[str, dict[str, Any]] = field(default_factory=dict)  # scene key -> scene payload
    views: dict[str, dict[str, Any]] = field(default_factory=dict)  # sample id -> view payload
    notes: list[str] = field(default_factory=list)


def build_views(run: LoadedRun, sample_ids: list[str], opts: ViewOptions = ViewOptions()) -> ViewSet:
    """3D views of ``sample_ids`` for ``run``; never raises for missing or moved data, says so instead."""
    if run.benchmark not in VIEW_BUILDERS:
        return ViewSet(notes=[f"no 3D viewer for benchmark '{run.benchmark}'"])
    builder = VIEW_BUILDERS.get(run.benchmark)
    try:
        return builder(run, sample_ids, opts)
    except (ScenebenchError, OSError) as exc:
        return ViewSet(notes=[f"3D views unavailable: {exc}"])
