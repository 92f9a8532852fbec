"""In-process backend: one model, scenes one after another, each saved before the next starts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scenebench.models.execution import build_model, predict_units
from scenebench.models.sources.base import RunSource


class LocalBackend:
    name = "local"

    def run(self, source: RunSource, spec: Any, units: Sequence[Any], save: Any, *, model: Any = None) -> None:
        """Predict ``units`` and call ``save(unit, predictions)`` after each scene."""
        if model is None:
            model = build_model(spec, source)
        for unit, preds in predict_units(model, source, units):
            save(unit, preds)

    def describe(self) -> dict[str, Any]:
        return {"backend": "local"}
