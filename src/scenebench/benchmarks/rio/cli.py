"""``scenebench score rio``, ``score rio-matching``, ``validate rio``, ``run rio``.

Imports only typer and the standard library at import time; numpy, plyfile and open3d are imported
inside the commands so ``scenebench --help`` stays light.
"""

from __future__ import annotations

from pathlib import Path

import typer

DATA = typer.Option(..., "--data", "-d", help="3RScan root: 3RScan.json, objects.json and one folder per scan.")
SPLIT = typer.Option("validation", "--split", help="train, validation or all (train + validation); test ground truth is hidden.")
SCOPE = typer.Option(
    "changed",
    "--scope",
    help="changed: the objects listed in rigid[] (the protocol's denominator, default); "
    "all: also every unlisted instance as static with the identity pose (a diagnostic, marked in results).",
)
PROTOCOL = typer.Option("strict", "--protocol", help="strict (exact symmetry, default) or official (public-code shortcuts).")
OUT = typer.Option(None, "--out", "-o", help="Run folder (default: runs/rio-<time>). Rerun to resume.")
OVERWRITE = typer.Option(False, "--overwrite", help="Start the run folder again if it holds other inputs or settings.")
UNITS = typer.Option("auto", "--units", help="Translation unit of 3RScan.json: auto (detected and logged), m or mm.")
SYMMETRY = typer.Option(None, "--symmetry-code", help="Accept an extra symmetry code: CODE=ORDER (e.g. 3=8). Repeatable.")
BOOTSTRAP = typer.Option(1000, "--bootstrap", help="Scene-clustered bootstrap resamples for the 95% CIs (0: none).")
SEED = typer.Option(0, "--seed", help="Bootstrap seed (recorded).")
PROGRESS = typer.Option(True, "--progress/--no-progress", help="Show a progress bar on a terminal.")
MAIN_METRICS = ["recall_10cm_10deg", "recall_20cm_20deg", "MRE", "MTE"]


def _symmetry_codes(pairs: list[str] | None) -> dict[int, int]:
    from scenebench.errors import InputError

    out: dict[int, int] = {}
    for p in pairs or []:
        code, sep, order = p.partition("=")
        if not sep or not code.strip().lstrip("-").isdigit() or not order.strip().isdigit() or int(order) < 1:
            raise InputError(None, f"got {p!r}", field="--symmetry-code", expected="CODE=ORDER with integers, ORDER >= 1")
        out[int(code)] = int(order)
    return out


def _voxel_alias(voxel: float | None, model_arg: list[str] | None) -> list[str] | None:
    """``--voxel M`` (the option of 0.1's ``run rio``) as ``--model-arg voxel=M``, with a deprecation note."""
    if voxel is None:
        return model_arg
    from scenebench.errors import InputError

    if any(a.partition("=")[0].strip() == "voxel" for a in model_arg or []):
        raise InputError(None, "both --voxel and --model-arg voxel= given", field="--voxel", expected="only --model-arg voxel=M")
    typer.echo(f"warning: --voxel is deprecated and will be removed; use --model-arg voxel={voxel}", err=True)
    return [*(model_arg or []), f"voxel={voxel}"]


def _print(res, run) -> None:  # noqa: ANN001
    from rich.console import Console

    from scenebench.report.console import print_results

    console = Console(markup=False)
    console.print(f"units: {res.settings.get('units')}; instances: {res.settings.get('scope', 'changed')}")
    print_results(res, metrics=[m for m in MAIN_METRICS if m in res.metrics.get("overall", {})], console=console)
    console.print(f"results: {run.results_json}")


def score_command(
    data: Path = DATA,
    predictions: Path = typer.Option(..., "--predictions", "-p", help="JSONL: {rescan, instance, pose 4x4 | R+t | quaternion(w,x,y,z)+t}."),
    split: str = SPLIT,
    scope: str = SCOPE,
    protocol: str = PROTOCOL,
    out: Path | None = OUT,
    overwrite: bool = OVERWRITE,
    units: str = UNITS,
    symmetry_code: list[str] | None = SYMMETRY,
    bootstrap: int = BOOTSTRAP,
    seed: int = SEED,
    progress: bool = PROGRESS,
) -> None:
    """Score RIO pose predictions: Recall(0.1 m, 10 deg), Recall(0.2 m, 20 deg), MRE, MTE with 95% CIs."""
    from scenebench.protocol import check_protocol
    from scenebench.runtime.scoring import score_benchmark

    res, run, _ = score_benchmark(
        "rio",
        out,
        protocol=check_protocol(protocol),
        overwrite=overwrite,
        progress=progress,
        data=data,
        predictions=predictions,
        split=split,
        scope=scope,
        units=units,
        symmetry_codes=_symmetry_codes(symmetry_code),
        n_resamples=bootstrap,
        seed=seed,
    )
    _print(res, run)


