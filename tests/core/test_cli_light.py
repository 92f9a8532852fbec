import subprocess
import sys

HEAVY = ["torch", "open3d", "ray", "openai", "xllamacpp", "trimesh", "pyarrow", "playwright", "scipy"]


def test_help_does_not_import_heavy_libraries():
    code = (
        "import sys\nfrom scenebench.cli import build_app\nbuild_app()\nheavy = [m for m in %r if m in sys.modules]\nprint(','.join(heavy))\n"
        % HEAVY
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"importing the CLI pulled in: {out.stdout.strip()}"


def test_help_runs():
    out = subprocess.run([sys.executable, "-m", "scenebench", "--help"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "score" in out.stdout and "list" in out.stdout


def test_command_index_names_the_module_that_registers_each_command():
    import typer

    from scenebench import cli
    from scenebench.declarations.catalog import command_index

    index = command_index()
    for (group, name), where in index.items():
        groups = {g: typer.Typer() for g in cli.GROUPS}
        cli.register([where], groups)
        names = [c.name for c in groups[group].registered_commands]
        assert name in names, f"{where} does not register `scenebench {group} {name}`"
        theirs = {n for (_, n), w in index.items() if w == where}
        others = {c.name for g in groups.values() for c in g.registered_commands} - theirs
        assert not others, f"{where} registers commands of other benchmarks too: {others}"


def test_score_command_imports_only_its_own_command_module():
    # `scenebench score rio --help` runs through main(): only RIO's declaration (and its extra
    # command's module) is imported, no other benchmark's.
    code = (
        "import sys\n"
        "from scenebench.cli import main\n"
        "try:\n"
        "    main(['score', 'rio', '--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(','.join(sorted(m for m in sys.modules if m.startswith('scenebench.benchmarks.') or m.startswith('scenebench.commands'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == (
        "scenebench.benchmarks.rio,scenebench.benchmarks.rio.cli,scenebench.benchmarks.rio.info,scenebench.benchmarks.rio.spec,scenebench.commands,scenebench.commands.benchmark"
    )
    assert "--predictions" in out.stdout


def test_the_default_app_has_every_command():
    from scenebench.cli import build_app

    app = build_app()

    names = {c.name for c in app.registered_commands} | {g.name for g in app.registered_groups}
    assert {"demo", "list", "report", "compare", "generate", "score", "validate", "run", "judge"} <= names


def test_scoring_code_imports_neither_scipy_nor_rich_nor_pydantic():
    # Issue 18: every `scenebench score` pays its imports before reading an input. scipy.optimize
    # (~0.5 s) is imported only where a matching needs it; rich only to print the finished results;
    # pydantic not at all (the results schema is msgspec: pydantic and its models took ~0.09 s).
    import os
    from pathlib import Path

    mods = [
        "scenebench.runtime.scoring",
        "scenebench.benchmarks.surprise3d.scorer",
        "scenebench.benchmarks.bench3d.run",
        "scenebench.benchmarks.bench3d.scorer",
        "scenebench.benchmarks.rio.scorer",
    ]
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in mods)
        + "print(','.join(m for m in ('scipy', 'rich', 'pydantic') if m in sys.modules))\n"
    )
    src = str(Path(__file__).resolve().parents[2] / "src")  # this checkout, not an installed copy
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": src})
    assert out.stdout.strip() == ""


def test_tune_gc_disables_collection_for_scoring_only():
    code = "import gc, sys\nfrom scenebench.cli import tune_gc\ntune_gc(sys.argv[1:])\nprint(gc.isenabled(), gc.get_threshold()[0])\n"
    got = {
        cmd: subprocess.run([sys.executable, "-c", code, cmd, "x"], capture_output=True, text=True, check=True).stdout.split()
        for cmd in ("score", "validate", "run")
    }
    assert got == {"score": ["False", "700"], "validate": ["False", "700"], "run": ["True", "50000"]}
