"""The released ScanRefer / ScanNet-preprocessed shapes (for tests and ``scenebench generate``).

Data folder: ``ScanRefer_filtered_{train,val}.json``, ``scannetv2-labels.combined.tsv`` and
``scannet_data/<scene_id>_{aligned_bbox,aligned_vert,ins_label}.npy`` (box table; xyz + rgb
0-255; ``object_id + 1`` per point, 0 unannotated), as ScanRefer's ``batch_load_scannet_data.py``
writes them. :func:`write_synthetic` derives all of it from the generated SURPRISE3D scenes.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.io.arrays import load_npz
from scenebench.io.files import atomic_write_bytes, atomic_write_json, atomic_write_text, read_json

from .data import CLASSES

SCENES = "scannet_data"
TSV = "scannetv2-labels.combined.tsv"
TSV_HEAD = ["id", "raw_category", "category", "count", "nyu40id", "eigen13id", "nyuClass", "nyu40class"]
NYU40 = {"wall": 1, "floor": 2, "cabinet": 3, "bed": 4, "chair": 5, "sofa": 6, "table": 7, "door": 8, "window": 9, "bookshelf": 10}
NYU40 |= {"picture": 11, "counter": 12, "desk": 14, "curtain": 16, "refrigerator": 24, "shower curtain": 28, "ceiling": 22}
NYU40 |= {"toilet": 33, "sink": 34, "bathtub": 36, "otherprop": 40}
STRUCTURE = {"wall", "floor", "ceiling"}  # never described, and not in the box tables (the released preprocessing drops them)
MIN_SIDE = 0.01  # metres: an object whose box is thinner is not described (a one-point spoon has a zero-size box, IoU 0/0)
TEMPLATES = ("the {t} next to the {a}.", "this is a {t}. it is close to the {a}.", "the {t} that is {h} the {a}.")


def write_npy(path: Path, arr: np.ndarray) -> None:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.ascontiguousarray(arr), allow_pickle=False)
    atomic_write_bytes(path, buf.getvalue())


def write_scene(folder: Path, scene_id: str, boxes: np.ndarray, vert: np.ndarray, ins: np.ndarray) -> list[Path]:
    """One scene's box table ``(K, 8)``, points ``(N, 6)`` and per-point ``object_id + 1`` (0: none)."""
    out = [Path(folder) / f"{scene_id}_{kind}.npy" for kind in ("aligned_bbox", "aligned_vert", "ins_label")]
    for path, arr, dtype in zip(out, (np.reshape(boxes, (-1, 8)), vert, ins), (np.float64, np.float32, np.uint32)):
        write_npy(path, np.asarray(arr, dtype))
    return out


def nyu40class(raw: str) -> str:
    """A raw category's NYU40 class: the longest class name it ends with (``sidetable``: table), else ``otherprop``."""
    return next((c for c in sorted(NYU40, key=len, reverse=True) if raw.replace(" ", "").endswith(c.replace(" ", ""))), "otherprop")


def write_labels(path: Path, raw_names: Sequence[str]) -> Path:
    rows = ["\t".join(TSV_HEAD)]
    for i, raw in enumerate(sorted(set(raw_names)), start=1):
        c = nyu40class(raw)
        rows.append("\t".join([str(i), raw, raw, "1", str(NYU40[c]), "0", c, c]))
    atomic_write_text(path, "\n".join(rows) + "\n")
    return path


def describe(labels: list[str], centres: np.ndarray, rng: np.random.Generator, sizes: np.ndarray | None = None) -> list[list[str]]:
    """Two descriptions per described object, each naming its nearest other non-structure object.

    Described: not structure and, when ``sizes`` are given, a box at least :data:`MIN_SIDE` on every
    side (a box of no volume matches nothing, not even itself: the oracle would miss it)."""
    ok = np.array([lab not in STRUCTURE for lab in labels], dtype=bool)
    sized = ok if sizes is None else ok & np.all(np.asarray(sizes, float).reshape(-1, 3) >= MIN_SIDE, axis=1)
    d = np.linalg.norm(centres[:, None, :] - centres[None, :, :], axis=-1)
    d[:, ~ok] = np.inf
    np.fill_diagonal(d, np.inf)
    out: list[list[str]] = []
    for k, lab in enumerate(labels):
        a = int(d[k].argmin())
        if not sized[k] or not np.isfinite(d[k, a]):
            out.append([])
            continue
        dz = centres[k, 2] - centres[a, 2]
        h = "higher than" if dz > 0.2 else "lower than" if dz < -0.2 else "level with"
        picks = rng.choice(len(TEMPLATES), size=2, replace=False)
        out.append([TEMPLATES[int(j)].format(t=lab, a=labels[a], h=h) for j in picks])
    return out


def write_synthetic(folder: Path, root: Path, summaries: list[dict[str, Any]], rng: np.random.Generator) -> list[Path]:
    """ScanRefer from the generated SURPRISE3D scenes (points, instances) and their ScanNet++ labels."""
    src = root / "surprise3d"
    if not (src / "scenes").is_dir():
        return []  # ScanRefer is derived from the SURPRISE3D scenes: without them, nothing to write
    written: list[Path] = []
    splits: dict[str, list[dict[str, Any]]] = {"train": [], "val": []}
    names: list[str] = list(CLASSES[:-1])
    # one-room SURPRISE3D scenes (``generate --surprise-scenes room``) list their ids; whole houses are the house's scene
    scenes = [(sm, sid) for sm in summaries for sid in sm.get("surprise3d_scenes", [sm["scene_id"]])]
    for sm, sid in scenes:
        arr = load_npz(src / "scenes" / f"{sid}.npz")
        groups = read_json(src / "scannetpp" / sid / "scans" / "segments_anno.json")["segGroups"]
        labels = [str(g["label"]) for g in groups]
        centre = np.array([g["obb"]["centroid"] for g in groups], float).reshape(-1, 3)
        size = np.array([g["obb"]["axesLengths"] for g in groups], float).reshape(-1, 3)
        obj = np.arange(len(groups))  # ScanNet object ids are dense: box-table row k holds object k
        nyu = [NYU40[nyu40class(lab)] for lab in labels]
        table = np.concatenate([centre, size, np.array(nyu, float)[:, None], obj[:, None]], axis=1)
        rank = np.full(max([g["id"] for g in groups], default=0) + 2, 0, np.int64)
        rank[[g["id"] for g in groups]] = obj + 1
        inst = np.asarray(arr["sampled_instance_anno_id"]).reshape(-1)
        ins = np.where(inst >= 0, rank[np.clip(inst, 0, len(rank) - 1)], 0)
        vert = np.concatenate([arr["sampled_coords"], np.asarray(arr["sampled_colors"]) * 255.0], axis=1)
        keep = np.array([lab not in STRUCTURE for lab in labels], dtype=bool)  # ScanRefer's tables hold objects only
        written += write_scene(folder / SCENES, sid, table[keep], vert, ins)
        names += labels
        for k, texts in enumerate(describe(labels, centre, rng, size)):
            for j, text in enumerate(texts):
                rec = {"scene_id": sid, "object_id": str(k), "object_name": labels[k].replace(" ", "_"), "ann_id": str(j)}
                splits["val" if sm["split"] == "test" else "train"].append({**rec, "description": text, "token": text.split()})
    for split, recs in splits.items():
        atomic_write_json(folder / f"ScanRefer_filtered_{split}.json", recs, indent=None)
        written.append(folder / f"ScanRefer_filtered_{split}.json")
    return [*written, write_labels(folder / TSV, names)]
