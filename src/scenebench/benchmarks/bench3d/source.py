"""3DBench for ``scenebench run``: ten tasks on point clouds, every answer scored as free text.

Data folder (``--data``): the task files as :mod:`scenebench.benchmarks.bench3d.loader` reads them
(``Counting.json`` or ``Test_Counting.json``, ...), point clouds at the records' ``pcl`` paths, and
optionally a train split in ``train/`` with the same file names (the blind prior learns from it).

Per record the model gets ``query`` (verbatim), ``task`` (scenebench's key, e.g. ``counting``),
``options`` for multiple choice, and ``inputs``: ``house``, and for navigation ``start`` ([x, z])
and ``target`` when the record has them. Answer kinds: ``option`` (classification, counting,
position_relation), ``boxes`` (detection; room_detection with boxes kept in the file's room order
``(x, z, y, lx, lz, h)``), ``box`` (visual grounding and grounding-plus), ``waypoints``
(navigation), ``text`` (captions, QA, conversation, relation).

A scene is one ``pcl`` file (an object cloud for object-level tasks, a house cloud otherwise), so
it is loaded once for all questions on it. ``points`` are the cloud's xyz (y up, metres),
``colors`` its rgb scaled to [0, 1]. ``objects`` is the house's object list (labels and boxes; no
point indices): the scene graph that scene-graph-as-text baselines read (only models that declare
ground-truth perception get it). It comes from ``scene_graph/<house>.json`` in the data folder,
else in the ground-truth folder (``--gt``, default ``<data>/../gt/3dbench`` when present: where
``scenebench generate`` writes it, outside the data handed to models; every
object the cloud shows, labelled with its category; such houses also offer ``rooms``, a list of
``{"type", "box"}`` with RoomDetection's ``[x, z, y, lx, lz, h]`` boxes: the answers of room
detection, so ground truth like ``objects``), else from the benchmark's
own detection and grounding records of that house (incomplete: only the objects those mention).
Either way it is ground-truth perception, an upper bound, stated as such in the docs.
Object-level clouds have no objects.

Every prediction is written as ``{"question_id", "task", "text"}`` with the text from
``Prediction.to_text()`` (boxes as ``[cx, cy, cz, dx, dy, dz]``, options as ``The answer is (B) ...``),
so structured predictions go through exactly the parser that reads a 3D LLM's replies.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np

from scenebench.errors import InputError, ScenebenchError
from scenebench.io.files import atomic_write_text, file_fingerprint
from scenebench.metrics.jobs import ScoringJob
from scenebench.models.base import ModelSample, SceneObject, SceneView
from scenebench.models.predictions import (
    BoxesPrediction,
    BoxPrediction,
    LabelledBox,
    Prediction,
    TextPrediction,
    WaypointsPrediction,
    option_prediction,
)
from scenebench.protocol import Protocol

ANSWER_KIND = {
    "choice": "option",
    "detection": "boxes",
    "room_detection": "boxes",
    "grounding": "box",
    "grounding_plus": "box",
    "navigation": "waypoints",
    "text": "text",
}
TRAIN_DIR = "train"
GRAPH_DIR = "scene_graph"  # <house>.json: the house's full object list (scenebench generate writes it)
GT_DEFAULT = ("..", "gt", "3dbench")  # generate's ground-truth tree, relative to the data folder


def to_sample(rec: Any) -> ModelSample:
    from scenebench.benchmarks.bench3d.tasks import TASKS

    kind = TASKS[rec.task].kind
    inputs: dict[str, Any] = {"house": rec.house}
    if kind == "navigation":
        if "start" in rec.gt:
            inputs["start"] = [float(v) for v in rec.gt["start"]]
        if rec.gt.get("target"):
            inputs["target"] = rec.gt["target"]
    options = tuple(rec.gt["choices"]) if kind == "choice" else ()
    return ModelSample(rec.key, rec.pcl, rec.task, ANSWER_KIND[kind], rec.query, options, inputs)


def to_truth(rec: Any) -> Prediction:
    """The record's answer as a prediction: what the oracle says."""
    from scenebench.benchmarks.bench3d.tasks import TASKS

    kind, gt, sid = TASKS[rec.task].kind, rec.gt, rec.key
    if kind == "choice":
        return option_prediction(sid, gt["choices"], int(gt["answer"]))
    if kind in ("detection", "room_detection"):
        return BoxesPrediction(
            sid, boxes=[LabelledBox(lab, [float(v) for v in box]) for lab, box in zip(gt["labels"], np.asarray(gt["boxes"]).tolist())]
        )
    if kind in ("grounding", "grounding_plus"):
        return BoxPrediction(sid, box=[float(v) for v in gt["box"]], label=gt.get("name"))
    if kind == "navigation":
        return WaypointsPrediction(sid, points=np.asarray(gt["positions"], float).tolist())
    refs = gt.get("references") or [""]
    return TextPrediction(sid, text=refs[0])


