"""``scenebench audit`` on ScanQA: can the questions be answered without the scene?

Rows (``audit``), strict EM@1 overall and per ``qclass1`` type of the val split:

- ``blind``: the question only -- the commonest train answer (normalised) of the same question text,
  else of the same question type: the class priors of the generator ("What color is the fridge?");
- ``random``: the expected EM@1 of a random train answer of the question's type (exact, no draw),
  or 50 for a question naming its two options ("the b or the c?"): the chance column;
- ``oracle``: the first reference (100).

The blind and oracle answers are written as EvalAI prediction files (``--out``) and scored by the
ordinary scorer. Trained probes (``audit_trained``, the audit extra): a logistic regression over
(question, answer) pairs fitted on train and scored on val, choosing among the answers of the
question type, from the question's words (``question``) or from ids and file order only
(``metadata``: scene id, the index in the question id, the record's place in the file, how many
object ids it lists); chance = 1 / #answers of the type.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from .data import QUESTION_TYPES, Question, load_questions

VAL, TRAIN = "ScanQA_v1.0_val.json", "ScanQA_v1.0_train.json"
_NAMED = re.compile(r": the (.+) or the (.+)\?$")


def _splits(root: Path) -> tuple[list[Question], list[Question]]:
    train = load_questions(root / TRAIN) if (root / TRAIN).is_file() else []
    return load_questions(root / VAL), train


def blind_answers(train: list[Question], test: list[Question]) -> dict[str, str]:
    """The commonest train answer of the same question text, else of the same type ("" without one)."""
    from scenebench.metrics.answers import normalize

    by_text: dict[str, Counter[str]] = defaultdict(Counter)
    by_type: dict[str, Counter[str]] = defaultdict(Counter)
    raw: dict[str, str] = {}
    for q in train:
        a = normalize(q.answers[0])
        raw.setdefault(a, q.answers[0])
        by_text[q.question][a] += 1
        by_type[q.question_type][a] += 1
    out = {}
    for q in test:
        counts = by_text.get(q.question) or by_type.get(q.question_type)
        out[q.question_id] = raw[min(counts, key=lambda a: (-counts[a], a))] if counts else ""
    return out


def random_chance(train: list[Question], test: list[Question]) -> dict[str, float]:
    """Per test question, the share of its type's train answers that match one of its references."""
    from scenebench.metrics.answers import normalize

    by_type: dict[str, list[str]] = defaultdict(list)
    for q in train:
        by_type[q.question_type].append(normalize(q.answers[0]))
    out = {}
    for q in test:
        pool, refs = by_type.get(q.question_type, []), {normalize(r) for r in q.answers}
        named = _NAMED.search(q.question)
        if named:  # the question names its two options: a coin toss between them
            out[q.question_id] = 50.0
            continue
        out[q.question_id] = 100.0 * sum(a in refs for a in pool) / len(pool) if pool else 0.0
    return out


def rows(root: Path, out: Path, *, seed: int, split: str, progress: bool) -> list[dict[str, Any]]:
    from scenebench.io.files import atomic_write_text
    from scenebench.metrics.records import summarize_scores

    from .predictions import read_predictions
    from .scorer import GROUPS, ScanQAScorer, metric_specs, rules_for

    test, train = _splits(root)
    answers = {"blind": blind_answers(train, test), "oracle": {q.question_id: q.answers[0] for q in test}}
    metrics: dict[str, Any] = {}
    for probe, preds in answers.items():
        folder = Path(out) / "scanqa" / probe
        folder.mkdir(parents=True, exist_ok=True)
        recs = [{"scene_id": q.scene_id, "question_id": q.question_id, "answer_top10": [preds[q.question_id]], "bbox": []} for q in test]
        atomic_write_text(folder / "predictions.json", json.dumps(recs))  # kept for inspection, read back as any submission
        scorer = ScanQAScorer(test, read_predictions(folder / "predictions.json", test), "strict", meteor=False)
        records = [r for batch in scorer.iter_scores(set()) for r in batch]
        metrics[probe] = summarize_scores(records, metric_specs(rules_for("strict")[1]), groups=GROUPS, n_resamples=0).metrics
    chance = random_chance(train, test)
    out_rows = []
    for group in ("overall", *QUESTION_TYPES):
        members = [q for q in test if group in ("overall", q.question_type)]
        if not members:
            continue
        row: dict[str, Any] = {"benchmark": "scanqa", "task": "qa", "group": group, "metric": "EM@1", "identity": None, "labels": None}
        for probe in answers:
            block = metrics[probe]["overall"] if group == "overall" else metrics[probe].get("by_question_type", {}).get(group, {})
            row[probe] = block.get("EM@1")
        row["random"] = row["chance"] = sum(chance[q.question_id] for q in members) / len(members)
        row["n"] = len(members)
        out_rows.append(row)
    return out_rows


def _items(questions: list[Question], view: str) -> list[Any]:
    from scenebench.metrics.answers import normalize
    from scenebench.metrics.probes import AnswerItem, word_tokens

    out = []
    for i, q in enumerate(questions):
        if view == "question":
            context = word_tokens(q.question)
        else:  # ids and file order: what a file could give away besides the question
            k = q.question_id.rpartition("-")[2]
            context = (f"scene:{q.scene_id}", f"k:{k}", f"pos:{10 * i // max(1, len(questions))}", f"ids:{len(q.object_ids)}")
        named = _NAMED.search(q.question)  # "Which is closer to the a: the b or the c?" chooses between b and c
        options = tuple(normalize(x) for x in named.groups()) if named else ()
        out.append(AnswerItem(q.question_id, ("overall", q.question_type), q.question_type, normalize(q.answers[0]), context, options))
    return out


def trained(root: Path, out: Path, *, seed: int, split: str, progress: bool) -> list[dict[str, Any]]:
    from scenebench.metrics.probes import answer_choice_items, choice_rows, fit_choice_probe

    test, train = _splits(root)
    if not train or not test:
        return []
    rows = []
    for view in ("question", "metadata"):
        train_items, test_items = answer_choice_items(_items(train, view), _items(test, view))
        chosen = fit_choice_probe(train_items, test_items, seed=seed)
        for r in choice_rows(test_items, chosen):
            rows.append({"benchmark": "scanqa", "task": "qa", "probe": view, **r})
    return rows