def matching_command(
    descriptors: Path = typer.Option(
        ..., "--descriptors", help="Folder of scan-pair folders, each with reference.npy and rescan.npy (K x D)."
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the negative draws and the bootstrap (recorded)."),
    negatives: int = typer.Option(50, "--negatives", help="Negatives per positive (the protocol uses 50)."),
    out: Path | None = OUT,
    overwrite: bool = OVERWRITE,
    bootstrap: int = BOOTSTRAP,
    progress: bool = PROGRESS,
) -> None:
    """Top-1 descriptor matching accuracy: 1 positive among 1 + 50 seeded negatives, L2."""
    from rich.console import Console

    from scenebench.report.console import print_results

    from .matching import score_matching

    res, run = score_matching(
        descriptors, seed=seed, n_negatives=negatives, out=out, overwrite=overwrite, n_resamples=bootstrap, progress=progress
    )
    console = Console(markup=False)
    print_results(res, console=console)
    console.print(f"keypoints: {res.extra['n_keypoints']}, pairs: {len(res.extra['per_pair'])}, negatives seed: {seed}")
    console.print(f"results: {run.results_json}")


def validate_command(
    data: Path = DATA,
    split: str = SPLIT,
    predictions: Path | None = typer.Option(None, "--predictions", "-p", help="Also check a predictions file."),
    geometry: bool = typer.Option(False, "--geometry", help="Also read every evaluated scan's labelled PLY."),
    units: str = UNITS,
    scope: str = SCOPE,
) -> None:
    """Check a 3RScan folder (index, objects, semseg, optionally PLYs) and predictions; scores nothing."""
    import json

    from .validate import validate_rio

    typer.echo(json.dumps(validate_rio(data, split=split, predictions=predictions, geometry=geometry, units=units, scope=scope), indent=2))


def run_command(
    data: Path = DATA,
    model: str = typer.Option(
        ...,
        "--model",
        "-m",
        help="oracle, random, baseline:prior (identity pose), baseline:fpfh (FPFH + RANSAC + ICP, "
        "open3d extra; --model-arg voxel=0.03), plugin:package.module:Class or an entry-point name.",
    ),
    out: Path | None = typer.Option(
        None, "--out", "-o", help="Run folder (default runs/rio-<model>-<time>). Rerun the same command to resume."
    ),
    split: str = SPLIT,
    scope: str = SCOPE,
    protocol: str = PROTOCOL,
    limit: int | None = typer.Option(
        None, "--limit", min=1, help="Only the first N instances (in rescan order). A larger limit later extends the run."
    ),
    units: str = UNITS,
    symmetry_code: list[str] | None = SYMMETRY,
    seed: int = typer.Option(0, "--seed", help="Seed given to the model (recorded; part of the run's identity)."),
    backend: str = typer.Option("local", "--backend", help="local (this process) or ray (shards rescans across a Ray cluster)."),
    address: str | None = typer.Option(None, "--address", help="Ray cluster to join; default: a private local cluster on 127.0.0.1."),
    scenes_per_task: int = typer.Option(1, "--scenes-per-task", min=1, help="Ray: rescans per task."),
    max_retries: int = typer.Option(3, "--max-retries", min=0, help="Ray: retries of a failed task before the run stops with an error."),
    model_arg: list[str] | None = typer.Option(
        None, "--model-arg", help="KEY=VALUE passed to the model's constructor (repeatable; JSON values)."
    ),
    voxel: float | None = typer.Option(
        None, "--voxel", help="Deprecated (0.2.0), to be removed: same as --model-arg voxel=M (baseline:fpfh voxel size, metres)."
    ),
    bootstrap: int = BOOTSTRAP,
    overwrite: bool = OVERWRITE,
    progress: bool = PROGRESS,
) -> None:
    """Re-localize every reference instance with a model (saved per rescan, resumable, local or Ray), then score."""
    from scenebench.runtime.execute import execute

    model_arg = _voxel_alias(voxel, model_arg)
    kwargs: dict[str, object] = {"data": str(data), "split": split, "units": units}
    if scope != "changed":  # the default stays out of the spec, so v2.0 run folders resume
        kwargs["scope"] = scope
    codes = _symmetry_codes(symmetry_code)
    if codes:
        kwargs["symmetry_codes"] = {str(k): v for k, v in sorted(codes.items())}
    outcome = execute(
        "rio",
        kwargs,
        model=model,
        out=out,
        tasks=None,
        limit=limit,
        seed=seed,
        protocol=protocol,
        backend=backend,
        address=address,
        scenes_per_task=scenes_per_task,
        max_retries=max_retries,
        base_url=None,
        model_args=model_arg,
        overwrite=overwrite,
        progress=progress,
        score_options={"n_resamples": bootstrap},
        echo=typer.echo,
    )
    _print(outcome.results, outcome.run)
    typer.echo(f"predictions file: {outcome.predictions_path}")


def register(groups: dict[str, typer.Typer]) -> None:
    groups["score"].command("rio")(score_command)
    groups["score"].command("rio-matching")(matching_command)
    groups["validate"].command("rio")(validate_command)
    groups["run"].command("rio")(run_command)
