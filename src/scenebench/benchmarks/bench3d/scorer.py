"""3DBench scorer on the shared engine: pairs answers with records, scores every task, aggregates.

``Bench3DScorer`` implements the engine's ``Scorer`` protocol (batches per house, resumable);
:func:`build_results` turns the stored per-sample records into ``results.json`` with one block per
task (``metrics.by_task``), aggregates per level and ability, and house-clustered CIs.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scenebench.benchmarks.bench3d import sample_scores as S
from scenebench.benchmarks.bench3d.choice import circular_id, rotate
from scenebench.benchmarks.bench3d.loader import Bench
from scenebench.benchmarks.bench3d.predictions import Answers
from scenebench.benchmarks.bench3d.records import Record
from scenebench.benchmarks.bench3d.specs import Primary
from scenebench.benchmarks.bench3d.tasks import TASKS
from scenebench.metrics import text as T
from scenebench.metrics.captions import CaptionCorpus, prepare_corpus, sample_values
from scenebench.metrics.records import SampleScore
from scenebench.protocol import Protocol


@dataclass
class Settings:
    protocol: Protocol = "strict"
    circular: bool = False
    n_resamples: int = 1000
    seed: int = 0


@dataclass
class TextPrep(CaptionCorpus):
    """Corpus-level text metrics computed once per task before scoring (CIDEr needs the whole corpus)."""

    corpus_size: dict[str, int] = field(default_factory=dict)


JUDGE_CHUNK = 256  # judge requests sent per judge_many call: bounds the answer texts held at once
BATCH_RECORDS = 4096  # records (whole houses) whose answers are read and scored together: each group costs ~1 ms of fixed numpy work, and its texts' words are held at once
BATCHED_KINDS = frozenset({"grounding", "grounding_plus", "detection", "room_detection", "navigation"})


class Bench3DScorer:
    benchmark = "3dbench"

    def __init__(self, bench: Bench, answers: Answers, settings: Settings, judge: Any | None = None) -> None:
        self.bench = bench
        self.answers = answers
        self.settings = settings
        self.protocol = settings.protocol
        self.judge = judge
        self.progress = False  # set by the engine (score_into_run)
        self.records: dict[str, Record] = {r.key: r for r in bench.all_records()}
        self._verdicts: dict[tuple[str, str], Any] = {}
        self._batched: dict[str, S.Outcome] = {}  # outcomes of the group of houses being scored
        self.text = self._prepare_text()

    # -- engine protocol -------------------------------------------------------------------
    def sample_ids(self) -> list[str]:
        return list(self.records)

    def iter_scores(self, skip: set[str]) -> Iterator[list[SampleScore]]:
        todo = [r for q, r in self.records.items() if q not in skip]
        self._judge_all(todo)
        by_house: dict[str, list[Record]] = defaultdict(list)
        for r in todo:
            by_house[r.house].append(r)
        houses = sorted(by_house)
        start = 0
        while start < len(houses):
            # houses are scored in groups of >= BATCH_RECORDS records, each task's box rules on the
            # whole group at once (vectorised), then handed out one house at a time
            end, n = start, 0
            while end < len(houses) and n < BATCH_RECORDS:
                n += len(by_house[houses[end]])
                end += 1
            self._batched = self._score_batched([r for h in houses[start:end] for r in by_house[h]])
            for house in houses[start:end]:
                yield [self.score_record(r) for r in by_house[house]]
            self._batched = {}
            start = end

    def _score_batched(self, recs: list[Record]) -> dict[str, S.Outcome]:
        """Outcomes of the answered records of the box tasks (grounding, grounding plus, detection,
        room detection) and navigation, each task's answers scored together (``S.score_*_many``)."""
        by_kind: dict[str, list[tuple[Record, str]]] = defaultdict(list)
        for r in recs:
            kind = TASKS[r.task].kind
            if kind in BATCHED_KINDS:
                text = self.answers.get(r.key)
                if text is not None:
                    by_kind[kind].append((r, text))
        out: dict[str, S.Outcome] = {}
        # a model's box or waypoint at inf / 1e200 overflows the geometry: such a sample scores as a
        # failure by the rules (the comparisons are False), without a RuntimeWarning per batch
        with np.errstate(invalid="ignore", over="ignore"):
            self._score_kinds(by_kind, out)
        return out

    def _score_kinds(self, by_kind: dict[str, list[tuple[Record, str]]], out: dict[str, S.Outcome]) -> None:
        for kind, items in by_kind.items():
            if kind == "grounding":
                res = S.score_grounding_many(items, self.protocol)
            elif kind == "grounding_plus":
                res = S.score_grounding_plus_many(items, self.protocol)
            elif kind == "navigation":
                res = S.score_navigation_many(items, self.protocol)
            else:
                res = S.score_boxes_many(items, self.protocol, rooms=kind == "room_detection")
            out.update((r.key, o) for (r, _), o in zip(items, res))

    # -- answers ---------------------------------------------------------------------------
    def _answer_keys(self, rec: Record) -> list[tuple[str, int | None]]:
        if self.settings.circular and TASKS[rec.task].kind == "choice":
            return [(circular_id(rec.key, k), k) for k in range(len(rec.gt["choices"]))]
        return [(rec.key, None)]

    # -- judge -----------------------------------------------------------------------------
    def _judge_all(self, todo: list[Record]) -> None:
        """Ask the judge everything these records need, in chunks (it caches and runs each chunk concurrently)."""
        if self.judge is None:
            return
        from scenebench.judges.api import JudgeRequest

        keys: list[tuple[str, str]] = []
        reqs: list[Any] = []
        for rec in todo:
            t = TASKS[rec.task]
            if t.kind == "text":
                text = self.answers.get(rec.key)
                if text is None:
                    continue
                refs = rec.gt.get("references")
                # As released: scene-level prompts show the true rooms and objects (relation: objects
                # only), object-level prompts the generated text alone; both show the record's scene
                # facts when it has them (generated data), as 3DBench's judge is given the scene's truth.
                payload = {
                    "facts": rec.gt.get("facts"),
                    "task": rec.task,
                    "question": rec.query,
                    "answer": text,
                    "reference": refs[0] if refs and len(refs) == 1 else refs,
                    "rooms": None if rec.task == "relation" else rec.gt.get("rooms"),
                    "objects": rec.gt.get("objects"),
                    "level": t.level,
                }
                keys.append((rec.key, "score"))
                reqs.append(JudgeRequest("score", payload))
            elif t.kind == "choice":
                for key, rot in self._answer_keys(rec):
                    text = self.answers.get(key)
                    if text is None:
                        continue
                    if rec.task == "position_relation" and rot in (None, 0):
                        keys.append((key, "same"))
                        reqs.append(
                            JudgeRequest("same", {"question": rec.query, "answer": text, "reference": rec.gt["choices"][rec.gt["answer"]]})
                        )
                    if self.protocol == "strict":
                        _, _, _, parsed = S.score_choice_record(rec, text, "strict", rotation=rot)
                        if not parsed:
                            opts = rec.gt["choices"] if rot is None else rotate(rec.gt["choices"], rec.gt["answer"], rot)[0]
                            keys.append((key, "option"))
                            reqs.append(JudgeRequest("option", {"question": rec.query, "answer": text, "options": list(opts)}))
            if len(reqs) >= JUDGE_CHUNK:
                self._verdicts.update(zip(keys, self._judge_many(reqs)))
                keys, reqs = [], []
        if reqs:
            self._verdicts.update(zip(keys, self._judge_many(reqs)))

    def _judge_many(self, reqs: list[Any]) -> list[Any]:
        import sys

        # off a terminal the judge writes periodic progress lines; on one the scoring bar is live
        # already (Rich draws one live display at a time), so the judge stays quiet there
        assert self.judge is not None  # called only for judged records
        return list(self.judge.judge_many(reqs, progress=self.progress and not sys.stderr.isatty()))

    def _judge_detail(self, kind: str, v: Any) -> dict[str, Any]:
        return {
            "kind": kind,
            "value": v.value,
            "valid": v.valid,
            "model_id": getattr(self.judge, "model_id", None),
            "prompt_version": (getattr(self.judge, "prompt_versions", {}) or {}).get(kind),
            "raw": v.raw,
            "cached": v.cached,
            "settled_by_rule": v.settled_by_rule,
            "error": v.error,
        }

    # -- text corpus metrics ---------------------------------------------------------------
    def _prepare_text(self) -> TextPrep:
        prep = TextPrep()
        prep.meteor_reason = T.meteor_unavailable_reason()
        for t, recs in self.bench.records.items():
            if TASKS[t].kind != "text":
                continue
            with_ref = [r for r in recs if r.gt.get("references")]
            prep.corpus_size[t] = len(with_ref)
            if not with_ref:
                continue
            # the COCO pipeline (PTB tokens), each task its own corpus (CIDEr-D's IDF from its references)
            hyps = (self.answers.get(r.key) for r in with_ref)
            prepare_corpus([r.key for r in with_ref], hyps, [r.gt["references"] for r in with_ref], mode="coco", into=prep)
        return prep

    # -- one record ------------------------------------------------------------------------
    def score_record(self, rec: Record) -> SampleScore:
        t = TASKS[rec.task]
        groups = {"task": rec.task, "level": t.level, "ability": t.ability}
        if t.kind == "choice":
            status, values, detail = self._score_choice(rec)
        elif t.kind == "text":
            status, values, detail = self._score_text(rec)
        elif rec.key in self._batched:
            status, values, detail = self._batched[rec.key]
            if t.kind in ("detection", "room_detection"):
                values = {**values, "n_gt": float(len(rec.gt["labels"]))}
        else:
            text = self.answers.get(rec.key)
            if text is None:
                status, values, detail = "missing", S.missing_values(t.kind, self.protocol), {}
            elif t.kind == "grounding":
                status, values, detail = S.score_grounding(rec, text, self.protocol)
            elif t.kind == "grounding_plus":
                status, values, detail = S.score_grounding_plus(rec, text, self.protocol)
            elif t.kind == "navigation":
                status, values, detail = S.score_navigation(rec, text, self.protocol)
            else:
                status, values, detail = S.score_boxes(rec, text, self.protocol, rooms=t.kind == "room_detection")
            if t.kind in ("detection", "room_detection"):
                values = {**values, "n_gt": float(len(rec.gt["labels"]))}
        return SampleScore(rec.key, rec.house, status, values, groups, detail)  # type: ignore[arg-type]

    def _score_choice(self, rec: Record) -> S.Outcome:
        outs = []
        detail: dict[str, Any] = {}
        for key, rot in self._answer_keys(rec):
            text = self.answers.get(key)
            v = self._verdicts.get((key, "option"))
            llm = int(v.value) if v is not None and v.valid and v.value is not None else None
            outs.append(S.score_choice_record(rec, text, self.protocol, rotation=rot, llm_choice=llm))
            if v is not None:
                detail.setdefault("judge_option", {})[key] = self._judge_detail("option", v)
                _flag_injection(detail, text)
        missing = all(c is None for c, _, _, _ in outs)
        parsed = [p for _, _, _, p in outs]
        rights = [bool(c) for c, _, _, _ in outs]
        values = {"correct": float(all(rights)), "rot_correct": sum(rights) / len(rights), "parsed": sum(parsed) / len(parsed)}
        detail["answers"] = [{"chosen": ch, "rule": r, "correct": c} for c, ch, r, _ in outs]
        if rec.task == "position_relation" and self.judge is not None:
            v = self._verdicts.get((self._answer_keys(rec)[0][0], "same"))
            if v is not None:
                values["judge_same"] = float(v.value == 1) if v.valid else 0.0
                detail["judge"] = self._judge_detail("same", v)
                _flag_injection(detail, self.answers.get(self._answer_keys(rec)[0][0]))
            else:  # no verdict: the judged (rotation-0) answer is missing
                values["judge_same"] = 0.0
        # official rules may credit an answer the strict rules cannot read: it is then not "invalid"
        status = "missing" if missing else ("scored" if any(parsed) or any(rights) else "invalid")
        return status, values, detail

    def _score_text(self, rec: Record) -> S.Outcome:
        text = self.answers.get(rec.key)
        refs = rec.gt.get("references")
        values: dict[str, float] = {}
        detail: dict[str, Any] = {}
        status = "missing" if text is None else "scored"
        if self.judge is not None:
            v = self._verdicts.get((rec.key, "score"))
            if v is None:
                values["judge"] = 0.0
            else:
                detail["judge"] = self._judge_detail("score", v)
                _flag_injection(detail, text)
                if v.valid:
                    values["judge"] = float(v.value)
                else:
                    values["judge"] = -1.0 if self.protocol == "official" else 0.0
                    status = "invalid"
        if refs:
            values.update(sample_values(text, refs, "coco"))
            values["cider_d"] = self.text.cider.get(rec.key, 0.0)
            if rec.key in self.text.meteor:
                values.update(self.text.meteor[rec.key])
        return status, values, detail


