"""Run a model over a benchmark: scene-grouped, saved as produced, resumable, then scored.

The predict stage writes every scene's predictions into the run's SQLite store (kind
``"prediction"``, keyed by ``sample_id``) in one transaction as soon as the model returns them. A
rerun with the same model, seed and data reads the store and only asks the model about the samples
that have no prediction yet; a killed run therefore loses at most the scenes in flight.

After predicting, the predictions are written as the benchmark's own prediction file in the run
folder (so they can be scored again with ``scenebench score``) and scored by the benchmark's scorer
into the same run folder.

Model diagnostics: the seconds each scene took (load + predict, measured by the backend, stored
per work unit, kind ``"unit-time"``) and the model's own per-sample outcome, ``Prediction.extra["status"]``
(``"ok"`` or what went wrong, e.g. the FPFH baseline's ``fallback_identity``), are read back from the
store for the run's samples -- so they survive resuming and Ray -- and summarised into
``results.extra.model_diagnostics`` (:func:`model_diagnostics`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scenebench.declarations.catalog import get_spec, names
from scenebench.errors import ScenebenchError
from scenebench.io.files import atomic_write_json
from scenebench.models.base import ModelSample, model_settings
from scenebench.models.execution import (
    ModelSpec,
    WorkUnit,
    build_model,
    predict_units,
    seeded_rng,
    uses_ground_truth_answers,
    uses_ground_truth_perception,
)
from scenebench.models.predictions import Prediction, prediction_from_json
from scenebench.models.sources.base import RunSource, make_source
from scenebench.protocol import resolve_protocol
from scenebench.redact import known_secrets, option_secrets, redact_options, redact_tree, redact_url  # noqa: F401 - redact_url re-exported
from scenebench.runtime.local_backend import LocalBackend
from scenebench.runtime.rundir import RunDir, fingerprint
from scenebench.runtime.scoring import SCORE_KIND, score_job

PREDICTION_KIND = "prediction"
NOT_IDENTITY = (
    "base_url",
    "cache_dir",
    "max_reply_bytes",
)  # model options recorded in run.json but not part of the run's fingerprint: where a server or an image cache lives changes no
# prediction, and a run stopped by a refused reply must resume under a larger cap
STATE_KIND = "run-state"  # bookkeeping records in the same store (e.g. what the stored scores were computed from)
UNIT_TIME_KIND = "unit-time"  # seconds a work unit took (scene load + predict), keyed by scene and first sample
OK_STATUS = "ok"
SLOWEST_SCENES = 10  # listed in model_diagnostics.seconds_per_scene.slowest


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
    if not out:
        raise ScenebenchError(
            "no samples to run: the data holds no samples of the evaluated split (a folder made by `scenebench generate` "
            "has test houses only from --houses N >= --test-every, default 5: house i is a test house when i % 5 == 4)"
        )
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
    diagnostics: dict[str, Any] = field(default_factory=dict)  # model_diagnostics(): status counts, failures, seconds


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
        "ground_truth_answers": uses_ground_truth_answers(model),  # the oracle: handed every answer
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
    import sys

    from scenebench.progress import progress_bar

    backend = backend or LocalBackend()
    wanted = [s.sample_id for s in samples]
    # A server reply may echo the API key (an error text, a debug field): every stored answer is masked
    # here, so the store, results, report and the judge's input never hold it.
    secrets = sorted({*known_secrets(argv=sys.argv[1:]), *option_secrets(spec.options)}, key=len, reverse=True)
    with run.store() as store:
        done = store.ids(PREDICTION_KIND)
        units = plan_units(samples, done)
        todo = sum(len(u.samples) for u in units)
        reused = len(wanted) - todo
        new = 0
        if units:
            with progress_bar(total=todo, label=f"predicting {source.benchmark} with {spec.name}", enabled=progress) as advance:

                def save(unit: WorkUnit, preds: Sequence[Prediction], seconds: float | None = None) -> None:
                    nonlocal new
                    store.put_many(
                        PREDICTION_KIND,
                        [(p.sample_id, {"scene_id": unit.scene_id, "prediction": redact_tree(p.to_json(), secrets)}) for p in preds],
                    )
                    if seconds is not None:
                        key = f"{unit.scene_id}\x1f{unit.samples[0].sample_id}"  # a scene may be predicted in parts (--limit)
                        store.put_many(UNIT_TIME_KIND, [(key, {"scene_id": unit.scene_id, "seconds": float(seconds), "n": len(preds)})])
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


def _lineages(benchmark: str) -> tuple[str, ...]:
    """The declared evaluator lineages of ``benchmark``; none for a run source no declaration names
    (a source built directly, as tests and notebooks do)."""
    if benchmark not in names():
        return ()
    return get_spec(benchmark).lineages


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
    its scoring job (the options its declaration sends there, ``Option(to="score")``).
    """
    protocol = resolve_protocol(protocol, _lineages(source.benchmark))
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
    outcome = RunOutcome(run, preds, new, reused, diagnostics=model_diagnostics(run, samples))
    outcome.predictions_path = source.write_predictions(preds, samples, run.path)
    if score:
        job = source.scoring_job(outcome.predictions_path, samples, protocol=protocol, **dict(score_options or {}))
        _forget_stale_scores(run, outcome.predictions_path, samples, {"protocol": protocol, **job.score_key})
        outcome.results = add_run_info(score_job(job, run, progress=progress), run, diagnostics=outcome.diagnostics)
    return outcome


