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
for every other task the ``random`` probe's score. 3DBench and SURPRISE3D probes go through the
ordinary runner (``scenebench run`` machinery, one run folder per probe under ``--out``); RIO probes
are written as prediction files and scored with :func:`scenebench.benchmarks.rio.scorer.score_rio`.
Only typer and the standard library are imported at load time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

PROBES = {"blind": "baseline:prior", "labels": "baseline:labels", "random": "random", "oracle": "oracle"}
RIO_PROBES = ("identity", "random", "oracle")
# 3DBench: the headline metric of each task in results.json (metrics.by_task.<task>)
BENCH3D_METRIC = {
    "classification": "accuracy",
    "counting": "accuracy",
    "position_relation": "accuracy",
    "detection": "f1",
    "visual_grounding": "acc_iou25",
    "visual_grounding_plus": "within_1m",
    "room_detection": "f1",
    "navigation": "success",
    "object_caption": "bleu4_py",
    "object_conversation": "bleu4_py",
    "scene_caption": "bleu4_py",
    "scene_qa": "bleu4_py",
    "relation": "bleu4_py",
}


def _num(v: Any) -> float | None:
    return None if v is None else float(v)


def _bench3d_rows(data: Path, out: Path, seed: int, progress: bool) -> list[dict[str, Any]]:
    from scenebench.models.sources.base import make_source
    from scenebench.runtime.runner import run_benchmark

    root = data / "3dbench"
    train = root / "train"
    source = make_source("3dbench", data=str(root), train=str(train) if train.is_dir() else None)
    samples = source.samples()
    chance: dict[str, float] = {}
    for task in sorted({s.task for s in samples}):
        opts = [len(s.options) for s in samples if s.task == task and s.options]
        if opts:
            chance[task] = 100.0 * sum(1.0 / k for k in opts) / len(opts)
    scores: dict[str, dict[str, dict[str, Any]]] = {}
    for probe, model in PROBES.items():
        res = run_benchmark(source, model, out / "3dbench" / probe, seed=seed, progress=progress).results
        scores[probe] = res.metrics.get("by_task", {})
    rows = []
    for task in sorted(scores["oracle"]):
        block = scores["oracle"][task]
        metric = _bench3d_metric(task, block)
        if metric is None:
            continue
        row = {"benchmark": "3dbench", "task": task, "group": "all", "metric": metric, "chance": chance.get(task), "n": None}
        for probe in PROBES:
            row[probe] = _num(scores[probe].get(task, {}).get(metric))
        if row["chance"] is None:
            row["chance"] = row["random"]
        rows.append(row)
    return rows