def _flag_injection(detail: dict[str, Any], text: str | None) -> None:
    """Record (``detail.injection``) that a judged answer holds scoring or override patterns: the judge
    is told to ignore them, but a small judge often does not (the verdict is kept, the flag is reported)."""
    from scenebench.judges.prompts import injection_flags

    flags = injection_flags(text)
    if flags:
        detail["injection"] = sorted(set(detail.get("injection", [])) | set(flags))


# ---------------------------------------------------------------------------------------------
# results


def _primary_value(p: Primary, cols: dict[str, np.ndarray], w: np.ndarray | None = None) -> np.ndarray | float | None:
    """Primary metric (in percent) from per-house sums; ``w`` (resamples x houses) for the bootstrap."""

    def tot(x: np.ndarray) -> np.ndarray | float:
        return x.sum() if w is None else w @ x

    with np.errstate(invalid="ignore", divide="ignore"):
        if p.kind == "mean":
            x = cols[p.fields[0]]
            v = tot(np.nan_to_num(x[0])) / tot(x[1])
        elif p.kind == "ratio":
            v = tot(cols[p.fields[0]]) / tot(cols[p.fields[1]])
        else:
            tp = tot(cols[p.fields[0]])
            prec, rec = tp / tot(cols[p.fields[1]]), tp / tot(cols[p.fields[2]])
            v = np.where((prec + rec) > 0, 2 * prec * rec / np.where((prec + rec) > 0, prec + rec, 1), 0.0)
            v = np.where(np.isnan(prec) | np.isnan(rec), np.nan, v)
    v = np.asarray(v, dtype=float) * p.to_percent
    if w is None:
        return None if not np.isfinite(v) else float(v)
    return v


