"""Finished toy runs built directly from SampleScore/Results, the way the scoring engine writes them."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from scenebench.metrics.aggregate import Mean, Median
from scenebench.results import Results
from scenebench.runtime.rundir import RunDir
from scenebench.runtime.scoring import SCORE_KIND, SampleScore, summarize_scores

SPECS = [
    Mean("A25", "a25", scale=100, unit="%", description="share with IoU >= 0.25"),
    Mean("mIoU", "iou", scale=100, unit="%", description="mean IoU"),
    Median("MedErr", "err", unit="m", description="median error"),
]
EVIL = "<script>document.title='pwned';window.__pwned=1</script><img src=x onerror=\"window.__pwned=2\">"


def toy_scores(seed: int = 0, n_scenes: int = 6, per_scene: int = 5, shift: float = 0.0, evil: bool = True) -> list[SampleScore]:
    rng = np.random.default_rng(seed)
    base = np.random.default_rng(123)  # shared difficulty so two runs are paired, not independent
    out = []
    for s in range(n_scenes):
        for k in range(per_scene):
            sid = f"scene{s}:{k}"
            qt = ["cs", "rel_pos", "abs"][k % 3]
            difficulty = base.uniform(0, 1)
            if (s, k) == (1, 1):
                out.append(
                    SampleScore(
                        sid,
                        f"scene{s}",
                        "missing",
                        {"iou": 0.0, "a25": 0.0, "err": math.nan},
                        {"question_type": qt},
                        {"question": f"q {sid}", "reason": "no prediction"},
                    )
                )
                continue
            if (s, k) == (2, 2):
                out.append(
                    SampleScore(
                        sid, f"scene{s}", "excluded", {}, {"question_type": qt}, {"question": f"q {sid}", "reason": "empty GT mask"}
                    )
                )
                continue
            iou = float(np.clip(difficulty + shift + rng.normal(0, 0.1), 0, 1))
            detail = {
                "question": f"where is the thing in {sid}?",
                "prediction": f"indices for {sid}",
                "parsed": {"n_points": int(iou * 100)},
            }
            if evil and (s, k) == (0, 0):
                detail["prediction"] = EVIL
                detail["question"] = "Which object? " + EVIL
            out.append(
                SampleScore(
                    sid,
                    f"scene{s}",
                    "scored",
                    {"iou": iou, "a25": float(iou >= 0.25), "err": float(1 - iou)},
                    {"question_type": qt},
                    detail,
                )
            )
    return out


def write_run(
    path: Path, scores: list[SampleScore], *, benchmark: str = "toy", protocol: str = "strict", meta_extra: dict | None = None
) -> Path:
    run = RunDir(path)
    meta = {
        "benchmark": benchmark,
        "protocol": protocol,
        "fingerprint": path.name,
        "settings": {},
        "inputs": {"annotations": {"path": "/data/ann.json", "sha256": "a" * 64, "bytes": 10}},
    }
    meta.update(meta_extra or {})
    run.open(meta)
    with run.store() as store:
        store.put_many(SCORE_KIND, [(s.sample_id, s.to_json()) for s in scores])
    summ = summarize_scores(scores, SPECS, groups=["question_type"], n_resamples=200)
    Results(
        benchmark=benchmark,
        protocol=protocol,
        metrics=summ.metrics,
        confidence_intervals=summ.intervals,
        counts=summ.counts,
        counts_by_group=summ.counts_by_group,
        metric_info=summ.metric_info,
        inputs=meta["inputs"],
        warnings=["1 sample excluded: empty GT mask"],
    ).save(run.results_json)
    return path


@pytest.fixture
def toy_run(tmp_path: Path) -> Path:
    return write_run(tmp_path / "toy-run", toy_scores())
