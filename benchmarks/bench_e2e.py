"""End-to-end scoring speed, file to results.json (issue 18). Prints figures; asserts nothing.

For each benchmark it writes one workload, then runs, in the same run and in interleaved rounds
(``scenebench``, plain, [baseline], ``scenebench``, plain, ...), each command as a child of a fresh
driver process that reads the child's peak RSS (``resource.getrusage(RUSAGE_CHILDREN)``):

- ``scenebench score <benchmark> ...`` (``python -m scenebench``: interpreter start-up, imports,
  reading and validating every input, scoring, the SQLite run folder, the 1,000-resample bootstrap
  and results.json, as a user runs it), into a fresh run folder each round;
- a plain script on the same files (json.loads per line, a per-sample / per-instance loop, a
  results.json with the same headline metrics) -- the yardstick of the issue;
- optionally (``--baseline-src DIR``) the same ``scenebench score`` command from another source
  tree (e.g. ``git archive`` of main extracted to DIR), for before/after figures and peak RSS.

Workloads (defaults):

- SURPRISE3D: 10 scenes x 200,000 points, 300 samples each (3,000), ``mask_indices`` JSONL of
  about 54 MB; plain = json.loads + np.isin per sample (an (N,) GT mask and a predicted mask each);
- 3DBench: 8,000 answers of the eight rule-scored tasks (``bench_3dbench.make``); plain = none
  (the figure asked for is absolute: < 1.5 s);
- RIO: 200,000 ground-truth instance poses (2,000 rescans x 100 instances, symmetry codes 0/1/2,
  poses as 4x4); plain = json.loads per line and a per-instance symmetry-aware error
  (``instance_errors_reference`` of ``tests/rio/reference.py``), recalls and medians. Also timed: the *decode floor*, Python with
  numpy decoding every input file with msgspec and nothing else; plain / floor bounds the ratio any
  scorer of these files can reach on the machine.

Medians of the rounds are printed with the load average (the machine is shared; expect noise). The
timed source trees are byte-compiled first, as an installed copy is.

    python benchmarks/bench_e2e.py [--rounds 3] [--only surprise3d|3dbench|rio] [--baseline-src DIR] [--keep DIR]

With ``surprise3d``, the start-up is timed first (``--startup-runs``, default 5): interpreter start to
the opening of the annotation file (an audit hook ends the child there), and ``score surprise3d --help``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]

DRIVER = r"""
import resource, subprocess, sys, time
t = time.perf_counter()
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
dt = time.perf_counter() - t
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{r.returncode} {u.ru_maxrss} {dt:.4f} {u.ru_utime + u.ru_stime:.4f}")
if r.returncode:
    sys.stderr.write(r.stderr[-3000:])
