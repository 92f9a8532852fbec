"""Score ScanRefer box predictions: Acc@0.25 / Acc@0.5, overall and unique / multiple.

Per sample (docs/metrics/scanrefer_acc_iou.md, scanrefer_unique_multiple.md): the GT box is the
row of the scene's box table whose last column is the sample's ``object_id``; IoU of axis-aligned
boxes; a hit when IoU >= 0.25 (0.5). No prediction: status ``missing``.

- ``official`` (the released ``lib/dataset.py`` + ``box3d_iou``, and ``benchmark/eval.py``): the row
  is looked up among the first ``MAX_NUM_OBJ`` = 128 rows only, else row 0 stands in (the all-zero
  ``ref_box_label``'s argmax); IoU = inter / (union + 1e-8); Acc averages over the **submitted**
  predictions (eval.py loops over ``pred.json``): a missing sample enters no metric (counted in
  ``n_missing``, named in a warning).
- ``strict``: the true row; a sample whose object has no row cannot be scored (``excluded``,
  listed in ``extra.excluded_ids``); IoU = inter / union, 0 when the union is empty; a missing
  prediction is IoU 0 (a miss).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.geometry.boxes import center_size_to_minmax, iou_minmax, volume_minmax
from scenebench.io.files import file_fingerprint
from scenebench.io.scannet import by_scene
from scenebench.metrics.aggregate import Mean
from scenebench.metrics.jobs import ScoringJob
from scenebench.metrics.records import SampleScore, summarize_scores
from scenebench.protocol import check_protocol
from scenebench.results import Results

from .data import MAX_NUM_OBJ, Sample, box_path, load_annotations, load_boxes, read_raw2label
from .predictions import read_predictions

SPECS = [
    Mean("Acc@0.25", "acc25", scale=100, description="share of descriptions whose box IoU >= 0.25", unit="%"),
    Mean("Acc@0.5", "acc50", scale=100, description="share of descriptions whose box IoU >= 0.5", unit="%"),
]
GROUPS = ("unique_multiple",)
NO_ROW = "the scene's box table has no row for this object_id"
RULES = {
    "official": {
        "gt_row": f"first {MAX_NUM_OBJ} rows of the box table only; an object not among them is compared with row 0",
        "iou": "inter / (vol_pred + vol_gt - inter + 1e-8)",
        "missing_prediction": "left out: Acc averages over the submitted predictions (released benchmark/eval.py)",
    },
    "strict": {
        "gt_row": f"the row of the object_id anywhere in the table; no row: excluded ({NO_ROW})",
        "iou": "inter / union, 0 if the union is 0",
        "missing_prediction": "IoU 0",
    },
}


def gt_boxes(table: np.ndarray, object_ids: np.ndarray, protocol: str) -> tuple[np.ndarray, np.ndarray]:
    """(n, 6) min-max GT boxes of ``object_ids`` and (n,) whether each has a row (see module doc)."""
    rows = table[:MAX_NUM_OBJ] if protocol == "official" else table
    match = rows[:, 7].astype(np.int64)[None, :] == object_ids[:, None]
    found = match.any(1)
    idx = match.argmax(1)  # no match: argmax of all-False is row 0, the released quirk
    boxes = center_size_to_minmax(rows[idx, :6]) if len(rows) else np.zeros((len(object_ids), 6))
    return boxes, found


def box_iou(pred: np.ndarray, gt: np.ndarray, protocol: str) -> np.ndarray:
    if protocol != "official":
        return np.asarray(iou_minmax(pred, gt))
    inter = np.prod(np.clip(np.minimum(pred[:, 3:], gt[:, 3:]) - np.maximum(pred[:, :3], gt[:, :3]), 0.0, None), axis=1)
    return np.asarray(inter / (volume_minmax(pred) + volume_minmax(gt) - inter + 1e-8))


class ScanReferScorer:
    benchmark = "scanrefer"

    def __init__(self, samples: list[Sample], boxes_dir: Path, preds: dict[str, np.ndarray], protocol: str) -> None:
        self.samples, self.boxes_dir, self.preds, self.protocol = samples, boxes_dir, preds, protocol

    def sample_ids(self) -> list[str]:
        return [s.sample_id for s in self.samples]

    def iter_scores(self, skip: set[str]) -> Iterator[list[SampleScore]]:
        for scene_id, todo in by_scene([s for s in self.samples if s.sample_id not in skip]).items():
            gt, found = gt_boxes(load_boxes(self.boxes_dir, scene_id), np.array([s.object_id for s in todo]), self.protocol)
            has = np.array([s.sample_id in self.preds for s in todo])
            pred = np.stack([self.preds.get(s.sample_id, np.zeros(6)) for s in todo])
            iou = np.where(has, box_iou(pred, gt, self.protocol), 0.0)
            keep = found | (self.protocol == "official")
            batch = []
            for s, v, h, k in zip(todo, iou.tolist(), has.tolist(), keep.tolist()):
                detail = {"description": s.description, "object_name": s.object_name, "iou": v}
                groups = {"unique_multiple": "unique" if s.unique else "multiple"}
                if not k:
                    batch.append(SampleScore(s.sample_id, scene_id, "excluded", {}, groups, {**detail, "reason": NO_ROW}))
                    continue
                # official: a sample without a prediction enters no mean (the released eval.py averages over pred.json)
                values = {"acc25": float(v >= 0.25), "acc50": float(v >= 0.5)} if h or self.protocol != "official" else {}
                batch.append(SampleScore(s.sample_id, scene_id, "scored" if h else "missing", values, groups, detail))
            yield batch


def make_job(
    samples: list[Sample], inputs: dict[str, Any], boxes: Path, predictions: Path, protocol: str, n_resamples: int = 1000, seed: int = 0
) -> ScoringJob:
    """The scoring job over ``samples`` (``score`` and ``run``); ``inputs`` holds the truth's file records."""
    inputs = {**inputs, "boxes_dir": str(boxes), "predictions": file_fingerprint(predictions)}
    inputs["boxes"] = {sid: file_fingerprint(box_path(boxes, sid)) for sid in by_scene(samples)}
    settings = {"iou_thresholds": [0.25, 0.5], "comparison": ">=", **RULES[protocol], "protocols": RULES}
    scorer = ScanReferScorer(samples, Path(boxes), read_predictions(predictions, samples), protocol)

    def summarize(records: list[SampleScore], run: Any) -> Results:
        s = summarize_scores(records, SPECS, groups=GROUPS, n_resamples=n_resamples, seed=seed)
        excluded = [r.sample_id for r in records if r.status == "excluded"]
        warnings = []
        if protocol == "official" and s.counts.n_missing:
            warnings.append(
                f"official: {s.counts.n_missing} of {s.counts.n_samples} descriptions have no prediction and are left out of Acc "
                "(the released benchmark/eval.py averages over the submitted predictions); strict counts them as misses"
            )
        return s.to_results("scanrefer", protocol, settings=settings, inputs=inputs, warnings=warnings, extra={"excluded_ids": excluded})

    return ScoringJob("scanrefer", protocol, scorer, summarize, settings, inputs, label="scoring scanrefer")


