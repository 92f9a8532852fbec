"""What every ``scenebench run BENCHMARK`` command does, once: check, build the source, run, score.

The commands (built from each benchmark's declaration by :mod:`scenebench.commands.benchmark`)
only parse their options and call :func:`execute` with a :class:`RunOptions`. The protocol and the model options are checked
before any data is read.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scenebench.declarations.catalog import get_spec
from scenebench.errors import InputError
from scenebench.models.registry import check_model_options
from scenebench.models.sources.base import make_source
from scenebench.protocol import resolve_protocol
from scenebench.runtime.rundir import DEFAULT_RUNS_ROOT, default_run_dir
from scenebench.runtime.runner import diagnostics_lines, run_benchmark


def parse_model_args(pairs: list[str] | None) -> dict[str, Any]:
    """``["temperature=0", "name=x"]`` -> ``{"temperature": 0, "name": "x"}`` (values read as JSON when they parse)."""
    out: dict[str, Any] = {}
    for p in pairs or []:
        key, sep, value = p.partition("=")
        if not sep or not key.strip():
            raise InputError(None, f"got {p!r}", field="--model-arg", expected="KEY=VALUE")
        try:
            out[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            out[key.strip()] = value
    return out


def make_backend(backend: str, address: str | None, scenes_per_task: int, max_retries: int) -> Any:
    """``--backend local`` (this process) or ``ray`` (shards scenes over a Ray cluster)."""
    if backend == "local":
        from scenebench.runtime.local_backend import LocalBackend

        return LocalBackend()
    if backend == "ray":
        from scenebench.runtime.ray_backend import RayBackend

        return RayBackend(address, scenes_per_task=scenes_per_task, max_retries=max_retries)
    raise InputError(None, f"got {backend!r}", field="--backend", expected="local or ray")


@dataclass(frozen=True)
class RunOptions:
    """What every ``scenebench run BENCHMARK`` takes besides the benchmark's own data options."""

    model: str
    out: Path | None = None
    tasks: list[str] | None = None
    limit: int | None = None
    seed: int = 0
    protocol: str = "strict"
    backend: str = "local"
    address: str | None = None
    scenes_per_task: int = 1
    max_retries: int = 3
    base_url: str | None = None
    model_args: list[str] | None = None
    overwrite: bool = False
    progress: bool = True


def execute(
    benchmark: str,
    source_kwargs: dict[str, Any],
    options: RunOptions,
    *,
    score_options: dict[str, Any] | None = None,
    echo: Callable[[str], Any] = print,
) -> Any:
    """Check, build the run source, predict (resumably, local or Ray) and score; print how much was reused."""
    o = options
    checked = resolve_protocol(o.protocol, get_spec(benchmark).lineages)
    model_options = parse_model_args(o.model_args)
    if o.base_url:
        model_options["base_url"] = o.base_url
    check_model_options(o.model, model_options)  # a misspelled --model-arg fails before any data is read
    safe = o.model.replace(":", "-").replace("/", "-")
    run_dir = o.out or default_run_dir(f"{benchmark}-{safe}", DEFAULT_RUNS_ROOT)
    source = make_source(benchmark, **source_kwargs)
    outcome = run_benchmark(
        source,
        o.model,
        run_dir,
        model_options=model_options,
        tasks=o.tasks,
        limit=o.limit,
        seed=o.seed,
        protocol=checked,
        backend=make_backend(o.backend, o.address, o.scenes_per_task, o.max_retries),
        overwrite=o.overwrite,
        progress=o.progress,
        score_options=score_options,
    )
    echo(f"predictions: {outcome.predicted_now} new, {outcome.reused} reused from the run folder")
    meta = outcome.run.read_meta()
    if meta.get("ground_truth_answers"):
        echo(f"note: {o.model} was handed the ground-truth answers (needs_ground_truth): a check of the evaluator, not a result")
    elif meta.get("ground_truth_perception"):
        echo(f"note: {o.model} read ground-truth annotation (objects, rooms, instance ids): an upper bound, not a perception result")
    for line in diagnostics_lines(outcome.diagnostics):
        echo(line)
    return outcome
