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
- ``official:m3drefclip`` (M3DRef-CLIP's ``referit3d_evaluator.py``, the GT-box setting): every
  utterance, neither filter; the answer is a **box** (``aabb``, else the box-table box of the
  answered id) and is right when its IoU with the target's box (float32, ``+ float32 eps``) is
  **>= 0.9**, so a same-class distractor of nearly the target's box counts as the target; a missing
  answer counts 0 overall and joins no type (group ``no prediction``: the released per-type masks
  are uninitialised there); needs the box tables (``--boxes``);
- ``official:video3dllm`` (Video-3D-LLM's ``eval_nr3d.py``; Ross3D the same): box grounding, not
  identity, under its own metric names: **Acc@0.25 / Acc@0.5** = the share of answered utterances
  whose box (``aabb``, else the box-table box of the answered id) has IoU ``inter / (V1 + V2 - inter
  + 1e-8)`` (float64) **>=** k with the target's box; every utterance with a record (its JSONL is the
  test set: an utterance without one is ``excluded``), neither filter; no ``accuracy``; Video-3D-LLM's
  own result JSONL (``gt_response``, ``pred_response``) is scored from the file alone (:mod:`.video3dllm`);
- ``strict``: utterances that name the target class, every length (a model hyper-parameter does not
  shrink the test set).

Text answers (``pred``) are otherwise read as the first ``<OBJnnn>`` token, or as a bare id.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.errors import InputError
from scenebench.io import scannet
from scenebench.io.files import file_fingerprint
from scenebench.metrics.aggregate import Mean
from scenebench.metrics.grounding import FLOAT32_EPS, iou_matrix_eps
from scenebench.metrics.jobs import ScoringJob, summarize_listing_excluded
from scenebench.metrics.records import SampleScore, Status
from scenebench.protocol import resolve_protocol

from . import video3dllm
from .data import MAX_TOKENS, VIEW_WORDS, Utterance, load_scan_list, load_utterances
from .predictions import read_predictions
from .spec import LINEAGES

SPECS = [Mean("accuracy", "correct", scale=100, description="share of utterances whose predicted object is the target", unit="%")]
# official:video3dllm: box grounding under its own names (spec 5.4: not the identity accuracy)
IOU_THRESHOLDS = {"acc25": 0.25, "acc50": 0.5}
BOX_SPECS = [
    Mean("Acc@0.25", "acc25", scale=100, description="share of answered utterances whose box has IoU >= 0.25 with the target's", unit="%"),
    Mean("Acc@0.5", "acc50", scale=100, description="share of answered utterances whose box has IoU >= 0.5 with the target's", unit="%"),
]
BOX_PROTOCOLS = ("official:m3drefclip", "official:video3dllm")
NO_RECORD = "no prediction record (Video-3D-LLM scores the records of its JSONL)"
GROUPS = ("difficulty", "view")
OBJ = re.compile(r"<obj(\d+)>", re.IGNORECASE)
OBJ3 = re.compile(r"<OBJ(\d{3})>")  # Chat-Scene's id_format
NO_CLASS = "the utterance does not name the target class (mentions_target_class False)"
TOO_LONG = f"more than {MAX_TOKENS} tokens"
IDENTITY_IOU = 0.9  # M3DRef-CLIP: a box at IoU >= 0.9 with the target's box is the target
NO_PREDICTION = "no prediction"
NO_ROW = "the scan's box table has no row for the target_id"
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
    "official:m3drefclip": {
        "test_set": "every utterance (no class or length filter)",
        "text_answer": "first <OBJnnn> token, else a bare id; its box-table box unless the record gives aabb",
        "correct": f"IoU (float32, + float32 eps) of the answered box with the target's box >= {IDENTITY_IOU}",
        "type_denominator": f"utterances of the type with a prediction (a missing one is in group '{NO_PREDICTION}')",
    },
    "official:video3dllm": {
        "test_set": "every utterance with a prediction record (no class or length filter; no record: excluded)",
        "text_answer": "first <OBJnnn> token, else a bare id; its box-table box unless the record gives aabb",
        "correct": "Acc@k: IoU (float64, inter / (V1 + V2 - inter + 1e-8)) of the answered box with the target's box >= k, k = 0.25, 0.5",
    },
}


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


def same_object(pred: np.ndarray, target: np.ndarray) -> np.ndarray:
    """(N,) M3DRef-CLIP's identity test of paired (N, 6) min-max boxes: float32 IoU with + float32 eps >= 0.9."""
    if len(pred) == 0:
        return np.zeros(0, dtype=bool)
    return np.asarray(iou_matrix_eps(pred, target, FLOAT32_EPS, np.float32).diagonal() >= IDENTITY_IOU)


