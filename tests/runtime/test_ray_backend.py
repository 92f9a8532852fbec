import os

import pytest
from toy_source import ToySource

from scenebench.errors import ScenebenchError
from scenebench.models.base import ModelSample
from scenebench.models.execution import WorkUnit
from scenebench.models.predictions import TextPrediction
from scenebench.runtime.ray_backend import RayBackend, merge_shard
from scenebench.runtime.rundir import RunDir
from scenebench.runtime.runner import PREDICTION_KIND, run_benchmark

HERE = os.path.dirname(__file__)


def _unit(scene, *ids):
    return WorkUnit(scene, tuple(ModelSample(i, scene, "t", "text") for i in ids))


def test_merge_accepts_exactly_the_samples_sent():
    shard = [_unit("a", "1", "2"), _unit("b", "3")]
    ok = merge_shard(shard, [("a", [TextPrediction("1").to_json(), TextPrediction("2").to_json()]), ("b", [TextPrediction("3").to_json()])])
    assert [[p.sample_id for p in ps] for _, ps in ok] == [["1", "2"], ["3"]]


@pytest.mark.parametrize(
    "result, match",
    [
        ([("a", [TextPrediction("1").to_json()])], "returned 1 scenes, expected 2"),
        ([("a", [TextPrediction("1").to_json()]), ("b", [TextPrediction("3").to_json()])], r"lost \['2'\]"),
        ([("a", [TextPrediction("1").to_json(), TextPrediction("2").to_json()]), ("c", [])], "scene 'c' where 'b'"),
        (
            [
                ("a", [TextPrediction("1").to_json(), TextPrediction("2").to_json(), TextPrediction("9").to_json()]),
                ("b", [TextPrediction("3").to_json()]),
            ],
            r"unexpected \['9'\]",
        ),
        (None, "returned NoneType"),
    ],
)
def test_merge_refuses_a_lost_or_altered_shard(result, match):
    with pytest.raises(ScenebenchError, match=match):
        merge_shard([_unit("a", "1", "2"), _unit("b", "3")], result)


def external_connections() -> list[str]:
    """Sockets of this process and its children that listen on, or talk to, a non-loopback address."""
    import ipaddress

    psutil = pytest.importorskip("psutil")
    me = psutil.Process()
    pids = {p.pid for p in me.children(recursive=True)} | {me.pid}

    def loop(ip: str) -> bool:
        a = ipaddress.ip_address(ip.split("%")[0])
        return (getattr(a, "ipv4_mapped", None) or a).is_loopback

    bad = []
    for c in psutil.net_connections(kind="inet"):
        if c.pid in pids and c.laddr:
            if c.status == psutil.CONN_LISTEN and not loop(c.laddr.ip):
                bad.append(f"pid {c.pid} listens on {c.laddr.ip}:{c.laddr.port}")
            if c.raddr and not loop(c.raddr.ip):
                bad.append(f"pid {c.pid} ({psutil.Process(c.pid).name()}) talks to {c.raddr.ip}:{c.raddr.port}")
    return bad


@pytest.fixture(scope="module")
def ray_cluster():
    # Ray reads RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER when imported; another test may have imported it
    # first, so the backend's own guard sets the variable and corrects what ray already read.
    ray = pytest.importorskip("ray", reason="ray extra not installed")
    from scenebench.runtime.ray_backend import keep_on_loopback

    keep_on_loopback()
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        logging_level="warning",
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": HERE + os.pathsep + os.environ.get("PYTHONPATH", "")}},
    )
    assert external_connections() == []
    yield ray
    assert external_connections() == []
    ray.shutdown()
    assert external_connections() == []


