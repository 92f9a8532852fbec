"""The model plug-in surface: what a model is given and what it returns.

A plugin written against these names keeps working across scenebench releases of the same major
version (docs/api.md); everything else under ``scenebench.models`` is internal.

.. code-block:: python

    from scenebench.models import BoxPrediction, Model, SceneBatch

    class MyModel:
        name = "my-model"

        def predict(self, batch: SceneBatch) -> list[BoxPrediction]: ...
"""

from scenebench.models.base import Model, ModelSample, SceneBatch, SceneObject, SceneView
from scenebench.models.predictions import (
    BoxesPrediction,
    BoxPrediction,
    LabelledBox,
    MaskPrediction,
    OptionPrediction,
    PosePrediction,
    Prediction,
    RankedTextPrediction,
    TextPrediction,
    WaypointsPrediction,
    option_prediction,
)

__all__ = [
    "BoxPrediction",
    "BoxesPrediction",
    "LabelledBox",
    "MaskPrediction",
    "Model",
    "ModelSample",
    "OptionPrediction",
    "PosePrediction",
    "Prediction",
    "RankedTextPrediction",
    "SceneBatch",
    "SceneObject",
    "SceneView",
    "TextPrediction",
    "WaypointsPrediction",
    "option_prediction",
]
