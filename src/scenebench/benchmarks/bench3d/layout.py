"""3DBench's results table (Table 2 of the paper): one number per task, object tasks then scene tasks.

Declared in the catalog as ``layout=``; :mod:`scenebench.report.layouts` explains the fields.
"""

from __future__ import annotations

from scenebench.report.layouts import Block, Layout

# 3DBench (Table 2 of the paper): one number per task, the task's primary metric (which one is
# recorded per run in results.extra.primary_metric), object tasks then scene tasks, then the mean.
LAYOUT = Layout(
    group="task",
    metrics=(),
    primary_from="primary_metric",
    blocks=(
        Block("classification", "Cls.", super_label="Object"),
        Block("object_caption", "Caption", super_label="Object"),
        Block("object_conversation", "Conv.", super_label="Object"),
        Block("counting", "Count.", super_label="Scene"),
        Block("detection", "Det.", super_label="Scene"),
        Block("visual_grounding", "VG", super_label="Scene"),
        Block("visual_grounding_plus", "VG+", super_label="Scene"),
        Block("room_detection", "Room det.", super_label="Scene"),
        Block("position_relation", "Pos. rel.", super_label="Scene"),
        Block("navigation", "Nav.", super_label="Scene"),
        Block("scene_caption", "Scene cap.", super_label="Scene"),
        Block("scene_qa", "Scene QA", super_label="Scene"),
        Block("relation", "Relation", super_label="Scene"),
        # the rule-scored mean is the headline (the same tasks with and without a judge); the judged
        # tasks' mean beside it, never mixed in
        Block(None, "Mean", metrics=("mean_rule", "mean_judged")),
    ),
)
