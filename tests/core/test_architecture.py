"""The shape of the code: one declaration per benchmark, every table derived from it, no import cycles.

Import cycles are counted with grimp (the graph import-linter checks in CI), which includes imports
made inside functions: a deferred import cannot hide a cycle.
"""

import ast
import re
from pathlib import Path

import grimp  # comes with import-linter (test extra)
import pytest

from scenebench.declarations import BenchmarkInfo, BenchmarkSpec, Input, catalog
from scenebench.registry import load_object


def test_every_declared_path_imports():
    assert {"surprise3d", "3dbench", "rio"} <= set(catalog.names())  # the order is the report's section order
    for spec in catalog.specs():
        assert isinstance(spec, BenchmarkSpec) and spec.generic()
        for field, path in spec.paths().items():
            obj = load_object(path)
            assert obj is not None, (spec.name, field, path)
        assert isinstance(load_object(spec.info), BenchmarkInfo) and load_object(spec.info).name == spec.name
        assert callable(load_object(spec.scorer))
        assert catalog.package_of(spec) == f"scenebench.benchmarks.{catalog.BUILTIN[spec.name].split('.')[2]}"


def test_every_table_is_derived_from_the_declarations():
    from scenebench.cli import application
    from scenebench.models.sources.base import SOURCES
    from scenebench.report.layouts import Layout, layout_for
    from scenebench.report.views import VIEW_BUILDERS

    # Each table holds exactly the benchmarks that declare its hook: `validate`, `source`, `view` and
    # `layout` are optional (CONTRIBUTING.md), so a table is derived from who declares it.
    specs = catalog.specs()

    def declaring(field):
        return sorted(s.name for s in specs if getattr(s, field) is not None)

    assert catalog.BENCHMARKS.names() == sorted(catalog.names())
    assert SOURCES.names() == declaring("source") and VIEW_BUILDERS.names() == declaring("view")
    groups = {g.name: {c.name for c in g.typer_instance.registered_commands} for g in application().registered_groups}
    everyone = set(catalog.names())
    assert groups["score"] >= everyone
    assert groups["validate"] & everyone == set(declaring("validate"))
    assert groups["run"] & everyone == set(declaring("source"))
    for spec in specs:
        assert SOURCES.path(spec.name) == spec.source if spec.source else spec.name not in SOURCES
        assert VIEW_BUILDERS.path(spec.name) == spec.view if spec.view else spec.name not in VIEW_BUILDERS
        assert isinstance(layout_for(spec.name.upper()), Layout) == (spec.layout is not None)
    assert layout_for("no-such-benchmark") is None


def test_a_new_declaration_reaches_every_table(monkeypatch):
    # What CONTRIBUTING.md promises: one declaration, and the run sources, views and commands know it.
    toy = BenchmarkSpec(
        name="toybench",
        info="scenebench.benchmarks.rio.info:INFO",
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
    # commands/judge.py imports the runtime only inside load_judged(); the graph must still see it.
    assert "scenebench.runtime.scoring" in graph.find_modules_directly_imported_by("scenebench.commands.judge")
    details = graph.get_import_details(importer="scenebench.commands.judge", imported="scenebench.runtime.scoring")
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


# What outside the benchmark packages may name a benchmark (no folder is exempt), and why: the
# catalog lists them; the generator's settings keys and 3RScan scan-id salt keep the names they
# were published under (the manifest records the settings, every scan id of a seed hashes the
# salt: renaming them would change generated bytes); a preview draws a 3DBench navigation path
# when the house has one. Every other benchmark-specific part of the generator is the benchmark's
# own plug-in (benchmarks/<name>/synthetic.py), as a model only one benchmark answers is
# (benchmarks/rio/model.py).
NAMING_ALLOWED: dict[str, set[str] | None] = {
    "declarations/catalog.py": None,  # every name
    "synth/pipeline.py": {"rio_max_edge", "rio_continuous_symmetry_code", "bench3d"},
    "synth/rescans.py": {"scenebench-3rscan:"},  # the f-string part of scan_id()'s salt
}
SRC = Path(__file__).resolve().parents[2] / "src" / "scenebench"


def _benchmark_words() -> set[str]:
    words = set()
    for spec in catalog.specs():
        words |= {spec.name, catalog.package_of(spec).rpartition(".")[2]}
        if spec.data_folder:
            words.add(spec.data_folder)
    return {w.lower() for w in words}


def _named(text: str, words: set[str]) -> list[str]:
    """Identifiers, imported modules and string literals (not docstrings, not comments) of a module
    that name one of ``words`` as a whole word (``_`` and ``.`` separate words)."""
    pattern = re.compile(r"(?<![a-z0-9])(" + "|".join(map(re.escape, sorted(words))) + r")(?![a-z0-9])")
    tree = ast.parse(text)
    docs = {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and n.body
        and isinstance(n.body[0], ast.Expr)
        and isinstance(n.body[0].value, ast.Constant)
    }
    hits = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs:
            s = n.value
        elif isinstance(n, ast.Name):
            s = n.id
        elif isinstance(n, ast.Attribute):
            s = n.attr
        elif isinstance(n, ast.alias):
            s = n.name
        elif isinstance(n, ast.ImportFrom):
            s = n.module or ""
        elif isinstance(n, ast.FunctionDef | ast.ClassDef):
            s = n.name
        else:
            continue
        if pattern.search(s.lower().replace("_", " ")):
            hits.append(f"line {getattr(n, 'lineno', '?')}: {s[:80]!r}")
    return hits


def test_the_name_finder_finds_names_in_code_but_not_in_prose():
    words = {"toybench", "3dbench"}
    code = '"""About toybench."""\n# toybench in a comment\nPRIMARY = {"toybench": 1}\ndef run_3dbench(): pass\nx = "toybenches"\n'
    assert sorted(h.split(":")[0] for h in _named(code, words)) == ["line 3", "line 4"]


def test_no_shared_module_names_a_benchmark():
    # Benchmark knowledge lives in benchmarks/<name>/ and its declaration; a shared layer that
    # special-cases one by name is what a new benchmark would have to edit.
    words = _benchmark_words()
    own = {catalog.package_of(s).replace("scenebench.", "").replace(".", "/") + "/" for s in catalog.specs()}
    offenders = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith(tuple(own)) or (rel in NAMING_ALLOWED and NAMING_ALLOWED[rel] is None):
            continue
        allowed = NAMING_ALLOWED.get(rel) or set()
        hits = [h for h in _named(path.read_text(encoding="utf-8"), words) if ast.literal_eval(h.split(": ", 1)[1]) not in allowed]
        if hits:
            offenders[rel] = hits
    assert offenders == {}


def test_the_independence_contract_covers_every_catalog_package():
    # The contract names packages by a wildcard, not a hand-written list that a new package is missing from.
    import fnmatch
    import tomllib

    conf = tomllib.loads((SRC.parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    [contract] = [c for c in conf["tool"]["importlinter"]["contracts"] if c["type"] == "independence"]
    for spec in catalog.specs():
        assert any(fnmatch.fnmatch(catalog.package_of(spec), m) for m in contract["modules"]), spec.name
    assert all("*" in m for m in contract["modules"]), "list packages by wildcard, not by name"
