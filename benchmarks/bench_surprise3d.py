"""Speed and memory of SURPRISE3D scoring (issue 2, part 8). Prints figures; asserts nothing.

Generates 100 scenes of 200,000 points with 100 samples each (10,000 samples), then measures:

1. scoring core: scenebench's per-scene vectorised scorer (``score_scene_samples``: GT lookup,
   intersections, IoU, A25/A50 and the per-sample records) against the plain per-sample
   boolean-mask reference (``reference_sample``: an (N,) mask for prediction and ground truth per
   sample, as the published script does), both on the same scenes and predictions in this run;
2. end to end: ``score_run`` (annotation JSON, scene files, a JSONL predictions file, SQLite run
   folder, 1000-resample bootstrap, results.json) in a child process, with its peak RSS.

Usage: python benchmarks/bench_surprise3d.py [--scenes 100] [--points 200000] [--per-scene 100]
       [--format npz|pth] [--skip-e2e]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from scenebench.benchmarks.surprise3d.annotations import Sample
from scenebench.benchmarks.surprise3d.predictions import DEFAULT_SCORE_THRESHOLD, Prediction, PredictionSet
from scenebench.benchmarks.surprise3d.scenes import Scene
from scenebench.benchmarks.surprise3d.scorer import score_scene_samples
from scenebench.metrics.segmentation import reference_sample


def make_scene(rng: np.random.Generator, n_points: int, n_inst: int = 60) -> tuple[np.ndarray, np.ndarray]:
    """Coordinates and instance ids: ~20% unannotated, instances of uneven size."""
    weights = rng.gamma(1.0, 1.0, n_inst + 1)
    weights[0] = weights[1:].sum() * 0.25
    inst = rng.choice(np.arange(-1, n_inst), size=n_points, p=weights / weights.sum()).astype(np.int32)
    centres = rng.random((n_inst + 1, 3)) * [8.0, 6.0, 2.5]
    coords = (centres[inst + 1] + rng.normal(scale=0.3, size=(n_points, 3))).astype(np.float32)
    return coords, inst


def make_samples(rng: np.random.Generator, scene_id: str, inst: np.ndarray, n_samples: int, start: int):
    """Samples with 1-3 targets and a noisy prediction each (70% of the GT plus 2% of the scene)."""
    n = inst.size
    order = np.argsort(inst, kind="stable")
    bounds = np.searchsorted(inst[order], np.arange(-1, int(inst.max()) + 2))
    samples, preds = [], []
    for k in range(n_samples):
        targets = rng.choice(int(inst.max()) + 1, size=int(rng.integers(1, 4)), replace=False)
        sid = f"{scene_id}:{k}"
        samples.append(Sample(sid, start + k, scene_id, tuple(int(t) for t in targets), "q", ("x",), f"t{k % 6}"))
        gt = np.concatenate([order[bounds[t + 1] : bounds[t + 2]] for t in targets])
        noise = rng.integers(0, n, n // 50)
        p = np.unique(np.concatenate([gt[rng.random(gt.size) < 0.7], noise])).astype(np.int32)
        preds.append(p)
    return samples, preds


def bench_core(args: argparse.Namespace) -> dict[str, float]:
    rng = np.random.default_rng(0)
    t_vec = t_ref = 0.0
    n = 0
    max_diff = 0.0
    for s in range(args.scenes):
        scene_id = f"scene{s:04d}"
        coords, inst = make_scene(rng, args.points)
        samples, preds = make_samples(rng, scene_id, inst, args.per_scene, n)
        scene = Scene(scene_id, Path(scene_id), coords, np.zeros_like(coords), inst.astype(np.int64))
        pset = PredictionSet(
            Path("bench"),
            {smp.sample_id: Prediction("mask_indices", f"line {smp.index + 1}", p, int(p.max()) + 1) for smp, p in zip(samples, preds)},
            {},
            DEFAULT_SCORE_THRESHOLD,
        )
        t0 = time.perf_counter()
        recs = score_scene_samples(scene, samples, pset, protocol="strict")
        t1 = time.perf_counter()
        ref = [reference_sample(inst, p, smp.object_ids, protocol="strict") for smp, p in zip(samples, preds)]
        t2 = time.perf_counter()
        t_vec += t1 - t0
        t_ref += t2 - t1
        n += len(samples)
        max_diff = max(
            max_diff, max(abs(r.values.get("iou", 0.0) - x[0]) for r, x in zip(recs, ref))
        )  # excluded (empty GT): reference gives 0
    return {"samples": n, "vec_s": t_vec, "ref_s": t_ref, "max_abs_iou_diff": max_diff}


E2E_CHILD = r"""
import json, resource, sys, time
from scenebench.benchmarks.surprise3d.api import score_run
a, s, p, o = sys.argv[1:5]
t0 = time.perf_counter()
res, run, scorer = score_run(a, s, p, o, progress=False)
t1 = time.perf_counter()
res2, _, scorer2 = score_run(a, s, p, o, progress=False)
t2 = time.perf_counter()
print(json.dumps({"score_s": t1 - t0, "rereport_s": t2 - t1, "rescored": scorer2.n_samples_scored,
                  "mIoU": res.metrics["overall"]["mIoU"], "n": res.counts.n_samples,
                  "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def bench_e2e(args: argparse.Namespace, root: Path) -> dict[str, float]:
    from scenebench.benchmarks.surprise3d.writer import annotation_record, write_annotations, write_scene

    rng = np.random.default_rng(1)
    scenes = root / "scenes"
    records = []
    t0 = time.perf_counter()
    with open(root / "preds.jsonl", "w") as fh:
        for s in range(args.scenes):
            scene_id = f"scene{s:04d}"
            coords, inst = make_scene(rng, args.points)
            write_scene(scenes / f"{scene_id}.{args.format}", coords, rng.random((args.points, 3)) * 255, inst)
            samples, preds = make_samples(rng, scene_id, inst, args.per_scene, len(records))
            for smp, p in zip(samples, preds):
                records.append(annotation_record(scene_id, list(smp.object_ids), f"question {smp.index}", ["x"], smp.question_type))
                fh.write(json.dumps({"index": smp.index, "mask_indices": p.tolist()}) + "\n")
    write_annotations(root / "ann.json", records)
    gen_s = time.perf_counter() - t0
    size_mb = (root / "preds.jsonl").stat().st_size / 2**20
    out = subprocess.run(
        [sys.executable, "-c", E2E_CHILD, str(root / "ann.json"), str(scenes), str(root / "preds.jsonl"), str(root / "run")],
        capture_output=True,
        text=True,
        check=True,
    )
    r = json.loads(out.stdout.strip().splitlines()[-1])
    r["child_maxrss_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    r.update(gen_s=gen_s, preds_mb=size_mb)
    return r


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=100)
    ap.add_argument("--points", type=int, default=200_000)
    ap.add_argument("--per-scene", type=int, default=100)
    ap.add_argument("--format", choices=["npz", "pth"], default="npz")
    ap.add_argument("--skip-e2e", action="store_true")
    args = ap.parse_args()

    print(f"SURPRISE3D scoring: {args.scenes} scenes x {args.points:,} points, {args.per_scene} samples per scene")
    core = bench_core(args)
    n = core["samples"]
    print(f"[core] vectorised per scene : {n / core['vec_s']:>10,.0f} samples/s ({core['vec_s']:.2f} s for {n:,})")
    print(f"[core] plain boolean masks  : {n / core['ref_s']:>10,.0f} samples/s ({core['ref_s']:.2f} s)")
    print(f"[core] speed-up             : {core['ref_s'] / core['vec_s']:>10.1f}x   (target >= 20x)")
    print(f"[core] max |IoU difference| : {core['max_abs_iou_diff']:.2e}")
    print(f"[core] peak RSS of this process so far: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB")
    if args.skip_e2e:
        return
    with tempfile.TemporaryDirectory(prefix="bench_s3d_") as tmp:
        e = bench_e2e(args, Path(tmp))
    print(f"[e2e] generated scenes + {e['preds_mb']:,.0f} MB JSONL predictions in {e['gen_s']:.1f} s ({args.format})")
    print(
        f"[e2e] score_run             : {e['n'] / e['score_s']:>10,.0f} samples/s ({e['score_s']:.1f} s: read, load, score, "
        f"store, 1000-resample bootstrap, results.json)"
    )
    print(f"[e2e] re-report finished run: {e['rereport_s']:.1f} s, {e['rescored']} samples rescored")
    print(f"[e2e] peak RSS (scoring process): {e['maxrss_mb']:,.0f} MB   (target < 2048 MB)")
    print(f"[e2e] mIoU {e['mIoU']:.2f} over {e['n']:,} samples")


if __name__ == "__main__":
    main()
