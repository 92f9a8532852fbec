"""Peak memory of scoring a large predictions file: does it grow with the file?

Builds generated scenes (``scenebench generate``, two houses), then for each requested size writes

- a SURPRISE3D predictions JSONL of per-point ``scores`` (one float per scene point per sample;
  the annotation list is repeated with numbered questions to reach the size), and
- a 3DBench ``answers.jsonl`` of long free-text answers (task records repeated with new ids),

and scores each with the real CLI (``python -m scenebench score ...``) in a child process, reading the
child's peak RSS with ``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss``. Each measurement runs in a
fresh driver process, so one measurement's peak never hides in another's.

    python benchmarks/bench_memory.py                  # 50 MB and 1000 MB (about 10 minutes)
    python benchmarks/bench_memory.py --sizes 30,200   # quicker
    python benchmarks/bench_memory.py --keep DIR       # keep the data in DIR

Prints, per benchmark and size: file MB, peak RSS MB, seconds, and the growth of peak RSS per
extra MB of file between the smallest and the largest size (0 = constant memory; 1 = the whole file
held in memory).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

DRIVER = r"""
import resource, subprocess, sys, time
t = time.perf_counter()
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
dt = time.perf_counter() - t
peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(f"{r.returncode} {peak_kb} {dt:.2f}")
if r.returncode:
    sys.stderr.write(r.stderr[-3000:])
