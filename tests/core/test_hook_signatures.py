"""Every declared hook takes what the shared layers pass it.

A hook is a ``"module:attr"`` string, so neither a reader nor mypy follows ``score`` to the scorer:
this test imports every hook of every catalog benchmark and binds, to its signature, the arguments
its caller passes. For the commands those are the keywords the command builder makes from the
declaration (inputs, options, the benchmark's ``cli_values`` adapter, the shared ``protocol``,
``n_resamples``, ``seed``), so a scorer that lost or renamed a keyword fails here, not for a user.
"""

from __future__ import annotations

import inspect
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from scenebench.commands import benchmark as builder
from scenebench.declarations import BenchmarkSpec, Command, Input, Option, catalog
from scenebench.registry import load_object

# What each caller passes besides the builder's keywords (commands/audit.py, report/html.py,
# synth/pipeline.py, commands/benchmark.py's show()).
POSITIONAL = {"summary": 1, "view": 3, "synthetic_house": 1, "synthetic": 4, "cli_values": 2}
AUDIT_KEYWORDS = {"seed": 0, "split": "test", "progress": False}


def _defaults(spec: BenchmarkSpec, command: Command) -> dict[str, Any]:
    """The parsed values of ``scenebench COMMAND NAME`` with every option at its default (a
    required one given a placeholder path)."""
    out = {}
    for p in builder.parameters(spec, command):
        default = p.default.default
        out[p.name] = Path("placeholder") if default is ... else default
    return out


def _keywords(spec: BenchmarkSpec, command: Command) -> dict[str, Any]:
    """What the command body hands the benchmark: its keywords after the ``cli_values`` adapter."""
    values = _defaults(spec, command)
    kw = builder._keywords(spec, command, values)
    if command == "run":
        kw = {**kw, "tasks": None, "model_arg": None}
    with builder.adapted(spec, command, kw) as adapted:
        kw = dict(adapted)
    if command == "score":  # score_body: the shared options under the scorer's names
        kw.update(protocol="strict", n_resamples=values["bootstrap"], seed=values["seed"])
    if command == "run":  # run_body: the run source gets what is neither for scoring nor the run loop's
        to_score = {o.keyword or o.name for o in spec.options_for("run") if o.to == "score"}
        kw = {k: v for k, v in kw.items() if k not in to_score and k not in ("tasks", "model_arg")}
    return kw


def _bind(problems: list[str], spec: BenchmarkSpec, field: str, args: tuple, kwargs: dict[str, Any]) -> None:
    path = getattr(spec, field)
    try:
        inspect.signature(load_object(path)).bind(*args, **kwargs)
    except TypeError as exc:
        problems.append(f"{spec.name}.{field} ({path}): {exc}; passed {len(args)} positional, keywords {sorted(kwargs)}")


def hook_problems(spec: BenchmarkSpec) -> list[str]:
    problems: list[str] = []
    _bind(problems, spec, "scorer", (), _keywords(spec, "score"))
    if spec.validate is not None:
        _bind(problems, spec, "validate", (), _keywords(spec, "validate"))
    if spec.source is not None:
        _bind(problems, spec, "source", (), _keywords(spec, "run"))
    for field, n in POSITIONAL.items():
        if getattr(spec, field) is not None:
            _bind(problems, spec, field, (None,) * n, {})
    for field in ("audit", "audit_trained"):
        if getattr(spec, field) is not None:
            _bind(problems, spec, field, (Path("data"), Path("out")), AUDIT_KEYWORDS)
    for _, _, path in spec.extra_commands:
        assert callable(load_object(path)), path
    for _, _, path in spec.extra_models:  # --model NAME builds it with keyword options only
        assert callable(load_object(path)), path
    return problems


@pytest.mark.parametrize("name", catalog.names())
def test_every_declared_hook_takes_what_its_caller_passes(name):
    assert hook_problems(catalog.get_spec(name)) == []


def test_a_scorer_missing_a_declared_keyword_is_reported(monkeypatch):
    # A declaration whose option the scorer does not take, and a summary that wants two arguments;
    # the validator takes both keywords (by name: the builder passes keywords) and passes.
    toy = types.ModuleType("toyhooks")

    def prepare(*, data, protocol, n_resamples, seed):  # no `threshold`
        raise AssertionError("never called")

    def check(data, threshold):
        raise AssertionError("never called")

    def show(results, extra):  # the summary gets one argument
        raise AssertionError("never called")

    toy.prepare, toy.check, toy.show = prepare, check, show
    monkeypatch.setitem(sys.modules, "toyhooks", toy)
    spec = BenchmarkSpec(
        name="toyhooks",
        info="toyhooks:INFO",
        scorer="toyhooks:prepare",
        validate="toyhooks:check",
        summary="toyhooks:show",
        inputs=(Input("data", "data", "folder", "a folder"),),
        options=(Option("threshold", "a number", 0.5, "float", commands=("score", "validate")),),
    )
    problems = hook_problems(spec)
    assert [p.split(" (")[0] for p in problems] == ["toyhooks.scorer", "toyhooks.summary"]
    assert "threshold" in problems[0]
