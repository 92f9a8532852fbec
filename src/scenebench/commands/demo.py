"""``scenebench demo``: no arguments, offline, CPU only; see :mod:`scenebench.models.demo`."""

from __future__ import annotations

from pathlib import Path

import typer


def demo_command(
    folder: Path = typer.Option(Path("scenebench-demo"), "--folder", help="Where the demo keeps its data, runs and report (reused)."),
    report: bool = typer.Option(True, "--report/--no-report", help="Write the HTML report."),
) -> None:
    """Generate a small synthetic benchmark set, run the built-in baselines on all three benchmarks, compare them."""
    from scenebench.models.demo import run_demo

    run_demo(folder, report=report)


def register(groups: dict[str, typer.Typer]) -> None:
    groups["app"].command("demo")(demo_command)
