"""Shared fault-injection harness: every scenebench reader, fed one mutated input file at a time.

Used by the atheris targets (``fuzz/fuzz_<target>.py``) and by the property tests in
``tests/faults/``. A **target** is one input file of one reader (for example the SURPRISE3D
annotation JSON, or a 3RScan ``semseg.v2.json``). :func:`run_target` builds a copy of a small valid
dataset (hard links, so nothing is copied) in which only that file is replaced by the bytes under
test, then runs the public reading *and scoring* path on it (``score_run``, ``score_3dbench``,
``score_rio``, ``RunDir.open``), so a bad value that slips past a reader and breaks a metric is
caught as well.

**The contract** (:func:`check_failure`): a run either succeeds or raises a
:class:`scenebench.errors.ScenebenchError` whose message names a file of the input (an
:class:`~scenebench.errors.InputError` must also carry it in ``.path``). When the file still parses
as the container the reader expects (valid JSON of the right top-level type, a loadable array
archive) the error must also say *where*: a record / line / key (``where``) or a field (``field``).
Anything else (``KeyError``, ``TypeError``, ``OverflowError``, numpy's ``ValueError``, ``MemoryError``
...) is a bug and propagates, which atheris reports as a crash and pytest as a failure.

The valid dataset ("context") is generated once with ``scenebench.synth`` (two tiny houses) and
reused: set ``SCENEBENCH_FUZZ_CONTEXT`` to a folder to share it between processes.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

CONTEXT_ENV = "SCENEBENCH_FUZZ_CONTEXT"
CONTEXT_VERSION = "2"  # 2: generator version 3 needs denser houses for SURPRISE3D questions
# Every n-th point of a generated scene is kept: small seeds make byte-level mutation land in the data.
SCENE_STRIDE = 25


# ------------------------------------------------------------------------------------------------
# Context: one small valid copy of each benchmark plus valid prediction files.


@dataclass(frozen=True)
class Context:
    root: Path

    @property
    def s3d(self) -> Path:
        return self.root / "s3d"

    @property
    def b3d(self) -> Path:
        return self.root / "b3d"

    @property
    def rio(self) -> Path:
        return self.root / "rio"

    def scene_ids(self) -> list[str]:
        return sorted(p.stem for p in (self.s3d / "scenes").glob("*.npz"))

    def rio_scan(self, kind: str) -> str:
        """A scan id of the validation split: ``reference`` or ``rescan``."""
        idx = json.loads((self.rio / "3RScan.json").read_text())
        scene = next(s for s in idx if s["type"] == "validation")
        return scene["reference"] if kind == "reference" else scene["scans"][0]["reference"]


def build_context(root: str | Path) -> Context:
    """Generate (once) the small valid dataset every target mutates; return it."""
    root = Path(root)
    ctx = Context(root)
    stamp = root / "context.json"
    if stamp.exists() and json.loads(stamp.read_text()).get("version") == CONTEXT_VERSION:
        return ctx
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    from scenebench.synth.pipeline import GenerateSettings, run

    gen = root / "generated"
    run(gen, GenerateSettings(seed=3, houses=2, min_rooms=2, max_rooms=2, test_every=2, width=48, height=36, density=1.0), workers=1, progress=False)
    _make_surprise3d(gen / "surprise3d", ctx.s3d)
    shutil.copytree(gen / "3dbench", ctx.b3d, ignore=shutil.ignore_patterns("train"))
    _make_bench3d_answers(ctx.b3d)
    shutil.copytree(gen / "3rscan", ctx.rio)
    _make_rio_predictions(ctx)
    _make_run_json(ctx)
    _make_pth_scene(ctx)
    stamp.write_text(json.dumps({"version": CONTEXT_VERSION}))
    return ctx


def default_context() -> Context:
    root = os.environ.get(CONTEXT_ENV) or str(Path(tempfile.gettempdir()) / f"scenebench-fuzz-context-{os.getuid()}")
    return build_context(root)


def _make_surprise3d(src: Path, dst: Path) -> None:
    from scenebench.io.arrays import load_npz

    (dst / "scenes").mkdir(parents=True)
    shutil.copy(src / "surprise-3d-val.json", dst / "annotations.json")
    for p in sorted((src / "scenes").glob("*.npz")):
        arrays = {k: v[::SCENE_STRIDE] for k, v in load_npz(p).items()}
        np.savez(dst / "scenes" / p.name, **arrays)  # uncompressed: byte mutations hit the numbers
    ann = json.loads((dst / "annotations.json").read_text())
    lines = [json.dumps({"index": i, "mask_indices": [0, 1, 2, i + 3]}) for i in range(len(ann))]
    (dst / "predictions.jsonl").write_text("\n".join(lines) + "\n")
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({"index": list(range(len(ann))), "mask_indices": [[0, 1, 2, i + 3] for i in range(len(ann))]})
    pq.write_table(table, dst / "predictions.parquet")


def _make_pth_scene(ctx: Context) -> None:
    """A ``.pth`` twin of the first scene (only when torch is installed)."""
    try:
        import torch
    except ImportError:
        return
    from scenebench.io.arrays import load_npz

    sid = ctx.scene_ids()[0]
    arrays = load_npz(ctx.s3d / "scenes" / f"{sid}.npz")
    (ctx.root / "pth").mkdir()
    torch.save({k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in arrays.items()}, ctx.root / "pth" / f"{sid}.pth")


def _make_bench3d_answers(b3d: Path) -> None:
    from scenebench.benchmarks.bench3d.loader import load_bench
    from scenebench.benchmarks.bench3d.predictions import expected_ids

    bench = load_bench(b3d)
    rows = [{"question_id": q, "task": t, "text": "The answer is (A). [1.0, 0.5, 1.0, 0.4, 0.4, 0.4]"} for q, t in expected_ids(bench, False).items()]
    (b3d / "answers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def _make_rio_predictions(ctx: Context) -> None:
    from scenebench.benchmarks.rio.loader import ThreeRScan

    data = ThreeRScan(ctx.rio)
    rows = []
    for r in data.split_rescans("validation"):
        for iid in sorted(data.reference_instances()[r.scan_id]):
            rows.append({"rescan": r.scan_id, "instance": iid, "pose": np.eye(4).tolist()})
    (ctx.root / "rio_predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def _make_run_json(ctx: Context) -> None:
    from scenebench.benchmarks.surprise3d.scorer import score_run

    run = ctx.root / "seed_run"
    score_run(ctx.s3d / "annotations.json", ctx.s3d / "scenes", ctx.s3d / "predictions.jsonl", run, n_resamples=0, progress=False)
    shutil.copy(run / "run.json", ctx.root / "run.json")
    shutil.rmtree(run)


# ------------------------------------------------------------------------------------------------
# Work folders: the context with one file replaced.


def overlay(src: Path, dst: Path, replace: dict[str, bytes]) -> None:
    """Mirror ``src`` into ``dst`` with hard links (symlinks would leave the folder when resolved),
    writing ``replace[rel]`` bytes instead of the file ``rel``."""
    for dirpath, _, files in os.walk(src):
        rel_dir = Path(dirpath).relative_to(src)
        (dst / rel_dir).mkdir(parents=True, exist_ok=True)
        for f in files:
            rel = (rel_dir / f).as_posix()
            if rel in replace:
                continue
            try:
                os.link(Path(dirpath) / f, dst / rel_dir / f)
            except OSError:  # another filesystem
                shutil.copy(Path(dirpath) / f, dst / rel_dir / f)
    for rel, data in replace.items():
        (dst / rel).parent.mkdir(parents=True, exist_ok=True)
        (dst / rel).write_bytes(data)


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
    from scenebench.benchmarks.surprise3d.scorer import score_run

    res, _, _ = score_run(ann or ctx.s3d / "annotations.json", scenes or ctx.s3d / "scenes", preds or ctx.s3d / "predictions.jsonl",
                          work / "run", n_resamples=0, progress=False)
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
    from scenebench.benchmarks.bench3d.run import score_3dbench

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
    from scenebench.io.arrays import load_npy

    from scenebench.errors import InputError
    from scenebench.models.sources.bench3d import Bench3DSource

    rel = _b3d_scene_cloud(ctx).relative_to(ctx.b3d).as_posix()
    overlay(ctx.b3d, work / "b3d", {rel: data})
    problems = check_point_clouds(load_bench(work / "b3d"))
    if problems:  # what `scenebench validate 3dbench` reports
        raise InputError(work / "b3d" / rel, problems[0], field="pcl")
    load_npy(work / "b3d" / rel)
    view = Bench3DSource(str(work / "b3d")).scene(rel)  # what `scenebench run 3dbench` gives a model
    return view.get("points"), view.get("colors")


def _rio_score(ctx: Context, work: Path, root: Path, preds: Path) -> Any:
    from scenebench.benchmarks.rio.scorer import score_rio

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
        Target("rio_semseg", "json", lambda c: c.rio / c.rio_scan("reference") / "semseg.v2.json",
               _run_rio_file(lambda c: f"{c.rio_scan('reference')}/semseg.v2.json"), dict),
        Target("rio_ply", "ply", lambda c: c.rio / c.rio_scan("reference") / "labels.instances.annotated.v2.ply",
               _run_rio_file(lambda c: f"{c.rio_scan('reference')}/labels.instances.annotated.v2.ply")),
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


# ------------------------------------------------------------------------------------------------
# Mutations. ``choose(n)`` returns an int in [0, n): hypothesis' ``data.draw`` or a fuzzer's bytes.

Choose = Callable[[int], int]

HUGE_INT = 10**30
HUGE_DIGITS = int("9" * 400)  # beyond float range: float(x) raises OverflowError
NASTY_VALUES: list[Any] = [
    None, True, False, 0, -1, -(2**63), 2**63, HUGE_INT, -HUGE_INT, HUGE_DIGITS, 1.5, -0.0, 1e308, -1e308, 5e-324,
    "", " ", "x", "²", "١٢", "0x10", "1e3", "NaN", "-1", "\u202e\x00", "a" * 300, [], [None], [[1, 2], [3]], [1, "a"],
    [HUGE_INT, 0, 0], [0.5] * 17, {}, {"a": 1}, [[]], [[[0]]],
]
# Tokens Python's json accepts but strict JSON does not (spliced in as raw text).
RAW_TOKENS = ["NaN", "Infinity", "-Infinity", "1e999", "-1e999"]


def _paths(doc: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path to a value inside ``doc`` (not the root)."""
    out: list[tuple] = []
    if isinstance(doc, dict):
        for k, v in doc.items():
            out.append(prefix + (k,))
            out.extend(_paths(v, prefix + (k,)))
    elif isinstance(doc, list):
        for i, v in enumerate(doc[:6]):  # a few elements of long lists are enough
            out.append(prefix + (i,))
            out.extend(_paths(v, prefix + (i,)))
    return out