def model_diagnostics(run: RunDir, samples: Sequence[ModelSample]) -> dict[str, Any]:
    """What the model said about its own work on ``samples``, from the run's store (empty when nothing).

    - ``status_counts``: how many predictions carry each ``extra["status"]`` (models that report none
      are left out);
    - ``failures``: every sample whose status is not ``"ok"``, with the scalar fields of its ``extra``
      (e.g. the FPFH baseline's ``method``, ``fitness``);
    - ``abstained``: ``{n, of}``, how many answers were empty text (a model that abstains), when any;
    - ``seconds_per_scene``: ``n_scenes``, ``mean``, ``max``, ``total`` and the ``slowest`` scenes, over
      the scenes of ``samples`` whose backend reported a time (load + predict).
    """
    wanted = {s.sample_id for s in samples}
    scenes = {s.scene_id for s in samples}
    statuses: Counter[str] = Counter()
    failures: list[dict[str, Any]] = []
    seconds: dict[str, float] = {}
    with run.store() as store:
        stored = {sid: body for sid, body in store.iter(PREDICTION_KIND) if sid in wanted}
        for _, body in store.iter(UNIT_TIME_KIND):
            if body.get("scene_id") in scenes:
                seconds[body["scene_id"]] = seconds.get(body["scene_id"], 0.0) + float(body["seconds"])
    abstained = 0
    for s in samples:
        pred = (stored.get(s.sample_id) or {}).get("prediction", {})
        if pred.get("kind") == "text" and not str(pred.get("text", "")).strip():
            abstained += 1  # an empty answer: scored as missing or wrong, and said so (issue 41)
        extra = pred.get("extra") or {}
        status = extra.get("status")
        if not isinstance(status, str):
            continue
        statuses[status] += 1
        if status != OK_STATUS:
            detail = {k: v for k, v in extra.items() if k != "status" and (v is None or isinstance(v, str | int | float | bool))}
            failures.append({"sample_id": s.sample_id, "scene_id": s.scene_id, "status": status, **detail})
    out: dict[str, Any] = {}
    if abstained:
        out["abstained"] = {"n": abstained, "of": len(samples)}
    if statuses:
        out["status_counts"] = dict(sorted(statuses.items(), key=lambda kv: (-kv[1], kv[0])))
        out["failures"] = failures
    if seconds:
        values = list(seconds.values())
        slowest = sorted(seconds.items(), key=lambda kv: -kv[1])[:SLOWEST_SCENES]
        out["seconds_per_scene"] = {
            "n_scenes": len(values),
            "mean": sum(values) / len(values),
            "max": max(values),
            "total": sum(values),
            "slowest": [{"scene_id": k, "seconds": round(v, 3)} for k, v in slowest],
        }
    return out


