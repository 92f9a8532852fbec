"""What CONTRIBUTING.md promises: a benchmark is one declaration plus its own package.

A toy benchmark package is written into a temporary folder (outside scenebench), declared with one
``BenchmarkSpec`` of data (its inputs; no command code) -- through
:func:`scenebench.declarations.catalog.register` or a ``scenebench.benchmarks`` entry point -- and
``scenebench list``, ``score`` (built from the declaration), ``report``, ``export`` and
``scenebench.score`` work with it without any other table being edited.
"""

from __future__ import annotations

import json
import sys
import textwrap

import pytest

from scenebench import cli
from scenebench.declarations import BenchmarkSpec, catalog

TOY_FILES = {
    "__init__.py": "",
    "spec.py": """
        from scenebench.declarations import BenchmarkSpec, Input

        SPEC = BenchmarkSpec(
            name="toybench",
            info="toybench.info:INFO",
            scorer="toybench.scorer:prepare_scoring",
            summary="toybench.scorer:show",
            inputs=(
                Input("data", "truth", "file", "rooms and answers (JSON)"),
                Input("predictions", "predictions", "file", "one count per sample (JSONL)"),
            ),
            primary_metric="accuracy",
        )
    """,
    "info.py": """
        from scenebench.declarations import BenchmarkInfo, MetricDoc

        INFO = BenchmarkInfo(
            name="toybench",
            title="Toy apple counting",
            paper="none (a test fixture)",
            task="count the apples in a room",
            metrics=(MetricDoc("accuracy", "exact count", "docs/metrics/none.md"),),
            protocols={"strict": "exact match"},
            groups=("room",),
        )
    """,
    "scorer.py": """
        import json
        from collections import defaultdict

        from scenebench.metrics.jobs import ScoringJob
        from scenebench.io.files import file_fingerprint
        from scenebench.metrics.aggregate import Mean
        from scenebench.metrics.records import SampleScore, summarize_scores
        from scenebench.protocol import check_protocol
        from scenebench.results import Results

        SPECS = (Mean("accuracy", "correct", scale=100.0),)


        def load_truth(path):
            return json.loads(open(path).read())


        def read_predictions(path):
            return {r["sample_id"]: r["count"] for r in map(json.loads, open(path).read().splitlines())}


        class ToyScorer:
            benchmark = "toybench"

            def __init__(self, truth, preds, protocol):
                self.truth, self.preds, self.protocol = truth, preds, protocol

            def sample_ids(self):
                return list(self.truth)

            def iter_scores(self, skip):
                by_scene = defaultdict(list)
                for sid, t in self.truth.items():
                    if sid in skip:
                        continue
                    status = "scored" if sid in self.preds else "missing"
                    value = float(self.preds.get(sid) == t["answer"])
                    by_scene[t["room"]].append(SampleScore(sid, t["room"], status, {"correct": value}, {"room": t["room"]}))
                yield from by_scene.values()


        def show(res):
            print(f"toybench accuracy {res.metrics['overall']['accuracy']:.1f}")


        def prepare_scoring(*, protocol, data, predictions, n_resamples=20, seed=0):
            checked = check_protocol(protocol)
            inputs = {"truth": file_fingerprint(data), "predictions": file_fingerprint(predictions)}

            def summarize(records, run):
                s = summarize_scores(records, SPECS, groups=("room",), n_resamples=20, seed=seed)
                return Results(
                    benchmark="toybench", protocol=checked, metrics=s.metrics, confidence_intervals=s.intervals,
                    counts=s.counts, counts_by_group=s.counts_by_group, metric_info=s.metric_info, inputs=inputs,
                )

            scorer = ToyScorer(load_truth(data), read_predictions(predictions), checked)
            return ScoringJob("toybench", checked, scorer, summarize, inputs=inputs)
    """,
}


@pytest.fixture
def toy_package(tmp_path, monkeypatch):
    """The toy package on sys.path; the catalog restored afterwards."""
    pkg = tmp_path / "plugins" / "toybench"
    pkg.mkdir(parents=True)
    for name, text in TOY_FILES.items():
        (pkg / name).write_text(textwrap.dedent(text))
    monkeypatch.syspath_prepend(str(pkg.parent))
    monkeypatch.setattr(catalog, "_REGISTERED", [])
    data = tmp_path / "truth.json"
    truth = {f"q{i}": {"room": f"room{i % 3}", "answer": i % 4} for i in range(12)}
    data.write_text(json.dumps(truth))
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps({"sample_id": k, "count": t["answer"] if k != "q5" else 9}) + "\n" for k, t in truth.items()))
    yield data, preds
    for mod in [m for m in sys.modules if m == "toybench" or m.startswith("toybench.")]:
        del sys.modules[mod]
    catalog._entry_point_specs.cache_clear()


