"""``scenebench audit`` on 3DBench: every probe through the runner, per task against chance."""

from __future__ import annotations

import functools
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from scenebench.declarations import AUDIT_PROBES as PROBES


def _num(v: Any) -> float | None:
    return None if v is None else float(v)


# the headline metric of each task in results.json (metrics.by_task.<task>)
TASK_METRIC = {
    "classification": "accuracy",
    "counting": "accuracy",
    "position_relation": "accuracy",
    "detection": "f1",
    "visual_grounding": "acc_iou25",
    "visual_grounding_plus": "within_1m",
    "room_detection": "f1",
    "navigation": "success",
    "object_caption": "bleu4_py",
    "object_conversation": "bleu4_py",
    "scene_caption": "bleu4_py",
    "scene_qa": "bleu4_py",
    "relation": "bleu4_py",
}


def rows(root: Path, out: Path, *, seed: int, split: str, progress: bool) -> list[dict[str, Any]]:
    """The audit rows of a 3DBench folder: per task, every probe on its headline metric (``split``: unused)."""
    from scenebench.models.sources.base import make_source
    from scenebench.runtime.runner import run_benchmark

    train = root / "train"
    source = make_source("3dbench", data=str(root), train=str(train) if train.is_dir() else None)
    samples = source.samples()
    chance: dict[str, float] = {}
    for task in sorted({s.task for s in samples}):
        opts = [len(s.options) for s in samples if s.task == task and s.options]
        if opts:
            chance[task] = 100.0 * sum(1.0 / k for k in opts) / len(opts)
    scores: dict[str, dict[str, dict[str, Any]]] = {}
    for probe, model in PROBES.items():
        res = run_benchmark(source, model, out / "3dbench" / probe, seed=seed, progress=progress).results
        scores[probe] = res.metrics.get("by_task", {})
    rows = []
    for task in sorted(scores["oracle"]):
        block = scores["oracle"][task]
        metric = _task_metric(task, block)
        if metric is None:
            continue
        row = {"benchmark": "3dbench", "task": task, "group": "all", "metric": metric, "chance": chance.get(task), "n": None}
        for probe in PROBES:
            row[probe] = _num(scores[probe].get(task, {}).get(metric))
        if row["chance"] is None:
            row["chance"] = row["random"]
        rows.append(row)
    return rows


