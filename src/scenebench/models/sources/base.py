"""What a benchmark offers to ``scenebench run``: samples, scenes, answers, a writer and a scorer.

A *run source* adapts one benchmark's loader to the model interface. It must be rebuildable from
``(benchmark, kwargs)`` (see :func:`make_source`) so Ray workers can load scenes themselves instead
of receiving point clouds over the network.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from scenebench.declarations.catalog import table
from scenebench.errors import ScenebenchError
from scenebench.io.scannet import load_instance_labels, load_vertices
from scenebench.metrics.jobs import ScoringJob
from scenebench.models.base import ModelSample, SceneObject, SceneView
from scenebench.models.predictions import Prediction

SOURCES = table("source")  # derived from the benchmark declarations


class RunSource(Protocol):
    benchmark: str
    predictions_name: str  # file name of the benchmark prediction file written in the run folder

    def spec(self) -> dict[str, Any]:
        """JSON-able constructor kwargs: ``make_source(self.benchmark, **self.spec())`` rebuilds it."""

    def inputs(self) -> dict[str, Any]:
        """Checksums of the data files read (for the run fingerprint and results.json)."""

    def samples(self) -> list[ModelSample]:
        """Every evaluation sample, in ground-truth order."""

    def train(self) -> list[tuple[ModelSample, Prediction]]:
        """Train-split samples with their answers (empty when the data has no train split)."""

    def scene(self, scene_id: str) -> SceneView: ...

    def truth(self, sample: ModelSample) -> Prediction:
        """The ground-truth answer as a prediction (what the oracle returns)."""

    def write_predictions(self, predictions: Mapping[str, Prediction], samples: Sequence[ModelSample], folder: Path) -> Path:
        """Write the benchmark's own prediction file for ``samples``; return its path."""

    def scoring_job(self, predictions_path: Path, samples: Sequence[ModelSample], *, protocol: str, **options: Any) -> ScoringJob:
        """The benchmark's scoring job over exactly ``samples`` (the shared driver scores it into the run)."""


def make_source(benchmark: str, **kwargs: Any) -> RunSource:
    cls = SOURCES.get(benchmark)
    return cls(**kwargs)


def check_prediction_kind(sample: ModelSample, pred: Prediction) -> None:
    if pred.kind not in (sample.answer_kind, "text"):
        raise ScenebenchError(
            f"sample {sample.sample_id} ({sample.task}) expects a '{sample.answer_kind}' prediction "
            f"(or free 'text'), the model returned '{pred.kind}'"
        )


def instance_objects(coords: np.ndarray, instance_ids: np.ndarray, labels: Mapping[int, str] | None = None) -> list[SceneObject]:
    """One object per instance id >= 0: centre-size AABB of its points and its point indices (one sort, no per-point loop)."""
    ids = np.asarray(instance_ids)
    keep = np.flatnonzero(ids >= 0)
    if keep.size == 0:
        return []
    order = keep[np.argsort(ids[keep], kind="stable")]
    uniq, starts = np.unique(ids[order], return_index=True)
    pts = np.asarray(coords, dtype=float)[order]
    lo = np.minimum.reduceat(pts, starts, axis=0)
    hi = np.maximum.reduceat(pts, starts, axis=0)
    centre, size = (lo + hi) / 2.0, hi - lo
    groups = np.split(order, starts[1:])
    labels = labels or {}
    return [
        SceneObject(int(i), labels.get(int(i), "object"), [*map(float, c), *map(float, s)], g)
        for i, c, s, g in zip(uniq.tolist(), centre, size, groups)
    ]


def scannet_scene(folder: str | Path, scene_id: str, labels: Mapping[int, str]) -> SceneView:
    """A ScanNet-layout scene (``<folder>/<scene_id>_aligned_vert.npy`` and ``_ins_label.npy``) as a
    model sees it: points, colours 0-1, instance ids, z up, and ``objects`` labelled with ``labels``
    (object id -> name; others "object"). Arrays are read on first use, once. The loaders close over
    paths and the labels, never over a run source (whose ``truth()`` holds the answers)."""
    scenes, names = Path(folder), dict(labels)
    vert = functools.cache(lambda: load_vertices(scenes, scene_id))
    ids = functools.cache(lambda: load_instance_labels(scenes, scene_id))
    fields: dict[str, Callable[[], Any]] = {
        "points": lambda: vert()[:, :3],
        "colors": lambda: vert()[:, 3:6] / 255.0,
        "instance_ids": ids,
        "up_axis": lambda: 2,
        "objects": lambda: instance_objects(vert()[:, :3], ids(), names),
    }
    return SceneView(scene_id, fields)
