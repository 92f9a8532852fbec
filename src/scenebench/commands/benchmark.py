"""``scenebench score|validate|run BENCHMARK``, built from each benchmark's declaration.

Every benchmark declares its inputs and options as data (:class:`~scenebench.declarations.BenchmarkSpec`);
this module turns a declaration into its three commands, with the option set shared by every
benchmark defined once here (``--protocol``, ``--out``, ``--bootstrap``, the model and backend
options of ``run``...). A command parses its options, lets the benchmark adapt the values
(``cli_values``: build a judge, parse ``CODE=ORDER`` pairs), calls the one scoring driver or the
one run driver, and prints the benchmark's ``summary``.

Imports only typer, the standard library and the declarations at load time: a benchmark's code is
imported when its command runs.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import typer

from scenebench.declarations import BenchmarkSpec, Command, Input, Option
from scenebench.declarations.catalog import get_spec, specs
from scenebench.declarations.types import inputs_from_data

GROUP_HELP = {"score": "Score saved predictions", "validate": "Check inputs; scores nothing", "run": "Run a model, then score"}


@dataclass(frozen=True)
class Shared:
    """An option every benchmark's command has (``name`` is the keyword the command body reads)."""

    name: str
    annotation: Any
    default: Any
    flags: tuple[str, ...]
    help: str
    min: int | None = None


PROTOCOL = Shared(
    "protocol",
    str,
    "strict",
    ("--protocol",),
    "strict (corrected, default) or official (the published script's quirks); official:<lineage> where the benchmark declares lineages.",
)
OVERWRITE = Shared("overwrite", bool, False, ("--overwrite",), "Start the run folder again if it holds other inputs or settings.")
PROGRESS = Shared("progress", bool, True, ("--progress/--no-progress",), "Show a progress bar on a terminal.")
SCORE_SHARED = (
    PROTOCOL,
    Shared("out", Optional[Path], None, ("--out", "-o"), "Run folder (default: runs/<benchmark>-<time>). Rerun to resume."),
    OVERWRITE,
    Shared("bootstrap", int, 1000, ("--bootstrap",), "Scene-clustered bootstrap resamples for the 95% CIs (0: none).", min=0),
    Shared("seed", int, 0, ("--seed",), "Bootstrap seed (recorded)."),
    PROGRESS,
)
MODEL_HELP = (
    "oracle, random, baseline:prior, baseline:labels, baseline:nearest, baseline:cluster, baseline:fpfh (open3d extra), "
    "openai:MODEL or openai-vision:MODEL (with --base-url), plugin:package.module:Class, or a name from the scenebench.models "
    "entry points. plugin: and entry points import and run that code: use only code you trust."
)
RUN_SHARED = (
    Shared("model", str, ..., ("--model", "-m"), MODEL_HELP),
    Shared(
        "out",
        Optional[Path],
        None,
        ("--out", "-o"),
        "Run folder (default runs/<benchmark>-<model>-<time>). Rerun the same command to resume.",
    ),
    Shared("tasks", Optional[str], None, ("--tasks",), "Comma-separated task names (as the benchmark's samples name them); default: all."),
    Shared(
        "limit", Optional[int], None, ("--limit",), "Only the first N samples (after --tasks). A larger limit later extends the run.", min=1
    ),
    Shared("seed", int, 0, ("--seed",), "Seed given to the model (recorded; part of the run's identity)."),
    PROTOCOL,
    Shared("backend", str, "local", ("--backend",), "local (this process) or ray (shards scenes across a Ray cluster)."),
    Shared(
        "address", Optional[str], None, ("--address",), "Ray cluster to join (e.g. auto); default: a private local cluster on 127.0.0.1."
    ),
    Shared("scenes_per_task", int, 1, ("--scenes-per-task",), "Ray: scenes per task (bigger shards, fewer round trips).", min=1),
    Shared("max_retries", int, 3, ("--max-retries",), "Ray: retries of a failed task before the run stops with an error.", min=0),
    Shared(
        "base_url", Optional[str], None, ("--base-url",), "OpenAI-compatible server for --model openai:MODEL (key from env OPENAI_API_KEY)."
    ),
    Shared(
        "model_arg", Optional[list[str]], None, ("--model-arg",), "KEY=VALUE passed to the model's constructor (repeatable; JSON values)."
    ),
    OVERWRITE,
    PROGRESS,
)
SHARED: dict[Command, tuple[Shared, ...]] = {"score": SCORE_SHARED, "validate": (), "run": RUN_SHARED}
_TYPES: dict[str, Any] = {"str": str, "int": int, "float": float, "bool": bool, "path": Optional[Path], "strs": Optional[list[str]]}


