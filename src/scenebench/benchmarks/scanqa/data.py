"""ScanQA ground truth: ``ScanQA_v1.0_{train,val,test_w_obj,test_wo_obj}.json``.

Azuma, Miyanishi, Kurita, Kawanabe, "ScanQA: 3D Question Answering for Spatial Scene Understanding",
CVPR 2022, arXiv 2112.10482 (released code ``ATR-DBI/ScanQA``: ``docs/dataset.md``,
``scripts/score.py``).

Each file is a JSON list of ``{"question_id": "<split>-<sceneXXXX>-<k>", "scene_id", "question",
"answers": [str, ...], "object_ids": [int], "object_names": [str]}``; the test files have no
``answers`` and ``test_wo_obj`` no ``object_ids``/``object_names``. The documentation spells the
ids field ``object_id``; the readers (and this one) use ``object_ids``.

Question types are ScanQA's ``qclass1``: case-sensitive substrings anywhere in the question, in
order ``Where`` -> Place, ``How many`` -> Number, ``What color``/``What is the color`` -> Color,
``What shape``/``What type``/``What kind`` -> Object nature, ``What is`` -> Object, else Other.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from scenebench.errors import InputError
from scenebench.io.files import read_json

QCLASS1 = (
    (("Where",), "Place"),
    (("How many",), "Number"),
    (("What color", "What is the color"), "Color"),
    (("What shape", "What type", "What kind"), "Object nature"),
    (("What is",), "Object"),
)
QUESTION_TYPES = (*(name for _, name in QCLASS1), "Other")


def qclass1(question: str) -> str:
    """ScanQA's question type (module docstring)."""
    return next((name for triggers, name in QCLASS1 if any(t in question for t in triggers)), "Other")


@dataclass(frozen=True)
class Question:
    question_id: str
    scene_id: str
    question: str
    answers: tuple[str, ...]  # empty in the test files
    object_ids: tuple[int, ...]
    object_names: tuple[str, ...]

    @property
    def question_type(self) -> str:
        return qclass1(self.question)


def _strs(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def load_questions(path: str | Path, *, need_answers: bool = True) -> list[Question]:
    """The questions of one ScanQA file, checked; ``need_answers``: every record needs at least one
    answer (scoring), else the file may be a test file without them (validation)."""
    p = Path(path)
    doc = read_json(p, what="ScanQA questions")
    if not isinstance(doc, list):
        raise InputError(p, "is not a JSON list", expected="a list of {question_id, scene_id, question, answers, ...}")
    out: list[Question] = []
    seen: set[str] = set()
    for i, r in enumerate(doc):
        where = f"record {i}"
        if not isinstance(r, dict):
            raise InputError(p, "is not an object", where=where)
        for f in ("question_id", "scene_id", "question"):
            if not isinstance(r.get(f), str) or not r[f]:
                raise InputError(p, "missing or not a non-empty string", where=where, field=f)
        qid = r["question_id"]
        if qid in seen:
            raise InputError(p, f"question_id {qid!r} appears twice", where=where, field="question_id")
        seen.add(qid)
        answers = r.get("answers", [])
        if not _strs(answers) or (need_answers and not answers):
            raise InputError(p, "missing, empty or not a list of strings", where=where, field="answers", expected="[str, ...] (>= 1)")
        if "object_id" in r and "object_ids" not in r:
            raise InputError(
                p,
                "is spelled object_id (as docs/dataset.md does); the released files and readers use object_ids",
                where=where,
                field="object_id",
            )
        ids = r.get("object_ids", [])
        if not isinstance(ids, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in ids):
            raise InputError(p, "not a list of integers", where=where, field="object_ids")
        names = r.get("object_names", [])
        if not _strs(names):
            raise InputError(p, "not a list of strings", where=where, field="object_names")
        out.append(Question(qid, r["scene_id"], r["question"], tuple(answers), tuple(ids), tuple(names)))
    return out
