"""The shape of the code: one declaration per benchmark, every table derived from it, no import cycles.

Import cycles are counted with grimp (the graph import-linter checks in CI), which includes imports
made inside functions: a deferred import cannot hide a cycle.
"""

import grimp  # comes with import-linter (test extra)
import pytest

from scenebench.benchmarks import catalog
from scenebench.benchmarks.base import BenchmarkInfo, BenchmarkSpec, Input
from scenebench.registry import load_object


def test_every_declared_path_imports():
    assert catalog.names() == ["surprise3d", "3dbench", "rio"]
    for spec in catalog.specs():
        assert isinstance(spec, BenchmarkSpec) and spec.generic()
        for field, path in spec.paths().items():
            obj = load_object(path)
            assert obj is not None, (spec.name, field, path)
        assert isinstance(load_object(spec.info), BenchmarkInfo) and load_object(spec.info).name == spec.name
        assert callable(load_object(spec.scorer)) and callable(load_object(spec.predictions)) and callable(load_object(spec.loader))
        assert catalog.package_of(spec) == f"scenebench.benchmarks.{catalog.BUILTIN[spec.name].split('.')[2]}"


def test_every_table_is_derived_from_the_declarations():
    from scenebench.cli import application
    from scenebench.models.sources.base import SOURCES
    from scenebench.report.layouts import Layout, layout_for
    from scenebench.report.views import VIEW_BUILDERS

    names = catalog.names()
    assert SOURCES.names() == sorted(names) and VIEW_BUILDERS.names() == sorted(names)
    assert catalog.BENCHMARKS.names() == sorted(names)
    groups = {g.name: {c.name for c in g.typer_instance.registered_commands} for g in application().registered_groups}
    for spec in catalog.specs():
        assert {spec.name} <= groups["score"] & groups["validate"] & groups["run"]
        assert SOURCES.path(spec.name) == spec.source and VIEW_BUILDERS.path(spec.name) == spec.view
        assert isinstance(layout_for(spec.name.upper()), Layout)
    assert layout_for("no-such-benchmark") is None


def test_a_new_declaration_reaches_every_table(monkeypatch):
    # What CONTRIBUTING.md promises: one declaration, and the run sources, views and commands know it.
    toy = BenchmarkSpec(
        name="toybench",
        info="scenebench.benchmarks.rio.info:INFO",
        loader="scenebench.benchmarks.rio.loader:ThreeRScan",
        predictions="scenebench.benchmarks.rio.predictions:read_pose_predictions",
        scorer="scenebench.benchmarks.rio.scorer:prepare_scoring",
        source="scenebench.benchmarks.rio.source:RIOSource",
        inputs=(Input("data", "data", "folder", "a folder"),),
    )
    from scenebench.models.sources.base import SOURCES
    from scenebench.report.views import VIEW_BUILDERS

    monkeypatch.setattr(catalog, "_REGISTERED", [toy])
    assert "toybench" in catalog.table("source") and "toybench" not in catalog.table("view")
    # The tables other layers built at import read the declarations on every lookup.
    assert "toybench" in SOURCES and SOURCES.path("toybench") == toy.source and "toybench" not in VIEW_BUILDERS
    assert catalog.command_index()[("run", "toybench")] == "scenebench.commands.benchmark#toybench"


def _cycles(graph):
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.find_modules_directly_imported_by(w)))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph("scenebench", cache_dir=None)


def test_the_graph_counts_imports_made_inside_functions(graph):
    # judges/cli.py imports the runtime only inside load_judged(); the graph must still see it.
    assert "scenebench.runtime.scoring" in graph.find_modules_directly_imported_by("scenebench.judges.cli")
    details = graph.get_import_details(importer="scenebench.judges.cli", imported="scenebench.runtime.scoring")
    assert details and all(d["line_number"] > 40 for d in details)  # not a module-level import


def test_the_cycle_finder_finds_a_cycle():
    class Fake:
        modules = {"a", "b", "c"}

        @staticmethod
        def find_modules_directly_imported_by(m):
            return {"a": {"b"}, "b": {"a"}, "c": {"a"}}[m]

    assert _cycles(Fake()) == [["a", "b"]]


def test_no_import_cycles_counting_function_level_imports(graph):
    assert _cycles(graph) == []
