"""How far the evaluator lineages move one model's number: a seeded noisy-oracle prediction set per
benchmark on a generated split, scored under ``strict`` and every ``official:<lineage>``.

    python scripts/lineage_spread.py GENERATED_FOLDER [--seed 7]

``GENERATED_FOLDER`` is a ``scenebench generate`` output with SURPRISE3D scenes (so it holds
``multi3drefer/``, ``nr3d/``, ``sr3d/`` and ``scan2cap/``). The predictions: Multi3DRefer every
target box jittered (10% of queries missing, 15% with an extra box); Nr3D / Sr3D 60% right, 20% a
distractor, 10% the target as ``<OBJnnn>`` text, 5% text without an id, 5% missing; Scan2Cap per
object a jittered box captioned with its first description's tokens (10% of objects without one, 15%
with a second, looser box captioned with its last description's tokens). Prints one Markdown table.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np

import scenebench
from scenebench.benchmarks.multi3drefer.data import load_queries
from scenebench.benchmarks.multi3drefer.writer import corners
from scenebench.benchmarks.nr3d.data import load_scan_list, load_utterances
from scenebench.benchmarks.scan2cap.data import load_objects
from scenebench.declarations.catalog import get_spec
from scenebench.io.scannet import load_minmax_boxes

HEADLINE = {"multi3drefer": "F1@0.5", "nr3d": "accuracy", "sr3d": "accuracy", "scan2cap": "CIDEr@0.5"}
BOX_HEADLINE = "Acc@0.5"  # Nr3D / Sr3D under official:video3dllm: box IoU, under its own name


def jitter(b: np.ndarray, scale: float, rng: np.random.Generator) -> np.ndarray:
    size = b[3:] - b[:3]
    c = (b[3:] + b[:3]) / 2 + rng.normal(0, scale, 3) * size
    h = size * np.exp(rng.normal(0, scale, 3)) / 2
    return np.concatenate([c - h, c + h])


def predictions(gen: Path, tmp: Path, rng: np.random.Generator) -> dict[str, dict[str, Path]]:
    out: dict[str, dict[str, Path]] = {}
    folder = gen / "multi3drefer"
    recs = []
    for q in load_queries(folder / "multi3drefer_val.json"):
        if rng.random() < 0.1:
            continue
        ids, boxes = load_minmax_boxes(folder / "scannet_data", q.scene_id)
        bs = [jitter(boxes[ids == o][0], 0.15, rng) for o in q.object_ids]
        if rng.random() < 0.15:
            bs.append(jitter(boxes[int(rng.integers(len(boxes)))], 0.1, rng))
        recs.append({"scene_id": q.scene_id, "ann_id": q.ann_id, "aabb": [corners(b) for b in bs]})
    (tmp / "m3dr.json").write_text(json.dumps(recs))
    out["multi3drefer"] = {
        "annotations": folder / "multi3drefer_val.json",
        "boxes": folder / "scannet_data",
        "predictions": tmp / "m3dr.json",
    }
    for name in ("nr3d", "sr3d"):
        folder = gen / name
        test = load_scan_list(folder / "test_scans.txt")
        recs = []
        for u in load_utterances(folder / f"{name}.csv"):
            if u.scan_id not in test:
                continue
            x = rng.random()
            if x < 0.6:
                recs.append({"sample_id": u.sample_id, "pred_id": u.target_id})
            elif x < 0.8:
                recs.append({"sample_id": u.sample_id, "pred_id": u.distractor_ids[0]})
            elif x < 0.9:
                recs.append({"sample_id": u.sample_id, "pred": f"It is <OBJ{u.target_id:03d}>."})
            elif x < 0.95:
                recs.append({"sample_id": u.sample_id, "pred": "the one near the window"})
        (tmp / f"{name}.json").write_text(json.dumps(recs))
        out[name] = {"annotations": folder / f"{name}.csv", "scans": folder / "test_scans.txt", "predictions": tmp / f"{name}.json"}
        out[name]["boxes"] = folder / "scannet_data"  # read by official:m3drefclip and official:video3dllm (the answered id's box)
    folder = gen / "scan2cap"
    pred: dict[str, list[dict[str, object]]] = {}
    for o in load_objects(folder / "ScanRefer_filtered_val.json"):
        ids, boxes = load_minmax_boxes(folder / "scannet_data", o.scene_id)
        x = rng.random()
        if x < 0.1:
            continue
        gt = boxes[ids == o.object_id][0]
        # captions as a Scan2Cap model emits them: token sequences ("... the window ."), as the released token lists
        first, last = " ".join(o.tokens[0]), " ".join(o.tokens[-1])
        pred.setdefault(o.scene_id, []).append({"caption": f"sos {first} eos", "box": corners(jitter(gt, 0.12, rng))})
        if x > 0.85:
            pred[o.scene_id].append({"caption": f"sos {last} eos", "box": corners(jitter(gt, 0.2, rng))})
    (tmp / "s2c.json").write_text(json.dumps(pred))
    out["scan2cap"] = {
        "annotations": folder / "ScanRefer_filtered_val.json",
        "boxes": folder / "scannet_data",
        "predictions": tmp / "s2c.json",
    }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("generated", type=Path)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        inputs = predictions(args.generated, Path(tmp), np.random.default_rng(args.seed))
        print("| benchmark | metric | protocol | value | scored | excluded |\n|---|---|---|---:|---:|---:|")
        for name, kw in inputs.items():
            for protocol in ("strict", *(f"official:{x}" for x in get_spec(name).lineages)):
                res = scenebench.score(name, protocol=protocol, bootstrap=0, **kw)
                c = res.counts
                metric = BOX_HEADLINE if protocol == "official:video3dllm" and name in ("nr3d", "sr3d") else HEADLINE[name]
                value = res.metrics["overall"][metric]
                print(f"| {name} | {metric} | `{protocol}` | {value:.2f} | {c.n_scored + c.n_missing + c.n_invalid} | {c.n_excluded} |")


if __name__ == "__main__":
    main()
