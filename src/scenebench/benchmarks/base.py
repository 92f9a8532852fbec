"""What every benchmark declares about itself (for ``scenebench list`` and the docs)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class MetricDoc:
    name: str
    summary: str
    card: str  # path of the metric card under docs/metrics/


@dataclass(frozen=True)
class BenchmarkInfo:
    name: str
    title: str
    paper: str
    task: str
    metrics: tuple[MetricDoc, ...]
    protocols: dict[str, str] = field(default_factory=dict)  # protocol -> what it means here
    groups: tuple[str, ...] = ()
