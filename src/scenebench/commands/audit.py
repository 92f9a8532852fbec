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
folder per probe under ``--out``; RIO writes pose files and scores them).

Trained probes (``BenchmarkSpec.audit_trained``, needs the ``audit`` extra, scikit-learn): models
fitted on the train split that see only the question, or only file names / ids / record order,
scored on the test split; each row has ``n``, the probe's score, its Wilson 95% interval and
chance, and is flagged when the interval's lower bound exceeds chance + ``--probe-margin`` (5)
points (:mod:`scenebench.metrics.probes`); free-text probes (a template answer, a retrieved train
answer, the template with the question's object names copied in, the template of train questions
naming the same objects) have no interval and are flagged above 1.5x a random train answer's
BLEU-4 (its mean over 20 draws). They go to the ``trained`` section of ``audit.json`` and a
second table. Only typer and the standard library are imported at load time.
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


def format_trained_table(rows: list[dict[str, Any]]) -> str:
    """A Markdown table of the trained probes: score, Wilson 95% interval, chance, flag."""

    def f(v: Any) -> str:
        return "-" if v is None else f"{v:.1f}"

    lines = [
        "| benchmark | task | group | probe | metric | n | score | 95% interval | chance | flagged (low > chance + margin; text: > 1.5x chance) |",
        "|" + "---|" * 10,
    ]
    for r in rows:
        interval = "-" if r["low"] is None else f"{f(r['low'])}–{f(r['high'])}"
        lines.append(
            f"| {r['benchmark']} | {r['task']} | {r['group']} | {r['probe']} | {r['metric']} | {r['n']} | {f(r['score'])} | "
            f"{interval} | {f(r.get('chance'))} | {'FLAG' if r['flag'] else 'no'} |"
        )
    return "\n".join(lines)


def fill_trained_chance(trained: list[dict[str, Any]], rows: list[dict[str, Any]], margin: float) -> None:
    """A trained row without a chance of its own (no options) takes the ``random`` probe's score on
    the same benchmark, task and group, and is flagged against it."""
    from scenebench.metrics.probes import probe_row

    random = {(r["benchmark"], r["task"], r["group"]): r.get("random") for r in rows}
    for t in trained:
        if t.get("chance") is None:
            chance = random.get((t["benchmark"], t["task"], t["group"]))
            if chance is not None:
                t.update({k: v for k, v in probe_row(t["n"], t["correct"], chance, margin=margin).items() if k in ("chance", "flag")})


def run_trained(
    data: Path, out: Path, todo: list[Any], *, seed: int, split: str, progress: bool, required: bool
) -> tuple[list[dict[str, Any]], str | None]:
    """The trained-probe rows of the benchmarks in ``todo`` that declare them; with scikit-learn
    absent, ``([], why)`` unless ``required`` (then :class:`MissingExtraError`)."""
    from scenebench.extras import available, require
    from scenebench.registry import load_object

    if not available("sklearn"):
        if required:
            require("sklearn", "audit", "the trained probes of scenebench audit")
        return [], "scikit-learn is not installed: pip install 'scenebench[audit]' for the trained probes"
    out_rows: list[dict[str, Any]] = []
    for spec in todo:
        if spec.audit_trained:
            out_rows += load_object(spec.audit_trained)(data / spec.data_folder, Path(out), seed=seed, split=split, progress=progress)
    return out_rows, None