def exclusion(u: Utterance, protocol: str) -> str | None:
    """Why the protocol leaves ``u`` out of the test set, or None."""
    if protocol in ("official:chatscene", *BOX_PROTOCOLS):
        return None
    if not u.mentions_target_class:
        return NO_CLASS
    if protocol == "official:original" and len(u.tokens) > MAX_TOKENS:
        return TOO_LONG
    return None


def groups_of(u: Utterance) -> dict[str, str]:
    return {"difficulty": "easy" if u.easy else "hard", "view": "view_dependent" if u.view_dependent else "view_independent"}


class ReferIt3DScorer:
    def __init__(
        self, benchmark: str, utterances: list[Utterance], preds: dict[str, int | str], protocol: str,
        boxes_dir: Path | None = None, pred_boxes: dict[str, np.ndarray] | None = None,
    ) -> None:  # fmt: skip
        self.benchmark, self.utterances, self.preds, self.protocol = benchmark, utterances, preds, resolve_protocol(protocol, LINEAGES)
        self.boxes_dir, self.pred_boxes = boxes_dir, pred_boxes or {}

    def _box_batch(self, scan: str, todo: list[Utterance]) -> list[SampleScore]:
        """official:m3drefclip and official:video3dllm: each answer's box against the target's box (module doc)."""
        assert self.boxes_dir is not None
        ids, boxes = scannet.load_minmax_boxes(self.boxes_dir, scan)
        row = {int(o): k for k, o in enumerate(ids)}
        batch, pairs = [], []
        for u in todo:
            detail: dict[str, Any] = {"utterance": u.utterance, "target_id": u.target_id, "n_objects": u.n_objects}
            raw = self.preds.get(u.sample_id)
            if u.target_id not in row:
                batch.append(SampleScore(u.sample_id, scan, "excluded", {}, groups_of(u), {**detail, "reason": NO_ROW}))
                continue
            if raw is None and self.protocol == "official:video3dllm":
                batch.append(SampleScore(u.sample_id, scan, "excluded", {}, groups_of(u), {**detail, "reason": NO_RECORD}))
                continue
            if raw is None:
                none = {"difficulty": NO_PREDICTION, "view": NO_PREDICTION}
                batch.append(SampleScore(u.sample_id, scan, "missing", {"correct": 0.0}, none, detail))
                continue
            pred = parse_answer(raw, "strict")
            box = self.pred_boxes.get(u.sample_id)
            if box is None and pred in row:
                box = boxes[row[pred]]
            detail.update({"pred_id": pred, "answer": raw if isinstance(raw, str) else None})
            status: Status = "invalid" if box is None else "scored"
            batch.append(SampleScore(u.sample_id, scan, status, dict.fromkeys(self.fields, 0.0), groups_of(u), detail))
            if box is not None:
                pairs.append((len(batch) - 1, box, boxes[row[u.target_id]]))
        if pairs:
            pred_boxes, targets = np.array([p for _, p, _ in pairs]), np.array([t for _, _, t in pairs])
            if self.protocol == "official:video3dllm":
                iou = iou_matrix_eps(pred_boxes, targets, 1e-8).diagonal()
                for (i, _, _), v in zip(pairs, iou):
                    batch[i].values.update({f: float(v >= k) for f, k in IOU_THRESHOLDS.items()})
                    batch[i].detail["iou"] = float(v)
            else:
                for (i, _, _), h in zip(pairs, same_object(pred_boxes, targets)):
                    batch[i].values["correct"] = float(h)
        return batch

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(IOU_THRESHOLDS) if self.protocol == "official:video3dllm" else ("correct",)

    def sample_ids(self) -> list[str]:
        return [u.sample_id for u in self.utterances]

    def iter_scores(self, skip: set[str]) -> Iterator[list[SampleScore]]:
        by_scan: dict[str, list[Utterance]] = {}
        for u in self.utterances:
            if u.sample_id not in skip:
                by_scan.setdefault(u.scan_id, []).append(u)
        for scan, todo in by_scan.items():
            if self.protocol in BOX_PROTOCOLS:
                yield self._box_batch(scan, todo)
                continue
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
    boxes: Path | None = None,
) -> ScoringJob:
    protocol = resolve_protocol(protocol, LINEAGES)
    inputs = {**inputs, "predictions": file_fingerprint(predictions)}
    settings: dict[str, Any] = {"easy": "n_objects <= 2", "view_words": sorted(VIEW_WORDS)}
    settings |= {**RULES[protocol], "protocols": RULES}
    pred_boxes: dict[str, np.ndarray] = {}
    answers = read_predictions(predictions, utterances, pred_boxes)
    if protocol in BOX_PROTOCOLS:
        if boxes is None:
            raise InputError(None, f"{protocol} scores boxes: give the box tables (--boxes FOLDER of <scan_id>_aligned_bbox.npy)")
        inputs["boxes"] = {s: file_fingerprint(scannet.box_path(boxes, s)) for s in sorted({u.scan_id for u in utterances})}
        inputs["boxes_dir"] = str(boxes)
    scorer = ReferIt3DScorer(benchmark, utterances, answers, protocol, None if boxes is None else Path(boxes), pred_boxes)
    specs = BOX_SPECS if protocol == "official:video3dllm" else SPECS
    summarize = summarize_listing_excluded(
        benchmark, protocol, specs, GROUPS, settings=settings, inputs=inputs, n_resamples=n_resamples, seed=seed
    )
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
    benchmark: str, annotations: Path | None, predictions: Path, scans: Path | None, protocol: str, n_resamples: int, seed: int,
    boxes: Path | None,
) -> ScoringJob:  # fmt: skip
    checked = resolve_protocol(protocol, LINEAGES)
    if video3dllm.is_result_file(Path(predictions)):
        return _result_file_job(benchmark, annotations, Path(predictions), checked, n_resamples, seed)
    if annotations is None:
        raise InputError(
            None, f"score {benchmark} needs --annotations (only Video-3D-LLM's result JSONL carries its own truth)", field="--annotations"
        )
    utterances, inputs = truth(Path(annotations), None if scans is None else Path(scans))
    return make_job(benchmark, utterances, inputs, Path(predictions), checked, n_resamples, seed, None if boxes is None else Path(boxes))


