"""Score ScanQA answers: EM@1, EM@10, F-value, BLEU-1..4, ROUGE-L, METEOR, CIDEr-D, overall and per
``qclass1`` question type, under ``strict`` or one evaluator lineage of ``official``.

Per question: the top-1 answer (EM@1, the caption metrics, F-value) and the first ten (EM@10) are
compared with every reference answer. The lineage rules (normalisation of each side, matching,
what the caption metrics are fed, which questions are counted) are :data:`RULES`; each is listed in
``docs/metrics/scanqa_em.md`` and ``docs/metrics/scanqa_captions.md``:

- ``strict``: one versioned normaliser (:func:`scenebench.metrics.answers.normalize`) on both
  sides; EM@1/EM@10 = normalised equality with any reference; "refined" = containment with an
  empty-answer guard, order-free (a labelled secondary); caption metrics on PTB tokens of the
  strings as given; every gold question counts, a missing answer is the empty string and wrong;
  CIDEr-D's IDF from the references of all gold questions.
- ``official:original`` (= ``official``; ``ATR-DBI/ScanQA scripts/score.py``): raw string
  equality (case and punctuation matter), F-value on whitespace tokens (identity lemmatiser), PTB
  caption metrics; every gold question counts (the released script stops on a missing one).
- ``official:leo``: ``clean_answer`` on both sides (references ``strip()``-ed first), LEO's
  order-dependent ``answer_match``; caption metrics on the cleaned strings without a tokenizer;
  only answered questions count.
- ``official:chatscene`` (GPT4Scene identical): the answer trimmed and cleaned, the references
  **raw**; Chat-Scene's ``answer_match``; PTB caption metrics; only answered questions count.
- ``official:video3dllm`` (Ross3D identical): raw ``answer in references``; caption metrics on the
  answer with trailing ``.`` stripped, without a tokenizer; only answered questions count.
- ``official:ll3da``: no EM; caption metrics on the answer with repeated spaces collapsed, raw
  references, no tokenizer; only answered questions count (and enter CIDEr-D's IDF).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scenebench.io.files import file_fingerprint
from scenebench.io.scannet import by_scene
from scenebench.metrics import text as T
from scenebench.metrics.aggregate import Mean, MetricSpec
from scenebench.metrics.answers import (
    NORMALIZER_VERSION,
    chatscene_trim,
    clean_answer,
    match_chatscene,
    match_contains,
    match_leo,
    normalize,
)
from scenebench.metrics.captions import TextMode, caption_specs, prepare_corpus, sample_values
from scenebench.metrics.jobs import JobHooks, ScoringJob
from scenebench.metrics.records import SampleScore, summarize_scores
from scenebench.protocol import parse_protocol
from scenebench.results import Results

from .data import Question, load_questions
from .predictions import read_predictions

LINEAGES = ("original", "leo", "chatscene", "video3dllm", "ll3da")
GROUPS = ("question_type",)
NOT_PREDICTED = "no prediction: this evaluator counts only the questions in the predictions file"


def _same(s: str) -> str:
    return s


@dataclass(frozen=True)
class Rules:
    """One evaluator's rules: ``em`` is the matcher (``None``: the evaluator reports no EM)."""

    em: str | None
    pred: Callable[[str], str]  # the answer, for EM
    ref: Callable[[str], str]  # a reference, for EM
    text_pred: Callable[[str], str]  # the answer, for the caption metrics
    text_ref: Callable[[str], str]  # a reference, for the caption metrics
    mode: TextMode
    gold_denominator: bool
    em10: bool
    fvalue: bool
    notes: dict[str, str]


def _leo_ref(s: str) -> str:
    return clean_answer(s.strip())


def _chatscene_pred(s: str) -> str:
    return clean_answer(chatscene_trim(s))


def _chatscene_text_ref(s: str) -> str:
    return s.replace("\n", " ").strip()


def _rstrip_dot(s: str) -> str:
    return s.rstrip(".")


def _collapse_spaces(s: str) -> str:
    return re.sub(" +", " ", s)


