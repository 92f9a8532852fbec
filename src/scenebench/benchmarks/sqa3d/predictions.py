"""SQA3D predictions: one answer per ``question_id``.

A JSON list or JSONL of ``{"question_id": int, "answer": str}`` (``"text"`` as 3D-LLaVA's result
lines, ``"pred_response"`` as Video-3D-LLM's, are read too), or a JSON object
``{"<question_id>": "answer"}``. A question answered twice, an id that is no question of the split,
or an answer that is not a string is an :class:`~scenebench.errors.InputError` naming the file,
the record and the field.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from scenebench.errors import InputError
from scenebench.io.files import iter_jsonl, read_json

from .data import Question

ANSWER_FIELDS = ("answer", "text", "pred_response")


def read_predictions(path: str | Path, questions: Iterable[Question]) -> dict[str, str]:
    p = Path(path)
    known = {q.question_id for q in questions}
    rows: list[tuple[str, Any, Any]]
    if p.suffix == ".jsonl":
        rows = [(f"line {n}", r.get("question_id"), r) for n, r in iter_jsonl(p, allow_empty=True)]
    else:
        doc = read_json(p, what="SQA3D predictions")
        if isinstance(doc, dict):
            rows = [(f"key {k!r}", k, {"answer": v}) for k, v in doc.items()]
        elif isinstance(doc, list):
            rows = [(f"record {i}", r.get("question_id") if isinstance(r, dict) else None, r) for i, r in enumerate(doc)]
        else:
            raise InputError(p, f"is a JSON {type(doc).__name__}", expected="a list of {question_id, answer} or {question_id: answer}")
    out: dict[str, str] = {}
    for where, qid, r in rows:
        if not isinstance(r, dict):
            raise InputError(p, "is not an object", where=where)
        if isinstance(qid, bool) or not isinstance(qid, int | str) or not str(qid).strip().lstrip("-").isdigit():
            raise InputError(p, "missing or not an integer id", where=where, field="question_id")
        key = str(int(qid))
        if key not in known:
            raise InputError(p, f"question_id {key} is no question of the split", where=where, field="question_id")
        if key in out:
            raise InputError(p, f"a second answer for question_id {key}", where=where, field="question_id")
        field = next((f for f in ANSWER_FIELDS if f in r), "answer")
        if not isinstance(r.get(field), str):
            raise InputError(p, "missing or not a string", where=where, field=field)
        out[key] = r[field]
    return out
