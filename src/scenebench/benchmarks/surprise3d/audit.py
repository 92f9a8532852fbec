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


# --- trained probes (scikit-learn, the audit extra): fitted on the train annotations, scored on val ---

SIGHTED = "sighted-geometry"  # the question's words, labelled instances and their points (solver.py); never flagged
LABELS_GOAL = 15.0  # mIoU a labels-without-coordinates probe may reach (docs/synth.md); flagged above
BOOTSTRAP = 1000  # scene-level resamples for the 95% interval of a mean IoU


def _instance_labels(root: Path, scene_id: str) -> dict[int, str]:
    """Instance id -> label from ``scannetpp/<scene>/scans/segments_anno.json`` (empty when absent)."""
    import json

    p = root / "scannetpp" / scene_id / "scans" / "segments_anno.json"
    if not p.is_file():
        return {}
    doc = json.loads(p.read_text())
    return {int(g["objectId"]): str(g["label"]) for g in doc.get("segGroups", []) if isinstance(g, dict)}


def _mean_iou_row(probe: str, group: str, ious: list[float], scenes: list[str], chance: float, seed: int) -> dict[str, Any]:
    """A trained-probe row of a mean IoU: score, 95% interval by resampling scenes, flagged when the
    interval's lower bound exceeds :data:`LABELS_GOAL`."""
    import numpy as np

    iou = np.asarray(ious, float)
    keys = np.unique(scenes, return_inverse=True)[1]
    per_sum = np.bincount(keys, weights=iou)
    per_n = np.bincount(keys).astype(float)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(per_n), (BOOTSTRAP, len(per_n)))
    means = per_sum[draws].sum(1) / np.maximum(per_n[draws].sum(1), 1.0)
    low, high = (float(v) for v in np.quantile(means, [0.025, 0.975]))
    return {
        "benchmark": "surprise3d",
        "task": "reasoning_segmentation",
        "group": group,
        "probe": probe,
        "metric": "mIoU",
        "n": len(iou),
        "score": 100.0 * float(iou.mean()),
        "low": 100.0 * low,
        "high": 100.0 * high,
        "chance": chance,
        "flag": probe.startswith("labels") and 100.0 * low > LABELS_GOAL,
    }


def trained(root: Path, out: Path, *, seed: int, split: str, progress: bool) -> list[dict[str, Any]]:
    """Trained probes of a SURPRISE3D folder (``out``, ``split``, ``progress``: unused): the target
    category guessed from the question by a TF-IDF linear model fitted on the train annotations,
    restricted to the labels the scene holds, then **labels-fewest-points** (the instance of that
    label with the fewest points: a size rule), **labels-most-points** and **labels-random-instance**
    (one drawn uniformly). They read labels and point counts, never coordinates. Beside them
    **sighted-geometry** (:mod:`.solver`): the same category guess, then geometric rules on the
    instances' points and the question's relation words, what looking adds. Mean IoU per
    question type with a scene-bootstrap interval; chance: a uniformly random instance of the scene."""
    import numpy as np

    from scenebench.extras import require

    require("sklearn", "audit", "the trained SURPRISE3D probes of scenebench audit")
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    from scenebench.benchmarks.surprise3d.annotations import load_annotations
    from scenebench.benchmarks.surprise3d.scenes import load_scene
    from scenebench.benchmarks.surprise3d.solver import SceneBoxes, scene_boxes, solve

    tr_path, te_path = root / "surprise-3d-train.json", root / "surprise-3d-val.json"
    if not tr_path.is_file() or not te_path.is_file():
        return []
    train, test = load_annotations(tr_path).samples, load_annotations(te_path).samples
    ytr = [s.object_name[0] if s.object_name else "" for s in train]
    if not test or len(set(ytr)) < 2:
        return []
    vec = TfidfVectorizer(ngram_range=(1, 2), min_df=1, sublinear_tf=True)
    model = LogisticRegression(C=10.0, max_iter=2000, random_state=seed).fit(vec.fit_transform([s.description for s in train]), ytr)
    classes = list(model.classes_)
    scores = model.decision_function(vec.transform([s.description for s in test]))
    rng = np.random.default_rng(seed)
    probes = ("labels-fewest-points", "labels-most-points", "labels-random-instance")
    ious: dict[str, list[float]] = {p: [] for p in probes}
    chance: list[float] = []
    groups: list[str] = []
    scenes: list[str] = []
    cache: dict[str, tuple[dict[int, int], dict[int, str], SceneBoxes]] = {}
    ious[SIGHTED] = []
    solver_rng = np.random.default_rng([seed, 1])  # its own stream: the labels probes draw as before
    for s, sc in zip(test, scores):
        if s.scene_id not in cache:
            scene = load_scene(root / "scenes", s.scene_id)
            inst = scene.instance_ids
            ids, counts = np.unique(inst[inst >= 0], return_counts=True)
            labels_of = _instance_labels(root, s.scene_id)
            cache[s.scene_id] = ({int(i): int(c) for i, c in zip(ids, counts)}, labels_of, scene_boxes(scene, labels_of))
        sizes, labels, boxes = cache[s.scene_id]
        target = set(s.object_ids)
        n_target = sum(sizes.get(i, 0) for i in target)
        present = {labels.get(i) for i in sizes}
        ranked = [classes[k] for k in np.argsort(-np.asarray(sc))]
        guess = next((c for c in ranked if c in present), None)
        cands = sorted(i for i in sizes if labels.get(i) == guess)
        picks = {
            "labels-fewest-points": min(cands, key=lambda i: (sizes[i], i)) if cands else None,
            "labels-most-points": max(cands, key=lambda i: (sizes[i], -i)) if cands else None,
            "labels-random-instance": cands[int(rng.integers(len(cands)))] if cands else None,
            SIGHTED: solve(s.description, s.question_type, guess, boxes, solver_rng),
        }
        for p, i in picks.items():
            inter = sizes[i] if i is not None and i in target else 0
            union = n_target + (sizes[i] if i is not None else 0) - inter
            ious[p].append(inter / union if union else 0.0)
        # a uniformly drawn instance of the scene: IoU of a target instance i is its share of the target
        chance.append(100.0 * sum(sizes.get(i, 0) for i in target) / max(1, n_target) / max(1, len(sizes)))
        groups.append(s.question_type)
        scenes.append(s.scene_id)
    rows = []
    for group in ["all", *sorted(set(groups))]:
        keep = [k for k, g in enumerate(groups) if group == "all" or g == group]
        ch = float(np.mean([chance[k] for k in keep]))
        for p in (*probes, SIGHTED):
            rows.append(_mean_iou_row(p, group, [ious[p][k] for k in keep], [scenes[k] for k in keep], ch, seed))
    return rows
