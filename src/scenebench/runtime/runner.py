"""Run a model over a benchmark: scene-grouped, saved as produced, resumable, then scored.

The predict stage writes every scene's predictions into the run's SQLite store (kind
``"prediction"``, keyed by ``sample_id``) in one transaction as soon as the model returns them. A
rerun with the same model, seed and data reads the store and only asks the model about the samples
that have no prediction yet; a killed run therefore loses at most the scenes in flight.

After predicting, the predictions are written as the benchmark's own prediction file in the run
folder (so they can be scored again with ``scenebench score``) and scored by the benchmark's scorer
into the same run folder.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scenebench.errors import ScenebenchError
from scenebench.io.files import atomic_write_json
from scenebench.models.base import ModelSample, SceneBatch, SceneView, model_settings
from scenebench.models.predictions import Prediction, prediction_from_json
from scenebench.models.sources.base import RunSource, check_prediction_kind, make_source
from scenebench.runtime.rundir import RunDir, fingerprint

PREDICTION_KIND = "prediction"
NOT_IDENTITY = ("base_url",)  # model options recorded in run.json but not part of the run's fingerprint
STATE_KIND = "run-state"  # bookkeeping records in the same store (e.g. what the stored scores were computed from)


@dataclass(frozen=True)
class WorkUnit:
    """The pending samples of one scene: the unit of work given to a backend."""

    scene_id: str
    samples: tuple[ModelSample, ...]

    @property
    def sample_ids(self) -> list[str]:
        return [s.sample_id for s in self.samples]


@dataclass(frozen=True)
class ModelSpec:
    """How to build the model anywhere (here or in a Ray worker): a CLI name plus constructor options."""

    name: str
    options: Mapping[str, Any] = field(default_factory=dict)


def plan_units(samples: Sequence[ModelSample], done: set[str]) -> list[WorkUnit]:
    """Group pending samples by scene, scenes in order of first appearance (ground-truth order)."""
    by_scene: dict[str, list[ModelSample]] = {}
    for s in samples:
        if s.sample_id not in done:
            by_scene.setdefault(s.scene_id, []).append(s)
    return [WorkUnit(sid, tuple(ss)) for sid, ss in by_scene.items()]


def select_samples(samples: Sequence[ModelSample], tasks: Sequence[str] | None = None, limit: int | None = None) -> list[ModelSample]:
    """Restrict to ``tasks`` (names as in the data), then keep the first ``limit`` samples."""
    out = list(samples)
    if tasks:
        known = sorted({s.task for s in out})
        unknown = [t for t in tasks if t not in known]
        if unknown:
            raise ScenebenchError(f"--tasks {','.join(unknown)}: not in this data (tasks present: {', '.join(known)})")
        wanted = set(tasks)
        out = [s for s in out if s.task in wanted]
    if limit is not None:
        if limit < 1:
            raise ScenebenchError(f"--limit must be at least 1, got {limit}")
        out = out[:limit]
    if not out:
        raise ScenebenchError("no samples to run (check --tasks / --limit and the data folder)")
    return out


def build_model(spec: ModelSpec, source: RunSource) -> Any:
    """Construct the model and give it the train split if it wants one (``fit``)."""
    from scenebench.models.registry import make_model

    model = make_model(spec.name, **dict(spec.options))
    fit = getattr(model, "fit", None)
    if callable(fit):
        fit(source.train())
    return model


def uses_ground_truth_perception(model: Any) -> bool:
    """True when the model asks for the scene's ground-truth objects (``ground_truth_perception = True``)."""
    return bool(getattr(model, "ground_truth_perception", False))


def perception_view(scene: SceneView, model: Any) -> SceneView:
    """The scene as the model may see it: without the ground-truth ``objects`` unless it asks for them."""
    if uses_ground_truth_perception(model) or not scene.has("objects"):
        return scene
    loaders = {k: v for k, v in scene._loaders.items() if k != "objects"}
    return SceneView(scene.scene_id, loaders)