def _parameter(
    name: str, annotation: Any, default: Any, flags: tuple[str, ...], help: str, min: int | float | None = None
) -> inspect.Parameter:
    extra = {"min": min} if min is not None else {}
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=typer.Option(default, *flags, help=help, **extra), annotation=annotation
    )


def _takes_data(spec: BenchmarkSpec, command: Command) -> bool:
    """Whether ``score``/``validate`` get a ``--data`` option: the benchmark locates some inputs in the
    folder ``run --data`` reads, and has no input or option of that name already."""
    return (
        command != "run"
        and any(i.in_data for i in spec.inputs)
        and not any(i.name == "data" for i in spec.inputs)
        and not any(o.name == "data" for o in spec.options_for(command))
    )


def _input_parameter(spec_input: Input, command: Command) -> inspect.Parameter:
    required = spec_input.required(command) and spec_input.in_data is None  # else checked after --data fills it
    annotation = Path if required else Optional[Path]
    return _parameter(spec_input.name, annotation, ... if required else None, spec_input.cli_flags(), spec_input.help)


def _option_parameter(opt: Option, command: Command) -> inspect.Parameter:
    annotation = _TYPES[opt.type]
    if opt.type in ("str", "int", "float") and opt.default is None and not opt.required:
        annotation = Optional[annotation]
    default = ... if opt.required else opt.default
    return _parameter(opt.name, annotation, default, opt.cli_flags(), opt.help, opt.min)


def parameters(spec: BenchmarkSpec, command: Command) -> list[inspect.Parameter]:
    """The command's options: the benchmark's inputs (score, validate), the shared set, the benchmark's own."""
    own = [_option_parameter(o, command) for o in spec.options_for(command)]
    ins = [_input_parameter(i, command) for i in spec.inputs] if command != "run" else []
    if _takes_data(spec, command):
        where = ", ".join(f"{i.cli_flags()[0]} ({i.in_data})" for i in spec.inputs if i.in_data)
        ins.append(
            _parameter(
                "data",
                Optional[Path],
                None,
                ("--data", "-d"),
                f"The benchmark data folder (as run --data): {where} are read from it unless given.",
                None,
            )
        )
    shared = [_parameter(s.name, s.annotation, s.default, s.flags, s.help, s.min) for s in SHARED[command]]
    taken = {p.name for p in (*ins, *own)}
    return [*ins, *own, *(p for p in shared if p.name not in taken)]


def _keywords(spec: BenchmarkSpec, command: Command, values: dict[str, Any]) -> dict[str, Any]:
    """The parsed values under the keywords the benchmark's functions take (inputs by name, options
    by ``keyword``); the shared options stay out."""
    out = {i.name: values[i.name] for i in spec.inputs if command != "run"}
    out.update({o.keyword or o.name: values[o.name] for o in spec.options_for(command)})
    return out


