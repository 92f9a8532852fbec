"""The ``scenebench`` command. Thin: every subcommand parses options and calls library code.

Command modules are imported here but must stay light at import time (typer and the standard
library only; numpy, torch, open3d, ray and friends are imported inside the command functions), so
``scenebench --help`` is fast and works without any extra installed.
"""

from __future__ import annotations

import importlib
import sys

import typer

from scenebench import __version__
from scenebench.errors import ScenebenchError

app = typer.Typer(
    name="scenebench",
    help="Trustworthy evaluation and scalable benchmark data for 3D scene understanding.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
score_app = typer.Typer(help="Score a saved predictions file against a benchmark.", no_args_is_help=True)
validate_app = typer.Typer(help="Check benchmark data and predictions; scores nothing.", no_args_is_help=True)
run_app = typer.Typer(help="Run a model over a benchmark (resumable), then score it.", no_args_is_help=True)
judge_app = typer.Typer(help="LLM judges: a local server, agreement between judges.", no_args_is_help=True)
app.add_typer(score_app, name="score")
app.add_typer(validate_app, name="validate")
app.add_typer(run_app, name="run")
app.add_typer(judge_app, name="judge")

GROUPS = {"app": app, "score": score_app, "validate": validate_app, "run": run_app, "judge": judge_app}

# Each module defines ``register(groups: dict[str, typer.Typer])``. Keep this list sorted by area.
COMMAND_MODULES = [
    "scenebench.commands.audit",
    "scenebench.commands.demo",
    "scenebench.commands.listing",
    "scenebench.commands.report",
    "scenebench.commands.run",
    "scenebench.benchmarks.bench3d.cli",
    "scenebench.benchmarks.rio.cli",
    "scenebench.benchmarks.surprise3d.cli",
    "scenebench.judges.cli",
    "scenebench.synth.cli",
]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"scenebench {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version and exit."),
) -> None:
    """scenebench: evaluate 3D scene-understanding models on SURPRISE3D, RIO/3RScan and 3DBench."""


for _mod in COMMAND_MODULES:
    importlib.import_module(_mod).register(GROUPS)


def main(argv: list[str] | None = None) -> None:
    """Console entry point: input errors become one clear line and exit code 2, not a traceback."""
    try:
        app(args=argv, standalone_mode=False)
    except ScenebenchError as exc:
        from rich.console import Console

        Console(stderr=True).print(f"[bold red]error:[/bold red] {exc}", highlight=False, markup=True, soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt:
        typer.echo("interrupted: everything computed so far is saved in the run folder; rerun the same command to resume", err=True)
        sys.exit(130)
    except SystemExit:
        raise
    except Exception as exc:  # click's own usage errors
        import click

        # typer >= 0.2x raises the exceptions of its vendored click copy, not click's own.
        try:
            from typer._click import exceptions as vendored
        except ImportError:  # pragma: no cover - typer without a vendored click
            vendored = click.exceptions
        if isinstance(exc, (click.exceptions.ClickException, vendored.ClickException)):
            exc.show()
            sys.exit(exc.exit_code)
        if isinstance(exc, (click.exceptions.Abort, vendored.Abort)):
            sys.exit(1)
        raise
