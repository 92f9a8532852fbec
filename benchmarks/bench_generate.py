"""Speed of ``scenebench generate``: ray casters, per-stage costs, houses/s per worker, 1 -> 2 workers.

Run: ``python benchmarks/bench_generate.py [--houses 8] [--skip-workers] [--assets PATH]``; with
``--assets`` (e.g. ``/usr/share/sweethome3d/furniture``) the per-stage costs are measured twice in the
same run, primitives then library models, with the share of objects and object points from models. Prints figures only (no
assertions). Wall-clock numbers depend on what else runs on the machine, so the load average and
CPU seconds per house are printed beside them; the ray-caster ratios are against the plain numpy
Moller-Trumbore implementation measured in the same run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time

import numpy as np


def bench_raycasters() -> None:
    from scenebench.extras import available
    from scenebench.synth.house import build_house
    from scenebench.synth.raycast import make_raycaster
    from scenebench.synth.sensing import SensorSettings, camera_poses, pixel_rays

    h = build_house(0, 3)
    mesh = h.scene_mesh()
    s = SensorSettings()
    poses = camera_poses(h, s, np.random.default_rng(0))
    rays = pixel_rays(s)
    rays = rays / np.linalg.norm(rays, axis=1, keepdims=True)
    P = np.stack(poses)
    dirs = np.matmul(rays[None], P[:, :3, :3].transpose(0, 2, 1)).reshape(-1, 3)
    origins = np.repeat(P[:, :3, 3], len(rays), axis=0)
    print(f"ray casting: house with {len(mesh.faces):,} triangles, {len(poses)} views of {s.width}x{s.height} = {len(dirs):,} rays")
    rates = {}
    for name, mod in (("embree", "embreex"), ("open3d", "open3d"), ("trimesh", "rtree"), ("numpy", None)):
        if mod and not available(mod):
            print(f"  {name:8s} not installed")
            continue
        if mod:
            __import__(mod)  # import time is not build time
        t0 = time.perf_counter()
        caster = make_raycaster(mesh.vertices, mesh.faces, name)
        build = time.perf_counter() - t0
        n = len(dirs) if name in ("embree", "open3d") else 4000  # the slow ones on a sample
        best = np.inf
        for _ in range(3 if n == len(dirs) else 1):
            t0 = time.perf_counter()
            t, tri = caster.cast(origins[:n], dirs[:n])
            best = min(best, time.perf_counter() - t0)
        rates[name] = n / best
        print(
            f"  {name:8s} build {build * 1e3:7.1f} ms   {n / best / 1e6:8.3f} M rays/s   ({best * 1e3:8.1f} ms for {n:,} rays, hits {np.isfinite(t).mean():.1%})"
        )
    if "numpy" in rates:
        for name, r in rates.items():
            print(f"  {name:8s} {r / rates['numpy']:8.1f}x the plain numpy implementation")


def bench_stages(assets: tuple[str, ...] = ()) -> None:
    from scenebench.benchmarks.rio.writer import write_scan
    from scenebench.synth.house import build_house
    from scenebench.synth.rescans import RescanSettings, rescan_scene
    from scenebench.synth.sensing import SensorSettings, capture
    from scenebench.synth.surprise import SurpriseSettings, scene_arrays, surprise_house
    from scenebench.synth.tasks3d import TaskSettings, house_tasks

    tot = {}
    n = 4
    pts, objs = [], []
    real_objs, real_pts, obj_pts = 0, 0, 0
    tmp = tempfile.mkdtemp()
    if assets:  # reading the libraries and parsing their models is once per worker process, not per house
        from scenebench.synth.assets.furnish import furnisher_for

        t = time.process_time()
        f = furnisher_for(assets)
        assert f is not None
        for m in f.assets.models:
            f.normalised(m)
        print(
            f"  reading {len(f.assets.libraries)} libraries and their {len(f.assets.models)} mapped models: {time.process_time() - t:.1f} CPU s once per process"
        )
    for i in range(n):
        t = time.process_time()
        h = build_house(0, i, assets=assets)
        t1 = time.process_time()
        cap = capture(h, SensorSettings(), np.random.default_rng(i))
        used = [o.index for o in h.objects if o.asset]
        real_objs += len(used)
        real_pts += int(np.isin(cap.cloud.instance, used).sum())
        obj_pts += int(((cap.cloud.instance >= 1) & (cap.cloud.instance <= len(h.objects))).sum())
        t2 = time.process_time()
        house_tasks(h, cap.coverage, np.random.default_rng(i), TaskSettings(), test=False)
        t3 = time.process_time()
        surprise_house(h, cap, np.random.default_rng(i), "0" * 10, SurpriseSettings())
        scene_arrays(cap, 0.3)
        t4 = time.process_time()
        sc = rescan_scene(h, np.random.default_rng(i), RescanSettings(max_edge=0.75), "train")
        for scan in sc.scans:
            write_scan(
                os.path.join(tmp, scan.scan_id), scan.vertices, scan.colors, scan.faces, scan.object_ids, scan.instances, atomic=False
            )
        t5 = time.process_time()
        for k, v in (
            ("house + placement", t1 - t),
            ("sensing + fusion", t2 - t1),
            ("3DBench ground truth", t3 - t2),
            ("SURPRISE3D questions + arrays", t4 - t3),
            ("3RScan rescans + files", t5 - t4),
        ):
            tot[k] = tot.get(k, 0.0) + v
        pts.append(len(cap.cloud))
        objs.append(len(h.objects))
    shutil.rmtree(tmp)
    kind = "library models where they fit" if assets else "primitives"
    print(f"per-stage CPU seconds per house, {kind} (mean of {n}; {np.mean(objs):.0f} objects, {np.mean(pts):,.0f} scene points):")
    if assets:
        print(
            f"  from models: {real_objs / sum(objs):.1%} of objects (doorways and windows included), {real_pts / max(obj_pts, 1):.1%} of object points"
        )
    for k, v in tot.items():
        print(f"  {k:32s} {v / n:6.3f} s")
    print(f"  {'total':32s} {sum(tot.values()) / n:6.3f} s")


_WORKER_RUN = """
import json, resource, shutil, sys, tempfile, time
from scenebench.synth.pipeline import GenerateSettings, run
houses, workers = int(sys.argv[1]), int(sys.argv[2])
out = tempfile.mkdtemp(); shutil.rmtree(out)
t0 = time.perf_counter()
m = run(out, GenerateSettings(houses=houses), workers=workers, progress=False)
wall = time.perf_counter() - t0
ru = [resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
cpu = sum(r.ru_utime + r.ru_stime for r in ru)
shutil.rmtree(out)
print(json.dumps({"wall": wall, "cpu": cpu, "points": [h["n_points"] for h in m["per_house"]], "objects": [h["n_objects"] for h in m["per_house"]]}))
"""


def bench_workers(houses: int) -> None:
    """Each configuration in a fresh interpreter, so worker start-up is what a user gets (fork, no stale state)."""
    import json
    import subprocess
    import sys

    results = {}
    for workers in (1, 2):
        r = json.loads(
            subprocess.run([sys.executable, "-c", _WORKER_RUN, str(houses), str(workers)], capture_output=True, text=True, check=True)
            .stdout.strip()
            .splitlines()[-1]
        )
        results[workers] = r["wall"]
        print(
            f"  workers={workers}: {houses} houses in {r['wall']:6.2f} s wall = {houses / r['wall']:5.2f} houses/s "
            f"({houses / r['wall'] / workers:5.2f} per worker); CPU {r['cpu'] / houses:5.2f} s per house "
            f"(= {houses / r['cpu']:5.2f} houses per CPU-second, imports included); "
            f"{np.mean(r['objects']):.0f} objects, {np.mean(r['points']):,.0f} points per scene"
        )
    print(
        f"  speed-up 1 -> 2 workers: {results[1] / results[2]:.2f}x (wall, start-up included; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--houses", type=int, default=8)
    ap.add_argument("--skip-workers", action="store_true")
    ap.add_argument("--skip-raycasters", action="store_true")
    ap.add_argument("--assets", action="append", default=[], help="model libraries: also time houses furnished from them")
    a = ap.parse_args()
    print(f"cores: {os.cpu_count()}, load average now: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    if not a.skip_raycasters:
        bench_raycasters()
    bench_stages()
    if a.assets:
        bench_stages(tuple(a.assets))
    if not a.skip_workers:
        print(f"end-to-end scenebench generate, default settings, all three formats, {a.houses} houses:")
        bench_workers(a.houses)


if __name__ == "__main__":
    main()
