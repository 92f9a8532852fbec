"""Finished runs as the reports see them: settings, results and per-sample scores, read from disk.

Reports never rescore: they read ``run.json``, ``results.json`` and the ``score`` records of
``samples.sqlite`` that the scoring engine wrote (see :mod:`scenebench.runtime.rundir`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scenebench.errors import InputError
from scenebench.results import Results
from scenebench.runtime.rundir import RunDir
from scenebench.runtime.scoring import SCORE_KIND, SampleScore


@dataclass
class LoadedRun:
    path: Path
    meta: dict[str, Any]
    results: Results
    scores: list[SampleScore]
    label: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def benchmark(self) -> str:
        return self.results.benchmark

    @property
    def protocol(self) -> str:
        return self.results.protocol

    def scores_by_id(self) -> dict[str, SampleScore]:
        return {s.sample_id: s for s in self.scores}


GT_MARK = "[ground-truth perception]"  # appended to the label of runs whose model read ground-truth objects
GT_ANSWERS_MARK = "[ground-truth answers]"  # runs whose model was handed the answers (the oracle): a check, not a result


def default_label(path: Path, meta: dict[str, Any]) -> str:
    """A short name for tables: the model named in run.json if any, else the folder name."""
    for key in ("label", "model"):
        v = meta.get(key) or (meta.get("settings") or {}).get(key)
        if isinstance(v, str) and v:
            return v
    return path.resolve().name


def load_run(path: str | Path, label: str | None = None) -> LoadedRun:
    """Read a finished run folder; errors say which file is missing and what to run first."""
    run = RunDir(path)
    if not run.path.is_dir():
        raise InputError(run.path, "run folder does not exist")
    if not run.results_json.exists():
        raise InputError(run.results_json, "no results in this run folder; score it first (scenebench score ... --out RUN_DIR)")
    results = Results.load(run.results_json)
    meta = run.read_meta() if run.exists() else {}
    scores: list[SampleScore] = []
    if run.store_path.exists():
        with run.reader() as store:
            for sid, body in store.iter(SCORE_KIND):
                try:
                    scores.append(SampleScore.from_json(body))
                except (KeyError, TypeError, ValueError) as exc:
                    raise InputError(run.store_path, f"score record is malformed: {exc}", where=f"sample '{sid}'") from None
    name = label or default_label(run.path, meta)
    if results.ground_truth_perception and GT_MARK not in name:
        name = f"{name} {GT_MARK}"
    if ((results.extra or {}).get("run") or {}).get("ground_truth_answers") and GT_ANSWERS_MARK not in name:
        name = f"{name} {GT_ANSWERS_MARK}"
    return LoadedRun(run.path, meta, results, scores, name)


def _flat(d: Any, prefix: str = "") -> dict[str, str]:
    """Nested settings as ``{"model_options.seed": "0", ...}`` (values as compact text)."""
    out: dict[str, str] = {}
    if isinstance(d, dict):
        for k, v in d.items():
            out.update(_flat(v, f"{prefix}{k}."))
        return out
    import json

    out[prefix[:-1]] = d if isinstance(d, str) else json.dumps(d, sort_keys=True, default=str)
    return out


# Settings that say nothing about how a run differs from another (ids, paths of the run itself).
_NOT_A_DIFFERENCE = ("fingerprint", "stage", "inputs", "run")


def run_settings(run: LoadedRun) -> dict[str, str]:
    """Everything a run was made with: scoring settings, the model and its options, seed, data."""
    merged: dict[str, Any] = {k: v for k, v in run.meta.items() if k not in _NOT_A_DIFFERENCE and k != "benchmark"}
    merged.update(run.results.settings or {})
    merged["protocol"] = run.protocol
    return _flat(merged)


def differing_settings(runs: Sequence[LoadedRun], max_keys: int = 3) -> list[str]:
    """For runs sharing a name: per run, the settings in which it differs from the others
    (``"model_options.temperature=0.7"``); the folder name when no setting differs."""
    flats = [run_settings(r) for r in runs]
    keys = sorted({k for f in flats for k in f})
    diff = [k for k in keys if len({f.get(k, "–") for f in flats}) > 1]
    out = []
    for r, f in zip(runs, flats):
        parts = [f"{k}={f.get(k, '–')}" for k in diff[:max_keys]]
        if len(diff) > max_keys:
            parts.append(f"+{len(diff) - max_keys} more")
        out.append(", ".join(parts) if diff else r.path.resolve().name)
    return out


def load_runs(paths: Sequence[str | Path], labels: Sequence[str] | None = None) -> list[LoadedRun]:
    """Read run folders. Runs of one benchmark that would share a name (two runs of the same model)
    are told apart by what differs in their settings: ``baseline:prior [seed=1]``."""
    labels = list(labels or [])
    if labels and len(labels) != len(paths):
        raise InputError(None, f"{len(labels)} labels given for {len(paths)} runs", expected="one --label per run or none")
    runs = [load_run(p, labels[i] if labels else None) for i, p in enumerate(paths)]
    same: dict[tuple[str, str], list[LoadedRun]] = {}
    for r in runs:
        same.setdefault((r.benchmark, r.label), []).append(r)
    for group in same.values():
        if len(group) < 2:
            continue
        for r, why in zip(group, differing_settings(group)):
            r.label = f"{r.label} [{why}]"
    seen: dict[tuple[str, str], int] = {}
    for r in runs:  # identical settings and folder names: still no two rows with one name
        key = (r.benchmark, r.label)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            r.label = f"{r.label} ({seen[key]})"
    return runs
