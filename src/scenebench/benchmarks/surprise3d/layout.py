"""SURPRISE3D's results table as the paper prints it: question types under "Knowledge" and "Spatial".

Declared in the catalog as ``layout=``; :mod:`scenebench.report.layouts` explains the fields.
"""

from __future__ import annotations

from scenebench.report.layouts import Block, Layout

LAYOUT = Layout(
    group="question_type",
    metrics=("A25", "A50", "mIoU"),
    blocks=(
        Block("cs", "Common sense", super_label="Knowledge"),
        Block("hi", "Human intention", super_label="Knowledge"),
        Block("rel_pos", "Relative position", super_label="Spatial"),
        Block("first_view", "Narrative perspective", super_label="Spatial"),
        Block("camera_view", "Parametric perspective", super_label="Spatial"),
        Block("abs", "Absolute distance", super_label="Spatial"),
        Block(None, "Overall"),
    ),
    metric_labels={"A25": "A25", "A50": "A50", "mIoU": "mIoU"},
)
