"""``scenebench audit`` on Scan2Cap: captioners that never look at the scene, in the oracle-box setting
of ``scenebench run`` (every described object gets its ground-truth box, so only the caption is
judged), written as ``pred.json`` files (``--out``), read back and scored under ``strict``: BLEU-4
and ROUGE-L @0.5 (the oracle 100), and CIDEr@0.5 as a share of the oracle's CIDEr (CIDEr-D has no
fixed maximum: the oracle's reads several hundred).

- ``blind``: one caption for every object, the train split's most frequent description (ties: the
  first in file order) -- what a model that learnt only the train text's mode writes;
- ``labels``: a constant caption per class, the train split's most frequent description of the
  object's class (``object_name``; the blind caption for a class train never describes): the ground-
  truth label and nothing else of the scene;
- ``random``: a seeded uniform train description per object -- the chance column;
- ``oracle``: each object's first description (BLEU-4 and ROUGE-L 100).

The train descriptions are ``ScanRefer_filtered_train.json`` in the folder or, in a generated
folder, the ScanRefer export's beside it; without either the train probes read None.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

METRICS = ("CIDEr@0.5 % of oracle", "BLEU-4@0.5", "ROUGE-L@0.5")
TRAIN = "ScanRefer_filtered_train.json"


def _train_descriptions(root: Path) -> list[tuple[str, str]]:
    """(class, description as its token sequence) of every train description, in file order."""
    from scenebench.io.files import read_json

    for path in (root / TRAIN, root.parent / "scanrefer" / TRAIN):
        if path.is_file():
            recs = read_json(path, what="Scan2Cap train descriptions")
            return [(str(r["object_name"]), " ".join(r.get("token") or r["description"].split())) for r in recs]
    return []


def rows(root: Path, out: Path, *, seed: int, split: str, progress: bool) -> list[dict[str, Any]]:
    from scenebench.io.files import atomic_write_text, file_fingerprint
    from scenebench.io.scannet import SCENES, corners_of_minmax, load_minmax_boxes
    from scenebench.runtime.runner import seeded_rng

    from .data import load_objects
    from .scorer import make_job
    from .source import VAL

    objects = load_objects(root / VAL)
    train = _train_descriptions(root)
    mode = Counter(d for _, d in train).most_common(1)[0][0] if train else None
    per_class: dict[str, Counter[str]] = {}
    for name, d in train:
        per_class.setdefault(name, Counter())[d] += 1
    tables = {s: load_minmax_boxes(root / SCENES, s) for s in {o.scene_id for o in objects}}
    captions: dict[str, dict[str, str | None]] = {p: {} for p in ("blind", "labels", "random", "oracle")}
    for o in objects:
        captions["blind"][o.sample_id] = mode
        label = per_class.get(o.object_name)
        captions["labels"][o.sample_id] = label.most_common(1)[0][0] if label else mode
        pick = int(seeded_rng(seed, o.sample_id, "random").integers(len(train))) if train else None
        captions["random"][o.sample_id] = None if pick is None else train[pick][1]
        captions["oracle"][o.sample_id] = " ".join(o.tokens[0])
    metrics: dict[str, dict[str, Any] | None] = {}
    for probe, caps in captions.items():
        if any(c is None for c in caps.values()):
            metrics[probe] = None  # no train split: the probe cannot be written
            continue
        pred: dict[str, list[dict[str, Any]]] = {}
        for o in objects:
            ids, boxes = tables[o.scene_id]
            rows_ = [k for k, i in enumerate(ids) if i == o.object_id]
            if rows_:
                pred.setdefault(o.scene_id, []).append(
                    {"caption": f"sos {caps[o.sample_id]} eos", "box": corners_of_minmax(boxes[rows_[0]])}
                )
        folder = Path(out) / "scan2cap" / probe
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "pred.json"
        atomic_write_text(path, json.dumps(pred))  # kept for inspection, read back as any submission
        job = make_job(objects, {"annotations": file_fingerprint(root / VAL)}, root / SCENES, path, "strict", n_resamples=0)
        records = [r for batch in job.scorer.iter_scores(set()) for r in batch]
        metrics[probe] = job.summarize(records, None).metrics["overall"]
    out_rows = []
    for metric in METRICS:
        row: dict[str, Any] = {"benchmark": "scan2cap", "task": "captioning (GT boxes)", "group": "overall", "metric": metric}
        row["identity"] = None
        base = metric.split(" ")[0]
        best = (metrics["oracle"] or {}).get(base) if metric != base else 100.0
        for probe in captions:
            block = metrics[probe]
            value = None if block is None else block.get(base)
            # CIDEr-D has no fixed maximum: its row reads each probe as a share of the oracle's CIDEr
            row[probe] = None if value is None or not best else 100.0 * value / best
        row["n"] = len(objects)
        row["chance"] = row["random"]
        out_rows.append(row)
    return out_rows