def predict_units(model: Any, source: RunSource, units: Iterable[WorkUnit]) -> Iterator[tuple[WorkUnit, list[Prediction]]]:
    """Ask the model about each unit (one scene loaded once); check one valid prediction per sample.

    Ground-truth objects (labels, boxes, instance masks) reach only models that set
    ``ground_truth_perception = True``; such runs are marked in run.json and results.json."""
    wants_truth = bool(getattr(model, "needs_ground_truth", False))
    for unit in units:
        scene = perception_view(source.scene(unit.scene_id), model)
        truth = {s.sample_id: source.truth(s) for s in unit.samples} if wants_truth else None
        preds = list(model.predict(SceneBatch(scene, unit.samples, truth)))
        yield unit, check_unit_predictions(unit, preds, getattr(model, "name", type(model).__name__))


def check_unit_predictions(unit: WorkUnit, preds: Sequence[Prediction], model_name: str) -> list[Prediction]:
    by_id = {s.sample_id: s for s in unit.samples}
    seen: dict[str, Prediction] = {}
    for p in preds:
        if not isinstance(p, Prediction):
            raise ScenebenchError(f"model {model_name} returned {type(p).__name__} for scene {unit.scene_id}; expected Prediction objects")
        if p.sample_id not in by_id:
            raise ScenebenchError(f"model {model_name} returned a prediction for unknown sample '{p.sample_id}' (scene {unit.scene_id})")
        if p.sample_id in seen:
            raise ScenebenchError(f"model {model_name} returned two predictions for sample '{p.sample_id}'")
        check_prediction_kind(by_id[p.sample_id], p)
        seen[p.sample_id] = p
    lost = [sid for sid in by_id if sid not in seen]
    if lost:
        raise ScenebenchError(
            f"model {model_name} returned no prediction for {len(lost)} sample(s) of scene {unit.scene_id} "
            f"(first: {lost[:3]}); a model that abstains must return TextPrediction(sample_id, text='')"
        )
    return [seen[s.sample_id] for s in unit.samples]


@dataclass
class RunOutcome:
    run: RunDir
    predictions: dict[str, Prediction]
    predicted_now: int
    reused: int
    predictions_path: Path | None = None
    results: Any = None


def run_meta(source: RunSource, spec: ModelSpec, model: Any, *, seed: int, protocol: str) -> dict[str, Any]:
    """What the run folder records; the fingerprint covers everything that changes a prediction.

    ``--limit`` and ``--tasks`` are not in it: they choose samples, they do not change any single
    prediction, so a rerun with a larger limit extends the same run.
    """
    inputs = source.inputs()
    opts = dict(spec.options)
    key = {
        "benchmark": source.benchmark,
        "model": spec.name,
        # Where a server runs does not change its answers: a model moved to another host resumes.
        "model_options": {k: v for k, v in opts.items() if k not in NOT_IDENTITY},
        "model_settings": model_settings(model),
        "seed": seed,
        "data": source.spec(),
        "inputs": {k: v.get("sha256") if isinstance(v, dict) else v for k, v in inputs.items()},
    }
    return {
        "benchmark": source.benchmark,
        "protocol": protocol,
        "stage": "run",
        "fingerprint": fingerprint(key),
        "model": spec.name,
        "model_options": opts,
        "model_settings": model_settings(model),
        "seed": seed,
        "data": source.spec(),
        "inputs": inputs,
        "ground_truth_perception": uses_ground_truth_perception(model),
    }


def predict_into_run(
    source: RunSource,
    spec: ModelSpec,
    run: RunDir,
    samples: Sequence[ModelSample],
    *,
    backend: Any = None,
    model: Any = None,
    progress: bool = True,
) -> tuple[dict[str, Prediction], int, int]:
    """Predict every sample of ``samples`` not yet in the run's store; return (all predictions, new, reused).

    ``model`` (an already built instance) is used by the local backend; a distributed backend
    builds its own copies from ``spec`` in each worker.
    """
    from scenebench.progress import progress_bar
    from scenebench.runtime.local_backend import LocalBackend

    backend = backend or LocalBackend()
    wanted = [s.sample_id for s in samples]
    with run.store() as store:
        done = store.ids(PREDICTION_KIND)
        units = plan_units(samples, done)
        todo = sum(len(u.samples) for u in units)
        reused = len(wanted) - todo
        new = 0
        if units:
            with progress_bar(total=todo, label=f"predicting {source.benchmark} with {spec.name}", enabled=progress) as advance:

                def save(unit: WorkUnit, preds: Sequence[Prediction]) -> None:
                    nonlocal new
                    store.put_many(
                        PREDICTION_KIND,
                        [(p.sample_id, {"scene_id": unit.scene_id, "prediction": p.to_json()}) for p in preds],
                    )
                    new += len(preds)
                    advance(len(preds))

                backend.run(source, spec, units, save, model=model)
        stored = {sid: body for sid, body in store.iter(PREDICTION_KIND)}
    missing = [sid for sid in wanted if sid not in stored]
    if missing:
        raise ScenebenchError(
            f"the predict stage finished but {len(missing)} samples have no prediction (first: {missing[:3]}); "
            "nothing is scored rather than a smaller denominator"
        )
    preds = {sid: prediction_from_json(stored[sid]["prediction"]) for sid in wanted}
    return preds, new, reused


