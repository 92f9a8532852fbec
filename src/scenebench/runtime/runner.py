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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scenebench.errors import ScenebenchError
from scenebench.io.files import atomic_write_json
from scenebench.models.base import ModelSample, model_settings
from scenebench.models.execution import ModelSpec, WorkUnit, build_model, predict_units, seeded_rng, uses_ground_truth_perception
from scenebench.models.predictions import Prediction, prediction_from_json
from scenebench.models.sources.base import RunSource, make_source
from scenebench.protocol import check_protocol
from scenebench.redact import redact_options, redact_url  # noqa: F401 - redact_url re-exported
from scenebench.runtime.local_backend import LocalBackend
from scenebench.runtime.rundir import RunDir, fingerprint
from scenebench.runtime.scoring import SCORE_KIND, score_job

PREDICTION_KIND = "prediction"
NOT_IDENTITY = (
    "base_url",
    "cache_dir",
)  # model options recorded in run.json but not part of the run's fingerprint: where a server or an image cache lives changes no prediction
STATE_KIND = "run-state"  # bookkeeping records in the same store (e.g. what the stored scores were computed from)


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
        "inputs": _checksums(inputs),
    }
    return {
        "benchmark": source.benchmark,
        "protocol": protocol,
        "stage": "run",
        "fingerprint": fingerprint(key),
        "model": spec.name,
        "model_options": redact_options(opts),  # run.json and results.json never hold a password
        "model_settings": model_settings(model),
        "seed": seed,
        "data": source.spec(),
        "inputs": inputs,
        "ground_truth_perception": uses_ground_truth_perception(model),
    }


def _checksums(inputs: Any) -> Any:
    """The content digests of a (nested) inputs record: file records become their sha256, paths drop out."""
    if isinstance(inputs, dict):
        if "sha256" in inputs:
            return inputs["sha256"]
        return {k: _checksums(v) for k, v in inputs.items()}
    return inputs


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
    protocol = check_protocol(protocol)
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
        judge_id = (
            None if judge is None else {"model_id": getattr(judge, "model_id", None), "prompts": getattr(judge, "prompt_versions", None)}
        )
        _forget_stale_scores(run, outcome.predictions_path, samples, {"protocol": protocol, "judge": judge_id})
        job = source.scoring_job(outcome.predictions_path, samples, protocol=protocol, **opts)
        outcome.results = add_run_info(score_job(job, run, progress=progress), run)
    return outcome


def _forget_stale_scores(run: RunDir, predictions_path: Path, samples: Sequence[ModelSample], scoring: Mapping[str, Any]) -> None:
    """Stored scores are reused only if computed from this prediction file, sample set, protocol and judge."""
    from scenebench.io.files import sha256_file

    key = {
        "predictions": sha256_file(predictions_path),
        "samples": fingerprint([s.sample_id for s in samples]),
        "scoring": fingerprint(dict(scoring)),
    }
    with run.store() as store:
        if store.get(STATE_KIND, "scored-from") != key:
            store.clear(SCORE_KIND)
            store.put_many(STATE_KIND, [("scored-from", key)])


def add_run_info(res: Any, run: RunDir) -> Any:
    """Add what the run was (model, seed, samples) to the results and save them in the run folder."""
    meta = run.read_meta()
    res.settings = {**res.settings, "model": meta.get("model"), "model_options": meta.get("model_options"), "seed": meta.get("seed")}
    res.extra = {**res.extra, "run": {k: meta.get(k) for k in ("model", "model_settings", "seed", "data", "fingerprint")}}
    res.ground_truth_perception = bool(meta.get("ground_truth_perception", False))
    res.save(run.results_json)
    return res


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
