"""In-process backend: one model, scenes one after another, each saved before the next starts."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

from scenebench.models.execution import build_model, predict_units
from scenebench.models.sources.base import RunSource

T = TypeVar("T")


class LocalBackend:
    name = "local"

    def run(self, source: RunSource, spec: Any, units: Sequence[Any], save: Any, *, model: Any = None) -> None:
        """Predict ``units`` and call ``save(unit, predictions, seconds)`` after each scene (``seconds``:
        loading the scene and predicting its samples)."""
        if model is None:
            model = build_model(spec, source)
        for (unit, preds), seconds in timed(predict_units(model, source, units)):
            save(unit, preds, seconds)

    def describe(self) -> dict[str, Any]:
        return {"backend": "local"}


def timed(items: Iterator[T]) -> Iterator[tuple[T, float]]:
    """Each item of a lazy iterator with the seconds it took to produce (for predict_units: one scene)."""
    while True:
        t0 = time.perf_counter()
        try:
            item = next(items)
        except StopIteration:
            return
        yield item, time.perf_counter() - t0
