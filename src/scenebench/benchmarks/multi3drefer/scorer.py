"""Score Multi3DRefer box sets: F1@0.25 / F1@0.5, overall and per evaluation type.

Per query (``docs/metrics/multi3drefer_f1.md``): the GT set is the box of each target in
``object_ids``; the prediction is 0…N boxes; ``F1_k = 2 TP_k / (P + G)``, an empty answer to a
zero-target query 1 (:mod:`scenebench.metrics.grounding`). The rules that differ:

- ``strict``: ``TP_k`` = the most pairs with IoU >= k (per threshold); IoU = inter / union; every
  query counts, overall and in its type (no record: 0, ``missing``); a target without a box-table
  row makes the query unscorable (``excluded``, listed).
- ``official:original`` (plain ``official``; M3DRef-CLIP's released evaluator): one Hungarian
  assignment maximising the IoU sum, thresholded afterwards; IoU in float32 with ``+ float32 eps``
  in the denominator; a target without a row is dropped from the GT set; zero-target queries judged
  by ``eval_type``. The overall mean divides by every query (a missing one counts 0) but the
  per-type means read an uninitialised type array for missing queries: here a missing query joins
  no type (group ``no prediction``), the value that array gives when its slots hold no type code.
- ``official:chatscene`` (Chat-Scene's ``calc_multi3dref_score``, copied by GPT4Scene, Inst3D-LMM,
  3D-LLaVA): the same matching on IoU ``inter / (union + 1e-8)`` in float64 stored as float32 (so
  an IoU of exactly 0.5 stays 0.5), averaged over the prediction records only, overall and per type:
  a query without a record is ``excluded``. Chat-Scene turns ``<OBJnnn>`` ids into its proposal
  boxes before this step; scenebench takes the boxes.
- ``official:video3dllm`` (Video-3D-LLM's ``evaluate_one_query``; Ross3D the same): the same matching
  on the same IoU as Chat-Scene (``+ 1e-8``, a float32 matrix), averaged over the prediction records as Chat-Scene;
  zero-target queries are judged by the **box counts**, not ``eval_type``: ``P = G = 0`` scores 1,
  ``P = 0`` or ``G = 0`` (one of them) 0. Video-3D-LLM decodes its boxes from per-proposal scores
  (softmax mass >= 0.4) before this step; scenebench takes the boxes.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.geometry.boxes import iou_matrix_minmax
from scenebench.io.files import file_fingerprint
from scenebench.io.scannet import box_path, by_scene, load_minmax_boxes
from scenebench.metrics.aggregate import Mean
from scenebench.metrics.grounding import FLOAT32_EPS, iou_matrix_eps, set_f1, true_positives
from scenebench.metrics.jobs import ScoringJob, summarize_listing_excluded
from scenebench.metrics.records import SampleScore, Status
from scenebench.protocol import resolve_protocol

from .data import ZERO_TARGET, Query, load_queries
from .predictions import fingerprints, read_predictions
from .spec import LINEAGES

THRESHOLDS = (0.25, 0.5)
SPECS = [
    Mean("F1@0.25", "f1_25", scale=100, description="F1 of the predicted box set at IoU >= 0.25", unit="%"),
    Mean("F1@0.5", "f1_50", scale=100, description="F1 of the predicted box set at IoU >= 0.5", unit="%"),
]
GROUPS = ("eval_type",)
NO_PREDICTION = "no prediction"
NO_ROW = "the scene's box table has no row for a target object_id"
NO_RECORD = "no prediction record (the lineage averages over its prediction records)"
RULES = {
    "strict": {
        "matching": "per threshold, the most one-to-one pairs with IoU >= k",
        "iou": "inter / union, 0 if the union is 0",
        "missing_target_row": f"query excluded ({NO_ROW})",
        "type_denominator": "every query of the type (missing: 0)",
    },
    "official:original": {
        "matching": "one Hungarian assignment maximising the IoU sum (zero-padded square), thresholded afterwards",
        "iou": "float32, inter / (V_gt + V_pred - inter + float32 eps)",
        "missing_target_row": "the target is dropped from the GT set",
        "type_denominator": f"queries of the type with a prediction (a missing query is in group '{NO_PREDICTION}')",
    },
    "official:chatscene": {
        "matching": "one Hungarian assignment maximising the IoU sum (zero-padded square), thresholded afterwards",
        "iou": "inter / (union + 1e-8) in float64, stored as float32",
        "missing_target_row": "the target is dropped from the GT set",
        "type_denominator": "prediction records of the type; overall: every prediction record (a missing query is excluded)",
    },
    "official:video3dllm": {
        "matching": "one Hungarian assignment maximising the IoU sum (zero-padded square), thresholded afterwards",
        "iou": "inter / (union + 1e-8) in float64, stored as float32",
        "zero_target": "by the box counts: P = G = 0 scores 1, P = 0 or G = 0 scores 0 (eval_type not read)",
        "missing_target_row": "the target is dropped from the GT set",
        "type_denominator": "prediction records of the type; overall: every prediction record (a missing query is excluded)",
    },
}


def query_f1(pred: np.ndarray, gt: np.ndarray, zero_target: bool, protocol: str) -> tuple[list[float], list[float]]:
    """(F1 per threshold, best IoU of each GT box) of one query's (P, 6) and (G, 6) min-max boxes."""
    if protocol == "official:video3dllm":
        iou = iou_matrix_eps(pred, gt, 1e-8).astype(np.float32)  # its IoU matrix is float32, as Chat-Scene's
        if len(pred) == 0 or len(gt) == 0:  # by the counts: an empty answer to an empty set is right
            f1 = [float(len(pred) == len(gt))] * len(THRESHOLDS)
        else:
            f1 = [2.0 * tp / (len(pred) + len(gt)) for tp in true_positives(iou, THRESHOLDS, "iou_sum")]
    elif protocol != "strict":
        if protocol == "official:chatscene":
            iou = iou_matrix_eps(pred, gt, 1e-8).astype(np.float32)
        else:
            iou = iou_matrix_eps(pred, gt, FLOAT32_EPS, np.float32)
        if zero_target:
            f1 = [float(len(pred) == 0)] * len(THRESHOLDS)
        elif len(pred) + len(gt) == 0:
            f1 = [0.0] * len(THRESHOLDS)  # (the released code divides by zero here)
        else:
            f1 = [2.0 * tp / (len(pred) + len(gt)) for tp in true_positives(iou, THRESHOLDS, "iou_sum")]
    else:
        iou = iou_matrix_minmax(pred, gt)
        f1 = set_f1(iou, THRESHOLDS, "pairs")
    best = iou.max(0).astype(float).tolist() if iou.size else [0.0] * len(gt)
    return f1, best


