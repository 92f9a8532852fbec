"""The one scoring driver every benchmark uses: RunDir -> :func:`score_into_run` -> Results.

A benchmark declares ``prepare_scoring(*, protocol, **options) -> ScoringJob``
(:class:`scenebench.declarations.BenchmarkSpec`); :func:`score_benchmark` checks the protocol,
prepares the job, builds the run meta and fingerprint from the job's settings and inputs
(:class:`RunMeta`), opens (or resumes) the run folder and calls
:func:`score_job`, which the run loop
(``scenebench run``) uses too. The scorer yields :class:`SampleScore` batches (one per scene, so a
scene's points are loaded once, or several scenes at once: RIO); :func:`score_into_run` writes each batch to the run's store as soon
as it is computed (batches scored within :data:`FLUSH_SECONDS` share one transaction), skips
samples already stored when a run is resumed, shows progress, and hands the complete list to the
job's ``summarize``; the driver saves ``results.json``.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scenebench.declarations.catalog import get_spec
from scenebench.errors import ScenebenchError
from scenebench.io.fingerprints import fingerprint
from scenebench.io.store import FINISHED_KEY, SCORE_KIND, STATE_KIND, DamagedStoreError, score_ids_digest
from scenebench.metrics.jobs import ScoringJob
from scenebench.metrics.records import SampleScore, Scorer, Summary, count, summarize_scores
from scenebench.protocol import resolve_protocol
from scenebench.registry import load_object
from scenebench.results import Results
from scenebench.runtime.rundir import RunDir, default_run_dir

# Batches scored within this many seconds share one store transaction (one fsync): 2,000 RIO rescans
# were 2,000 commits. The first batch is written at once; a killed run loses at most this much work,
# which the rerun scores again.
FLUSH_SECONDS = 0.2


@dataclass(frozen=True)
class RunMeta:
    """What ``run.json`` of a ``scenebench score`` folder records, and the fingerprint that decides
    whether a folder may be resumed: the protocol, the settings and the content digests of the
    inputs (paths are left out: moving the same files does not invalidate a run)."""

    benchmark: str
    protocol: str
    settings: Mapping[str, Any]
    inputs: Mapping[str, Any]
    fingerprint: str

    @classmethod
    def build(
        cls, benchmark: str, protocol: str, settings: Mapping[str, Any], inputs: Mapping[str, Any], digests: Mapping[str, Any] | None = None
    ) -> RunMeta:
        """``digests``: what of the inputs the fingerprint covers (default :func:`input_digests`)."""
        key = {"protocol": protocol, "settings": dict(settings), "inputs": input_digests(inputs) if digests is None else dict(digests)}
        return cls(benchmark, protocol, settings, inputs, fingerprint(key))

    def to_json(self) -> dict[str, Any]:
        return {
            "benchmark": self.benchmark,
            "protocol": self.protocol,
            "settings": dict(self.settings),
            "inputs": dict(self.inputs),
            "fingerprint": self.fingerprint,
        }


def input_digests(inputs: Any) -> Any:
    """The content digests of a (nested) inputs record: a file record (``{"path", "sha256", ...}``)
    becomes its sha256; plain strings (folder paths) drop out."""
    if isinstance(inputs, Mapping):
        if "sha256" in inputs:
            return inputs["sha256"]
        return {k: input_digests(v) for k, v in inputs.items() if not isinstance(v, str | Path)}
    return inputs


def job_meta(job: ScoringJob) -> RunMeta:
    """The run meta of ``job``: the driver, not the benchmark, decides what identifies a run."""
    return RunMeta.build(job.benchmark, job.protocol, job.settings, job.inputs, job.digests)


def score_into_run(scorer: Scorer, run: RunDir, *, progress: bool = True, label: str | None = None) -> list[SampleScore]:
    """Score every sample not yet stored in ``run``; return all records in ground-truth order."""
    from scenebench.progress import progress_bar

    ids = scorer.sample_ids()
    if hasattr(scorer, "progress"):  # a scorer with a pass of its own (3DBench's judge) reports it too
        scorer.progress = progress
    with run.store() as store:
        # Until results.json is saved again, the stored scores are a run in progress: export refuses them.
        store.put_many(STATE_KIND, [(FINISHED_KEY, {"finished": False})])
        done = store.ids(SCORE_KIND)
        todo = len([i for i in ids if i not in done])
        fresh: dict[str, SampleScore] = {}
        pending: list[SampleScore] = []
        last = -math.inf

        def flush() -> None:
            nonlocal pending, last
            batch, pending = pending, []
            store.put_many(SCORE_KIND, [(r.sample_id, r.to_json()) for r in batch])
            last = time.monotonic()

        with progress_bar(total=todo, label=label or f"scoring {scorer.benchmark}", enabled=progress) as advance:
            try:
                for batch in scorer.iter_scores(skip=done):
                    pending.extend(batch)
                    fresh.update((r.sample_id, r) for r in batch)
                    advance(len(batch))
                    if time.monotonic() - last >= FLUSH_SECONDS:
                        flush()
            except BaseException:
                with contextlib.suppress(Exception):  # keep what was scored; the first error is the one raised
                    flush()
                raise
            flush()
        # Records scored now are used as they are; only those of an earlier (resumed) run are read back.
        stored = {sid: SampleScore.from_json(body) for sid, body in store.iter(SCORE_KIND) if sid not in fresh} if done else {}
        stored.update(fresh)
    _check_complete([i for i in ids if i not in stored])
    return [stored[i] for i in ids]


def _check_complete(missing: list[str]) -> None:
    if missing:
        raise ScenebenchError(
            f"scorer finished but {len(missing)} ground-truth samples have no record (first: {missing[:3]}); "
            "this is a bug in the scorer: nothing is reported rather than a smaller denominator"
        )


def load_scores(run: RunDir) -> list[SampleScore]:
    with run.store() as store:
        return [SampleScore.from_json(body) for _, body in store.iter(SCORE_KIND)]


def holds_all_scores(run: RunDir, meta: dict[str, Any], ids: list[str]) -> bool:
    """True when ``run`` already holds every sample of these exact inputs and settings."""
    if not run.exists() or run.read_meta().get("fingerprint") != meta.get("fingerprint"):
        return False
    try:
        with run.store() as store:
            done = store.ids(SCORE_KIND)
    except DamagedStoreError:  # not resumable: --overwrite resets it, a plain rerun says so when it opens the store
        return False
    return all(i in done for i in ids)


@contextlib.contextmanager
def counted_numeric_warnings() -> Iterator[list[int]]:
    """Count, instead of printing, the numpy floating-point warnings (overflow, invalid, divide) and
    ``RuntimeWarning``s raised inside: hostile answers (1e308, NaN) make numpy warn once per
    operation, and a raw ``RuntimeWarning: overflow encountered in subtract`` on the terminal says
    nothing useful. Code that deliberately ignores an error (its own ``np.errstate``) still does;
    other warning kinds are passed on as they were raised. Yields ``[count]``."""
    import warnings

    import numpy as np

    box = [0]

    def count(kind: str, flag: int) -> None:
        box[0] += 1

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with np.errstate(divide="call", over="call", invalid="call", call=count):
            yield box
    for w in caught:
        if issubclass(w.category, RuntimeWarning):
            box[0] += 1
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)


def score_job(job: ScoringJob, run: RunDir, *, progress: bool = True) -> Results:
    """The one scoring driver: store every record as computed (resumable), summarise, save ``results.json``."""
    hooks = job.hooks
    if hooks.on_open is not None:
        hooks.on_open(job.scorer)
    with counted_numeric_warnings() as warned:
        try:
            records = score_into_run(job.scorer, run, progress=progress, label=job.label or f"scoring {job.benchmark}")
        finally:
            if hooks.on_stop is not None:
                hooks.on_stop(run)
        res = job.summarize(records, run)
    if warned[0]:  # only then: results of clean inputs stay byte-identical
        res.extra["numeric_warnings"] = warned[0]
    res.extra["n_scenes"] = scene_counts(records, res.metrics)
    res.save(run.results_json)
    with run.store() as store:  # results.json now covers exactly these scores: the run is finished
        store.put_many(
            STATE_KIND, [(FINISHED_KEY, {"finished": True, "n": len(records), "ids": score_ids_digest(r.sample_id for r in records)})]
        )
    return res.in_run(run.path)  # Results.samples() reads the per-sample scores from there


def scene_counts(records: list[SampleScore], metrics: dict[str, Any]) -> dict[str, Any]:
    """Scenes behind each block of ``metrics`` (``overall`` and ``by_<group>`` values), excluded samples
    left out as in the metrics: reports show no interval as evidence below ``MIN_CI_SCENES``."""
    kept = [r for r in records if r.status != "excluded"]
    out: dict[str, Any] = {"overall": len({r.scene_id for r in kept})}
    for key in metrics:
        if not key.startswith("by_"):
            continue
        scenes: dict[str, set[str]] = {}
        for r in kept:
            v = r.groups.get(key[3:])
            if v is not None:
                scenes.setdefault(str(v), set()).add(r.scene_id)
        out[key] = {v: len(sc) for v, sc in scenes.items()}
    return out


def score_benchmark(
    benchmark: str,
    out: str | Path | None = None,
    *,
    protocol: str = "strict",
    overwrite: bool = False,
    progress: bool = True,
    **options: Any,
) -> tuple[Results, RunDir, ScoringJob]:
    """``scenebench score BENCHMARK``: RunDir -> :func:`score_into_run` -> Results, for every benchmark.

    ``options`` go to the benchmark's ``prepare_scoring`` (its declared ``scorer``), which loads the
    ground truth and returns a :class:`ScoringJob`. The protocol is checked before anything is read.
    """
    spec = get_spec(benchmark)
    checked = resolve_protocol(protocol, spec.lineages)
    prepare = load_object(spec.scorer)
    job: ScoringJob = prepare(protocol=checked, **options)
    res, run = score_prepared(job, out, overwrite=overwrite, progress=progress)
    return res, run, job


def score_prepared(
    job: ScoringJob, out: str | Path | None = None, *, overwrite: bool = False, progress: bool = True
) -> tuple[Results, RunDir]:
    """Open (or resume) the run folder of ``job`` and score it with :func:`score_job`."""
    run = RunDir(out or default_run_dir(job.benchmark))
    meta = job_meta(job).to_json()
    if job.hooks.check_inputs is not None and not holds_all_scores(run, meta, job.scorer.sample_ids()):
        # A bad predictions file must not leave behind a folder whose fingerprint blocks the corrected rerun.
        job.hooks.check_inputs()
    run.open(meta, overwrite=overwrite)
    return score_job(job, run, progress=progress), run


__all__ = [
    "SCORE_KIND",
    "counted_numeric_warnings",
    "RunMeta",
    "SampleScore",
    "Scorer",
    "ScoringJob",
    "Summary",
    "count",
    "holds_all_scores",
    "input_digests",
    "job_meta",
    "load_scores",
    "score_benchmark",
    "score_into_run",
    "score_job",
    "score_prepared",
    "summarize_scores",
]
