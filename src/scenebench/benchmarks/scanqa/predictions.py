"""ScanQA predictions: ranked answers per ``question_id``, from the files users have.

Accepted (the shape is recognised from the records):

- **EvalAI / ScanQA** (``scripts/predict.py``): a JSON list of ``{"scene_id", "question_id",
  "answer_top10": [str, ...], "bbox": ...}``; LLM submitters repeat one answer ten times;
- **one answer per question** (JSON list or JSONL): ``{"question_id", "answer": str}`` or
  ``{"question_id", "answers": [str, ...]}`` (ranked), or 3D-LLaVA's result lines
  ``{"question_id", "text"}``;
- **Video-3D-LLM / Ross3D** JSONL: ``{"sample_id": "scanqa_<question_id>_0", "pred_response"}``;
- **LL3DA** ``qa_pred_val.json``: ``{"<question_id>-<question>": [answer]}``;
- **LEO** ``results.json``: ``[{"scene_id", "instruction", "response_pred", ...}]``, matched to
  questions by ``(scene_id, question)`` as LEO's files carry no id.

Every answer must be a string; a question answered twice, or an id that is no question of the
annotations, is an :class:`~scenebench.errors.InputError` naming the file, the record and the field.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from scenebench.errors import InputError
from scenebench.io.files import iter_jsonl, read_json

from .data import Question

_LL3DA_KEY = re.compile(r"^([^-]+-[^-]+-\d+)-")


def _records(p: Path) -> tuple[list[tuple[str, Any]], Any]:
    if p.suffix == ".jsonl":
        return [(f"line {n}", r) for n, r in iter_jsonl(p, allow_empty=True)], None
    doc = read_json(p, what="ScanQA predictions")
    if isinstance(doc, list):
        return [(f"record {i}", r) for i, r in enumerate(doc)], None
    if isinstance(doc, dict):
        return [], doc
    raise InputError(p, f"is a JSON {type(doc).__name__}", expected="a list of prediction records or LL3DA's {id-question: [answer]}")


def _answers(p: Path, where: str, field: str, value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return list(value)
    raise InputError(p, "not a string or a non-empty list of strings", where=where, field=field)


def read_predictions(path: str | Path, questions: Iterable[Question]) -> dict[str, list[str]]:
    """Ranked answers by ``question_id`` (module docstring)."""
    p = Path(path)
    qs = list(questions)
    known = {q.question_id for q in qs}
    rows, mapping = _records(p)
    out: dict[str, list[str]] = {}

    def put(qid: str, answers: list[str], where: str, field: str) -> None:
        if qid not in known:
            raise InputError(p, f"question_id {qid!r} is no question of the annotations", where=where, field=field)
        if qid in out:
            raise InputError(p, f"a second prediction for {qid!r}", where=where, field=field)
        out[qid] = answers

    if mapping is not None:  # LL3DA: {"<question_id>-<question>": [answer]}
        for key, value in mapping.items():
            m = _LL3DA_KEY.match(key)
            if m is None:
                raise InputError(
                    p, f"key {key[:60]!r} does not start with a question_id", where="key", expected="'<question_id>-<question>'"
                )
            put(m.group(1), _answers(p, f"key {key[:40]!r}", "value", value)[:1], f"key {key[:40]!r}", "key")
        return out
    by_text: dict[tuple[str, str], str] | None = None
    for where, r in rows:
        if not isinstance(r, dict):
            raise InputError(p, "is not an object", where=where)
        if "answer_top10" in r:
            field, qid = "answer_top10", r.get("question_id")
        elif "pred_response" in r:
            field, sid = "pred_response", r.get("sample_id")
            if not isinstance(sid, str) or not sid.startswith("scanqa_"):
                raise InputError(p, "missing or not 'scanqa_<question_id>_<k>'", where=where, field="sample_id")
            qid = sid[len("scanqa_") :].rpartition("_")[0]
        elif "response_pred" in r:
            field = "response_pred"
            if by_text is None:
                by_text = {(q.scene_id, q.question.strip()): q.question_id for q in qs}
            scene, text = r.get("scene_id"), r.get("instruction")
            if not isinstance(scene, str) or not isinstance(text, str):
                raise InputError(p, "LEO records need scene_id and instruction (the question) strings", where=where, field="instruction")
            qid = by_text.get((scene, text.strip()))
            if qid is None:
                raise InputError(p, "no question of the annotations has this scene_id and question text", where=where, field="instruction")
        else:
            field = next((f for f in ("answers", "answer", "text") if f in r), "answer")
            qid = r.get("question_id")
        if not isinstance(qid, str) or not qid:
            raise InputError(p, "missing or not a string", where=where, field="question_id")
        if field not in r:
            raise InputError(p, "missing", where=where, field=field, expected="the answer (a string) or ranked answers")
        put(qid, _answers(p, where, field, r[field]), where, "question_id")
    return out
