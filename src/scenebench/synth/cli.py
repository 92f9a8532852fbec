"""``scenebench generate``: synthetic houses in the formats of the benchmarks that declare a
generator (``BenchmarkSpec.synthetic_house``).

Imports only typer, the standard library and the declarations at import time; the pipeline loads on use.
"""

from __future__ import annotations

from pathlib import Path

import typer


def _formats() -> str:
    """The built-in generator formats (the declaring benchmarks' data folders), in catalog order."""
    from scenebench.declarations.catalog import specs

    return ",".join(s.data_folder for s in specs(plugins=False) if s.synthetic_house and s.data_folder)


FORMATS = _formats()


def generate_command(
    out: Path = typer.Option(..., "--out", help="Output folder (created; rerun the same command to resume)."),
    houses: int = typer.Option(10, "--houses", min=0, help="Number of houses."),
    seed: int = typer.Option(0, "--seed", help="Run seed; house i depends only on (seed, i)."),
    formats: str = typer.Option(FORMATS, "--formats", help=f"Comma list of {FORMATS.replace(',', ', ')}."),
    workers: int = typer.Option(1, "--workers", min=1, help="Parallel worker processes (or Ray CPUs)."),
    backend: str = typer.Option("local", "--backend", help="local (process pool) or ray."),
    address: str = typer.Option(None, "--address", help="Ray cluster address (e.g. auto); default starts a local cluster on 127.0.0.1."),
    test_every: int = typer.Option(5, "--test-every", min=1, help="House i is a test house when i % N == N-1."),
    min_rooms: int = typer.Option(2, "--min-rooms", min=2, max=8),
    max_rooms: int = typer.Option(8, "--max-rooms", min=2, max=8),
    density: float = typer.Option(1.0, "--density", min=0.0, help="Scales the chance of optional objects (1.0: ~60 objects per house)."),
    width: int = typer.Option(128, "--width", min=8, help="Rendered frame width (pixels)."),
    height: int = typer.Option(96, "--height", min=8, help="Rendered frame height (pixels)."),
    voxel: float = typer.Option(0.055, "--voxel", min=0.001, help="Voxel size of the fused scene cloud (m)."),
    depth_noise: float = typer.Option(0.0025, "--depth-noise", min=0.0, help="Depth noise std per m^2 of depth (0.0025 is Kinect-like)."),
    hole_rate: float = typer.Option(0.02, "--hole-rate", min=0.0, max=1.0, help="Share of pixels dropped (sensor holes)."),
    clean: bool = typer.Option(
        False, "--no-sensor-noise", help="Perfect depth: no noise and no holes (overrides --depth-noise/--hole-rate)."
    ),
    raycaster: str = typer.Option(
        "auto", "--raycaster", help="auto, embree, open3d, trimesh (needs rtree) or numpy (slow, no dependency)."
    ),
    surprise_pth: bool = typer.Option(
        None,
        "--surprise-pth/--no-surprise-pth",
        help="Also write the point-segmentation scenes as .pth (default: when torch is installed).",
    ),
    surprise_scenes: str = typer.Option(
        "house",
        "--surprise-scenes",
        help="Point-segmentation scenes: house (a whole house a scene) or room (one room a scene, ScanNet++-like).",
    ),
    assets: list[str] = typer.Option(
        ["auto"],
        "--assets",
        envvar="SCENEBENCH_ASSETS",
        help="Furniture model libraries: .sh3f files, .jsonl catalogs or folders of them (repeat the option); "
        "auto: the sweethome3d-furniture package's folder when installed, else primitives; none: primitives only.",
    ),
    preview: int = typer.Option(0, "--preview", min=0, help="Write top-down and point-cloud PNGs of the first N houses to OUT/preview/."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Delete OUT first if it holds another run."),
    quiet: bool = typer.Option(False, "--quiet", help="No progress bar."),
) -> None:
    """Generate synthetic houses and their benchmark data (resumable, deterministic for a seed)."""
    from scenebench.errors import InputError
    from scenebench.synth.pipeline import GenerateSettings, run

    fmts = tuple(f.strip() for f in formats.split(",") if f.strip())
    libraries = _asset_paths(assets)
    if clean:
        depth_noise, hole_rate = 0.0, 0.0
    try:
        settings = GenerateSettings(
            seed=seed,
            houses=houses,
            formats=fmts,
            test_every=test_every,
            min_rooms=min_rooms,
            max_rooms=max_rooms,
            density=density,
            width=width,
            height=height,
            voxel=voxel,
            depth_noise=depth_noise,
            hole_rate=hole_rate,
            raycaster=raycaster,
            surprise_pth=surprise_pth,
            surprise_scenes=surprise_scenes,
            preview=preview,
            assets=libraries,
        )
    except ValueError as exc:
        raise InputError(None, str(exc)) from None
    if raycaster not in ("auto", "embree", "open3d", "trimesh", "numpy"):
        raise InputError(None, f"unknown --raycaster {raycaster!r}", expected="auto, embree, open3d, trimesh or numpy")
    manifest = run(out, settings, workers=workers, backend=backend, address=address, overwrite=overwrite, progress=not quiet)
    n_pts = [h["n_points"] for h in manifest["per_house"]]
    typer.echo(
        f"{len(manifest['per_house'])} houses in {out} (seed {seed}; {len(manifest['splits']['test'])} test, "
        f"{len(manifest['splits']['train'])} train); mean scene cloud {sum(n_pts) / max(1, len(n_pts)):,.0f} points; "
        f"formats {', '.join(fmts)}; manifest {out / 'manifest.json'}"
    )
    if preview:
        typer.echo(f"previews: {out / 'preview'}")
    if manifest["per_house"] and not manifest["splits"]["test"]:
        # run/score evaluate the test split: without a test house they would find no samples
        typer.echo(
            f"warning: no test house: house i is a test house when i % {test_every} == {test_every - 1}, so --houses {houses} "
            f"makes train houses only and `scenebench run` finds no samples; use --houses {test_every} or more, or --test-every {max(1, houses)}",
            err=True,
        )


def _asset_paths(values: list[str]) -> tuple[str, ...]:
    """``--assets`` values to library paths (:func:`scenebench.synth.assets.library.asset_paths`)."""
    from scenebench.synth.assets.library import asset_paths

    return asset_paths(values, say=typer.echo)


def register(groups: dict[str, typer.Typer]) -> None:
    groups["app"].command("generate")(generate_command)