RULES: dict[str, Rules] = {
    "strict": Rules(
        "strict",
        normalize,
        normalize,
        _same,
        _same,
        "coco",
        True,
        True,
        True,
        {
            "normalise": f"{NORMALIZER_VERSION} on answer and references",
            "em": "normalised equality with any reference",
            "refined": "containment either way, whitespace removed, an empty answer never matches, order-free",
            "captions": "PTB tokens of the strings as given",
            "denominator": "every gold question; missing = empty answer, wrong",
            "f_value": "normalised whitespace tokens, membership (not clipped counts), empty answer scores 0",
        },
    ),
    "original": Rules(
        "raw",
        _same,
        _same,
        _same,
        _same,
        "coco",
        True,
        True,
        True,
        {
            "normalise": "none (case and punctuation matter)",
            "em": "answer in references (Python list membership)",
            "captions": "PTB tokens (pycocoevalcap PTBTokenizer), top-1 answer vs all references",
            "denominator": "every gold question (the released score.py stops with KeyError on a missing one; scored wrong here)",
            "f_value": "whitespace tokens, identity lemmatiser (the release uses NLTK WordNet), membership; an empty answer raises ZeroDivisionError in the release, scores 0 here",
        },
    ),
    "leo": Rules(
        "leo",
        clean_answer,
        _leo_ref,
        clean_answer,
        _leo_ref,
        "raw",
        False,
        False,
        False,
        {
            "normalise": "clean_answer on the answer; strip() then clean_answer on references",
            "em": "answer_match: references in order; first equal (1,1), first containment (0,1); empty answer earns refined",
            "captions": "the cleaned strings, no tokenizer",
            "denominator": "the answered questions (samples evaluated)",
        },
    ),
    "chatscene": Rules(
        "chatscene",
        _chatscene_pred,
        _same,
        _chatscene_pred,
        _chatscene_text_ref,
        "coco",
        False,
        False,
        False,
        {
            "normalise": "answer: one trailing '.' off, first character lower-cased, clean_answer; references raw (line 292 overwrites the cleaned ones)",
            "em": "answer_match: empty (0,0); exact over all references; then containment",
            "captions": "PTB tokens of the cleaned answer and the raw references",
            "denominator": "len(preds): the answered questions",
        },
    ),
    "video3dllm": Rules(
        "raw",
        _same,
        _same,
        _rstrip_dot,
        _same,
        "raw",
        False,
        False,
        False,
        {
            "normalise": "none for EM",
            "em": "pred_response in answers (raw, case-sensitive)",
            "captions": "answer with trailing '.' stripped, raw references, no tokenizer",
            "denominator": "the answered questions",
        },
    ),
    "ll3da": Rules(
        None,
        _same,
        _same,
        _collapse_spaces,
        _same,
        "raw",
        False,
        False,
        False,
        {
            "normalise": "repeated spaces collapsed in the answer",
            "em": "none (LL3DA reports no EM)",
            "captions": "raw strings, no tokenizer",
            "denominator": "only predicted keys (missing questions vanish, also from CIDEr-D's IDF)",
        },
    ),
}


def rules_for(protocol: str) -> tuple[str, Rules]:
    """``(lineage or "strict", its rules)`` of a protocol string (``official`` = ``original``)."""
    _, lineage = parse_protocol(protocol, LINEAGES, field="protocol")
    key = lineage or "strict"
    return key, RULES[key]


def f_value(pred: str, refs: Sequence[str]) -> float:
    """ScanQA's top-1 F-value on whitespace tokens: per reference, precision = share of answer
    tokens found among the reference's tokens (membership, not clipped counts), recall the other
    way, F1 of the two; the best reference. 0 for an empty answer (the release divides by zero)."""
    p = pred.split()
    if not p:
        return 0.0
    best = 0.0
    for r in refs:
        rt = r.split()
        if not rt:
            continue
        rs, ps = set(rt), set(p)
        prec = sum(t in rs for t in p) / len(p)
        rec = sum(t in ps for t in rt) / len(rt)
        if prec + rec > 0:
            best = max(best, 2 * prec * rec / (prec + rec))
    return best


def em_values(rules: Rules, top: Sequence[str], references: Sequence[str]) -> dict[str, float]:
    """The matching values of ranked answers ``top`` (at least one) under ``rules``: ``em1``,
    ``refined``, ``em10``, ``fvalue`` as the lineage defines them (absent where it has none)."""
    values: dict[str, float] = {}
    if rules.em is None:
        return values
    pred, refs = rules.pred(top[0]), [rules.ref(a) for a in references]
    if rules.em == "leo":
        values["em1"], values["refined"] = map(float, match_leo(pred, refs))
    elif rules.em == "chatscene":
        values["em1"], values["refined"] = map(float, match_chatscene(pred, refs))
    else:
        values["em1"] = float(pred in refs)
        if rules.em == "strict":
            values["refined"] = float(match_contains(pred, refs)[1])
    if rules.em10:
        values["em10"] = float(any(rules.pred(a) in refs for a in top[:10]))
    if rules.fvalue:
        values["fvalue"] = 1.0 if values["em1"] else f_value(pred, refs)
    return values


def metric_specs(rules: Rules) -> list[MetricSpec]:
    tokens = "PTB tokens" if rules.mode == "coco" else "strings as given, no tokenizer"
    return [
        Mean("EM@1", "em1", 100, "share of questions whose top-1 answer matches a reference (the lineage's rule)", "%"),
        Mean("EM@10", "em10", 100, "share of questions with a matching answer among the first ten", "%"),
        Mean("EM@1_refined", "refined", 100, "EM@1 or containment (LEO/Chat-Scene 'refined'; strict: guarded, order-free)", "%"),
        Mean("F-value", "fvalue", 100, "ScanQA top-1 token F1, best reference (1 when EM@1)", "%"),
        *caption_specs((1, 2, 3, 4), tokens=tokens),
    ]