def _list_score_report(tmp_path, data, preds, capsys):
    cli.main(["list"])
    assert "toybench: Toy apple counting" in capsys.readouterr().out
    run = tmp_path / "run"
    cli.main(["score", "toybench", "--data", str(data), "--predictions", str(preds), "--out", str(run), "--no-progress"])
    assert "toybench accuracy 91.7" in capsys.readouterr().out  # 11 of 12
    res = json.loads((run / "results.json").read_text())
    assert res["benchmark"] == "toybench" and res["counts"]["n_scored"] == 12
    cli.main(["report", str(run), "--markdown", "--html", str(tmp_path / "report.html")])
    printed = capsys.readouterr().out
    assert "toybench" in printed and "room0" in printed  # the generic long table: one row per room
    html = (tmp_path / "report.html").read_text()
    assert "toybench" in html and "no 3D viewer for benchmark" in html


def test_the_python_api_and_export_give_the_commands_numbers(toy_package, tmp_path, capsys):
    import pyarrow.parquet as pq
    from toybench.spec import SPEC

    import scenebench

    data, preds = toy_package
    catalog.register(SPEC)
    res = scenebench.score("toybench", data=str(data), predictions=preds, out=tmp_path / "api")
    assert res.protocol == "strict" and res.metrics["overall"]["accuracy"] == pytest.approx(100 * 11 / 12)
    table = res.samples()
    assert table.num_rows == 12 and table.column_names == ["sample_id", "scene_id", "status", "room", "correct", "detail"]
    rows = {r["sample_id"]: r for r in table.to_pylist()}
    assert rows["q5"]["correct"] == 0.0 and rows["q4"]["correct"] == 1.0 and rows["q4"]["room"] == "room1"
    assert scenebench.results.Results.load(tmp_path / "api").samples().equals(table)  # a loaded run knows its folder
    for fmt in ("parquet", "csv", "jsonl"):
        cli.main(["export", str(tmp_path / "api"), "--format", fmt, "--out", str(tmp_path / f"s.{fmt}")])
    assert pq.read_table(tmp_path / "s.parquet").equals(table)
    assert [json.loads(line) for line in (tmp_path / "s.jsonl").read_text().splitlines()] == table.to_pylist()
    assert (tmp_path / "s.csv").read_text().splitlines()[0] == '"sample_id","scene_id","status","room","correct","detail"'
    with pytest.raises(scenebench.errors.ScenebenchError, match="needs predictions"):
        scenebench.score("toybench", data=str(data))


def test_a_registered_benchmark_works_with_list_score_and_report(toy_package, tmp_path, capsys):
    from toybench.spec import SPEC

    data, preds = toy_package
    catalog.register(SPEC)
    catalog.register(SPEC)  # the same declaration again is harmless
    assert "toybench" in catalog.names() and catalog.command_index()[("score", "toybench")] == "scenebench.commands.benchmark#toybench"
    _list_score_report(tmp_path, data, preds, capsys)


def test_an_installed_benchmark_is_found_through_its_entry_point(toy_package, tmp_path, capsys, monkeypatch):
    class EntryPoint:
        name, value = "toybench", "toybench.spec:SPEC"

        def load(self):
            from toybench.spec import SPEC

            return SPEC

    monkeypatch.setattr(catalog, "entry_points", lambda group: [EntryPoint()] if group == catalog.ENTRY_POINT_GROUP else [])
    catalog._entry_point_specs.cache_clear()
    assert catalog.names()[-1] == "toybench" and catalog.get_spec("rio").name == "rio"
    data, preds = toy_package
    _list_score_report(tmp_path, data, preds, capsys)


def test_a_taken_name_or_a_wrong_object_is_refused(monkeypatch):
    from scenebench.errors import ScenebenchError

    monkeypatch.setattr(catalog, "_REGISTERED", [])
    clash = BenchmarkSpec(name="rio", info="x:y", scorer="x:y")
    with pytest.raises(ScenebenchError, match="'rio' is already declared"):
        catalog.register(clash)
    with pytest.raises(ScenebenchError, match="takes a BenchmarkSpec"):
        catalog.register("rio")  # type: ignore[arg-type]


def test_a_broken_entry_point_is_named(monkeypatch):
    from scenebench.errors import ScenebenchError

    class Bad:
        name, value = "badbench", "nowhere:SPEC"

        def load(self):
            raise ImportError("No module named 'nowhere'")

    monkeypatch.setattr(catalog, "entry_points", lambda group: [Bad()])
    catalog._entry_point_specs.cache_clear()
    try:
        with pytest.raises(ScenebenchError, match="entry point 'badbench' .*cannot be loaded"):
            catalog.names()
        assert catalog.get_spec("rio").name == "rio"  # built-in names never read the entry points
    finally:
        catalog._entry_point_specs.cache_clear()
