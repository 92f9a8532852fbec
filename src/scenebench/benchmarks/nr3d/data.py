"""Nr3D / Sr3D ground truth: ``nr3d.csv`` / ``sr3d.csv`` and the test scan list.

Achlioptas et al., "ReferIt3D: Neural Listeners for Fine-Grained 3D Object Identification in
Real-World Scenes", ECCV 2020 (released code ``referit3d/referit3d``: ``in_out/nr3d.py``,
``in_out/neural_net_oriented.py``, ``analysis/deepnet_predictions.py``).

Columns read: ``scan_id``, ``target_id``, ``stimulus_id``, ``utterance``, and when present
``tokens`` (a Python list literal, read with :func:`ast.literal_eval`: literals only),
``mentions_target_class`` (``True``/``False``; Sr3D's templates always name the class),
``instance_type``, ``assignmentid``. Without ``tokens`` the utterance is lower-cased, punctuation
becomes a space and it is split on whitespace (ReferIt3D's Sr3D preparation, with a whitespace split
in place of its NLTK tokenizer).

A sample is keyed ``scan_id:target_id:k`` with ``k`` the running count of rows of that
``(scan_id, target_id)`` in file order (the ``ann_id`` M3DRef-CLIP gives Nr3D rows), so the
utterances of one stimulus stay distinct.
"""

from __future__ import annotations

import ast
import csv
import json
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scenebench.errors import InputError
from scenebench.io.files import check_path_id
from scenebench.io.generated import require_finished

# ReferIt3D's view-dependent words (analysis/utterances.py): exact token match
VIEW_WORDS = frozenset({"front", "behind", "back", "right", "left", "facing", "leftmost", "rightmost", "looking", "across"})
MAX_TOKENS = 24  # the original protocol's --max-seq-len, applied to the test rows too
REQUIRED = ("scan_id", "target_id", "stimulus_id", "utterance")


@dataclass(frozen=True)
class Utterance:
    sample_id: str
    scan_id: str
    target_id: int
    ann_id: int
    stimulus_id: str
    utterance: str
    tokens: tuple[str, ...]
    mentions_target_class: bool
    n_objects: int  # instances of the target's class in the scan, the target included
    distractor_ids: tuple[int, ...]
    instance_type: str

    @property
    def easy(self) -> bool:
        return self.n_objects <= 2

    @property
    def view_dependent(self) -> bool:
        return not VIEW_WORDS.isdisjoint(self.tokens)


def decode_stimulus(stimulus_id: str, path: Path, where: str) -> tuple[str, int, int, tuple[int, ...]]:
    """``<scan>-<type, spaces as _>-<n_objects>-<target>[-<distractor>...]`` -> (type, n, target, distractors).

    The ids are the last ``n_objects`` fields: the split that gives the class the fewest fields and
    still reads ``n_objects`` ids wins, so a class name with a ``-`` in it parses too (the released
    split at the first four ``-`` fails on it)."""
    parts = stimulus_id.split("-")
    for n in range(len(parts) - 3, 0, -1):  # the shortest class name first, as the released split reads it
        head, tail = parts[: len(parts) - n - 1], parts[len(parts) - n - 1 :]
        if tail[0] == str(n) and all(t.isdigit() for t in tail[1:]) and len(head) >= 2:
            ids = tuple(int(t) for t in tail[1:])
            return "-".join(head[1:]).replace("_", " "), n, ids[0], ids[1:]
    raise InputError(
        path,
        f"{stimulus_id!r} is no stimulus id",
        where=where,
        field="stimulus_id",
        expected="<scan>-<class>-<n>-<target>[-<distractor>...]",
    )


def tokens_of(text: str) -> tuple[str, ...]:
    return tuple(re.sub(r"[^\w\s]", " ", text.lower()).split())


def _bool(value: str, path: Path, where: str, field: str) -> bool:
    if value.strip() in ("True", "true", "1"):
        return True
    if value.strip() in ("False", "false", "0"):
        return False
    raise InputError(path, f"{value!r} is not True/False", where=where, field=field)


def load_utterances(path: str | Path) -> list[Utterance]:
    p = Path(path)
    require_finished(p)
    if not p.is_file():
        raise InputError(p, "does not exist", expected="nr3d.csv or sr3d.csv")
    with p.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        head = reader.fieldnames or []
        for f in REQUIRED:
            if f not in head:
                raise InputError(p, "header lacks a column", where="line 1", field=f, expected=", ".join(REQUIRED))
        out: list[Any] = []
        count: defaultdict[tuple[str, int], int] = defaultdict(int)
        rows = enumerate(reader, start=2)
        while True:
            try:  # a field over csv's limit (131,072 characters) is an error naming its line; the process-wide limit stays
                n, r = next(rows)
            except StopIteration:
                break
            except csv.Error as exc:
                raise InputError(p, f"is not a readable CSV: {exc}", where=f"line {reader.line_num}") from exc
            where = f"line {n}"
            for f in REQUIRED:
                if not isinstance(r.get(f), str):  # a short row: csv gives None for the missing columns
                    raise InputError(p, "missing", where=where, field=f)
            scan = check_path_id(r["scan_id"], p, where=where, field="scan_id")
            if not r["target_id"].strip().isdigit():
                raise InputError(p, f"{r['target_id']!r} is not an object id", where=where, field="target_id")
            target = int(r["target_id"])
            label, n_obj, stim_target, distractors = decode_stimulus(r["stimulus_id"], p, where)
            if stim_target != target or not r["stimulus_id"].startswith(scan + "-"):
                raise InputError(p, "names another scan or target than the row", where=where, field="stimulus_id")
            if r.get("tokens"):
                try:
                    toks = ast.literal_eval(r["tokens"])
                except (ValueError, SyntaxError):
                    toks = None
                if not isinstance(toks, list) or not all(isinstance(t, str) for t in toks):
                    raise InputError(p, "is not a list of strings", where=where, field="tokens", expected="['the', 'chair', ...]")
                tokens = tuple(toks)
            else:
                tokens = tokens_of(r["utterance"])
            mentions = _bool(r["mentions_target_class"], p, where, "mentions_target_class") if r.get("mentions_target_class") else True
            k = count[(scan, target)]
            count[(scan, target)] += 1
            out.append(Utterance(f"{scan}:{target}:{k}", scan, target, k, r["stimulus_id"], r["utterance"], tokens, mentions, n_obj,
                                 distractors, r.get("instance_type") or label))  # fmt: skip
    return out


def load_scan_list(path: str | Path) -> set[str]:
    """Test scans: a JSON list (ReferIt3D's ``test_scans.txt``) or one scan id per line."""
    p = Path(path)
    if not p.is_file():
        raise InputError(p, "does not exist", expected="a JSON list of scan ids or one per line")
    text = p.read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(p, f"is not valid JSON ({exc.msg})", where=f"line {exc.lineno}") from None
        if not all(isinstance(s, str) for s in doc):
            raise InputError(p, "is not a list of scan id strings")
        return set(doc)
    return {line.strip() for line in text.splitlines() if line.strip()}