"""


def compile_sources(trees: list[Path]) -> None:
    """Write the .pyc files of the timed source trees first, as ``pip install`` does: with
    ``PYTHONDONTWRITEBYTECODE=1`` (set on some machines, CI images among them) every timed command
    would otherwise compile each module it imports again (~0.09 CPU-s for ``score surprise3d``),
    a cost no installed copy pays."""
    for tree in trees:
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree)], check=True, stdout=subprocess.DEVNULL)


def measure(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """(wall seconds, peak RSS MB, CPU seconds user + system) of ``cmd`` run as the only child of a
    fresh driver process. CPU time is printed beside wall time: on a shared machine other jobs
    stretch the wall clock far more than the CPU time a command needs."""
    out = subprocess.run([sys.executable, "-c", DRIVER, *cmd], capture_output=True, text=True, env=env)
    rc, kb, dt, cpu = out.stdout.split()
    if rc != "0":
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{out.stderr}")
    return float(dt), int(kb) / 1024, float(cpu)


# ------------------------------------------------------------------------------------------------
# SURPRISE3D


def surprise3d_data(root: Path, n_scenes: int, n_points: int, per_scene: int) -> dict[str, Path]:
    from scenebench.benchmarks.surprise3d.writer import annotation_record, write_annotations, write_scene

    rng = np.random.default_rng(18)
    scenes = root / "scenes"
    records: list[dict] = []
    with open(root / "preds.jsonl", "w") as fh:
        for s in range(n_scenes):
            scene_id = f"scene{s:04d}"
            n_inst = 60
            weights = rng.gamma(1.0, 1.0, n_inst + 1)
            weights[0] = weights[1:].sum() * 0.25
            inst = rng.choice(np.arange(-1, n_inst), size=n_points, p=weights / weights.sum()).astype(np.int32)
            centres = rng.random((n_inst + 1, 3)) * [8.0, 6.0, 2.5]
            coords = (centres[inst + 1] + rng.normal(scale=0.3, size=(n_points, 3))).astype(np.float32)
            write_scene(scenes / f"{scene_id}.npz", coords, rng.random((n_points, 3)) * 255, inst)
            order = np.argsort(inst, kind="stable")
            bounds = np.searchsorted(inst[order], np.arange(-1, n_inst + 1))
            for k in range(per_scene):
                targets = rng.choice(n_inst, size=int(rng.integers(1, 3)), replace=False)
                gt = np.concatenate([order[bounds[t + 1] : bounds[t + 2]] for t in targets])
                # 40% of the GT points plus 0.4% of the scene: a mediocre model, about 2,000 indices
                keep = gt[rng.random(gt.size) < 0.4]
                pred = np.unique(np.concatenate([keep, rng.integers(0, n_points, n_points // 250)]))
                records.append(annotation_record(scene_id, [int(t) for t in targets], f"question {len(records)}", ["x"], f"t{k % 6}"))
                fh.write(json.dumps({"index": len(records) - 1, "mask_indices": pred.tolist()}) + "\n")
    write_annotations(root / "ann.json", records)
    return {"ann": root / "ann.json", "scenes": scenes, "preds": root / "preds.jsonl"}


PLAIN_S3D = r"""
import json, sys
from collections import defaultdict
import numpy as np
ann_path, scenes, preds, out = sys.argv[1:5]
ann = json.load(open(ann_path))
per_type = defaultdict(list)
cache = {}
for line in open(preds):
    rec = json.loads(line)
    a = ann[rec["index"]]
    sid = a["scene_id"]
    if sid not in cache:
        cache = {sid: np.load(f"{scenes}/{sid}.npz")["sampled_instance_anno_id"]}
    inst = cache[sid]
    gt = np.isin(inst, a["object_id"])
    pred = np.zeros(inst.size, dtype=bool)
    pred[np.asarray(rec["mask_indices"], dtype=np.int64)] = True
    inter = int((gt & pred).sum())
    union = int((gt | pred).sum())
    iou = inter / union if union else 0.0
    per_type[a["question_type"]].append(iou)
    per_type["overall"].append(iou)
res = {k: {"mIoU": 100 * float(np.mean(v)), "A25": 100 * float(np.mean(np.array(v) >= 0.25)),
           "A50": 100 * float(np.mean(np.array(v) >= 0.5)), "n": len(v)} for k, v in per_type.items()}
