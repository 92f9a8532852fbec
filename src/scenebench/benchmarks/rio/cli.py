"""``scenebench score rio``, ``score rio-matching``, ``validate rio``, ``run rio``.

Imports only typer and the standard library at import time; numpy, plyfile and open3d are imported
inside the commands so ``scenebench --help`` stays light.
"""

from __future__ import annotations

from pathlib import Path

import typer

DATA = typer.Option(..., "--data", "-d", help="3RScan root: 3RScan.json, objects.json and one folder per scan.")
SPLIT = typer.Option("validation", "--split", help="train, validation or all (train + validation); test ground truth is hidden.")
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


def _print(res, run) -> None:  # noqa: ANN001
    from rich.console import Console

    from scenebench.report.console import print_results

    console = Console(markup=False)
    console.print(f"units: {res.settings.get('units')}")
    print_results(res, metrics=[m for m in MAIN_METRICS if m in res.metrics.get("overall", {})], console=console)
    console.print(f"results: {run.results_json}")


def score_command(
    data: Path = DATA,
    predictions: Path = typer.Option(..., "--predictions", "-p", help="JSONL: {rescan, instance, pose 4x4 | R+t | quaternion(w,x,y,z)+t}."),
    split: str = SPLIT,
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
    from scenebench.errors import ScenebenchError

    from .scorer import score_rio

    if protocol not in ("strict", "official"):
        raise ScenebenchError(f"unknown protocol {protocol!r}; choose strict or official")
    res, run = score_rio(
        data, predictions, split=split, protocol=protocol, out=out, overwrite=overwrite, units=units,
        symmetry_codes=_symmetry_codes(symmetry_code), n_resamples=bootstrap, seed=seed, progress=progress,
    )
    _print(res, run)


def matching_command(
    descriptors: Path = typer.Option(..., "--descriptors", help="Folder of scan-pair folders, each with reference.npy and rescan.npy (K x D)."),
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

    res, run = score_matching(descriptors, seed=seed, n_negatives=negatives, out=out, overwrite=overwrite, n_resamples=bootstrap, progress=progress)
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
) -> None:
    """Check a 3RScan folder (index, objects, semseg, optionally PLYs) and predictions; scores nothing."""
    import json

    from .validate import validate_rio

    typer.echo(json.dumps(validate_rio(data, split=split, predictions=predictions, geometry=geometry, units=units), indent=2))


def run_command(
    data: Path = DATA,
    model: str = typer.Option("baseline:fpfh", "--model", "-m", help="baseline:fpfh (FPFH + RANSAC + ICP, open3d extra)."),
    out: Path | None = OUT,
    split: str = SPLIT,
    protocol: str = PROTOCOL,
    limit: int | None = typer.Option(None, "--limit", help="Only the first N rescans of the split."),
    voxel: float = typer.Option(0.03, "--voxel", help="Voxel size (m) for features and ICP."),
    overwrite: bool = OVERWRITE,
    units: str = UNITS,
    symmetry_code: list[str] | None = SYMMETRY,
    bootstrap: int = BOOTSTRAP,
    seed: int = SEED,
    progress: bool = PROGRESS,
) -> None:
    """Re-localize every reference instance with a baseline (saved per rescan, resumable), then score."""
    from rich.console import Console

    from .fpfh_baseline import FpfhSettings
    from .run import run_rio

    res, run, _ = run_rio(
        data, model=model, out=out, split=split, protocol=protocol, settings=FpfhSettings(voxel=voxel, seed=seed), limit=limit,
        overwrite=overwrite, units=units, symmetry_codes=_symmetry_codes(symmetry_code), n_resamples=bootstrap, seed=seed, progress=progress,
    )
    _print(res, run)
    b = res.extra["baseline"]
    console = Console(markup=False)
    console.print(f"seconds per rescan: mean {b['mean_seconds_per_rescan']:.2f}, max {b['max_seconds_per_rescan']:.2f}")
    console.print(f"baseline status: {b['status_counts']}  methods: {b['method_counts']}")
    if b["failures"]:
        from rich.text import Text
        console.print(Text.assemble((f"{len(b['failures'])} instances missed Recall(0.1 m, 10 deg)", "yellow"), " (first 15; all in results.json extra.baseline.failures):"))
        for f in b["failures"][:15]:
            console.print(
                f"  {f['sample_id']} {f['label']} ({f['motion']}): status {f['status']}, method {f['method']}, "
                f"fitness {f['fitness'] if f['fitness'] is None else round(f['fitness'], 3)}, r_err {f['r_err']}, t_err {f['t_err']}",
                highlight=False,
            )


def register(groups: dict[str, typer.Typer]) -> None:
    groups["score"].command("rio")(score_command)
    groups["score"].command("rio-matching")(matching_command)
    groups["validate"].command("rio")(validate_command)
    groups["run"].command("rio")(run_command)