@dataclass
class TaskColumns:
    """A task's records as the aggregates read them, gathered once for all the aggregates (overall,
    per level, per ability) that include the task."""

    houses: set[str]  # of every record (excluded ones too: their houses are resampled as well)
    kept_houses: list[str]  # house of each record that is not excluded, in order
    values: dict[str, np.ndarray]  # primary field -> its value in those records (NaN when absent)


def task_columns(records: list[SampleScore], p: Primary) -> TaskColumns:
    kept = [r for r in records if r.status != "excluded"]
    values = {f: np.array([r.values.get(f, math.nan) for r in kept], dtype=float) for f in p.fields[: 1 if p.kind == "mean" else None]}
    return TaskColumns({r.scene_id for r in records}, [r.scene_id for r in kept], values)


def _house_sums(records: list[SampleScore] | TaskColumns, p: Primary, house_index: dict[str, int]) -> dict[str, np.ndarray]:
    n = len(house_index)
    cols: dict[str, np.ndarray] = {}
    tc = records if isinstance(records, TaskColumns) else task_columns(records, p)
    hid = np.array([house_index[h] for h in tc.kept_houses], dtype=int)
    if p.kind == "mean":
        x = tc.values[p.fields[0]]
        ok = ~np.isnan(x)
        cols[p.fields[0]] = np.stack([np.bincount(hid, np.where(ok, x, 0.0), n), np.bincount(hid, ok.astype(float), n)])
    else:
        for f in p.fields:
            cols[f] = np.bincount(hid, np.nan_to_num(tc.values[f]), n)
    return cols


