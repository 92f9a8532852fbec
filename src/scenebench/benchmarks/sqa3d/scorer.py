"""Score SQA3D answers: EM@1 (and "refined" EM) overall and per question type, under ``strict`` or
one evaluator lineage of ``official`` (rules in ``docs/metrics/sqa3d_em.md``):

- ``strict``: :func:`scenebench.metrics.answers.normalize` on both sides, exact match with a
  reference; "refined" = containment with an empty-answer guard (a labelled secondary); types by
  the first token; every gold question counts, a missing answer is wrong.
- ``official:original`` (= ``official``; SQA3D's ``LLM/eval_sqa3d_llm.py``): ``clean_answer`` on the
  answer only; correct when equal, a substring, a space-free substring or sharing one word with
  the answer (an empty answer is correct); only answered questions count; types by the first token.
- ``official:leo``: ``clean_answer`` on both sides, LEO's order-dependent ``answer_match`` (an empty
  answer earns refined credit); types by prefix; only answered questions count.
- ``official:chatscene`` (GPT4Scene identical): the answer trimmed and cleaned, references cleaned;
  Chat-Scene's ``answer_match``; types by prefix; only answered questions count.
- ``official:video3dllm``: ``clean_answer`` on both sides, ``pred == gt`` with the one reference;
  types by prefix; only answered questions count.

LL3DA ships no SQA3D evaluator: no ``ll3da`` lineage here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scenebench.io.files import file_fingerprint
from scenebench.io.scannet import by_scene
from scenebench.metrics.aggregate import Mean
from scenebench.metrics.answers import (
    NORMALIZER_VERSION,
    chatscene_trim,
    clean_answer,
    match_chatscene,
    match_contains,
    match_lenient,
    match_leo,
    normalize,
)
from scenebench.metrics.jobs import ScoringJob, summarize_listing_excluded
from scenebench.metrics.records import SampleScore
from scenebench.protocol import parse_protocol

from .data import Question, load_questions, type_first_token, type_prefix
from .predictions import read_predictions

LINEAGES = ("original", "leo", "chatscene", "video3dllm")
GROUPS = ("question_type",)
NOT_PREDICTED = "no prediction: this evaluator counts only the questions it has answers for"
SPECS = [
    Mean("EM@1", "em1", 100, "share of questions whose answer matches a reference (the lineage's rule)", "%"),
    Mean("EM@1_refined", "refined", 100, "EM@1 or containment (LEO / Chat-Scene 'refined'; strict: guarded, order-free)", "%"),
]


def _same(s: str) -> str:
    return s


def _chatscene_pred(s: str) -> str:
    return clean_answer(chatscene_trim(s))


@dataclass(frozen=True)
class Rules:
    match: str
    pred: Callable[[str], str]
    ref: Callable[[str], str]
    types: Callable[[str], str]
    gold_denominator: bool
    notes: dict[str, str]


RULES: dict[str, Rules] = {
    "strict": Rules(
        "strict",
        normalize,
        normalize,
        type_first_token,
        True,
        {
            "normalise": f"{NORMALIZER_VERSION} on answer and references",
            "em": "normalised equality with a reference",
            "refined": "containment either way, whitespace removed, empty never matches",
            "types": "first token (MCAN)",
            "denominator": "every gold question; missing = wrong",
        },
    ),
    "original": Rules(
        "sqa3d_llm",
        clean_answer,
        _same,
        type_first_token,
        False,
        {
            "normalise": "clean_answer on the answer only",
            "em": "equal, substring, space-free substring or a shared word (an empty answer is correct)",
            "types": "first token (MCAN)",
            "denominator": "the answered questions (distinct predictions)",
        },
    ),
    "leo": Rules(
        "leo",
        clean_answer,
        clean_answer,
        type_prefix,
        False,
        {
            "normalise": "clean_answer on both sides",
            "em": "answer_match: references in order; equal (1,1), containment (0,1); empty answer earns refined",
            "types": "prefix (get_sqa_question_type)",
            "denominator": "samples evaluated; an empty type reports 0 in the release (count 1e-10), absent here",
        },
    ),
    "chatscene": Rules(
        "chatscene",
        _chatscene_pred,
        clean_answer,
        type_prefix,
        False,
        {
            "normalise": "answer: one trailing '.' off, first character lower-cased, clean_answer; references clean_answer",
            "em": "answer_match: empty (0,0); exact over all references; then containment",
            "types": "prefix",
            "denominator": "len(preds)",
        },
    ),
    "video3dllm": Rules(
        "equal_first",
        clean_answer,
        clean_answer,
        type_prefix,
        False,
        {
            "normalise": "clean_answer on both sides",
            "em": "pred == gt (the one reference)",
            "types": "prefix",
            "denominator": "JSONL lines: the answered questions",
        },
    ),
}


def rules_for(protocol: str) -> tuple[str, Rules]:
    _, lineage = parse_protocol(protocol, LINEAGES, field="protocol")
    key = lineage or "strict"
    return key, RULES[key]


def match(rules: Rules, answer: str, refs: list[str]) -> dict[str, float]:
    """The per-question values of one answer under ``rules``."""
    pred, gts = rules.pred(answer), [rules.ref(r) for r in refs]
    if rules.match == "leo":
        em, refined = match_leo(pred, gts)
        return {"em1": float(em), "refined": float(refined)}
    if rules.match == "chatscene":
        em, refined = match_chatscene(pred, gts)
        return {"em1": float(em), "refined": float(refined)}
    if rules.match == "sqa3d_llm":
        return {"em1": float(any(match_lenient(pred, g) for g in gts))}
    if rules.match == "equal_first":
        return {"em1": float(pred == gts[0])}
    return {"em1": float(pred in gts), "refined": float(match_contains(pred, gts)[1])}


class SQA3DScorer:
    benchmark = "sqa3d"

    def __init__(self, questions: list[Question], preds: dict[str, str], protocol: str) -> None:
        self.questions, self.preds, self.protocol = questions, preds, protocol
        self.lineage, self.rules = rules_for(protocol)

    def sample_ids(self) -> list[str]:
        return [q.question_id for q in self.questions]

    def score(self, q: Question) -> SampleScore:
        groups = {"question_type": self.rules.types(q.question)}
        answer = self.preds.get(q.question_id)
        if answer is None:
            if not self.rules.gold_denominator:
                return SampleScore(q.question_id, q.scene_id, "excluded", {}, groups, {"reason": NOT_PREDICTED})
            return SampleScore(q.question_id, q.scene_id, "missing", {"em1": 0.0, "refined": 0.0}, groups, {"question": q.question})
        values = match(self.rules, answer, list(q.answers))
        detail = {"question": q.question, "situation": q.situation, "answers": list(q.answers), "prediction": answer}
        return SampleScore(q.question_id, q.scene_id, "scored", values, groups, detail)

    def iter_scores(self, skip: set[str]) -> Iterator[list[SampleScore]]:
        for _, qs in by_scene([q for q in self.questions if q.question_id not in skip]).items():
            yield [self.score(q) for q in qs]


def make_job(
    questions: list[Question], truth_inputs: dict[str, Any], predictions: Path, protocol: str, *, n_resamples: int = 1000, seed: int = 0
) -> ScoringJob:
    lineage, rules = rules_for(protocol)
    scorer = SQA3DScorer(questions, read_predictions(predictions, questions), protocol)
    inputs = {**truth_inputs, "predictions": file_fingerprint(predictions)}
    settings = {"lineage": lineage, "rules": rules.notes, "normalizer": NORMALIZER_VERSION}
    summarize = summarize_listing_excluded(
        "sqa3d", protocol, SPECS, GROUPS, settings=settings, inputs=inputs, n_resamples=n_resamples, seed=seed
    )

    return ScoringJob("sqa3d", protocol, scorer, summarize, settings, inputs, label="scoring sqa3d")


def prepare_scoring(
    *, questions: Path, annotations: Path, predictions: Path, protocol: str = "strict", n_resamples: int = 1000, seed: int = 0
) -> ScoringJob:
    rules_for(protocol)  # a bad lineage fails before anything is read
    qs = load_questions(questions, annotations)
    truth = {"questions": file_fingerprint(questions), "annotations": file_fingerprint(annotations)}
    return make_job(qs, truth, predictions, protocol, n_resamples=n_resamples, seed=seed)


def validate_command(*, questions: Path, annotations: Path, predictions: Path | None = None) -> None:
    import typer

    qs = load_questions(questions, annotations)
    if predictions is None:
        typer.echo(f"ok: {len(qs)} questions, each with its annotation")
        return
    got = read_predictions(predictions, qs)
    typer.echo(f"ok: {predictions} answers {len(got)} of the {len(qs)} questions")