json.dump(res, open(out, "w"), indent=2)
"""


def surprise3d_cmds(files: dict[str, Path], run: Path) -> tuple[list[str], list[str]]:
    ours = [
        "-m",
        "scenebench",
        "score",
        "surprise3d",
        "-a",
        str(files["ann"]),
        "-s",
        str(files["scenes"]),
        "-p",
        str(files["preds"]),
        "--out",
        str(run),
        "--no-progress",
    ]
    plain = ["-c", PLAIN_S3D, str(files["ann"]), str(files["scenes"]), str(files["preds"]), str(run.with_suffix(".plain.json"))]
    return ours, plain


# ------------------------------------------------------------------------------------------------
# 3DBench


def bench3d_data(root: Path, per_task: int) -> dict[str, Path]:
    sys.path.insert(0, str(REPO / "benchmarks"))
    from bench_3dbench import make  # type: ignore[import-not-found]

    from scenebench.benchmarks.bench3d.writer import write_task

    raw, ans = make(per_task, 40)
    for t, rs in raw.items():
        write_task(root / "bench", t, rs)
    with open(root / "answers.jsonl", "w") as f:
        for t, rs in raw.items():
            for r in rs:
                f.write(json.dumps({"question_id": r["question_id"], "task": t, "text": ans[r["question_id"]]}) + "\n")
    return {"data": root / "bench", "preds": root / "answers.jsonl"}


def bench3d_cmds(files: dict[str, Path], run: Path) -> tuple[list[str], None]:
    return [
        "-m",
        "scenebench",
        "score",
        "3dbench",
        "--data",
        str(files["data"]),
        "--predictions",
        str(files["preds"]),
        "--out",
        str(run),
    ], None


# ------------------------------------------------------------------------------------------------
# RIO


def rio_data(root: Path, n_rescans: int, per_scan: int) -> dict[str, Path]:
    from scipy.spatial.transform import Rotation

    from scenebench.benchmarks.rio.writer import write_index

    rng = np.random.default_rng(18)
    scenes, objects, preds = [], {}, []
    n = n_rescans * per_scan
    R_gt = Rotation.random(n, random_state=rng).as_matrix()
    t_gt = rng.normal(size=(n, 3))
    R_noise = Rotation.from_rotvec(rng.normal(size=(n, 3)) * 0.08).as_matrix()
    t_noise = rng.normal(size=(n, 3)) * 0.05
    sym = rng.choice([0, 1, 2], size=n, p=[0.6, 0.3, 0.1])
    k = 0
    for s in range(n_rescans):
        ref, resc = f"ref-{s:05d}", f"rescan-{s:05d}"
        rigid = []
        for i in range(1, per_scan + 1):
            T = np.eye(4)
            T[:3, :3], T[:3, 3] = R_gt[k], t_gt[k]
            rigid.append({"instance_reference": i, "symmetry": int(sym[k]), "transform": T})
            P = np.eye(4)
            P[:3, :3], P[:3, 3] = R_noise[k] @ R_gt[k], t_gt[k] + t_noise[k]
            preds.append({"rescan": resc, "instance": i, "pose": P.tolist()})
            k += 1
        scenes.append({"reference": ref, "type": "validation", "scans": [{"reference": resc, "rigid": rigid}]})
        objects[ref] = [{"id": i, "label": ["chair", "table", "lamp"][i % 3]} for i in range(1, per_scan + 1)]
    (root / "rio").mkdir()
    write_index(root / "rio", scenes, objects)
    rio_semseg(root / "rio", n_rescans, per_scan)
    with open(root / "poses.jsonl", "w") as fh:
        for p in preds:
            fh.write(json.dumps(p) + "\n")
    return {"data": root / "rio", "preds": root / "poses.jsonl"}


def rio_semseg(root: Path, n_rescans: int, per_scan: int) -> None:
    """``<reference>/semseg.v2.json`` with each instance's oriented box (its centroid is the pivot of
    symmetric rotations), so no scan geometry is needed."""
    rng = np.random.default_rng(19)
    for s in range(n_rescans):
        groups = [
            {
                "objectId": i,
                "id": i,
                "label": ["chair", "table", "lamp"][i % 3],
                "obb": {
                    "centroid": [round(float(x), 4) for x in rng.normal(size=3)],
                    "axesLengths": [0.5, 0.5, 0.8],
                    "normalizedAxes": [1, 0, 0, 0, 1, 0, 0, 0, 1],
                },
            }
            for i in range(1, per_scan + 1)
        ]
        (root / f"ref-{s:05d}").mkdir(exist_ok=True)
        (root / f"ref-{s:05d}" / "semseg.v2.json").write_text(json.dumps({"segGroups": groups}))


PLAIN_RIO = r"""
import json, sys
import numpy as np
sys.path.insert(0, @REPO@)  # the plain reference lives with the tests
from tests.rio.reference import instance_errors_reference
data, preds, out = sys.argv[1:4]
index = json.load(open(f"{data}/3RScan.json"))
objects = json.load(open(f"{data}/objects.json"))
order_of = {0: 1, 1: 2, 2: 4}
gt = {}
for scene in index:
    obb = {g["objectId"]: g["obb"]["centroid"] for g in json.load(open(f"{data}/{scene['reference']}/semseg.v2.json"))["segGroups"]}
    for scan in scene["scans"]:
        for r in scan["rigid"]:
            T = np.array(r["transform"], dtype=float).reshape(4, 4).T
            i = r["instance_reference"]
            gt[(scan["reference"], i)] = (T, order_of[r["symmetry"]], np.array(obb[i], dtype=float))
