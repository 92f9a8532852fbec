"""The ``scenebench`` command. Thin: every subcommand parses options and calls library code.

Command modules are imported when a command line needs them (``scenebench score surprise3d ...``
builds only SURPRISE3D's commands from its declaration; ``--help`` and other commands import all of them) and
must stay light at import time (typer and the standard library only; numpy, torch, open3d, ray and
friends are imported inside the command functions), so ``scenebench --help`` is fast and works
without any extra installed. :func:`build_app` builds the application (with every command by default).
"""

from __future__ import annotations

import gc
import importlib
import sys
from pathlib import Path

import typer

from scenebench._version import __version__
from scenebench.declarations.catalog import BUILTIN, GENERIC_COMMANDS, command_index, command_modules
from scenebench.errors import ScenebenchError

# The groups a command module's ``register(groups)`` receives, with the help of each sub-command group.
GROUPS = ("app", "score", "validate", "run", "judge")
_GROUP_HELP = {
    "score": "Score a saved predictions file against a benchmark.",
    "validate": "Check benchmark data and predictions; scores nothing.",
    "run": "Run a model over a benchmark (resumable), then score it.",
    "judge": "LLM judges: a local server, agreement between judges.",
}

# Each module defines ``register(groups: dict[str, typer.Typer])``: the shared commands, then the
# benchmarks' (built from their declarations in scenebench.declarations.catalog), then judges and synth.
SHARED_MODULES = [
    "scenebench.commands.audit",
    "scenebench.commands.demo",
    "scenebench.commands.export",
    "scenebench.commands.listing",
    "scenebench.commands.report",
]
LAST_MODULES = ["scenebench.commands.judge", "scenebench.synth.cli"]


def all_command_modules() -> list[str]:
    """Every command module; the generic builder among them makes the commands of every declaration,
    those declared by :func:`~scenebench.declarations.catalog.register` or the
    ``scenebench.benchmarks`` entry points included (read when it registers, not at import)."""
    return [*SHARED_MODULES, *command_modules(), *LAST_MODULES]


def modules_for(argv: list[str]) -> list[str]:
    """What a command line needs registered: one benchmark's commands for ``score|validate|run NAME``
    (start-up time is part of every scoring run), else every command module."""
    if len(argv) >= 2 and argv[0] in ("score", "validate", "run"):
        if argv[1] in BUILTIN:  # only its declaration is read
            return [f"{GENERIC_COMMANDS}#{argv[1]}"]
        where = command_index(plugins=False).get((argv[0], argv[1]))
        if where:
            return [where]
    return all_command_modules()


def register(modules: list[str], groups: dict[str, typer.Typer]) -> None:
    """Import command modules and add their commands to ``groups``. An entry
    ``"module#NAME"`` registers only benchmark NAME's commands of that module. A command already
    in its group is not added again, so registering twice is harmless."""
    for entry in modules:
        mod, _, name = entry.partition("#")
        module = importlib.import_module(mod)
        if name:
            module.register(groups, [name])
        elif mod == GENERIC_COMMANDS:  # the builder itself skips the commands already there
            module.register(groups)
        elif not any(c.callback is not None and c.callback.__module__ == mod for g in groups.values() for c in g.registered_commands):
            module.register(groups)


def application() -> typer.Typer:
    """The application with every command registered (tests, plugins, docs)."""
    return build_app()


def _version(value: bool) -> None:
    if value:
        typer.echo(f"scenebench {__version__}")
        raise typer.Exit()


def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version and exit."),
) -> None:
    """scenebench: evaluate 3D scene-understanding models on SURPRISE3D, RIO/3RScan and 3DBench."""


