"""The commands built from a declaration: each option where it is declared, each value where it belongs."""

import pytest
import typer
from typer.testing import CliRunner

from scenebench.commands import benchmark as builder
from scenebench.declarations import BenchmarkSpec, Input, Option, catalog
from scenebench.declarations.catalog import get_spec


def _flags(spec, command):
    return {p.name: p.default.param_decls for p in builder.parameters(spec, command)}


def test_inputs_options_and_the_shared_set_land_in_their_commands():
    spec = BenchmarkSpec(
        name="toy",
        info="x:y",
        scorer="x:y",
        inputs=(Input("truth", "truth", "file", "t"), Input("predictions", "predictions", "file", "p", ("--predictions", "-p"))),
        options=(Option("k", "top k", 3, "int", commands=("score", "validate")), Option("data", "d", None, "path", commands=("run",))),
    )
    score = _flags(spec, "score")
    assert list(score)[:3] == ["truth", "predictions", "k"] and score["predictions"] == ("--predictions", "-p")
    assert {"protocol", "out", "overwrite", "bootstrap", "seed", "progress"} <= set(score) and "model" not in score
    validate = builder.parameters(spec, "validate")
    assert [p.name for p in validate] == ["truth", "predictions", "k"]
    assert validate[1].default.default is None  # predictions are optional when validating
    run = _flags(spec, "run")
    assert "truth" not in run and {"data", "model", "backend", "model_arg", "tasks"} <= set(run) and "k" not in run


def test_a_run_sends_score_options_to_the_scoring_and_the_rest_to_the_source(monkeypatch, tmp_path):
    from scenebench.runtime import execute as execute_mod

    seen = {}

    def fake_execute(benchmark, source_kwargs, options, *, score_options, echo):
        seen.update(benchmark=benchmark, source=source_kwargs, options=options, score=score_options)
        raise typer.Exit(0)

    monkeypatch.setattr(execute_mod, "execute", fake_execute)
    app = typer.Typer()
    groups = {"score": typer.Typer(), "validate": typer.Typer(), "run": typer.Typer()}
    app.add_typer(groups["run"], name="run")
    builder.register(groups, ["3dbench"])
    args = ["run", "3dbench", "--data", str(tmp_path), "--model", "oracle", "--tasks", "Counting,navigation", "--limit", "3"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert seen["source"] == {"data": str(tmp_path), "train": None, "houses": None, "objects_gt": None, "gt": None}
    assert seen["score"] == {"judge": None}  # --judge none: no judge built
    o = seen["options"]
    assert (o.model, o.limit, o.protocol, o.tasks) == ("oracle", 3, "strict", ["counting", "navigation"])  # official names mapped


def test_every_catalog_benchmark_has_the_commands_its_declaration_gives():
    for spec in catalog.specs():
        want = ["score"] + ["validate"] * (spec.validate is not None) + ["run"] * (spec.source is not None)
        assert builder.commands_of(get_spec(spec.name)) == want
    assert {"surprise3d", "3dbench", "rio"} <= {s.name for s in catalog.specs() if s.validate and s.source}


def test_an_unknown_protocol_stops_the_command_before_any_input_is_read(tmp_path):
    from scenebench.errors import ScenebenchError

    with pytest.raises(ScenebenchError, match="loose"):
        builder.score_body("rio", {"protocol": "loose", "out": None, "overwrite": False, "progress": False, "bootstrap": 0, "seed": 0})
