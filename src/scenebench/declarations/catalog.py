"""Every benchmark scenebench knows, declared once. Adding a benchmark = one line here + its package.

The tables other layers need are derived from the declarations (never written by hand), and read
them on every lookup:

- ``scenebench list`` and the docs: :data:`BENCHMARKS` (``info``);
- the CLI's command modules: :func:`command_modules`, :func:`command_index`;
- ``scenebench run``'s run sources: ``table("source")`` (:mod:`scenebench.models.sources.base`);
- the report's 3D views and paper layouts: ``table("view")``, ``table("layout")``.

The declarations are :data:`BUILTIN` (the built-in benchmarks, each a :class:`BenchmarkSpec` in
``benchmarks/<name>/spec.py``, imported when the catalog is first read), then any declared in this process
with :func:`register`, then those of installed packages: an entry point in the
``scenebench.benchmarks`` group naming a :class:`BenchmarkSpec` (``toybench = "toybench.spec:SPEC"``).
Entry points are read only when a name is not built in (``scenebench score rio`` never reads them).

Only strings live here: a declaration is data, and nothing of a benchmark's code is imported until it is used.
"""

from __future__ import annotations

import functools
from typing import Any

from scenebench.declarations import BenchmarkSpec
from scenebench.errors import ScenebenchError
from scenebench.registry import Registry


def entry_points(**selection: Any) -> Any:
    """``importlib.metadata.entry_points``, imported on first use (~25 ms of every start-up otherwise)."""
    from importlib.metadata import entry_points as _entry_points

    return _entry_points(**selection)


# name -> where its declaration lives (``benchmarks/<name>/spec.py``). Adding a benchmark = one line here + its package.
BUILTIN: dict[str, str] = {
    "3dbench": "scenebench.benchmarks.bench3d.spec:SPEC",
    "surprise3d": "scenebench.benchmarks.surprise3d.spec:SPEC",
    "rio": "scenebench.benchmarks.rio.spec:SPEC",
    "scanrefer": "scenebench.benchmarks.scanrefer.spec:SPEC",
    "multi3drefer": "scenebench.benchmarks.multi3drefer.spec:SPEC",
    "nr3d": "scenebench.benchmarks.nr3d.spec:SPEC",
    "sr3d": "scenebench.benchmarks.nr3d.spec:SR3D",
    "scan2cap": "scenebench.benchmarks.scan2cap.spec:SPEC",
    "scanqa": "scenebench.benchmarks.scanqa.spec:SPEC",
    "sqa3d": "scenebench.benchmarks.sqa3d.spec:SPEC",
}


def builtin_specs() -> tuple[BenchmarkSpec, ...]:
    """The built-in declarations (each a small module of data: importing them imports no benchmark code)."""
    from scenebench.registry import load_object

    return tuple(load_object(path) for path in BUILTIN.values())


def package_of(spec: BenchmarkSpec) -> str:
    """The package a declaration belongs to (``scenebench.benchmarks.rio``): where its scorer lives."""
    return spec.scorer.partition(":")[0].rpartition(".")[0]


ENTRY_POINT_GROUP = "scenebench.benchmarks"
_REGISTERED: list[BenchmarkSpec] = []
_KINDS = {
    "info": "benchmark",
    "scorer": "benchmark scorer",
    "source": "run source",
    "view": "3D view builder",
    "layout": "results layout",
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
            raise ScenebenchError(f"benchmark '{spec.name}' is already declared (scorer: {known[spec.name].scorer})")
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
    own = (*builtin_specs(), *_REGISTERED)
    if not plugins:
        return own
    taken = {s.name for s in own}
    return (*own, *(s for s in _entry_point_specs() if s.name not in taken))


def names() -> list[str]:
    return [s.name for s in specs()]


def get_spec(name: str) -> BenchmarkSpec:
    if name in BUILTIN:  # one declaration imported, not all of them
        from scenebench.registry import load_object

        spec: BenchmarkSpec = load_object(BUILTIN[name])
        return spec
    for plugins in (False, True):  # entry points are read only for a name that is not built in
        found = [s for s in specs(plugins=plugins) if s.name == name]
        if found:
            return found[0]
    raise ScenebenchError(f"unknown benchmark '{name}'; known: {', '.join(names())}")


def find_spec(name: str) -> BenchmarkSpec | None:
    """The declaration of ``name``, or ``None`` (a results file of a benchmark not installed here,
    or of a sub-benchmark like ``rio-matching``)."""
    try:
        return get_spec(name)
    except ScenebenchError:
        return None


def _declared(field: str) -> dict[str, str]:
    return {s.name: path for s in specs() if (path := getattr(s, field)) is not None}


def table(field: str) -> Registry:
    """A lazy registry ``benchmark name -> the object at its spec's ``field`` path`` (benchmarks without
    one are absent). It reads the declarations on every lookup, so a benchmark registered later is in it."""
    return Registry(_KINDS.get(field, field), declared=functools.partial(_declared, field))


GENERIC_COMMANDS = "scenebench.commands.benchmark"


def command_modules() -> list[str]:
    """The modules whose ``register(groups)`` adds benchmark commands: the generic builder, which
    builds every declaration's (and registers their ``extra_commands``)."""
    return [GENERIC_COMMANDS]


def command_index(*, plugins: bool = True) -> dict[tuple[str, str], str]:
    """``(group, command) -> what registers it`` for each benchmark's commands: the CLI imports only
    that for such a command line (start-up is part of every scoring run). A generic command is
    ``"scenebench.commands.benchmark#NAME"`` (the builder, for that one benchmark)."""
    out: dict[tuple[str, str], str] = {}
    for s in specs(plugins=plugins):
        if not s.generic():  # no inputs: nothing to score, so no commands
            continue
        where = f"{GENERIC_COMMANDS}#{s.name}"
        # the generic builder makes validate and run only for a declared validator and run source
        groups = ["score"] + ["validate"] * (s.validate is not None) + ["run"] * (s.source is not None)
        out.update({(g, s.name): where for g in groups})
        out.update({(g, c): where for g, c, _ in s.extra_commands})
    return out


BENCHMARKS = table("info")
