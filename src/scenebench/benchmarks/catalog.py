"""Every benchmark scenebench knows, declared once. Adding a benchmark = one entry here + its package.

The tables other layers need are derived from the declarations (never written by hand), and read
them on every lookup:

- ``scenebench list`` and the docs: :data:`BENCHMARKS` (``info``);
- the CLI's command modules: :func:`command_modules`, :func:`command_index`;
- ``scenebench run``'s run sources: ``table("source")`` (:mod:`scenebench.models.sources.base`);
- the report's 3D views and paper layouts: ``table("view")``, ``table("layout")``.

The declarations are :data:`SPECS` (the built-in benchmarks), then any declared in this process
with :func:`register`, then those of installed packages: an entry point in the
``scenebench.benchmarks`` group naming a :class:`BenchmarkSpec` (``toybench = "toybench.spec:SPEC"``).
Entry points are read only when a name is not built in (``scenebench score rio`` never reads them).

Only strings live here: nothing is imported until a benchmark is used.
"""

from __future__ import annotations

import functools
from typing import Any

from scenebench.benchmarks.base import BenchmarkSpec
from scenebench.errors import ScenebenchError
from scenebench.registry import Registry


def entry_points(**selection: Any) -> Any:
    """``importlib.metadata.entry_points``, imported on first use (~25 ms of every start-up otherwise)."""
    from importlib.metadata import entry_points as _entry_points

    return _entry_points(**selection)


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

ENTRY_POINT_GROUP = "scenebench.benchmarks"
_REGISTERED: list[BenchmarkSpec] = []
_KINDS = {
    "info": "benchmark",
    "scorer": "benchmark scorer",
    "source": "run source",
    "view": "3D view builder",
    "layout": "results layout",
    "loader": "benchmark loader",
    "predictions": "prediction reader",
}


def register(spec: BenchmarkSpec) -> None:
    """Declare a benchmark from outside scenebench (a notebook, a test) for this process.

    Installed packages use the ``scenebench.benchmarks`` entry point instead, which also reaches the
    ``scenebench`` command. Declaring the same spec twice is harmless; another spec under a taken
    name is an error.
    """
    if not isinstance(spec, BenchmarkSpec):
        raise ScenebenchError(f"register() takes a BenchmarkSpec, got {type(spec).__name__}")
    known = {s.name: s for s in specs()}
    if spec.name in known:
        if known[spec.name] != spec:
            raise ScenebenchError(f"benchmark '{spec.name}' is already declared (commands: {known[spec.name].commands})")
        return
    _REGISTERED.append(spec)


@functools.cache
def _entry_point_specs() -> tuple[BenchmarkSpec, ...]:
    out = []
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            spec = ep.load()
        except Exception as exc:  # a broken plugin is named, not a traceback from importlib
            raise ScenebenchError(f"benchmark entry point '{ep.name}' ({ep.value}) cannot be loaded: {exc}") from None
        if not isinstance(spec, BenchmarkSpec) or spec.name != ep.name:
            raise ScenebenchError(f"benchmark entry point '{ep.name}' ({ep.value}) must name a BenchmarkSpec with name='{ep.name}'")
        out.append(spec)
    return tuple(out)


def specs(*, plugins: bool = True) -> tuple[BenchmarkSpec, ...]:
    """Every declaration: built-in, then registered, then (``plugins``) installed entry points.
    A built-in or registered name wins over an entry point of the same name."""
    own = (*SPECS, *_REGISTERED)
    if not plugins:
        return own
    taken = {s.name for s in own}
    return (*own, *(s for s in _entry_point_specs() if s.name not in taken))


def names() -> list[str]:
    return [s.name for s in specs()]


def get_spec(name: str) -> BenchmarkSpec:
    for plugins in (False, True):  # entry points are read only for a name that is not built in
        found = [s for s in specs(plugins=plugins) if s.name == name]
        if found:
            return found[0]
    raise ScenebenchError(f"unknown benchmark '{name}'; known: {', '.join(names())}")


def _declared(field: str) -> dict[str, str]:
    return {s.name: path for s in specs() if (path := getattr(s, field)) is not None}


def table(field: str) -> Registry:
    """A lazy registry ``benchmark name -> the object at its spec's ``field`` path`` (benchmarks without
    one are absent). It reads the declarations on every lookup, so a benchmark registered later is in it."""
    return Registry(_KINDS.get(field, field), declared=functools.partial(_declared, field))


def command_modules(*, plugins: bool = True) -> list[str]:
    return [s.commands for s in specs(plugins=plugins)]


def command_index(*, plugins: bool = True) -> dict[tuple[str, str], str]:
    """``(group, command) -> module`` for ``score``/``validate`` of each benchmark: the CLI imports only
    that module for such a command line (start-up is part of every scoring run)."""
    all_specs = specs(plugins=plugins)
    pairs = ((s, (group, s.name)) for s in all_specs for group in ("score", "validate"))
    extra = ((s, pair) for s in all_specs for pair in s.extra_commands)
    return {pair: s.commands for s, pair in (*pairs, *extra)}


BENCHMARKS = table("info")
