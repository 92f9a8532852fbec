"""SURPRISE3D views: the scene's points with the GT mask and the predicted mask (or box) overlaid,
and the objects the question names (anchors) outlined and labelled.

Reads the run's own inputs (annotations, predictions, scene files; checksums verified) with the
benchmark's loaders. Masks are split into agreement / missed / wrongly added points; a box
prediction also shows its box and the axis-aligned box of the GT points it was compared with.

Anchors: the scene's instance labels come from the ScanNet++ ``segments_anno.json`` files the run
recorded (``inputs.labels``, checksums verified), else from ``scannetpp/`` next to the annotation
file. An instance is an anchor when its label, with spaces and punctuation removed, equals one
to three consecutive words of the question joined together (``coffeemachine`` matches "the coffee
machine", ``chair`` matches "chairs"), and it is not a target. Without label files no anchor is drawn
and the view says so.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.benchmarks.surprise3d.annotations import load_annotations
from scenebench.benchmarks.surprise3d.predictions import DEFAULT_SCORE_THRESHOLD, read_predictions
from scenebench.benchmarks.surprise3d.scenes import load_scene
from scenebench.errors import ScenebenchError
from scenebench.geometry.boxes import points_aabb, points_in_minmax
from scenebench.report import viewer as vw
from scenebench.report.runs import LoadedRun
from scenebench.report.views import ViewOptions, ViewSet, checked_input, run_inputs

MAX_ANCHORS = 12  # instances outlined per sample (a question naming "chair" in a room of 30 chairs)
GENERIC_LABELS = frozenset({"object", "objects", "thing", "item", "unknown", "remove", "split"})


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def question_terms(question: str) -> set[str]:
    """One to three consecutive words of the question joined, each also without a plural 's'/'es'."""
    words = re.findall(r"[a-z0-9]+", question.lower())
    out: set[str] = set()
    for n in (1, 2, 3):
        for i in range(len(words) - n + 1):
            t = "".join(words[i : i + n])
            out.add(t)
            for suffix in ("es", "s"):
                if t.endswith(suffix) and len(t) > len(suffix) + 2:
                    out.add(t[: -len(suffix)])
    return out


def find_anchors(question: str, labels: dict[int, str], targets: set[int]) -> list[tuple[int, str]]:
    """(instance id, label) of the objects the question names, in instance order (see module doc)."""
    terms = question_terms(question)
    return [(i, lab) for i, lab in sorted(labels.items()) if i not in targets and _norm(lab) not in GENERIC_LABELS and _norm(lab) in terms]


def scene_labels(inputs: dict[str, Any], ann_path: Path, scene_id: str) -> dict[int, str] | None:
    """Instance labels of a scene: from the label files the run recorded, else ``scannetpp/`` beside
    the annotations; ``None`` when there are none."""
    from scenebench.benchmarks.surprise3d.source import LABELS_FOLDER, labels_file, read_segments_labels

    recorded = inputs.get("labels")
    if isinstance(recorded, dict) and scene_id in recorded:
        path = checked_input(recorded[scene_id], f"labels of scene {scene_id}")
        return (
            read_segments_labels(path.parent, scene_id)
            if path.name == f"{scene_id}.json"
            else read_segments_labels(path.parents[2], scene_id)
        )
    guess = ann_path.parent / LABELS_FOLDER
    if guess.is_dir() and labels_file(guess, scene_id) is not None:
        return read_segments_labels(guess, scene_id)
    return None


def build_views(run: LoadedRun, sample_ids: list[str], opts: ViewOptions) -> ViewSet:
    inputs = run_inputs(run)
    ann_path = checked_input(inputs.get("annotations"), "annotations")
    ann = load_annotations(ann_path)
    threshold = float(run.results.settings.get("score_threshold", DEFAULT_SCORE_THRESHOLD))
    preds = read_predictions(
        checked_input(inputs.get("predictions"), "predictions"), ann, score_threshold=threshold, protocol=run.results.protocol
    )
    scenes_dir = Path(inputs.get("scenes_dir", ""))
    scene_sums = inputs.get("scenes") or {}
    want = set(sample_ids)
    vs = ViewSet()
    for scene_id, samples in ann.by_scene().items():
        todo = [s for s in samples if s.sample_id in want]
        if not todo:
            continue
        entry = scene_sums.get(scene_id)
        if entry is None:
            raise ScenebenchError(f"the run does not record a checksum for scene {scene_id}")
        checked_input(entry, f"scene {scene_id}")
        scene = load_scene(scenes_dir, scene_id)
        key = f"surprise3d:{scene_id}:{str(entry.get('sha256', ''))[:12]}"
        vs.scenes[key] = vw.scene_payload(scene.coords, scene.colors, up="z", key=key, max_points=opts.max_scene_points, seed=opts.seed)
        n = scene.n_points
        labels = scene_labels(inputs, ann_path, scene_id)
        for s in todo:
            gt = np.isin(scene.instance_ids, s.targets)
            p = preds.by_sample.get(s.sample_id)
            pred = None
            if p is not None and p.kind == "box":
                pred = points_in_minmax(scene.coords, p.box)  # type: ignore[arg-type]  # a box prediction has its box
            elif p is not None and p.indices is not None:
                pred = np.zeros(n, dtype=bool)
                pred[p.indices[p.indices < n]] = True
            layers = vw.mask_layers(scene.coords, gt, pred, key=f"{key}/{s.sample_id}", max_points=opts.max_layer_points, seed=opts.seed)
            if p is not None and p.kind == "box":
                layers.append(vw.box_layer("predicted box", p.box, vw.PRED, dashed=True))  # type: ignore[arg-type]
                if gt.any():
                    layers.append(vw.box_layer("box of the GT points", points_aabb(scene.coords[gt]), vw.GT))
            anchors = find_anchors(s.description, labels, {int(t) for t in s.targets}) if labels else []
            drawn: list[Any] = []
            for inst, lab in anchors:
                m = scene.instance_ids == inst
                if m.any() and len(drawn) < MAX_ANCHORS:
                    layers.append(
                        vw.box_layer(
                            f"anchor: {lab} (instance {inst})",
                            points_aabb(scene.coords[m]),
                            vw.ANCHOR,
                            text=lab,
                            group="anchors: objects the question names",
                        )
                    )
                    drawn.append(lab)
            if p is None:
                note = "no prediction for this sample: only the ground truth is drawn"
            else:
                note = f"prediction: {p.kind.replace('_', ' ')}, {int(pred.sum()) if pred is not None else 0} of {n} points; GT: {int(gt.sum())} points"
            if labels is None:
                note += "; no instance labels (segments_anno.json) recorded: anchors not marked"
            elif drawn:
                note += f"; anchors: {', '.join(dict.fromkeys(drawn))}" + (
                    f" (first {MAX_ANCHORS} of {len(anchors)} instances)" if len(anchors) > len(drawn) else ""
                )
            else:
                note += "; the question names no labelled object"
            vs.details.setdefault(s.sample_id, {})["anchors"] = sorted({lab for _, lab in anchors})
            vs.views[s.sample_id] = {"scene": key, "layers": layers, "note": note}
    return vs