def _bench3d_metric(task: str, block: dict[str, Any]) -> str | None:
    want = BENCH3D_METRIC.get(task)
    if want and want in block:
        return want
    for k in ("accuracy", "bleu4_py", "f1", "success", "mIoU"):
        if k in block:
            return k
    numeric = [k for k, v in block.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return numeric[0] if numeric else None


def _surprise_rows(data: Path, out: Path, seed: int, progress: bool) -> list[dict[str, Any]]:
    from scenebench.models.sources.base import make_source
    from scenebench.runtime.runner import run_benchmark

    source = make_source("surprise3d", data=str(data / "surprise3d"))
    res = {
        probe: run_benchmark(source, model, out / "surprise3d" / probe, seed=seed, progress=progress).results
        for probe, model in PROBES.items()
    }
    rows = []
    groups = [("all", lambda r: r.metrics.get("overall", {}), lambda r: r.counts.n_samples)]
    for qt in sorted(res["oracle"].metrics.get("by_question_type", {})):
        groups.append(
            (
                qt,
                lambda r, qt=qt: r.metrics["by_question_type"].get(qt, {}),
                lambda r, qt=qt: (
                    r.counts_by_group.get("question_type", {}).get(qt).n_samples
                    if r.counts_by_group.get("question_type", {}).get(qt)
                    else None
                ),
            )
        )
    for name, get, count in groups:
        row = {"benchmark": "surprise3d", "task": "reasoning_segmentation", "group": name, "metric": "mIoU", "n": count(res["oracle"])}
        for probe in PROBES:
            row[probe] = _num(get(res[probe]).get("mIoU"))
        row["chance"] = row["random"]
        rows.append(row)
    return rows


def _rio_rows(data: Path, out: Path, seed: int, split: str, progress: bool) -> list[dict[str, Any]]:
    import numpy as np

    from scenebench.benchmarks.rio.loader import ThreeRScan
    from scenebench.benchmarks.rio.predictions import write_pose_predictions
    from scenebench.benchmarks.rio.scorer import score_rio
    from scenebench.runtime.runner import seeded_rng

    root = data / "3rscan"
    scan = ThreeRScan(root)
    rescans = scan.split_rescans(split)
    rows_by_probe: dict[str, list[dict[str, Any]]] = {p: [] for p in RIO_PROBES}
    for r in rescans:
        for g in scan.ground_truth(r):
            if g.excluded is not None:
                continue
            base = {"rescan": r.scan_id, "instance": int(g.instance)}
            rows_by_probe["identity"].append({**base, "pose": np.eye(4)})
            rows_by_probe["oracle"].append({**base, "pose": np.asarray(g.pose, float)})
            rng = seeded_rng(seed, r.scan_id, str(g.instance))
            th = float(rng.uniform(-np.pi, np.pi))
            c, s_ = np.cos(th), np.sin(th)
            m = np.eye(4)
            m[:3, :3] = [[c, -s_, 0], [s_, c, 0], [0, 0, 1]]
            centroid = np.asarray(g.centroid, float)
            shift = np.r_[rng.uniform(-1.0, 1.0, 2), 0.0]
            m[:3, 3] = centroid - m[:3, :3] @ centroid + shift  # turn about the object's vertical axis, then shift
            rows_by_probe["random"].append({**base, "pose": m})
    results = {}
    for probe, rows in rows_by_probe.items():
        folder = out / "rio" / probe
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "poses.jsonl"
        write_pose_predictions(path, rows)
        results[probe], _ = score_rio(root, path, split=split, out=folder / "score", overwrite=True, progress=progress, seed=seed)
    out_rows = []
    for name, get in (
        ("changed (rigid[], the protocol's samples)", lambda r: r.metrics.get("overall", {})),
        ("moved (not the identity)", lambda r: r.metrics.get("by_motion", {}).get("moved", {})),
    ):
        row = {"benchmark": "rio", "task": "relocalization", "group": name, "metric": "recall_10cm_10deg", "n": None}
        for probe in RIO_PROBES:
            row[probe] = _num(_recall(get(results[probe])))
        row["blind"] = row["identity"]  # the blind answer to "where is it now?" is "where it was"
        row["labels"] = None
        row["chance"] = row["random"]
        out_rows.append(row)
    return out_rows


def _recall(block: dict[str, Any]) -> float | None:
    for k in ("recall_0.1m_10deg", "recall_10cm_10deg", "Recall(0.1m,10deg)", "recall@0.1m10deg", "R@0.1m,10deg"):
        if k in block:
            return block[k]
    cands = [k for k in block if "recall" in k.lower() and ("0.1" in k or "10" in k) and "20" not in k and "0.2" not in k]
    return block[cands[0]] if cands else None


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
    benchmarks: tuple[str, ...] = ("3dbench", "surprise3d", "rio"),
    progress: bool = False,
) -> list[dict[str, Any]]:
    """Run every probe on the benchmarks found in ``data``; return the flagged rows (also saved as
    ``OUT/audit.json`` and ``OUT/audit.md``)."""
    from scenebench.errors import InputError
    from scenebench.io.files import atomic_write_json, atomic_write_text

    data = Path(data)
    if not data.is_dir():
        raise InputError(data, "data folder does not exist" if not data.exists() else "is not a folder")
    found = {"3dbench": (data / "3dbench").is_dir(), "surprise3d": (data / "surprise3d").is_dir(), "rio": (data / "3rscan").is_dir()}
    todo = [b for b in benchmarks if found.get(b)]
    if not todo:
        raise InputError(data, "holds none of 3dbench/, surprise3d/, 3rscan/", expected="a folder written by scenebench generate")
    rows: list[dict[str, Any]] = []
    if "3dbench" in todo:
        rows += _bench3d_rows(data, Path(out), seed, progress)
    if "surprise3d" in todo:
        rows += _surprise_rows(data, Path(out), seed, progress)
    if "rio" in todo:
        rows += _rio_rows(data, Path(out), seed, split, progress)
    flag_rows(rows, margin)
    atomic_write_json(Path(out) / "audit.json", {"data": str(data), "seed": seed, "margin": margin, "rows": rows})
    atomic_write_text(Path(out) / "audit.md", format_table(rows) + "\n")
    return rows


def audit_command(
    data: Path = typer.Argument(
        ..., help="Dataset folder holding 3dbench/, surprise3d/ and/or 3rscan/ (as written by scenebench generate)."
    ),
    out: Optional[Path] = typer.Option(
        None, "--out", help="Folder for the probe runs and audit.json / audit.md (default: DATA/../audit-<name>)."
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the random probe."),
    margin: float = typer.Option(10.0, "--margin", help="Flag probes more than this many points above chance."),
    split: str = typer.Option("validation", "--split", help="RIO split to probe."),
    benchmarks: str = typer.Option("3dbench,surprise3d,rio", "--benchmarks", help="Comma list of 3dbench, surprise3d, rio."),
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
        benchmarks=tuple(b.strip() for b in benchmarks.split(",") if b.strip()),
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