def _result_file_job(benchmark: str, annotations: Path | None, predictions: Path, protocol: str, n_resamples: int, seed: int) -> ScoringJob:
    """Video-3D-LLM's own result JSONL (``gt_response``, ``pred_response``, ``question_type``): scored
    from the file alone, under its own protocol only (:mod:`.video3dllm`)."""
    if protocol != "official:video3dllm":
        raise InputError(
            predictions,
            f"is Video-3D-LLM's result JSONL (gt_response, pred_response): score it with --protocol official:video3dllm, not {protocol}",
        )
    inputs: dict[str, Any] = {}
    warnings = []
    if annotations is not None:  # not needed: the file's gt_response is the truth, as in eval_nr3d.py
        inputs["annotations"] = file_fingerprint(Path(annotations))
        warnings.append(f"{Path(annotations).name} is not read: Video-3D-LLM's result file carries its own ground truth (gt_response)")
    settings: dict[str, Any] = {"protocols": RULES}
    return video3dllm.make_result_file_job(benchmark, predictions, BOX_SPECS, IOU_THRESHOLDS, settings, inputs, n_resamples, seed, warnings)


def prepare_nr3d(
    *, annotations: Path | None = None, predictions: Path, scans: Path | None = None, boxes: Path | None = None, protocol: str = "strict",
    n_resamples: int = 1000, seed: int = 0,
) -> ScoringJob:  # fmt: skip
    return _prepare("nr3d", annotations, predictions, scans, protocol, n_resamples, seed, boxes)


def prepare_sr3d(
    *, annotations: Path | None = None, predictions: Path, scans: Path | None = None, boxes: Path | None = None, protocol: str = "strict",
    n_resamples: int = 1000, seed: int = 0,
) -> ScoringJob:  # fmt: skip
    return _prepare("sr3d", annotations, predictions, scans, protocol, n_resamples, seed, boxes)


def validate_command(annotations: Path, predictions: Path | None = None, scans: Path | None = None, boxes: Path | None = None) -> None:
    """``scenebench validate nr3d|sr3d``: read every input (errors name file, line, field); print counts."""
    import json

    utterances, _ = truth(Path(annotations), None if scans is None else Path(scans))
    out: dict[str, Any] = {"utterances": len(utterances), "scans": len({u.scan_id for u in utterances})}
    out["not_naming_the_target_class"] = sum(not u.mentions_target_class for u in utterances)
    out[f"longer_than_{MAX_TOKENS}_tokens"] = sum(len(u.tokens) > MAX_TOKENS for u in utterances)
    out["easy"], out["view_dependent"] = sum(u.easy for u in utterances), sum(u.view_dependent for u in utterances)
    if predictions is not None and video3dllm.is_result_file(Path(predictions)):
        out["video3dllm_result_lines"] = len(video3dllm.read_result_file(predictions))
    elif predictions is not None:
        pred_boxes: dict[str, np.ndarray] = {}
        out["predictions"] = len(read_predictions(predictions, utterances, pred_boxes))
        out["predictions_with_a_box"] = len(pred_boxes)
    if boxes is not None:
        tables = {s: scannet.load_minmax_boxes(boxes, s)[0] for s in {u.scan_id for u in utterances}}
        out["targets_without_row"] = sum(u.target_id not in tables[u.scan_id] for u in utterances)
    print(json.dumps(out, indent=2))