def _task_metric(task: str, block: dict[str, Any]) -> str | None:
    want = TASK_METRIC.get(task)
    if want and want in block:
        return want
    for k in ("accuracy", "bleu4_py", "f1", "success", "mIoU"):
        if k in block:
            return k
    numeric = [k for k, v in block.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return numeric[0] if numeric else None


# --- trained probes (scikit-learn, the audit extra): fitted on train/, scored on the test split ---

_WORD = re.compile(r"[a-z0-9]+")
_OPTIONS = re.compile(r"\boptions\s*:", re.IGNORECASE)  # the query lists its options after this
_QUESTION_TYPE = {  # the record field that says what kind of question it is (else: "all" only)
    "counting": lambda r: f"object={r.raw.get('object')}" if r.raw.get("object") is not None else None,
    "position_relation": lambda r: "with viewpoint" if r.raw.get("viewpoint") else "no viewpoint",
}


def _ngrams(text: str, prefix: str, n: int = 2) -> tuple[str, ...]:
    toks = _WORD.findall(text.lower())
    return tuple(f"{prefix}{' '.join(toks[i : i + k])}" for k in range(1, n + 1) for i in range(len(toks) - k + 1))


def _option_tokens(choices: list[Any]) -> tuple[tuple[str, ...], ...]:
    """Per option: position, text n-grams and the whole text; numeric options also their rank among the options."""
    texts = [str(c) for c in choices]
    nums: list[float] | None = []
    for c in choices:
        try:
            nums.append(float(c))  # type: ignore[union-attr]
        except (TypeError, ValueError):
            nums = None
            break
    out = []
    for j, t in enumerate(texts):
        toks = (f"pos={j}", f"text={t.strip().lower()}", *_ngrams(t, "w:"))
        if nums is not None:
            rank = sorted(nums).index(nums[j])
            toks += (f"rank={rank}", f"rank_from_top={len(nums) - 1 - rank}")
        out.append(toks)
    return tuple(out)


def _metadata_tokens(rec: Any, in_house: int, k: int) -> tuple[str, ...]:
    """What the metadata probe sees: point-cloud file name tokens, ids and record order; no question text."""
    stem = Path(rec.pcl).stem.lower()
    parts = [p for p in re.split(r"[^a-z0-9]+", stem) if p]
    toks = [f"file:{p}" for p in parts] + [f"file_letters:{re.sub(r'[0-9]+', '#', p)}" for p in parts]
    digits = [int(d) for d in re.findall(r"[0-9]+", stem)]
    if digits:
        toks += [f"file_last_mod{k}={digits[-1] % k}", f"file_sum_mod{k}={sum(digits) % k}"]
    qid = re.findall(r"[0-9]+", str(rec.question_id))
    if qid:
        toks.append(f"qid_mod{k}={int(qid[-1]) % k}")
    toks += [f"row_mod{k}={rec.row % k}", f"in_house={in_house}", f"in_house_mod{k}={in_house % k}"]
    return tuple(toks)


def choice_items(records: list[Any], view: str) -> list[Any]:
    """The multiple-choice ``records`` as :class:`~scenebench.metrics.probes.ChoiceItem` for the
    ``question`` (query n-grams, without its options list) or the ``metadata`` view."""
    from scenebench.metrics.probes import ChoiceItem

    items = []
    seen_in_house: dict[tuple[str, str], int] = {}
    for rec in records:
        choices = list(rec.gt["choices"])
        k = len(choices)
        where = (rec.task, rec.house)
        in_house = seen_in_house.get(where, 0)
        seen_in_house[where] = in_house + 1
        if view == "question":
            stem = _OPTIONS.split(rec.query, maxsplit=1)[0]
            context = _ngrams(stem, "q:")
        elif view == "metadata":
            context = _metadata_tokens(rec, in_house, k)
        else:
            raise ValueError(f"unknown probe view {view!r}")
        qtype = _QUESTION_TYPE.get(rec.task, lambda r: None)(rec)
        groups = ("all",) if qtype is None else ("all", qtype)
        items.append(ChoiceItem(rec.key, groups, context, _option_tokens(choices), int(rec.gt["answer"])))
    if len({it.groups for it in items}) == 1:  # one question type: its row would repeat "all"
        items = [replace(it, groups=("all",)) for it in items]
    return items


class _StartProbe:
    """Navigation without looking: stand still at the start point."""

    name = "probe:nav-start"

    def settings(self) -> dict[str, Any]:
        return {}

    def predict(self, batch: Any) -> list[Any]:
        from scenebench.models.predictions import WaypointsPrediction

        return [WaypointsPrediction(s.sample_id, points=[list(s.inputs["start"])] * 2) for s in batch.samples]


class _MeanOffsetProbe:
    """Navigation without looking: a straight line from the start by the mean train start-to-goal offset."""

    name = "probe:nav-mean-offset"

    def __init__(self, offset: list[float]) -> None:
        self.offset = offset

    def settings(self) -> dict[str, Any]:
        return {"offset": self.offset}

    def predict(self, batch: Any) -> list[Any]:
        from scenebench.models.predictions import WaypointsPrediction

        out = []
        for s in batch.samples:
            x, z = (float(v) for v in s.inputs["start"])
            out.append(WaypointsPrediction(s.sample_id, points=[[x, z], [x + self.offset[0], z + self.offset[1]]]))
        return out


class _TextProbe:
    """Free text without looking: per task and question text, an answer fixed before the run (the
    task's template answer, or the answer of the most similar train question)."""

    def __init__(self, name: str, answers: dict[tuple[str, str], str]) -> None:
        self.name = f"probe:{name}"
        self.answers = answers  # (task, query) -> text

    def settings(self) -> dict[str, Any]:
        return {}

    def predict(self, batch: Any) -> list[Any]:
        from scenebench.models.predictions import TextPrediction

        return [TextPrediction(s.sample_id, text=self.answers.get((s.task, s.query), "")) for s in batch.samples]


_NAME_WORDS = 3  # the longest object name looked for in a question, in words ("tabletop decoration" is 2)


@functools.cache
def _name_vocab() -> frozenset[str]:
    from scenebench.benchmarks.bench3d.sample_scores import VOCAB

    return frozenset(VOCAB)


def question_names(query: str) -> list[str]:
    """The object and room names a 3DBench question gives, in order of first appearance: the
    longest runs of up to ``_NAME_WORDS`` words that spell a 3DBench category or room type with
    their spaces taken out ("TV stand" -> tvstand). What the slot and named probes key on."""
    vocab = _name_vocab()
    words = _WORD.findall(query.lower())
    out: list[str] = []
    i = 0
    while i < len(words):
        for k in range(min(_NAME_WORDS, len(words) - i), 0, -1):
            if "".join(words[i : i + k]) in vocab:
                name = " ".join(words[i : i + k])
                if name not in out:
                    out.append(name)
                i += k
                break
        else:
            i += 1
    return out


def _text_probes(test_bench: Any, train_bench: Any, *, seed: int) -> tuple[dict[str, dict[tuple[str, str], str]], dict[str, float]]:
    """``template``, ``retrieval``, ``slot`` and ``named`` answers to every test question of each text
    task with train references, and each task's chance: a random train answer's mean BLEU-4."""
    from scenebench.benchmarks.bench3d.tasks import TASKS
    from scenebench.metrics.probes import (
        best_constant_answer,
        named_template_answers,
        random_answer_bleu4,
        retrieve_answers,
        slot_template_answers,
    )

    out: dict[str, dict[tuple[str, str], str]] = {"template": {}, "retrieval": {}, "slot": {}, "named": {}}
    chance: dict[str, float] = {}
    for task in sorted(TASKS):
        if TASKS[task].kind != "text":
            continue
        train = [r for r in train_bench.records.get(task, []) if r.gt.get("references")]
        test = [r for r in test_bench.records.get(task, []) if r.gt.get("references")]
        if not train or not test:
            continue
        refs = [r.gt["references"][0] for r in train]
        template = best_constant_answer(refs, seed=seed)
        queries = list(dict.fromkeys(r.query for r in test))
        train_queries = [r.query for r in train]
        train_names, test_names = [question_names(q) for q in train_queries], [question_names(q) for q in queries]
        slotted = slot_template_answers(train_names, refs, test_names, seed=seed)
        named = named_template_answers(train_names, refs, test_names, seed=seed)
        for q, a, filled, by_name in zip(queries, retrieve_answers(train_queries, refs, queries), slotted, named):
            out["template"][(task, q)] = template
            out["retrieval"][(task, q)] = a
            out["slot"][(task, q)] = filled
            out["named"][(task, q)] = by_name
        chance[task] = random_answer_bleu4(refs, [r.gt["references"] for r in test], seed=seed)
    return out, chance


def trained(root: Path, out: Path, *, seed: int, split: str, progress: bool) -> list[dict[str, Any]]:
    """The trained-probe rows of a 3DBench folder (``split``: unused; train questions from ``train/``):
    per multiple-choice task and question type the question-only and metadata-only probes' accuracy,
    and the blind navigation paths' strict success, each with its Wilson interval against chance;
    per free-text task the template, retrieval, slot and named answers' BLEU-4 against 1.5x a random one's."""
    import numpy as np

    from scenebench.benchmarks.bench3d.loader import load_bench
    from scenebench.benchmarks.bench3d.tasks import TASKS
    from scenebench.metrics.probes import choice_rows, fit_choice_probe, probe_row, text_row
    from scenebench.models.sources.base import make_source
    from scenebench.runtime.runner import run_benchmark

    train_root = root / "train"
    if not train_root.is_dir():
        return []
    test_bench, train_bench = load_bench(root), load_bench(train_root)
    rows: list[dict[str, Any]] = []
    for task in sorted(TASKS):
        if TASKS[task].kind != "choice" or not test_bench.records.get(task) or not train_bench.records.get(task):
            continue
        for view in ("question", "metadata"):
            test = choice_items(test_bench.records[task], view)
            chosen = fit_choice_probe(choice_items(train_bench.records[task], view), test, seed=seed)
            for r in choice_rows(test, chosen):
                rows.append({"benchmark": "3dbench", "task": task, "probe": view, **r})
    nav_test = [r for r in test_bench.records.get("navigation", []) if "start" in r.gt]
    nav_train = [r for r in train_bench.records.get("navigation", []) if "start" in r.gt and len(r.gt["positions"])]
    if nav_test and nav_train:
        moves = [np.asarray(r.gt["positions"][-1], float) - np.asarray(r.gt["start"], float) for r in nav_train]
        offset = [float(v) for v in np.mean(moves, axis=0)]
        source = make_source("3dbench", data=str(root), train=str(train_root))
        for probe, model in (("nav-start", _StartProbe()), ("nav-mean-offset", _MeanOffsetProbe(offset))):
            res = run_benchmark(
                source, model.name, out / "3dbench" / "trained" / probe, model=model, tasks=["navigation"], seed=seed, progress=progress
            ).results
            n = res.counts.n_samples
            success = float(res.metrics.get("by_task", {}).get("navigation", {}).get("success", 0.0))
            k = round(success / 100.0 * n)
            # chance None: the audit fills in the random probe's success on the same task
            rows.append(
                {"benchmark": "3dbench", "task": "navigation", "probe": probe, "group": "all", **probe_row(n, k, None), "metric": "success"}
            )
    text, text_chance = _text_probes(test_bench, train_bench, seed=seed)
    tasks = sorted(text_chance)
    if tasks:
        source = make_source("3dbench", data=str(root), train=str(train_root))
        n_test = {t: sum(1 for r in test_bench.records[t] if r.gt.get("references")) for t in tasks}
        for probe, answers in text.items():
            text_model = _TextProbe(probe, answers)
            res = run_benchmark(
                source, text_model.name, out / "3dbench" / "trained" / probe, model=text_model, tasks=tasks, seed=seed, progress=progress
            ).results
            by_task = res.metrics.get("by_task", {})
            for t in tasks:
                score = float(by_task.get(t, {}).get("bleu4_py") or 0.0)
                row = text_row(n_test[t], score, text_chance[t])
                rows.append({"benchmark": "3dbench", "task": t, "probe": probe, "group": "all", **row, "metric": "bleu4_py"})
    return rows