def run_audit(
    data: Path,
    out: Path,
    *,
    seed: int = 0,
    margin: float = 10.0,
    split: str = "validation",
    benchmarks: tuple[str, ...] | None = None,
    progress: bool = False,
    trained: bool | None = None,
    probe_margin: float = 5.0,
) -> list[dict[str, Any]]:
    """Run every probe on the benchmarks found in ``data`` (each declared benchmark with an audit,
    in its ``data_folder``; ``benchmarks``: only these); return the flagged rows (also saved as
    ``OUT/audit.json`` and ``OUT/audit.md``). ``trained``: run the trained probes (None: when
    scikit-learn is installed; True: fail without it), saved in ``audit.json``'s ``trained``
    section (``trained_skipped``: why there is none) and below the table in ``audit.md``."""
    from scenebench.declarations.catalog import specs
    from scenebench.errors import InputError
    from scenebench.io.files import atomic_write_json, atomic_write_text
    from scenebench.registry import load_object

    data = Path(data)
    if not data.is_dir():
        raise InputError(data, "data folder does not exist" if not data.exists() else "is not a folder")
    auditable = [s for s in specs() if s.audit and s.data_folder]
    names = ", ".join(s.name for s in auditable)
    known = {s.name for s in specs()}
    for name in benchmarks or ():
        # Named but not audited: say so, rather than that the folder holds none of the benchmarks.
        if name not in known:
            raise InputError(
                None, f"unknown benchmark {name!r}", field="--benchmarks", expected=f"one or more of {names} (scenebench list)"
            )
        if name not in {s.name for s in auditable}:
            raise InputError(
                None, f"the audit does not support {name} (it has no probes)", field="--benchmarks", expected=f"one or more of {names}"
            )
        folder = next(s.data_folder for s in auditable if s.name == name)
        if not (data / folder).is_dir():
            raise InputError(data, f"holds no {folder}/ for {name}", expected="a folder written by scenebench generate")
    order = list(benchmarks) if benchmarks is not None else [s.name for s in auditable]
    todo = [s for name in order for s in auditable if s.name == name and (data / s.data_folder).is_dir()]
    if not todo:
        folders = ", ".join(f"{s.data_folder}/" for s in auditable)
        raise InputError(data, f"holds none of {folders}", expected="a folder written by scenebench generate")
    rows: list[dict[str, Any]] = []
    for spec in todo:
        rows += load_object(spec.audit)(data / spec.data_folder, Path(out), seed=seed, split=split, progress=progress)
    flag_rows(rows, margin)
    doc: dict[str, Any] = {"data": str(data), "seed": seed, "margin": margin, "rows": rows}
    md = format_table(rows) + "\n"
    if trained is not False:
        trained_rows, skipped = run_trained(data, Path(out), todo, seed=seed, split=split, progress=progress, required=bool(trained))
        fill_trained_chance(trained_rows, rows, probe_margin)
        doc.update({"probe_margin": probe_margin, "trained": trained_rows})
        if skipped:
            doc["trained_skipped"] = skipped
        md += "\n" + (skipped or format_trained_table(trained_rows)) + "\n"
    atomic_write_json(Path(out) / "audit.json", doc)
    atomic_write_text(Path(out) / "audit.md", md)
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
    trained: Optional[bool] = typer.Option(
        None,
        "--trained/--no-trained",
        help="Trained question-only / metadata-only probes (default: when scikit-learn, the audit extra, is installed).",
    ),
    probe_margin: float = typer.Option(5.0, "--probe-margin", help="Flag trained probes whose 95% lower bound exceeds chance + this."),
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
        trained=trained,
        probe_margin=probe_margin,
    )
    typer.echo(format_table(rows))
    flagged = [r for r in rows if r["flags"]]
    bad_oracle = [r for r in rows if r.get("oracle") is not None and r["oracle"] < 100.0 - 1e-6]
    typer.echo(
        f"\n{len(flagged)} of {len(rows)} rows flagged (probe > chance + {margin:g} points); "
        f"oracle below 100 on {len(bad_oracle)} rows; details: {out / 'audit.json'}"
    )
    import json

    doc = json.loads((out / "audit.json").read_text(encoding="utf-8"))
    trained_flagged = [t for t in doc.get("trained", []) if t["flag"]]
    if "trained" in doc:
        typer.echo("\n" + (doc.get("trained_skipped") or format_trained_table(doc["trained"])))
        typer.echo(
            f"\n{len(trained_flagged)} of {len(doc['trained'])} trained-probe rows flagged "
            f"(95% lower bound > chance + {probe_margin:g} points; text: BLEU-4 > 1.5x a random answer's)"
        )
    if strict_exit and (flagged or bad_oracle or trained_flagged):
        raise typer.Exit(1)


def register(groups: dict[str, typer.Typer]) -> None:
    groups["app"].command("audit")(audit_command)
