"""3DBench views and texts: the question, the right answer and the model's answer for every sample,
and for visual tasks the point cloud (y up) with ground truth and the parsed prediction overlaid:
grounding boxes, detection and room boxes with labels, navigation paths (GT and predicted
waypoints drawn at floor height), the grounding-plus point.

The score records of 3DBench keep numbers, not texts, so the texts are read back from the run's
inputs (task files and answers file, checksums verified) with the benchmark's own loaders and
parsers — the same parse that produced the score.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import numpy as np

from scenebench.benchmarks.bench3d.choice import circular_id
from scenebench.benchmarks.bench3d.loader import load_bench
from scenebench.benchmarks.bench3d.parsing import parse_box_spans, parse_boxes, parse_point, parse_waypoints
from scenebench.benchmarks.bench3d.predictions import read_answers
from scenebench.benchmarks.bench3d.records import Record
from scenebench.benchmarks.bench3d.tasks import TASKS
from scenebench.errors import InputError, ScenebenchError
from scenebench.geometry.boxes import center_size_to_minmax, room_box_to_center_size
from scenebench.io.arrays import load_npy
from scenebench.io.files import to_plain
from scenebench.protocol import Protocol
from scenebench.report import viewer as vw
from scenebench.report.runs import LoadedRun
from scenebench.report.views import ViewOptions, ViewSet, checked_input, run_inputs

FLOOR_LIFT = 0.05  # metres above the floor, so paths are not hidden in it


def answer_text(rec: Record) -> Any:
    """The right answer of a record, as a reader would want to see it."""
    gt = rec.gt
    kind = TASKS[rec.task].kind
    if kind == "choice":
        return f"({chr(65 + gt['answer'])}) {gt['choices'][gt['answer']]}"
    if kind in ("grounding", "grounding_plus"):
        return {"box [cx, cy, cz, dx, dy, dz]": to_plain(gt["box"]), **({"name": gt["name"]} if gt.get("name") else {})}
    if kind in ("detection", "room_detection"):
        return [{"label": lab, "box": to_plain(b)} for lab, b in zip(gt["labels"], gt["boxes"])]
    if kind == "navigation":
        return {"positions [x, z]": to_plain(gt["positions"]), **({"target": gt["target"]} if gt.get("target") else {})}
    return gt.get("references")


def _prediction(answers: Any, rec: Record, circular: bool) -> Any:
    if circular and TASKS[rec.task].kind == "choice":
        texts = {f"rotation {k}": answers.get(circular_id(rec.key, k)) for k in range(len(rec.gt["choices"]))}
        return {k: v for k, v in texts.items() if v is not None} or None
    return answers.get(rec.key)


def _cloud(root: Path, rel: str, cache: dict[str, np.ndarray]) -> np.ndarray:
    if rel not in cache:
        path = (root / rel).resolve()
        if root.resolve() not in path.parents:
            raise InputError(root, f"point cloud {rel} lies outside the benchmark folder", field="pcl")
        arr = load_npy(path)
        if arr.ndim != 2 or arr.shape[1] < 3:
            raise InputError(path, f"shape {arr.shape}", field="pcl", expected="(N, 6) xyz+rgb")
        cache[rel] = arr
    return cache[rel]


def overlay_layers(rec: Record, text: str | None, protocol: Protocol, floor_y: float) -> list[dict[str, Any]]:
    """GT and parsed-prediction geometry of one record, in the benchmark's y-up frame."""
    kind = TASKS[rec.task].kind
    gt = rec.gt
    layers: list[dict[str, Any]] = []
    if kind in ("grounding", "grounding_plus"):
        layers.append(vw.box_layer("GT box" + (f" ({gt['name']})" if gt.get("name") else ""), center_size_to_minmax(gt["box"]), vw.GT))
        if text is not None and kind == "grounding":
            for j, b in enumerate(parse_boxes(text, protocol)):
                layers.append(vw.box_layer(f"predicted box {j + 1}", center_size_to_minmax(np.asarray(b)), vw.PRED, dashed=True))
        if text is not None and kind == "grounding_plus" and (pt := parse_point(text, protocol)) is not None:
            layers.append(vw.path_layer("predicted point", np.asarray([pt], float), vw.PRED, dashed=True))
    elif kind in ("detection", "room_detection"):
        rooms = kind == "room_detection"
        boxes = np.asarray(gt["boxes"], float).reshape(-1, 6)
        if rooms:
            boxes = room_box_to_center_size(boxes)
        for lab, box in zip(gt["labels"], boxes):
            layers.append(vw.box_layer(f"GT {lab}", center_size_to_minmax(box), vw.GT))
        if text is not None:
            spans = parse_box_spans(text, protocol)
            pred = np.asarray([s.values for s in spans], float).reshape(-1, 6)
            if rooms:
                pred = room_box_to_center_size(pred)
            for j, box in enumerate(pred):
                layers.append(vw.box_layer(f"predicted box {j + 1}", center_size_to_minmax(box), vw.PRED, dashed=True))
    elif kind == "navigation":

        def lift(xz: Any) -> np.ndarray:
            a = np.asarray(xz, float).reshape(-1, 2)
            return np.c_[a[:, 0], np.full(len(a), floor_y), a[:, 1]]

        layers.append(vw.path_layer("GT path", lift(gt["positions"]), vw.GT))
        if gt.get("start") is not None:
            layers.append(vw.path_layer("start", lift(gt["start"]), vw.EXTRA))
        if text is not None and (pts := parse_waypoints(text, protocol)):
            layers.append(vw.path_layer("predicted path", lift(pts), vw.PRED, dashed=True))
    return layers


