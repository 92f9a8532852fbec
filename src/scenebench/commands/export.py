"""``scenebench export RUN --format parquet|csv|jsonl``: a run's per-sample scores as a table file."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer


def export_command(
    run: Path = typer.Argument(..., help="Run folder (written by scenebench score or run)."),
    fmt: str = typer.Option("parquet", "--format", "-f", help="parquet, csv or jsonl."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="File to write (default: RUN/samples.<format>)."),
) -> None:
    """Write one row per sample (status, breakdown keys, per-sample values, detail) for pandas, DuckDB or a spreadsheet."""
    from scenebench.samples import export_samples

    path = export_samples(run, out or run / f"samples.{fmt}", fmt)  # type: ignore[arg-type]
    typer.echo(f"samples: {path}")


def register(groups: dict[str, typer.Typer]) -> None:
    groups["app"].command("export")(export_command)
