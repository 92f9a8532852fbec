"""RIO's command-line pieces beside the generic commands: ``score rio-matching`` and how parsed
values become keywords (``--symmetry-code CODE=ORDER`` pairs, the deprecated ``run --voxel``).

Imports only typer and the standard library at load time.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer


def symmetry_codes(pairs: list[str] | None) -> dict[int, int]:
    from scenebench.errors import InputError

    out: dict[int, int] = {}
    for p in pairs or []:
        code, sep, order = p.partition("=")
        if not sep or not code.strip().lstrip("-").isdigit() or not order.strip().isdigit():
            raise InputError(None, f"got {p!r}", field="--symmetry-code", expected="CODE=ORDER with integers, ORDER >= 1 or 0 (continuous)")
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


@contextlib.contextmanager
def values(command: str, kw: dict[str, Any]) -> Iterator[dict[str, Any]]:
    out = dict(kw)
    if "symmetry_codes" in out:
        codes = symmetry_codes(out["symmetry_codes"])
        # run: JSON-able keys, so Ray workers rebuild the same source
        out["symmetry_codes"] = {str(k): v for k, v in sorted(codes.items())} if command == "run" else codes
    if command == "run":
        out["model_arg"] = _voxel_alias(out.pop("voxel"), out.get("model_arg"))
    yield out


OUT = typer.Option(None, "--out", "-o", help="Run folder (default: runs/rio-matching-<time>). Rerun to resume.")


def matching_command(
    descriptors: Path = typer.Option(
        ..., "--descriptors", help="Folder of scan-pair folders, each with reference.npy and rescan.npy (K x D)."
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the negative draws and the bootstrap (recorded)."),
    negatives: int = typer.Option(50, "--negatives", min=1, help="Negatives per positive (the protocol uses 50)."),
    out: Path | None = OUT,
    overwrite: bool = typer.Option(False, "--overwrite", help="Start the run folder again if it holds other inputs or settings."),
    bootstrap: int = typer.Option(1000, "--bootstrap", min=0, help="Scene-clustered bootstrap resamples for the 95% CIs (0: none)."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar on a terminal."),
) -> None:
    """Top-1 descriptor matching accuracy: 1 positive among 1 + 50 seeded negatives, L2."""
    from scenebench.consoles import make_console
    from scenebench.report.console import print_results

    from .api import score_matching

    res, run = score_matching(
        descriptors, seed=seed, n_negatives=negatives, out=out, overwrite=overwrite, n_resamples=bootstrap, progress=progress
    )
    console = make_console()
    print_results(res, console=console)
    console.print(f"keypoints: {res.extra['n_keypoints']}, pairs: {len(res.extra['per_pair'])}, negatives seed: {seed}")
    console.print(f"results: {run.results_json}")