r_errs, t_errs, h10, h20 = [], [], [], []
for line in open(preds):
    rec = json.loads(line)
    T_gt, order, centroid = gt[(rec["rescan"], rec["instance"])]
    T_pred = np.array(rec["pose"], dtype=float)
    r, t, _ = instance_errors_reference(T_pred, [T_gt], centroid, order, "strict")
    r_errs.append(r); t_errs.append(t)
    h10.append(r <= 10 and t <= 0.1); h20.append(r <= 20 and t <= 0.2)
res = {"recall_10cm_10deg": 100 * float(np.mean(h10)), "recall_20cm_20deg": 100 * float(np.mean(h20)),
       "MRE": float(np.median(r_errs)), "MTE": float(np.median(t_errs)), "n": len(r_errs)}
json.dump(res, open(out, "w"), indent=2)
""".replace("@REPO@", repr(str(REPO)))


# The least any scorer of these files does: start Python with numpy and decode every input file with
# msgspec (no schema, no checks, no cyclic GC), nothing else. plain / floor bounds the ratio any scorer can reach.
FLOOR_RIO = r"""
import gc, sys
from pathlib import Path
import msgspec, numpy
gc.disable()  # millions of lists and no cycle: every full collection would walk them all again
data, preds = Path(sys.argv[1]), Path(sys.argv[2])
decode = msgspec.json.Decoder().decode
index = decode((data / "3RScan.json").read_bytes())
objects = decode((data / "objects.json").read_bytes())
semseg = [decode((data / s["reference"] / "semseg.v2.json").read_bytes()) for s in index]
poses = msgspec.json.Decoder().decode_lines(preds.read_bytes())
"""


def rio_floor(files: dict[str, Path]) -> list[str]:
    return ["-c", FLOOR_RIO, str(files["data"]), str(files["preds"])]


def rio_cmds(files: dict[str, Path], run: Path) -> tuple[list[str], list[str]]:
    ours = ["-m", "scenebench", "score", "rio", "--data", str(files["data"]), "-p", str(files["preds"]), "--out", str(run), "--no-progress"]
    return ours, ["-c", PLAIN_RIO, str(files["data"]), str(files["preds"]), str(run.with_suffix(".plain.json"))]


# ------------------------------------------------------------------------------------------------


FIRST_INPUT = r"""
import os, runpy, sys
target = sys.argv[1]
def hook(event, args):
    if event == "open" and isinstance(args[0], (str, os.PathLike)) and os.fspath(args[0]) == target:
        os._exit(0)
