"""Ray backend: shard scene-grouped work across a cluster; a lost shard is an error, never a gap.

Each Ray task gets a shard (a few scenes with their pending samples) plus the recipes to rebuild
the run source and the model, loads the scenes itself (point clouds never cross the network), and
returns the predictions as JSON. The driver saves every shard the moment it comes back, so a
crash or Ctrl-C keeps all finished shards; a rerun only submits what is missing.

The merge checks, per shard and overall, that the sample ids returned are exactly the ids sent.
Failing tasks are retried by Ray (``max_retries``, exceptions included); a shard that still fails
makes the run stop with an error naming its scenes after the other shards are saved.

Without ``address`` a private local cluster is started on 127.0.0.1 (no dashboard, no usage
stats, no socket on another address: :func:`keep_on_loopback`) and stopped afterwards;
``address="auto"`` or ``"ray://host:port"`` joins an existing one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from scenebench.errors import ScenebenchError
from scenebench.extras import require

_WORKER_CACHE: dict[str, Any] = {}


def _worker_state(source_factory: str, source_kwargs: dict[str, Any], spec: Any) -> tuple[Any, Any]:
    """Source and model built once per worker process and reused by later shards (models are costly to load)."""
    from scenebench.models.execution import build_model
    from scenebench.registry import load_object

    key = json.dumps([source_factory, source_kwargs, spec.name, dict(spec.options)], sort_keys=True, default=str)
    if key not in _WORKER_CACHE:
        source = load_object(source_factory)(**source_kwargs)
        _WORKER_CACHE.clear()
        _WORKER_CACHE[key] = (source, build_model(spec, source))
    source, model = _WORKER_CACHE[key]
    return source, model


def predict_shard(
    source_factory: str, source_kwargs: dict[str, Any], spec: Any, units: Sequence[Any]
) -> list[tuple[str, list[dict[str, Any]], float]]:
    """Run in a Ray worker: ``[(scene_id, [prediction JSON, ...], seconds), ...]`` for the shard's units
    (``seconds``: loading the scene and predicting it, in the worker)."""
    from scenebench.models.execution import predict_units
    from scenebench.runtime.local_backend import timed

    source, model = _worker_state(source_factory, source_kwargs, spec)
    return [(unit.scene_id, [p.to_json() for p in preds], s) for (unit, preds), s in timed(predict_units(model, source, units))]


def shard_seconds(result: Sequence[Any]) -> list[float | None]:
    """The seconds each scene of a merged shard took in its worker (``None`` when not reported)."""
    return [float(entry[2]) if len(entry) > 2 and isinstance(entry[2], int | float) else None for entry in result]


def merge_shard(shard: Sequence[Any], result: Any) -> list[tuple[Any, list[Any]]]:
    """Pair a shard's units with what came back; refuse anything but exactly the samples sent."""
    from scenebench.models.predictions import prediction_from_json

    if not isinstance(result, list) or len(result) != len(shard):
        got = len(result) if isinstance(result, list) else type(result).__name__
        raise ScenebenchError(f"shard of scenes {[u.scene_id for u in shard]} returned {got} scenes, expected {len(shard)}")
    out = []
    for unit, (scene_id, records, *_) in zip(shard, result):
        if scene_id != unit.scene_id:
            raise ScenebenchError(f"shard returned scene {scene_id!r} where {unit.scene_id!r} was sent")
        preds = [prediction_from_json(r) for r in records]
        sent, back = set(unit.sample_ids), [p.sample_id for p in preds]
        if len(back) != len(set(back)) or set(back) != sent:
            lost = sorted(sent - set(back))
            extra = sorted(set(back) - sent)
            raise ScenebenchError(
                f"scene {unit.scene_id}: the worker returned samples that differ from those sent "
                f"(lost {lost[:3]}{'...' if len(lost) > 3 else ''}, unexpected {extra[:3]}, duplicates {len(back) - len(set(back))})"
            )
        out.append((unit, preds))
    return out


