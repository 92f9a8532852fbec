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
from pathlib import Path
from typing import Any

from scenebench.declarations.catalog import table
from scenebench.errors import ScenebenchError
from scenebench.io.files import sha256_file
from scenebench.report.runs import LoadedRun

VIEW_BUILDERS = table("view")  # derived from the benchmark declarations


@dataclass(frozen=True)
class ViewOptions:
    max_scene_points: int = 30000  # per scene, for the viewer only
    max_layer_points: int = 4000  # per overlay cloud (a mask, a moved object)
    max_total_points: int = 1_000_000  # all scenes of a run together; many scenes get fewer points each
    seed: int = 0


@dataclass
class ViewSet:
    scenes: dict[str, dict[str, Any]] = field(default_factory=dict)  # scene key -> scene payload
    views: dict[str, dict[str, Any]] = field(default_factory=dict)  # sample id -> view payload
    notes: list[str] = field(default_factory=list)
    # sample id -> text a benchmark's score records do not keep (question, answer, model output),
    # read back from the run's inputs for the sample browser; any sample, not only those with a view
    details: dict[str, dict[str, Any]] = field(default_factory=dict)


def run_inputs(run: LoadedRun) -> dict[str, Any]:
    return dict(run.results.inputs or run.meta.get("inputs") or {})


def checked_input(entry: Any, what: str) -> Path:
    """The path of a recorded input, refusing a file that is gone or changed since the run was scored.

    Views drawn from a changed file would show a ground truth or prediction that did not produce
    the numbers next to them.
    """
    if not isinstance(entry, dict) or "path" not in entry:
        raise ScenebenchError(f"the run does not record where its {what} are")
    path = Path(entry["path"])
    if not path.is_file():
        hint = " (a relative path: run the report from the folder the run was scored in)" if not path.is_absolute() else ""
        raise ScenebenchError(f"{what} file {path} (recorded in the run) no longer exists{hint}")
    want = entry.get("sha256")
    if want and sha256_file(path) != want:
        raise ScenebenchError(f"{what} file {path} changed since the run was scored (sha256 differs)")
    return path


def build_views(run: LoadedRun, sample_ids: list[str], opts: ViewOptions = ViewOptions()) -> ViewSet:
    """3D views of ``sample_ids`` for ``run``; never raises for missing or moved data, says so instead."""
    if run.benchmark not in VIEW_BUILDERS:
        return ViewSet(notes=[f"no 3D viewer for benchmark '{run.benchmark}'"])
    builder = VIEW_BUILDERS.get(run.benchmark)
    try:
        return builder(run, sample_ids, opts)
    except (ScenebenchError, OSError) as exc:
        return ViewSet(notes=[f"3D views unavailable: {exc}"])
