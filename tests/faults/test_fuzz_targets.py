"""Every atheris target runs (briefly) in CI: a fixed number of inputs, a fixed libFuzzer seed.

Long campaigns are the same command with a larger ``-atheris_runs`` (see ``fuzz/README.md``). A
contract violation or a bare exception makes atheris exit non-zero with the crashing input saved.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys

import harness
import pytest
from faultlog import FUZZ_DIR, OUTCOMES

RUNS = 60
pytestmark = pytest.mark.skipif(importlib.util.find_spec("atheris") is None, reason="needs the fuzz extra (atheris)")


def test_every_target_has_a_script():
    scripts = {p.stem[len("fuzz_") :] for p in FUZZ_DIR.glob("fuzz_*.py")}
    assert scripts == set(harness.TARGETS)


def test_fuzz_targets_run(fuzz_ctx, fast_dir):
    names = [n for n in harness.TARGETS if n != "surprise3d_scene_pth" or importlib.util.find_spec("torch")]
    env = {**os.environ, harness.CONTEXT_ENV: str(fuzz_ctx.root), "PYTHONWARNINGS": "ignore", "SCENEBENCH_FUZZ_NO_INSTRUMENT": "1"}
    procs: list[tuple[str, subprocess.Popen]] = []
    results: dict[str, tuple[int, str]] = {}

    def reap(block: bool) -> None:
        for name, p in list(procs):
            if block or p.poll() is not None:
                out, err = p.communicate(timeout=120)
                results[name] = (p.returncode, err)
                procs.remove((name, p))

    for name in names:
        while len(procs) >= max(2, os.cpu_count() or 1):
            import time

            time.sleep(0.05)
            reap(False)
        cmd = [
            sys.executable,
            str(FUZZ_DIR / f"fuzz_{name}.py"),
            f"-atheris_runs={RUNS}",
            "-seed=1",
            "-max_len=256",
            f"-artifact_prefix={fast_dir}/crash-{name}-",
        ]
        procs.append((name, subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=fast_dir)))
    reap(True)
    failed = {n: err[-2000:] for n, (rc, err) in results.items() if rc != 0}
    assert not failed, failed
    for name, (_, err) in results.items():
        m = re.search(r"fuzz \S+: (\d+) inputs, outcomes (\{.*\})", err)
        assert m and int(m.group(1)) >= RUNS - 1, (name, err[-500:])
        import json

        for outcome, n in json.loads(m.group(2)).items():
            OUTCOMES[f"{name} [atheris]"][outcome] += n