def _parent(doc: Any, path: tuple) -> Any:
    for k in path[:-1]:
        doc = doc[k]
    return doc


def mutate_json(doc: Any, choose: Choose) -> tuple[Any, str | None, str]:
    """One structural mutation of a parsed JSON document.

    Returns ``(document, raw_token, description)``: ``raw_token`` (NaN, Infinity, 1e999) is spliced
    into the serialized text in place of a marker, since ``json.dumps`` cannot write it literally.
    """
    import copy

    doc = copy.deepcopy(doc)
    paths = _paths(doc)
    if not paths:
        return doc, None, "unchanged (no inner value)"
    path = paths[choose(len(paths))]
    parent, key = _parent(doc, path), path[-1]
    op = choose(6)
    if op == 0:
        v = NASTY_VALUES[choose(len(NASTY_VALUES))]
        parent[key] = v
        return doc, None, f"{list(path)} = {v!r:.40}"
    if op == 1:
        tok = RAW_TOKENS[choose(len(RAW_TOKENS))]
        parent[key] = "@@RAW@@"
        return doc, tok, f"{list(path)} = {tok}"
    if op == 2:
        if isinstance(parent, dict):
            del parent[key]
        else:
            parent.pop(key)
        return doc, None, f"delete {list(path)}"
    if op == 3 and isinstance(parent, list):
        parent.append(copy.deepcopy(parent[key]))  # a duplicated record / id
        return doc, None, f"duplicate {list(path)}"
    if op == 4:
        v = parent[key]
        parent[key] = [v, v] if not isinstance(v, list) else (v[:1] if len(v) > 1 else v + v + [v[0] if v else 0])
        return doc, None, f"reshape {list(path)}"
    if isinstance(parent, dict):
        parent["unknown_" + str(choose(3))] = NASTY_VALUES[choose(len(NASTY_VALUES))]
        return doc, None, f"unknown key beside {list(path)}"
    parent[key] = {"wrapped": parent[key]}
    return doc, None, f"wrap {list(path)}"