sys.addaudithook(hook)
sys.argv = ["scenebench", *sys.argv[2:]]
runpy.run_module("scenebench", run_name="__main__", alter_sys=True)
"""


def startup_times(files: dict[str, Path], root: Path, runs: int, baseline: Path | None) -> None:
    """Seconds from interpreter start to opening the annotation file (the child exits there), and of
    ``score surprise3d --help``; medians of interleaved runs (this tree, then the baseline's)."""
    env = {**os.environ, "PYTHONWARNINGS": "ignore", "PYTHONPATH": str(REPO / "src")}
    trees = {"scenebench": env, **({"baseline": {**env, "PYTHONPATH": str(baseline)}} if baseline else {})}
    ours, _ = surprise3d_cmds(files, root / "run_startup")
    first = [sys.executable, "-c", FIRST_INPUT, str(files["ann"]), *ours[2:]]
    helpcmd = [sys.executable, "-m", "scenebench", "score", "surprise3d", "--help"]
    got: dict[str, dict[str, list[float]]] = {w: {"first input": [], "--help": []} for w in trees}
    for _ in range(runs):
        for who, e in trees.items():
            for what, cmd in (("first input", first), ("--help", helpcmd)):
                t = time.perf_counter()
                subprocess.run(cmd, env=e, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
                got[who][what].append(time.perf_counter() - t)
    for who, v in got.items():
        print(
            f"  start-up ({who}): "
            + ", ".join(f"{k} {statistics.median(x):.3f} s" for k, x in v.items())
            + f"  (load {os.getloadavg()[0]:.1f})"
        )


def run_rounds(
    name: str, cmds, files: dict[str, Path], root: Path, rounds: int, baseline: Path | None, floor: list[str] | None = None
) -> dict[str, list[tuple[float, float, float]]]:  # noqa: ANN001
    env = {**os.environ, "PYTHONWARNINGS": "ignore", "PYTHONPATH": str(REPO / "src")}
    base_env = {**env, "PYTHONPATH": str(baseline)} if baseline else None
    got: dict[str, list[tuple[float, float, float]]] = {"scenebench": [], "plain": [], "baseline": [], "floor": []}
    for k in range(rounds):
        run = root / f"run_{name}_{k}"
        ours, plain = cmds(files, run)
        got["scenebench"].append(measure([sys.executable, *ours], env))
        if plain is not None:
            got["plain"].append(measure([sys.executable, *plain], env))
        if base_env is not None:
            got["baseline"].append(measure([sys.executable, *cmds(files, root / f"run_{name}_base_{k}")[0]], base_env))
        if floor is not None:
            got["floor"].append(measure([sys.executable, *floor], env))
        shown = ", ".join(f"{w} {v[-1][0]:.2f} s ({v[-1][2]:.2f} CPU-s) / {v[-1][1]:.0f} MB" for w, v in got.items() if v)
        print(f"  [{name}] round {k + 1}: {shown}  (load {os.getloadavg()[0]:.1f})", flush=True)
    same = compare_results(name, root, rounds, baseline is not None)
    if same is not None:
        print(f"  [{name}] results.json metrics identical to the baseline's: {same}")
    return got


def compare_results(name: str, root: Path, rounds: int, has_base: bool) -> bool | None:
    if not has_base:
        return None
    a = json.loads((root / f"run_{name}_0" / "results.json").read_text())
    b = json.loads((root / f"run_{name}_base_0" / "results.json").read_text())
    keys = ("metrics", "confidence_intervals", "counts", "counts_by_group")
    return all(a[k] == b[k] for k in keys)


def report(name: str, got: dict[str, list[tuple[float, float, float]]], n: int, unit: str) -> None:
    """Medians of wall and CPU seconds, the largest peak RSS, and ratios against scenebench."""
    med = {w: (statistics.median(x[0] for x in v), max(x[1] for x in v), statistics.median(x[2] for x in v)) for w, v in got.items() if v}
    t, m, c = med["scenebench"]
    line = f"{name}: scenebench score {t:.2f} s wall / {c:.2f} CPU-s ({n / t:,.0f} {unit}/s), peak RSS {m:.0f} MB"
    for who in ("plain", "baseline"):
        if who in med:
            tw, mw, cw = med[who]
            line += f"; {who} {tw:.2f} s / {cw:.2f} CPU-s, {mw:.0f} MB -> {tw / t:.1f}x wall, {cw / c:.1f}x CPU"
    print(line, flush=True)
    if "floor" in med and "plain" in med:
        tf, _, cf = med["floor"]
        print(
            f"{name}: decode floor {tf:.2f} s / {cf:.2f} CPU-s -> no scorer of these files beats {med['plain'][0] / tf:.1f}x the plain script",
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", choices=["surprise3d", "3dbench", "rio"], action="append")
    ap.add_argument("--baseline-src", type=Path, default=None, help="Another source tree's src/ to time the same command from.")
    ap.add_argument("--keep", type=Path, default=None, help="Work folder to keep (default: a temporary one).")
    ap.add_argument("--startup-runs", type=int, default=5, help="surprise3d: runs of the time-to-first-input figure (0: none).")
    ap.add_argument("--s3d-scenes", type=int, default=10)
    ap.add_argument("--s3d-points", type=int, default=200_000)
    ap.add_argument("--s3d-per-scene", type=int, default=300)
    ap.add_argument("--b3d-per-task", type=int, default=1000)
    ap.add_argument("--rio-rescans", type=int, default=2000)
    ap.add_argument("--rio-per-scan", type=int, default=100)
    args = ap.parse_args()
    only = set(args.only or ["surprise3d", "3dbench", "rio"])
    compile_sources([REPO / "src", *([args.baseline_src] if args.baseline_src else [])])
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-e2e-"))
    root.mkdir(parents=True, exist_ok=True)
    print(
        f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores; {args.rounds} interleaved rounds, medians"
    )
    try:
        if "surprise3d" in only:
            d = root / "s3d"
            if not (d / "preds.jsonl").exists():
                d.mkdir(exist_ok=True)
                t0 = time.perf_counter()
                files = surprise3d_data(d, args.s3d_scenes, args.s3d_points, args.s3d_per_scene)
                print(f"surprise3d workload written in {time.perf_counter() - t0:.1f} s")
            files = {"ann": d / "ann.json", "scenes": d / "scenes", "preds": d / "preds.jsonl"}
            n = args.s3d_scenes * args.s3d_per_scene
            print(
                f"surprise3d: {n:,} samples x {args.s3d_points:,} points, mask_indices JSONL {files['preds'].stat().st_size / 1e6:.0f} MB"
            )
            if args.startup_runs:
                startup_times(files, d, args.startup_runs, args.baseline_src)
            report("surprise3d", run_rounds("s3d", surprise3d_cmds, files, d, args.rounds, args.baseline_src), n, "samples")
        if "3dbench" in only:
            d = root / "b3d"
            if not (d / "answers.jsonl").exists():
                d.mkdir(exist_ok=True)
                bench3d_data(d, args.b3d_per_task)
            files = {"data": d / "bench", "preds": d / "answers.jsonl"}
            n = 8 * args.b3d_per_task
            print(f"3dbench: {n:,} answers ({files['preds'].stat().st_size / 1e6:.1f} MB)")
            report("3dbench", run_rounds("b3d", bench3d_cmds, files, d, args.rounds, args.baseline_src), n, "answers")
        if "rio" in only:
            d = root / "rio"
            if not (d / "poses.jsonl").exists():
                d.mkdir(exist_ok=True)
                t0 = time.perf_counter()
                rio_data(d, args.rio_rescans, args.rio_per_scan)
                print(f"rio workload written in {time.perf_counter() - t0:.1f} s")
            files = {"data": d / "rio", "preds": d / "poses.jsonl"}
            n = args.rio_rescans * args.rio_per_scan
            print(f"rio: {n:,} instance poses ({files['preds'].stat().st_size / 1e6:.0f} MB)")
            report("rio", run_rounds("rio", rio_cmds, files, d, args.rounds, args.baseline_src, rio_floor(files)), n, "poses")
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
        else:
            for p in root.glob("*/run_*"):
                shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink()


if __name__ == "__main__":
    main()
