"""The fuzz harness's valid dataset ("context"): a small synthetic copy of each benchmark, and work folders.

Generated once with ``scenebench.synth`` (two tiny houses) and reused: set ``SCENEBENCH_FUZZ_CONTEXT``
to a folder to share it between processes. :func:`overlay` mirrors it with one file replaced.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

CONTEXT_ENV = "SCENEBENCH_FUZZ_CONTEXT"
# 2: generator version 3 needs denser houses for SURPRISE3D questions; 3: the gt/ tree; 4: position
# relation records written when the tiny houses have none (generator 9)
CONTEXT_VERSION = "6"
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
    run(
        gen,
        # three or four rooms: since generator 11 SURPRISE3D asks only about categories none of whose
        # instances holds half their points, which two-room houses rarely have (no records at all);
        # seed 0 gives both splits some (102 test, 54 train)
        GenerateSettings(seed=0, houses=2, min_rooms=3, max_rooms=4, test_every=2, width=48, height=36, density=1.0),
        workers=1,
        progress=False,
    )
    _make_surprise3d(gen / "surprise3d", ctx.s3d)
    shutil.copytree(gen / "3dbench", ctx.b3d, ignore=shutil.ignore_patterns("train"))
    _ensure_counting(ctx.b3d)
    _ensure_position_relation(ctx.b3d)
    _make_bench3d_answers(ctx.b3d)
    shutil.copytree(gen / "3rscan", ctx.rio)
    # Released 3RScan keeps every scan's labels and the full index beside the scans: put the generated
    # ground-truth tree back in, so every reader (labels, rigid moves) is reached by the mutations.
    shutil.copytree(gen / "gt" / "3rscan", ctx.rio, dirs_exist_ok=True)
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


def _ensure_counting(b3d: Path) -> None:
    """Two-room houses seldom hold a set the balanced counting questions may ask about (each count of
    a window equally often the answer): without a record the counting reader would go unfuzzed, so
    write two in the generator's shape about the test house's scene."""
    path = b3d / "Counting.json"
    if json.loads(path.read_text()):
        return
    pcl = json.loads((b3d / "Detection.json").read_text())[0]["pcl"]
    recs = [
        {
            "question_id": k + 1,
            "id": str(k + 1),
            "pcl": pcl,
            "query": f"How many {obj} can you find in this house? Options: (A) 1 (B) 2 (C) 3 (D) 4 (E) 5 (F) 6",
            "gt_choices": [1, 2, 3, 4, 5, 6],
            "gt_choice": k + 1,
            "object": obj,
            "src_dataset": "scenebench",
        }
        for k, obj in enumerate(["chairs", "paintings"])
    ]
    path.write_text(json.dumps(recs))


def _ensure_position_relation(b3d: Path) -> None:
    """Two-room houses seldom hold a pair the position-relation questions may ask about (two unique
    objects in the viewer's room, neither on the viewer's anchor nor on the faced object, generator
    9): without a record the reader and the judge's "same" path would go unfuzzed and untried, so
    write two in the generator's shape about the test house's scene."""
    path = b3d / "PositionRelation.json"
    if json.loads(path.read_text()):
        return
    pcl = json.loads((b3d / "Detection.json").read_text())[0]["pcl"]
    recs = []
    for k, (a, b, answer) in enumerate([("chair", "table", 0), ("lamp", "bed", 2)]):
        choices = [f"The {a} is {w} the {b}." for w in ("behind", "to the left of", "in front of", "to the right of")]
        options = " ".join(f"({letter}) {c}" for letter, c in zip("ABCD", choices))
        recs.append(
            {
                "question_id": k + 1,
                "id": "1",
                "pcl": pcl,
                "query": f"Imagine you stand by the door, looking towards the window. Where is the {a} with respect to the {b}? Options: {options}",
                "gt_choices": choices,
                "gt_choice": answer,
                "objects": [a, b],
                "viewpoint": ["doorway", "window"],
                "src_dataset": "scenebench",
            }
        )
    path.write_text(json.dumps(recs))


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
    rows = [
        {"question_id": q, "task": t, "text": "The answer is (A). [1.0, 0.5, 1.0, 0.4, 0.4, 0.4]"}
        for q, t in expected_ids(bench, False).items()
    ]
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
    from scenebench.benchmarks.surprise3d.api import score_run

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
