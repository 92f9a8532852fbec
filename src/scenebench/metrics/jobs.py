"""What a benchmark's ``prepare`` hands the one shared scoring driver: a :class:`ScoringJob`.

It sits beside the score records (:mod:`scenebench.metrics.records`) and below every benchmark, so a
scorer builds its job without importing the runtime; the driver
(:func:`scenebench.runtime.scoring.score_job`) builds the run meta and fingerprint from it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scenebench.metrics.aggregate import MetricSpec
from scenebench.metrics.records import SampleScore, Scorer, summarize_scores
from scenebench.results import Results

# Turns the complete records (a list of ``SampleScore``) and the run folder into the run's results.
Summarize = Callable[[list[SampleScore], Any], Results]


@dataclass(frozen=True)
class JobHooks:
    """Optional steps around scoring: ``check_inputs()`` reads (and so validates) the predictions
    before a run folder is made, unless the folder already holds every score; ``on_open(scorer)``
    runs once the folder is open; ``on_stop(run)`` after scoring, also when it fails (a judge saves
    its usage)."""

    check_inputs: Callable[[], object] | None = None
    on_open: Callable[[Any], None] | None = None
    on_stop: Callable[[Any], object] | None = None


@dataclass(frozen=True)
class ScoringJob:
    """What a benchmark's ``prepare`` hands the one shared driver
    (:func:`scenebench.runtime.scoring.score_job`).

    ``settings`` and ``inputs`` (file records from :func:`scenebench.io.files.file_fingerprint`,
    the predictions under ``"predictions"``) go into ``run.json`` and the run's fingerprint, which
    the driver builds (:class:`scenebench.runtime.scoring.RunMeta`); ``score_key`` is what else the
    stored scores of a ``scenebench run`` depend on (3DBench: its judge): other values re-score the
    stored predictions.
    """

    benchmark: str
    protocol: str
    scorer: Scorer
    summarize: Summarize
    settings: Mapping[str, Any] = field(default_factory=dict)
    inputs: Mapping[str, Any] = field(default_factory=dict)
    label: str = ""
    hooks: JobHooks = field(default_factory=JobHooks)
    score_key: Mapping[str, Any] = field(default_factory=dict)
    digests: Mapping[str, Any] | None = None  # what the fingerprint covers, when not input_digests(inputs)


def summarize_listing_excluded(
    benchmark: str,
    protocol: str,
    specs: Sequence[MetricSpec],
    groups: Sequence[str],
    *,
    settings: Mapping[str, Any],
    inputs: Mapping[str, Any],
    n_resamples: int,
    seed: int,
) -> Summarize:
    """The usual summary of a per-sample scorer: ``specs`` overall and per group (scene-clustered
    CIs), the ``excluded`` samples counted and listed in ``extra.excluded_ids``."""

    def summarize(records: list[SampleScore], run: Any) -> Results:
        s = summarize_scores(records, specs, groups=groups, n_resamples=n_resamples, seed=seed)
        excluded = [r.sample_id for r in records if r.status == "excluded"]
        return s.to_results(benchmark, protocol, settings=settings, inputs=inputs, extra={"excluded_ids": excluded})

    return summarize
