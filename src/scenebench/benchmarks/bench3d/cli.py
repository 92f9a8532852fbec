"""``scenebench score 3dbench`` and ``scenebench validate 3dbench`` (imports only typer at load time)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

HOUSES = typer.Option(
    None, "--houses", help="Folder of house JSONs ((<id>).json, rooms[].roomType) for scene text tasks (default: --data/houses)."
)
OBJECTS_GT = typer.Option(
    None,
    "--objects-gt",
    help="GT/Classification.json (object names per house) for scene text tasks (default: --data/GT/Classification.json).",
)


def score_command(
    data: Path = typer.Option(..., "--data", help="3DBench folder: one JSON list per task (Classification.json, ...)."),
    predictions: Path = typer.Option(..., "--predictions", help="answers.jsonl: {question_id, task, text} per record."),
    tasks: Optional[str] = typer.Option(
        None, "--tasks", help="Comma-separated tasks (keys or official names); default: every task file present."
    ),
    protocol: str = typer.Option("strict", "--protocol", help="strict (default) or official."),
    judge: str = typer.Option("none", "--judge", help="LLM judge: none, local, local:PATH.gguf, openai:MODEL."),
    judge_base_url: Optional[str] = typer.Option(None, "--judge-base-url", help="OpenAI-compatible server for --judge openai:MODEL."),
    judge_cache: Optional[str] = typer.Option(None, "--judge-cache", help="Judge cache file (SQLite)."),
    judge_concurrency: int = typer.Option(4, "--judge-concurrency", min=1, help="Judge requests in flight."),
    out: Optional[Path] = typer.Option(None, "--out", help="Run folder (resumed when it holds the same run)."),
    circular: bool = typer.Option(False, "--circular", help="Circular multiple choice: answers for ids question_id#rot0..#rot{n-1}."),
    allow_missing: bool = typer.Option(False, "--allow-missing", help="Score records without an answer as wrong (counted)."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Score only the first N records of each task."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Restart a run folder made with other inputs."),
    n_resamples: int = typer.Option(1000, "--bootstrap", min=0, help="Bootstrap resamples for CIs (0: none)."),
    seed: int = typer.Option(0, "--seed", help="Bootstrap seed."),
    houses: Optional[Path] = HOUSES,
    objects_gt: Optional[Path] = OBJECTS_GT,
) -> None:
    """Score free-text answers on 3DBench (ten tasks + visual grounding plus)."""
    from scenebench.benchmarks.bench3d.run import make_judge_or_none
    from scenebench.protocol import check_protocol
    from scenebench.runtime.scoring import score_benchmark

    check_protocol(protocol)  # before a judge server is started
    j = make_judge_or_none(judge, judge_base_url, judge_cache, judge_concurrency)
    try:
        res, _, _ = score_benchmark(
            "3dbench",
            out,
            protocol=protocol,
            overwrite=overwrite,
            progress=True,
            data=data,
            predictions=predictions,
            tasks=tasks,
            judge=j,
            circular=circular,
            allow_missing=allow_missing,
            limit=limit,
            n_resamples=n_resamples,
            seed=seed,
            houses=houses,
            objects_gt=objects_gt,
        )
    finally:
        if j is not None:
            j.close()
    from scenebench.benchmarks.bench3d.report import print_3dbench  # rich: after scoring, not before the inputs

    print_3dbench(res)


def validate_command(
    data: Path = typer.Option(..., "--data", help="3DBench folder."),
    predictions: Optional[Path] = typer.Option(None, "--predictions", help="answers.jsonl to check against the records."),
    tasks: Optional[str] = typer.Option(None, "--tasks", help="Comma-separated tasks; default: every task file present."),
    circular: bool = typer.Option(False, "--circular", help="Expect rotation ids for multiple-choice tasks."),
    allow_missing: bool = typer.Option(False, "--allow-missing", help="Accept answers that do not cover every record."),
    check_clouds: bool = typer.Option(True, "--check-clouds/--no-check-clouds", help="Check that every pcl exists and is (N, 6)."),
    houses: Optional[Path] = HOUSES,
    objects_gt: Optional[Path] = OBJECTS_GT,
    list_ids: bool = typer.Option(
        False, "--list-ids", help="Print task, question_id (given or derived row<i>), row, house, pcl of every record (TSV)."
    ),
) -> None:
    """Check a 3DBench folder (and optionally answers); scores nothing."""
    from scenebench.benchmarks.bench3d.loader import check_point_clouds, load_bench
    from scenebench.benchmarks.bench3d.predictions import read_answers
    from scenebench.benchmarks.bench3d.tasks import parse_task_list
    from scenebench.errors import InputError

    try:
        task_list = parse_task_list(tasks) if tasks else None
    except ValueError as exc:
        raise InputError(None, str(exc), field="--tasks") from None
    bench = load_bench(data, task_list, houses=houses, objects_gt=objects_gt)
    if list_ids:
        print_ids(bench)
        return
    for t, recs in bench.records.items():
        typer.echo(f"{t}: {len(recs)} records ({bench.files[t].name})")
    if check_clouds:
        problems = check_point_clouds(bench)
        if problems:
            for p in problems[:20]:
                typer.echo(p, err=True)
            raise InputError(data, f"{len(problems)} records name unusable point clouds (first shown above)", field="pcl")
        typer.echo("point clouds: ok")
    if predictions is not None:
        ans = read_answers(predictions, bench, circular=circular, allow_missing=allow_missing)
        typer.echo(f"answers: {len(ans.by_id)} paired, {len(ans.missing)} missing, {ans.skipped_other_tasks} of other tasks")
    typer.echo("ok")


def print_ids(bench: object) -> None:
    """TSV for scripts: the ids answers must use (``question_id`` with ``task``) and where each record is."""
    import sys

    out = sys.stdout
    out.write("task\tquestion_id\tderived\trow\thouse\tpcl\n")
    for t, recs in bench.records.items():  # type: ignore[attr-defined]
        for r in recs:
            out.write(f"{t}\t{r.question_id}\t{'yes' if r.derived_id else 'no'}\t{r.row}\t{r.house}\t{r.pcl}\n")


def register(groups: dict[str, typer.Typer]) -> None:
    groups["score"].command("3dbench")(score_command)
    groups["validate"].command("3dbench")(validate_command)
