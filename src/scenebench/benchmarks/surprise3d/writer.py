"""Write SURPRISE3D-format data: scene point clouds and the annotation JSON.

Everything :mod:`scenebench.benchmarks.surprise3d.scenes` and ``.annotations`` read, this module
writes, so synthetic houses and test fixtures come out in the official formats.

Scene files (``SCENES_DIR/<scene_id>.pth`` or ``.npz``) hold the arrays of the ScanNet++
preprocessed, area-sampled point cloud, as ScanNet++'s ``semantic/prep/prepare_training_data.py``
(used by SURPRISE3D and Reason3D) writes them:

- ``sampled_coords``           float64 (N, 3), metres
- ``sampled_colors``           float64 (N, 3), RGB in [0, 1]
- ``sampled_labels``           int16 (N,), semantic class id, -100 where unlabelled
- ``sampled_instance_anno_id`` int16 (N,) (int32 when ids exceed 32767), instance id, -100 where unannotated
- ``superpoints``              int64 (N,), over-segmentation ids (optional)
- ``scene_id``                 str (``.pth`` only)

``.pth`` files are ``torch.save`` of a dict of **numpy arrays** (not tensors), exactly what the
official preprocessing produces and what Reason3D's ``torch.load`` reads; writing them needs the
torch extra, reading them does not (:func:`scenebench.io.arrays.read_pth`). ``.npz``
(``numpy.savez_compressed``) holds the same arrays without ``scene_id``.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.extras import require
from scenebench.io.files import atomic_write_bytes, atomic_write_json

COORDS_KEY = "sampled_coords"
COLORS_KEY = "sampled_colors"
LABELS_KEY = "sampled_labels"
INSTANCE_KEY = "sampled_instance_anno_id"
SUPERPOINTS_KEY = "superpoints"
SCENE_ID_KEY = "scene_id"
IGNORE = -100  # ScanNet++'s ignore index: unannotated instance, unlabelled point


def _ids(name: str, values: np.ndarray | Sequence[int], n: int) -> np.ndarray:
    a = np.asarray(values)
    if a.shape != (n,):
        raise ValueError(f"{name} must be ({n},), got {a.shape}")
    if a.size and not np.issubdtype(a.dtype, np.integer):
        raise ValueError(f"{name} must be integers, got {a.dtype}")
    return np.where(a < 0, IGNORE, a).astype(np.int64)


def _small_int(a: np.ndarray) -> np.ndarray:
    return a.astype(np.int16) if not a.size or int(a.max()) <= np.iinfo(np.int16).max else a.astype(np.int32)


def scene_arrays(
    coords: np.ndarray,
    colors: np.ndarray,
    instance_ids: np.ndarray,
    superpoints: np.ndarray | None = None,
    labels: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """The scene dict with the official keys and dtypes; shapes are checked, not guessed.

    ``colors`` in [0, 1], or in [0, 255] (any value above 1: divided by 255). Negative instance ids
    and labels become -100. Without ``labels`` every point is written unlabelled (-100).
    """
    c = np.asarray(coords, dtype=np.float64)
    if c.ndim != 2 or c.shape[1] != 3:
        raise ValueError(f"coords must be (N, 3), got {c.shape}")
    n = c.shape[0]
    col = np.asarray(colors, dtype=np.float64)
    if col.shape != (n, 3):
        raise ValueError(f"colors must be ({n}, 3), got {col.shape}")
    if col.size and col.max() > 1.0:
        col = col / 255.0
    inst = _ids("instance_ids", instance_ids, n)
    lab = _ids("labels", labels, n) if labels is not None else np.full(n, IGNORE, np.int64)
    out = {COORDS_KEY: c, COLORS_KEY: col, LABELS_KEY: _small_int(lab), INSTANCE_KEY: _small_int(inst)}
    if superpoints is not None:
        out[SUPERPOINTS_KEY] = _ids("superpoints", superpoints, n)
    return out


def write_scene(
    path: str | Path,
    coords: np.ndarray,
    colors: np.ndarray,
    instance_ids: np.ndarray,
    superpoints: np.ndarray | None = None,
    labels: np.ndarray | None = None,
) -> Path:
    """Write one scene as ``.pth`` (torch.save of numpy arrays + ``scene_id``; torch extra) or
    ``.npz``; the scene id is the file's stem. Returns the path."""
    p = Path(path)
    arrays = scene_arrays(coords, colors, instance_ids, superpoints, labels)
    buf = io.BytesIO()
    if p.suffix.lower() in (".pth", ".pt"):
        torch = require("torch", "torch", purpose="writing .pth scenes (or write .npz, which needs no torch)")
        torch.save({SCENE_ID_KEY: p.stem, **arrays}, buf)
    elif p.suffix.lower() == ".npz":
        np.savez_compressed(buf, **arrays)  # type: ignore[arg-type]  # numpy's stub types **kwds as its allow_pickle flag
    else:
        raise ValueError(f"scene file must end in .pth or .npz, got {p.name}")
    atomic_write_bytes(p, buf.getvalue())
    return p


def annotation_record(
    scene_id: str,
    object_id: int | Sequence[int],
    description: str,
    object_name: Sequence[str],
    question_type: str,
    **extra: Any,
) -> dict[str, Any]:
    """One record of the official annotation list (extra keys are kept, as real files carry more).

    ``object_id`` is always written as a list of ints, as the released loader reads it.
    """
    oid = [int(object_id)] if isinstance(object_id, (int, np.integer)) else [int(o) for o in object_id]
    rec: dict[str, Any] = {
        "scene_id": str(scene_id),
        "object_id": oid,
        "description": str(description),
        "object_name": [str(n) for n in object_name],
        "question_type": str(question_type),
    }
    rec.update(extra)
    return rec


def write_annotations(path: str | Path, records: Sequence[Mapping[str, Any]]) -> Path:
    """Write the annotation JSON list (``surprise-3d-val.json`` shape), atomically; ``object_id`` is
    always written as a list of ints, the form the released loader iterates."""
    p = Path(path)
    out = []
    for r in records:
        d = dict(r)
        oid = d.get("object_id")
        if isinstance(oid, (int, np.integer)) and not isinstance(oid, bool):
            d["object_id"] = [int(oid)]
        out.append(d)
    atomic_write_json(p, out, indent=1)
    return p
