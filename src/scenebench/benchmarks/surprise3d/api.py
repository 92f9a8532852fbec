"""SURPRISE3D's v1 library entry point, :func:`score_run`: a plug-in module.

It drives the shared scoring runtime (:func:`scenebench.runtime.scoring.score_benchmark`) the way
``scenebench score surprise3d`` does, so it sits above the runtime (the plug-in rule in
``pyproject.toml``); the scorer it reaches is the declared one (:mod:`.scorer`), which stays below.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from scenebench.results import Results

from .predictions import DEFAULT_SCORE_THRESHOLD
from .scorer import BENCHMARK, Surprise3DScorer


def score_run(
    annotations_path: str | Path,
    scenes_dir: str | Path,
    predictions_path: str | Path,
    out: str | Path,
    *,
    protocol: str = "strict",
    score_threshold: float = DEFAULT_SCORE_THRESHOLD,
    overwrite: bool = False,
    n_resamples: int = 1000,
    seed: int = 0,
    progress: bool = True,
    scorer_hook: Callable[[Surprise3DScorer], None] | None = None,
) -> tuple[Results, Any, Surprise3DScorer]:
    """Score (or resume, or re-report) a run in ``out``; write and return its results (the v1 entry point)."""
    from scenebench.runtime.scoring import score_benchmark

    res, run, job = score_benchmark(
        BENCHMARK,
        out,
        protocol=protocol,
        overwrite=overwrite,
        progress=progress,
        annotations=annotations_path,
        scenes=scenes_dir,
        predictions=predictions_path,
        score_threshold=score_threshold,
        n_resamples=n_resamples,
        seed=seed,
        scorer_hook=scorer_hook,
    )
    return res, run, job.scorer  # type: ignore[return-value]
