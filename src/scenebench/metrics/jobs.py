"""What a benchmark's ``prepare`` hands the one shared scoring driver: a :class:`ScoringJob`.

It sits beside the score records (:mod:`scenebench.metrics.records`) and below every benchmark, so a
scorer builds its job without importing the runtime; the driver
(:func:`scenebench.runtime.scoring.score_job`) builds the run meta and fingerprint from it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from scenebench.metrics.records import SampleScore, Scorer
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
