"""Score Nr3D / Sr3D: accuracy of picking the target among the scan's objects, overall, easy / hard
and view-dependent / view-independent (``docs/metrics/nr3d_accuracy.md``).

Per utterance: correct when the predicted object id equals ``target_id``; no record: wrong
(``missing``); text without an id: wrong (``invalid``). Easy: ``n_objects <= 2`` (one same-class
distractor at most); view-dependent: a token of :data:`.data.VIEW_WORDS`. What differs:

- ``official:original`` (plain ``official``; ReferIt3D's released protocol): only utterances that
  name the target class (``mentions_target_class``) **and** have at most 24 tokens
  (``--max-seq-len``) are scored; the others are ``excluded`` and listed;
- ``official:chatscene`` (Chat-Scene's ``calc_nr3d_score``; GPT4Scene, Inst3D-LMM, 3D-LLaVA copy it):
  every utterance, neither filter; a text answer is its first ``<OBJnnn>`` (three digits), and a
  text without one picks **object 0** (a guess, not a miss);
- ``strict``: utterances that name the target class, every length (a model hyper-parameter does not
  shrink the test set).

Text answers (``pred``) are otherwise read as the first ``<OBJnnn>`` token, or as a bare id.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from scenebench.io.files import file_fingerprint
from scenebench.metrics.aggregate import Mean
from scenebench.metrics.jobs import ScoringJob
from scenebench.metrics.records import SampleScore, Status, summarize_scores
from scenebench.protocol import parse_protocol
from scenebench.results import Results

from .data import MAX_TOKENS, VIEW_WORDS, Utterance, load_scan_list, load_utterances
from .predictions import read_predictions
from .spec import LINEAGES

SPECS = [Mean("accuracy", "correct", scale=100, description="share of utterances whose predicted object is the target", unit="%")]
GROUPS = ("difficulty", "view")
OBJ = re.compile(r"<obj(\d+)>", re.IGNORECASE)
OBJ3 = re.compile(r"<OBJ(\d{3})>")  # Chat-Scene's id_format
NO_CLASS = "the utterance does not name the target class (mentions_target_class False)"
TOO_LONG = f"more than {MAX_TOKENS} tokens"
RULES = {
    "strict": {
        "test_set": "utterances naming the target class (mentions_target_class), any length",
        "text_answer": "first <OBJnnn> token, else a bare id; else invalid (wrong)",
    },
    "official:original": {
        "test_set": f"utterances naming the target class and of at most {MAX_TOKENS} tokens",
        "text_answer": "first <OBJnnn> token, else a bare id; else invalid (wrong)",
    },
    "official:chatscene": {
        "test_set": "every utterance (no class or length filter)",
        "text_answer": "first <OBJnnn> (three digits, upper case); else object 0",
    },
}


def canonical(protocol: str) -> str:
    """``strict`` or ``official:<lineage>`` (plain ``official`` is the first lineage)."""
    base, lineage = parse_protocol(protocol, LINEAGES)
    return base if lineage is None else f"official:{lineage}"


def parse_answer(value: int | str, protocol: str = "strict") -> int | None:
    """The object id of an answer: an id as given, the first ``<OBJnnn>`` of a text, or a bare id
    (``official:chatscene``: the first ``<OBJddd>``, else 0)."""
    if isinstance(value, int):
        return value
    if protocol == "official:chatscene":
        found = OBJ3.search(value)
        return int(found.group(1)) if found else 0
    m = OBJ.search(value)
    if m:
        return int(m.group(1))
    return int(value.strip()) if value.strip().isdigit() else None


def exclusion(u: Utterance, protocol: str) -> str | None:
    """Why the protocol leaves ``u`` out of the test set, or None."""
    if protocol == "official:chatscene":
        return None
    if not u.mentions_target_class:
        return NO_CLASS
    if protocol == "official:original" and len(u.tokens) > MAX_TOKENS:
        return TOO_LONG
    return None


def groups_of(u: Utterance) -> dict[str, str]:
    return {"difficulty": "easy" if u.easy else "hard", "view": "view_dependent" if u.view_dependent else "view_independent"}


class ReferIt3DScorer:
    def __init__(self, benchmark: str, utterances: list[Utterance], preds: dict[str, int | str], protocol: str) -> None:
        self.benchmark, self.utterances, self.preds, self.protocol = benchmark, utterances, preds, canonical(protocol)

    def sample_ids(self) -> list[str]:
        return [u.sample_id for u in self.utterances]

    def iter_scores(self, skip: set[str]) -> Iterator[list[SampleScore]]:
        by_scan: dict[str, list[Utterance]] = {}
        for u in self.utterances:
            if u.sample_id not in skip:
                by_scan.setdefault(u.scan_id, []).append(u)
        for scan, todo in by_scan.items():
            batch = []
            for u in todo:
                detail: dict[str, Any] = {"utterance": u.utterance, "target_id": u.target_id, "n_objects": u.n_objects}
                why = exclusion(u, self.protocol)
                if why is not None:
                    batch.append(SampleScore(u.sample_id, scan, "excluded", {}, groups_of(u), {**detail, "reason": why}))
                    continue
                raw = self.preds.get(u.sample_id)
                pred = None if raw is None else parse_answer(raw, self.protocol)
                status: Status = "missing" if raw is None else ("invalid" if pred is None else "scored")
                detail.update({"pred_id": pred, "answer": raw if isinstance(raw, str) else None})
                batch.append(SampleScore(u.sample_id, scan, status, {"correct": float(pred == u.target_id)}, groups_of(u), detail))
            yield batch


def make_job(
    benchmark: str,
    utterances: list[Utterance],
    inputs: dict[str, Any],
    predictions: Path,
    protocol: str,
    n_resamples: int = 1000,
    seed: int = 0,
) -> ScoringJob:
    protocol = canonical(protocol)
    inputs = {**inputs, "predictions": file_fingerprint(predictions)}
    settings: dict[str, Any] = {"easy": "n_objects <= 2", "view_words": sorted(VIEW_WORDS)}
    settings |= {**RULES[protocol], "protocols": RULES}
    scorer = ReferIt3DScorer(benchmark, utterances, read_predictions(predictions, utterances), protocol)

    def summarize(records: list[SampleScore], run: Any) -> Results:
        s = summarize_scores(records, SPECS, groups=GROUPS, n_resamples=n_resamples, seed=seed)
        excluded = [r.sample_id for r in records if r.status == "excluded"]
        return s.to_results(benchmark, protocol, settings=settings, inputs=inputs, extra={"excluded_ids": excluded})

    return ScoringJob(benchmark, protocol, scorer, summarize, settings, inputs, label=f"scoring {benchmark}")


def truth(annotations: Path, scans: Path | None) -> tuple[list[Utterance], dict[str, Any]]:
    """The utterances of the test scans (all rows without a scan list) and their file records."""
    utterances = load_utterances(annotations)
    inputs: dict[str, Any] = {"annotations": file_fingerprint(annotations)}
    if scans is not None:
        keep = load_scan_list(scans)
        utterances = [u for u in utterances if u.scan_id in keep]
        inputs["scans"] = file_fingerprint(scans)
    return utterances, inputs


def _prepare(
    benchmark: str, annotations: Path, predictions: Path, scans: Path | None, protocol: str, n_resamples: int, seed: int
) -> ScoringJob:
    checked = canonical(protocol)
    utterances, inputs = truth(Path(annotations), None if scans is None else Path(scans))
    return make_job(benchmark, utterances, inputs, Path(predictions), checked, n_resamples, seed)


def prepare_nr3d(
    *, annotations: Path, predictions: Path, scans: Path | None = None, protocol: str = "strict", n_resamples: int = 1000, seed: int = 0
) -> ScoringJob:
    return _prepare("nr3d", annotations, predictions, scans, protocol, n_resamples, seed)


def prepare_sr3d(
    *, annotations: Path, predictions: Path, scans: Path | None = None, protocol: str = "strict", n_resamples: int = 1000, seed: int = 0
) -> ScoringJob:
    return _prepare("sr3d", annotations, predictions, scans, protocol, n_resamples, seed)


def validate_command(annotations: Path, predictions: Path | None = None, scans: Path | None = None) -> None:
    """``scenebench validate nr3d|sr3d``: read every input (errors name file, line, field); print counts."""
    import json

    utterances, _ = truth(Path(annotations), None if scans is None else Path(scans))
    out: dict[str, Any] = {"utterances": len(utterances), "scans": len({u.scan_id for u in utterances})}
    out["not_naming_the_target_class"] = sum(not u.mentions_target_class for u in utterances)
    out[f"longer_than_{MAX_TOKENS}_tokens"] = sum(len(u.tokens) > MAX_TOKENS for u in utterances)
    out["easy"], out["view_dependent"] = sum(u.easy for u in utterances), sum(u.view_dependent for u in utterances)
    if predictions is not None:
        out["predictions"] = len(read_predictions(predictions, utterances))
    print(json.dumps(out, indent=2))
