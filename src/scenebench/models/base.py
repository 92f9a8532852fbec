"""The model interface: what a model is given and what it must return.

A model is any object with ``predict(batch: SceneBatch) -> list[Prediction]``. The runner groups the
samples of one scene into one :class:`SceneBatch`, so a model loads (and encodes) each scene once:

.. code-block:: python

    class MyModel:
        name = "my-model"

        def __init__(self, seed: int = 0, **options):   # options come from the CLI / plugin spec
            self.seed = seed

        def predict(self, batch: SceneBatch) -> list[Prediction]:
            points = batch.scene.points                  # (N, 3) float, loaded on first use
            out = []
            for s in batch.samples:                      # ModelSample: query, options, task, answer_kind
                ...
                out.append(BoxPrediction(s.sample_id, box=[cx, cy, cz, dx, dy, dz]))
            return out

Optional hooks (looked up with ``getattr``):

- ``settings() -> dict``: JSON-able settings; they enter the run fingerprint, so changing them starts
  a new run instead of mixing outputs.
- ``fit(train: list[tuple[ModelSample, Prediction]])``: called once with the benchmark's train split
  (samples and their true answers) when the data has one; blind baselines use it.
- ``ground_truth_perception = True``: the scene then keeps its ground-truth fields
  (:data:`GROUND_TRUTH_FIELDS`: ``objects``, ``rooms``, ``instance_ids``); every other model gets a
  scene without them. Such runs are marked "[ground-truth perception]".
- ``needs_ground_truth = True``: the batch then carries ``truth`` (the answers). Only the ``oracle``
  sets this; it checks the evaluators, it is not a model. Such runs are marked "[ground-truth answers]"
  (``results.json`` ``extra.run.ground_truth_answers``).

A prediction must answer the sample's ``answer_kind`` (``mask``, ``box``, ``boxes``, ``pose``,
``waypoints``, ``option``, ``text``) or be :class:`TextPrediction` free text, which benchmarks that
score text (3DBench) parse like any model reply. See ``docs/model-template.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from scenebench.models.predictions import Prediction


@dataclass(frozen=True)
class ModelSample:
    """One question for a model, without its answer.

    ``task``: the benchmark's task name (``reasoning_segmentation``, ``counting``, ``relocalization``...).
    ``answer_kind``: the prediction type expected. ``query``: the question or instruction text.
    ``options``: the choices of a multiple-choice question (empty otherwise). ``inputs``: small JSON
    task inputs beyond the text (a RIO sample's ``instance`` and ``reference`` scan, a navigation
    start point...). Ground truth is never in here.
    """

    sample_id: str
    scene_id: str
    task: str
    answer_kind: str
    query: str = ""
    options: tuple[str, ...] = ()
    inputs: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "sample_id": self.sample_id,
            "scene_id": self.scene_id,
            "task": self.task,
            "answer_kind": self.answer_kind,
            "query": self.query,
            "options": list(self.options),
            "inputs": dict(self.inputs),
        }


@dataclass
class SceneObject:
    """One object instance of a scene: label, axis-aligned centre-size box (metres), point indices."""

    instance_id: int
    label: str
    box: list[float]
    point_indices: Any = None  # (K,) int array into ``SceneView.points`` when known


GROUND_TRUTH_FIELDS = frozenset({"objects", "rooms", "instance_ids"})
"""Scene fields that are annotation, not sensor data: the scene graph, room types and boxes, the
instance of each point. They reach only models that declare ``ground_truth_perception = True``
(a source may name more through ``SceneView(..., ground_truth=...)``)."""


class SceneView:
    """Lazy access to one scene's data: each field is loaded on first use and kept for the batch.

    Fields every source offers: ``points`` (N, 3) float metres, ``colors`` (N, 3) in [0, 1] or
    None, and ``up_axis`` (1 for 3DBench's y-up houses, 2 for z-up ScanNet++ and 3RScan). ``objects`` (list of :class:`SceneObject`) is the scene's instance annotation: the
    "scene graph" that scene-graph-as-text baselines read. Benchmarks add their own fields through
    ``get(name)`` (RIO: ``reference_points``, ``reference_instances``...); ``fields()`` lists them.
    """

    def __init__(self, scene_id: str, loaders: Mapping[str, Callable[[], Any]], ground_truth: Iterable[str] = GROUND_TRUTH_FIELDS) -> None:
        self.scene_id = scene_id
        self._loaders = dict(loaders)
        self._cache: dict[str, Any] = {}
        self.ground_truth = frozenset(ground_truth) | GROUND_TRUTH_FIELDS  # a source adds fields, never removes the shared ones

    def fields(self) -> list[str]:
        return sorted(self._loaders)

    def has(self, name: str) -> bool:
        return name in self._loaders

    def get(self, name: str) -> Any:
        if name not in self._cache:
            if name not in self._loaders:
                raise KeyError(f"scene {self.scene_id} has no field '{name}' (has: {', '.join(self.fields())})")
            self._cache[name] = self._loaders[name]()
        return self._cache[name]

    @property
    def points(self) -> Any:
        return self.get("points")

    @property
    def colors(self) -> Any:
        return self.get("colors") if self.has("colors") else None

    @property
    def objects(self) -> list[SceneObject]:
        return self.get("objects") if self.has("objects") else []


@dataclass
class SceneBatch:
    """The samples of one scene, handed to ``Model.predict`` together."""

    scene: SceneView
    samples: Sequence[ModelSample]
    truth: Mapping[str, Prediction] | None = None  # only for models with needs_ground_truth

    @property
    def scene_id(self) -> str:
        return self.scene.scene_id


@runtime_checkable
class Model(Protocol):
    """What ``scenebench run`` needs from a model."""

    name: str

    def predict(self, batch: SceneBatch) -> list[Prediction]:
        """One prediction per sample of the batch (any order; matched by ``sample_id``)."""
        ...


def model_settings(model: Any) -> dict[str, Any]:
    """The model's ``settings()`` (or ``{}``), for run fingerprints and ``results.json``."""
    fn = getattr(model, "settings", None)
    return dict(fn()) if callable(fn) else {}
