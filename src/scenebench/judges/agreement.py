"""How well two judges (or a judge and humans) agree, so a cheaper judge can be qualified.

Inputs are judged items keyed by ``sample_id``: a run folder (the benchmark scorer stores each judged
sample's verdict in ``samples.sqlite`` as ``SampleScore.detail["judge"] = {"value", "valid",
"model_id", "prompt_version"}``) or a JSONL file of ``{"sample_id", "score"}`` (``score`` null or a
``"valid": false`` field marks an invalid verdict).

Only samples judged validly by both sides are compared; the others are counted, never dropped
silently. Figures (see ``docs/judges.md``):

* ``agreement_pct``: % of pairs with the same verdict (equal value);
* ``bucket_agreement_pct``: % of pairs in the same score bucket (0–10 scores: low < 4 ≤ mid < 7 ≤ high;
  binary verdicts: the verdict itself);
* ``cohen_kappa``: Cohen's kappa on those buckets (on the verdicts when binary);
* ``weighted_kappa``: quadratic-weighted kappa on scores rounded to integers 0–10 (scores only);
* ``spearman_rho`` / ``spearman_p``: Spearman rank correlation of the values (scipy);
* ``mean_abs_diff``: mean |a − b| of the values.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.errors import InputError
from scenebench.io.files import is_finite_number, iter_jsonl

BUCKET_EDGES = (4.0, 7.0)  # low < 4 <= mid < 7 <= high
BUCKET_NAMES = ("low", "mid", "high")


@dataclass(frozen=True)
class JudgedItem:
    sample_id: str
    value: float | None
    valid: bool
    task: str | None = None


def cohen_kappa(a: np.ndarray, b: np.ndarray, *, weights: str | None = None, n_labels: int | None = None) -> float:
    """Cohen's kappa of two raters' integer labels ``a``, ``b`` (shape (n,), values in 0..L-1).

    kappa = 1 − Σ w·O / Σ w·E with O the observed and E the chance (outer product of marginals)
    confusion matrices; w = 1 off the diagonal (unweighted) or (i−j)² (``weights="quadratic"``).
    NaN when undefined (no pairs, or both raters always use one same label: chance agreement is 1).
    """
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError("a and b must be 1-D arrays of the same length")
    if a.size == 0:
        return math.nan
    L = int(n_labels if n_labels is not None else max(a.max(), b.max()) + 1)
    obs = np.zeros((L, L))
    np.add.at(obs, (a, b), 1.0)
    obs /= a.size
    exp = np.outer(obs.sum(1), obs.sum(0))
    i, j = np.indices((L, L))
    w = (i - j) ** 2.0 if weights == "quadratic" else (i != j).astype(float)
    denom = float((w * exp).sum())
    if denom == 0.0:
        return math.nan
    return 1.0 - float((w * obs).sum()) / denom


def bucket(values: np.ndarray, binary: bool) -> np.ndarray:
    """Score buckets 0/1/2 (low/mid/high) for 0–10 scores; the verdict itself for binary values."""
    v = np.asarray(values, dtype=float)
    if binary:
        return v.astype(np.int64)
    return np.digitize(v, BUCKET_EDGES).astype(np.int64)


def compare(a: list[float], b: list[float]) -> dict[str, Any]:
    """Agreement figures for paired valid values (same order)."""
    from scipy.stats import spearmanr

    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    n = int(x.size)
    out: dict[str, Any] = {"n_pairs": n}
    if n == 0:
        return out | {
            "agreement_pct": None,
            "bucket_agreement_pct": None,
            "cohen_kappa": None,
            "weighted_kappa": None,
            "spearman_rho": None,
            "spearman_p": None,
            "mean_abs_diff": None,
            "binary": None,
        }
    binary = bool(np.isin(x, (0.0, 1.0)).all() and np.isin(y, (0.0, 1.0)).all())
    bx, by = bucket(x, binary), bucket(y, binary)
    n_labels = 2 if binary else len(BUCKET_NAMES)
    out["binary"] = binary
    out["agreement_pct"] = 100.0 * float(np.mean(x == y))
    out["bucket_agreement_pct"] = 100.0 * float(np.mean(bx == by))
    out["cohen_kappa"] = _none_if_nan(cohen_kappa(bx, by, n_labels=n_labels))
    if binary:
        out["weighted_kappa"] = None
    else:
        ix = np.clip(np.rint(x), 0, 10).astype(np.int64)
        iy = np.clip(np.rint(y), 0, 10).astype(np.int64)
        out["weighted_kappa"] = _none_if_nan(cohen_kappa(ix, iy, weights="quadratic", n_labels=11))
    if n >= 2 and np.ptp(x) > 0 and np.ptp(y) > 0:
        res = spearmanr(x, y)
        out["spearman_rho"], out["spearman_p"] = float(res.statistic), float(res.pvalue)
    else:  # a constant side has no ranks to correlate
        out["spearman_rho"] = out["spearman_p"] = None
    out["mean_abs_diff"] = float(np.mean(np.abs(x - y)))
    return out


def _none_if_nan(v: float) -> float | None:
    return None if math.isnan(v) else v


def agreement(a: dict[str, JudgedItem], b: dict[str, JudgedItem]) -> dict[str, Any]:
    """Overall (and per-task, when tasks are known) agreement of two sets of judged items."""
    common = [s for s in a if s in b]
    both_valid = [s for s in common if a[s].valid and b[s].valid]
    result: dict[str, Any] = {
        "counts": {
            "n_a": len(a),
            "n_b": len(b),
            "n_common": len(common),
            "only_a": len(a) - len(common),
            "only_b": len(b) - len(common),
            "invalid_a": sum(not a[s].valid for s in common),
            "invalid_b": sum(not b[s].valid for s in common),
            "invalid_both": sum(not a[s].valid and not b[s].valid for s in common),
        },
        "overall": compare([a[s].value for s in both_valid], [b[s].value for s in both_valid]),  # type: ignore[misc]
    }
    by_task: dict[str, list[str]] = defaultdict(list)
    for s in both_valid:
        t = a[s].task or b[s].task
        if t:
            by_task[t].append(s)
    if by_task:
        result["by_task"] = {t: compare([a[s].value for s in ids], [b[s].value for s in ids]) for t, ids in sorted(by_task.items())}  # type: ignore[misc]
    return result


def judged_from_records(records: Iterable[Any], folder: str | Path, store_path: str | Path) -> tuple[dict[str, JudgedItem], dict[str, Any]]:
    """Judged items and a description from a run's score records (``detail.judge`` of each record).

    The records are read by the caller (:func:`scenebench.commands.judge.load_judged`), which keeps this
    module below the runtime that owns run folders.
    """
    items: dict[str, JudgedItem] = {}
    models: set[str] = set()
    prompts: set[str] = set()
    for rec in records:
        j = rec.detail.get("judge")
        if not isinstance(j, dict):
            continue
        where = f"sample {rec.sample_id}"
        value = j.get("value")
        valid = bool(j.get("valid", value is not None))
        if valid and not is_finite_number(value):
            raise InputError(
                store_path, "judge verdict marked valid has no numeric value", where=where, field="detail.judge.value", expected="a number"
            )
        if j.get("model_id"):
            models.add(str(j["model_id"]))
        if j.get("prompt_version"):
            prompts.add(str(j["prompt_version"]))
        items[rec.sample_id] = JudgedItem(rec.sample_id, float(value) if valid else None, valid, rec.groups.get("task"))
    if not items:
        raise InputError(folder, "run holds no judged samples (no detail.judge in samples.sqlite)", expected="a run scored with --judge")
    return items, {"source": str(folder), "kind": "run", "model_ids": sorted(models), "prompt_versions": sorted(prompts)}


def load_judged_jsonl(path: str | Path) -> tuple[dict[str, JudgedItem], dict[str, Any]]:
    items: dict[str, JudgedItem] = {}
    for lineno, rec in iter_jsonl(path):
        where = f"line {lineno}"
        sid = rec.get("sample_id")
        if not isinstance(sid, (str, int)) or isinstance(sid, bool) or str(sid) == "":
            raise InputError(path, "missing or bad sample_id", where=where, field="sample_id", expected="a non-empty string")
        sid = str(sid)
        if sid in items:
            raise InputError(path, f"sample_id {sid!r} appears twice", where=where, field="sample_id", expected="one record per sample")
        if "score" not in rec:
            raise InputError(path, "missing score", where=where, field="score", expected="a number, or null for an invalid verdict")
        score = rec["score"]
        valid = bool(rec.get("valid", score is not None))
        if score is not None and not is_finite_number(score):
            raise InputError(path, f"score is {score!r}", where=where, field="score", expected="a finite number or null")
        if valid and score is None:
            raise InputError(path, "valid verdict without a score", where=where, field="score", expected="a number")
        task = rec.get("task")
        items[sid] = JudgedItem(sid, float(score) if valid else None, valid, str(task) if task is not None else None)
    return items, {"source": str(path), "kind": "jsonl", "model_ids": [], "prompt_versions": []}
