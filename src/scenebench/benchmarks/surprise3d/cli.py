"""``scenebench score surprise3d`` and ``scenebench validate surprise3d``.

Imports only typer and the standard library at import time; the scorer is imported inside the
commands so ``scenebench --help`` stays light.
"""

from __future__ import annotations

from pathlib import Path

import typer

ANNOTATIONS = typer.Option(..., "--annotations", "-a", help="SURPRISE3D annotation JSON (e.g. surprise-3d-val.json).")
SCENES = typer.Option(..., "--scenes", "-s", help="Folder of <scene_id>.pth (torch extra) or <scene_id>.npz point clouds.")
THRESHOLD = typer.Option(
    0.5,
    "--score-threshold",
    help="A point with score (or sigmoid of its logit) >= this is predicted (both protocols; official compares in float32).",
)


def score_command(
    annotations: Path = ANNOTATIONS,
    scenes: Path = SCENES,
    predictions: Path = typer.Option(..., "--predictions", "-p", help="Predictions, JSONL or Parquet (one record per sample)."),
    protocol: str = typer.Option("strict", "--protocol", help="strict (corrected, default) or official (published script's quirks)."),
    score_threshold: float = THRESHOLD,
    out: Path | None = typer.Option(None, "--out", "-o", help="Run folder (default: runs/surprise3d-<time>). Rerun to resume."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Start the run folder again if it holds other inputs or settings."),
    bootstrap: int = typer.Option(1000, "--bootstrap", help="Scene-clustered bootstrap resamples for the 95% CIs (0: none)."),
    seed: int = typer.Option(0, "--seed", help="Bootstrap seed (recorded)."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar on a terminal."),
) -> None:
    """Score SURPRISE3D predictions: mIoU, A25, A50 overall and per question_type, with 95% CIs."""
    from scenebench.protocol import check_protocol
    from scenebench.runtime.rundir import default_run_dir
    from scenebench.runtime.scoring import score_benchmark

    check_protocol(protocol)
    res, run, _ = score_benchmark(
        "surprise3d",
        out or default_run_dir("surprise3d"),
        protocol=protocol,
        overwrite=overwrite,
        progress=progress,
        annotations=annotations,
        scenes=scenes,
        predictions=predictions,
        score_threshold=score_threshold,
        n_resamples=bootstrap,
        seed=seed,
    )
    # rich and the printing code only once the scoring is done (start-up comes before every input)
    from rich.console import Console

    from scenebench.report.console import print_results, results_table

    from .scorer import MASK_METRICS, box_detection_results

    console = Console(markup=False)
    if res.extra.get("masks_from_boxes"):
        from rich.text import Text

        console.print(Text.assemble(("Box predictions scored as masks", "bold"), " (the points inside each box):"))
    print_results(res, metrics=MASK_METRICS, console=console)
    box = box_detection_results(res)
    if box is not None:
        console.print()
        console.print(
            results_table(
                box,
                metrics=list(box.metrics["overall"]),
                title=f"surprise3d BOX DETECTION — 3D IoU of predicted box vs box of GT points, hit at IoU >= t "
                f"(protocol: {res.protocol}; not comparable with the mask table above)",
            )
        )
    console.print(f"results: {run.results_json}")


def validate_command(
    annotations: Path = ANNOTATIONS,
    scenes: Path | None = typer.Option(None, "--scenes", "-s", help="Also load and check every scene (and GT masks)."),
    predictions: Path | None = typer.Option(
        None, "--predictions", "-p", help="Also check a predictions file (needs --scenes for index ranges)."
    ),
    score_threshold: float = THRESHOLD,
    list_ids: bool = typer.Option(False, "--list-ids", help="Print sample_id, index, scene_id, question_type of every sample (TSV)."),
) -> None:
    """Check SURPRISE3D annotations, scenes and predictions; scores nothing."""
    from .validate import print_ids, validate

    if list_ids:
        print_ids(annotations)
        return
    validate(annotations, scenes, predictions, score_threshold=score_threshold)


def register(groups: dict[str, typer.Typer]) -> None:
    groups["score"].command("surprise3d")(score_command)
    groups["validate"].command("surprise3d")(validate_command)