def dump_json(doc: Any, raw: str | None) -> bytes:
    text = json.dumps(doc, ensure_ascii=False)
    if raw is not None:
        text = text.replace('"@@RAW@@"', raw, 1)
    return text.encode("utf-8")


def mutate_jsonl(text: bytes, choose: Choose) -> tuple[bytes, str]:
    """Mutate one record of a JSONL file (structured), or duplicate one line."""
    lines = text.decode("utf-8").splitlines()
    i = choose(len(lines))
    if choose(5) == 0:
        lines.insert(i, lines[i])
        return ("\n".join(lines) + "\n").encode(), f"line {i + 1} duplicated"
    doc, raw, what = mutate_json(json.loads(lines[i]), choose)
    lines[i] = dump_json(doc, raw).decode("utf-8")
    return ("\n".join(lines) + "\n").encode(), f"line {i + 1}: {what}"


def mutate_bytes(data: bytes, choose: Choose) -> tuple[bytes, str]:
    """Byte-level damage: truncation, empty file, flipped bytes, non-UTF-8 bytes, a spliced block."""
    n = len(data)
    op = choose(6)
    if op == 0:
        k = choose(max(n, 1))
        return data[:k], f"truncated to {k} of {n} bytes"
    if op == 1:
        return b"", "empty file"
    if op == 2:
        b = bytearray(data)
        for _ in range(1 + choose(8)):
            b[choose(n)] = choose(256)
        return bytes(b), "random bytes overwritten"
    if op == 3:
        k = choose(max(n, 1))
        return data[:k] + b"\xff\xfe\x80" + data[k:], f"non-UTF-8 bytes inserted at {k}"
    if op == 4:
        k = choose(max(n, 1))
        return data[:k] + data[k:][: choose(64) + 1] * (2 + choose(4)) + data[k:], f"block repeated at {k}"
    return data + data[: max(1, n // 2)], "half the file appended"


def mutate_arrays(arrays: dict[str, np.ndarray], choose: Choose) -> tuple[dict[str, Any], str]:
    """Structured damage to a dict of arrays: wrong shapes, dtypes, NaN/inf, huge values, missing keys."""
    arrays = dict(arrays)
    keys = sorted(arrays)
    k = keys[choose(len(keys))]
    a = arrays[k]
    op = choose(9)
    if op == 0:
        del arrays[k]
        return arrays, f"{k} removed"
    if op == 1:
        arrays[k] = a[: max(0, len(a) - 1 - choose(3))]
        return arrays, f"{k} shortened"
    if op == 2:
        arrays[k] = a.reshape(-1)
        return arrays, f"{k} flattened"
    if op == 3:
        b = a.astype(np.float64)
        b.reshape(-1)[choose(b.size)] = [np.nan, np.inf, -np.inf, 1e300][choose(4)]
        arrays[k] = b
        return arrays, f"{k} with a non-finite or huge value"
    if op == 4:
        arrays[k] = a.astype("U8")
        return arrays, f"{k} as strings"
    if op == 5:
        arrays[k] = np.zeros((0,) + a.shape[1:], a.dtype)
        return arrays, f"{k} empty"
    if op == 6:
        b = a.astype(np.int64)
        b.reshape(-1)[choose(b.size)] = [2**62, -(2**62), -5][choose(3)]
        arrays[k] = b
        return arrays, f"{k} with an enormous integer"
    if op == 7:
        arrays[k] = a.astype(np.complex64)
        return arrays, f"{k} as complex numbers"
    arrays["unexpected"] = np.arange(3)
    arrays[k] = np.stack([a, a], axis=-1)
    return arrays, f"{k} with an extra axis"


def encode_arrays(fmt: str, arrays: dict[str, Any]) -> bytes:
    buf = io.BytesIO()
    if fmt == "npz":
        np.savez(buf, **arrays)
    elif fmt == "pth":
        import torch

        torch.save({k: (torch.from_numpy(np.ascontiguousarray(v)) if v.dtype.kind in "biuf" else v.tolist()) for k, v in arrays.items()}, buf)
    else:
        np.save(buf, arrays["array"], allow_pickle=False)
    return buf.getvalue()


def decode_arrays(fmt: str, data: bytes) -> dict[str, np.ndarray]:
    if fmt == "npz":
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    if fmt == "pth":
        import torch

        return {k: v.numpy() for k, v in torch.load(io.BytesIO(data), weights_only=True).items()}
    return {"array": np.load(io.BytesIO(data), allow_pickle=False)}


def mutate_ply(data: bytes, choose: Choose) -> tuple[bytes, str]:
    """Structured damage to an ASCII PLY: a bad header count, a property dropped, a bad vertex value."""
    text = data.decode("ascii")
    head, _, body = text.partition("end_header\n")
    lines = body.splitlines()
    op = choose(5)
    if op == 0:
        head = head.replace("element vertex ", "element vertex 9", 1)
        return (head + "end_header\n" + body).encode(), "vertex count inflated"
    if op == 1:
        head = head.replace("property ushort objectId\n", "", 1)
        return (head + "end_header\n" + body).encode(), "objectId property dropped"
    if op == 2:
        i = choose(min(len(lines), 200))
        parts = lines[i].split()
        parts[choose(len(parts))] = ["nan", "inf", "-inf", "1e999", "x", "-1", "99999999999", ""][choose(8)]
        lines[i] = " ".join(parts)
        return (head + "end_header\n" + "\n".join(lines) + "\n").encode(), f"vertex line {i} damaged"
    if op == 3:
        head = head.replace("property float x", "property double x", 1).replace("format ascii", "format binary_little_endian", 1)
        return (head + "end_header\n" + body).encode(), "format says binary, body is text"
    return (head + "end_header\n" + "\n".join(lines[: choose(len(lines))]) + "\n").encode(), "vertex lines cut"


def structured_mutation(target: Target, seed: bytes, choose: Choose) -> tuple[bytes, str, bool]:
    """``(bytes, description, located)`` for one structure-aware mutation of ``seed``."""
    if target.fmt == "json":
        doc, raw, what = mutate_json(json.loads(seed), choose)
        return dump_json(doc, raw), what, True
    if target.fmt == "jsonl":
        data, what = mutate_jsonl(seed, choose)
        return data, what, True
    if target.fmt in ("npz", "pth", "npy"):
        arrays, what = mutate_arrays(decode_arrays(target.fmt, seed), choose)
        if target.fmt == "npy" and "array" not in arrays:
            arrays["array"] = np.zeros(0)
        return encode_arrays(target.fmt, arrays), what, target.fmt != "npy"
    if target.fmt == "ply":
        data, what = mutate_ply(seed, choose)
        return data, what, False
    return _mutate_parquet(seed, choose)


def _mutate_parquet(seed: bytes, choose: Choose) -> tuple[bytes, str, bool]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = pq.read_table(io.BytesIO(seed)).to_pylist()
    i = choose(len(rows))
    rec, raw, what = mutate_json(rows[i], choose)
    if raw is not None:
        rec = {k: (float(raw.replace("Infinity", "inf").replace("1e999", "inf")) if v == "@@RAW@@" else v) for k, v in rec.items()}
    rows[i] = rec
    buf = io.BytesIO()
    try:
        table = pa.Table.from_pylist(rows)
        pq.write_table(table, buf)
    except (pa.ArrowException, OverflowError):
        # Arrow cannot hold this mix in one column: keep each value as its JSON text instead.
        table = pa.Table.from_pylist([{k: json.dumps(v) for k, v in r.items()} for r in rows])
        buf = io.BytesIO()
        pq.write_table(table, buf)
        what += " (columns as JSON strings)"
    # A value deleted from every row removes the column: a schema error, not a row's.
    same_columns = set(table.column_names) == set(pq.read_schema(io.BytesIO(seed)).names)
    return buf.getvalue(), f"row {i + 1}: {what}", same_columns


def bytes_chooser(data: bytes) -> Choose:
    """A ``choose`` that consumes a fuzzer's bytes (zeros once they run out)."""
    pos = 0

    def choose(n: int) -> int:
        nonlocal pos
        if n <= 1:
            return 0
        v = int.from_bytes(data[pos:pos + 4].ljust(4, b"\0"), "little")
        pos += 4
        return v % n

    return choose


def fuzz_one(name: str, data: bytes, ctx: Context, work: Path, seed: bytes) -> str:
    """One fuzzer input: the first byte picks raw bytes, a byte-level or a structured mutation of the seed."""
    if not data:
        return run_target(name, b"", ctx, work)
    mode, rest = data[0] % 3, data[1:]
    if mode == 0:
        return run_target(name, rest, ctx, work)
    if mode == 1:
        mutated, _ = mutate_bytes(seed, bytes_chooser(rest))
        return run_target(name, mutated, ctx, work)
    mutated, _, located = structured_mutation(TARGETS[name], seed, bytes_chooser(rest))
    return run_target(name, mutated, ctx, work, located=located)


def fuzz_main(name: str) -> None:
    """Entry point of ``fuzz/fuzz_<name>.py``: ``python fuzz/fuzz_<name>.py [corpus] -atheris_runs=N``."""
    import sys

    import atexit

    import atheris

    # Instrument scenebench (coverage feedback for libFuzzer) before anything imports it. The CI smoke
    # run skips it (SCENEBENCH_FUZZ_NO_INSTRUMENT=1): a few dozen inputs gain nothing from coverage
    # and instrumenting costs a second per process.
    instrument = os.environ.get("SCENEBENCH_FUZZ_NO_INSTRUMENT") != "1"
    with atheris.instrument_imports(include=["scenebench"]) if instrument else contextlib.nullcontext():
        import scenebench.benchmarks.bench3d.run  # noqa: F401
        import scenebench.benchmarks.rio.scorer  # noqa: F401
        import scenebench.benchmarks.surprise3d.scorer  # noqa: F401
        import scenebench.io.arrays  # noqa: F401
        import scenebench.models.sources.bench3d  # noqa: F401
        import scenebench.runtime.rundir  # noqa: F401
    ctx = default_context()
    seed = TARGETS[name].seed_path(ctx).read_bytes()
    shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None  # fsync-free run folders
    work = Path(tempfile.mkdtemp(prefix=f"fuzz-{name}-", dir=shm))
    counts: dict[str, int] = {}

    def one_input(data: bytes) -> None:
        label = fuzz_one(name, data, ctx, work, seed)
        key = "ok" if label == "ok" else label.split(":")[0]
        counts[key] = counts.get(key, 0) + 1

    def summary() -> None:  # libFuzzer ends the process with exit(): report from atexit
        shutil.rmtree(work, ignore_errors=True)
        print(f"fuzz {name}: {sum(counts.values())} inputs, outcomes {json.dumps(counts, sort_keys=True)}", file=sys.stderr, flush=True)

    atexit.register(summary)
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()
