"""Scoring a large SURPRISE3D predictions file keeps memory flat (fast variant of benchmarks/bench_memory.py).

Two scores files (about 4 MB and 40 MB of per-point scores over copies of generated scenes) are
scored by the real CLI in child processes; the peak RSS of the larger run may exceed the smaller
one's by at most 15% of the extra file size (holding the file would cost 100%, the int32 masks that
were held before the fix about 35%). Figures: benchmarks/bench_memory.py, docs/robustness.md.
"""

from __future__ import annotations

import os
import sys

import bench_memory


def test_peak_memory_does_not_follow_file_size(fuzz_ctx, tmp_path):
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    figures = []
    # one copy of the context's test questions is already ~25 MB of scores: the targets give one copy and three
    for mb in (1, 64):
        ann, scenes, pred = bench_memory.surprise3d_inputs(fuzz_ctx.root / "generated", tmp_path, mb << 20)
        rss, _ = bench_memory.peak_rss(
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
                str(tmp_path / f"run{mb}"),
                "--bootstrap",
                "0",
                "--no-progress",
            ],
            env,
        )
        figures.append((pred.stat().st_size / 2**20, rss))
        pred.unlink()
    (f0, r0), (f1, r1) = figures
    assert f1 > 35 and f1 - f0 > 30
    assert r1 - r0 < 0.15 * (f1 - f0), figures
    assert r1 < 400, figures
