"""``scenebench score 3dbench`` as a library call: load, pair, score into a run folder, summarise."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from scenebench.benchmarks.bench3d.loader import Bench, load_bench
from scenebench.benchmarks.bench3d.predictions import Answers, expected_ids, read_answers
from scenebench.benchmarks.bench3d.scorer import Bench3DScorer, Settings, aggregate, task_columns
from scenebench.benchmarks.bench3d.specs import Primary, is_judged, task_specs
from scenebench.benchmarks.bench3d.tasks import TASKS, parse_task_list
from scenebench.errors import InputError
from scenebench.io.files import file_fingerprint
from scenebench.metrics import text as T
from scenebench.metrics.aggregate import metric_info
from scenebench.metrics.jobs import JobHooks, ScoringJob
from scenebench.metrics.records import SampleScore, count, summarize_scores
from scenebench.protocol import check_protocol
from scenebench.results import ConfidenceIntervals, Counts, Results

RULE_MEAN = (
    "the headline: mean of the primary metrics (percent) of the tasks scored by rules, not by a judge; "
    "the same tasks with and without --judge, so runs with and without one compare; CIs resample houses jointly"
)
JUDGED_MEAN = (
    "mean of the judged tasks' primary metrics (judge scores x10; official position relation's judge_same); "
    "null without a judge; reported apart from mean_rule because it depends on the judge named in extra.judge"
)
AGGREGATE_RULE = (
    "mean over the tasks of the group of each task's primary metric in percent (judge scores x10); "
    "tasks whose primary metric is unavailable are left out and listed under extra.aggregates; "
    "CIs resample houses jointly across tasks"
)


def load_inputs(
    data: str | Path,
    predictions: str | Path,
    *,
    tasks: str | None,
    circular: bool,
    allow_missing: bool,
    limit: int | None,
    houses: str | Path | None = None,
    objects_gt: str | Path | None = None,
) -> tuple[Bench, Answers]:
    try:
        task_list = parse_task_list(tasks)
    except ValueError as exc:
        raise InputError(None, str(exc), field="--tasks") from None
    bench = load_bench(data, task_list if tasks else None, houses=houses, objects_gt=objects_gt)
    if circular:
        _refuse_rotation_like_ids(bench)
    cut: set[str] = set()
    if limit is not None:
        if limit <= 0:
            raise InputError(None, f"got {limit}", field="--limit", expected="a positive number of records per task")
        cut = set(expected_ids(Bench(bench.root, {t: rs[limit:] for t, rs in bench.records.items()}), circular))
        # n_in_file keeps the full counts, so results can say CIDEr-D saw a subset
        bench.records = {t: rs[:limit] for t, rs in bench.records.items()}
    return bench, read_answers(predictions, bench, circular=circular, allow_missing=allow_missing, not_scored=cut)


def prepare_scoring(
    *,
    data: str | Path,
    predictions: str | Path,
    protocol: str = "strict",
    tasks: str | None = None,
    judge: Any | None = None,
    circular: bool = False,
    allow_missing: bool = False,
    limit: int | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
    houses: str | Path | None = None,
    objects_gt: str | Path | None = None,
) -> ScoringJob:
    """The 3DBench scoring job for the shared driver; ``judge`` is a built Judge or None.

    ``houses`` / ``objects_gt``: house JSON folder and ``GT/Classification.json`` for scene text tasks
    (defaults: ``<data>/houses``, ``<data>/GT/Classification.json``; see :mod:`.loader`).
    """
    checked = check_protocol(protocol)
    bench, answers = load_inputs(
        data,
        predictions,
        tasks=tasks,
        circular=circular,
        allow_missing=allow_missing,
        limit=limit,
        houses=houses,
        objects_gt=objects_gt,
    )
    settings = Settings(protocol=checked, circular=circular, n_resamples=n_resamples, seed=seed)
    judge_id = None if judge is None else {"model_id": judge.model_id, "prompt_versions": dict(judge.prompt_versions)}
    inputs = {
        "predictions": file_fingerprint(predictions),
        **{f"task:{t}": fp for t, fp in bench.fingerprints().items()},
        **bench.metadata_fingerprints(),
    }
    knobs = {
        "tasks": list(bench.records),
        "circular": circular,
        "allow_missing": allow_missing,
        "limit": limit,
        "judge": judge_id,
        **{k: str(v) for k, v in (("houses", houses), ("objects_gt", objects_gt)) if v is not None},
    }
    return job_for(bench, answers, settings, judge, inputs, knobs)


def job_for(bench: Bench, answers: Answers, settings: Settings, judge: Any | None, inputs: dict, knobs: dict) -> ScoringJob:
    """A scoring job over ``bench`` (also used by ``scenebench run 3dbench``); judge usage is saved per invocation."""
    scorer = Bench3DScorer(bench, answers, settings, judge)

    def stop(run: Any) -> None:  # after scoring, also when it fails
        save_judge_usage(run, judge)

    def summarize(records: list[SampleScore], run: Any) -> Results:
        usage = total_judge_usage(run, judge)
        return build_results(bench, answers, scorer, records, settings, judge, inputs, knobs, judge_usage=usage)

    # the judge decides text scores: stored scores made with another judge are not reused by `run`
    # ...and the text metrics' version: scores stored before a tokenizer or METEOR change are redone
    score_key = {
        "judge": None if judge is None else {"model_id": judge.model_id, "prompts": judge.prompt_versions},
        "text_metrics": T.TEXT_METRICS_VERSION,
    }
    job = ScoringJob(
        "3dbench",
        settings.protocol,
        scorer,
        summarize,
        knobs,
        inputs,
        label="scoring 3dbench",
        hooks=JobHooks(on_stop=stop),
        score_key=score_key,
    )
    return job


def _refuse_rotation_like_ids(bench: Bench) -> None:
    """With --circular, answer ids are ``question_id#rotK``: a question id that already holds ``#rot``
    (in any task) could collide with the rotation of another record, so it is refused."""
    from scenebench.benchmarks.bench3d.choice import CIRCULAR_SEP

    for t, recs in bench.records.items():
        for i, r in enumerate(recs):
            if CIRCULAR_SEP in r.question_id:
                raise InputError(
                    bench.files[t],
                    f"{r.question_id!r} contains '{CIRCULAR_SEP}'",
                    where=f"record {i}",
                    field="question_id",
                    expected=f"question ids without '{CIRCULAR_SEP}' under --circular (answer ids are question_id{CIRCULAR_SEP}K)",
                )


JUDGE_USAGE_KIND = "judge_usage"


def save_judge_usage(run: Any, judge: Any | None) -> None:
    """Save this invocation's judge usage in the run (also when scoring stopped on an error).

    A resumed run asks the judge only what is left, so the last invocation's counters alone would
    under-report what the run cost; each invocation's counters are kept and summed by
    :func:`total_judge_usage`. An invocation killed with SIGKILL cannot save its counters.
    """
    if judge is None:
        return
    import os
    import time

    with run.store() as st:
        st.put_many(JUDGE_USAGE_KIND, [(f"{time.time_ns()}-{os.getpid()}", judge.usage())])


def total_judge_usage(run: Any, judge: Any | None) -> dict[str, Any] | None:
    """The judge usage summed over every invocation of the run, with this invocation's own counters."""
    if judge is None:
        return None
    with run.store() as st:
        all_usage = [u for _, u in st.iter(JUDGE_USAGE_KIND)]
    total: dict[str, Any] = {}
    for u in all_usage:
        for k, v in u.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                total[k] = total.get(k, 0) + v
    return {**total, "invocations": len(all_usage), "this_invocation": judge.usage()}