def read_scene_graph(path: Path) -> dict[str, Any]:
    """A ``scene_graph/<house>.json``, checked: ``objects[].{id: int, category: str, bbox: 6 numbers}``,
    ``rooms[].{type: str, bbox: 6 numbers}``."""
    from scenebench.io.files import is_finite_number, read_json

    doc = read_json(path, what="3DBench scene graph")
    if not isinstance(doc, dict):
        raise InputError(path, "is not a JSON object", expected='{"rooms": [...], "objects": [...]}')
    for key, label in (("objects", "category"), ("rooms", "type")):
        items = doc.get(key)
        if not isinstance(items, list):
            raise InputError(path, f"has no {key} list", field=key, expected="a list")
        for j, it in enumerate(items):
            box = it.get("bbox") if isinstance(it, dict) else None
            if not isinstance(it, dict) or not isinstance(it.get(label), str) or (key == "objects" and not isinstance(it.get("id"), int)):
                raise InputError(
                    path, f"entry {j} lacks {'an integer id or ' if key == 'objects' else ''}a string {label}", field=f"{key}[{j}]"
                )
            if not isinstance(box, list) or len(box) != 6 or not all(is_finite_number(v) for v in box):
                raise InputError(path, f"bbox is {box!r}", field=f"{key}[{j}].bbox", expected="6 finite numbers")
    return doc