@pytest.mark.ray
def test_ray_and_local_backends_agree(ray_cluster, tmp_path):
    src = ToySource(n_scenes=5, per_scene=3)
    local = run_benchmark(src, "random", tmp_path / "local", seed=7, progress=False)
    dist = run_benchmark(src, "random", tmp_path / "ray", seed=7, progress=False, backend=RayBackend(scenes_per_task=2))
    assert dist.predicted_now == 15
    assert {k: v.to_json() for k, v in dist.predictions.items()} == {k: v.to_json() for k, v in local.predictions.items()}
    assert dist.results.metrics == local.results.metrics and dist.results.counts == local.results.counts
    assert dist.predictions_path.read_text() == local.predictions_path.read_text()
    # Seconds per scene are measured in the workers and come back with the shard.
    assert dist.diagnostics["seconds_per_scene"]["n_scenes"] == 5 and dist.results.extra["model_diagnostics"]


@pytest.mark.ray
def test_rio_runs_on_ray_like_locally(ray_cluster, tmp_path):
    # RIO goes through the same runner: its source is rebuilt in the workers from JSON kwargs
    from fixtures import make_rio

    from scenebench.models.sources.base import make_source

    data = make_rio(tmp_path / "rio")
    src = make_source("rio", data=str(data), symmetry_codes={"7": 2})
    local = run_benchmark(src, "random", tmp_path / "local", seed=5, progress=False)
    dist = run_benchmark(src, "random", tmp_path / "ray", seed=5, progress=False, backend=RayBackend(scenes_per_task=1))
    assert dist.predicted_now == 2 and dist.results.benchmark == "rio"
    assert dist.predictions_path.read_text() == local.predictions_path.read_text()
    assert dist.results.metrics == local.results.metrics
    oracle = run_benchmark(src, "oracle", tmp_path / "oracle", progress=False, backend=RayBackend())
    assert oracle.results.metrics["overall"]["recall_10cm_10deg"] == 100.0


@pytest.mark.ray
def test_ray_retries_failed_tasks(ray_cluster, tmp_path):
    markers = tmp_path / "markers"
    markers.mkdir()
    out = run_benchmark(
        ToySource(n_scenes=3),
        "plugin:plugins:FlakyModel",
        tmp_path / "run",
        model_options={"marker_dir": str(markers)},
        progress=False,
        score=False,
        backend=RayBackend(max_retries=2),
    )
    assert out.predicted_now == 6
    assert sorted(p.name for p in markers.iterdir()) == ["scene0.seen", "scene1.seen", "scene2.seen"]


@pytest.mark.ray
def test_ray_failed_shard_is_an_error_and_finished_shards_are_kept(ray_cluster, tmp_path):
    with pytest.raises(ScenebenchError, match=r"6 of 6 samples were not predicted .*broken model"):
        run_benchmark(
            ToySource(n_scenes=3), "plugin:plugins:AlwaysFails", tmp_path / "run", progress=False, backend=RayBackend(max_retries=1)
        )
    with pytest.raises(ScenebenchError, match="were not predicted"):
        run_benchmark(
            ToySource(n_scenes=3), "plugin:plugins:DropsOne", tmp_path / "run2", progress=False, backend=RayBackend(max_retries=0)
        )
    with RunDir(tmp_path / "run2").store() as store:
        assert store.count(PREDICTION_KIND) == 0


LOOPBACK_SCRIPT = """
import ray  # imported before any RAY_* variable is set, as user code might
from scenebench.runtime.ray_backend import RayBackend
from test_ray_backend import external_connections
backend = RayBackend(num_cpus=1)
assert backend._init(ray)
try:
    bad = external_connections()
finally:
    ray.shutdown()
print("BAD" if bad else "OK", bad[:3])
"""


@pytest.mark.ray
def test_private_cluster_stays_on_loopback_even_if_ray_was_imported_first(tmp_path):
    import subprocess
    import sys

    pytest.importorskip("psutil")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env["PYTHONPATH"] = os.pathsep.join(sys.path)  # the child imports this test module by name
    p = subprocess.run([sys.executable, "-c", LOOPBACK_SCRIPT], capture_output=True, text=True, timeout=180, env=env, cwd=tmp_path)
    assert p.stdout.startswith("OK"), p.stdout + p.stderr[-2000:]
