"""What every ``scenebench run BENCHMARK`` command does, once: check, build the source, run, score.

The commands (``scenebench.commands.run`` and each benchmark's own ``cli.py``, e.g. ``run rio``)
only parse their options and call :func:`execute`. The protocol and the model options are checked
before any data is read.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scenebench.errors import InputError
from scenebench.models.registry import check_model_options
from scenebench.models.sources.base import make_source
from scenebench.protocol import check_protocol
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


def execute(
    benchmark: str,
    source_kwargs: dict[str, Any],
    *,
    model: str,
    out: Path | None,
    tasks: list[str] | None,
    limit: int | None,
    seed: int,
    protocol: str,
    backend: str,
    address: str | None,
    scenes_per_task: int,
    max_retries: int,
    base_url: str | None,
    model_args: list[str] | None,
    overwrite: bool,
    progress: bool,
    score_options: dict[str, Any] | None = None,
    echo: Callable[[str], Any] = print,
) -> Any:
    """Check, build the run source, predict (resumably, local or Ray) and score; print how much was reused."""
    checked = check_protocol(protocol)
    options = parse_model_args(model_args)
    if base_url:
        options["base_url"] = base_url
    check_model_options(model, options)  # a misspelled --model-arg fails before any data is read
    safe = model.replace(":", "-").replace("/", "-")
    run_dir = out or default_run_dir(f"{benchmark}-{safe}", DEFAULT_RUNS_ROOT)
    source = make_source(benchmark, **source_kwargs)
    outcome = run_benchmark(
        source,
        model,
        run_dir,
        model_options=options,
        tasks=tasks,
        limit=limit,
        seed=seed,
        protocol=checked,
        backend=make_backend(backend, address, scenes_per_task, max_retries),
        overwrite=overwrite,
        progress=progress,
        score_options=score_options,
    )
    echo(f"predictions: {outcome.predicted_now} new, {outcome.reused} reused from the run folder")
    for line in diagnostics_lines(outcome.diagnostics):
        echo(line)
    return outcome