@contextlib.contextmanager
def adapted(spec: BenchmarkSpec, command: Command, keywords: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The keywords after the benchmark's ``cli_values`` adapter (which may hold a resource, like a judge, until the end)."""
    if spec.cli_values is None:
        yield keywords
        return
    from scenebench.registry import load_object

    with load_object(spec.cli_values)(command, keywords) as out:
        yield out


def show(spec: BenchmarkSpec, res: Any) -> None:
    """The benchmark's console summary of ``res`` (default: the overall metrics table)."""
    from scenebench.registry import load_object

    if spec.summary is not None:
        load_object(spec.summary)(res)
        return
    from scenebench.report.console import print_results

    print_results(res)


def score_body(name: str, values: dict[str, Any]) -> None:
    from scenebench.protocol import resolve_protocol
    from scenebench.runtime.scoring import score_benchmark

    spec = get_spec(name)
    protocol = resolve_protocol(values["protocol"], spec.lineages)  # before anything is read or a judge is started
    values = inputs_from_data(spec, "score", values)
    with adapted(spec, "score", _keywords(spec, "score", values)) as kw:
        res, run, _ = score_benchmark(
            name,
            values["out"],
            protocol=protocol,
            overwrite=values["overwrite"],
            progress=values["progress"],
            n_resamples=values["bootstrap"],
            seed=values["seed"],
            **kw,
        )
    show(spec, res)
    typer.echo(f"results: {run.results_json}")


def validate_body(name: str, values: dict[str, Any]) -> None:
    from scenebench.registry import load_object

    spec = get_spec(name)
    if spec.validate is None:  # pragma: no cover - the command exists only for a declared validator
        raise typer.Exit(2)
    values = inputs_from_data(spec, "validate", values)
    with adapted(spec, "validate", _keywords(spec, "validate", values)) as kw:
        load_object(spec.validate)(**kw)


def run_body(name: str, values: dict[str, Any]) -> None:
    from scenebench.protocol import resolve_protocol
    from scenebench.runtime.execute import RunOptions, execute

    spec = get_spec(name)
    protocol = resolve_protocol(values["protocol"], spec.lineages)
    tasks = [t.strip() for t in values["tasks"].split(",") if t.strip()] if values["tasks"] else None
    kw = {**_keywords(spec, "run", values), "tasks": tasks, "model_arg": values["model_arg"]}
    with adapted(spec, "run", kw) as kw:
        to_score = {o.keyword or o.name for o in spec.options_for("run") if o.to == "score"}
        source = {k: str(v) if isinstance(v, Path) else v for k, v in kw.items() if k not in to_score and k not in ("tasks", "model_arg")}
        options = RunOptions(
            model=values["model"],
            out=values["out"],
            tasks=kw["tasks"],
            limit=values["limit"],
            seed=values["seed"],
            protocol=protocol,
            backend=values["backend"],
            address=values["address"],
            scenes_per_task=values["scenes_per_task"],
            max_retries=values["max_retries"],
            base_url=values["base_url"],
            model_args=kw["model_arg"],
            overwrite=values["overwrite"],
            progress=values["progress"],
        )
        outcome = execute(name, source, options, score_options={k: v for k, v in kw.items() if k in to_score}, echo=typer.echo)
    show(spec, outcome.results)
    typer.echo(f"predictions file: {outcome.predictions_path}\nresults: {outcome.run.results_json}")


BODIES: dict[Command, Callable[[str, dict[str, Any]], None]] = {"score": score_body, "validate": validate_body, "run": run_body}


def build(spec: BenchmarkSpec, command: Command) -> Callable[..., None]:
    """The typer command ``scenebench COMMAND spec.name``: a function whose signature is the option set."""
    body = BODIES[command]
    name = spec.name

    def cmd(**values: Any) -> None:
        body(name, values)

    cmd.__signature__ = inspect.Signature(parameters(spec, command))  # type: ignore[attr-defined]
    cmd.__name__ = f"{command}_{name}".replace("-", "_")
    cmd.__doc__ = _doc(spec, command)
    return cmd


def _doc(spec: BenchmarkSpec, command: Command) -> str:
    from scenebench.registry import load_object

    try:
        title = load_object(spec.info).title
    except Exception:  # noqa: BLE001 - a help text never fails a command line
        title = spec.name
    return f"{GROUP_HELP[command]}: {title}."


def commands_of(spec: BenchmarkSpec) -> list[Command]:
    out: list[Command] = ["score"]
    if spec.validate is not None:
        out.append("validate")
    if spec.source is not None:
        out.append("run")
    return out


def register(groups: dict[str, typer.Typer], names: list[str] | None = None) -> None:
    """Add the commands of the benchmarks ``names`` (default: every declared one) to ``groups``,
    those already there left as they are."""
    from scenebench.registry import load_object

    chosen = [get_spec(n) for n in names] if names is not None else [s for s in specs() if s.generic()]
    for spec in chosen:
        if not spec.generic():
            continue
        for command in commands_of(spec):
            _add(groups[command], spec.name, lambda spec=spec, command=command: build(spec, command))
        for group, command_name, path in spec.extra_commands:
            _add(groups[group], command_name, lambda path=path: load_object(path))


def _add(group: typer.Typer, name: str, make: Callable[[], Callable[..., Any]]) -> None:
    if not any(c.name == name for c in group.registered_commands):
        group.command(name)(make())