def diagnostics_lines(diagnostics: Mapping[str, Any], *, max_failures: int = 10) -> list[str]:
    """A short console summary of :func:`model_diagnostics` (empty when there is nothing to say)."""
    lines = []
    abstained = diagnostics.get("abstained")
    if abstained:
        n, of = abstained["n"], abstained["of"]
        lines.append(
            f"warning: the model answered none of the {of} samples (every answer empty): its scores are those of no answer"
            if n == of
            else f"the model abstained on {n} of {of} samples (empty answers, scored as missing or wrong)"
        )
    secs = diagnostics.get("seconds_per_scene")
    if secs:
        lines.append(
            f"model seconds per scene: mean {secs['mean']:.2f}, max {secs['max']:.2f} "
            f"({secs['slowest'][0]['scene_id']}), total {secs['total']:.1f} over {secs['n_scenes']} scenes"
        )
    counts = diagnostics.get("status_counts")
    if counts:
        lines.append("model status: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    failures = diagnostics.get("failures") or []
    if failures:
        shown = f"first {max_failures}; " if len(failures) > max_failures else ""
        lines.append(
            f"{len(failures)} sample{'s' if len(failures) != 1 else ''} not ok by the model's own account ({shown}all in results.json extra.model_diagnostics.failures):"
        )
        for f in failures[:max_failures]:
            detail = ", ".join(
                f"{k} {round(v, 3) if isinstance(v, float) else v}" for k, v in f.items() if k not in ("sample_id", "scene_id", "status")
            )
            lines.append(f"  {f['sample_id']}: {f['status']}" + (f" ({detail})" if detail else ""))
    return lines


def _forget_stale_scores(run: RunDir, predictions_path: Path, samples: Sequence[ModelSample], scoring: Mapping[str, Any]) -> None:
    """Stored scores are reused only if computed from this prediction file, sample set, protocol and the
    job's ``score_key`` (what else its scores depend on)."""
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


def add_run_info(res: Any, run: RunDir, *, diagnostics: Mapping[str, Any] | None = None) -> Any:
    """Add what the run was (model, seed, samples, the model's diagnostics) to the results and save them in the run folder."""
    meta = run.read_meta()
    res.settings = {**res.settings, "model": meta.get("model"), "model_options": meta.get("model_options"), "seed": meta.get("seed")}
    run_info = {k: meta.get(k) for k in ("model", "model_settings", "seed", "data", "fingerprint")}
    # What the model was handed beyond the samples and sensor data: a reader sees it next to the numbers.
    run_info["ground_truth_perception"] = bool(meta.get("ground_truth_perception", False))
    run_info["ground_truth_answers"] = bool(meta.get("ground_truth_answers", False))
    res.extra = {**res.extra, "run": run_info}
    if diagnostics:
        res.extra["model_diagnostics"] = dict(diagnostics)
    res.ground_truth_perception = bool(meta.get("ground_truth_perception", False))
    res.save(run.results_json)
    return res


SaveFn = Callable[[WorkUnit, Sequence[Prediction], float | None], None]
__all__ = [
    "ModelSpec",
    "RunOutcome",
    "SaveFn",
    "WorkUnit",
    "build_model",
    "diagnostics_lines",
    "make_source",
    "model_diagnostics",
    "plan_units",
    "predict_into_run",
    "predict_units",
    "run_benchmark",
    "select_samples",
    "seeded_rng",
]
