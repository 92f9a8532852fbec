"""``scenebench audit`` on Multi3DRefer: text-only probes written as prediction files (``--out``),
read back and scored under ``strict`` (F1@0.5, overall and per ``eval_type``).

- ``blind``: no box for any query -- the answer a model that never looks at the scene gives to
  "is anything like that here?"; it earns exactly the zero-target queries;
- ``labels``: the boxes of every object of the described class (``object_name``; each object's class
  from the generated ScanRefer export beside the folder, which names every described object, else
  from the queries' targets), no relation read: the ground-truth labels without geometry or
  language beyond the class;
- ``random``: per query 0, 1 or 2 boxes of random objects of its scene (seeded) -- the chance column;
- ``oracle``: the target boxes (100).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.io.scannet import SCENES, load_minmax_boxes

from .data import load_queries
from .source import TRAIN, VAL
from .writer import corners

TYPES = ("zt_w_d", "zt_wo_d", "st_w_d", "st_wo_d", "mt")


def rows(root: Path, out: Path, *, seed: int, split: str, progress: bool) -> list[dict[str, Any]]:
    from scenebench.io.files import atomic_write_text, read_json
    from scenebench.metrics.records import summarize_scores
    from scenebench.runtime.runner import seeded_rng

    from .predictions import read_predictions
    from .scorer import GROUPS, SPECS, Multi3DReferScorer

    queries = load_queries(root / VAL)
    named: dict[tuple[str, int], str] = {}
    for q in [*(load_queries(root / TRAIN) if (root / TRAIN).is_file() else []), *queries]:
        named.update({(q.scene_id, o): q.object_name for o in q.object_ids})
    # a generated folder's ScanRefer export (beside this one) names every described object, not only the
    # targets of some query: the labels probe must see every instance of a class
    for part in ("train", "val"):
        export = root.parent / "scanrefer" / f"ScanRefer_filtered_{part}.json"
        if export.is_file():
            named.update({(r["scene_id"], int(r["object_id"])): r["object_name"] for r in read_json(export)})
    tables = {s: load_minmax_boxes(root / SCENES, s) for s in {q.scene_id for q in queries}}
    answers: dict[str, list[dict[str, Any]]] = {p: [] for p in ("blind", "labels", "random", "oracle")}
    for q in queries:
        ids, boxes = tables[q.scene_id]
        rec = {"scene_id": q.scene_id, "ann_id": q.ann_id}
        answers["blind"].append({**rec, "aabb": []})
        same = [k for k, o in enumerate(ids) if named.get((q.scene_id, int(o))) == q.object_name]
        answers["labels"].append({**rec, "aabb": [corners(boxes[k]) for k in same]})
        rng = seeded_rng(seed, q.sample_id)
        pick = rng.permutation(len(ids))[: int(rng.integers(0, 3))]
        answers["random"].append({**rec, "aabb": [corners(boxes[k]) for k in pick]})
        answers["oracle"].append({**rec, "aabb": [corners(boxes[k]) for k in np.flatnonzero(np.isin(ids, q.object_ids))]})
    metrics: dict[str, Any] = {}
    for probe, recs in answers.items():
        folder = Path(out) / "multi3drefer" / probe
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(folder / "predictions.json", json.dumps(recs))  # kept for inspection, read back as any submission
        scorer = Multi3DReferScorer(queries, root / SCENES, read_predictions(folder / "predictions.json", queries), "strict")
        records = [r for batch in scorer.iter_scores(set()) for r in batch]
        metrics[probe] = summarize_scores(records, SPECS, groups=GROUPS, n_resamples=0).metrics
    out_rows = []
    for group in ("overall", *TYPES):
        row: dict[str, Any] = {"benchmark": "multi3drefer", "task": "grounding", "group": group, "metric": "F1@0.5", "identity": None}
        for probe in answers:
            block = metrics[probe]["overall"] if group == "overall" else metrics[probe].get("by_eval_type", {}).get(group, {})
            row[probe] = block.get("F1@0.5")
        row["n"] = len(queries) if group == "overall" else sum(q.eval_type == group for q in queries)
        row["chance"] = row["random"]
        out_rows.append(row)
    return out_rows
