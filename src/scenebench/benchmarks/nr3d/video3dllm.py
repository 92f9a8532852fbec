"""Video-3D-LLM's own Nr3D result file, scored as its ``llava/eval/eval_nr3d.py:24-48`` scores it
(LaVi-Lab/Video-3D-LLM @ 3ff70e8; ``docs/metrics/nr3d_accuracy.md``).

A JSONL file, one object a line, every line one sample (no dedupe, no filter: the test set is the
file's lines), each with ``gt_response`` and ``pred_response`` (``[cx, cy, cz, dx, dy, dz]``, an
axis-aligned box by centre and size) and ``question_type`` (a string). The file carries its own
ground truth: the target box is the line's ``gt_response``. Per line the IoU of the two boxes
(min / max of their 8 corners, ``inter / (V1 + V2 - inter + 1e-8)`` in float64: its ``box3d_iou``)
is right at k when ``>= k``, k = 0.25, 0.5. Groups by substring of ``question_type``: ``"easy"``
else hard, ``"view-dep"`` else view-independent (the evaluator labels that ``vide-indep``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.errors import InputError
from scenebench.io.files import file_fingerprint, iter_jsonl
from scenebench.metrics.jobs import ScoringJob
from scenebench.metrics.records import SampleScore, summarize_scores

PRED, GT, TYPE = "pred_response", "gt_response", "question_type"
EPS = 1e-8  # box3d_iou's
GROUP_VALUES = {"difficulty": ("easy", "hard"), "view": ("view_dependent", "view_independent")}
RULES = {
    "test_set": "every line of Video-3D-LLM's result JSONL (no dedupe, no filter)",
    "truth": "the line's gt_response (the file carries its own ground truth)",
    "correct": "Acc@k: IoU (float64, inter / (V1 + V2 - inter + 1e-8)) of pred_response's box with gt_response's box >= k, k = 0.25, 0.5",
    "groups": "'easy' in question_type else hard; 'view-dep' in question_type else view-independent (labelled 'vide-indep' there)",
}


def is_result_file(path: Path) -> bool:
    """Whether ``path`` looks like Video-3D-LLM's result JSONL: its first non-blank line is a JSON
    object holding ``pred_response`` or ``gt_response``. Anything else (a JSON list, another record
    layout, unreadable text) is left to the usual predictions reader and its errors."""
    try:
        with open(path, "rb") as fh:
            for raw in fh:
                if raw.strip():
                    first = json.loads(raw)
                    return isinstance(first, dict) and (PRED in first or GT in first)
    except (OSError, ValueError):
        return False
    return False


@dataclass(frozen=True)
class ResultLine:
    line: int
    gt: tuple[float, ...]
    pred: tuple[float, ...]
    question_type: str
    sample_id: Any  # the line's own sample_id / scene, when it has them (reported, not keyed on)
    scene: str


def _box(value: object, p: Path, where: str, field: str) -> tuple[float, ...]:
    def number(v: object) -> bool:
        return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)

    if not (isinstance(value, list) and len(value) == 6 and all(number(v) for v in value)):
        raise InputError(p, f"{value!r} is not a list of 6 finite numbers", where=where, field=field, expected="[cx, cy, cz, dx, dy, dz]")
    return tuple(float(v) for v in value)


def read_result_file(path: str | Path) -> list[ResultLine]:
    p = Path(path)
    out = []
    for n, rec in iter_jsonl(p):
        where = f"line {n}"
        for key in (GT, PRED, TYPE):
            if key not in rec:
                raise InputError(p, "missing (Video-3D-LLM's result JSONL)", where=where, field=key)
        if not isinstance(rec[TYPE], str):
            raise InputError(p, f"{rec[TYPE]!r} is not a string", where=where, field=TYPE)
        scene = rec.get("scene", rec.get("scene_id", rec.get("scan_id")))
        out.append(ResultLine(n, _box(rec[GT], p, where, GT), _box(rec[PRED], p, where, PRED), rec[TYPE], rec.get("sample_id"),
                              scene if isinstance(scene, str) else ""))  # fmt: skip
    return out


def minmax(boxes: np.ndarray) -> np.ndarray:
    """(N, 6) min-max boxes of (N, 6) centre-size boxes: the min / max of the 8 corners ``c ± d / 2``
    (a negative size spans the same corners as its absolute value)."""
    c, half = boxes[:, :3], boxes[:, 3:] / 2
    a, b = c - half, c + half
    return np.concatenate([np.minimum(a, b), np.maximum(a, b)], axis=1)


def paired_iou(pred: np.ndarray, gt: np.ndarray) -> np.ndarray:
    """(N,) IoU of paired (N, 6) min-max boxes, ``inter / (V_pred + V_gt - inter + 1e-8)`` (float64)."""
    d = np.clip(np.minimum(pred[:, 3:], gt[:, 3:]) - np.maximum(pred[:, :3], gt[:, :3]), 0, None)
    inter = d[:, 0] * d[:, 1] * d[:, 2]
    sp, sg = pred[:, 3:] - pred[:, :3], gt[:, 3:] - gt[:, :3]
    return np.asarray(inter / (sp[:, 0] * sp[:, 1] * sp[:, 2] + sg[:, 0] * sg[:, 1] * sg[:, 2] - inter + EPS))


def groups_of(question_type: str) -> dict[str, str]:
    return {
        "difficulty": "easy" if "easy" in question_type else "hard",
        "view": "view_dependent" if "view-dep" in question_type else "view_independent",
    }


class ResultFileScorer:
    """Scores the lines of a Video-3D-LLM result file; sample ids are ``line N`` (lines may repeat a sample)."""

    def __init__(self, benchmark: str, lines: list[ResultLine], thresholds: dict[str, float]) -> None:
        self.benchmark, self.protocol, self.lines, self.thresholds = benchmark, "official:video3dllm", lines, thresholds

    def sample_ids(self) -> list[str]:
        return [f"line {x.line}" for x in self.lines]

    def iter_scores(self, skip: set[str]) -> Iterator[list[SampleScore]]:
        todo = [x for x in self.lines if f"line {x.line}" not in skip]
        if not todo:
            return
        iou = paired_iou(minmax(np.array([x.pred for x in todo])), minmax(np.array([x.gt for x in todo])))
        batch = []
        for x, v in zip(todo, iou):
            values = {f: float(v >= k) for f, k in self.thresholds.items()}
            detail = {"question_type": x.question_type, "iou": float(v), "gt_response": list(x.gt), "pred_response": list(x.pred)}
            if x.sample_id is not None:
                detail["sample_id"] = x.sample_id
            batch.append(SampleScore(f"line {x.line}", x.scene, "scored", values, groups_of(x.question_type), detail))
        yield batch


def make_result_file_job(
    benchmark: str, predictions: Path, specs: list[Any], thresholds: dict[str, float], settings: dict[str, Any],
    inputs: dict[str, Any], n_resamples: int, seed: int, warnings: list[str],
) -> ScoringJob:  # fmt: skip
    lines = read_result_file(predictions)
    inputs = {**inputs, "predictions": file_fingerprint(predictions)}
    settings = {**settings, **RULES, "predictions_format": "Video-3D-LLM result JSONL (eval_nr3d.py)"}
    scorer = ResultFileScorer(benchmark, lines, thresholds)
    names = [s.name for s in specs]

    def summarize(records: list[SampleScore], run: Any) -> Any:
        s = summarize_scores(records, specs, groups=tuple(GROUP_VALUES), n_resamples=n_resamples, seed=seed)
        notes = list(warnings)
        for group, values in GROUP_VALUES.items():
            table = s.metrics.setdefault(f"by_{group}", {})
            for value in values:
                if value not in table:  # the evaluator's np.mean([]) is nan: reported as null
                    table[value] = dict.fromkeys(names)
                    notes.append(f"no line of {predictions.name} is {value.replace('_', '-')}: its Acc@k is null (nan in eval_nr3d.py)")
        extra = {"ground_truth": "the result file's own gt_response boxes", "predictions_format": "video3dllm_jsonl", "excluded_ids": []}
        return s.to_results(benchmark, "official:video3dllm", settings=settings, inputs=inputs, warnings=notes, extra=extra)

    return ScoringJob(benchmark, "official:video3dllm", scorer, summarize, settings, inputs, label=f"scoring {benchmark}")
