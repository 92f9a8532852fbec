"""``scenebench validate scanqa``: check predictions offline before scoring or submitting.

``--submission FILE`` checks an EvalAI test submission (``pred.test_w_obj.json`` /
``pred.test_wo_obj.json``, ``ATR-DBI/ScanQA scripts/predict.py``) against the test questions
(``--annotations ScanQA_v1.0_test_w_obj.json``, answers not needed): a JSON list, one record per
test question and no other, each with exactly the keys ``scene_id``, ``question_id``,
``answer_top10`` (ten strings) and ``bbox`` (a list: eight ``[x, y, z]`` corners, or ``[]`` as LLM
submitters send), ``scene_id`` the question's scene. ``--predictions FILE`` reads a prediction file
the way ``score`` does.
"""

from __future__ import annotations

import math
from pathlib import Path

import typer

from scenebench.errors import InputError
from scenebench.io.files import read_json

from .data import Question, load_questions
from .predictions import read_predictions

SUBMISSION_KEYS = ("scene_id", "question_id", "answer_top10", "bbox")


def _bbox_ok(value: object) -> bool:
    if value == []:
        return True
    return (
        isinstance(value, list)
        and len(value) == 8
        and all(
            isinstance(c, list)
            and len(c) == 3
            and all(isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x) for x in c)
            for c in value
        )
    )


def check_submission(path: str | Path, questions: list[Question]) -> int:
    """Raise an :class:`InputError` naming the first problem (and how many there are); return the
    number of records of a good submission."""
    p = Path(path)
    doc = read_json(p, what="EvalAI submission")
    if not isinstance(doc, list):
        raise InputError(p, f"is a JSON {type(doc).__name__}", expected="a list of {scene_id, question_id, answer_top10, bbox}")
    scene_of = {q.question_id: q.scene_id for q in questions}
    problems: list[tuple[str, str, str]] = []  # (where, field, what)
    seen: set[str] = set()
    for i, r in enumerate(doc):
        where = f"record {i}"
        if not isinstance(r, dict):
            problems.append((where, "", "is not an object"))
            continue
        keys = set(r)
        for k in SUBMISSION_KEYS:
            if k not in keys:
                problems.append((where, k, "missing"))
        for k in sorted(keys - set(SUBMISSION_KEYS)):
            problems.append((where, k, "is not a key of the submission format"))
        qid = r.get("question_id")
        if not isinstance(qid, str) or qid not in scene_of:
            problems.append((where, "question_id", f"{qid!r} is no question of the test file"))
        elif qid in seen:
            problems.append((where, "question_id", f"{qid!r} appears twice"))
        else:
            seen.add(qid)
            if r.get("scene_id") != scene_of[qid]:
                problems.append((where, "scene_id", f"is {r.get('scene_id')!r}, the question's scene is {scene_of[qid]!r}"))
        answers = r.get("answer_top10")
        if "answer_top10" in r and (not isinstance(answers, list) or len(answers) != 10 or not all(isinstance(a, str) for a in answers)):
            n = len(answers) if isinstance(answers, list) else type(answers).__name__
            problems.append((where, "answer_top10", f"is not ten strings (got {n})"))
        if "bbox" in r and not _bbox_ok(r["bbox"]):
            problems.append((where, "bbox", "is not eight [x, y, z] corners of finite numbers (or [])"))
    missing = [q for q in scene_of if q not in seen]
    if missing:
        problems.append(("", "question_id", f"{len(missing)} test question(s) have no record (first: {missing[0]!r})"))
    if problems:
        where, fld, what = problems[0]
        more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
        raise InputError(
            p,
            what + more,
            where=where or None,
            field=fld or None,
            expected="every test question once: scene_id, question_id, answer_top10 (10 strings), bbox",
        )
    return len(doc)


def validate_command(*, annotations: Path, predictions: Path | None = None, submission: Path | None = None) -> None:
    if predictions is None and submission is None:
        raise InputError(
            None, "nothing to check", field="--predictions / --submission", expected="a prediction file or an EvalAI submission"
        )
    if submission is not None:
        questions = load_questions(annotations, need_answers=False)
        n = check_submission(submission, questions)
        typer.echo(f"ok: {submission} answers each of the {n} test questions of {annotations} once, ten answers each")
    if predictions is not None:
        questions = load_questions(annotations, need_answers=False)
        got = read_predictions(predictions, questions)
        typer.echo(f"ok: {predictions} answers {len(got)} of the {len(questions)} questions of {annotations}")
