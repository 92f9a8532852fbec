"""SQA3D ground truth: the balanced questions and annotations files, joined by ``question_id``.

Ma, Yang, Wang, Li, Zhu, Huang, "SQA3D: Situated Question Answering in 3D Scenes", ICLR 2023,
arXiv 2210.07474 (released data: Zenodo ``sqa_task.zip``, ``assets/dataset.md``).

- ``v1_balanced_questions_<split>_scannetv2.json``: ``{"info", "license", "data_type",
  "data_subtype", "task_type", "questions": [{"scene_id", "situation", "alternative_situation",
  "question", "question_id": int}, ...]}``;
- ``v1_balanced_sqa_annotations_<split>_scannetv2.json``: ``{..., "annotations": [{"scene_id",
  "question_type", "answer_type", "question_id": int, "answers": [{"answer", "answer_confidence",
  "answer_id"}], "position": {"x", "y", "z"}, "rotation": {"_x", "_y", "_z", "_w"}}, ...]}``.

Poses are read by key, so the rotation's key order (``_w`` first in the docs' example, last in the
test file) does not matter. Question types, two rules that agree on the released test split:

- first token (the MCAN baseline; ``strict``): the question lower-cased, ``,`` ``.`` ``?`` removed,
  its first whitespace token if it is ``what``, ``is``, ``how``, ``can`` or ``which``, else ``others``;
- prefix (LEO ``get_sqa_question_type``, and every lineage): ``lstrip()``, then whether the first
  4/2/3/3/5 characters lower-cased are ``what``/``is``/``how``/``can``/``which`` (so ``Isn't ...``
  and ``Island ...`` are ``is``), else ``others``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scenebench.errors import InputError
from scenebench.io.files import read_json

TYPES = ("what", "is", "how", "can", "which")
QUESTION_TYPES = (*TYPES, "others")


def type_first_token(question: str) -> str:
    """The MCAN rule (module docstring)."""
    words = question.lower().replace(",", "").replace(".", "").replace("?", "").split()
    return words[0] if words and words[0] in TYPES else "others"


def type_prefix(question: str) -> str:
    """LEO's prefix rule (module docstring)."""
    q = question.lstrip().lower()
    return next((t for t in TYPES if q[: len(t)] == t), "others")


@dataclass(frozen=True)
class Question:
    question_id: str  # the integer id as text: the sample id of results
    scene_id: str
    situation: str
    question: str
    answers: tuple[str, ...]
    position: tuple[float, float, float]
    rotation: tuple[float, float, float, float]  # x, y, z, w


def _list(p: Path, doc: Any, key: str) -> list[Any]:
    if not isinstance(doc, dict) or not isinstance(doc.get(key), list):
        raise InputError(p, f"has no list {key!r}", field=key, expected=f"the SQA3D envelope {{..., {key!r}: [...]}}")
    return doc[key]


def _qid(p: Path, r: dict[str, Any], where: str) -> str:
    v = r.get("question_id")
    if not isinstance(v, int) or isinstance(v, bool):
        raise InputError(p, "missing or not an integer", where=where, field="question_id")
    return str(v)


def _numbers(p: Path, obj: object, keys: tuple[str, ...], where: str, field: str) -> tuple[float, ...]:
    ok = isinstance(obj, dict) and all(isinstance(obj.get(k), int | float) and not isinstance(obj.get(k), bool) for k in keys)
    if not ok or not all(math.isfinite(obj[k]) for k in keys):  # type: ignore[index]
        raise InputError(p, "missing or not finite numbers", where=where, field=field, expected="{" + ", ".join(keys) + "}")
    return tuple(float(obj[k]) for k in keys)  # type: ignore[index]


def load_questions(questions: str | Path, annotations: str | Path) -> list[Question]:
    """Questions joined with their annotations, in the questions file's order; every question needs
    exactly one annotation and the other way round."""
    qp, ap = Path(questions), Path(annotations)
    anns: dict[str, tuple[tuple[str, ...], tuple[float, ...], tuple[float, ...], str]] = {}
    for i, r in enumerate(_list(ap, read_json(ap, what="SQA3D annotations"), "annotations")):
        where = f"annotations[{i}]"
        if not isinstance(r, dict):
            raise InputError(ap, "is not an object", where=where)
        qid = _qid(ap, r, where)
        if qid in anns:
            raise InputError(ap, f"question_id {qid} is annotated twice", where=where, field="question_id")
        answers = r.get("answers")
        if (
            not isinstance(answers, list)
            or not answers
            or not all(isinstance(a, dict) and isinstance(a.get("answer"), str) for a in answers)
        ):
            raise InputError(ap, "missing, empty or not a list of {answer: str}", where=where, field="answers")
        pos = _numbers(ap, r.get("position"), ("x", "y", "z"), where, "position")
        rot = _numbers(ap, r.get("rotation"), ("_x", "_y", "_z", "_w"), where, "rotation")
        anns[qid] = (tuple(a["answer"] for a in answers), pos, rot, str(r.get("scene_id", "")))
    out: list[Question] = []
    seen: set[str] = set()
    for i, r in enumerate(_list(qp, read_json(qp, what="SQA3D questions"), "questions")):
        where = f"questions[{i}]"
        if not isinstance(r, dict):
            raise InputError(qp, "is not an object", where=where)
        qid = _qid(qp, r, where)
        for f in ("scene_id", "situation", "question"):
            if not isinstance(r.get(f), str):
                raise InputError(qp, "missing or not a string", where=where, field=f)
        if qid in seen:
            raise InputError(qp, f"question_id {qid} appears twice", where=where, field="question_id")
        seen.add(qid)
        if qid not in anns:
            raise InputError(ap, f"has no annotation for question_id {qid} of {qp.name}", field="question_id")
        answers, pos, rot, scene = anns[qid]
        if scene and scene != r["scene_id"]:
            raise InputError(ap, f"question_id {qid} is in scene {scene!r}, the question in {r['scene_id']!r}", field="scene_id")
        out.append(Question(qid, r["scene_id"], r["situation"], r["question"], answers, pos, rot))  # type: ignore[arg-type]
    extra = sorted(set(anns) - seen, key=int)
    if extra:
        raise InputError(
            ap, f"{len(extra)} annotation(s) have no question in {qp.name} (first: question_id {extra[0]})", field="question_id"
        )
    return out
