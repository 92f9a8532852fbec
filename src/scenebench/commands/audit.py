"""``scenebench audit DATA_DIR``: can the benchmark be passed without looking at the scene?

Runs shortcut probes and the oracle on a generated (or any same-layout) dataset and prints, per
task and question type, each probe against chance, flagging every probe more than ``--margin``
points above chance:

- ``blind`` = ``baseline:prior``: the question (and train-split answer statistics) only;
- ``labels`` = ``baseline:labels``: ground-truth instance labels + the question, no geometry
  (SURPRISE3D; elsewhere it answers like the blind prior);
- ``identity`` (RIO): "nothing moved", the identity pose for every instance;
- ``random``: random options / a random instance / a random yaw and shift;
- ``oracle``: the ground truth fed back through the whole pipeline (must be 100).

Chance: for multiple-choice tasks the expected accuracy of a uniform guess (mean of 1/#options);
for every other task the ``random`` probe's score. Each benchmark declares how it is probed
(``BenchmarkSpec.audit``, its package's ``audit.py``: most go through the ordinary runner, one run
folder per probe under ``--out``; RIO writes pose files and scores them). Only typer and the
standard library are imported at load time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer


def flag_rows(rows: list[dict[str, Any]], margin: float) -> list[dict[str, Any]]:
    """Mark every probe (not the oracle) scoring more than ``margin`` points above chance."""
    for row in rows:
        chance = row.get("chance")
        row["flags"] = (
            []
            if chance is None
            else [
                p
                for p in ("blind", "labels", "identity", "random")
                if row.get(p) is not None and p != "random" and row[p] > chance + margin
            ]
        )
    return rows


def format_table(rows: list[dict[str, Any]]) -> str:
    """A Markdown table: one row per task / question type, probes vs chance, flags."""

    def f(v: Any) -> str:
        return "-" if v is None else f"{v:.1f}"

    head = "| benchmark | task | group | metric | chance | blind | labels | identity | random | oracle | flagged (> chance + margin) |"
    lines = [head, "|" + "---|" * 11]
    for r in rows:
        flags = ", ".join(r.get("flags") or []) or "none"
        lines.append(
            f"| {r['benchmark']} | {r['task']} | {r['group']} | {r['metric']} | {f(r.get('chance'))} | {f(r.get('blind'))} | "
            f"{f(r.get('labels'))} | {f(r.get('identity'))} | {f(r.get('random'))} | {f(r.get('oracle'))} | {flags} |"
        )
    return "\n".join(lines)


def run_audit(
    data: Path,
    out: Path,
    *,
    seed: int = 0,
    margin: float = 10.0,
    split: str = "validation",
    benchmarks: tuple[str, ...] | None = None,
    progress: bool = False,
) -> list[dict[str, Any]]:
    """Run every probe on the benchmarks found in ``data`` (each declared benchmark with an audit,
    in its ``data_folder``; ``benchmarks``: only these); return the flagged rows (also saved as
    ``OUT/audit.json`` and ``OUT/audit.md``)."""
    from scenebench.benchmarks.catalog import specs
    from scenebench.errors import InputError
    from scenebench.io.files import atomic_write_json, atomic_write_text
    from scenebench.registry import load_object

    data = Path(data)
    if not data.is_dir():
        raise InputError(data, "data folder does not exist" if not data.exists() else "is not a folder")
    auditable = [s for s in specs() if s.audit and s.data_folder]
    order = list(benchmarks) if benchmarks is not None else [s.name for s in auditable]
    todo = [s for name in order for s in auditable if s.name == name and (data / s.data_folder).is_dir()]
    if not todo:
        folders = ", ".join(f"{s.data_folder}/" for s in auditable)
        raise InputError(data, f"holds none of {folders}", expected="a folder written by scenebench generate")
    rows: list[dict[str, Any]] = []
    for spec in todo:
        rows += load_object(spec.audit)(data / spec.data_folder, Path(out), seed=seed, split=split, progress=progress)
    flag_rows(rows, margin)
    atomic_write_json(Path(out) / "audit.json", {"data": str(data), "seed": seed, "margin": margin, "rows": rows})
    atomic_write_text(Path(out) / "audit.md", format_table(rows) + "\n")
    return rows


def audit_command(
    data: Path = typer.Argument(..., help="Dataset folder holding benchmark folders (as written by scenebench generate)."),
    out: Optional[Path] = typer.Option(
        None, "--out", help="Folder for the probe runs and audit.json / audit.md (default: DATA/../audit-<name>)."
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the random probe."),
    margin: float = typer.Option(10.0, "--margin", help="Flag probes more than this many points above chance."),
    split: str = typer.Option("validation", "--split", help="Split to probe, for benchmarks whose data has several."),
    benchmarks: Optional[str] = typer.Option(
        None, "--benchmarks", help="Comma list of benchmarks (default: every one found; scenebench list)."
    ),
    strict_exit: bool = typer.Option(False, "--fail-on-flag", help="Exit with code 1 when any probe is flagged (for CI)."),
    quiet: bool = typer.Option(False, "--quiet", help="No progress bars."),
) -> None:
    """Run blind, label-only, identity and random probes and the oracle; print each against chance."""
    out = out or data.resolve().parent / f"audit-{data.resolve().name}"
    rows = run_audit(
        data,
        out,
        seed=seed,
        margin=margin,
        split=split,
        benchmarks=tuple(b.strip() for b in benchmarks.split(",") if b.strip()) if benchmarks else None,
        progress=not quiet,
    )
    typer.echo(format_table(rows))
    flagged = [r for r in rows if r["flags"]]
    bad_oracle = [r for r in rows if r.get("oracle") is not None and r["oracle"] < 100.0 - 1e-6]
    typer.echo(
        f"\n{len(flagged)} of {len(rows)} rows flagged (probe > chance + {margin:g} points); "
        f"oracle below 100 on {len(bad_oracle)} rows; details: {out / 'audit.json'}"
    )
    if strict_exit and (flagged or bad_oracle):
        raise typer.Exit(1)


def register(groups: dict[str, typer.Typer]) -> None:
    groups["app"].command("audit")(audit_command)