class Bench3DSource:
    benchmark = "3dbench"
    predictions_name = "answers.jsonl"

    def __init__(
        self, data: str, train: str | None = None, houses: str | None = None, objects_gt: str | None = None, gt: str | None = None
    ) -> None:
        from scenebench.benchmarks.bench3d.loader import load_bench

        self.root = Path(data)
        if gt is not None and not Path(gt).is_dir():
            raise InputError(Path(gt), "is not a folder", field="--gt", expected="a ground-truth folder holding scene_graph/")
        default_gt = self.root.joinpath(*GT_DEFAULT)
        self.gt_root = Path(gt) if gt is not None else (default_gt if default_gt.is_dir() else None)
        self.bench = load_bench(self.root, houses=houses, objects_gt=objects_gt)
        tr = Path(train) if train else self.root / TRAIN_DIR
        self.train_root = tr if tr.is_dir() else None
        self._kwargs = {"data": str(self.root), "train": train, "houses": houses, "objects_gt": objects_gt, "gt": gt}
        self._records = {r.key: r for r in self.bench.all_records()}  # sample_id = Record.key (<task>:<question_id>)
        self._house_objects: dict[str, list[SceneObject]] | None = None
        from scenebench.benchmarks.bench3d.tasks import TASKS

        # pcl -> (its house when unique, whether any scene-level task uses it): decides what "objects" a cloud has.
        self._clouds: dict[str, tuple[str | None, bool]] = {}
        for r in self._records.values():
            house, scene_level = self._clouds.get(r.pcl, (r.house, False))
            self._clouds[r.pcl] = (house if house == r.house else None, scene_level or TASKS[r.task].level == "scene")

    def spec(self) -> dict[str, Any]:
        return {k: v for k, v in self._kwargs.items() if v is not None or k in ("data", "train")}

    def inputs(self) -> dict[str, Any]:
        out = {f"task:{t}": fp for t, fp in self.bench.fingerprints().items()}
        out.update(self.bench.metadata_fingerprints())
        graphs = {h: self._graph_path(h) for h in sorted({r.house for r in self._records.values()})}
        out.update({f"scene_graph:{h}": file_fingerprint(p) for h, p in graphs.items() if p.is_file()})
        if self.train_root is not None:
            from scenebench.benchmarks.bench3d.loader import load_bench

            out.update({f"train:{t}": fp for t, fp in load_bench(self.train_root).fingerprints().items()})
        return out

    def samples(self) -> list[ModelSample]:
        return [to_sample(r) for r in self.bench.all_records()]

    def train(self) -> list[tuple[ModelSample, Prediction]]:
        if self.train_root is None:
            return []
        from scenebench.benchmarks.bench3d.loader import load_bench

        return [(to_sample(r), to_truth(r)) for r in load_bench(self.train_root).all_records()]

    def _graph_path(self, house: str) -> Path:
        """The data folder's graph, else the ground-truth folder's (see :meth:`_graph_in`)."""
        p = self._graph_in(self.root, house)
        if not p.is_file() and self.gt_root is not None:
            alt = self._graph_in(self.gt_root, house)
            if alt.is_file():
                return alt
        return p

    def _graph_in(self, root: Path, house: str) -> Path:
        """``root/scene_graph/<house>.json``, else the graph named after the house's scene cloud
        (``scene/<name>.npy`` -> ``scene_graph/<name>.json``: released-shape files give the house number as ``id``)."""
        from scenebench.io.files import check_path_id, inside

        check_path_id(house, root, field="id")
        p = inside(root, root / GRAPH_DIR / f"{house}.json")
        if not p.is_file():
            for pcl, (h, scene_level) in self._clouds.items():
                if h == house and scene_level and (alt := root / GRAPH_DIR / f"{Path(pcl).stem}.json").is_file():
                    return inside(root, alt)
        return p

    def house_objects(self, house: str) -> list[SceneObject]:
        """The house's scene graph objects when it has one, else the labelled boxes of its detection and grounding records."""
        graph = self._graph_path(house)
        if graph.is_file():
            return [SceneObject(o["id"], o["category"], [float(v) for v in o["bbox"]]) for o in read_scene_graph(graph)["objects"]]
        if self._house_objects is None:
            from scenebench.benchmarks.bench3d.tasks import TASKS

            found: dict[str, dict[tuple, str]] = {}
            for r in self.bench.all_records():
                kind = TASKS[r.task].kind
                pairs: Iterable[tuple[Any, Any]]
                if kind == "detection":
                    pairs = zip(r.gt["labels"], np.asarray(r.gt["boxes"]).tolist())
                elif kind == "grounding" and r.gt.get("name"):
                    pairs = [(r.gt["name"], np.asarray(r.gt["box"]).tolist())]
                else:
                    continue
                for lab, box in pairs:
                    found.setdefault(r.house, {})[tuple(round(float(v), 3) for v in box)] = str(lab)
            self._house_objects = {
                h: [SceneObject(i, lab, list(box)) for i, (box, lab) in enumerate(sorted(objs.items(), key=lambda kv: (kv[1], kv[0])))]
                for h, objs in found.items()
            }
        return self._house_objects.get(house, [])

    def scene(self, scene_id: str) -> SceneView:
        from scenebench.io.arrays import load_npy

        path = (self.root / scene_id).resolve()
        if self.root.resolve() not in path.parents:
            raise InputError(self.root, f"point cloud {scene_id} lies outside the benchmark folder", field="pcl")
        cache: dict[str, np.ndarray] = {}

        def cloud() -> np.ndarray:
            if "c" not in cache:
                arr = load_npy(path)
                if arr.ndim != 2 or arr.shape[1] < 3:
                    raise InputError(path, f"shape {arr.shape}", field="pcl", expected="(N, 6) xyz+rgb")
                if arr.dtype.kind not in "fiu" or not np.isfinite(arr[:, :3]).all():  # models must not see NaN points
                    raise InputError(path, f"dtype {arr.dtype} or non-finite coordinates", field="pcl", expected="finite numbers")
                cache["c"] = arr
            return cache["c"]

        def colors() -> np.ndarray | None:
            c = cloud()
            if c.shape[1] < 6:
                return None
            rgb = np.asarray(c[:, 3:6], float)
            return rgb / 255.0 if rgb.max(initial=0) > 1.0 else rgb

        # The loaders close over paths and lists, never over the source (whose truth() holds the answers).
        house, scene_level = self._clouds.get(scene_id, (None, False))
        loaders: dict[str, Any] = {"points": lambda: np.asarray(cloud()[:, :3], float), "colors": colors, "up_axis": lambda: 1}
        graph = self._graph_path(house) if (house is not None and scene_level) else None
        if graph is not None and graph.is_file():
            loaders["objects"] = lambda: [
                SceneObject(o["id"], o["category"], [float(v) for v in o["bbox"]]) for o in read_scene_graph(graph)["objects"]
            ]
            loaders["rooms"] = lambda: [{"type": r["type"], "box": r["bbox"]} for r in read_scene_graph(graph)["rooms"]]
        else:
            found = self.house_objects(house) if (house is not None and scene_level) else []
            loaders["objects"] = lambda: found
        return SceneView(scene_id, loaders)

    def truth(self, sample: ModelSample) -> Prediction:
        return to_truth(self._records[sample.sample_id])

    def write_predictions(self, predictions: Mapping[str, Prediction], samples: Sequence[ModelSample], folder: Path) -> Path:
        import json

        lines = [
            json.dumps(
                {"question_id": self._records[s.sample_id].question_id, "task": s.task, "text": predictions[s.sample_id].to_text()},
                ensure_ascii=False,
            )
            for s in samples
        ]
        path = Path(folder) / self.predictions_name
        atomic_write_text(path, "".join(x + "\n" for x in lines))
        return path

    def scoring_job(
        self, predictions_path: Path, samples: Sequence[ModelSample], *, protocol: str, judge: Any = None, **options: Any
    ) -> ScoringJob:
        """``answers.jsonl`` over exactly ``samples`` with the 3DBench scorer (``judge``: a built Judge or None)."""
        from scenebench.benchmarks.bench3d.loader import Bench
        from scenebench.benchmarks.bench3d.predictions import read_answers
        from scenebench.benchmarks.bench3d.run import job_for
        from scenebench.benchmarks.bench3d.scorer import Settings

        if options:
            raise ScenebenchError(f"3DBench scoring takes no option(s) {', '.join(sorted(options))}; accepted: judge")
        chosen = {s.sample_id for s in samples}
        records = {t: [r for r in rs if r.key in chosen] for t, rs in self.bench.records.items()}
        records = {t: rs for t, rs in records.items() if rs}
        bench = Bench(self.bench.root, records, {t: self.bench.files[t] for t in records}, metadata=self.bench.metadata)
        answers = read_answers(predictions_path, bench)
        judge_id = None if judge is None else {"model_id": judge.model_id, "prompt_versions": dict(judge.prompt_versions)}
        inputs = {
            "predictions": file_fingerprint(predictions_path),
            **{f"task:{t}": fp for t, fp in bench.fingerprints().items()},
            **bench.metadata_fingerprints(),
        }
        knobs = {
            "tasks": list(records),
            "circular": False,
            "allow_missing": False,
            "limit": None,
            "judge": judge_id,
            **{k: self._kwargs[k] for k in ("houses", "objects_gt") if self._kwargs[k] is not None},
        }
        return job_for(bench, answers, Settings(protocol=cast(Protocol, protocol)), judge, inputs, knobs)