def keep_on_loopback() -> None:
    """Make a private local cluster bind and talk on 127.0.0.1 only.

    Ray reads ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER`` once, when ``ray`` is imported; if anything
    imported ray before the variable was set, its processes bind 0.0.0.0 and talk over the host's
    external address even with ``_node_ip_address="127.0.0.1"``. The variable is set for the child
    processes and the driver's already-read copy is corrected.
    """
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    try:
        from ray._private import ray_constants
    except ImportError:  # pragma: no cover - a Ray without this module reads the variable itself
        return
    ray_constants.ENABLE_RAY_CLUSTER = False


class RayBackend:
    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        *,
        scenes_per_task: int = 1,
        max_retries: int = 3,
        num_cpus: int | None = None,
        runtime_env: dict[str, Any] | None = None,
    ) -> None:
        if scenes_per_task < 1:
            raise ScenebenchError("scenes_per_task must be at least 1")
        self.address = address
        self.scenes_per_task = scenes_per_task
        self.max_retries = max_retries
        self.num_cpus = num_cpus
        self.runtime_env = runtime_env

    def describe(self) -> dict[str, Any]:
        return {"backend": "ray", "address": self.address, "scenes_per_task": self.scenes_per_task, "max_retries": self.max_retries}

    def _init(self, ray: Any) -> bool:
        """Start or join a cluster unless this process already has one; True when we must shut it down."""
        if ray.is_initialized():
            return False
        kwargs: dict[str, Any] = {"include_dashboard": False, "logging_level": "warning", "log_to_driver": False}
        if self.runtime_env:
            kwargs["runtime_env"] = self.runtime_env
        if self.address:
            ray.init(address=self.address, **{k: v for k, v in kwargs.items() if k != "include_dashboard"})
        else:
            keep_on_loopback()
            ray.init(num_cpus=self.num_cpus or os.cpu_count() or 1, _node_ip_address="127.0.0.1", **kwargs)
        return True

    def run(self, source: Any, spec: Any, units: Sequence[Any], save: Any, *, model: Any = None) -> None:
        """Submit every shard, save each as it returns, then fail loudly if any shard was lost."""
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
        ray = require("ray", "ray", "the Ray backend")
        started = self._init(ray)
        try:
            remote = ray.remote(max_retries=self.max_retries, retry_exceptions=True)(predict_shard)
            shards = [list(units[i : i + self.scenes_per_task]) for i in range(0, len(units), self.scenes_per_task)]
            factory = f"{type(source).__module__}:{type(source).__qualname__}"
            kwargs = source.spec()
            refs = {remote.remote(factory, kwargs, spec, shard): shard for shard in shards}
            pending = list(refs)
            failures: list[str] = []
            saved: set[str] = set()
            while pending:
                ready, pending = ray.wait(pending, num_returns=1)
                for ref in ready:
                    shard = refs[ref]
                    try:
                        result = ray.get(ref)
                        merged = merge_shard(shard, result)
                    except ScenebenchError as exc:
                        failures.append(str(exc))
                        continue
                    except Exception as exc:  # a task that failed every retry
                        cause = getattr(exc, "cause", None) or exc
                        failures.append(
                            f"shard with scenes {[u.scene_id for u in shard]} failed after {self.max_retries} retries: "
                            f"{type(cause).__name__}: {str(cause).strip().splitlines()[-1] if str(cause).strip() else ''}"
                        )
                        continue
                    for (unit, preds), seconds in zip(merged, shard_seconds(result)):
                        save(unit, preds, seconds)
                        saved.update(p.sample_id for p in preds)
            expected = {sid for u in units for sid in u.sample_ids}
            if failures or saved != expected:
                lost = len(expected - saved)
                detail = "; ".join(failures[:3]) or "shards returned fewer samples than sent"
                raise ScenebenchError(
                    f"Ray backend: {lost} of {len(expected)} samples were not predicted ({detail}). "
                    "Finished shards are saved; rerun the same command to retry the rest."
                )
        finally:
            if started:
                ray.shutdown()