class ScanQAScorer:
    benchmark = "scanqa"

    def __init__(self, questions: list[Question], preds: dict[str, list[str]], protocol: str, *, meteor: bool = True) -> None:
        self.questions, self.preds, self.protocol = questions, preds, protocol
        self.lineage, self.rules = rules_for(protocol)
        r = self.rules
        counted = [q for q in questions if r.gold_denominator or q.question_id in preds]
        hyps = (r.text_pred(self.preds[q.question_id][0]) if q.question_id in preds else "" for q in counted)
        refs = [[r.text_ref(a) for a in q.answers] for q in counted]
        self.corpus = prepare_corpus([q.question_id for q in counted], hyps, refs, mode=r.mode, meteor=meteor)
        self.meteor = meteor

    def sample_ids(self) -> list[str]:
        return [q.question_id for q in self.questions]

    def score(self, q: Question) -> SampleScore:
        r = self.rules
        groups = {"question_type": q.question_type}
        answers = self.preds.get(q.question_id)
        if answers is None and not r.gold_denominator:
            return SampleScore(q.question_id, q.scene_id, "excluded", {}, groups, {"reason": NOT_PREDICTED})
        top = answers or [""]
        values = em_values(r, top, q.answers)
        values.update(sample_values(r.text_pred(top[0]), [r.text_ref(a) for a in q.answers], r.mode))
        values["cider_d"] = self.corpus.cider.get(q.question_id, 0.0)
        values.update(self.corpus.meteor.get(q.question_id, {}))
        detail: dict[str, Any] = {"question": q.question, "answers": list(q.answers), "prediction": top[:10]}
        return SampleScore(q.question_id, q.scene_id, "scored" if answers is not None else "missing", values, groups, detail)

    def iter_scores(self, skip: set[str]) -> Iterator[list[SampleScore]]:
        for _, qs in by_scene([q for q in self.questions if q.question_id not in skip]).items():
            yield [self.score(q) for q in qs]


def make_job(
    questions: list[Question],
    truth_inputs: dict[str, Any],
    predictions: Path,
    protocol: str,
    *,
    meteor: bool = True,
    n_resamples: int = 1000,
    seed: int = 0,
) -> ScoringJob:
    """The scoring job over ``questions`` (``score`` and ``run``)."""
    lineage, rules = rules_for(protocol)
    preds = read_predictions(predictions, questions)
    scorer = ScanQAScorer(questions, preds, protocol, meteor=meteor)
    inputs = {**truth_inputs, "predictions": file_fingerprint(predictions)}
    settings = {
        "lineage": lineage,
        "rules": rules.notes,
        "text_mode": rules.mode,
        "tokenizer": T.TOKENIZER_VERSION if rules.mode == "coco" else "whitespace",
        "normalizer": NORMALIZER_VERSION,
        "meteor": meteor,
        "question_types": "qclass1 (case-sensitive substrings, ScanQA score.py)",
    }
    specs = metric_specs(rules)

    def summarize(records: list[SampleScore], run: Any) -> Results:
        s = summarize_scores(records, specs, groups=GROUPS, n_resamples=n_resamples, seed=seed)
        warnings = []
        if scorer.corpus.meteor_reason and meteor:
            warnings.append(f"METEOR not computed: {scorer.corpus.meteor_reason}")
        missing = sum(r.status == "missing" for r in records)
        if lineage == "original" and missing:
            warnings.append(f"{missing} question(s) without a prediction: the released score.py stops (KeyError); scored as wrong here")
        if lineage == "original" and any(r.status != "excluded" and not (r.detail.get("prediction") or [""])[0].split() for r in records):
            warnings.append("an empty top-1 answer makes the released F-value divide by zero; it scores 0 here")
        excluded = [r.sample_id for r in records if r.status == "excluded"]
        return s.to_results("scanqa", protocol, settings=settings, inputs=inputs, warnings=warnings, extra={"excluded_ids": excluded})

    return ScoringJob("scanqa", protocol, scorer, summarize, settings, inputs, label="scoring scanqa", hooks=JobHooks())


def truth_files(annotations: str | Path) -> tuple[list[Question], dict[str, Any]]:
    return load_questions(annotations), {"annotations": file_fingerprint(annotations)}


def prepare_scoring(
    *, annotations: Path, predictions: Path, protocol: str = "strict", meteor: bool = True, n_resamples: int = 1000, seed: int = 0
) -> ScoringJob:
    rules_for(protocol)  # a bad lineage fails before anything is read
    questions, inputs = truth_files(annotations)
    return make_job(questions, inputs, predictions, protocol, meteor=meteor, n_resamples=n_resamples, seed=seed)
