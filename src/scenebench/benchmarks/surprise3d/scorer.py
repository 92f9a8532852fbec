"""Score SURPRISE3D predictions through the shared engine: scene batches, resumable, results.json.

Per sample (see docs/metrics/surprise3d_*.md):

- ground truth: the union of the points whose instance id is in ``object_id``; a sample whose GT
  mask is empty (its targets have no points in the preprocessed scene, e.g. dropped by ScanNet++'s
  top-100-class preprocessing) cannot be scored at either protocol: status ``excluded``, listed in
  ``results.extra.excluded_ids``, counted in ``n_excluded``, in no metric;
- no prediction: IoU 0, A25 = A50 = 0, status ``missing`` (counted in ``n_missing``);
- otherwise ``iou``, ``a25``, ``a50`` from :mod:`scenebench.metrics.segmentation`.

Box predictions are scored as the mask of the points inside the box (the mask metrics, in
``metrics``) and, separately, by the detection protocol (``box_iou``, ``box_a25``, ``box_a50``:
3D IoU with the axis-aligned box of the GT points). The detection metrics live only in
``results.extra.box_detection`` and are printed as their own table, never beside the mask metrics.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.errors import ScenebenchError
from scenebench.io.files import file_fingerprint
from scenebench.metrics.aggregate import Mean
from scenebench.metrics.jobs import JobHooks, ScoringJob
from scenebench.metrics.records import SampleScore, summarize_scores
from scenebench.metrics.segmentation import OFFICIAL_EPS, box_detection, gt_aabbs, official_mean_f32, points_in_boxes, score_scene
from scenebench.protocol import check_protocol
from scenebench.results import ConfidenceIntervals, Counts, Results

from .annotations import Annotations, Sample, load_annotations
from .predictions import DEFAULT_SCORE_THRESHOLD, Prediction, PredictionSet, read_predictions
from .scenes import Scene, ScoringScene, load_scene_for_scoring, scene_path

BENCHMARK = "surprise3d"
GROUPS = ("question_type",)
MASK_METRICS = ["mIoU", "A25", "A50"]
BOX_METRICS = ["box_Acc@0.25", "box_Acc@0.5", "box_mIoU"]
MASK_SPECS = [
    Mean("mIoU", "iou", scale=100, description="mean point-mask IoU over GT samples", unit="%"),
    Mean("A25", "a25", scale=100, description="share of samples with IoU above 0.25 (protocol comparison)", unit="%"),
    Mean("A50", "a50", scale=100, description="share of samples with IoU above 0.5 (protocol comparison)", unit="%"),
]
BOX_SPECS = [
    Mean("box_Acc@0.25", "box_a25", scale=100, description="share of samples whose box IoU with the GT points' AABB is >= 0.25", unit="%"),
    Mean("box_Acc@0.5", "box_a50", scale=100, description="share of samples whose box IoU with the GT points' AABB is >= 0.5", unit="%"),
    Mean("box_mIoU", "box_iou", scale=100, description="mean 3D box IoU with the GT points' AABB", unit="%"),
]
EMPTY_GT_REASON = "empty ground-truth mask: no point of the scene carries any of the sample's object_id"
SAMPLE_ID_RULE = "scene_id:sha256(json([scene_id, sorted(object_ids), description, question_type]))[:12], '#n' for repeats"


def protocol_settings(protocol: str, score_threshold: float) -> dict[str, Any]:
    """What the protocol means for this run, recorded in run.json and results.json."""
    official = protocol == "official"
    return {
        "score_threshold": score_threshold,
        "score_rule": f"a point is predicted when its score >= {score_threshold} (both protocols"
        + (
            "; float32 score vs float32 threshold; logits through float32 torch.sigmoid)"
            if official
            else "; logits through the exact sigmoid)"
        ),
        "iou": (
            f"float32 |P∩G| / (|P∪G| + {OFFICIAL_EPS:g}); mIoU = float32 numpy mean in annotation order"
            if official
            else "|P∩G| / |P∪G|, 0 when the union is empty"
        ),
        "acc_comparison": ">" if official else ">=",
        "acc_thresholds": [0.25, 0.5],
        "empty_gt": "excluded from every metric, counted in n_excluded, listed in extra.excluded_ids",
        "missing_prediction": "IoU 0, A25 = A50 = 0, counted in n_missing",
        "box_as_mask": "points inside the box, boundaries included",
        "box_detection": "3D IoU of the predicted box with the axis-aligned box of the GT points; hit when IoU >= t "
        "(ScanRefer convention at both protocols: SURPRISE3D publishes no box evaluator)",
        "sample_id": SAMPLE_ID_RULE,
    }


def score_scene_samples(
    scene: Scene | ScoringScene, samples: Sequence[Sample], preds: PredictionSet, *, protocol: str
) -> list[SampleScore]:
    """Score the given samples of one scene (all vectorised over the scene's samples)."""
    got: list[Prediction | None] = [preds.by_sample.get(s.sample_id) for s in samples]
    for p in got:
        if p is not None:
            preds.check_scene(p, scene.n_points, scene.scene_id)
    box_rows = [k for k, p in enumerate(got) if p is not None and p.kind == "box"]
    # coordinates only for box predictions (a ScoringScene reads them then)
    box_masks = points_in_boxes(scene.coords, [got[k].box for k in box_rows]) if box_rows else []  # type: ignore[union-attr,misc]
    empty = np.zeros(0, dtype=np.int64)
    masks = [empty if p is None else _or_empty(p.indices, empty) for p in got]  # (packed masks unpack once)
    for k, m in zip(box_rows, box_masks):
        masks[k] = m
    targets = [s.targets for s in samples]
    seg = score_scene(scene.instance_ids, masks, targets, protocol=protocol)  # type: ignore[arg-type]
    det: dict[str, np.ndarray] = {}
    if preds.has_boxes:
        det = {k: np.zeros(len(samples)) for k in ("box_iou", "box_a25", "box_a50")}
        if box_rows:
            gt_boxes = gt_aabbs(scene.coords, scene.instance_ids, [targets[k] for k in box_rows])
            ok = ~np.isnan(gt_boxes).any(axis=1)
            r = box_detection(np.stack([got[k].box for k in box_rows]), np.where(ok[:, None], gt_boxes, 0.0))  # type: ignore[union-attr,misc]
            for name, v in r.items():
                det[name][box_rows] = np.where(ok, v, 0.0)
    # Python numbers of every column at once (indexing numpy arrays per sample cost more than scoring)
    n_gt, n_pred, n_inter = seg["n_gt"].tolist(), seg["n_pred"].tolist(), seg["inter"].tolist()
    iou, a25, a50 = seg["iou"].tolist(), seg["a25"].tolist(), seg["a50"].tolist()
    det_lists = {name: v.tolist() for name, v in det.items()}
    out = []
    for k, (s, p) in enumerate(zip(samples, got)):
        detail: dict[str, Any] = {
            "index": s.index,
            "question": s.description,
            "question_type": s.question_type,
            "object_name": list(s.object_name),
            "object_id": list(s.object_ids),
            "n_gt": n_gt[k],
            "n_pred": n_pred[k],
            "n_inter": n_inter[k],
            "kind": p.kind if p is not None else None,
            "where": p.where if p is not None else None,
        }
        if p is not None and p.kind == "box":
            detail["box"] = p.box.tolist()  # type: ignore[union-attr]
        groups = {"question_type": s.question_type}
        if n_gt[k] == 0:
            detail["reason"] = EMPTY_GT_REASON
            out.append(SampleScore(s.sample_id, s.scene_id, "excluded", {}, groups, detail))
            continue
        values = {"iou": iou[k], "a25": a25[k], "a50": a50[k]}
        for name, v in det_lists.items():
            values[name] = v[k]
        out.append(SampleScore(s.sample_id, s.scene_id, "scored" if p is not None else "missing", values, groups, detail))
    return out


def _or_empty(indices: np.ndarray | None, empty: np.ndarray) -> np.ndarray:
    return empty if indices is None else indices


class Surprise3DScorer:
    """Implements the engine's ``Scorer``: one batch per scene, each scene loaded once.

    Predictions are read lazily, on the first scene that still needs scoring, so re-reporting a
    finished run neither re-reads a large predictions file nor loads any scene.
    """

    benchmark = BENCHMARK

    def __init__(
        self,
        annotations: Annotations,
        scenes_dir: str | Path,
        predictions_path: str | Path,
        *,
        protocol: str = "strict",
        score_threshold: float = DEFAULT_SCORE_THRESHOLD,
        scene_loader: Callable[[str | Path, str], Scene | ScoringScene] = load_scene_for_scoring,
        allow_empty: bool = False,
    ) -> None:
        self.allow_empty = allow_empty  # a run's own file of a model that abstained everywhere: all missing
        self.annotations = annotations
        self.scenes_dir = Path(scenes_dir)
        self.predictions_path = Path(predictions_path)
        self.protocol = protocol
        self.score_threshold = score_threshold
        self.scene_loader = scene_loader
        self._preds: PredictionSet | None = None
        self._released = False  # some scored predictions were dropped (iter_scores)
        self.n_scene_loads = 0
        self.n_samples_scored = 0

    def predictions(self) -> PredictionSet:
        if self._preds is None:
            self._preds = read_predictions(
                self.predictions_path,
                self.annotations,
                score_threshold=self.score_threshold,
                protocol=self.protocol,
                allow_empty=self.allow_empty,
            )
        return self._preds

    def sample_ids(self) -> list[str]:
        return [s.sample_id for s in self.annotations.samples]

    def iter_scores(self, skip: set[str]) -> Iterator[list[SampleScore]]:
        """One batch per scene. A scene's predictions are dropped once its batch is taken, and all of
        them at the end: their memory then holds the records, the store and the results that come after (the peak of a run is at its
        end). Another pass reads the predictions file again."""
        if self._released:
            self._preds, self._released = None, False
        for scene_id, samples in self.annotations.by_scene().items():
            todo = [s for s in samples if s.sample_id not in skip]
            if not todo:
                continue
            preds = self.predictions()
            scene = self.scene_loader(self.scenes_dir, scene_id)
            self.n_scene_loads += 1
            batch = score_scene_samples(scene, todo, preds, protocol=self.protocol)
            self.n_samples_scored += len(batch)
            yield batch
            self._released = True
            for s in todo:
                preds.by_sample.pop(s.sample_id, None)
        self._preds, self._released = None, False  # every batch taken: nothing is left to score


def input_fingerprints(annotations: Annotations, scenes_dir: str | Path, predictions_path: str | Path) -> dict[str, Any]:
    """Checksums of every input: annotation file, predictions file, each scene file used."""
    scenes = {sid: file_fingerprint(scene_path(scenes_dir, sid)) for sid in annotations.scene_ids()}
    return {
        "annotations": file_fingerprint(annotations.path),
        "predictions": file_fingerprint(predictions_path),
        "scenes_dir": str(scenes_dir),
        "scenes": scenes,
    }


def build_results(
    records: Sequence[SampleScore],
    *,
    annotations: Annotations,
    protocol: str,
    settings: dict[str, Any],
    inputs: dict[str, Any],
    n_resamples: int = 1000,
    seed: int = 0,
) -> Results:
    """The results.json of a run: mask metrics in ``metrics``, box detection in ``extra``."""
    summ = summarize_scores(records, MASK_SPECS, groups=GROUPS, n_resamples=n_resamples, seed=seed)
    if protocol == "official":
        _official_f32_miou(summ.metrics, records)
    excluded = [r.sample_id for r in records if r.status == "excluded"]
    kinds = Counter(r.detail.get("kind") or "none" for r in records)
    box_mode = kinds.get("box", 0) > 0
    extra: dict[str, Any] = {
        "excluded_ids": excluded,
        "excluded_reason": EMPTY_GT_REASON,
        "question_types": annotations.question_types(),
        "prediction_kinds": dict(sorted(kinds.items())),
        "masks_from_boxes": box_mode,
        "n_scenes": len(annotations.scene_ids()),
    }
    warnings = []
    if excluded:
        warnings.append(
            f"{len(excluded)} sample(s) have an empty ground-truth mask and are excluded from every metric "
            f"(ids in extra.excluded_ids; first: {', '.join(excluded[:3])})"
        )
    c = summ.counts
    if c.n_missing:
        warnings.append(f"{c.n_missing} sample(s) have no prediction and score IoU 0")
    if box_mode:
        warnings.append("box predictions: mask metrics use the points inside each box; box detection is a separate table")
        bsum = summarize_scores(records, BOX_SPECS, groups=GROUPS, n_resamples=n_resamples, seed=seed)
        extra["box_detection"] = {
            "definition": settings["box_detection"],
            "metrics": bsum.metrics,
            "confidence_intervals": bsum.intervals.model_dump(mode="json"),
            "metric_info": bsum.metric_info,
        }
    return summ.to_results(BENCHMARK, protocol, settings=settings, inputs=inputs, warnings=warnings, extra=extra)


def _official_f32_miou(metrics: dict[str, Any], records: Sequence[SampleScore]) -> None:
    """Replace the mIoU point values by the released arithmetic: a float32 numpy mean of the float32
    IoUs in annotation-file order (the released ``after_evaluation``); per question type the same rule."""
    used = sorted((r for r in records if r.status != "excluded"), key=lambda r: r.detail.get("index", 0))
    if "mIoU" in metrics.get("overall", {}) and used:
        metrics["overall"]["mIoU"] = 100 * official_mean_f32(np.array([r.values["iou"] for r in used]))
    for g in GROUPS:
        block = metrics.get(f"by_{g}", {})
        for v, m in block.items():
            ious = [r.values["iou"] for r in used if str(r.groups.get(g, "unknown")) == v]
            if ious and "mIoU" in m:
                m["mIoU"] = 100 * official_mean_f32(np.array(ious))


def box_detection_results(res: Results) -> Results | None:
    """The box-detection block of ``res`` as its own :class:`Results`, for a separate table."""
    block = res.extra.get("box_detection")
    if not block:
        return None
    return Results(
        benchmark=res.benchmark,
        protocol=res.protocol,
        metrics=block["metrics"],
        confidence_intervals=ConfidenceIntervals.model_validate(block["confidence_intervals"]),
        counts=Counts.model_validate(res.counts.model_dump()),
        counts_by_group=res.counts_by_group,
        metric_info=block["metric_info"],
        settings=res.settings,
        inputs=res.inputs,
    )


def prepare_scoring(
    *,
    annotations: str | Path,
    scenes: str | Path,
    predictions: str | Path,
    protocol: str = "strict",
    score_threshold: float = DEFAULT_SCORE_THRESHOLD,
    n_resamples: int = 1000,
    seed: int = 0,
    scorer_hook: Callable[[Surprise3DScorer], None] | None = None,
) -> ScoringJob:
    """The SURPRISE3D scoring job for the shared driver (:func:`scenebench.runtime.scoring.score_benchmark`)."""
    checked = check_protocol(protocol)
    if not 0.0 <= score_threshold <= 1.0:
        raise ScenebenchError(f"--score-threshold {score_threshold} is outside [0, 1]")
    ann = load_annotations(annotations)
    inputs = input_fingerprints(ann, scenes, predictions)
    settings = protocol_settings(checked, score_threshold)
    scorer = Surprise3DScorer(ann, scenes, predictions, protocol=checked, score_threshold=score_threshold)

    def summarize(records: list[SampleScore], run: Any) -> Results:
        return build_results(
            records, annotations=ann, protocol=checked, settings=settings, inputs=inputs, n_resamples=n_resamples, seed=seed
        )

    hooks = JobHooks(check_inputs=scorer.predictions, on_open=scorer_hook)  # type: ignore[arg-type]
    return ScoringJob(BENCHMARK, checked, scorer, summarize, settings, inputs, label="scoring surprise3d", hooks=hooks)