def build_views(run: LoadedRun, sample_ids: list[str], opts: ViewOptions) -> ViewSet:
    inputs = run_inputs(run)
    files = {k.split(":", 1)[1]: checked_input(v, f"{k.split(':', 1)[1]} task file") for k, v in inputs.items() if k.startswith("task:")}
    if not files:
        raise ScenebenchError("the run records no 3DBench task files")
    roots = {p.parent for p in files.values()}
    if len(roots) != 1:
        raise ScenebenchError(f"the run's task files are in {len(roots)} folders; expected one benchmark folder")
    root = roots.pop()
    settings = run.results.settings
    bench = load_bench(root, list(files), houses=settings.get("houses"), objects_gt=settings.get("objects_gt"))
    if settings.get("limit"):
        bench.records = {t: rs[: int(settings["limit"])] for t, rs in bench.records.items()}
    circular = bool(settings.get("circular", False))
    answers = read_answers(checked_input(inputs.get("predictions"), "answers"), bench, circular=circular, allow_missing=True)
    want = set(sample_ids)
    vs = ViewSet()
    cache: dict[str, np.ndarray] = {}
    for rec in bench.all_records():
        pred = _prediction(answers, rec, circular)
        d: dict[str, Any] = {"question": rec.query, "answer": answer_text(rec), "prediction": pred}
        if TASKS[rec.task].kind == "choice":
            d["options"] = [f"({chr(65 + i)}) {c}" for i, c in enumerate(rec.gt["choices"])]
        vs.details[rec.key] = d
        if rec.key not in want:
            continue
        arr = _cloud(root, rec.pcl, cache)
        key = f"3dbench:{rec.pcl}"
        if key not in vs.scenes:
            colors = arr[:, 3:6] if arr.shape[1] >= 6 else None
            vs.scenes[key] = vw.scene_payload(arr[:, :3], colors, up="y", key=key, max_points=opts.max_scene_points, seed=opts.seed)
        # 2nd percentile, not the minimum: a few stray points below the floor must not sink the paths
        floor_y = float(np.nanpercentile(arr[:, 1], 2)) + FLOOR_LIFT if len(arr) else 0.0
        text = pred if isinstance(pred, str) else None
        layers = overlay_layers(rec, text, cast(Protocol, run.protocol), floor_y)
        note = f"{rec.task.replace('_', ' ')}: {len(arr)} points" + ("" if text is not None or pred else "; no answer")
        vs.views[rec.key] = {"scene": key, "layers": layers, "note": note}
    return vs
