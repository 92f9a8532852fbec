"""``scenebench run surprise3d|3dbench``: run a model (resumably, locally or on Ray), then score it.

The work is :func:`scenebench.runtime.execute.execute`, shared by every ``run`` command (RIO's is
declared in its own package). Imports only typer and the standard library at load time; everything
else is imported inside the commands so ``scenebench --help`` stays light.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer


def execute(benchmark: str, source_kwargs: dict[str, Any], **kwargs: Any) -> Any:
    """:func:`scenebench.runtime.execute.execute`, printing through typer."""
    from scenebench.runtime.execute import execute as run_and_score

    return run_and_score(benchmark, source_kwargs, echo=typer.echo, **kwargs)


MODEL_HELP = (
    "oracle, random, baseline:prior, baseline:labels, baseline:nearest, baseline:cluster, openai:MODEL or openai-vision:MODEL (with --base-url), "
    "plugin:package.module:Class, or a name from the scenebench.models entry points. "
    "plugin: and entry points import and run that code: use only code you trust."
)


def _print_surprise3d(res: Any) -> None:
    from rich.console import Console

    from scenebench.benchmarks.surprise3d.scorer import MASK_METRICS, box_detection_results
    from scenebench.report.console import print_results, results_table

    console = Console(markup=False)
    if res.extra.get("masks_from_boxes"):
        from rich.text import Text

        console.print(Text.assemble(("Box predictions scored as masks", "bold"), " (the points inside each box):"))
    print_results(res, metrics=MASK_METRICS, console=console)
    box = box_detection_results(res)
    if box is not None:
        console.print(
            results_table(
                box,
                metrics=list(box.metrics["overall"]),
                title=f"surprise3d BOX DETECTION (protocol: {res.protocol}; not comparable with the mask table)",
            )
        )


# Shared options (typer reads defaults from these objects).
DATA = typer.Option(..., "--data", help="Benchmark data folder.")
MODEL = typer.Option(..., "--model", "-m", help=MODEL_HELP)
OUT = typer.Option(None, "--out", "-o", help="Run folder (default runs/<benchmark>-<model>-<time>). Rerun the same command to resume.")
LIMIT = typer.Option(None, "--limit", min=1, help="Only the first N samples (after --tasks). A larger limit later extends the run.")
SEED = typer.Option(0, "--seed", help="Seed given to the model (recorded; part of the run's identity).")
PROTOCOL = typer.Option("strict", "--protocol", help="strict (default) or official.")
BACKEND = typer.Option("local", "--backend", help="local (this process) or ray (shards scenes across a Ray cluster).")
ADDRESS = typer.Option(
    None, "--address", help="Ray cluster to join (e.g. auto, ray://host:10001); default: a private local cluster on 127.0.0.1."
)
SCENES_PER_TASK = typer.Option(1, "--scenes-per-task", min=1, help="Ray: scenes per task (bigger shards, fewer round trips).")
MAX_RETRIES = typer.Option(3, "--max-retries", min=0, help="Ray: retries of a failed task before the run stops with an error.")
BASE_URL = typer.Option(
    None, "--base-url", help="OpenAI-compatible server for --model openai:MODEL / openai-vision:MODEL (key from env OPENAI_API_KEY)."
)
MODEL_ARG = typer.Option(None, "--model-arg", help="KEY=VALUE passed to the model's constructor (repeatable; JSON values).")
OVERWRITE = typer.Option(False, "--overwrite", help="Start the run folder again if it holds another model, seed or data.")
PROGRESS = typer.Option(True, "--progress/--no-progress", help="Progress bars with rate and ETA on a terminal.")


def run_surprise3d(
    data: Path = DATA,
    model: str = MODEL,
    out: Optional[Path] = OUT,
    annotations: Optional[Path] = typer.Option(None, "--annotations", help="Annotation JSON (default: surprise-3d-val.json in --data)."),
    scenes: Optional[Path] = typer.Option(None, "--scenes", help="Scene folder (default: --data/scenes)."),
    train: Optional[Path] = typer.Option(
        None, "--train", help="Train annotations for baselines that learn (default: surprise-3d-train.json in --data)."
    ),
    labels_dir: Optional[Path] = typer.Option(
        None,
        "--labels-dir",
        help="ScanNet++ folder with <scene>/scans/segments_anno.json: object labels for the scene list (default: DATA/scannetpp when it exists).",
    ),
    tasks: Optional[str] = typer.Option(None, "--tasks", help="Comma-separated question types (e.g. cs,rel_pos)."),
    limit: Optional[int] = LIMIT,
    seed: int = SEED,
    protocol: str = PROTOCOL,
    backend: str = BACKEND,
    address: Optional[str] = ADDRESS,
    scenes_per_task: int = SCENES_PER_TASK,
    max_retries: int = MAX_RETRIES,
    base_url: Optional[str] = BASE_URL,
    model_arg: Optional[list[str]] = MODEL_ARG,
    overwrite: bool = OVERWRITE,
    progress: bool = PROGRESS,
) -> None:
    """Run a model on SURPRISE3D (masks or boxes), then score mIoU/A25/A50 per question type."""
    from scenebench.protocol import check_protocol

    check_protocol(protocol)
    kwargs = {
        "data": str(data),
        "annotations": str(annotations) if annotations else None,
        "scenes": str(scenes) if scenes else None,
        "train": str(train) if train else None,
        "labels_dir": str(labels_dir) if labels_dir else None,
    }
    task_list = [t.strip() for t in tasks.split(",") if t.strip()] if tasks else None
    outcome = execute(
        "surprise3d",
        kwargs,
        model=model,
        out=out,
        tasks=task_list,
        limit=limit,
        seed=seed,
        protocol=protocol,
        backend=backend,
        address=address,
        scenes_per_task=scenes_per_task,
        max_retries=max_retries,
        base_url=base_url,
        model_args=model_arg,
        overwrite=overwrite,
        progress=progress,
    )
    _print_surprise3d(outcome.results)
    typer.echo(f"predictions file: {outcome.predictions_path}\nresults: {outcome.run.results_json}")


def run_3dbench(
    data: Path = DATA,
    model: str = MODEL,
    out: Optional[Path] = OUT,
    train: Optional[Path] = typer.Option(
        None, "--train", help="Train split (same task files) for baselines that learn (default: --data/train)."
    ),
    tasks: Optional[str] = typer.Option(
        None, "--tasks", help="Comma-separated tasks (keys or official names); default: every task file present."
    ),
    houses: Optional[Path] = typer.Option(
        None, "--houses", help="Folder of house JSONs ((<id>).json) giving scene text tasks their rooms (default: --data/houses)."
    ),
    objects_gt: Optional[Path] = typer.Option(
        None, "--objects-gt", help="GT/Classification.json giving scene text tasks their objects (default: --data/GT/Classification.json)."
    ),
    limit: Optional[int] = LIMIT,
    seed: int = SEED,
    protocol: str = PROTOCOL,
    judge: str = typer.Option("none", "--judge", help="LLM judge for text tasks: none, local, local:PATH.gguf, openai:MODEL."),
    judge_base_url: Optional[str] = typer.Option(None, "--judge-base-url", help="OpenAI-compatible server for --judge openai:MODEL."),
    judge_cache: Optional[str] = typer.Option(None, "--judge-cache", help="Judge cache file (SQLite)."),
    backend: str = BACKEND,
    address: Optional[str] = ADDRESS,
    scenes_per_task: int = SCENES_PER_TASK,
    max_retries: int = MAX_RETRIES,
    base_url: Optional[str] = BASE_URL,
    model_arg: Optional[list[str]] = MODEL_ARG,
    overwrite: bool = OVERWRITE,
    progress: bool = PROGRESS,
) -> None:
    """Run a model on 3DBench (answers scored as free text by the 3DBench parser), then score every task."""
    from scenebench.benchmarks.bench3d.report import print_3dbench
    from scenebench.benchmarks.bench3d.run import make_judge_or_none
    from scenebench.benchmarks.bench3d.tasks import parse_task_list
    from scenebench.errors import InputError
    from scenebench.protocol import check_protocol

    check_protocol(protocol)  # before a judge server is started
    try:
        task_list = parse_task_list(tasks) if tasks else None
    except ValueError as exc:
        raise InputError(None, str(exc), field="--tasks") from None
    j = make_judge_or_none(judge, judge_base_url, judge_cache, 4)
    try:
        spec = {
            "data": str(data),
            "train": str(train) if train else None,
            **{k: str(v) for k, v in (("houses", houses), ("objects_gt", objects_gt)) if v is not None},
        }
        outcome = execute(
            "3dbench",
            spec,
            model=model,
            out=out,
            tasks=task_list,
            limit=limit,
            seed=seed,
            protocol=protocol,
            backend=backend,
            address=address,
            scenes_per_task=scenes_per_task,
            max_retries=max_retries,
            base_url=base_url,
            model_args=model_arg,
            overwrite=overwrite,
            progress=progress,
            score_options={"judge": j},
        )
    finally:
        if j is not None:
            j.close()
    print_3dbench(outcome.results)
    typer.echo(f"predictions file: {outcome.predictions_path}\nresults: {outcome.run.results_json}")


def register(groups: dict[str, typer.Typer]) -> None:
    groups["run"].command("surprise3d")(run_surprise3d)
    groups["run"].command("3dbench")(run_3dbench)