def run_benchmark(
    source: RunSource,
    model_name: str,
    out: str | Path,
    *,
    model_options: Mapping[str, Any] | None = None,
    tasks: Sequence[str] | None = None,
    limit: int | None = None,
    seed: int = 0,
    protocol: str = "strict",
    backend: Any = None,
    overwrite: bool = False,
    progress: bool = True,
    score: bool = True,
    model: Any = None,
    score_options: Mapping[str, Any] | None = None,
) -> RunOutcome:
    """The whole ``scenebench run BENCHMARK``: predict (resumably), write the prediction file, score.

    ``source`` comes from :func:`scenebench.models.sources.base.make_source`; ``score_options`` go to
    its scorer (3DBench: ``judge``).
    """
    spec = ModelSpec(model_name, {"seed": seed, **dict(model_options or {})})
    samples = select_samples(source.samples(), tasks, limit)
    if model is None:
        model = build_model(spec, source)
    meta = run_meta(source, spec, model, seed=seed, protocol=protocol)
    # The protocol only changes scoring: another --protocol re-scores the stored predictions instead of
    # refusing the folder, so it is not part of the folder's identity (it is recorded, and in the score key).
    run = RunDir(out).open(meta, overwrite=overwrite, key_fields=("benchmark", "fingerprint"))
    if run.read_meta() != meta:
        atomic_write_json(run.run_json, meta)
    preds, new, reused = predict_into_run(source, spec, run, samples, backend=backend, model=model, progress=progress)
    outcome = RunOutcome(run, preds, new, reused)
    outcome.predictions_path = source.write_predictions(preds, samples, run.path)
    if score:
        opts = dict(score_options or {})
        judge = opts.get("judge")
        judge_id = None if judge is None else {"model_id": getattr(judge, "model_id", None), "prompts": getattr(judge, "prompt_versions", None)}
        _forget_stale_scores(run, outcome.predictions_path, samples, {"protocol": protocol, "judge": judge_id})
        outcome.results = source.score(run, outcome.predictions_path, samples, protocol=protocol, progress=progress, **opts)
    return outcome


def _forget_stale_scores(run: RunDir, predictions_path: Path, samples: Sequence[ModelSample], scoring: Mapping[str, Any]) -> None:
    """Stored scores are reused only if computed from this prediction file, sample set, protocol and judge."""
    from scenebench.io.files import sha256_file
    from scenebench.runtime.scoring import SCORE_KIND

    key = {"predictions": sha256_file(predictions_path), "samples": fingerprint([s.sample_id for s in samples]), "scoring": fingerprint(dict(scoring))}
    with run.store() as store:
        if store.get(STATE_KIND, "scored-from") != key:
            store.clear(SCORE_KIND)
            store.put_many(STATE_KIND, [("scored-from", key)])


def seeded_rng(seed: int, *keys: str) -> Any:
    """A numpy Generator that depends only on ``seed`` and ``keys`` (e.g. the sample id).

    Seeded baselines draw per sample, so their answers do not depend on batching, sharding or the
    backend: the Ray and local backends then produce identical predictions.
    """
    import hashlib

    import numpy as np

    h = hashlib.sha256(("\x1f".join([str(seed), *keys])).encode()).digest()
    return np.random.default_rng(int.from_bytes(h[:8], "little"))


SaveFn = Callable[[WorkUnit, Sequence[Prediction]], None]
__all__ = [
    "ModelSpec",
    "RunOutcome",
    "SaveFn",
    "WorkUnit",
    "build_model",
    "make_source",
    "plan_units",
    "predict_into_run",
    "predict_units",
    "run_benchmark",
    "select_samples",
    "seeded_rng",
]
