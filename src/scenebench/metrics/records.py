"""Per-sample score records and their summaries: what every benchmark scorer produces.

A benchmark scorer (:class:`Scorer`) yields :class:`SampleScore` batches, one per scene, so a
scene's points are loaded once; :func:`summarize_scores` turns the records into the metrics, counts
and scene-clustered intervals of the shared results schema. A :class:`ScoringJob` is what a
benchmark hands the one shared driver (:func:`scenebench.runtime.scoring.score_job`), which stores
records as they are computed, resumes, and saves ``results.json``.

This module sits at the bottom layer (metrics): benchmarks build on it without importing the
runtime.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import numpy as np

from scenebench.metrics.aggregate import MetricSpec, field_matrix, fields_of, metric_info, summarize_columns
from scenebench.results import ConfidenceIntervals, Counts, Results

Status = Literal["scored", "missing", "invalid", "excluded"]


@dataclass
class SampleScore:
    """What a scorer knows about one ground-truth sample after scoring it.

    ``values`` are the per-sample inputs of the metrics (e.g. ``iou``, ``a25``); ``groups`` the
    breakdown keys (``{"question_type": "cs"}``); ``detail`` small JSON for reports (the parsed
    prediction, why it was invalid).
    """

    sample_id: str
    scene_id: str
    status: Status
    values: dict[str, float] = field(default_factory=dict)
    groups: dict[str, str] = field(default_factory=dict)
    detail: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The record as plain JSON types, built directly (``dataclasses.asdict`` deep-copies every
        nested list and dict of ``detail``: it was a third of the time of scoring 3,000 samples).
        The dict shares ``groups`` and ``detail`` with the record: serialise it, do not mutate it."""
        return {
            "sample_id": self.sample_id,
            "scene_id": self.scene_id,
            "status": self.status,
            "values": {k: (None if v != v else v) for k, v in self.values.items()},  # NaN -> null
            "groups": self.groups,
            "detail": self.detail,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> SampleScore:
        vals = {k: (math.nan if v is None else float(v)) for k, v in d.get("values", {}).items()}
        return cls(d["sample_id"], d["scene_id"], d["status"], vals, dict(d.get("groups", {})), dict(d.get("detail", {})))


class Scorer(Protocol):
    benchmark: str
    protocol: str

    def sample_ids(self) -> list[str]:
        """Every ground-truth sample id, in order: the denominator."""

    def iter_scores(self, skip: set[str]) -> Iterator[list[SampleScore]]:
        """Yield batches (one per scene) of scores for samples not in ``skip``."""


def count(records: Sequence[SampleScore]) -> Counts:
    c = Counter(r.status for r in records)
    return Counts(
        n_samples=len(records),
        n_scored=c["scored"],
        n_missing=c["missing"],
        n_invalid=c["invalid"],
        n_excluded=c["excluded"],
    )


def _count_statuses(statuses: Sequence[str]) -> Counts:
    """:func:`count` of records with these statuses."""
    c = Counter(statuses)
    return Counts(n_samples=len(statuses), n_scored=c["scored"], n_missing=c["missing"], n_invalid=c["invalid"], n_excluded=c["excluded"])


@dataclass
class Summary:
    metrics: dict[str, Any]
    intervals: ConfidenceIntervals
    counts: Counts
    counts_by_group: dict[str, dict[str, Counts]]
    metric_info: dict[str, dict[str, Any]]


def summarize_scores(
    records: Sequence[SampleScore],
    specs: Sequence[MetricSpec],
    *,
    groups: Sequence[str] = (),
    n_resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> Summary:
    """Overall and per-group metrics with scene-clustered CIs. Excluded samples enter no metric."""
    # The per-sample columns and scene names are built once; each subset (overall, every group
    # value: RIO has one per scene) takes its rows of them, in record order (what building them per
    # subset gave).
    columns = field_matrix([r.values for r in records], fields_of(specs))
    scenes = np.asarray([r.scene_id for r in records], dtype=object).astype(str)

    def block(rows: Sequence[int]) -> tuple[dict[str, Any], dict[str, Any]]:
        ix = np.asarray(rows, dtype=np.intp)
        return summarize_columns(specs, {k: v[ix] for k, v in columns.items()}, scenes[ix], n_resamples=n_resamples, seed=seed, level=level)

    metrics: dict[str, Any] = {}
    ci = ConfidenceIntervals(level=level, n_resamples=n_resamples, seed=seed)
    metrics["overall"], ci.overall = block([i for i, r in enumerate(records) if r.status != "excluded"])
    counts_by_group: dict[str, dict[str, Counts]] = {}
    statuses = [r.status for r in records]
    group_dicts = [r.groups for r in records]
    for g in groups:
        by_val: dict[str, list[int]] = defaultdict(list)
        all_by_val: dict[str, list[int]] = defaultdict(list)
        for i, (d, st) in enumerate(zip(group_dicts, statuses)):
            v = str(d.get(g, "unknown"))
            all_by_val[v].append(i)
            if st != "excluded":
                by_val[v].append(i)
        key = f"by_{g}"
        metrics[key], cis = {}, {}
        for v in sorted(all_by_val):
            metrics[key][v], cis[v] = block(by_val.get(v, []))
        setattr(ci, key, cis)
        counts_by_group[key] = {v: _count_statuses([statuses[i] for i in ix]) for v, ix in sorted(all_by_val.items())}
    return Summary(metrics, ci, count(records), counts_by_group, metric_info(specs))


@dataclass
class ScoringJob:
    """Everything the shared driver needs to score one benchmark into a run folder.

    ``meta`` is the ``run.json`` a ``scenebench score`` run is opened with (benchmark, protocol,
    settings, inputs, fingerprint); ``summarize(records, run)`` turns the complete records into the
    results; ``check_inputs`` reads (and so validates) the predictions before a run folder is made,
    unless the folder already holds every score; ``on_stop(run)`` runs after scoring, also when it
    fails (e.g. to save a judge's usage); ``on_open(scorer)`` runs once the folder is open.
    """

    benchmark: str
    protocol: str
    scorer: Scorer
    summarize: Callable[[list[SampleScore], Any], Results]
    meta: dict[str, Any] = field(default_factory=dict)
    label: str = ""
    check_inputs: Callable[[], Any] | None = None
    on_open: Callable[[Any], None] | None = None
    on_stop: Callable[[Any], Any] | None = None
