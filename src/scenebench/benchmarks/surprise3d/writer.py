"""Write SURPRISE3D-format data: scene point clouds and the annotation JSON.

Everything :mod:`scenebench.benchmarks.surprise3d.scenes` and ``.annotations`` read, this module
writes, so synthetic houses and test fixtures come out in the official formats.

Scene files (``SCENES_DIR/<scene_id>.pth`` or ``.npz``) hold the arrays of the ScanNet++
preprocessed, area-sampled point cloud:

- ``sampled_coords``           float32 (N, 3), metres
- ``sampled_colors``           float32 (N, 3), RGB in [0, 255]
- ``sampled_instance_anno_id`` int32 (N,), ScanNet++ instance id, -1 where unannotated
- ``superpoints``              int32 (N,), optional over-segmentation ids

``.pth`` files are written with ``torch.save`` of a dict of tensors (torch extra), exactly what
the official preprocessing produces and what ``torch.load(weights_only=True)`` reads back; any
other suffix must be ``.npz`` (``numpy.savez_compressed``, readable without torch).
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
INSTANCE_KEY = "sampled_instance_anno_id"
SUPERPOINTS_KEY = "superpoints"


def scene_arrays(
    coords: np.ndarray,
    colors: np.ndarray,
    instance_ids: np.ndarray,
    superpoints: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """The scene dict with the official keys and dtypes; shapes are checked, not guessed."""
    c = np.asarray(coords, dtype=np.float32)
    if c.ndim != 2 or c.shape[1] != 3:
        raise ValueError(f"coords must be (N, 3), got {c.shape}")
    n = c.shape[0]
    col = np.asarray(colors, dtype=np.float32)
    if col.shape != (n, 3):
        raise ValueError(f"colors must be ({n}, 3), got {col.shape}")
    inst = np.asarray(instance_ids)
    if inst.shape != (n,):
        raise ValueError(f"instance_ids must be ({n},), got {inst.shape}")
    if inst.size and not np.issubdtype(inst.dtype, np.integer):
        raise ValueError(f"instance_ids must be integers, got {inst.dtype}")
    out = {COORDS_KEY: c, COLORS_KEY: col, INSTANCE_KEY: inst.astype(np.int32)}
    if superpoints is not None:
        sp = np.asarray(superpoints)
        if sp.shape != (n,):
            raise ValueError(f"superpoints must be ({n},), got {sp.shape}")
        out[SUPERPOINTS_KEY] = sp.astype(np.int32)
    return out


def write_scene(
    path: str | Path,
    coords: np.ndarray,
    colors: np.ndarray,
    instance_ids: np.ndarray,
    superpoints: np.ndarray | None = None,
) -> Path:
    """Write one scene as ``.pth`` (torch.save of tensors; torch extra) or ``.npz``; returns the path."""
    p = Path(path)
    arrays = scene_arrays(coords, colors, instance_ids, superpoints)
    buf = io.BytesIO()
    if p.suffix.lower() in (".pth", ".pt"):
        torch = require("torch", "torch", purpose="writing .pth scenes")
        torch.save({k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in arrays.items()}, buf)
    elif p.suffix.lower() == ".npz":
        np.savez_compressed(buf, **arrays)
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
    """One record of the official annotation list (extra keys are kept, as real files carry more)."""
    oid: int | list[int] = int(object_id) if isinstance(object_id, (int, np.integer)) else [int(o) for o in object_id]
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
    """Write the annotation JSON list (``surprise-3d-val.json`` shape), atomically."""
    p = Path(path)
    atomic_write_json(p, [dict(r) for r in records], indent=1)
    return p
