"""Building a model and asking it about work units: shared by the runtime backends and the models.

The run loop (:mod:`scenebench.runtime.runner`) and its backends (local, Ray) give a model
:class:`WorkUnit` s and get checked predictions back through :func:`predict_units`; seeded
baselines draw from :func:`seeded_rng`. These live here, below the runtime, so the backends and
the built-in models import them without importing the runner (and without import cycles).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scenebench.errors import ScenebenchError
from scenebench.models.base import ModelSample, SceneBatch, SceneView
from scenebench.models.predictions import Prediction
from scenebench.models.registry import make_model
from scenebench.models.sources.base import RunSource, check_prediction_kind


@dataclass(frozen=True)
class WorkUnit:
    """The pending samples of one scene: the unit of work given to a backend."""

    scene_id: str
    samples: tuple[ModelSample, ...]

    @property
    def sample_ids(self) -> list[str]:
        return [s.sample_id for s in self.samples]


@dataclass(frozen=True)
class ModelSpec:
    """How to build the model anywhere (here or in a Ray worker): a CLI name plus constructor options."""

    name: str
    options: Mapping[str, Any] = field(default_factory=dict)


def build_model(spec: ModelSpec, source: RunSource) -> Any:
    """Construct the model and give it the train split if it wants one (``fit``)."""
    model = make_model(spec.name, **dict(spec.options))
    fit = getattr(model, "fit", None)
    if callable(fit):
        fit(source.train())
    return model


def uses_ground_truth_perception(model: Any) -> bool:
    """True when the model asks for the scene's ground-truth fields (``ground_truth_perception = True``)."""
    return bool(getattr(model, "ground_truth_perception", False))


def uses_ground_truth_answers(model: Any) -> bool:
    """True when the model is handed the answers (``needs_ground_truth = True``: the oracle)."""
    return bool(getattr(model, "needs_ground_truth", False))


def perception_view(scene: SceneView, model: Any) -> SceneView:
    """The scene as the model may see it: without its ground-truth fields (``scene.ground_truth``:
    objects, rooms, instance ids) unless the model asks for them."""
    if uses_ground_truth_perception(model) or not any(scene.has(k) for k in scene.ground_truth):
        return scene
    loaders = {k: v for k, v in scene._loaders.items() if k not in scene.ground_truth}
    return SceneView(scene.scene_id, loaders, scene.ground_truth)


def predict_units(model: Any, source: RunSource, units: Iterable[WorkUnit]) -> Iterator[tuple[WorkUnit, list[Prediction]]]:
    """Ask the model about each unit (one scene loaded once); check one valid prediction per sample.

    Ground-truth fields (objects, rooms, instance ids) reach only models that set
    ``ground_truth_perception = True``, the answers only models that set ``needs_ground_truth = True``;
    both kinds of run are marked in run.json and results.json."""
    wants_truth = uses_ground_truth_answers(model)
    for unit in units:
        scene = perception_view(source.scene(unit.scene_id), model)
        truth = {s.sample_id: source.truth(s) for s in unit.samples} if wants_truth else None
        preds = list(model.predict(SceneBatch(scene, unit.samples, truth)))
        yield unit, check_unit_predictions(unit, preds, getattr(model, "name", type(model).__name__))


def check_unit_predictions(unit: WorkUnit, preds: Sequence[Prediction], model_name: str) -> list[Prediction]:
    by_id = {s.sample_id: s for s in unit.samples}
    seen: dict[str, Prediction] = {}
    for p in preds:
        if not isinstance(p, Prediction):
            raise ScenebenchError(f"model {model_name} returned {type(p).__name__} for scene {unit.scene_id}; expected Prediction objects")
        if p.sample_id not in by_id:
            raise ScenebenchError(f"model {model_name} returned a prediction for unknown sample '{p.sample_id}' (scene {unit.scene_id})")
        if p.sample_id in seen:
            raise ScenebenchError(f"model {model_name} returned two predictions for sample '{p.sample_id}'")
        check_prediction_kind(by_id[p.sample_id], p)
        seen[p.sample_id] = p
    lost = [sid for sid in by_id if sid not in seen]
    if lost:
        raise ScenebenchError(
            f"model {model_name} returned no prediction for {len(lost)} sample(s) of scene {unit.scene_id} "
            f"(first: {lost[:3]}); a model that abstains must return TextPrediction(sample_id, text='')"
        )
    return [seen[s.sample_id] for s in unit.samples]


def seeded_rng(seed: int, *keys: str) -> Any:
    """A numpy Generator that depends only on ``seed`` and ``keys`` (e.g. the sample id).

    Seeded baselines draw per sample, so their answers do not depend on batching, sharding or the
    backend: the Ray and local backends then produce identical predictions.
    """
    h = hashlib.sha256(("\x1f".join([str(seed), *keys])).encode()).digest()
    return np.random.default_rng(int.from_bytes(h[:8], "little"))