class Multi3DReferScorer:
    benchmark = "multi3drefer"

    def __init__(self, queries: list[Query], boxes_dir: Path, preds: dict[str, np.ndarray], protocol: str) -> None:
        self.queries, self.boxes_dir, self.preds, self.protocol = queries, boxes_dir, preds, resolve_protocol(protocol, LINEAGES)

    def sample_ids(self) -> list[str]:
        return [q.sample_id for q in self.queries]

    def iter_scores(self, skip: set[str]) -> Iterator[list[SampleScore]]:
        official = self.protocol != "strict"
        for scene_id, todo in by_scene([q for q in self.queries if q.sample_id not in skip]).items():
            ids, boxes = load_minmax_boxes(self.boxes_dir, scene_id)
            batch = []
            for q in todo:
                rows = np.flatnonzero(np.isin(ids, q.object_ids))  # table order, as np.in1d gives it
                found = np.isin(np.asarray(q.object_ids, dtype=np.int64), ids).all()
                has = q.sample_id in self.preds
                pred = self.preds.get(q.sample_id, np.zeros((0, 6)))
                etype = q.eval_type if has or not official else NO_PREDICTION
                detail: dict[str, Any] = {"description": q.description, "object_ids": list(q.object_ids), "n_pred": len(pred)}
                if not found and not official:
                    batch.append(SampleScore(q.sample_id, scene_id, "excluded", {}, {"eval_type": etype}, {**detail, "reason": NO_ROW}))
                    continue
                if not has and self.protocol in ("official:chatscene", "official:video3dllm"):
                    batch.append(
                        SampleScore(q.sample_id, scene_id, "excluded", {}, {"eval_type": q.eval_type}, {**detail, "reason": NO_RECORD})
                    )
                    continue
                f1, best = query_f1(pred, boxes[rows], q.eval_type in ZERO_TARGET, self.protocol) if has else ([0.0, 0.0], [])
                values = {"f1_25": f1[0], "f1_50": f1[1]}
                status: Status = "scored" if has else "missing"
                batch.append(SampleScore(q.sample_id, scene_id, status, values, {"eval_type": etype}, {**detail, "gt_best_iou": best}))
            yield batch