def truth_files(annotations: str | Path, labels: str | Path) -> tuple[list[Sample], dict[str, Any]]:
    samples = load_annotations(annotations, read_raw2label(labels))
    return samples, {"annotations": file_fingerprint(annotations), "labels": file_fingerprint(labels)}


def prepare_scoring(
    *, annotations: Path, boxes: Path, labels: Path, predictions: Path, protocol: str = "strict", n_resamples: int = 1000, seed: int = 0
) -> ScoringJob:
    checked = check_protocol(protocol)
    samples, inputs = truth_files(annotations, labels)
    return make_job(samples, inputs, Path(boxes), Path(predictions), checked, n_resamples, seed)


def validate_command(annotations: Path, boxes: Path, labels: Path, predictions: Path | None = None) -> None:
    """``scenebench validate scanrefer``: read every input (errors name file, record, field); print counts."""
    import json

    samples, _ = truth_files(annotations, labels)
    scenes = by_scene(samples)
    out = {"samples": len(samples), "scenes": len(scenes), "unique": sum(s.unique for s in samples)}
    out["objects_without_row"] = sum(
        int((~gt_boxes(load_boxes(boxes, k), np.array([s.object_id for s in v]), "strict")[1]).sum()) for k, v in scenes.items()
    )
    if predictions is not None:
        out["predictions"] = len(read_predictions(predictions, samples))
    print(json.dumps(out, indent=2))
