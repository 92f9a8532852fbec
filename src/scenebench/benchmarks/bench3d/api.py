"""3DBench's v1 library entry point, :func:`score_3dbench`: a plug-in module.

It drives the shared scoring runtime (:func:`scenebench.runtime.scoring.score_benchmark`) the way
``scenebench score 3dbench`` does, so it sits above the runtime (the plug-in rule in
``pyproject.toml``); the scorer it reaches (:mod:`.run`) stays below.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scenebench.results import Results


def score_3dbench(
    data: str | Path,
    predictions: str | Path,
    *,
    tasks: str | None = None,
    protocol: str = "strict",
    judge: Any | None = None,
    out: str | Path | None = None,
    circular: bool = False,
    allow_missing: bool = False,
    limit: int | None = None,
    overwrite: bool = False,
    n_resamples: int = 1000,
    seed: int = 0,
    progress: bool = False,
    houses: str | Path | None = None,
    objects_gt: str | Path | None = None,
) -> Results:
    """Score ``predictions`` against the 3DBench folder ``data`` (the v1 entry point); ``judge`` is a built Judge or None."""
    from scenebench.runtime.scoring import score_benchmark

    res, _, _ = score_benchmark(
        "3dbench",
        out,
        protocol=protocol,
        overwrite=overwrite,
        progress=progress,
        data=data,
        predictions=predictions,
        tasks=tasks,
        judge=judge,
        circular=circular,
        allow_missing=allow_missing,
        limit=limit,
        n_resamples=n_resamples,
        seed=seed,
        houses=houses,
        objects_gt=objects_gt,
    )
    return res
