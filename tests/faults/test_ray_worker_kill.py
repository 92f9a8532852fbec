"""A Ray worker SIGKILLed while it predicts a shard: Ray retries the shard, the run completes with
exactly the predictions of an undisturbed local run (real local cluster on 127.0.0.1)."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
RUNTIME_TESTS = HERE.parent / "runtime"

pytestmark = [pytest.mark.ray, pytest.mark.slow]


@pytest.fixture(scope="module")
def ray_cluster():
    # Set before ray is imported (read at import): otherwise Ray's processes bind 0.0.0.0.
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    ray = pytest.importorskip("ray", reason="ray extra not installed")
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        logging_level="warning",
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join([str(HERE), str(RUNTIME_TESTS), os.environ.get("PYTHONPATH", "")])}},
    )
    yield ray
    ray.shutdown()


def test_killed_worker_shard_is_retried(ray_cluster, tmp_path):
    from toy_source import ToySource

    from scenebench.runtime.ray_backend import RayBackend
    from scenebench.runtime.runner import run_benchmark

    markers = tmp_path / "markers"
    markers.mkdir()
    killed: list[int] = []

    def killer():
        pid_file = markers / "scene1.pid"
        deadline = time.time() + 90
        while time.time() < deadline and not pid_file.exists():
            time.sleep(0.05)
        pid = int(pid_file.read_text())
        (markers / "scene1.killed").write_text("")
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)

    t = threading.Thread(target=killer, daemon=True)
    t.start()
    src = ToySource(n_scenes=3, per_scene=2)
    opts = {"marker_dir": str(markers)}
    dist = run_benchmark(
        src,
        "plugin:ray_plugins:WaitsToBeKilled",
        tmp_path / "ray",
        model_options=opts,
        progress=False,
        backend=RayBackend(scenes_per_task=1, max_retries=2),
    )
    t.join(5)
    assert killed and killed[0] != os.getpid()
    local = run_benchmark(
        src, "plugin:ray_plugins:WaitsToBeKilled", tmp_path / "local", model_options={"marker_dir": str(markers)}, progress=False
    )
    assert dist.predicted_now == 6
    assert {k: v.to_json() for k, v in dist.predictions.items()} == {k: v.to_json() for k, v in local.predictions.items()}
    assert dist.results.metrics == local.results.metrics and dist.results.counts == local.results.counts
