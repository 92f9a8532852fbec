"""``scenebench audit`` on SQA3D: can the situated questions be answered without the scene and the pose?

Rows (``audit``), strict EM@1 overall and per question type (first token) of the test split:

- ``blind``: the question only -- the commonest train answer of the same question text, else of
  the same question form (its first two words: "Is the", "How many", "Which direction"...);
- ``random``: the expected EM@1 of a random train answer of the same form (exact, no draw): the
  chance column;
- ``oracle``: the reference (100).

The blind and oracle answers are written as prediction files (``--out``) and scored by the ordinary
scorer. Trained probes (``audit_trained``, the audit extra): a logistic regression over (question,
answer) pairs fitted on train and scored on test, choosing among the answers of the question's form,
from the question's words (``question``), from the situation sentence alone (``situation``), or from
ids and file order only (``metadata``: the scene id, the question id's magnitude, the record's place
in the file); chance = 1 / #answers of the form.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from .data import QUESTION_TYPES, Question, load_questions, type_first_token


def _files(root: Path, split: str) -> tuple[Path, Path]:
    return root / f"v1_balanced_questions_{split}_scannetv2.json", root / f"v1_balanced_sqa_annotations_{split}_scannetv2.json"


def _splits(root: Path) -> tuple[list[Question], list[Question]]:
    tq, ta = _files(root, "train")
    return load_questions(*_files(root, "test")), (load_questions(tq, ta) if tq.is_file() and ta.is_file() else [])


def form(question: str) -> str:
    return " ".join(question.split()[:2])


def blind_answers(train: list[Question], test: list[Question]) -> dict[str, str]:
    from scenebench.metrics.answers import normalize

    by_text: dict[str, Counter[str]] = defaultdict(Counter)
    by_form: dict[str, Counter[str]] = defaultdict(Counter)
    raw: dict[str, str] = {}
    for q in train:
        a = normalize(q.answers[0])
        raw.setdefault(a, q.answers[0])
        by_text[q.question][a] += 1
        by_form[form(q.question)][a] += 1
    out = {}
    for q in test:
        counts = by_text.get(q.question) or by_form.get(form(q.question))
        out[q.question_id] = raw[min(counts, key=lambda a: (-counts[a], a))] if counts else ""
    return out


def random_chance(train: list[Question], test: list[Question]) -> dict[str, float]:
    from scenebench.metrics.answers import normalize

    pool: dict[str, list[str]] = defaultdict(list)
    for q in train:
        pool[form(q.question)].append(normalize(q.answers[0]))
    out = {}
    for q in test:
        p, refs = pool.get(form(q.question), []), {normalize(r) for r in q.answers}
        out[q.question_id] = 100.0 * sum(a in refs for a in p) / len(p) if p else 0.0
    return out


def rows(root: Path, out: Path, *, seed: int, split: str, progress: bool) -> list[dict[str, Any]]:
    from scenebench.io.files import atomic_write_text
    from scenebench.metrics.records import summarize_scores

    from .predictions import read_predictions
    from .scorer import GROUPS, SPECS, SQA3DScorer

    test, train = _splits(root)
    answers = {"blind": blind_answers(train, test), "oracle": {q.question_id: q.answers[0] for q in test}}
    metrics: dict[str, Any] = {}
    for probe, preds in answers.items():
        folder = Path(out) / "sqa3d" / probe
        folder.mkdir(parents=True, exist_ok=True)
        recs = [{"question_id": int(q.question_id), "answer": preds[q.question_id]} for q in test]
        atomic_write_text(folder / "predictions.json", json.dumps(recs))  # kept for inspection, read back as any answer file
        scorer = SQA3DScorer(test, read_predictions(folder / "predictions.json", test), "strict")
        records = [r for batch in scorer.iter_scores(set()) for r in batch]
        metrics[probe] = summarize_scores(records, SPECS, groups=GROUPS, n_resamples=0).metrics
    chance = random_chance(train, test)
    out_rows = []
    for group in ("overall", *QUESTION_TYPES):
        members = [q for q in test if group in ("overall", type_first_token(q.question))]
        if not members:
            continue
        row: dict[str, Any] = {"benchmark": "sqa3d", "task": "situated qa", "group": group, "metric": "EM@1", "identity": None}
        row["labels"] = None
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
        elif view == "situation":
            context = word_tokens(q.situation)
        else:  # ids and file order
            context = (f"scene:{q.scene_id}", f"id:{len(q.question_id)}:{q.question_id[0]}", f"pos:{10 * i // max(1, len(questions))}")
        groups = ("overall", type_first_token(q.question))
        out.append(AnswerItem(q.question_id, groups, form(q.question), normalize(q.answers[0]), context))
    return out


def trained(root: Path, out: Path, *, seed: int, split: str, progress: bool) -> list[dict[str, Any]]:
    from scenebench.metrics.probes import answer_choice_items, choice_rows, fit_choice_probe

    test, train = _splits(root)
    if not train or not test:
        return []
    rows = []
    for view in ("question", "situation", "metadata"):
        train_items, test_items = answer_choice_items(_items(train, view), _items(test, view))
        chosen = fit_choice_probe(train_items, test_items, seed=seed)
        for r in choice_rows(test_items, chosen):
            rows.append({"benchmark": "sqa3d", "task": "situated qa", "probe": view, **r})
    return rows
