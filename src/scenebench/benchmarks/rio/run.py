"""``scenebench run rio --model baseline:fpfh``: predict every rescan (saved as produced), then score.

The run folder holds the predictions per rescan in its store (kind ``prediction``), so a killed run
resumes at the next rescan; ``predictions.jsonl`` (the public prediction format) is written from
the store once every rescan is done, and the same run folder receives the scores and
``results.json``. ``extra.baseline`` reports seconds per rescan and the baseline's own failure
flags (``status``: ok / low_fitness / too_few_points / no_points) next to the scores.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.errors import ScenebenchError
from scenebench.io.files import file_fingerprint
from scenebench.results import Results
from scenebench.runtime.rundir import RunDir, default_run_dir, fingerprint
from scenebench.runtime.scoring import score_into_run

from .fpfh_baseline import FpfhSettings, relocalize_rescan
from .loader import ThreeRScan
from .predictions import read_pose_predictions, write_pose_predictions
from .scorer import THRESHOLDS, RioScorer, build_results

PREDICTION_KIND = "prediction"


def _finite(x: float | None) -> float | None:
    """JSON has no infinity: an unbounded error (no prediction) is written as null."""
    return x if x is not None and math.isfinite(x) else None
MODELS = ("baseline:fpfh",)


def run_rio(
    data_root: str | Path,
    *,
    model: str = "baseline:fpfh",
    out: str | Path | None = None,
    split: str = "validation",
    protocol: str = "strict",
    settings: FpfhSettings = FpfhSettings(),
    limit: int | None = None,
    overwrite: bool = False,
    units: str = "auto",
    symmetry_codes: Mapping[int, int] | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
    progress: bool = True,
) -> tuple[Results, RunDir, list[dict[str, Any]]]:
    """Run the baseline on every rescan of ``split`` (or the first ``limit``); return results, run, rows."""
    if model not in MODELS:
        raise ScenebenchError(f"unknown RIO model {model!r}; available: {', '.join(MODELS)}")
    from scenebench.progress import progress_bar

    data = ThreeRScan(data_root, units=units, symmetry_codes=symmetry_codes)
    rescans = data.split_rescans(split)
    if limit is not None:
        rescans = rescans[: max(0, limit)]
    run_settings = {
        "split": split, "limit": limit, "model": model, "baseline": settings.to_json(), "units": data.unit_decision,
        "thresholds": [{"field": f, "t_m": tm, "r_deg": rd, "inclusive": True} for f, tm, rd in THRESHOLDS],
        "symmetry_codes": {str(k): v for k, v in sorted((symmetry_codes or {}).items())},
        "bootstrap": {"n_resamples": n_resamples, "seed": seed},
    }
    inputs = {"index": file_fingerprint(data.index_path)}
    if data.objects_path.exists():
        inputs["objects"] = file_fingerprint(data.objects_path)
    inputs["scan_files"] = data.scan_files_fingerprint(rescans)  # semseg.v2.json + PLY: points and centroids
    meta = {"benchmark": "rio", "protocol": protocol, "settings": run_settings, "inputs": inputs}
    meta["fingerprint"] = fingerprint({"settings": run_settings, "inputs": {k: v["sha256"] for k, v in inputs.items()}, "protocol": protocol})
    run = RunDir(out or default_run_dir("rio")).open(meta, overwrite=overwrite)

    with run.store() as store:
        done = store.ids(PREDICTION_KIND)
        todo = [r for r in rescans if r.scan_id not in done]
        with progress_bar(total=len(todo), label="fpfh baseline", enabled=progress, unit="rescans") as advance:
            for r in todo:
                rows, seconds = relocalize_rescan(data, r, settings)
                body = {"seconds": seconds, "rows": [{**row, "pose": np.asarray(row["pose"]).tolist()} for row in rows]}
                store.put_many(PREDICTION_KIND, [(r.scan_id, body)])  # saved the moment the rescan is done
                advance(1)
        stored = dict(store.iter(PREDICTION_KIND))
    wanted = [r.scan_id for r in rescans]
    rows = [row for sid in wanted for row in stored[sid]["rows"]]
    pred_path = run.path / "predictions.jsonl"
    write_pose_predictions(pred_path, rows)

    preds = read_pose_predictions(pred_path, data.reference_instances(), evaluated=wanted, allow_empty=True)
    records = score_into_run(RioScorer(data, preds, rescans, protocol), run, progress=progress, label="scoring rio")
    seconds = {sid: float(stored[sid]["seconds"]) for sid in wanted}
    status = Counter(row["status"] for row in rows)
    method = Counter(row["method"] for row in rows)
    by_id = {f"{row['rescan']}/{row['instance']}": row for row in rows}
    failures = []
    for rec in records:
        if rec.status == "excluded" or rec.values.get("hit_10", 0.0) == 1.0:
            continue
        row = by_id.get(rec.sample_id, {})
        failures.append({
            "sample_id": rec.sample_id, "label": rec.groups.get("label"), "motion": rec.groups.get("motion"),
            "status": row.get("status", "no prediction"), "method": row.get("method"), "fitness": row.get("fitness"),
            "r_err": _finite(rec.values.get("r_err")), "t_err": _finite(rec.values.get("t_err")),
        })
    extra = {
        "n_rescans": len(rescans),
        "baseline": {
            "model": model,
            "seconds_per_rescan": seconds,
            "mean_seconds_per_rescan": float(np.mean(list(seconds.values()))) if seconds else None,
            "max_seconds_per_rescan": float(np.max(list(seconds.values()))) if seconds else None,
            "status_counts": dict(status),
            "method_counts": dict(method),
            "failures": failures,
        },
        "predictions_file": str(pred_path),
    }
    inputs_all = {**inputs, "predictions": file_fingerprint(pred_path)}
    res = build_results(records, protocol=protocol, settings=run_settings, inputs=inputs_all, extra=extra, n_resamples=n_resamples, seed=seed)
    res.save(run.results_json)
    return res, run, rows
