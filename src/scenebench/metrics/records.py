"""Per-sample score records and their summaries: what every benchmark scorer produces.

A benchmark scorer (:class:`Scorer`) yields :class:`SampleScore` batches, one per scene, so a
scene's points are loaded once; :func:`summarize_scores` turns the records into the metrics, counts
and scene-clustered intervals of the shared results schema. A benchmark hands its scorer to the one
shared driver in a :class:`scenebench.metrics.jobs.ScoringJob`
(:func:`scenebench.runtime.scoring.score_job`), which stores records as they are computed, resumes,
and saves ``results.json``.

This module sits at the bottom layer (metrics): benchmarks build on it without importing the
runtime.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import numpy as np

from scenebench.metrics.aggregate import MetricSpec, field_matrix, fields_of, metric_info, summarize_columns, summarize_one_cluster_groups
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
    # read-only: a scorer may narrow them (a protocol typed as the two known names)
    @property
    def benchmark(self) -> str: ...

    @property
    def protocol(self) -> str: ...

    def sample_ids(self) -> list[str]:
        """Every ground-truth sample id, in order: the denominator."""

    def iter_scores(self, skip: set[str]) -> Iterator[list[SampleScore]]:
        """Yield batches (one per scene, or of many scenes at once) of scores for samples not in ``skip``."""


def count(records: Sequence[SampleScore]) -> Counts:
    return _count_statuses([r.status for r in records])


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

    def to_results(
        self,
        benchmark: str,
        protocol: str,
        *,
        settings: Mapping[str, Any] | None = None,
        inputs: Mapping[str, Any] | None = None,
        warnings: Sequence[str] = (),
        extra: Mapping[str, Any] | None = None,
    ) -> Results:
        """The run's :class:`Results`: the one way a scorer turns its summary into ``results.json``
        (``protocol`` as the scorer received it: ``strict``, ``official`` or ``official:<lineage>``)."""
        return Results(
            benchmark=benchmark,
            protocol=protocol,
            metrics=self.metrics,
            confidence_intervals=self.intervals,
            counts=self.counts,
            counts_by_group=self.counts_by_group,
            metric_info=self.metric_info,
            settings=dict(settings or {}),
            inputs=dict(inputs or {}),
            warnings=list(warnings),
            extra=dict(extra or {}),
        )


def summarize_scores(
    records: Sequence[SampleScore],
    specs: Sequence[MetricSpec],
    *,
    groups: Sequence[str] = (),
    n_resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> Summary:
    """Overall and per-group metrics with scene-clustered CIs. Excluded samples enter no metric.

    Group values whose samples all come from one scene (RIO's per-scene breakdown: 2,000 of them)
    are summarised together in one pass (:func:`summarize_one_cluster_groups`, the same numbers).
    """
    # The per-sample columns and scene names are built once; each subset (overall, every group
    # value) takes its rows of them, in record order (what building them per subset gave).
    columns = field_matrix([r.values for r in records], fields_of(specs))
    scene_list = [r.scene_id for r in records]
    statuses = [r.status for r in records]
    group_cols = {g: [str(r.groups.get(g, "unknown")) for r in records] for g in groups}
    # Clusters as the ranks of the scene names (np.unique's order): every subset's np.unique and
    # equality tests give what the names give, sorting integers instead of 200,000 strings per subset.
    scenes = np.unique(np.asarray(scene_list, dtype=object).astype(str), return_inverse=True)[1].reshape(-1)
    n = len(statuses)
    scene_code = _codes(scene_list)[0]
    status_code, status_names = _codes(statuses)
    kept = np.asarray([name != "excluded" for name in status_names], dtype=bool)[status_code] if n else np.zeros(0, dtype=bool)

    def block(ix: np.ndarray) -> tuple[dict[str, Any], dict[str, Any]]:
        return summarize_columns(specs, {k: v[ix] for k, v in columns.items()}, scenes[ix], n_resamples=n_resamples, seed=seed, level=level)

    metrics: dict[str, Any] = {}
    ci = ConfidenceIntervals(level=level, n_resamples=n_resamples, seed=seed)
    metrics["overall"], ci.overall = block(np.flatnonzero(kept))
    counts_by_group: dict[str, dict[str, Counts]] = {}
    for g in groups:
        col = group_cols[g]
        code, names = _codes(col)
        n_vals = len(names)
        # Rows of each value, ascending (a stable sort by value), the excluded ones left out.
        order = np.argsort(code[kept], kind="stable")
        rows_kept = np.flatnonzero(kept)[order]
        ends = np.cumsum(np.bincount(code[kept], minlength=n_vals))
        starts = ends - np.bincount(code[kept], minlength=n_vals)
        one = _one_cluster(scene_code[rows_kept], starts, ends)
        fast = summarize_one_cluster_groups(specs, columns, rows_kept, starts[one], ends[one], n_resamples=n_resamples, level=level)
        blocks: dict[int, tuple[dict[str, Any], dict[str, Any]]] = dict(zip(np.flatnonzero(one).tolist(), fast)) if fast else {}
        tally = np.bincount(code * len(status_names) + status_code, minlength=n_vals * len(status_names)).reshape(n_vals, len(status_names))
        key = f"by_{g}"
        metrics[key], cis, counts = {}, {}, {}
        for v in sorted(range(n_vals), key=names.__getitem__):
            name = names[v]
            metrics[key][name], cis[name] = blocks[v] if v in blocks else block(rows_kept[starts[v] : ends[v]])
            by_status = dict(zip(status_names, tally[v].tolist()))
            counts[name] = Counts(
                n_samples=int(tally[v].sum()),
                n_scored=by_status.get("scored", 0),
                n_missing=by_status.get("missing", 0),
                n_invalid=by_status.get("invalid", 0),
                n_excluded=by_status.get("excluded", 0),
            )
        setattr(ci, key, cis)
        counts_by_group[key] = counts
    return Summary(metrics, ci, _count_statuses(statuses), counts_by_group, metric_info(specs))


def _codes(values: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    """Integer codes of ``values`` (first appearance order) and the distinct values (two C-level
    passes: a dict of the distinct values, then a look-up per value)."""
    names = list(dict.fromkeys(values))
    index = {v: k for k, v in enumerate(names)}
    return np.fromiter(map(index.__getitem__, values), dtype=np.intp, count=len(values)), names


def _one_cluster(cluster: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """True for every segment ``cluster[starts[k]:ends[k]]`` that is non-empty and holds one value."""
    nonempty = ends > starts
    out = np.zeros(len(starts), dtype=bool)
    if cluster.size:
        s = starts[nonempty]
        out[nonempty] = np.minimum.reduceat(cluster, s) == np.maximum.reduceat(cluster, s)
    return out
