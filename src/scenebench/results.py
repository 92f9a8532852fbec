"""The results schema shared by every benchmark (``results.json``), versioned.

Shape (see docs/results-schema.md)::

    {
      "schema_version": "1.0",
      "benchmark": "surprise3d", "protocol": "strict", "scenebench_version": "0.2.0",
      "metrics": {"overall": {"mIoU": 41.2, ...},
                  "by_question_type": {"cs": {"mIoU": ..., ...}, ...}},
      "confidence_intervals": {"method": "cluster_bootstrap_percentile", "level": 0.95,
                               "n_resamples": 1000, "seed": 0, "cluster_key": "scene_id",
                               "overall": {"mIoU": [lo, hi]}, "by_question_type": {...}},
      "counts": {"n_samples": .., "n_scored": .., "n_missing": .., "n_invalid": .., "n_excluded": ..},
      "counts_by_group": {"by_question_type": {"cs": {...counts...}}},
      "metric_info": {"mIoU": {"kind": "mean", "unit": "%", ...}},
      "settings": {...}, "inputs": {"annotations": {"path", "sha256", "bytes"}, ...},
      "command": ["scenebench", "score", ...], "created": "2026-11-30T10:00:00+00:00",
      "warnings": [...], "extra": {...}
    }

Metric values are percentages in [0, 100] where the benchmark reports them so; a metric that could
not be computed (no samples, judge disabled) is ``null``, never dropped.
"""

from __future__ import annotations

import datetime as _dt
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from scenebench import __version__
from scenebench.io.files import atomic_write_json, read_json
from scenebench.protocol import Protocol
from scenebench.redact import redact_argv

SCHEMA_VERSION = "1.0"

MetricTable = dict[str, float | None]


class Counts(BaseModel):
    model_config = ConfigDict(extra="forbid")
    n_samples: int = 0
    n_scored: int = 0
    n_missing: int = 0
    n_invalid: int = 0
    n_excluded: int = 0


class ConfidenceIntervals(BaseModel):
    model_config = ConfigDict(extra="allow")
    method: str = "cluster_bootstrap_percentile"
    level: float = 0.95
    n_resamples: int = 1000
    seed: int = 0
    cluster_key: str = "scene_id"
    overall: dict[str, list[float] | None] = Field(default_factory=dict)


class Results(BaseModel):
    model_config = ConfigDict(extra="forbid")
    schema_version: str = SCHEMA_VERSION
    benchmark: str
    protocol: Protocol
    scenebench_version: str = __version__
    metrics: dict[str, Any]
    confidence_intervals: ConfidenceIntervals = Field(default_factory=ConfidenceIntervals)
    counts: Counts = Field(default_factory=Counts)
    counts_by_group: dict[str, dict[str, Counts]] = Field(default_factory=dict)
    metric_info: dict[str, dict[str, Any]] = Field(default_factory=dict)
    settings: dict[str, Any] = Field(default_factory=dict)
    inputs: dict[str, Any] = Field(default_factory=dict)
    command: list[str] = Field(default_factory=lambda: redact_argv(sys.argv))  # no password of a --base-url
    created: str = Field(default_factory=lambda: _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"))
    warnings: list[str] = Field(default_factory=list)
    extra: dict[str, Any] = Field(default_factory=dict)
    # the model was given ground-truth perception (instance labels, boxes or masks of the scene):
    # its numbers measure reasoning over perfect perception, not 3D understanding from points
    ground_truth_perception: bool = False

    def save(self, path: str | Path) -> None:
        atomic_write_json(path, self.model_dump(mode="json"))

    @classmethod
    def load(cls, path: str | Path) -> Results:
        return cls.model_validate(read_json(path, what="results file"))

    def overall(self) -> MetricTable:
        return self.metrics.get("overall", {})

    def groups(self) -> list[str]:
        """Names of the breakdowns present, e.g. ``['question_type']`` for ``by_question_type``."""
        return [k[3:] for k in self.metrics if k.startswith("by_")]
