"""The released ScanRefer / ScanNet-preprocessed shapes (for tests and ``scenebench generate``).

Data folder: ``ScanRefer_filtered_{train,val}.json``, ``scannetv2-labels.combined.tsv`` and
``scannet_data/<scene_id>_{aligned_bbox,aligned_vert,ins_label}.npy`` (box table; xyz + rgb
0-255; ``object_id + 1`` per point, 0 unannotated), as ScanRefer's ``batch_load_scannet_data.py``
writes them. :func:`write_synthetic` derives all of it from the generated SURPRISE3D scenes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from scenebench.io.arrays import load_npz
from scenebench.io.files import atomic_write_json, read_json
from scenebench.io.scannet import NYU40, SCENES, TSV, TSV_HEAD, nyu40class, write_labels, write_npy, write_scene

from .data import CLASSES

# the ScanNet-layout pieces live in scenebench.io.scannet; re-exported for this package's users
__all__ = ["NYU40", "SCENES", "TSV", "TSV_HEAD", "describe", "nyu40class", "write_labels", "write_npy", "write_scene", "write_synthetic"]
STRUCTURE = {"wall", "floor", "ceiling"}  # never described, and not in the box tables (the released preprocessing drops them)
MIN_SIDE = 0.01  # metres: an object whose box is thinner is not described (a one-point spoon has a zero-size box, IoU 0/0)
TEMPLATES = ("the {t} next to the {a}.", "this is a {t}. it is close to the {a}.", "the {t} that is {h} the {a}.")


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
