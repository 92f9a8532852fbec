"""``scenebench audit`` on SURPRISE3D: every probe through the runner, per question type."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from scenebench.declarations import AUDIT_PROBES as PROBES


def _num(v: Any) -> float | None:
    return None if v is None else float(v)


def rows(root: Path, out: Path, *, seed: int, split: str, progress: bool) -> list[dict[str, Any]]:
    """The audit rows of a SURPRISE3D folder: mIoU of every probe, overall and per question type (``split``: unused)."""
    from scenebench.models.sources.base import make_source
    from scenebench.runtime.runner import run_benchmark

    source = make_source("surprise3d", data=str(root))
    res = {
        probe: run_benchmark(source, model, out / "surprise3d" / probe, seed=seed, progress=progress).results
        for probe, model in PROBES.items()
    }
    rows = []
    groups: list[tuple[str, Callable[[Any], Any], Callable[[Any], Any]]] = [
        ("all", lambda r: r.metrics.get("overall", {}), lambda r: r.counts.n_samples)
    ]
    for qt in sorted(res["oracle"].metrics.get("by_question_type", {})):
        groups.append(
            (
                qt,
                lambda r, qt=qt: r.metrics["by_question_type"].get(qt, {}),  # type: ignore[misc]
                lambda r, qt=qt: (  # type: ignore[misc]
                    r.counts_by_group.get("question_type", {}).get(qt).n_samples
                    if r.counts_by_group.get("question_type", {}).get(qt)
                    else None
                ),
            )
        )
    for name, get, count in groups:
        row = {"benchmark": "surprise3d", "task": "reasoning_segmentation", "group": name, "metric": "mIoU", "n": count(res["oracle"])}
        for probe in PROBES:
            row[probe] = _num(get(res[probe]).get("mIoU"))
        row["chance"] = row["random"]
        rows.append(row)
    return rows