"""


def peak_rss(cmd: list[str], env: dict | None = None) -> tuple[float, float]:
    """(peak RSS in MB, seconds) of ``cmd`` run as the only child of a fresh driver process."""
    out = subprocess.run([sys.executable, "-c", DRIVER, *cmd], capture_output=True, text=True, env=env)
    rc, kb, dt = out.stdout.split()
    if rc != "0":
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{out.stderr}")
    return int(kb) / 1024, float(dt)


def generate(root: Path) -> Path:
    data = root / "generated"
    if not (data / "manifest.json").exists():
        subprocess.run(
            [
                sys.executable,
                "-m",
                "scenebench",
                "generate",
                "--out",
                str(data),
                "--houses",
                "2",
                "--test-every",
                "1",
                "--min-rooms",
                "2",
                "--max-rooms",
                "3",
                "--quiet",
            ],
            check=True,
        )
    return data


def surprise3d_inputs(data: Path, out: Path, target_bytes: int) -> tuple[Path, Path, Path]:
    """Copies of the generated scenes (hard links under new scene ids) with their questions, until the
    scores JSONL reaches ``target_bytes``: more scenes, not more questions per scene, as in real data.
    Returns (annotations, scenes folder, predictions)."""
    from scenebench.io.arrays import load_npz

    src = data / "surprise3d" / "scenes"
    ann = json.loads((data / "surprise3d" / "surprise-3d-val.json").read_text())
    n_points = {p.stem: len(load_npz(p)["sampled_coords"]) for p in src.glob("*.npz")}
    rng = np.random.default_rng(0)
    per_scene = {sid: ",".join(f"{x:.3f}" for x in rng.random(n)) for sid, n in n_points.items()}
    scenes = out / f"s3d_scenes_{target_bytes >> 20}MB"
    shutil.rmtree(scenes, ignore_errors=True)
    scenes.mkdir()
    records, size, k = [], 0, 0
    pred = out / f"s3d_predictions_{target_bytes >> 20}MB.jsonl"
    with open(pred, "w") as fh:
        while size < target_bytes:
            for sid in n_points:
                os.symlink(src / f"{sid}.npz", scenes / f"{sid}_{k}.npz")
            for a in ann:
                rec = dict(a, scene_id=f"{a['scene_id']}_{k}")
                records.append(rec)
                line = f'{{"index": {len(records) - 1}, "scores": [{per_scene[a["scene_id"]]}]}}\n'
                fh.write(line)
                size += len(line)
            k += 1
    ann_path = out / f"s3d_annotations_{target_bytes >> 20}MB.json"
    ann_path.write_text(json.dumps(records))
    return ann_path, scenes, pred


def bench3d_inputs(data: Path, out: Path, target_bytes: int, fixed_records: bool = False) -> tuple[Path, Path]:
    """Repeat every task file's records with new ids; long free-text answers fill the file.

    ``fixed_records``: keep the benchmark's records as they are and make each answer longer
    instead, so only the answers file grows (what a streaming reader must not hold in memory).
    """
    src = data / "3dbench"
    bench = out / f"b3d_{target_bytes >> 20}MB"
    if bench.exists():
        shutil.rmtree(bench)
    bench.mkdir()
    for d in ("scene", "Objects"):
        os.symlink(src / d, bench / d)
    files = {f.stem: json.loads(f.read_text()) for f in src.glob("*.json")}
    n_base = sum(len(v) for v in files.values())
    phrase = "The object is next to the sofa, near the window, under the lamp, on the rug. "
    if fixed_records:
        copies = 1
        filler = phrase * max(40, target_bytes // (n_base * len(phrase)) + 1)
    else:
        filler = phrase * 40  # ~3 kB
        copies = max(1, target_bytes // (n_base * (len(filler) + 120)) + 1)
    answers = out / f"b3d_answers_{target_bytes >> 20}MB.jsonl"
    from scenebench.benchmarks.bench3d.tasks import task_key

    with open(answers, "w") as fh:
        for stem, recs in files.items():
            big = []
            for k in range(copies):
                for r in recs:
                    q = dict(r, question_id=f"{r['question_id']}-c{k}")
                    big.append(q)
                    text = f"{filler} The answer is (A). [1.0, 0.5, 1.0, 0.4, 0.4, 0.4] [1.0, 2.0]"
                    fh.write(json.dumps({"question_id": q["question_id"], "task": task_key(stem), "text": text}) + "\n")
            (bench / f"{stem}.json").write_text(json.dumps(big))
    return bench, answers


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="50,1000", help="Predictions file sizes in MB, comma separated.")
    ap.add_argument("--keep", type=Path, default=None, help="Work folder to keep (default: a temporary one).")
    ap.add_argument("--only", choices=["surprise3d", "3dbench", "3dbench-long"], default=None)
    args = ap.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-memory-"))
    root.mkdir(parents=True, exist_ok=True)
    sizes = [int(s) for s in args.sizes.split(",")]
    data = generate(root)
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    rows: dict[str, list[tuple[float, float, float]]] = {"surprise3d": [], "3dbench": [], "3dbench-long": []}
    for mb in sizes:
        if args.only in (None, "surprise3d"):
            ann, scenes, pred = surprise3d_inputs(data, root, mb << 20)
            run = root / f"run_s3d_{mb}"
            shutil.rmtree(run, ignore_errors=True)
            rss, dt = peak_rss(
                [
                    sys.executable,
                    "-m",
                    "scenebench",
                    "score",
                    "surprise3d",
                    "-a",
                    str(ann),
                    "-s",
                    str(scenes),
                    "-p",
                    str(pred),
                    "--out",
                    str(run),
                    "--bootstrap",
                    "0",
                    "--no-progress",
                ],
                env,
            )
            rows["surprise3d"].append((pred.stat().st_size / 2**20, rss, dt))
            print(f"surprise3d  file {pred.stat().st_size / 2**20:8.1f} MB  peak RSS {rss:7.1f} MB  {dt:6.1f} s", flush=True)
            pred.unlink()
        # "3dbench": more records (the ground truth grows with the file: per-sample state grows too);
        # "3dbench-long": the same records with longer answers (only the answers file grows).
        for kind in ("3dbench", "3dbench-long"):
            if args.only not in (None, kind):
                continue
            bench, answers = bench3d_inputs(data, root, mb << 20, fixed_records=kind == "3dbench-long")
            run = root / f"run_{kind}_{mb}"
            shutil.rmtree(run, ignore_errors=True)
            rss, dt = peak_rss(
                [
                    sys.executable,
                    "-m",
                    "scenebench",
                    "score",
                    "3dbench",
                    "--data",
                    str(bench),
                    "--predictions",
                    str(answers),
                    "--out",
                    str(run),
                    "--bootstrap",
                    "0",
                ],
                env,
            )
            rows[kind].append((answers.stat().st_size / 2**20, rss, dt))
            print(f"{kind:<12}file {answers.stat().st_size / 2**20:8.1f} MB  peak RSS {rss:7.1f} MB  {dt:6.1f} s", flush=True)
            answers.unlink()
    for name, rs in rows.items():
        if len(rs) >= 2:
            (f0, r0, _), (f1, r1, _) = rs[0], rs[-1]
            print(
                f"{name}: peak RSS grows {(r1 - r0) / (f1 - f0):.3f} MB per MB of predictions ({f0:.0f} -> {f1:.0f} MB file: {r0:.0f} -> {r1:.0f} MB RSS)"
            )
    if args.keep is None:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