def build_app(modules: list[str] | None = None) -> typer.Typer:
    """A new application with the commands of ``modules`` (default: every command module, plugins'
    included); each call builds its own, so nothing is registered into shared objects."""
    app = typer.Typer(
        name="scenebench",
        help="Trustworthy evaluation and scalable benchmark data for 3D scene understanding.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    app.callback()(_root)
    groups = {"app": app}
    for name, text in _GROUP_HELP.items():
        groups[name] = typer.Typer(help=text, no_args_is_help=True)
        app.add_typer(groups[name], name=name)
    register(list(dict.fromkeys(all_command_modules() if modules is None else modules)), groups)
    return app


INTERRUPTED = "interrupted: everything computed so far is saved in the run folder; rerun the same command to resume"


def _click_exception_types() -> tuple[type, ...]:
    """click's exception base, wherever it lives: typer >= 0.2x vendors click as ``typer._click``
    (and does not depend on click), older typer raises the exceptions of the ``click`` package."""
    try:
        from typer._click.exceptions import ClickException
    except ImportError:  # typer < 0.2x: click is its dependency
        from click.exceptions import ClickException  # type: ignore[no-redef]
    return (ClickException,)


def _say_error(message: str, *, label: str = "error:") -> None:
    """One line on stderr; ``message`` is printed literally (user text is never read as Rich markup)."""
    from rich.console import Console
    from rich.text import Text

    from scenebench.redact import redact_text

    Console(stderr=True, highlight=False, soft_wrap=True).print(Text.assemble((label, "bold red"), " ", redact_text(message)))


def _is_disk_full(exc: BaseException) -> bool:
    import errno

    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        return True
    return type(exc).__name__ == "OperationalError" and any(
        t in str(exc).lower() for t in ("disk is full", "disk i/o error", "database or disk is full")
    )


def _chain(exc: BaseException, depth: int = 6) -> list[BaseException]:
    out: list[BaseException] = []
    e: BaseException | None = exc
    while e is not None and len(out) < depth and e not in out:
        out.append(e)
        e = e.__cause__ or e.__context__
    return out


def _configuration_error(exc: BaseException) -> str | None:
    """One line for an error of the set-up, not of scenebench: a server that refuses the connection
    (a model's or judge's --base-url), no Ray cluster at --address. None for anything else."""
    from scenebench.redact import redact_url

    chain = _chain(exc)
    found = None
    for e in chain:
        name, mod = type(e).__name__, type(e).__module__
        if (
            isinstance(e, ConnectionError)
            or name in ("APIConnectionError", "APITimeoutError")
            or (mod.split(".")[0] in ("httpx", "httpcore", "urllib3", "requests") and ("Connect" in name or "Timeout" in name))
        ):
            found = e
            break
    if found is None:
        return None
    text = " ".join(str(found).split())[:300]
    if "Ray instance" in text or type(found).__module__.startswith("ray"):
        return f"no Ray cluster to join: {text} (start one with `ray start --head`, or drop --address to run a local one)"
    deepest = " ".join(str(chain[-1]).split())[:200]
    request = getattr(found, "request", None)
    url = getattr(request, "url", None)
    where = f" to {redact_url(str(url))}" if url is not None else ""
    detail = text if deepest == text or not deepest else f"{text} {deepest}"
    return f"cannot connect{where}: {detail} (is the server running, and are --base-url / --judge-base-url right?)"


def _run_folder_of(args: list[str]) -> Path | None:
    """The run folder the command line names (``--out``/``-o``) once the command has opened it (it
    holds ``run.json``), else None: where a traceback log belongs."""
    for k, a in enumerate(args):
        value = a.split("=", 1)[1] if a.startswith("--out=") else args[k + 1] if a in ("--out", "-o") and k + 1 < len(args) else None
        if value and (Path(value) / "run.json").is_file():
            return Path(value)
    return None


def private_log_folder() -> Path | None:
    """``$TMPDIR/scenebench-logs-<uid>``, created 0700; None when it cannot be trusted (a symlink, not
    a folder, someone else's, readable by others): another user could plant a link there that the
    log writer would follow, or read the tracebacks."""
    import os
    import stat
    import tempfile

    uid = os.getuid() if hasattr(os, "getuid") else None
    folder = Path(tempfile.gettempdir()) / f"scenebench-logs-{uid if uid is not None else os.getlogin()}"
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        st = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or (uid is not None and st.st_uid != uid) or st.st_mode & 0o077:
        return None
    return folder


def write_private_file(folder: Path, name: str, text: str) -> Path | None:
    """Create ``folder/name`` (mode 0600) and write ``text``: never through a symlink (the folder is
    opened with ``O_NOFOLLOW``, the file created with ``O_EXCL | O_NOFOLLOW``), never over an existing
    file (a taken name gets a numbered one). None when it cannot be written."""
    import os

    nofollow = getattr(os, "O_NOFOLLOW", 0)
    try:
        dir_fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | nofollow)
    except OSError:
        return None
    try:
        stem, dot, ext = name.rpartition(".")
        for k in range(100):
            candidate = name if k == 0 else f"{stem}-{k}{dot}{ext}"
            try:
                fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL | nofollow, 0o600, dir_fd=dir_fd)
            except FileExistsError:
                continue
            except OSError:
                return None
            with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as fh:
                fh.write(text)
            return folder / candidate
    finally:
        os.close(dir_fd)
    return None


