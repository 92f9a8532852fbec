"""What ``scenebench score|run rio`` print: units and scope, then the main metrics."""

from __future__ import annotations

from rich.console import Console

from scenebench.consoles import make_console
from scenebench.report.console import print_results
from scenebench.results import Results

MAIN_METRICS = ["recall_10cm_10deg", "recall_20cm_20deg", "MRE", "MTE"]


def show(res: Results, console: Console | None = None) -> None:
    console = console or make_console()
    console.print(f"units: {res.settings.get('units')}; instances: {res.settings.get('scope', 'changed')}")
    print_results(res, metrics=[m for m in MAIN_METRICS if m in res.metrics.get("overall", {})], console=console)
