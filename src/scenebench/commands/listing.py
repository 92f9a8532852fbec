"""``scenebench list``: benchmarks, their metrics and protocols."""

from __future__ import annotations

import typer


def list_command() -> None:
    """List benchmarks with their metrics (and metric cards) and protocols."""
    from rich.table import Table

    from scenebench.consoles import make_console
    from scenebench.declarations.catalog import BENCHMARKS, get_spec

    console = make_console()
    for name in BENCHMARKS.names():
        info = BENCHMARKS.get(name)
        t = Table(title=f"{name}: {info.title}", title_justify="left", show_lines=False)
        t.add_column("metric")
        t.add_column("what it measures")
        t.add_column("metric card")
        for m in info.metrics:
            t.add_row(m.name, m.summary, m.card)
        console.print(t)
        console.print(f"  task: {info.task}")
        console.print(f"  paper: {info.paper}")
        from rich.text import Text

        for p, what in info.protocols.items():
            console.print(Text.assemble("  protocol ", (p, "bold"), f": {what}"))
        lineages = get_spec(name).lineages
        if lineages:
            names = ", ".join(f"official:{x}" for x in lineages)
            console.print(Text.assemble("  lineages ", (names, "bold"), f" (plain official = official:{lineages[0]})"))
        if info.groups:
            console.print(f"  breakdowns: {', '.join(info.groups)}")
        console.print()


def register(groups: dict[str, typer.Typer]) -> None:
    groups["app"].command("list")(list_command)
