"""The ``scenebench`` command. Thin: every subcommand parses options and calls library code.

Command modules are imported when a command line needs them (``scenebench score surprise3d ...``
imports only the SURPRISE3D command module; ``--help`` and other commands import all of them) and
must stay light at import time (typer and the standard library only; numpy, torch, open3d, ray and
friends are imported inside the command functions), so ``scenebench --help`` is fast and works
without any extra installed. ``scenebench.cli.app`` is the application with every command.
"""

from __future__ import annotations

import importlib
import sys

import typer

from scenebench import __version__
from scenebench.benchmarks.catalog import command_index, command_modules
from scenebench.errors import ScenebenchError

_app = typer.Typer(
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
_app.add_typer(score_app, name="score")
_app.add_typer(validate_app, name="validate")
_app.add_typer(run_app, name="run")
_app.add_typer(judge_app, name="judge")

GROUPS = {"app": _app, "score": score_app, "validate": validate_app, "run": run_app, "judge": judge_app}

# Each module defines ``register(groups: dict[str, typer.Typer])``: the shared commands, then each
# benchmark's own (declared in scenebench.benchmarks.catalog), then judges and synth.
COMMAND_MODULES = [
    "scenebench.commands.demo",
    "scenebench.commands.listing",
    "scenebench.commands.report",
    "scenebench.commands.run",
    *command_modules(),
    "scenebench.judges.cli",
    "scenebench.synth.cli",
]


# ``scenebench score|validate BENCHMARK ...`` imports only the module of that command (start-up time is
# part of every scoring run: benchmarks/bench_e2e.py); anything else (help, other commands) imports all.
COMMAND_INDEX = command_index()
_registered: set[str] = set()


def register(modules: list[str]) -> None:
    """Import command modules and add their commands (each module once)."""
    for mod in modules:
        if mod not in _registered:
            importlib.import_module(mod).register(GROUPS)
            _registered.add(mod)


def modules_for(argv: list[str]) -> list[str]:
    """The command modules a command line needs: one for an indexed command, else all of them."""
    mod = COMMAND_INDEX.get(tuple(argv[:2])) if len(argv) >= 2 else None  # type: ignore[call-overload]
    return [mod] if mod else COMMAND_MODULES


def __getattr__(name: str) -> typer.Typer:
    """``scenebench.cli.app``: the application with every command registered (tests, plugins)."""
    if name == "app":
        register(COMMAND_MODULES)
        return _app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"scenebench {__version__}")
        raise typer.Exit()


@_app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version and exit."),
) -> None:
    """scenebench: evaluate 3D scene-understanding models on SURPRISE3D, RIO/3RScan and 3DBench."""


def main(argv: list[str] | None = None) -> None:
    """Console entry point: input errors become one clear line and exit code 2, not a traceback."""
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        register(modules_for(args))
        _app(args=args, standalone_mode=False)
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
