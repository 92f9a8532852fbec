"""Every benchmark scenebench knows, declared once. Adding a benchmark = one entry here + its package.

The tables other layers need are derived from :data:`SPECS` (never written by hand):

- ``scenebench list`` and the docs: :data:`BENCHMARKS` (``info``);
- the CLI's command modules: :func:`command_modules`, :func:`command_index`;
- ``scenebench run``'s run sources: ``table("source")`` (:mod:`scenebench.models.sources.base`);
- the report's 3D views and paper layouts: ``table("view")``, ``table("layout")``.

Only strings live here: nothing is imported until a benchmark is used.
"""

from __future__ import annotations

from scenebench.benchmarks.base import BenchmarkSpec
from scenebench.errors import ScenebenchError
from scenebench.registry import Registry

SPECS: tuple[BenchmarkSpec, ...] = (
    BenchmarkSpec(
        name="surprise3d",
        info="scenebench.benchmarks.surprise3d.info:INFO",
        loader="scenebench.benchmarks.surprise3d.annotations:load_annotations",
        predictions="scenebench.benchmarks.surprise3d.predictions:read_predictions",
        scorer="scenebench.benchmarks.surprise3d.scorer:prepare_scoring",
        commands="scenebench.benchmarks.surprise3d.cli",
        source="scenebench.benchmarks.surprise3d.source:Surprise3DSource",
        view="scenebench.benchmarks.surprise3d.view:build_views",
        layout="scenebench.benchmarks.surprise3d.layout:LAYOUT",
    ),
    BenchmarkSpec(
        name="3dbench",
        info="scenebench.benchmarks.bench3d.info:INFO",
        loader="scenebench.benchmarks.bench3d.loader:load_bench",
        predictions="scenebench.benchmarks.bench3d.predictions:read_answers",
        scorer="scenebench.benchmarks.bench3d.run:prepare_scoring",
        commands="scenebench.benchmarks.bench3d.cli",
        source="scenebench.benchmarks.bench3d.source:Bench3DSource",
        view="scenebench.benchmarks.bench3d.view:build_views",
        layout="scenebench.benchmarks.bench3d.layout:LAYOUT",
    ),
    BenchmarkSpec(
        name="rio",
        info="scenebench.benchmarks.rio.info:INFO",
        loader="scenebench.benchmarks.rio.loader:ThreeRScan",
        predictions="scenebench.benchmarks.rio.predictions:read_pose_predictions",
        scorer="scenebench.benchmarks.rio.scorer:prepare_scoring",
        commands="scenebench.benchmarks.rio.cli",
        source="scenebench.benchmarks.rio.source:RIOSource",
        view="scenebench.benchmarks.rio.view:build_views",
        layout="scenebench.benchmarks.rio.layout:LAYOUT",
        extra_commands=(("score", "rio-matching"),),
    ),
)

_BY_NAME = {s.name: s for s in SPECS}
_KINDS = {
    "info": "benchmark",
    "scorer": "benchmark scorer",
    "source": "run source",
    "view": "3D view builder",
    "layout": "results layout",
    "loader": "benchmark loader",
    "predictions": "prediction reader",
}


def names() -> list[str]:
    return [s.name for s in SPECS]


def get_spec(name: str) -> BenchmarkSpec:
    if name not in _BY_NAME:
        raise ScenebenchError(f"unknown benchmark '{name}'; known: {', '.join(names())}")
    return _BY_NAME[name]


def table(field: str) -> Registry:
    """A lazy registry ``benchmark name -> the object at its spec's ``field`` path`` (benchmarks without one are absent)."""
    reg = Registry(_KINDS.get(field, field))
    for s in SPECS:
        path = getattr(s, field)
        if path is not None:
            reg.register(s.name, path)
    return reg


def command_modules() -> list[str]:
    return [s.commands for s in SPECS]


def command_index() -> dict[tuple[str, str], str]:
    """``(group, command) -> module`` for ``score``/``validate`` of each benchmark: the CLI imports only
    that module for such a command line (start-up is part of every scoring run)."""
    pairs = ((s, (group, s.name)) for s in SPECS for group in ("score", "validate"))
    extra = ((s, pair) for s in SPECS for pair in s.extra_commands)
    return {pair: s.commands for s, pair in (*pairs, *extra)}


BENCHMARKS = table("info")