def record_judge_usage(run: Any, judge: Any | None) -> dict[str, Any] | None:
    """Save this invocation's judge usage in the run and return the totals over all invocations."""
    save_judge_usage(run, judge)
    return total_judge_usage(run, judge)


def build_results(
    bench: Bench,
    answers: Answers,
    scorer: Bench3DScorer,
    records: list[SampleScore],
    settings: Settings,
    judge: Any | None,
    inputs: dict,
    knobs: dict,
    judge_usage: dict[str, Any] | None = None,
) -> Results:
    """``judge_usage``: counters over every invocation of the run (:func:`record_judge_usage`); defaults to this judge's."""
    by_task: dict[str, list[SampleScore]] = defaultdict(list)
    for r in records:
        by_task[r.groups["task"]].append(r)
    metrics: dict[str, Any] = {"overall": {}, "by_task": {}, "by_level": {}, "by_ability": {}}
    ci = ConfidenceIntervals(n_resamples=settings.n_resamples, seed=settings.seed, cluster_key="house id")
    ci_task: dict[str, Any] = {}
    counts_by_group: dict[str, dict[str, Counts]] = {"by_task": {}, "by_level": {}, "by_ability": {}}
    info: dict[str, dict[str, Any]] = {}
    info_by_task: dict[str, dict[str, Any]] = {}
    primaries = {}
    for t in bench.records:
        specs, prim = task_specs(t, settings.protocol, circular=settings.circular)
        primaries[t] = prim
        summ = summarize_scores(by_task[t], specs, n_resamples=settings.n_resamples, seed=settings.seed)
        metrics["by_task"][t], ci_task[t] = summ.metrics["overall"], summ.intervals.overall
        counts_by_group["by_task"][t] = summ.counts
        info_by_task[t] = metric_info(specs)  # the same name can mean a task-specific criterion
        for name, i in info_by_task[t].items():
            info.setdefault(name, i)
    aggregates: dict[str, Any] = {}
    ci_groups: dict[str, dict[str, Any]] = {"by_level": {}, "by_ability": {}}

    columns = {t: task_columns(by_task[t], primaries[t]) for t in bench.records}  # read once for every aggregate

    def agg(label: str, tasks: list[str]) -> tuple[dict, dict]:
        def one(ts: list[str]) -> tuple[float | None, list | None, list[str]]:
            if not ts:
                return None, None, []
            return aggregate(
                {t: columns[t] for t in ts}, {t: primaries[t] for t in ts}, n_resamples=settings.n_resamples, seed=settings.seed
            )

        v, c, used = one(tasks)
        # the headline: tasks scored by rules, the same set with and without a judge; the judged
        # tasks' mean apart (null without a judge), so runs with and without one compare
        rule = [t for t in tasks if not is_judged(primaries[t])]
        vr, cr, used_r = one(rule)
        vj, cj, used_j = one([t for t in tasks if is_judged(primaries[t])])
        aggregates[label] = {
            "tasks": used,
            "left_out": [t for t in tasks if t not in used],
            "rule_tasks": used_r,
            "judged_tasks": used_j,
        }
        out = {"mean_primary": v, "n_tasks": float(len(used)), "mean_rule": vr, "mean_judged": vj}
        return out, {"mean_primary": c, "mean_rule": cr, "mean_judged": cj}

    metrics["overall"], ci.overall = agg("overall", list(bench.records))
    for key, attr in (("by_level", "level"), ("by_ability", "ability")):
        groups: dict[str, list[str]] = defaultdict(list)
        for t in bench.records:
            groups[getattr(TASKS[t], attr)].append(t)
        for g, ts in sorted(groups.items()):
            metrics[key][g], ci_groups[key][g] = agg(f"{key}:{g}", ts)
            counts_by_group[key][g] = count([r for t in ts for r in by_task[t]])
    ci.by_task = ci_task  # type: ignore[attr-defined]  # an extra field of the 3DBench results
    for key, val in ci_groups.items():
        setattr(ci, key, val)
    for name, judged, what in (("mean_primary", None, AGGREGATE_RULE), ("mean_rule", False, RULE_MEAN), ("mean_judged", True, JUDGED_MEAN)):
        members = [t for t in bench.records if judged is None or is_judged(primaries[t]) == judged]
        info[name] = {
            "kind": "group_mean",
            "description": what,
            "unit": "%",
            "higher_is_better": True,
            "group": "task",
            # enough for `compare` to recompute it from per-sample values: each task's primary spec
            "members": [
                {
                    "value": t,
                    "metric": primaries[t].metric,
                    "factor": primary_factor(t, primaries[t], settings),
                    "specs": _primary_specs_info(t, primaries[t], settings, info_by_task[t]),
                }
                for t in members
            ],
        }
    info["n_tasks"] = {"kind": "count", "description": "tasks entering the aggregate", "unit": "", "higher_is_better": True}

    warnings = _warnings(bench, answers, scorer, settings, judge, knobs)
    flagged = [r.sample_id for r in records if r.detail.get("injection")]
    judge_apart = _judge_scores_apart(records)
    if flagged:
        apart = judge_apart["flagged"]
        means = (
            f"; their mean judge score {apart['mean']:.2f} (of {apart['n']}) against {judge_apart['unflagged']['mean']:.2f} "
            f"for the {judge_apart['unflagged']['n']} unflagged answers"
            if apart["n"] and judge_apart["unflagged"]["n"]
            else ""
        )
        warnings.append(
            f"{len(flagged)} judged answer(s) contain scoring or override patterns aimed at the judge "
            f"(detail.injection of each sample; first: {', '.join(flagged[:3])}){means}: check their judge scores"
        )
    extra: dict[str, Any] = {
        "primary_metric": {t: p.metric for t, p in primaries.items()},
        "metric_info_by_task": info_by_task,
        "aggregate_rule": AGGREGATE_RULE,
        "aggregates": aggregates,
        "task_info": {t: {"file": bench.files[t].name, "level": TASKS[t].level, "ability": TASKS[t].ability} for t in bench.records},
        "text_metrics": {
            "mode": T.TEXT_METRICS_VERSION,
            "tokenizer": T.TOKENIZER_VERSION,
            "cider_corpus_size": scorer.text.corpus_size,
            "meteor": scorer.text.meteor_reason or "java",
        },
        "circular_ids": "question_id#rot{k}: options[k:] + options[:k]" if settings.circular else None,
        "answers": {"missing": len(answers.missing), "not_scored": answers.skipped_other_tasks},
        "injection_flagged": {"n": len(flagged), "sample_ids": flagged[:100], "judge_scores": judge_apart},
    }
    if judge is not None:
        from scenebench.judges.naming import judge_identity

        ident = judge_identity(judge)
        extra["judge"] = {**ident, "usage": judge_usage if judge_usage is not None else judge.usage()}
        if ident["warning"]:
            warnings.append(ident["warning"])
    else:
        extra["judge"] = None
    return Results(
        benchmark="3dbench",
        protocol=settings.protocol,
        metrics=metrics,
        confidence_intervals=ci,
        counts=count(records),
        counts_by_group=counts_by_group,
        metric_info=info,
        settings={**knobs, "protocol": settings.protocol},
        inputs=inputs,
        warnings=warnings,
        extra=extra,
    )