def aggregate(
    records_by_task: dict[str, list[SampleScore]] | dict[str, TaskColumns],
    primaries: dict[str, Primary],
    *,
    n_resamples: int,
    seed: int,
    level: float = 0.95,
) -> tuple[float | None, list[float] | None, list[str]]:
    """Mean of the tasks' primary metrics (percent), with a bootstrap that resamples houses jointly.

    Tasks whose primary is unavailable (e.g. judge scores with ``--judge none``) are left out and
    the included tasks are returned, so every aggregate says what it averages. A task's records
    may come as their :class:`TaskColumns` (the same sums, the records read once).
    """
    cols = {t: rs if isinstance(rs, TaskColumns) else task_columns(rs, primaries[t]) for t, rs in records_by_task.items()}
    houses = sorted(set().union(*(c.houses for c in cols.values())))
    index = {h: i for i, h in enumerate(houses)}
    sums = {t: _house_sums(c, primaries[t], index) for t, c in cols.items()}
    point = {t: _primary_value(primaries[t], sums[t]) for t in records_by_task}
    used = [t for t, v in point.items() if v is not None]
    if not used:
        return None, None, []
    value = float(np.mean([point[t] for t in used]))
    if n_resamples <= 0 or not houses:
        return value, None, used
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(houses), size=(n_resamples, len(houses)))
    # times each house is drawn per resample (np.bincount: the counts np.add.at gave, ~10x faster)
    flat = (np.arange(n_resamples)[:, None] * len(houses) + draws).ravel()
    w = np.bincount(flat, minlength=n_resamples * len(houses)).reshape(n_resamples, len(houses)).astype(float)
    boot = np.stack([_primary_value(primaries[t], sums[t], w) for t in used])  # type: ignore[misc]  # tasks x resamples
    with np.errstate(invalid="ignore"):
        means = np.nanmean(np.where(np.isfinite(boot), boot, np.nan), axis=0) if boot.size else np.array([])
    means = means[np.isfinite(means)]
    a = (1 - level) / 2
    ci = [float(np.quantile(means, a)), float(np.quantile(means, 1 - a))] if means.size else None
    return value, ci, used
