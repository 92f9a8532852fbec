"""Evaluator lineages: any benchmark may declare the evaluators whose ``official`` numbers differ
(``BenchmarkSpec.lineages``); ``--protocol official:<lineage>`` selects one, plain ``official`` is
the first, and ``results.json`` and every table name the lineage."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest

from scenebench import cli
from scenebench.declarations import catalog
from scenebench.errors import InputError
from scenebench.protocol import accepted, parse_protocol, resolve_protocol
from scenebench.results import Results

LINEAGES = ("original", "lenient")


def test_parse_protocol_with_and_without_lineages():
    assert parse_protocol("strict", LINEAGES) == ("strict", None)
    assert parse_protocol("official", LINEAGES) == ("official", "original")  # plain official = the first lineage
    assert parse_protocol("official:lenient", LINEAGES) == ("official", "lenient")
    assert resolve_protocol("official", LINEAGES) == "official:original"
    assert resolve_protocol("official") == "official" and resolve_protocol("strict") == "strict"
    assert accepted(LINEAGES) == ("strict", "official", "official:original", "official:lenient")


@pytest.mark.parametrize(
    "value, lineages, hint",
    [
        ("official:lenient", (), "expected strict or official"),  # a benchmark without lineages
        ("official:lenent", LINEAGES, "did you mean official:lenient?"),
        ("strict:lenient", LINEAGES, "expected strict, official, official:original, official:lenient"),
        ("official:", LINEAGES, "official:original"),
    ],
)
def test_an_unknown_lineage_names_the_accepted_values(value, lineages, hint):
    with pytest.raises(InputError) as err:
        parse_protocol(value, lineages)
    assert f"unknown protocol {value!r}" in str(err.value) and hint in str(err.value)


def test_results_record_the_lineage_and_refuse_a_malformed_protocol(tmp_path):
    res = Results(benchmark="x", protocol="official:lenient", metrics={"overall": {}})
    res.save(tmp_path / "results.json")
    back = Results.load(tmp_path / "results.json")
    assert back.protocol == "official:lenient" and back.lineage == "lenient"
    assert Results(benchmark="x", protocol="strict", metrics={}).lineage is None
    with pytest.raises(ValueError, match="results schema"):
        Results(benchmark="x", protocol="loose", metrics={}).save(tmp_path / "bad.json")


# A benchmark whose two evaluators disagree: ``original`` counts an exact answer, ``lenient`` also
# an answer off by one.
LINEAGE_FILES = {
    "__init__.py": "",
    "spec.py": """
        from scenebench.declarations.types import BenchmarkSpec, Input

        SPEC = BenchmarkSpec(
            name="lineagebench",
            info="lineagebench.info:INFO",
            scorer="lineagebench.scorer:prepare_scoring",
            inputs=(Input("data", "truth", "file", "answers"), Input("predictions", "predictions", "file", "answers")),
            lineages=("original", "lenient"),
        )
    """,
    "info.py": """
        from scenebench.declarations.types import BenchmarkInfo, MetricDoc

        INFO = BenchmarkInfo("lineagebench", "Lineages", "none", "numbers", (MetricDoc("accuracy", "hits", "none.md"),))
    """,
    "scorer.py": """
        import json

        from scenebench.metrics.jobs import ScoringJob
        from scenebench.io.files import file_fingerprint
        from scenebench.metrics.aggregate import Mean
        from scenebench.metrics.records import SampleScore, summarize_scores
        from scenebench.protocol import parse_protocol

        def read(path):
            return json.loads(open(path).read())

        class S:
            benchmark = "lineagebench"

            def __init__(self, truth, preds, protocol, slack):
                self.truth, self.preds, self.protocol, self.slack = truth, preds, protocol, slack

            def sample_ids(self):
                return list(self.truth)

            def iter_scores(self, skip):
                yield [
                    SampleScore(k, "s0", "scored", {"hit": float(abs(self.preds[k] - v) <= self.slack)})
                    for k, v in self.truth.items() if k not in skip
                ]

        def prepare_scoring(*, protocol, data, predictions, n_resamples=0, seed=0):
            _, lineage = parse_protocol(protocol, ("original", "lenient"))
            inputs = {"truth": file_fingerprint(data), "predictions": file_fingerprint(predictions)}

            def summarize(records, run):
                s = summarize_scores(records, (Mean("accuracy", "hit", 100.0),), n_resamples=0)
                return s.to_results("lineagebench", protocol, inputs=inputs)

            scorer = S(read(data), read(predictions), protocol, 1 if lineage == "lenient" else 0)
            return ScoringJob("lineagebench", protocol, scorer, summarize, inputs=inputs)
    """,
}


@pytest.fixture
def lineage_bench(tmp_path, monkeypatch):
    pkg = tmp_path / "plugins" / "lineagebench"
    pkg.mkdir(parents=True)
    for name, text in LINEAGE_FILES.items():
        (pkg / name).write_text(textwrap.dedent(text))
    monkeypatch.syspath_prepend(str(pkg.parent))
    monkeypatch.setattr(catalog, "_REGISTERED", [])
    from lineagebench.spec import SPEC

    catalog.register(SPEC)
    truth, preds = tmp_path / "truth.json", tmp_path / "preds.json"
    truth.write_text(json.dumps({"a": 1, "b": 2, "c": 3, "d": 4}))
    preds.write_text(json.dumps({"a": 1, "b": 3, "c": 5, "d": 4}))  # 2 exact, 1 off by one, 1 off by two
    yield truth, preds
    for mod in [m for m in sys.modules if m == "lineagebench" or m.startswith("lineagebench.")]:
        del sys.modules[mod]


def test_each_lineage_scores_and_is_named_in_results_and_tables(lineage_bench, tmp_path, capsys):
    truth, preds = lineage_bench
    got = {}
    for proto in ("strict", "official", "official:lenient"):
        out = tmp_path / proto.replace(":", "-")
        cli.main(
            ["score", "lineagebench", "--data", str(truth), "--predictions", str(preds), "--out", str(out), "--no-progress"]
            + ["--protocol", proto]
        )
        printed = " ".join(capsys.readouterr().out.split())  # the title may wrap
        res = json.loads((out / "results.json").read_text())
        got[res["protocol"]] = res["metrics"]["overall"]["accuracy"]
        assert f"protocol: {res['protocol']}" in printed  # the console table names the lineage
        cli.main(["report", str(out), "--markdown"])
        assert res["protocol"] in " ".join(capsys.readouterr().out.split())  # and so does the report's table
    assert got == {"strict": 50.0, "official:original": 50.0, "official:lenient": 75.0}
    with pytest.raises(SystemExit):
        cli.main(["score", "lineagebench", "--data", str(truth), "--predictions", str(preds), "--protocol", "official:nope"])
    assert "official:lenient" in capsys.readouterr().err
