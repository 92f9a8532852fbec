"""How each benchmark's paper lays out its results table, as data the table writers follow.

A layout says which breakdown becomes the column groups (SURPRISE3D: question types under
"Knowledge" and "Spatial"; 3DBench: one column block per task), in which order, under which printed
names, and which metrics fill each block. Metric and group names are matched case-insensitively
against what a run's ``results.json`` holds; names a run lacks are skipped, so a layout never
invents a number. Benchmarks without a layout get the generic long table (one row per group value).

Each benchmark declares its layout in its own package (``benchmarks/<name>/layout.py``, named by
``BenchmarkSpec.layout``); this module holds only the types and the lookup.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scenebench.declarations.catalog import table


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


def layout_for(benchmark: str) -> Layout | None:
    """The paper layout a benchmark declares (``BenchmarkSpec.layout``), or ``None``."""
    layouts = table("layout")
    name = benchmark.lower()
    return layouts.get(name) if name in layouts else None