def _write_traceback_log(exc: BaseException, args: list[str]) -> Path | None:
    """Write the full traceback (secrets masked) beside the run it belongs to (``RUN/logs/``), else in
    this user's private temp folder (:func:`private_log_folder`)."""
    import datetime as _dt
    import os
    import traceback

    from scenebench.redact import redact_argv, redact_text

    text = "".join(traceback.format_exception(exc))
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    name = f"error-{stamp}-{os.getpid()}.log"
    body = redact_text(f"scenebench {__version__}\ncommand: {' '.join(redact_argv(sys.argv))}\n\n{text}")
    run = _run_folder_of(args)
    if run is not None:
        logs = run / "logs"
        try:
            logs.mkdir(mode=0o700, exist_ok=True)
            if not logs.is_symlink():
                path = write_private_file(logs, name, body)
                if path is not None:
                    return path
        except OSError:
            pass
    private = private_log_folder()
    return write_private_file(private, name, body) if private is not None else None


def _usage_error(exc: Exception) -> int:
    """A click usage error as one line (``error: No such option: --x (see: scenebench run --help)``)."""
    ctx = getattr(exc, "ctx", None)
    if type(exc).__name__ == "NoArgsIsHelpError":  # a bare group: its help (typer's rich help is already printed)
        exc.show()
        return 2
    msg = exc.format_message() if hasattr(exc, "format_message") else str(exc)
    if ctx is not None and getattr(ctx, "command_path", None):
        msg += f" (see: {ctx.command_path} --help)"
    _say_error(" ".join(msg.split()))
    return int(getattr(exc, "exit_code", 2) or 2)


def tune_gc(args: list[str]) -> None:
    """The one place scenebench sets the collector, for a command's process (library callers keep
    theirs): a command decodes millions of small containers that are not cyclic and live until it
    ends (3RScan indexes, records), and each collection walked them again. ``score`` and
    ``validate`` read, compute and exit: no cyclic collection at all. Longer commands (``run``, a
    judge server) still collect young cycles; the oldest generation only after ~10^9 allocations."""
    gc.freeze()  # what start-up imported lives as long as the process
    if args[:1] in (["score"], ["validate"]):
        gc.disable()
    else:
        gc.set_threshold(50_000, 20, 1_000)


def main(argv: list[str] | None = None) -> None:
    """Console entry point.

    - Input errors (``ScenebenchError``): one clear line, exit 2.
    - Usage errors: one line, exit 2 (old typer raises ``click`` exceptions, new typer its own vendored copy).
    - Ctrl-C: ``interrupted: ... rerun ... to resume``, exit 130 (new typer turns the interrupt into a
      returned exit code 130 under ``standalone_mode=False``; old typer into an ``Abort``).
    - Disk full: one line, exit 1; what was saved stays consistent and the rerun resumes.
    - A set-up error (a server refusing the connection, no Ray cluster at --address): one line, exit 2.
    - Anything else (a bug): one line plus the path of a log file with the full traceback, exit 1.
    """
    args = sys.argv[1:] if argv is None else list(argv)
    tune_gc(args)
    try:
        rv = build_app(modules_for(args))(args=args, standalone_mode=False)
    except ScenebenchError as exc:
        _say_error(str(exc))
        sys.exit(2)
    except KeyboardInterrupt:
        typer.echo(INTERRUPTED, err=True)
        sys.exit(130)
    except SystemExit:
        raise
    except Exception as exc:  # noqa: BLE001 - the one place every error ends: each kind is handled below
        if isinstance(exc, _click_exception_types()):
            sys.exit(_usage_error(exc))
        if isinstance(exc, typer.Abort):
            cause = exc.__cause__ or exc.__context__
            if isinstance(cause, KeyboardInterrupt):  # typer < 0.2x: Ctrl-C arrives as Abort
                typer.echo(INTERRUPTED, err=True)
                sys.exit(130)
            _say_error("aborted")
            sys.exit(1)
        if _is_disk_full(exc):
            where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
            _say_error(
                f"could not write to disk{where}: {exc} (is the disk full?). Everything saved so far is kept; "
                "free some space and rerun the same command to resume"
            )
            sys.exit(1)
        config = _configuration_error(exc)
        if config is not None:
            _say_error(config)
            sys.exit(2)
        log = _write_traceback_log(exc, args)
        first = " ".join(str(exc).split())[:300]
        tail = f"; full traceback in {log}" if log else ""
        _say_error(f"unexpected {type(exc).__name__}: {first} (a bug in scenebench or a plugin{tail})")
        sys.exit(1)
    if isinstance(rv, int) and not isinstance(rv, bool) and rv != 0:
        if rv == 130:
            typer.echo(INTERRUPTED, err=True)
        sys.exit(rv)
