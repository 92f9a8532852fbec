"""``scenebench audit`` on 3DBench: every probe through the runner, per task against chance."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scenebench.benchmarks.base import AUDIT_PROBES as PROBES


def _num(v: Any) -> float | None:
    return None if v is None else float(v)


# the headline metric of each task in results.json (metrics.by_task.<task>)
TASK_METRIC = {
    "classification": "accuracy",
    "counting": "accuracy",
    "position_relation": "accuracy",
    "detection": "f1",
    "visual_grounding": "acc_iou25",
    "visual_grounding_plus": "within_1m",
    "room_detection": "f1",
    "navigation": "success",
    "object_caption": "bleu4_py",
    "object_conversation": "bleu4_py",
    "scene_caption": "bleu4_py",
    "scene_qa": "bleu4_py",
    "relation": "bleu4_py",
}


def rows(root: Path, out: Path, *, seed: int, split: str, progress: bool) -> list[dict[str, Any]]:
    """The audit rows of a 3DBench folder: per task, every probe on its headline metric (``split``: unused)."""
    from scenebench.models.sources.base import make_source
    from scenebench.runtime.runner import run_benchmark

    train = root / "train"
    source = make_source("3dbench", data=str(root), train=str(train) if train.is_dir() else None)
    samples = source.samples()
    chance: dict[str, float] = {}
    for task in sorted({s.task for s in samples}):
        opts = [len(s.options) for s in samples if s.task == task and s.options]
        if opts:
            chance[task] = 100.0 * sum(1.0 / k for k in opts) / len(opts)
    scores: dict[str, dict[str, dict[str, Any]]] = {}
    for probe, model in PROBES.items():
        res = run_benchmark(source, model, out / "3dbench" / probe, seed=seed, progress=progress).results
        scores[probe] = res.metrics.get("by_task", {})
    rows = []
    for task in sorted(scores["oracle"]):
        block = scores["oracle"][task]
        metric = _task_metric(task, block)
        if metric is None:
            continue
        row = {"benchmark": "3dbench", "task": task, "group": "all", "metric": metric, "chance": chance.get(task), "n": None}
        for probe in PROBES:
            row[probe] = _num(scores[probe].get(task, {}).get(metric))
        if row["chance"] is None:
            row["chance"] = row["random"]
        rows.append(row)
    return rows


def _task_metric(task: str, block: dict[str, Any]) -> str | None:
    want = TASK_METRIC.get(task)
    if want and want in block:
        return want
    for k in ("accuracy", "bleu4_py", "f1", "success", "mIoU"):
        if k in block:
            return k
    numeric = [k for k, v in block.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return numeric[0] if numeric else None