def make_job(
    queries: list[Query], inputs: dict[str, Any], boxes: Path, predictions: Path, protocol: str, n_resamples: int = 1000, seed: int = 0
) -> ScoringJob:
    """The scoring job over ``queries`` (``score`` and ``run``); ``inputs`` holds the truth's file records."""
    inputs = {**inputs, "boxes_dir": str(boxes), "predictions": fingerprints(predictions, queries)}
    inputs["boxes"] = {sid: file_fingerprint(box_path(boxes, sid)) for sid in by_scene(queries)}
    protocol = resolve_protocol(protocol, LINEAGES)
    settings = {"iou_thresholds": list(THRESHOLDS), "comparison": ">=", **RULES[protocol], "protocols": RULES}
    scorer = Multi3DReferScorer(queries, Path(boxes), read_predictions(predictions, queries), protocol)
    summarize = summarize_listing_excluded(
        "multi3drefer", protocol, SPECS, GROUPS, settings=settings, inputs=inputs, n_resamples=n_resamples, seed=seed
    )

    return ScoringJob("multi3drefer", protocol, scorer, summarize, settings, inputs, label="scoring multi3drefer")


def prepare_scoring(
    *, annotations: Path, boxes: Path, predictions: Path, protocol: str = "strict", n_resamples: int = 1000, seed: int = 0
) -> ScoringJob:
    checked = resolve_protocol(protocol, LINEAGES)
    queries = load_queries(annotations)
    return make_job(queries, {"annotations": file_fingerprint(annotations)}, Path(boxes), Path(predictions), checked, n_resamples, seed)


def validate_command(annotations: Path, boxes: Path, predictions: Path | None = None) -> None:
    """``scenebench validate multi3drefer``: read every input (errors name file, record, field); print counts."""
    import json

    queries = load_queries(annotations)
    scenes = by_scene(queries)
    out: dict[str, Any] = {"queries": len(queries), "scenes": len(scenes)}
    out["by_eval_type"] = {t: sum(q.eval_type == t for q in queries) for t in sorted({q.eval_type for q in queries})}
    missing_rows = 0
    for scene_id, qs in scenes.items():
        ids, _ = load_minmax_boxes(boxes, scene_id)
        missing_rows += sum(not np.isin(np.asarray(q.object_ids, dtype=np.int64), ids).all() for q in qs)
    out["queries_with_a_target_without_row"] = missing_rows
    out["eval_type_disagreeing_with_object_ids"] = sum((q.eval_type in ZERO_TARGET) == bool(q.object_ids) for q in queries)
    if predictions is not None:
        out["predictions"] = len(read_predictions(predictions, queries))
    print(json.dumps(out, indent=2))
