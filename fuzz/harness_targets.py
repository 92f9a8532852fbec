"""The fuzz targets (one input file of one reader each), how each is run, and the error contract.

See :mod:`harness` for the contract; :data:`TARGETS` maps a target name to its :class:`Target`.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness_context import Context, overlay

# ------------------------------------------------------------------------------------------------
# Targets.


@dataclass(frozen=True)
class Target:
    name: str
    fmt: str  # json | jsonl | npz | pth | npy | ply | parquet: how structured mutations are made
    seed_path: Callable[[Context], Path]  # the valid file being replaced
    run: Callable[[Context, Path, bytes], Any]  # (context, work folder, bytes) -> runs reader + scorer
    top: type | None = None  # the top-level JSON type the reader expects (json targets)


def _s3d_score(ctx: Context, work: Path, *, ann: Path | None = None, scenes: Path | None = None, preds: Path | None = None) -> Any:
    from scenebench.benchmarks.surprise3d.api import score_run

    res, _, _ = score_run(
        ann or ctx.s3d / "annotations.json",
        scenes or ctx.s3d / "scenes",
        preds or ctx.s3d / "predictions.jsonl",
        work / "run",
        n_resamples=0,
        progress=False,
    )
    return res


def _run_s3d_annotations(ctx: Context, work: Path, data: bytes) -> Any:
    from scenebench.benchmarks.surprise3d.annotations import load_annotations

    ann = work / "annotations.json"
    ann.write_bytes(data)
    n = len(load_annotations(ann))
    preds = work / "predictions.jsonl"
    preds.write_text("".join(json.dumps({"index": i, "mask_indices": [0, 1, 2]}) + "\n" for i in range(n)))
    return _s3d_score(ctx, work, ann=ann, preds=preds)


def _run_s3d_scene(suffix: str) -> Callable[[Context, Path, bytes], Any]:
    def run(ctx: Context, work: Path, data: bytes) -> Any:
        sid = ctx.scene_ids()[0]
        rel = f"{sid}.npz"
        if suffix == ".pth":
            overlay(ctx.s3d / "scenes", work / "scenes", {rel: b""})
            (work / "scenes" / rel).unlink()
            (work / "scenes" / f"{sid}.pth").write_bytes(data)
        else:
            overlay(ctx.s3d / "scenes", work / "scenes", {rel: data})
        return _s3d_score(ctx, work, scenes=work / "scenes")

    return run


def _run_s3d_predictions(suffix: str) -> Callable[[Context, Path, bytes], Any]:
    def run(ctx: Context, work: Path, data: bytes) -> Any:
        p = work / f"predictions{suffix}"
        p.write_bytes(data)
        return _s3d_score(ctx, work, preds=p)

    return run


def _b3d_score(ctx: Context, work: Path, data_dir: Path, answers: Path) -> Any:
    from scenebench.benchmarks.bench3d.api import score_3dbench

    # both protocols: the official rules keep the released arithmetic (an answer at inf gives an
    # infinite path loss), whose aggregates must still be written (issue 27 item 5)
    score_3dbench(data_dir, answers, out=work / "run-official", protocol="official", n_resamples=0, allow_missing=True)
    return score_3dbench(data_dir, answers, out=work / "run", n_resamples=0, allow_missing=True)


def _run_b3d_task(stem: str) -> Callable[[Context, Path, bytes], Any]:
    def run(ctx: Context, work: Path, data: bytes) -> Any:
        from scenebench.benchmarks.bench3d.loader import check_point_clouds, load_bench

        overlay(ctx.b3d, work / "b3d", {f"{stem}.json": data})
        check_point_clouds(load_bench(work / "b3d"))
        return _b3d_score(ctx, work, work / "b3d", ctx.b3d / "answers.jsonl")

    return run


def _run_b3d_answers(ctx: Context, work: Path, data: bytes) -> Any:
    p = work / "answers.jsonl"
    p.write_bytes(data)
    return _b3d_score(ctx, work, ctx.b3d, p)


def _b3d_scene_cloud(ctx: Context) -> Path:
    return sorted((ctx.b3d / "scene").glob("*.npy"))[0]


def _run_b3d_npy(ctx: Context, work: Path, data: bytes) -> Any:
    from scenebench.benchmarks.bench3d.loader import check_point_clouds, load_bench
    from scenebench.benchmarks.bench3d.source import Bench3DSource
    from scenebench.errors import InputError
    from scenebench.io.arrays import load_npy

    rel = _b3d_scene_cloud(ctx).relative_to(ctx.b3d).as_posix()
    overlay(ctx.b3d, work / "b3d", {rel: data})
    problems = check_point_clouds(load_bench(work / "b3d"))
    if problems:  # what `scenebench validate 3dbench` reports
        raise InputError(work / "b3d" / rel, problems[0], field="pcl")
    load_npy(work / "b3d" / rel)
    view = Bench3DSource(str(work / "b3d")).scene(rel)  # what `scenebench run 3dbench` gives a model
    return view.get("points"), view.get("colors")


def _rio_score(ctx: Context, work: Path, root: Path, preds: Path) -> Any:
    from scenebench.benchmarks.rio.api import score_rio

    res, _ = score_rio(root, preds, out=work / "run", n_resamples=0, progress=False)
    return res


def _run_rio_file(rel_of: Callable[[Context], str]) -> Callable[[Context, Path, bytes], Any]:
    def run(ctx: Context, work: Path, data: bytes) -> Any:
        from scenebench.benchmarks.rio.loader import ThreeRScan

        overlay(ctx.rio, work / "rio", {rel_of(ctx): data})
        res = _rio_score(ctx, work, work / "rio", ctx.root / "rio_predictions.jsonl")
        if rel_of(ctx).endswith(".ply"):  # geometry is read lazily: ask for it so the damaged PLY is read
            d = ThreeRScan(work / "rio")
            for r in d.split_rescans("validation"):
                d.points(r.scene_id)
        return res

    return run


def _run_rio_predictions(ctx: Context, work: Path, data: bytes) -> Any:
    p = work / "rio_predictions.jsonl"
    p.write_bytes(data)
    return _rio_score(ctx, work, ctx.rio, p)


def _run_run_json(ctx: Context, work: Path, data: bytes) -> Any:
    from scenebench.runtime.rundir import RunDir

    meta = json.loads((ctx.root / "run.json").read_text())
    (work / "run").mkdir()
    (work / "run" / "run.json").write_bytes(data)
    return RunDir(work / "run").open(meta)


TARGETS: dict[str, Target] = {
    t.name: t
    for t in (
        Target("surprise3d_annotations", "json", lambda c: c.s3d / "annotations.json", _run_s3d_annotations, list),
        Target("surprise3d_scene_npz", "npz", lambda c: c.s3d / "scenes" / f"{c.scene_ids()[0]}.npz", _run_s3d_scene(".npz")),
        Target("surprise3d_scene_pth", "pth", lambda c: c.root / "pth" / f"{c.scene_ids()[0]}.pth", _run_s3d_scene(".pth")),
        Target("surprise3d_predictions_jsonl", "jsonl", lambda c: c.s3d / "predictions.jsonl", _run_s3d_predictions(".jsonl")),
        Target("surprise3d_predictions_parquet", "parquet", lambda c: c.s3d / "predictions.parquet", _run_s3d_predictions(".parquet")),
        Target("bench3d_counting", "json", lambda c: c.b3d / "Counting.json", _run_b3d_task("Counting"), list),
        Target("bench3d_detection", "json", lambda c: c.b3d / "Detection.json", _run_b3d_task("Detection"), list),
        Target("bench3d_navigation", "json", lambda c: c.b3d / "Navigation.json", _run_b3d_task("Navigation"), list),
        Target("bench3d_room_detection", "json", lambda c: c.b3d / "RoomDetection.json", _run_b3d_task("RoomDetection"), list),
        Target("bench3d_grounding", "json", lambda c: c.b3d / "VisualGrounding.json", _run_b3d_task("VisualGrounding"), list),
        Target("bench3d_scene_qa", "json", lambda c: c.b3d / "SVQA.json", _run_b3d_task("SVQA"), list),
        Target("bench3d_answers", "jsonl", lambda c: c.b3d / "answers.jsonl", _run_b3d_answers),
        Target("bench3d_pointcloud_npy", "npy", _b3d_scene_cloud, _run_b3d_npy),
        Target("rio_index", "json", lambda c: c.rio / "3RScan.json", _run_rio_file(lambda c: "3RScan.json"), list),
        Target("rio_objects", "json", lambda c: c.rio / "objects.json", _run_rio_file(lambda c: "objects.json"), dict),
        Target(
            "rio_semseg",
            "json",
            lambda c: c.rio / c.rio_scan("reference") / "semseg.v2.json",
            _run_rio_file(lambda c: f"{c.rio_scan('reference')}/semseg.v2.json"),
            dict,
        ),
        Target(
            "rio_ply",
            "ply",
            lambda c: c.rio / c.rio_scan("reference") / "labels.instances.annotated.v2.ply",
            _run_rio_file(lambda c: f"{c.rio_scan('reference')}/labels.instances.annotated.v2.ply"),
        ),
        Target("rio_predictions", "jsonl", lambda c: c.root / "rio_predictions.jsonl", _run_rio_predictions),
        Target("run_json", "json", lambda c: c.root / "run.json", _run_run_json, dict),
    )
}


# ------------------------------------------------------------------------------------------------
# The contract.


class ContractViolation(AssertionError):
    """A ScenebenchError that does not say which file (or where in it) is wrong."""


def check_failure(exc: BaseException, work: Path, ctx: Context, *, located: bool, mutated: Path | None = None) -> str:
    """Return the outcome label of a failed run, or raise when the failure breaks the contract.

    ``located`` applies to errors about the ``mutated`` file itself; an error about another file
    (a scene the mutated annotation now names, which does not exist) names that file instead.
    """
    from scenebench.errors import InputError, ScenebenchError

    if not isinstance(exc, ScenebenchError):
        raise exc
    msg = str(exc)
    roots = (str(work), str(ctx.root))
    if isinstance(exc, InputError):
        if not exc.path or exc.path not in msg:
            raise ContractViolation(f"InputError without the file: {msg!r}") from exc
    if not any(r in msg for r in roots):
        raise ContractViolation(f"{type(exc).__name__} names no input file: {msg!r}") from exc
    if located and isinstance(exc, InputError) and exc.path == str(mutated) and not (exc.where or exc.field):
        raise ContractViolation(f"InputError on a well-formed file does not say where: {msg!r}") from exc
    return f"{type(exc).__name__}: {exc.reason if isinstance(exc, InputError) else msg}"


def run_target(name: str, data: bytes, ctx: Context, work: Path, *, located: bool = False) -> str:
    """Run target ``name`` on ``data`` in a fresh ``work`` folder; return ``"ok"`` or the error label.

    ``located``: the bytes are well-formed for the container (structured mutation), so a refusal
    must also name the record / line / key.
    """
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    target = TARGETS[name]
    try:
        target.run(ctx, work, data)
    except BaseException as exc:  # noqa: BLE001 - the contract decides what is allowed
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        mutated = next((p for p in work.rglob(target.seed_path(ctx).name)), None)
        return check_failure(exc, work, ctx, located=located, mutated=mutated)
    return "ok"
