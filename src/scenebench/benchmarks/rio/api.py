"""RIO's v1 library entry points, :func:`score_rio` and :func:`score_matching`: a plug-in module.

They drive the shared scoring runtime (:mod:`scenebench.runtime.scoring`) the way ``scenebench
score rio`` and ``scenebench score rio-matching`` do, so they sit above the runtime (the plug-in rule
in ``pyproject.toml``); the scorers they reach (:mod:`.scorer`, :mod:`.matching`) stay below.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from scenebench.results import Results

from .matching import N_NEGATIVES, prepare_matching


def score_rio(
    data_root: str | Path,
    predictions_path: str | Path,
    *,
    split: str = "validation",
    scope: str = "changed",
    protocol: str = "strict",
    out: str | Path | None = None,
    overwrite: bool = False,
    units: str = "auto",
    symmetry_codes: Mapping[int, int] | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
    progress: bool = True,
    extra: Mapping[str, Any] | None = None,
    gt: str | Path | None = None,
) -> tuple[Results, Any]:
    """Score a predictions file against a 3RScan folder; returns the results and the run folder (the v1 entry point)."""
    from scenebench.runtime.scoring import score_benchmark

    res, run, _ = score_benchmark(
        "rio",
        out,
        protocol=protocol,
        overwrite=overwrite,
        progress=progress,
        data=data_root,
        predictions=predictions_path,
        split=split,
        scope=scope,
        units=units,
        symmetry_codes=symmetry_codes,
        n_resamples=n_resamples,
        seed=seed,
        extra=extra,
        **({"gt": gt} if gt is not None else {}),
    )
    return res, run


def score_matching(
    descriptors: str | Path,
    *,
    seed: int = 0,
    n_negatives: int = N_NEGATIVES,
    out: str | Path | None = None,
    overwrite: bool = False,
    n_resamples: int = 1000,
    progress: bool = True,
) -> tuple[Results, Any]:
    """Score a descriptor folder into a run folder (the v1 entry point of ``score rio-matching``)."""
    from scenebench.runtime.scoring import score_prepared

    job = prepare_matching(descriptors, seed=seed, n_negatives=n_negatives, n_resamples=n_resamples)
    return score_prepared(job, out, overwrite=overwrite, progress=progress)
