"""How each benchmark's paper lays out its results table, as data the table writers follow.

A layout says which breakdown becomes the column groups (SURPRISE3D: question types under
"Knowledge" and "Spatial"; 3DBench: one column block per task), in which order, under which printed
names, and which metrics fill each block. Metric and group names are matched case-insensitively
against what a run's ``results.json`` holds; names a run lacks are skipped, so a layout never
invents a number. Benchmarks without a layout get the generic long table (one row per group value).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scenebench.benchmarks.catalog import table


@dataclass(frozen=True)
class Block:
    """One column block: a group value (``None`` = overall) and the metrics shown under it."""

    value: str | None
    label: str
    metrics: tuple[str, ...] = ()  # empty: every metric that has a number in this block
    super_label: str = ""


@dataclass(frozen=True)
class Layout:
    group: str | None  # breakdown key whose values become column blocks (``question_type``, ``task``)
    blocks: tuple[Block, ...]
    metrics: tuple[str, ...]  # default metrics of a block, in paper order
    rest_label: str = ""  # group values not named in ``blocks`` are appended with their own name
    primary_from: str = ""  # key of results.extra mapping group value -> the one metric to show
    metric_labels: dict[str, str] = field(default_factory=dict)


SURPRISE3D = Layout(
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

# 3DBench (Table 2 of the paper): one number per task, the task's primary metric (which one is
# recorded per run in results.extra.primary_metric), object tasks then scene tasks, then the mean.
BENCH3D = Layout(
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
        Block(None, "Mean", metrics=("mean_primary",)),
    ),
)

# RIO (Table 3 of the paper): recall at both thresholds and median errors, for all instances and
# split by whether the instance moved between the scans.
RIO = Layout(
    group="motion",
    metrics=("recall_10cm_10deg", "recall_20cm_20deg", "MRE", "MTE"),
    blocks=(Block(None, "All instances"), Block("static", "Static"), Block("moved", "Moved")),
    metric_labels={"recall_10cm_10deg": "R@10cm,10°", "recall_20cm_20deg": "R@20cm,20°", "MRE": "MRE (°)", "MTE": "MTE (m)"},
)


def layout_for(benchmark: str) -> Layout | None:
    """The paper layout a benchmark declares (``BenchmarkSpec.layout``), or ``None``."""
    layouts = table("layout")
    name = benchmark.lower()
    return layouts.get(name) if name in layouts else None
