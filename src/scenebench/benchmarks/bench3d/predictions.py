"""``answers.jsonl``: one ``{"question_id", "task", "text"}`` per ground-truth record, paired by id.

The released script pairs predictions with ground truth by position, so one dropped line shifts
every later answer onto the wrong question. scenebench pairs by ``(task, question_id)`` (question
ids restart at 1 in every released task file; a record without one is ``row<i>``) and refuses a file
that does not cover the records unless missing answers are explicitly allowed (scored as wrong
and counted). With circular evaluation a multiple-choice question ``q`` expects one answer per
rotation, ids ``q#rot0`` .. ``q#rot{n-1}`` (see :func:`scenebench.benchmarks.bench3d.choice.rotate`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from scenebench.benchmarks.bench3d.choice import circular_id
from scenebench.benchmarks.bench3d.loader import Bench
from scenebench.benchmarks.bench3d.records import record_key
from scenebench.benchmarks.bench3d.tasks import TASKS, task_key
from scenebench.errors import InputError
from scenebench.io.files import iter_jsonl_offsets, read_jsonl_at

# Texts read while indexing are kept (not read again when scored) while they total at most this many
# characters (~64 MB of ASCII); a larger answers file is indexed by offsets only.
KEEP_TEXT_CHARS = 64 * 1024 * 1024


@dataclass
class Answers:
    """Where each expected answer is: ``by_id`` maps an expected key (``Record.key`` =
    ``<task>:<question_id>``, or ``<task>:<question_id>#rotK``) to the byte offset and line of its
    record in ``path``.

    Offsets are the index, and a text is read back when it is scored, so scoring a 1 GB answers
    file does not hold 1 GB of answers (the ground truth bounds the index, not the file). The texts
    read while indexing are kept (``texts``) while they total at most :data:`KEEP_TEXT_CHARS`
    characters, so an ordinary file is read and decoded once; past that, each is read back.
    """

    by_id: dict[str, tuple[int, int]]
    missing: list[str] = field(default_factory=list)  # expected ids without an answer
    skipped_other_tasks: int = 0  # answers of tasks, or of records (--limit), not being scored
    path: Path | None = None
    texts: dict[str, str] | None = None  # key -> text, when the texts were small enough to keep
    _fh: BinaryIO | None = field(default=None, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def get(self, key: str) -> str | None:
        if self.texts is not None:
            return self.texts.get(key)
        where = self.by_id.get(key)
        if where is None or self.path is None:
            return None
        offset, lineno = where
        with self._lock:
            if self._fh is None:
                self._fh = open(self.path, "rb")  # noqa: SIM115 - kept open for random access, closed by close()
            rec = read_jsonl_at(self._fh, self.path, offset, lineno)
        return rec["text"]

    def close(self) -> None:
        with self._lock:
            if self._fh is not None:
                self._fh.close()
                self._fh = None

    def __del__(self) -> None:
        fh = self.__dict__.get("_fh")
        if fh is not None:
            fh.close()


def expected_ids(bench: Bench, circular: bool) -> dict[str, str]:
    """Every answer key the records call for (``<task>:<question_id>[#rotK]``) -> its task."""
    out: dict[str, str] = {}
    for t, recs in bench.records.items():
        rot = circular and TASKS[t].kind == "choice"
        for r in recs:
            if rot:
                for k in range(len(r.gt["choices"])):
                    out[circular_id(r.key, k)] = t
            else:
                out[r.key] = t
    return out


def read_answers(
    path: str | Path, bench: Bench, *, circular: bool = False, allow_missing: bool = False, not_scored: set[str] | None = None
) -> Answers:
    """Read and check ``answers.jsonl`` against the loaded records; see the module docstring.

    ``not_scored``: keys of real records left out of this run (``--limit``); their answers are
    skipped and counted instead of refused as unknown.
    """
    path = Path(path)
    expected = expected_ids(bench, circular)
    not_scored = not_scored or set()
    by_id: dict[str, tuple[int, int]] = {}
    texts: dict[str, str] | None = {}
    kept = 0  # characters of the texts kept so far
    skipped = 0
    for lineno, offset, rec in iter_jsonl_offsets(path):
        where = f"line {lineno}"
        qid = rec.get("question_id")
        if isinstance(qid, int) and not isinstance(qid, bool):
            qid = str(qid)
        if not isinstance(qid, str) or not qid:
            raise InputError(path, f"got {qid!r:.60}", where=where, field="question_id", expected="a non-empty string")
        task = rec.get("task")
        if not isinstance(task, str):
            raise InputError(path, f"got {task!r:.60}", where=where, field="task", expected="a 3DBench task name")
        key = task_key(task)
        if key is None:
            raise InputError(path, f"unknown task {task!r}", where=where, field="task", expected=", ".join(TASKS))
        text = rec.get("text")
        if not isinstance(text, str):
            raise InputError(path, f"got {type(text).__name__}", where=where, field="text", expected="the model's answer as a string")
        k = record_key(key, qid)
        if key not in bench.records or k in not_scored:
            skipped += 1
            continue
        if k not in expected:
            hint = ""
            if circular and f"{k}#rot0" in expected:
                hint = f"; circular evaluation expects ids {qid}#rot0 .. #rot{{n-1}}"
            elif not circular and k.split("#rot")[0] in expected and "#rot" in qid:
                hint = "; rotation ids need --circular"
            elif other := [t for t in bench.records if t != key and record_key(t, qid) in expected]:
                hint = f" (it is a question_id of {', '.join(other)}: question ids are paired with their task)"
            raise InputError(path, f"question_id {qid!r} is not a {key} record of the benchmark{hint}", where=where, field="question_id")
        if k in by_id:
            raise InputError(
                path,
                f"question_id {qid!r} of task {key} already answered on line {by_id[k][1]}",
                where=where,
                field="question_id",
                expected="one answer per question",
            )
        by_id[k] = (offset, lineno)
        if texts is not None:
            kept += len(text)
            if kept > KEEP_TEXT_CHARS:
                texts = None  # too much to hold: read each back from its offset when scored
            else:
                texts[k] = text
    missing = [q for q in expected if q not in by_id]
    if missing and not allow_missing:
        raise InputError(
            path,
            f"answers {len(expected) - len(missing)} of {len(expected)} expected (task:question_id) ids; {len(missing)} missing (first: {', '.join(missing[:3])})",
            expected="an answer for every record, or --allow-missing to score missing ones as wrong",
        )
    return Answers(by_id, missing, skipped, path, texts)