def primary_factor(task: str, p: Primary, settings: Settings) -> float:
    """What turns the task's reported primary metric into the percent the aggregate averages
    (judge scores 0-10: x10; metrics already in percent: 1)."""
    specs, _ = task_specs(task, settings.protocol, circular=settings.circular)
    spec = next(s for s in specs if s.name == p.metric)
    scale = getattr(spec, "scale", 100.0)  # a Derived (F1) is computed from percentages
    return p.to_percent / scale


def _primary_specs_info(task: str, p: Primary, settings: Settings, task_info: dict[str, Any]) -> dict[str, Any]:
    """The metric_info of the task's primary metric and of the metrics it is derived from."""
    specs, _ = task_specs(task, settings.protocol, circular=settings.circular)
    spec = next(s for s in specs if s.name == p.metric)
    names = [*getattr(spec, "metrics", ()), spec.name]
    return {n: task_info[n] for n in names}


def _warnings(bench: Bench, answers: Answers, scorer: Bench3DScorer, settings: Settings, judge: Any | None, knobs: dict) -> list[str]:
    w: list[str] = []
    text_tasks = [t for t in bench.records if TASKS[t].kind == "text"]
    if answers.missing:
        w.append(f"{len(answers.missing)} expected answers are missing and scored as wrong (--allow-missing)")
    if answers.skipped_other_tasks:
        w.append(f"{answers.skipped_other_tasks} answers belong to tasks or records not scored here (--tasks/--limit) and were ignored")
    if judge is None and (text_tasks or "position_relation" in bench.records):
        w.append("no judge (--judge none): judge_score / judge_same are n/a; rule-based metrics are complete")
    if settings.protocol == "official" and judge is None and "position_relation" in bench.records:
        w.append(
            "official position relation is judged ('same'/'different'): without a judge its primary metric judge_same is n/a (left out of the aggregates); rule accuracy is reported beside it"
        )
    with_refs = [t for t in text_tasks if scorer.text.corpus_size.get(t)]
    if with_refs:
        # IDF comes from the references of the records scored: fewer records (--limit, a sampled run)
        # change every CIDEr-D value; choosing tasks or missing answers do not
        subset = any(len(bench.records[t]) < bench.n_in_file.get(t, 0) for t in with_refs) or knobs.get("limit") is not None
        sizes = ", ".join(f"{t}={scorer.text.corpus_size[t]}" for t in with_refs)
        w.append(
            f"CIDEr-D depends on the evaluated corpus (IDF from its references; sizes {sizes})"
            + ("; this run scores a subset, so CIDEr-D is not comparable with full-benchmark numbers" if subset else "")
        )
        if scorer.text.meteor_reason:
            w.append(f"meteor_java is n/a: {scorer.text.meteor_reason}")
    return w


def make_judge_or_none(spec: str | None, base_url: str | None, cache: str | None, concurrency: int) -> Any | None:
    """``--judge`` options -> a judge, or None for ``none``."""
    from scenebench.judges.factory import build_judge

    return build_judge(spec, base_url=base_url, cache_path=cache, concurrency=concurrency)


def _judge_scores_apart(records: list[SampleScore]) -> dict[str, dict[str, Any]]:
    """The 0-10 judge scores of the answers flagged for injection and of the others, apart: a judge that
    obeys an injected answer lifts the first mean, which the overall number would hide."""
    out: dict[str, dict[str, Any]] = {}
    for name, want in (("flagged", True), ("unflagged", False)):
        vals = [
            float(r.values["judge"])
            for r in records
            if "judge" in r.values and bool(r.detail.get("injection")) is want and r.status == "scored"
        ]
        out[name] = {"n": len(vals), "mean": sum(vals) / len(vals) if vals else None}
    return out
